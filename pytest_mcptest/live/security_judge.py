"""The security lint's second tier, recorded: a model asked about each tool and result, once.

:func:`judge_subjects` asks one model (through the live tier's providers, its rate
limiter and an item's budget, :mod:`.runner`) about each subject of
:mod:`~pytest_mcptest.engine.security_verdicts` that has no verdict yet: one request per
tool or distinct result, so a poisoned tool can reach only its own verdict, up to
``concurrency`` at once. A subject whose answer is not the JSON asked for is left
unjudged with a note; a failure of the provider or a spent budget stops the asking, and
the verdicts already had are kept (the recording says how many remain).

The verdicts live beside the catalog (``<catalog>.security-verdicts.json``, written by
:func:`save_verdicts`) or in the cassette they judge (``meta.security_verdicts``,
:func:`save_into_cassette`); :func:`read_verdicts` and :func:`cassette_verdicts` read them
back on replay, which needs no SDK, no key and no network: this module imports the
providers only when it asks.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

import attrs

from ..engine.security_verdicts import (SYSTEM, Subject, VerdictError, check_entries, dump_verdicts, entry, merged,
                                        parse_answer, parse_verdicts)
from ..errors import InputError

SUFFIX = ".security-verdicts.json"
CASSETTE_KEY = "security_verdicts"  # under the cassette's meta


def verdicts_beside(path: str) -> str:
    """Where a catalog's verdicts are kept: ``<catalog>.security-verdicts.json``."""
    return path + SUFFIX


# --------------------------------------------------------------------------- reading (replay)


def read_verdicts(path: str, shown: str) -> list[dict]:
    """The verdicts in the file at ``path``; none when there is no file. A file that is not
    one is an :class:`InputError` naming it and the JSON pointer."""
    from ..formats.files import read_json

    try:
        data = read_json(path, shown, unique_keys=True)
    except FileNotFoundError:
        return []
    try:
        return parse_verdicts(data)
    except VerdictError as exc:
        raise InputError(shown, str(exc), pointer=exc.pointer) from None


def cassette_verdicts(meta: Mapping, shown: str) -> list[dict]:
    """The verdicts a cassette holds under ``meta.security_verdicts``."""
    if not isinstance(meta, Mapping) or meta.get(CASSETTE_KEY) is None:
        return []
    try:
        return check_entries(meta[CASSETTE_KEY], f"/meta/{CASSETTE_KEY}")
    except VerdictError as exc:
        raise InputError(shown, str(exc), pointer=exc.pointer) from None


# --------------------------------------------------------------------------- writing


def save_verdicts(path: str, shown: str, subjects: Sequence[Subject], new: Sequence[Mapping]) -> int:
    """Merge ``new`` verdicts into the file at ``path`` (read again under its lock, so two
    writers lose nothing) and write it atomically; how many verdicts it holds."""
    from ..formats.files import atomic_write, locked, output_problem

    problem = output_problem(path)
    if problem:
        raise InputError(shown, problem)
    with locked(path):
        entries = merged(read_verdicts(path, shown), new, subjects)
        try:
            atomic_write(path, dump_verdicts(entries))
        except OSError as exc:
            raise InputError(shown, f"cannot write: {exc.strerror or exc}") from None
    return len(entries)


def save_into_cassette(path: str, shown: str, subjects: Sequence[Subject], new: Sequence[Mapping]) -> int:
    """Merge ``new`` verdicts into the cassette's ``meta.security_verdicts``: the file's own
    JSON is changed there and nowhere else (every run kept as written), and written
    atomically under its lock. Only a cassette v1 (with ``runs``) is written."""
    from ..formats.cassette import json_text
    from ..formats.files import atomic_write, locked, read_json

    with locked(path):
        data = read_json(path, shown, unique_keys=True)
        if not isinstance(data, dict) or "runs" not in data:
            raise InputError(shown, "only a cassette v1 (with a 'runs' list) can hold verdicts; convert it first "
                             "(mcptest import auto)")
        meta = data.get("meta")
        if meta is not None and not isinstance(meta, dict):
            raise InputError(shown, "meta is not an object", pointer="/meta")
        meta = dict(meta or {})
        meta[CASSETTE_KEY] = merged(cassette_verdicts(meta, shown), new, subjects)
        data["meta"] = meta
        try:
            atomic_write(path, json_text(data))
        except OSError as exc:
            raise InputError(shown, f"cannot write: {exc.strerror or exc}") from None
    return len(meta[CASSETTE_KEY])


# --------------------------------------------------------------------------- asking


@attrs.frozen
class JudgeTask:
    """The subjects one model is to be asked about, and where the verdicts go."""

    model: str                            # provider:name
    subjects: tuple[Subject, ...]         # distinct, without a verdict
    target: str                           # the file (or cassette) the verdicts go to, as shown
    replayed: int = 0                     # subjects whose verdict is already recorded

    def dry_run(self) -> str:
        """What asking would spend, in one line, calling nothing."""
        chars = len(SYSTEM) * len(self.subjects) + sum(len(s.prompt()) for s in self.subjects)
        kept = f"; {self.replayed} verdict(s) already recorded are replayed" if self.replayed else ""
        return (f"would ask {self.model} {len(self.subjects)} time(s), one request per tool or result "
                f"(about {chars // 4:,} input tokens: {chars:,} characters / 4){kept}, and write the verdicts "
                f"into {self.target}")


@attrs.frozen
class JudgeRecording:
    """What asking produced: the verdicts had (in subject order), notes to say once, the
    spend per model id, and what stopped the asking early (None when nothing did)."""

    entries: tuple[dict, ...]
    notes: tuple[str, ...] = ()
    spend: Mapping = attrs.field(factory=dict)
    stopped: Optional[str] = None


def budget_for(model: str, models: Optional[Mapping], max_tokens: Optional[int] = None,
               max_cost_usd: Optional[float] = None):
    """The budget of one judging: the ``models:`` block's ``item_max_tokens`` and
    ``item_max_cost_usd`` for ``model``, each replaced by the option when one is given."""
    from .runner import item_budget

    budget = item_budget(model, models)
    if max_tokens is not None:
        budget.max_tokens = max_tokens
    if max_cost_usd is not None:
        budget.max_cost_micros = int(round(max_cost_usd * 1_000_000))
    return budget


async def judge_subjects_async(task: JudgeTask, models: Optional[Mapping] = None, budget: Any = None,
                               concurrency: int = 4, rate_dir: Optional[str] = None) -> JudgeRecording:
    """:func:`judge_subjects` inside a running event loop."""
    import anyio

    from ..record.store import utc_now
    from .provider import LiveError, key_redactor, parse_model
    from .runner import Ledger, ModelPool, notes_for

    ledger = Ledger()
    pool = ModelPool(models, budget if budget is not None else budget_for(task.model, models), ledger, rate_dir)
    results: list = [None] * len(task.subjects)
    notes: list[str] = []
    stopped: list[str] = []
    judge_name = str(parse_model(task.model))
    try:
        model = pool.get(task.model)
        gate = anyio.CapacityLimiter(max(1, concurrency))

        async def one(i: int, subject: Subject) -> None:
            async with gate:
                if stopped:  # a provider failure or a spent budget: nothing more is asked
                    return
                try:
                    reply, _ = await model.ask(SYSTEM, [{"role": "user", "content": subject.prompt()}], [])
                except LiveError as exc:
                    stopped.append(str(exc))
                    return
                answered = reply.model or model.provider.ref.name
                try:
                    verdict, categories, reason, unknown = parse_answer(reply.text)
                except VerdictError as exc:
                    notes.append(f"{subject.shown}: {answered}'s answer is not the JSON asked for ({exc}); it stays "
                                 f"without a verdict")
                    return
                if unknown:
                    notes.append(f"{subject.shown}: {answered} named categories that are not ones it was given, left "
                                 f"out: {', '.join(unknown)}")
                results[i] = entry(subject, verdict, categories, reason, judge_name, answered, utc_now())

        async with anyio.create_task_group() as group:
            for i, subject in enumerate(task.subjects):
                group.start_soon(one, i, subject)
    finally:
        await pool.close()
    redactor = key_redactor()  # an answer that echoes a key does not write it down
    entries = tuple(redactor.value(e) for e in results if e is not None)
    notes = notes_for(ledger, [], pool.models) + sorted(notes)
    halted = None
    if stopped:
        left = len(task.subjects) - len(entries)
        halted = f"{stopped[0]} ({len(entries)} of {len(task.subjects)} judged; {left} left without a verdict)"
    return JudgeRecording(entries, tuple(map(redactor.text, notes)), ledger.spend(),
                          redactor.text(halted) if halted else None)


def judge_subjects(task: JudgeTask, models: Optional[Mapping] = None, budget: Any = None, concurrency: int = 4,
                   rate_dir: Optional[str] = None) -> JudgeRecording:
    """Ask ``task.model`` about each of ``task.subjects``; see the module docstring. A model
    that cannot be reached at all (no key, no SDK, a bad ``models:`` setting) raises
    :class:`~.provider.LiveError`; a failure midway is :attr:`JudgeRecording.stopped`."""
    from ..mcp.client import _run_sync

    return _run_sync(judge_subjects_async, task, models, budget, concurrency, rate_dir)


def spend_lines(recording: JudgeRecording) -> list[str]:
    from .runner import spend_lines as lines

    return lines(recording.spend)
