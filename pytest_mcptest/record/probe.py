"""``mcptest probe``: a session of the edge requests a host rarely sends, recorded as a cassette.

A host that works never sends an unknown method, params that break their schema, a call to a
tool that was never listed or a cursor the server never issued; so a session recorded from a
host leaves the conformance checks that judge the answers to such requests SKIPPED. The probe
starts the server (stdio), speaks raw JSON-RPC to it (the SDK's client refuses to send what is
malformed) and sends, in this order:

1. ``initialize`` (the version asked: ``--protocol-version``, default 2025-11-25, no client
   capabilities), then ``tools/list`` before ``notifications/initialized`` (a request before
   initialized), then ``notifications/initialized``; from 2026-07-28 on, ``server/discover``
   instead, each request carrying the version, client info and capabilities under ``_meta``
   (that version has no ``initialize`` and no ``ping``: a ``tools/list`` stands in for ping);
2. ``ping``, and every list of a capability the server declared, page after page; one list of
   a capability it did not declare;
3. a request of an unknown method, a notification of an unknown method, a ``tools/call``
   without a name (bad params), a call to a tool never listed, a list past its end with a bogus
   cursor, a ``ping`` with a string id, a request cancelled as soon as it is sent, a call with an
   oversized argument (``--oversize-kb``), and a last ``ping`` (is the server still there?).

It calls none of the server's own tools unless asked (``--call TOOL=JSON``, after the lists):
nothing the server does on a call happens. The
requests sent on purpose are listed in the run's ``meta.probe.deliberate`` (message index and
purpose), so the checks of the host's side leave them out. Every message is kept as
``mcptest record`` keeps it (:class:`~.proxy.SessionLog`); ``mcptest conformance`` reads the
cassette, and ``mcptest verify`` replays it against a later build like any other.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from typing import Any, Optional

from .proxy import SessionLog

PROBE_CLIENT = {"name": "mcptest-probe", "version": "1"}
DEFAULT_VERSION = "2025-11-25"
UNKNOWN_METHOD = "mcptest/probe-unknown-method"
UNKNOWN_NOTIFICATION = "notifications/mcptest/probe"
MISSING_TOOL = "mcptest_probe_no_such_tool"
BOGUS_CURSOR = "mcptest-probe-bogus-cursor"
MAX_PAGES = 50
LISTS = (("tools", "tools/list"), ("resources", "resources/list"), ("resources", "resources/templates/list"),
         ("prompts", "prompts/list"))


class ProbeError(Exception):
    """The server could not be probed (could not be started, or answered nothing)."""


class _Wire:
    """Raw JSON-RPC with one server process over its stdio, every message kept in ``log``."""

    def __init__(self, process, log: SessionLog, timeout: float, errlog):
        from .relay import MAX_LINE, lines

        self.process, self.log, self.timeout, self.errlog = process, log, timeout, errlog
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 0
        self.deliberate: list[dict] = []
        self.unreadable = 0
        self.closed = False
        self.meta: Optional[dict] = None  # 2026-07-28 on: the _meta every request carries

        def read() -> None:
            try:
                for line in lines(process.stdout.fileno(), MAX_LINE):
                    self.inbox.put(line)
            except Exception as exc:  # noqa: BLE001 - a line past the cap: the session ends here
                self.inbox.put(exc)
            self.inbox.put(None)

        threading.Thread(target=read, name="mcptest-probe-reader", daemon=True).start()

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def send(self, message: dict, what: Optional[str] = None) -> None:
        self.log.from_host(message)
        if what:
            self.deliberate.append({"index": len(self.log.messages) - 1, "what": what})
        self.write(message)

    def write(self, message: dict) -> None:
        try:
            self.process.stdin.write(json.dumps(message, ensure_ascii=False).encode() + b"\n")
            self.process.stdin.flush()
        except (OSError, ValueError):
            self.closed = True

    def request(self, method: str, params: Any = None, what: Optional[str] = None, request_id: Any = None,
                wait: Optional[float] = None) -> Optional[dict]:
        """Send a request and read until its answer (or ``wait`` seconds): the answer, or None."""
        request_id = self.new_id() if request_id is None else request_id
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if self.meta is not None and (params is None or isinstance(params, dict)):
            params = {**(params or {}), "_meta": dict(self.meta)}
        if params is not None:
            message["params"] = params
        self.send(message, what)
        return self.pump(self.timeout if wait is None else wait, request_id)

    def notify(self, method: str, params: Any = None, what: Optional[str] = None) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message, what)

    def pump(self, seconds: float, until: Any = None) -> Optional[dict]:
        """Read the server's messages for up to ``seconds`` (until the answer to ``until``)."""
        import time

        end = time.monotonic() + seconds
        while not self.closed:
            left = end - time.monotonic()
            if left <= 0:
                return None
            try:
                line = self.inbox.get(timeout=left)
            except queue.Empty:
                return None
            if line is None or isinstance(line, Exception):
                self.closed = True
                if isinstance(line, Exception):
                    self.errlog.write("mcptest probe: the server sent a line over the size limit; stopped reading\n")
                return None
            message = _decode(line)
            if message is None:
                self.unreadable += 1
                shown = line[:200].decode("utf-8", "replace").strip()
                from ..text import printable

                self.errlog.write(f"mcptest probe: the server sent a line that is not JSON-RPC: {printable(shown)}\n")
                continue
            self.log.from_server(message)
            if isinstance(message.get("method"), str) and "id" in message:
                self._answer_server(message)
                continue
            if until is not None and "method" not in message and message.get("id") == until \
                    and type(message.get("id")) is type(until):
                return message
        return None

    def _answer_server(self, request: dict) -> None:
        """The probe answers the server's own requests as a host with no capabilities would."""
        if request["method"] == "ping":
            answer = {"jsonrpc": "2.0", "id": request["id"], "result": {}}
        else:
            answer = {"jsonrpc": "2.0", "id": request["id"],
                      "error": {"code": -32601, "message": f"mcptest probe declares no capability for "
                                                           f"{request['method']}"}}
        self.log.from_host(answer)
        self.write(answer)


def _decode(line: bytes) -> Optional[dict]:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) and message.get("jsonrpc") == "2.0" else None


def probe_session(command: list[str], env: Optional[dict] = None, cwd: Optional[str] = None, timeout: float = 10.0,
                  protocol_version: str = DEFAULT_VERSION, oversize_kb: int = 512, server_name: Optional[str] = None,
                  calls: tuple = (), settle: float = 0.5, errlog=None):
    """Drive the probe session against the stdio server ``command``; the session as a
    :class:`~pytest_mcptest.formats.cassette.Cassette` of one run (nothing written).

    ``calls`` are ``(tool, arguments)`` the probe also calls, after the lists (none by
    default: a probe does nothing the server's tools do unless asked); ``settle`` is how long
    it waits for what should not come (an answer to a notification or to a cancelled request)."""
    import attrs

    from ..formats.cassette import Cassette
    from ..text import exit_words
    from .store import utc_now

    errlog = sys.stderr if errlog is None else errlog
    try:
        stderr = errlog.fileno()  # the server's own stderr goes where ours does
    except (AttributeError, OSError, ValueError):
        stderr = subprocess.DEVNULL
    try:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                   env={**os.environ, **(env or {})}, cwd=cwd, bufsize=0)
    except OSError as exc:
        raise ProbeError(f"could not be started: {exc.strerror or exc}") from None
    log = SessionLog(server_name)
    wire = _Wire(process, log, timeout, errlog)
    try:
        _drive(wire, protocol_version, oversize_kb, tuple(calls), settle)
    finally:
        log.ended = "host closed the session"
        try:
            process.stdin.close()
        except OSError:
            pass
        if wire.closed:
            try:
                code = process.wait(2)
                log.ended = f"server {exit_words(code) or 'exited'}"
            except subprocess.TimeoutExpired:
                log.ended = "server closed its output"
        _stop(process)
    if not any(entry["from"] == "server" for entry in log.messages):
        raise ProbeError(f"answered nothing ({log.ended})")
    recorded_at = utc_now()
    run = log.run(command, recorder="mcptest probe", recorded_at=recorded_at)
    probe_meta = {"protocol_version_asked": protocol_version, "deliberate": wire.deliberate}
    if wire.unreadable:
        probe_meta["unreadable_lines"] = wire.unreadable
    run = attrs.evolve(run, meta={**run.meta, "probe": probe_meta})
    meta = {"recorder": "mcptest probe", "recorded_at": recorded_at}
    return Cassette(runs=(run,), meta=meta, catalog=log.catalog(command))


def _drive(wire: _Wire, version: str, oversize_kb: int, calls: tuple, settle: float) -> None:
    modern = version >= "2026"  # 2026-07-28 on: server/discover, each request's _meta, no initialize or ping
    if modern:
        wire.meta = {"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientInfo": PROBE_CLIENT,
                     "io.modelcontextprotocol/clientCapabilities": {}}
        hello = wire.request("server/discover")
    else:
        hello = wire.request("initialize", {"protocolVersion": version, "capabilities": {},
                                            "clientInfo": PROBE_CLIENT})
    if hello is None or not isinstance(hello.get("result"), dict):
        return  # nothing more to ask: the cassette shows what the handshake got
    caps = hello["result"].get("capabilities")
    caps = caps if isinstance(caps, dict) else {}
    ping = "tools/list" if modern else "ping"  # a request every server answers
    if not modern:
        wire.request("tools/list" if "tools" in caps else "ping", None, what="request-before-initialized",
                     wait=min(wire.timeout, 3.0))
        wire.notify("notifications/initialized")
        wire.request("ping")
    undeclared = None
    for capability, method in LISTS:
        if isinstance(caps.get(capability), dict):
            _pages(wire, method)
        elif undeclared is None:
            undeclared = method
    for name, arguments in calls:
        wire.request("tools/call", {"name": name, "arguments": arguments})
    if undeclared is not None:
        wire.request(undeclared, what="undeclared-capability")
    wire.request(UNKNOWN_METHOD, {}, what="unknown-method")
    wire.notify(UNKNOWN_NOTIFICATION, {}, what="unknown-notification")
    wire.pump(settle)  # an answer to the notification, if the server sends one
    if "tools" in caps:
        wire.request("tools/call", {"arguments": {}}, what="invalid-params")
        wire.request("tools/call", {"name": MISSING_TOOL, "arguments": {}}, what="unknown-tool")
    elif "resources" in caps:
        wire.request("resources/read", {}, what="invalid-params")
    elif "prompts" in caps:
        wire.request("prompts/get", {}, what="invalid-params")
    listed = next((m for c, m in LISTS if isinstance(caps.get(c), dict)), None)
    if listed is not None:
        wire.request(listed, {"cursor": BOGUS_CURSOR}, what="bogus-cursor")
    wire.request(ping, request_id="mcptest-probe-string-id")
    # A request cancelled at once: both lines in one go, so the server may read the
    # cancellation before it answers (an answer that crossed it is allowed; one that the
    # cancellation caused is not).
    cancelled = wire.new_id()
    method = listed or ping
    message = {"jsonrpc": "2.0", "id": cancelled, "method": method}
    if wire.meta is not None:
        message["params"] = {"_meta": dict(wire.meta)}
    wire.send(message, what="cancelled")
    wire.notify("notifications/cancelled", {"requestId": cancelled, "reason": "mcptest probe: cancelled at once"},
                what="cancellation")
    wire.pump(2 * settle, cancelled)
    if "tools" in caps:
        wire.request("tools/call", {"name": MISSING_TOOL, "arguments": {"payload": "x" * (oversize_kb * 1024)}},
                     what="oversized-argument")
    wire.request(ping)


def _pages(wire: _Wire, method: str) -> None:
    cursor, seen = None, set()
    for _ in range(MAX_PAGES):
        answer = wire.request(method, {"cursor": cursor} if cursor is not None else None)
        result = answer.get("result") if isinstance(answer, dict) else None
        cursor = result.get("nextCursor") if isinstance(result, dict) else None
        if not isinstance(cursor, str) or cursor in seen:
            return
        seen.add(cursor)


def _stop(process) -> None:
    try:
        process.wait(2)
    except subprocess.TimeoutExpired:
        process.terminate()
        try:
            process.wait(2)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for stream in (process.stdout,):
        try:
            stream.close()
        except OSError:
            pass


def write_probe(cassette, out: str, redactor, force: bool) -> Any:
    """Write the probe's cassette to ``out`` (refused when it exists, unless ``force``)."""
    from . import store

    run = cassette.runs[0]
    return store.save(out, [run], cassette.catalog, dict(cassette.meta), store.NEW, redactor)
