"""What every ``mcptest serve`` server shares, whatever answers its calls (a recording,
a scenario's world): the ``--fault`` on ``tools/call``, taken as ``mcptest mock`` takes it;
the ``--http`` address; and the transports, stdio and Streamable HTTP, which run until the
host goes away.

A host that goes away is the normal end of a session, however it goes: it closes serve's
stdin, it closes serve's stdout (the next answer cannot be written), or an HTTP client drops
its connection in the middle of a call. None of these is serve's failure, so none prints a
traceback: stdio ends with status 0, and an HTTP server keeps serving the other clients.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
from typing import Any, Optional

from ..text import printable

MAX_PORT = 65535


async def tool_fault(fault, number: int, who: str = "mcptest serve") -> Optional[dict]:
    """Apply ``fault`` to the ``number``-th tools/call (from 1): hang for ever, sleep, or
    answer an MCP tool error (returned); None when the call is to be answered as usual."""
    if fault is None:
        return None
    import anyio

    if fault.kind == "hang":
        await anyio.sleep_forever()
    if fault.kind == "slow":
        await anyio.sleep(fault.value / 1000.0)
    if fault.kind == "recover-after" and number <= fault.value:
        return {"content": [{"type": "text", "text": f"{who} fault recover-after:{fault.value}: "
                             f"call {number} of the first {fault.value} fails"}], "isError": True}
    return None


def address(text: str) -> tuple:
    """``--http HOST:PORT`` as ``(host, port)``; ``[::1]:8765`` for an IPv6 host, port ``0`` for
    any free one. ValueError, with the reason, for anything else: checked before the recording
    is read, so a typo is one usage line, not a traceback from the socket."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not (port.isascii() and port.isdigit()):
        raise ValueError(f"--http {text!r}: expected HOST:PORT, as in 127.0.0.1:8765")
    if len(port) > len(str(MAX_PORT)) or int(port) > MAX_PORT:
        raise ValueError(f"--http {text!r}: port {port} is out of range: a port is 0 to {MAX_PORT} "
                         f"(0 for any free port)")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def serve_until_closed(server, host: Optional[str], port: Optional[int]) -> int:
    """Serve ``server`` (a recording's or a world's) over stdio, or Streamable HTTP at
    ``host:port``, until the host closes it; the exit status (130 on Ctrl-C)."""
    from .client import quiet_sdk_logging

    with quiet_sdk_logging():
        try:
            if host is not None:
                return _serve_http(server, host, port)
            return _serve_stdio(server)
        except KeyboardInterrupt:
            return 130


def _serve_stdio(server) -> int:
    import anyio

    try:
        anyio.run(_stdio_session, server)
    except Exception as exc:  # only a host that went away is taken here
        if not _went_away(exc):
            raise
    return 0


async def _stdio_session(server) -> None:
    import anyio
    from mcp.server.stdio import stdio_server


    lines = HostLines()
    lines.start()
    async with stdio_server(stdin=lines) as (read_stream, write_stream):
        async with anyio.create_task_group() as tg:
            async def serve() -> None:
                await server.run(answer_garbage(read_stream, write_stream), write_stream,
                                 server.create_initialization_options())
                # stdin closed: stop, even with a hanging tools/call still in flight.
                tg.cancel_scope.cancel()

            tg.start_soon(serve)


class HostLines:
    """The host's lines (stdin) for the SDK's stdio transport, read by a daemon thread.

    The SDK reads stdin in an anyio worker thread, which nothing can stop while it waits for
    a line, and which the interpreter waits for at exit: a host that closed serve's stdout
    but not its stdin would keep serve running, unable to answer, until it closed that too.
    A daemon thread ends with the process; it reads the descriptor itself (never through
    ``sys.stdin``, whose lock a daemon thread must not hold when the interpreter finalizes),
    hands each line over without a coroutine (one the closing loop never ran would be
    reported), and reads at most ``WAITING`` lines ahead of the server, as a pipe would.
    Lines are decoded as the SDK decodes them (UTF-8, an invalid byte replaced, so the line
    still gets its parse error)."""

    WAITING = 16

    def __init__(self, fd: int = 0):
        import threading

        import anyio

        self._fd = fd
        self._send, self._receive = anyio.create_memory_object_stream(self.WAITING)
        self._room = threading.Semaphore(self.WAITING)

    def start(self) -> None:
        import threading

        import anyio

        token = anyio.lowlevel.current_token()
        threading.Thread(target=self._read, args=(token,), name="mcptest serve stdin", daemon=True).start()

    def _read(self, token) -> None:
        import os

        import anyio

        def hand_on(line: bytes) -> None:
            self._room.acquire()
            anyio.from_thread.run_sync(self._send.send_nowait, line.decode("utf-8", "replace"), token=token)

        ended = (RuntimeError, anyio.BrokenResourceError, anyio.ClosedResourceError)  # the session ended first
        pending = bytearray()
        try:
            while chunk := os.read(self._fd, 1 << 16):
                pending += chunk
                if b"\n" in chunk:
                    *lines, rest = pending.split(b"\n")
                    pending = bytearray(rest)
                    for line in lines:
                        hand_on(line + b"\n")
            if pending:
                hand_on(bytes(pending))
        except (OSError, *ended):
            pass  # stdin closed or unreadable is its end, as EOF is
        with contextlib.suppress(*ended):
            anyio.from_thread.run_sync(self._send.close, token=token)

    def __aiter__(self):
        return self

    async def __anext__(self) -> str:
        import anyio

        try:
            line = await self._receive.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None
        self._room.release()
        return line


def _went_away(exc: BaseException) -> bool:
    """True when ``exc`` (or every exception a task group gathered in it) comes of the other
    end of a pipe, a socket or a session being gone: itself, or the exception it was raised
    while handling (the SDK's HTTP transport, failing to pass on a message to a session that
    just ended, tries to answer 500 on a response already sent, and that is what reaches us)."""
    import anyio

    inner = getattr(exc, "exceptions", None)
    if inner:
        return all(_went_away(e) for e in inner)
    gone = (BrokenPipeError, ConnectionResetError, anyio.BrokenResourceError, anyio.ClosedResourceError)
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, gone):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def _quiet_when_gone(app):
    """The ASGI ``app``, with a request that fails because its client or its session went away
    meanwhile ended quietly: there is no one left to answer, and uvicorn would log a traceback."""
    async def asgi(scope, receive, send):
        try:
            await app(scope, receive, send)
        except Exception as exc:
            if not _went_away(exc):
                raise

    return asgi


def _forget_stdout() -> None:
    """Point stdout at the null device: what is still buffered for a reader that is gone
    would otherwise fail again, as a warning, when the interpreter flushes it at exit."""
    import os

    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):  # no stdout to point anywhere: nothing will be flushed
        pass


def _serve_http(server, host: str, port: int) -> int:
    import uvicorn

    config = uvicorn.Config(_quiet_when_gone(server.streamable_http_app(host=host)), host=host, port=port,
                            log_level="warning")
    # Listening before the line is printed: a host (or a script) that waits for the line
    # connects at once, its connection queued until uvicorn takes it. An address that cannot
    # be had is said in one line (exit 2), and no "on http://" line comes before it.
    try:
        sock = _listen(host, port, config.backlog)
    except (OSError, ValueError, OverflowError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(printable(f"mcptest serve: cannot listen on {host}:{port}: {reason}"), file=sys.stderr)
        return 2
    bound = sock.getsockname()[1]  # port 0 asks the system for a free one: this is the one it gave
    shown = f"[{host}]" if ":" in host else host
    # the name is the recorded server's own: escaped
    print(printable(f"mcptest serve: {server.name} on http://{shown}:{bound}/mcp"), file=sys.stderr, flush=True)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def _listen(host: str, port: int, backlog: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(backlog)
    except BaseException:
        sock.close()
        raise
    return sock


# --------------------------------------------------------------------------- lines no SDK server answers

PARSE_ERROR, INVALID_REQUEST = -32700, -32600


class answer_garbage:
    """The read stream of an SDK server, answering what is not a JSON-RPC message itself.

    The SDK's stdio transport hands a line it cannot read to the server as an exception,
    and the server drops it: a host that sent it would wait for ever. This wrapper answers
    each such line at once, as JSON-RPC asks: ``-32700`` (parse error) for a line that is not
    JSON, ``-32600`` (invalid request) for JSON that is not a message the SDK takes (an id
    that is an object, a missing method, params that are not an object; a request whose id
    is not a string or an integer, which the SDK reads as a notification; a number longer
    than its reader takes, Python's 4,300 digits; a lone surrogate escape). A request's own
    id is echoed when it has a usable one, so the host can tie the error to its request;
    else the id is null. A notification or an answer of the host's gets no reply, as JSON-RPC
    has it."""

    def __init__(self, read_stream, write_stream):
        self._read, self._write = read_stream, write_stream

    def __getattr__(self, name):
        return getattr(self._read, name)

    async def __aenter__(self):
        await self._read.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self._read.__aexit__(*exc)

    def __aiter__(self):
        return self

    async def __anext__(self):
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def receive(self):
        while True:
            item = await self._read.receive()
            if not isinstance(item, Exception):
                method = getattr(item.message, "method", None)
                if (method is None or getattr(item.message, "id", None) is not None
                        or method.startswith("notifications/")):
                    return item
                # MCP's notifications are all notifications/*: this is a request whose id the
                # SDK could not read (an object, a boolean) and took for a notification.
                await self._refuse(None, INVALID_REQUEST, f"Invalid Request: {method!r} came without a usable id "
                                                          f"(a string or an integer)")
                continue
            request_id, code, what = _refusal(item)
            if code is not None:
                await self._refuse(request_id, code, what)

    async def _refuse(self, request_id, code: int, what: str) -> None:
        import mcp_types as types
        from mcp.shared.message import SessionMessage

        await self._write.send(SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(
            code=code, message=what))))


_LONG = object()  # stands for a number too long to read, while a refused line is read again


def _refusal(exc: Exception) -> tuple:
    """How to answer a line the SDK's reader refused with ``exc``: ``(id, code, message)``;
    code None when the line gets no reply (a notification, an answer of the host's)."""
    errors = exc.errors() if callable(getattr(exc, "errors", None)) else []
    invalid = next((e for e in errors if e.get("type") == "json_invalid"), None)
    if invalid is not None:
        return _unreadable(invalid) or (None, PARSE_ERROR, "Parse error: the line is not JSON")
    # Every form the line failed is listed; a required key missing at the top names the whole message.
    message = next((e.get("input") for e in errors if e.get("type") == "missing" and len(e.get("loc") or ()) == 2),
                   None)
    wrong = next((e for e in errors if tuple(e.get("loc") or ())[:1] == ("JSONRPCRequest",)), None)
    reason = "the line is JSON but not a JSON-RPC message"
    if isinstance(message, dict) and "method" in message and wrong is not None:
        reason = f"{'.'.join(str(p) for p in wrong['loc'][1:]) or 'the request'}: {wrong.get('msg')}"
    return _reply(message, reason)


def _unreadable(error: dict) -> Optional[tuple]:
    """For a line the SDK's JSON reader refused that Python's reads (a number longer than the
    SDK takes, a lone surrogate, nesting deeper than it goes): the reply, saying why; None for
    a line that is not JSON at all."""
    line = error.get("input")
    if not isinstance(line, str):
        return None
    limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300
    longest = [0]

    def number(text: str, read) -> Any:
        if len(text) > limit:
            longest[0] = max(longest[0], len(text))
            return _LONG
        return read(text)

    try:
        message = json.loads(line, parse_int=lambda t: number(t, int), parse_float=lambda t: number(t, float))
    except (ValueError, RecursionError):
        return None
    if longest[0]:
        number = f"a number of {longest[0]:,} digits, too long to read (at most {limit:,})"
        if isinstance(message, dict) and message.get("id") is _LONG and "method" in message:
            return None, INVALID_REQUEST, f"Invalid Request: the id is {number}"
        return _reply(message, f"the {'request' if isinstance(message, dict) else 'line'} holds {number}")
    return _reply(message, str((error.get("ctx") or {}).get("error") or error.get("msg")))


def _reply(message: Any, reason: str) -> tuple:
    """``(id, code, text)`` for JSON that is no message the SDK takes: a request is answered
    under its own id when that id is usable, a notification or an answer is not answered."""
    if isinstance(message, dict) and ("method" in message and "id" not in message
                                      or "method" not in message and ("result" in message or "error" in message)):
        return None, None, ""
    request_id = message.get("id") if isinstance(message, dict) and "method" in message else None
    usable = isinstance(request_id, (str, int)) and not isinstance(request_id, bool)
    return (request_id if usable else None), INVALID_REQUEST, f"Invalid Request: {reason}"
