"""``mcptest record``: an MCP proxy that writes the session passing through it as a cassette run.

The host (Claude Desktop, Claude Code, Cursor, an SDK agent) starts ``mcptest record --out
CASSETTE -- <server command>`` instead of the server. Every JSON-RPC message goes across
unchanged, both ways: initialize (or the 2026-07-28 ``server/discover``) and capabilities,
``tools/list``, ``tools/call``, resources, prompts, completion, notifications, progress,
cancellation, and requests the server sends to the host (sampling, elicitation, roots). Over
stdio the lines themselves are relayed (:mod:`.relay`: no SDK model rebuilt, so nothing is
lost, and a quick start); with ``--http`` the SDK's Streamable HTTP client talks to the
server and its stdio server to the host (:func:`serve`).

On the side, :class:`SessionLog` keeps every message in order, with its direction, and
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
import time
from typing import Optional

from ..text import printable

SERVER_GONE = -32000  # JSON-RPC implementation-defined server error
HTTP_TIMEOUT = 60.0  # seconds one request may wait for a Streamable HTTP endpoint (record --timeout)

ENDED_HOST = "host closed the session"
ENDED_SIGNAL = "interrupted"


SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"  # the 2026-07-28 handshake: serverInfo under _meta
PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion"


def as_wire(message) -> dict:
    """A JSON-RPC message as the plain JSON it is on the wire (a typed SDK message or a dict)."""
    if isinstance(message, dict):
        return message
    return message.model_dump(by_alias=True, mode="json", exclude_unset=True)


class SessionLog:
    """What one host session did, built from the messages as they pass.

    Every message is kept in order with its direction (``from``: ``host`` or ``server``)
    and the milliseconds since the session began (``at_ms``); this is what ``mcptest
    serve`` and ``mcptest verify`` play back. The calls the gates read (``tool_calls``) are
    derived from them: in the order the host sent them (so concurrent calls keep their
    request order). A call made as a task (its answer a task handle) takes the result of
    its ``tasks/result``; a call never answered is kept and flagged ``unanswered``. A
    ``tools/call`` whose name is not a string is forwarded and kept among the messages,
    flagged ``malformed``, but is no tool call: one bad request does not cost the session.

    Each side is fed plain JSON-RPC dicts or the SDK's typed messages (:func:`as_wire`).
    """

    def __init__(self, server: Optional[str] = None, clock=time.perf_counter):
        self.server = server
        self.clock = clock
        self.started = clock()
        self.messages: list = []
        self.seq = 0
        self.calls: dict = {}       # seq -> call, answered or not
        self.pending: dict = {}     # request id -> (seq, start) of a tools/call not yet answered
        self.tasks: dict = {}       # task id -> seq of the call made as that task
        self.task_results: dict = {}  # tasks/result request id -> task id
        self.discovering: dict = {}   # server/discover request id -> the version it proposed
        self.listing: dict = {}     # tools/list request id -> the page is a first page
        self.pages: Optional[list] = None
        self.tools: Optional[list] = None
        self.server_info: dict = {}
        self.protocol_version: Optional[str] = None
        self.ended = ENDED_HOST
        self.unanswered = 0         # requests the server went away without answering

    def _keep(self, side: str, raw: dict) -> dict:
        entry = {"from": side, "at_ms": round((self.clock() - self.started) * 1000, 3), "message": raw}
        self.messages.append(entry)
        return entry

    # -- what the host sent --------------------------------------------------------------

    def from_host(self, message) -> None:
        raw = as_wire(message)
        entry = self._keep("host", raw)
        method, request_id = raw.get("method"), raw.get("id")
        if not isinstance(method, str) or request_id is None:
            return  # a notification, or the host answering a request of the server's
        params = raw.get("params")
        params = params if isinstance(params, dict) else {}
        if method == "tools/call":
            name, args = params.get("name"), params.get("arguments")
            if not isinstance(name, str) or not name:
                entry["malformed"] = f"a tools/call whose name is not a non-empty string ({type(name).__name__})"
                return
            self.calls[self.seq] = {"name": name, "args": {} if args is None else args, "unanswered": True}
            self.pending[request_id] = (self.seq, self.clock())
            self.seq += 1
        elif method == "tools/list":
            self.listing[request_id] = not params.get("cursor")
        elif method == "server/discover":
            meta = params.get("_meta")
            self.discovering[request_id] = meta.get(PROTOCOL_VERSION_META) if isinstance(meta, dict) else None
        elif method == "tasks/result" and params.get("taskId") in self.tasks:
            self.task_results[request_id] = params["taskId"]

    # -- what the server sent ------------------------------------------------------------

    def from_server(self, message) -> None:
        raw = as_wire(message)
        self._keep("server", raw)
        if raw.get("method") is not None:
            return  # a request or notification of the server's own
        request_id = raw.get("id")
        result = raw.get("result")
        if request_id in self.pending:
            seq, start = self.pending.pop(request_id)
            call = self.calls[seq]
            del call["unanswered"]
            self._settle(call, raw)
            call["duration_ms"] = round((self.clock() - start) * 1000, 3)
            task = result.get("task") if isinstance(result, dict) and "content" not in result else None
            if isinstance(task, dict) and isinstance(task.get("taskId"), (str, int)):
                call["task_id"] = task["taskId"]  # a task handle: the result comes with tasks/result
                call["unanswered"] = True
                self.tasks[task["taskId"]] = seq
        elif request_id in self.task_results:
            call = self.calls[self.tasks.pop(self.task_results.pop(request_id))]
            call.pop("unanswered", None)
            self._settle(call, raw)
        elif request_id in self.listing:
            self._tools_page(self.listing.pop(request_id), result)
        elif request_id in self.discovering:
            proposed = self.discovering.pop(request_id)
            meta = result.get("_meta") if isinstance(result, dict) else None
            info = meta.get(SERVER_INFO_META) if isinstance(meta, dict) else None
            if isinstance(info, dict) and not self.server_info:
                self.server_info = info
            if isinstance(result, dict) and isinstance(proposed, str):
                self.protocol_version = proposed
        elif isinstance(result, dict) and isinstance(result.get("serverInfo"), dict) and not self.server_info:
            self.server_info = result["serverInfo"]
            version = result.get("protocolVersion")
            self.protocol_version = version if isinstance(version, str) else None

    @staticmethod
    def _settle(call: dict, raw: dict) -> None:
        result = raw.get("result")
        if isinstance(result, dict):
            call["error"] = result.get("isError") is True
            call["result"] = result
            call.pop("rpc_error", None)
        else:
            call["error"] = True
            call["rpc_error"] = raw.get("error") if isinstance(raw.get("error"), dict) else {"message": str(raw)}

    def _tools_page(self, first: bool, result) -> None:
        """One page of a ``tools/list`` answer; a page that is not one (``{"tools": 5}``) is
        kept among the messages and read as no tools."""
        if not isinstance(result, dict):
            return
        if first or self.pages is None:
            self.pages = []
        tools = result.get("tools")
        if isinstance(tools, list):
            self.pages.extend(t for t in tools if isinstance(t, dict))
        if not result.get("nextCursor"):
            self.tools, self.pages = self.pages, None

    # -- the run -------------------------------------------------------------------------

    def server_name(self, command: list[str]) -> str:
        """``--server-name``, else the server's own name from its handshake (``initialize`` or
        ``server/discover``), else the command's file name (or the URL's host)."""
        name = self.server or self.server_info.get("name")
        if isinstance(name, str) and name:
            return name
        if "://" in command[0]:
            from urllib.parse import urlsplit

            return urlsplit(command[0]).hostname or command[0]
        return os.path.basename(command[0])

    def run(self, command: list[str], recorder: str = "mcptest record", recorded_at: Optional[str] = None):
        """The session as a cassette run (a :class:`~pytest_mcptest.engine.trace.Run`)."""
        from ..engine.trace import Message, Run, ToolCall

        server = self.server_name(command)
        calls = tuple([ToolCall(server=server, **self.calls[seq]) for seq in sorted(self.calls)])
        meta = {"recorder": recorder, "server": server, "ended": self.ended}
        if self.protocol_version:
            meta["protocol_version"] = self.protocol_version
        if recorded_at is not None:
            meta["recorded_at"] = recorded_at
        meta["basis"] = self.basis(server)
        messages = tuple([Message(sender=e["from"], at_ms=e["at_ms"], message=e["message"],
                                  malformed=e.get("malformed")) for e in self.messages])
        return Run(tool_calls=calls, meta=meta, messages=messages)

    def basis(self, server: str) -> dict:
        """What the run's numbers depend on, as far as the proxy sees (``live/basis.py`` for
        the rest): mcptest's version, and the server's name and version from its handshake
        with the protocol version the session spoke."""
        from .. import __version__

        info = self.server_info if isinstance(self.server_info, dict) else {}
        said = {"name": info.get("name"), "version": info.get("version"), "protocol_version": self.protocol_version}
        return {"mcptest": __version__, "servers": {server: {k: v for k, v in said.items() if isinstance(v, str)}}}

    def catalog(self, command: list[str]) -> dict:
        """The last complete ``tools/list`` answer; else the pages the host did read (a host
        that stops after the first page was shown only those tools)."""
        tools = self.tools if self.tools is not None else self.pages
        return {} if tools is None else {self.server_name(command): {"tools": tools}}


def gone_error(request_id, command: list[str], reason: str = "") -> dict:
    """The answer a host gets to a request the server can no longer answer."""
    what = command[0] if "://" in command[0] else shlex.join(command)
    message = (f"mcptest record: the MCP server `{what}` " + (reason or "exited or closed its output before answering")
               + "; the calls answered so far are recorded")
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": SERVER_GONE, "message": message}}


def late_error(request_id, command: list[str], method, timeout: float) -> dict:
    """The answer a host gets to a request the endpoint has not answered in ``timeout`` seconds."""
    message = (f"mcptest record: the MCP server `{command[0]}` gave no answer within {timeout:g} s to "
               f"{printable(str(method))} (mcptest record --timeout SECONDS); a later answer is recorded, "
               "not passed on")
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": SERVER_GONE, "message": message}}


async def serve(command: list[str], log: SessionLog, finish, errlog=None, url: str = "", abandon=None,
                headers: Optional[dict] = None, timeout: float = HTTP_TIMEOUT) -> dict:
    """Proxy one host session between this process's stdio and the Streamable HTTP endpoint
    ``url`` (with ``headers``), through the SDK's transports on both sides (over stdio to a
    server, :func:`.relay.relay` passes the lines themselves).

    The host side and the server side run as separate tasks, so a server that cannot be
    started or reached, or that dies, is reported to the host as JSON-RPC errors instead
    of ending the session under it. ``finish()`` is called as soon as the host ends the
    session (or a signal arrives), before the server is shut down, which may take seconds
    during which a host may already be killing this process. Returns
    ``{"gone": bool, "failure": str}``: whether the server went away first, and why it
    could not be started or reached.

    A request the endpoint has not answered within ``timeout`` seconds (one that accepts the
    connection and never answers) gets an error that says so; its answer, if it comes later,
    is recorded but not passed on (the host has had one).

    When the session ends while the host still holds its end open (a signal), the SDK's
    stdin reader stays blocked in a worker thread that no cancellation reaches; once the
    server is shut down, ``abandon(outcome)`` is called to end the process instead.
    """
    import signal

    import anyio
    from mcp.server.stdio import stdio_server

    from ..mcp.client import innermost

    errlog = sys.stderr if errlog is None else errlog
    # "other": ids of the host's requests other than tools/call still waiting for an answer;
    # "late": ids the host got a timeout error for
    state = {"gone": False, "failure": "", "server_write": None, "host_closed": False, "other": set(), "late": set()}
    ready, ended, server_done = anyio.Event(), anyio.Event(), anyio.Event()

    def transport():
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        return streamable_http_client(url, http_client=create_mcp_http_client(headers=headers or None))

    async def answer_pending(host_write):
        for request_id in list(log.pending):
            log.pending.pop(request_id)
            log.unanswered += 1
            await host_write.send(_typed(gone_error(request_id, command, state["failure"])))
        log.listing.clear()  # tools/list requests are among the others, answered next
        for request_id in sorted(state["other"], key=str):
            await host_write.send(_typed(gone_error(request_id, command, state["failure"])))
        state["other"].clear()

    async def server_side(host_write):
        try:
            async with transport() as streams:
                server_read, state["server_write"] = streams[0], streams[1]
                ready.set()
                async with anyio.create_task_group() as inner:
                    inner.start_soon(server_to_host, server_read, host_write)
                    await ended.wait()
                    inner.cancel_scope.cancel()
        except Exception as exc:  # noqa: BLE001 - start-up or transport failure: tell the host
            leaf = innermost(exc)
            verb = "could not be reached"
            state["failure"] = f"{verb}: {getattr(leaf, 'strerror', None) or leaf}"
        finally:
            if not ended.is_set():
                state["gone"] = True
                if state["failure"]:
                    log.ended = f"server {state['failure']}"
                with anyio.CancelScope(shield=True):
                    try:
                        await answer_pending(host_write)
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        pass
            ready.set()
            server_done.set()

    async def deadline(request_id, method, host_write):
        await anyio.sleep(timeout)
        if request_id not in log.pending and request_id not in state["other"]:
            return  # answered meanwhile
        log.unanswered += log.pending.pop(request_id, None) is not None
        log.listing.pop(request_id, None)
        state["other"].discard(request_id)
        state["late"].add(request_id)
        errlog.write(f"mcptest record: the MCP server `{command[0]}` gave no answer within {timeout:g} s to "
                     f"{printable(str(method))}; the host got an error instead\n")
        try:
            await host_write.send(_typed(late_error(request_id, command, method, timeout)))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the host is gone meanwhile

    async def host_to_server(host_read, host_write, timers):
        async for item in host_read:
            if isinstance(item, Exception):
                errlog.write(f"mcptest record: the host sent a line that is not JSON-RPC, not forwarded: "
                             f"{printable(str(item))}\n")
                continue
            message = item.message
            log.from_host(message)
            request_id = getattr(message, "id", None)
            is_request = getattr(message, "method", None) is not None and request_id is not None
            if is_request and request_id not in log.pending:
                state["other"].add(request_id)
            if not state["gone"]:
                try:
                    await state["server_write"].send(item)
                    if is_request:
                        timers.start_soon(deadline, request_id, getattr(message, "method", None), host_write)
                    continue
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    state["gone"] = True
            if is_request:
                log.unanswered += log.pending.pop(request_id, None) is not None
                state["other"].discard(request_id)
                await host_write.send(_typed(gone_error(request_id, command, state["failure"])))
        state["host_closed"] = True

    async def server_to_host(server_read, host_write):
        async for item in server_read:
            if isinstance(item, Exception):
                errlog.write(f"mcptest record: the server sent a message that is not JSON-RPC, not forwarded: "
                             f"{printable(str(item))}\n")
                continue
            log.from_server(item.message)
            answered = getattr(item.message, "id", None) if getattr(item.message, "method", None) is None else None
            state["other"].discard(answered)
            if answered is not None and answered in state["late"]:
                state["late"].discard(answered)  # the host already had its timeout error
                continue
            await host_write.send(item)
        if not ended.is_set():  # the server closed its output: it has exited or is about to
            log.ended = "server exited"
            state["gone"] = True
            await answer_pending(host_write)

    async def on_signals(scope):
        try:
            receiver = anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM)
            with receiver as signals:
                async for _ in signals:
                    log.ended = ENDED_SIGNAL
                    scope.cancel()
                    return
        except (RuntimeError, ValueError):  # not the main thread: signals stay with the caller
            return

    async with stdio_server() as (host_read, host_write):
        async with anyio.create_task_group() as tg:
            tg.start_soon(server_side, host_write)
            with anyio.CancelScope() as session:
                watch = anyio.CancelScope()

                async def watch_signals():
                    with watch:
                        await on_signals(session)

                tg.start_soon(watch_signals)
                await ready.wait()
                async with anyio.create_task_group() as timers:
                    await host_to_server(host_read, host_write, timers)
                    timers.cancel_scope.cancel()  # the session is over: no deadline is left to keep
            finish()
            ended.set()
            watch.cancel()
            outcome = {"gone": state["gone"] and log.ended != ENDED_SIGNAL, "failure": state["failure"]}
            if abandon is not None and not state["host_closed"]:
                await server_done.wait()
                abandon(outcome)
        await host_write.aclose()  # lets the host-side writer finish
    return outcome


def _typed(message: dict):
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    return SessionMessage(types.jsonrpc_message_adapter.validate_python(message))


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
    :data:`HTTP_TIMEOUT`) is answered with an error."""
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
        """End this proxy process now (see :func:`serve`); the cassette is already written."""
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

            with quiet_sdk_logging():  # one clear line of ours, not the SDK's tracebacks
                outcome = anyio.run(serve, command, log, finish, errlog, url, abandon, headers,
                                    HTTP_TIMEOUT if timeout is None else timeout)
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
    from . import store

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
