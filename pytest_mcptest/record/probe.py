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
``mcptest record`` keeps it (:class:`~.session_log.SessionLog`); ``mcptest conformance`` reads the
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

from .session_log import SessionLog

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


class _HttpWire(_Wire):
    """The same session over Streamable HTTP: each message a POST; what each POST got back
    (status, content type, body size, session id) is kept in ``exchanges``, which the
    ``http-transport`` check reads from the run's ``meta.http``. An answer that comes as an
    event stream is read until the answer to the request posted; no GET stream is opened."""

    def __init__(self, url: str, log: SessionLog, timeout: float, errlog, headers: Optional[dict] = None):
        from urllib.parse import urlsplit

        self.url, self.parts = url, urlsplit(url)
        if self.parts.scheme not in ("http", "https") or not self.parts.hostname:
            raise ProbeError(f"{url!r} is not an http:// or https:// URL")
        self.log, self.timeout, self.errlog = log, timeout, errlog
        self.headers = dict(headers or {})
        self.inbox = queue.Queue()
        self.next_id, self.deliberate, self.unreadable, self.closed, self.meta = 0, [], 0, False, None
        self.session_id: Optional[str] = None
        self.protocol_version: Optional[str] = None
        self.exchanges: list[dict] = []
        self.process = None

    def _connection(self):
        import http.client

        cls = http.client.HTTPSConnection if self.parts.scheme == "https" else http.client.HTTPConnection
        return cls(self.parts.hostname, self.parts.port, timeout=self.timeout)

    def _headers(self) -> dict:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **self.headers}
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version is not None:
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    def write(self, message: dict) -> None:
        kind = "request" if "method" in message and "id" in message else (
            "notification" if "method" in message else "response")
        exchange: dict = {"index": len(self.log.messages) - 1, "kind": kind}
        self.exchanges.append(exchange)
        body = json.dumps(message, ensure_ascii=False).encode()
        path = self.parts.path or "/"
        if self.parts.query:
            path += "?" + self.parts.query
        connection = self._connection()
        try:
            connection.request("POST", path, body, self._headers())
            response = connection.getresponse()
            exchange["status"] = response.status
            exchange["content_type"] = response.getheader("Content-Type") or ""
            session = response.getheader("Mcp-Session-Id")
            if session is not None:
                exchange["session_id"] = session
                if self.session_id is None:
                    self.session_id = session
            if exchange["content_type"].split(";")[0].strip().lower() == "text/event-stream":
                exchange["body_bytes"] = self._events(response, message.get("id") if kind == "request" else None)
            else:
                data = response.read(1 << 26)
                exchange["body_bytes"] = len(data)
                self._body(data, exchange, message)
        except (OSError, ValueError) as exc:  # http.client's errors are OSError or HTTPException (a ValueError-like)
            exchange["error"] = f"{type(exc).__name__}: {exc}"[:300]
            self.errlog.write(f"mcptest probe: POST {self.url}: {exchange['error']}\n")
        except Exception as exc:  # noqa: BLE001 - http.client.HTTPException and kin: said, the session goes on
            exchange["error"] = f"{type(exc).__name__}: {exc}"[:300]
        finally:
            connection.close()

    def _body(self, data: bytes, exchange: dict, message: dict) -> None:
        if not data.strip():
            return
        try:
            value = json.loads(data)
        except ValueError:
            exchange["body"] = data[:200].decode("utf-8", "replace")
            return
        answers = value if isinstance(value, list) else [value]
        if exchange["status"] >= 400:
            exchange["jsonrpc_error"] = any(isinstance(a, dict) and "error" in a for a in answers)
        for answer in answers:
            if not isinstance(answer, dict) or answer.get("jsonrpc") != "2.0":
                exchange["body"] = json.dumps(answer, ensure_ascii=False)[:300]  # no JSON-RPC message: kept here
                continue
            if exchange["status"] >= 400 and answer.get("id") != message.get("id"):
                exchange["body"] = json.dumps(answer, ensure_ascii=False)[:300]  # kept here, no JSON-RPC answer
                continue
            self.inbox.put(json.dumps(answer).encode())

    def _events(self, response, until: Any) -> int:
        """Read an event stream until the answer to ``until`` (or its end); returns the bytes read."""
        read, data = 0, []
        while True:
            line = response.readline(1 << 26)
            read += len(line)
            if not line:
                break
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            if text.startswith("data:"):
                data.append(text[5:].lstrip(" "))
                continue
            if text or not data:
                continue
            payload, data = "\n".join(data), []
            if not payload.strip():
                continue  # an event with no data: a priming event (a stream's id and retry, for resuming)
            self.inbox.put(payload.encode())
            try:
                answer = json.loads(payload)
            except ValueError:
                continue
            if until is not None and isinstance(answer, dict) and "method" not in answer and answer.get("id") == until:
                break
        if data:
            self.inbox.put("\n".join(data).encode())
        return read

    def pump(self, seconds: float, until: Any = None) -> Optional[dict]:
        # Whatever a POST brought back is in the inbox by the time it returns: nothing more to wait for.
        return super().pump(min(seconds, 0.01), until)

    def end(self) -> None:
        """DELETE the session, when the server gave one (what it answers is kept, not judged)."""
        if self.session_id is None:
            return
        connection = self._connection()
        try:
            connection.request("DELETE", self.parts.path or "/", headers=self._headers())
            response = connection.getresponse()
            response.read(1 << 16)
            self.exchanges.append({"kind": "delete", "status": response.status})
        except Exception as exc:  # noqa: BLE001 - a server gone already: said in the exchange
            self.exchanges.append({"kind": "delete", "error": f"{type(exc).__name__}: {exc}"[:300]})
        finally:
            connection.close()


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
    import msgspec

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
    run = msgspec.structs.replace(run, meta={**run.meta, "probe": probe_meta})
    meta = {"recorder": "mcptest probe", "recorded_at": recorded_at}
    return Cassette(runs=(run,), meta=meta, catalog=log.catalog(command))


def probe_http(url: str, headers: Optional[dict] = None, timeout: float = 10.0,
               protocol_version: str = DEFAULT_VERSION, oversize_kb: int = 512, server_name: Optional[str] = None,
               calls: tuple = (), settle: float = 0.5, errlog=None):
    """:func:`probe_session` over Streamable HTTP at ``url`` (each request sent ``headers``): the
    same requests, and what each POST got back (status, content type, body size, session id)
    kept in the run's ``meta.http`` for the ``http-transport`` check."""
    import msgspec

    from ..formats.cassette import Cassette
    from .store import utc_now

    errlog = sys.stderr if errlog is None else errlog
    log = SessionLog(server_name)
    wire = _HttpWire(url, log, timeout, errlog, headers)
    _drive(wire, protocol_version, oversize_kb, tuple(calls), settle)
    wire.end()
    log.ended = "host closed the session"
    if not any(entry["from"] == "server" for entry in log.messages):
        failed = next((e["error"] for e in wire.exchanges if "error" in e), None)
        raise ProbeError(f"answered nothing ({failed or 'no JSON-RPC answer came back'})")
    recorded_at = utc_now()
    run = log.run([url], recorder="mcptest probe", recorded_at=recorded_at)
    probe_meta = {"protocol_version_asked": protocol_version, "deliberate": wire.deliberate, "transport": "http"}
    run = msgspec.structs.replace(run, meta={**run.meta, "probe": probe_meta, "http": wire.exchanges})
    return Cassette(runs=(run,), meta={"recorder": "mcptest probe", "recorded_at": recorded_at},
                    catalog=log.catalog([url]))


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
    if isinstance(wire, _HttpWire) and not modern:  # every later POST says the version (Streamable HTTP)
        agreed = hello["result"].get("protocolVersion")
        wire.protocol_version = agreed if isinstance(agreed, str) else None
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
    import pytest_mcptest.record.store as store

    run = cassette.runs[0]
    return store.save(out, [run], cassette.catalog, dict(cassette.meta), store.NEW, redactor)
