"""The security lint's second tier, recorded: a model asked about each tool and result, once.

:func:`judge_subjects` asks one model (through the live tier's providers, its rate
limiter and an item's budget, :mod:`.runner`) about each subject of
:mod:`~pytest_mcptest.engine.security_verdicts` that has no verdict yet: one request per
tool or distinct result, so a poisoned tool can reach only its own verdict, up to
``concurrency`` at once. A subject whose answer is not the JSON asked for is left
unjudged with a note; a failure of the provider or a spent budget stops the asking, and
the verdicts already had are kept (the recording says how many remain).

The verdicts live beside the catalog or in the cassette they judge, read and written by
:mod:`~pytest_mcptest.formats.security_verdicts` (replay needs no SDK, no key and no network:
this module imports the providers only when it asks).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

import attrs

from ..engine.security_verdicts import SYSTEM, Subject, VerdictError, entry, parse_answer

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
    from ..mcp.client import run_sync

    return run_sync(judge_subjects_async, task, models, budget, concurrency, rate_dir)


def spend_lines(recording: JudgeRecording) -> list[str]:
    from .runner import spend_lines as lines

    return lines(recording.spend)
