"""MCP conformance (``conformance:``): a recorded session judged by the checks of
``engine/conformance.py``, for the protocol version it negotiated.

Each entry is one item, judged on a cassette (``cassette:``, every run or the ``run:`` named)
or on a server of the suite (``server:``: a ``servers:`` entry with a ``command:``, driven by
``mcptest probe`` when the item runs, nothing written). ``known_failures:`` (a file, a list of
check ids or a mapping of id to reason) lists failures that do not fail the item; a listed
check that ran and did not fail does fail it, naming it, until it is taken off the list.
``skip: {check-id: reason}`` leaves checks out (``skip: true`` or a reason skips the item, as
on any block). The failure text names each failed check with its id, the finding and the
link to the specification; the envelope is the checks themselves (``checks``, ``counts``,
``failed``, ``protocol_version``, ``server``), what ``expect:`` reads and the reports carry.

``mcptest conformance CASSETTE`` judges a cassette through this same gate. The wire checks
read the types of the negotiated version from the installed ``mcp`` SDK
(``engine/wire_types.py``).

Schema part: ``$defs/conformance``.
"""

from __future__ import annotations

import os
from typing import Any, Optional

import msgspec

from ..engine.verdict import Failure, GateResult
from ..errors import InputError
from ..suite.doc import Doc, common, near, plain, suite_path
from ..suite.model import Block
from .context import Context
from .protocol import Gate
from .sources import Evidence, RecordingUnavailable, display

KIND = "conformance"
SECTIONS = ("conformance",)


class ConformanceBlock(Block, frozen=True):
    """A ``conformance:`` entry: a cassette (``recording``) or a server (``source``) judged."""

    recording: str = ""  # the cassette, absolute ("" when a server is probed)
    server: str = ""
    source: dict = msgspec.field(default_factory=dict)  # the resolved servers: entry
    run: Optional[int] = None
    known: Any = None  # {id: reason}, or the path of a known-failures file (absolute)
    skip_checks: dict = msgspec.field(default_factory=dict)


# --------------------------------------------------------------------------- known failures


def read_known(path: str, shown: str) -> dict:
    """A known-failures file: YAML or JSON, a list of check ids, a mapping of id to reason, or
    either under a top-level ``known_failures:``. A bad file is an :class:`InputError`."""
    from ..engine.conformance import ConformanceError, known_ids
    from ..formats.files import read_text
    from ..suite.loader import load_data

    try:
        data = load_data(shown, read_text(path, shown, 1 << 20))
    except FileNotFoundError:
        raise InputError(shown, "no such known-failures file") from None
    if isinstance(data, dict) and set(data) == {"known_failures"}:
        data = data["known_failures"]
    if data is None:
        return {}
    try:
        return known_ids(data, "a known-failures file")
    except ConformanceError as exc:
        raise InputError(shown, str(exc)) from None


def _known(block: ConformanceBlock, ctx: Context) -> tuple[dict, str]:
    """(known failures, where they come from, as shown)."""
    if isinstance(block.known, str):
        shown = display(block.known, ctx.root)
        try:
            return read_known(block.known, shown), shown
        except InputError as exc:
            raise RecordingUnavailable("known_failures", shown, exc.render()) from None
        except OSError as exc:
            raise RecordingUnavailable("known_failures", shown, f"{shown}: cannot read: {exc.strerror}") from None
    return dict(block.known or {}), "known_failures"


# --------------------------------------------------------------------------- build


def build(doc: Doc, parts, raw: dict) -> ConformanceBlock:
    from ..engine.conformance import ConformanceError, known_ids
    from .server_entries import resolve_server

    if ("cassette" in raw) == ("server" in raw):
        raise doc.error(parts, "a conformance entry names a `cassette:` or a `server:` (one of them)")
    fields = common(doc, parts, raw, KIND)
    server, source, recording = "", {}, ""
    if "server" in raw:
        servers = doc.root.get("servers") or {}
        server = raw["server"]
        if server not in servers:
            raise doc.error(parts + ["server"], f"no server named {server!r} under servers: in this document"
                            f"{near(server, servers)}")
        source = resolve_server(plain(servers[server]), os.path.dirname(os.path.abspath(doc.path)))
        if "command" not in source:
            raise doc.error(parts + ["server"], f"server {server!r} is a saved catalog: conformance needs a server "
                            "it can start (command:) or a recorded session (cassette:)")
    else:
        recording = suite_path(doc, raw["cassette"])
    known = raw.get("known_failures")
    if isinstance(known, str):
        known = suite_path(doc, known)
    elif known is not None:
        try:
            known = known_ids(plain(known), "known_failures")
        except ConformanceError as exc:
            raise doc.error(parts + ["known_failures"], str(exc)) from None
    skip = raw.get("skip")
    checks = {}
    if isinstance(skip, dict):
        try:
            checks = known_ids(plain(skip), "skip")
        except ConformanceError as exc:
            raise doc.error(parts + ["skip"], str(exc)) from None
    return ConformanceBlock(recording=recording, server=server, source=source, run=raw.get("run"), known=known,
                            skip_checks=checks, **fields)


def for_cassette(path: str, run: Optional[int] = None, known: Any = None, skip: Optional[dict] = None,
                 file: str = "mcptest conformance") -> ConformanceBlock:
    """The block ``mcptest conformance`` judges: one cassette, as a ``conformance:`` entry would be."""
    return ConformanceBlock(kind=KIND, name=f"conformance {path}", file=file, line=1, recording=os.path.abspath(path),
                            run=run, known=known, skip_checks=dict(skip or {}))


# --------------------------------------------------------------------------- open and judge


class Session(msgspec.Struct, frozen=True):
    """One recorded session to judge: the run's index in its cassette and the run."""

    index: int
    run: Any


def open(block: ConformanceBlock, ctx: Context) -> Evidence:
    if block.recording:
        shown = display(block.recording, ctx.root)
        cassette = _read(block.recording, shown)
    else:
        shown = f"server {block.server}"
        cassette = _probe(block, shown)
    runs = cassette.runs
    if not runs:
        raise RecordingUnavailable("cassette", shown, f"{shown} holds no runs")
    if block.run is not None:
        if not 1 <= block.run <= len(runs):
            raise RecordingUnavailable("cassette", shown, f"{shown} has {len(runs)} run(s); run {block.run} is not one "
                                       "of them (runs count from 1)")
        chosen = (Session(block.run - 1, runs[block.run - 1]),)
    else:
        chosen = tuple(Session(i, run) for i, run in enumerate(runs))
    empty = [s.index + 1 for s in chosen if not s.run.messages]
    if len(empty) == len(chosen):
        raise RecordingUnavailable("cassette", shown, f"{shown}: no run holds the session's messages (a cassette of "
                                   "mcptest record, mcptest probe or mcptest serve --record keeps them; an imported "
                                   "log does not): there is nothing to check")
    head = f"{'cassette ' + shown if block.recording else shown}, {len(chosen)} session(s)"
    return Evidence(shown, chosen, head, cassette if block.recording else None)


def _read(path: str, shown: str):
    from ..formats.cassette import load_cassette

    try:
        return load_cassette(path, shown, keep=False)
    except FileNotFoundError:
        raise RecordingUnavailable("cassette", shown, f"{shown}: no such cassette") from None
    except IsADirectoryError:
        raise RecordingUnavailable("cassette", shown, f"{shown}: is a folder, not a cassette") from None
    except InputError as exc:
        raise RecordingUnavailable("cassette", shown, exc.render()) from None
    except OSError as exc:
        raise RecordingUnavailable("cassette", shown, f"{shown}: cannot read: {exc.strerror or exc}") from None


def _probe(block: ConformanceBlock, shown: str):
    from ..record.probe import ProbeError, probe_session
    from ..record.proxy import resolve_command

    try:
        return probe_session(resolve_command(list(block.source["command"])), env=block.source.get("env"),
                             cwd=block.source.get("cwd"), timeout=float(block.source.get("timeout", 10.0)))
    except ProbeError as exc:
        raise RecordingUnavailable("probe", shown, f"the MCP server {block.server!r}: {exc}") from None


def judge_session(block: ConformanceBlock, session: Session, ctx: Context):
    """The checks of one session, known failures and skips applied (``engine.conformance.judge``)."""
    from ..engine.conformance import check_session, judge, session_version
    from ..engine.wire_types import wire_types

    run = session.run
    messages = [(m.sender, m.message) for m in run.messages or ()]
    meta = run.meta or {}
    version = session_version(messages, meta)
    result = check_session(messages, meta, wire_types(version), base=f"/runs/{session.index}/messages",
                           version=version)
    known, _ = _known(block, ctx)
    return judge(result, known, block.skip_checks)


def judge_run(block: ConformanceBlock, session: Session, number: int, total: int, ctx: Context) -> GateResult:
    if not session.run.messages:
        envelope = {"protocol_version": None, "checks": [], "counts": {}, "failed": [], "passed": True,
                    "note": "this run holds no messages: nothing to check"}
        return GateResult(envelope, lines=(f"  run {session.index + 1}: no messages kept, nothing checked",))
    result = judge_session(block, session, ctx)
    _, source = _known(block, ctx)
    # Each failure is named by its check (the failure text's head counts them so: "1 ping-answered").
    failures = tuple(Failure(c.id, f"{c.first()} [{c.spec}]", number) for c in result.failed)
    failures += tuple(Failure("stale-known-failure", f"{check_id}: listed in {source} as a known failure but it no "
                              f"longer fails; remove it from the list", number) for check_id in result.stale)
    return GateResult(result.to_dict(), failures=failures, lines=tuple(failure_lines(result, source)))


def failure_lines(result, source: str = "known_failures", indent: str = "  ") -> list[str]:
    """The failure text: each failed check with its id, its findings (where and what) and the
    spec link; each stale known failure; the warnings counted."""
    counts = result.counts()
    server = result.server
    lines = ["", f"{indent}conformance: {len(result.failed)} of {len(result.checks)} checks failed, "
             f"{counts['WARNING']} warnings, {counts['SKIPPED']} skipped (protocol {result.version or 'unknown'}, "
             f"server {server.get('name', '?')} {server.get('version', '')})".rstrip()]
    for check in result.failed:
        lines.append(f"{indent}  FAILURE {check.id}: {check.description}")
        shown = [f for f in check.findings if f.status == "FAILURE"]
        for f in shown[:5]:
            lines.append(f"{indent}      {f.message}")
            lines.append(f"{indent}        at {f.pointer}")
        if len(shown) > 5 or check.more:
            lines.append(f"{indent}      ... and {len(shown) - 5 + check.more if len(shown) > 5 else check.more} more")
        if check.judged_by:
            lines.append(f"{indent}      {check.judged_by}")
        lines.append(f"{indent}      spec: {check.spec}")
    for check_id in result.stale:
        lines.append(f"{indent}  STALE   {check_id}: listed in {source} as a known failure, but it no longer "
                     f"fails: remove it from the list")
    return lines


def report_lines(result, source: str = "known_failures") -> list[str]:
    """Every check in one line each (status, id, first finding or reason), then the failure
    text: what ``mcptest conformance`` prints."""
    lines = []
    for check in result.checks:
        status = "KNOWN" if check.known else check.status
        detail = (check.first() if check.findings or check.reason else "") or check.judged_by
        lines.append(f"{status:8} {check.id:42} {detail}".rstrip())
        if check.status == "WARNING":
            for f in [f for f in check.findings if f.status == "WARNING"][1:4]:
                lines.append(f"{'':8} {'':42} {f.message} (at {f.pointer})")
    lines.append("")
    counts = result.counts()
    lines.append(f"{counts['SUCCESS']} passed, {len(result.failed)} failed, {counts['WARNING']} warnings, "
                 f"{counts['SKIPPED']} skipped, {counts['INFO']} info"
                 + (f", {sum(1 for c in result.checks if c.known)} known failures" if any(c.known for c in result.checks)
                    else "") + (f", {len(result.stale)} stale known failures" if result.stale else ""))
    return lines


GATE = Gate(KIND, build, SECTIONS, open=open, judge_run=judge_run)
