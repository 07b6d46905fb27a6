"""Where a block's recording comes from: a cassette, a saved catalog, or a live server.

Every gate that replays runs opens its cassette here, so a missing or broken one reads
the same whatever the block's kind; every gate that judges a catalog reads it here.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any, Optional

import msgspec

from ..formats.cassette import Cassette, load_cassette
from .context import Context
from ..errors import InputError, RecordingError
import pytest_mcptest.record.modes as modes
from ..record.modes import RecordMode
from ..text import plural


class DryRun(Exception):
    """``--mcptest-dry-run``: the block would be recorded; what it would spend, recording nothing."""


class BudgetStop(DryRun):
    """The campaign's budget (``--mcptest-budget-usd``) would be passed: the block is not
    recorded and is skipped, not failed, saying so (as a dry run is); a later run with a
    larger budget records it."""


class RecordingUnavailable(Exception):
    """The block's recording (its cassette, catalog or server) could not be had: the block
    fails before any gate runs, with what is wrong (``collect.py`` shows it as such: not a
    gate failure, so an ``xfail`` does not absorb it)."""

    def __init__(self, gate: str, shown: Optional[str], message: str):
        super().__init__(message)
        self.gate, self.shown, self.message = gate, shown, message


class Evidence(msgspec.Struct, frozen=True):
    """What a block is judged on: ``items`` are what its gate judges one by one (the
    cassette's runs, or the one catalog); ``head`` says what was read, for failure text.
    A msgspec Struct, made in C: every item makes one (see ``verdict.py``)."""

    shown: str
    items: tuple
    head: str
    cassette: Optional[Cassette] = None
    notes: tuple[str, ...] = ()  # what the replay should be read with: first N runs judged, drift
    said: tuple[str, ...] = ()  # said once in the terminal, not part of the verdict: what was recorded
    infra_errors: int = 0  # recorded runs that ended in an infrastructure failure, left out of ``items``


def display(path: str, root: Optional[str]) -> str:
    """``path`` relative to ``root`` (or the working directory) when it lies inside it."""
    prefix = _prefix(root) if root else None
    if prefix is not None and path.startswith(prefix) and os.path.normpath(path) == path:
        # What relpath answers for a clean path under a clean root, without its two abspaths.
        return path[len(prefix):].replace(os.sep, "/")
    rel = os.path.relpath(path, root or os.getcwd())
    return path if rel == ".." or rel.startswith(".." + os.sep) else rel.replace(os.sep, "/")


@lru_cache(maxsize=16)
def _prefix(root: str) -> Optional[str]:
    """``root`` with a separator after it, when it is absolute and normalized (then a clean
    path that starts with it lies inside it); else None."""
    if not os.path.isabs(root) or os.path.normpath(root) != root:
        return None
    return root if root.endswith(os.sep) else root + os.sep


def cassette_path(block: Any, ctx: Context) -> str:
    """The cassette a block replays: ``cassette:`` or the slug of its name, under the cassette dir."""
    name = block.cassette or block.cassette_slug
    if os.path.isabs(name):
        return name
    base = ctx.cassette_dir or _folder(block.file, None if os.path.isabs(block.file) else os.getcwd())
    return os.path.normpath(os.path.join(base, name))


@lru_cache(maxsize=256)
def _folder(path: str, cwd: Optional[str]) -> str:
    """The folder of ``path`` made absolute (as ``os.path.abspath`` does, against ``cwd`` when
    it is relative): the same for every item of a suite file, so worked out once."""
    return os.path.dirname(os.path.normpath(path if cwd is None else os.path.join(cwd, path)))


def _load(path: str, shown: str, ctx: Context) -> Optional[Cassette]:
    """The cassette at ``path``, or None when there is none (no such file or folder)."""
    keep = ctx.shared_cassettes is None or path in ctx.shared_cassettes
    try:
        # A session that records nothing reuses a kept parse without checking the file again
        # (the plugin starts each session with none kept: see load_cassette).
        recheck = ctx.record_mode is not RecordMode.NONE or ctx.shared_cassettes is None
        return load_cassette(path, shown, keep, recheck=recheck, kept=ctx.kept_parses)
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: a NUL in the path
        return None
    except InputError as exc:
        raise RecordingUnavailable("cassette", shown, exc.render()) from None
    except OSError as exc:
        raise RecordingUnavailable("cassette", shown, f"cannot read {shown}: {exc.strerror}") from None


def open_cassette(block: Any, ctx: Context, live: Any = None) -> Evidence:
    """The block's cassette, as its record mode says (``record/modes.py`` decides; see
    ``docs/recording.md``): replayed, or first recorded when the block's gate can record
    it live (its :class:`~.protocol.LiveRecording`, ``live``) and the mode asks for it. Judges the first ``runs:`` runs when the block sets it,
    and reports drift between the cassette and the suite. A :class:`RecordingUnavailable` says
    what is wrong."""
    path = cassette_path(block, ctx)
    shown = display(path, ctx.root)
    cassette = _load(path, shown, ctx)
    exists = cassette is not None
    # Asked only of a mode that may record: decide() never reads it for `none`.
    can_record = ctx.record_mode is not RecordMode.NONE and live is not None and live.can_record(block)
    needs = live.needs if live is not None else None
    recorder = live.recorder if live is not None else "a recorder"
    good, broken = _counts(cassette)
    decision = modes.decide(ctx.record_mode, shown, exists, good, getattr(block, "runs", None),
                            can_record=can_record, recorder=recorder, needs=needs, runs_broken=broken)
    if decision.records and not ctx.dry_run:
        with _locked(path):  # items sharing a cassette (pytest -n 2) record it once: the second replays
            cassette = _load(path, shown, ctx)
            good, broken = _counts(cassette)
            decision = modes.decide(ctx.record_mode, shown, cassette is not None, good, getattr(block, "runs", None),
                                    can_record=can_record, recorder=recorder, needs=needs, runs_broken=broken)
            return _carry_out(decision, block, ctx, live, path, shown, cassette)
    return _carry_out(decision, block, ctx, live, path, shown, cassette)


def planned_runs(block: Any, ctx: Context, live: Any) -> int:
    """How many runs the record mode will record live for ``block`` (0: it replays, or
    nothing can record it), as :func:`open_cassette` will decide; for the progress shown."""
    if ctx.record_mode is RecordMode.NONE or ctx.dry_run or live is None or not live.can_record(block):
        return 0
    path = cassette_path(block, ctx)
    try:
        cassette = _load(path, path, ctx)
    except RecordingUnavailable:
        return 0
    good, broken = _counts(cassette)
    decision = modes.decide(ctx.record_mode, path, cassette is not None, good, getattr(block, "runs", None),
                            can_record=True, runs_broken=broken)
    return decision.runs_to_record if decision.records else 0


def _counts(cassette: Optional[Cassette]) -> tuple[int, int]:
    """``(agent runs, infrastructure failures)`` the cassette holds (``engine/infra.py``)."""
    if cassette is None:
        return 0, 0
    runs, broken = _agent_runs(cassette)
    return len(runs), len(broken)


def _store() -> Any:
    """``record/store.py``, imported only when an item records."""
    import pytest_mcptest.record.store as store

    return store


def _locked(path: str):
    from ..formats.files import locked

    return locked(path)


def _carry_out(decision: Any, block: Any, ctx: Context, live: Any, path: str, shown: str,
               cassette: Optional[Cassette]) -> Evidence:
    """:func:`open_cassette` once decided (under the cassette's lock when it records)."""
    if decision.action == modes.FAIL:
        if ctx.dry_run and cassette is None and getattr(block, "agent", ""):
            # A [distractors] item judges its agent's cassette: the agent item records it.
            raise DryRun(f"would replay {shown} once the agent item {block.agent!r} has recorded it")
        raise RecordingUnavailable("cassette", shown, decision.message)
    notes, said = [], []
    if decision.records:
        if ctx.dry_run:
            raise DryRun(f"would record: {live.dry_run(block, decision.runs_to_record)} into {shown}")
        said.append(decision.note)
        how = _store().how_to_write(decision.action)
        try:
            said += live.record(block, ctx, path, decision.runs_to_record, how)
        except RecordingError as exc:
            raise RecordingUnavailable("cassette", shown, f"recording {shown} failed: {exc}") from None
        cassette = _load(path, shown, ctx)
        if cassette is None:
            raise RecordingUnavailable("cassette", shown, f"recording {shown} failed: no cassette was written")
    elif decision.note:
        notes.append(decision.note)
    cassette, cost_note = _priced(cassette, block)
    if cost_note:
        notes.append(cost_note)
    runs, broken = _agent_runs(cassette)
    if broken:
        notes.append(_infra_summary(broken))
    runs = runs if decision.runs_to_judge is None else runs[:decision.runs_to_judge]
    if not runs:
        raise RecordingUnavailable("cassette", shown, f"{shown} holds no runs" + (
            f": {_infra_summary(broken)}" if broken else ""))
    drift = _drift(block, cassette, shown, ctx)
    if drift:
        if ctx.drift == "fail":
            raise RecordingUnavailable("drift", shown, drift)
        notes.append(drift)
    calls = len(runs[0].tool_calls) if len(runs) == 1 else sum(len(run.tool_calls) for run in runs)
    head = f"cassette {shown}, {plural(len(runs), 'run')}, {plural(calls, 'call')}"
    return Evidence(shown, runs, head, cassette, tuple(notes), tuple(said), len(broken))


def _agent_runs(cassette: Cassette) -> tuple[tuple, tuple]:
    """The cassette's runs of the agent, and those its infrastructure ended (not judged)."""
    if not any(run.meta for run in cassette.runs):  # nearly every cassette: no run to look into
        return cassette.runs, ()
    from ..engine.infra import split

    return split(cassette.runs)


def _infra_summary(broken: tuple) -> str:
    from ..engine.infra import summary

    return summary(broken)


def _priced(cassette: Cassette, block: Any) -> tuple[Cassette, Optional[str]]:
    """The cassette with ``cost_micros`` worked out for the runs that have tokens but no cost
    (``live/pricing.py``: the live tier's price table, a ``price:`` under ``models:``), and
    the note that says which model had no price."""
    if all(run.cost_micros is not None or not run.tokens for run in cassette.runs):
        return cassette, None  # every run costed, or nothing to cost: the common case, no import
    from ..live.pricing import replay_costs

    recorded = cassette.meta.get("model") if cassette.meta else None
    suite = getattr(block, "model", None)
    runs, note = replay_costs(cassette.runs, recorded if isinstance(recorded, str) else None,
                              suite if isinstance(suite, str) else None, getattr(block, "models", None))
    return msgspec.structs.replace(cassette, runs=runs), note


def _drift(block: Any, cassette: Cassette, shown: str, ctx: Context) -> str:
    """What changed between the cassette and the suite (model, prompt, the servers' saved
    catalogs), with the command that re-records; empty when nothing did or drift is ignored."""
    meta = cassette.meta
    if ctx.drift == "ignore" or not meta:
        return ""
    prompt = getattr(block, "prompt", None)
    if not ("catalog_sha256" in meta or ("model" in meta and getattr(block, "model", None) is not None)
            or ("prompt_sha256" in meta and prompt is not None)):
        return ""  # nothing both sides have (compare would find no change): no item id to work out
    from ..record.drift import compare

    catalog = None
    if "catalog_sha256" in meta:  # read the saved catalogs only when there is a hash to compare
        catalog = _snapshot_catalog(getattr(block, "server_entries", None) or {}, ctx)
    item_id = f"{display(block.file, ctx.root)}::{block.name}"
    drift = compare(meta, shown, item_id, model=getattr(block, "model", None), prompt=prompt,
                    system_prompt=getattr(block, "system_prompt", None) if prompt is not None else None,
                    catalog=catalog)
    return drift.message()


def _snapshot_catalog(entries: dict, ctx: Context) -> Optional[dict]:
    """``{server: tools/list answer}`` when every server the block names is a saved catalog
    (a live server would have to be started to compare it: not done on replay)."""
    if not entries or any("catalog" not in e for e in entries.values()):
        return None
    try:
        return {name: _saved_catalog(e["catalog"], ctx.root) for name, e in entries.items()}
    except (InputError, OSError):
        return None


# Saved catalogs by (path, mtime, size): many items of a suite name the same servers, and
# each is read once per process unless the file changes.
_SAVED: dict[tuple, Any] = {}


def _saved_catalog(path: str, root: Optional[str]) -> Any:
    from ..formats.files import watching

    if watching():  # a verdict that may be kept depends on these bytes: read them (listed as read)
        return read_catalog(path, display(path, root))
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    if key not in _SAVED:
        if len(_SAVED) > 256:
            _SAVED.clear()
        _SAVED[key] = read_catalog(path, display(path, root))
    return _SAVED[key]


def read_catalog(path: str, shown: str) -> Any:
    """A saved ``tools/list`` answer (``{"tools": [...]}`` or a bare list) from a JSON file,
    read as every user file is (``files.read_json``: a regular file, bounded, UTF-8, strict
    JSON, bounded depth); what is wrong is an :class:`InputError` naming the file."""
    from ..formats.files import read_json

    try:
        data = read_json(path, shown, unique_keys=True)
    except FileNotFoundError:
        raise InputError(shown, "cannot read the catalog: no such file") from None
    tools = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(tools, list):
        raise InputError(shown, "a catalog is a tools/list answer: {\"tools\": [...]} or a list of tools",
                         pointer="/tools" if isinstance(data, dict) else "")
    return data


def catalog_source(shown: str, catalog: Any) -> Evidence:
    """A catalog as the one thing a catalog gate judges."""
    return Evidence(shown, (catalog,), f"catalog {shown}")


# --------------------------------------------------------------------------- live recording


def record_live(ctx: Context, path: str, how: str, recorder, meta: dict, written=None) -> list[str]:
    """Run ``recorder()`` (a live recording: ``live/``), then write its runs into ``path``
    (``how``: ``new``, ``append`` or ``replace``; ``record/store.py``), redacted, atomically,
    with ``meta`` over the recording's own. Returns what to say once in the terminal (the
    recording's notes, its calls, tokens and cost per model). A failure is a
    :class:`RecordingError`; the old cassette is then untouched. ``written()`` is called once
    the cassette is in place (the live journal is then removed: ``live/journal.py``)."""
    from ..live.campaign import BudgetSpent
    from ..live.provider import LiveError
    from ..live.runner import spend_lines
    from ..redact import redactor
    from ..record.store import save, utc_now

    import time

    from ..live.shard import DURATION_KEY

    started = time.monotonic()
    try:
        recording = recorder()
    except BudgetSpent as exc:
        raise BudgetStop(f"{display(path, ctx.root)}: {exc}") from None
    except LiveError as exc:
        raise RecordingError(str(exc)) from None
    try:
        took = round(time.monotonic() - started, 3)  # what --mcptest-shard balances the next campaign by
        save(path, list(recording.runs), recording.catalog,
             {**recording.meta, **meta, DURATION_KEY: took, "recorded_at": utc_now()}, how, redactor(ctx.redact))
    except (OSError, ValueError) as exc:
        raise RecordingError(f"cannot write the cassette: {exc}") from None
    if written is not None:
        written()
    return list(recording.notes) + spend_lines(recording.spend)


# --------------------------------------------------------------------------- terminal summary

NOTES = "cassette notes"


def _notes_section(entries: list[tuple[str, Any]]) -> tuple[str, list[str]]:
    """What the record modes did or found, item by item: runs recorded or left unjudged,
    cassettes that no longer match their suite."""
    lines = []
    for nodeid, note in sorted(entries):
        lines.append(nodeid)
        lines += [f"    {line}" for line in note.splitlines()]
    return f"mcptest: {NOTES}", lines


SUMMARY_SECTIONS = {NOTES: _notes_section}
