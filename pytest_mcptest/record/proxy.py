"""``mcptest record``: an MCP proxy that writes the session passing through it as a cassette run.

The host (Claude Desktop, Claude Code, Cursor, an SDK agent) starts ``mcptest record --out
CASSETTE -- <server command>`` instead of the server. Every JSON-RPC message goes across
unchanged, both ways: initialize (or the 2026-07-28 ``server/discover``) and capabilities,
``tools/list``, ``tools/call``, resources, prompts, completion, notifications, progress,
cancellation, and requests the server sends to the host (sampling, elicitation, roots). Over
stdio the lines themselves are relayed (:mod:`.relay`: no SDK model rebuilt, so nothing is
lost, and a quick start); with ``--http`` the SDK's Streamable HTTP client talks to the
server and its stdio server to the host (:mod:`.http_relay`).

On the side, :class:`.session_log.SessionLog` keeps every message in order, with its direction, and
derives from them the calls the gates read and the last complete ``tools/list`` answer as
the catalog. One host session is one run. It is written when the host ends the session,
when the server exits, or on Ctrl-C / SIGTERM; a ``kill -9`` writes nothing and leaves the
old cassette as it was.

When the server exits mid-session, each request still waiting is answered with a JSON-RPC
error that says so, and so is every later request, until the host ends the session.
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import Optional

from ..text import printable
from .session_log import ENDED_SIGNAL, SessionLog, gone_error


def resolve_command(command: list[str]) -> list[str]:
    """``mcptest ...`` runs under this interpreter, found even when its bin folder is not on PATH."""
    if command and command[0] == "mcptest":
        return [sys.executable, "-m", "pytest_mcptest.cli", *command[1:]]
    return list(command)


def record(command: list[str], out: str, server: Optional[str], append: bool, redactor, errlog=None,
           url: Optional[str] = None, headers: Optional[dict] = None, timeout: Optional[float] = None) -> int:
    """Run the proxy for one host session and write its run to ``out``. Returns an exit status:
    0 the host ended the session, 1 the server went away first or the write failed, 2 the
    server could not be started (or, with ``url``, reached): then nothing is written.

    With ``url`` (a Streamable HTTP endpoint, sent ``headers``) ``command`` is ignored, and a
    request the endpoint leaves unanswered for ``timeout`` seconds (default
    :data:`.http_relay.HTTP_TIMEOUT`) is answered with an error."""
    errlog = sys.stderr if errlog is None else errlog
    command = [url] if url is not None else resolve_command(command)
    log = SessionLog(server)
    status: list[int] = []

    def finish() -> None:
        if status:
            return
        if not any(entry["from"] == "server" for entry in log.messages):
            status.append(-1)  # the server never spoke: there is no session to record
            return
        status.append(_write(log, command, out, append, redactor, errlog))

    def conclude(outcome: dict) -> int:
        finish()
        if outcome["failure"]:
            errlog.write(f"mcptest record: the MCP server `{command[0] if url else shlex.join(command)}` "
                         f"{outcome['failure']}\n")
        if status[0] == -1:
            errlog.write(f"mcptest record: {out}: not written, the server never answered\n")
            return 2
        return status[0] or (1 if outcome["gone"] else 0)

    def abandon(outcome: dict) -> None:
        """End this proxy process now (see :class:`.http_relay.HttpRelay`); the cassette is already written."""
        code = conclude(outcome)
        errlog.flush()
        sys.stdout.flush()
        os._exit(code)

    outcome = {"gone": False, "failure": ""}
    try:
        if url is None:
            from .relay import relay

            outcome = relay(command, log, finish, errlog,
                            lambda request_id, reason: _line(gone_error(request_id, command, reason)))
        else:
            import anyio

            from ..mcp.client import quiet_sdk_logging
            from .http_relay import HTTP_TIMEOUT, HttpRelay

            relay_http = HttpRelay(command, log, finish, errlog, url, abandon, headers,
                                   HTTP_TIMEOUT if timeout is None else timeout)
            with quiet_sdk_logging():  # one clear line of ours, not the SDK's tracebacks
                outcome = anyio.run(relay_http.run)
    except KeyboardInterrupt:
        log.ended = ENDED_SIGNAL
    return conclude(outcome)


def _line(message: dict) -> bytes:
    import json

    return (json.dumps(message, ensure_ascii=False) + "\n").encode()


def _catalog_changes(existing, catalog: dict) -> list[str]:
    """What changed in each server's catalog since the cassette being appended to was
    recorded: each changed tool with its diff, the tools added and removed, in the words a
    lock check uses (the catalog kept is the new one; the old runs keep what they saw)."""
    from ..engine.catalog_lock import compare_catalogs

    before = existing.catalog if existing is not None else None
    lines: list[str] = []
    for server, now in sorted(catalog.items()):
        old = before.get(server) if isinstance(before, dict) else None
        if not (isinstance(old, dict) and isinstance(now, dict)):
            continue
        try:
            said = compare_catalogs(old, now).lines(since="the cassette was recorded")
        except (TypeError, ValueError, AttributeError):
            continue
        if said:
            lines += [f"server {server!r}: the catalog changed:", *(f"  {line}" for line in said)]
    return lines


def _write(log: SessionLog, command: list[str], out: str, append: bool, redactor, errlog) -> int:
    from ..errors import InputError
    import pytest_mcptest.record.store as store

    meta = {"recorder": "mcptest record", "recorded_at": store.utc_now()}
    run = log.run(command, recorded_at=meta["recorded_at"])
    catalog = log.catalog(command)
    try:
        changed = _catalog_changes(store.read_existing(out), catalog) if append else []
        written = store.save(out, [run], catalog, meta, store.APPEND if append else store.NEW, redactor)
    except InputError as exc:
        errlog.write(f"mcptest record: not written: {exc.render()}\n")
        return 1
    except OSError as exc:
        errlog.write(f"mcptest record: {out}: cannot write: {exc.strerror or exc}; any old cassette is unchanged\n")
        return 1
    unanswered = sum(1 for call in run.tool_calls if call.unanswered)
    errlog.write(f"mcptest record: {out}: run {len(written.runs)} recorded, {len(run.tool_calls)} tool call(s)"
                 + (f", {unanswered} left unanswered (kept, flagged unanswered)" if unanswered else "")
                 + f"; {log.ended}\n")
    for line in changed:
        errlog.write(f"mcptest record: {printable(line)}\n")  # tool names and descriptions: escaped
    errlog.flush()
    return 0
