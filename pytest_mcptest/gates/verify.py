"""Recorded answers (``verify:``): a server build held to the answers a recorded session got.

Each entry is one item: the cassette's recorded host requests are sent again to the
server the entry names (a ``servers:`` entry), and every answer is compared with the
recorded one as ``mcptest verify`` does (:mod:`pytest_mcptest.record.verify`). The item
fails when an answer changed; its failure text shows each changed answer, call by call,
with the paths that differ. Envelope: ``compared`` (answers compared), ``changed`` (how
many differ) and ``changes`` (``{request, paths}`` each).

Schema part: ``$defs/verify`` (and ``$defs/server`` for the server it names).
"""

from __future__ import annotations

import os
from typing import Optional

import msgspec

from .context import Context
from ..errors import InputError
from ..suite.doc import Doc, common, near, plain, suite_path
from ..suite.model import Block
from ..engine.verdict import Failure, GateResult
from .protocol import Gate
from .server_entries import resolve_server
from .sources import Evidence, RecordingUnavailable

KIND = "verify"
SECTIONS = ("verify",)


class VerifyBlock(Block, frozen=True):
    """A ``verify:`` entry: a cassette's answers checked against a server."""

    server: str = ""
    source: dict = msgspec.field(default_factory=dict)
    recording: str = ""
    ignore: tuple = ()
    run: Optional[int] = None


def build(doc: Doc, parts, raw: dict) -> VerifyBlock:
    from ..engine.paths import PathError
    from ..mcp.json_diff import ignore_path

    servers = doc.root.get("servers") or {}
    name = raw["server"]
    if name not in servers:
        raise doc.error(parts + ["server"], f"no server named {name!r} under servers: in this document"
                        f"{near(name, servers)}")
    spec = resolve_server(plain(servers[name]), os.path.dirname(os.path.abspath(doc.path)))
    if "catalog" in spec:
        raise doc.error(parts + ["server"], f"server {name!r} is a saved catalog: verify needs a server it can "
                        f"start (command:) or a recording (cassette:)")
    ignore = tuple(raw.get("ignore") or ())
    for i, path in enumerate(ignore):
        try:
            ignore_path(path)
        except PathError as exc:
            raise doc.error(parts + ["ignore", i], str(exc)) from None
    fields = common(doc, parts, raw, KIND)
    return VerifyBlock(server=name, source=spec, recording=suite_path(doc, raw["cassette"]), ignore=ignore,
                       run=raw.get("run"), **fields)


def open(block: VerifyBlock, ctx: Context) -> Evidence:
    from ..mcp.recording import load_recording
    from ..record.verify import ServerUnavailable, verify

    shown = os.path.relpath(block.recording, ctx.root) if ctx.root else block.recording
    try:
        recording = load_recording(block.recording, block.run, shown)
    except InputError as exc:
        raise RecordingUnavailable("cassette", shown, exc.render()) from None
    except OSError as exc:
        raise RecordingUnavailable("cassette", shown, f"{shown}: cannot read: {exc.strerror or exc}") from None
    try:
        outcome = verify(recording, _argv(block.source["command"]), ignore=block.ignore,
                         timeout=float(block.source.get("timeout", 30.0)), env=block.source.get("env"),
                         cwd=block.source.get("cwd"))
    except ServerUnavailable as exc:
        verb = "" if exc.started else "could not be started: "
        raise RecordingUnavailable("verify", shown, f"the MCP server {block.server!r} {verb}{exc}") from None
    head = f"cassette {shown} run {recording.run}, server {block.server}, {outcome.compared} answers"
    return Evidence(shown, (outcome,), head)


def _argv(command: list) -> list:
    from ..record.proxy import resolve_command

    return resolve_command(list(command))


def judge_run(block: VerifyBlock, outcome, number: int, total: int, ctx: Context) -> GateResult:
    from ..record.verify import change_lines

    changes = [{"request": c.what, "paths": [p for p, _, _ in c.diffs] or [c.note]} for c in outcome.changes]
    envelope = {"compared": outcome.compared, "changed": len(changes), "changes": changes}
    failures = tuple(Failure("verify", f"#{c.index + 1} {c.what}: " + (", ".join(p for p, _, _ in c.diffs) or c.note))
                     for c in outcome.changes)
    lines = ("", f"  {len(changes)} of {outcome.compared} recorded answer(s) changed:", *change_lines(outcome)) \
        if changes else ()
    return GateResult(envelope, failures=failures, lines=lines)


GATE = Gate(KIND, build, SECTIONS, open=open, judge_run=judge_run)
