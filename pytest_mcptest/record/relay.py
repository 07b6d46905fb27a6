"""The stdio side of ``mcptest record``: host and server lines relayed as they are.

Over stdio, MCP is newline-delimited JSON-RPC, so the proxy need not rebuild any message:
each line the host writes is decoded once (``json``, for the :class:`~.proxy.SessionLog`)
and its bytes written to the server unchanged, and the same the other way. No SDK model is
built, so nothing the SDK does not know is lost, a call costs one JSON decoding per hop,
and the proxy starts without importing the SDK (``asyncio`` and ``json`` only).

A line longer than ``max_line`` bytes (``MCPTEST_MAX_LINE_MB``, default 64 MiB) from the
server is refused: the server is stopped and each waiting request is answered with an error
that says so (the SDK's own reader takes quadratic time on such a line and never passes it
on). A line from the host that is not JSON is answered at once with ``-32700``.

The host's stdin is read by a daemon thread (a pipe, a file or a terminal alike), so a
session ended by a signal does not wait on a read nobody will complete.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
from typing import Optional

MAX_LINE = int(float(os.environ.get("MCPTEST_MAX_LINE_MB", "64")) * (1 << 20))
SHUTDOWN_SECONDS = 2.0


def _error(request_id, code: int, message: str) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})
            + "\n").encode()


class _Host:
    """This process's stdin (lines, read by a daemon thread) and stdout (written and flushed)."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.lines: asyncio.Queue = asyncio.Queue()
        self.out = sys.stdout.buffer
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):
            fd = 0

        def pump():
            # os.read, not the buffered reader: a daemon thread blocked in it holds no lock
            # that the interpreter's shutdown would wait for.
            pending = bytearray()
            try:
                while True:
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:
                        break
                    start = len(pending)
                    pending += chunk
                    cut = pending.rfind(b"\n", start)
                    if cut >= 0:
                        for line in bytes(pending[:cut]).split(b"\n"):
                            loop.call_soon_threadsafe(self.lines.put_nowait, line + b"\n")
                        del pending[:cut + 1]
                if pending:
                    loop.call_soon_threadsafe(self.lines.put_nowait, bytes(pending))
                loop.call_soon_threadsafe(self.lines.put_nowait, b"")
            except (OSError, RuntimeError):  # stdin closed under us, or the loop is closed: the session is over
                pass

        threading.Thread(target=pump, name="mcptest-record-stdin", daemon=True).start()

    def send(self, data: bytes) -> None:
        try:
            self.out.write(data)
            self.out.flush()
        except (BrokenPipeError, ValueError):
            pass  # the host is gone; what it missed is still recorded


async def relay(command: list[str], log, finish, errlog, gone_error, max_line: int = MAX_LINE) -> dict:
    """Relay one host session to the server started by ``command``; the contract of
    :func:`.proxy.serve`: ``finish()`` as soon as the session ends, then the server is
    stopped; returns ``{"gone": bool, "failure": str}``."""
    loop = asyncio.get_running_loop()
    host = _Host(loop)
    state = {"gone": False, "failure": "", "other": set(), "ended": False}
    try:
        stderr = errlog.fileno()
    except (AttributeError, OSError, ValueError):
        stderr = None
    try:
        process: Optional[asyncio.subprocess.Process] = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=stderr, limit=max_line,
            env=dict(os.environ))
    except OSError as exc:
        process = None
        state["gone"] = True
        state["failure"] = f"could not be started: {exc.strerror or exc}"
        log.ended = f"server {state['failure']}"

    def answer_pending() -> None:
        for request_id in list(log.pending):
            log.pending.pop(request_id)
            log.unanswered += 1
            host.send(gone_error(request_id, state["failure"]))
        log.listing.clear()
        for request_id in sorted(state["other"], key=str):
            host.send(gone_error(request_id, state["failure"]))
        state["other"].clear()

    async def server_to_host() -> None:
        assert process is not None and process.stdout is not None
        while True:
            try:
                line = await process.stdout.readline()
            except ValueError:  # longer than max_line
                state["failure"] = (f"sent a line longer than {max_line >> 20} MiB (MCPTEST_MAX_LINE_MB), "
                                    f"not passed on; the server was stopped")
                errlog.write(f"mcptest record: the MCP server {state['failure']}\n")
                log.ended = "server sent a line too long"
                _stop(process)
                break
            if not line:
                if state["ended"]:
                    return  # the host ended the session and the server went with it
                log.ended = "server exited" if not state["failure"] else log.ended
                break
            try:
                message = json.loads(line)
            except ValueError:
                message = None
            if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
                shown = line[:200].decode("utf-8", "replace").strip()
                errlog.write(f"mcptest record: the server sent a line that is not JSON-RPC, not forwarded: {shown}\n")
                continue
            log.from_server(message)
            state["other"].discard(message.get("id") if "method" not in message else None)
            host.send(line if line.endswith(b"\n") else line + b"\n")
        state["gone"] = True
        answer_pending()

    async def host_to_server() -> None:
        while True:
            line = await host.lines.get()
            if not line:
                return
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                message = None
            if not isinstance(message, dict):
                errlog.write("mcptest record: the host sent a line that is not JSON-RPC, not forwarded: "
                             f"{line[:200].decode('utf-8', 'replace').strip()}\n")
                host.send(_error(None, -32700, "Parse error: the line is not a JSON object"))
                continue
            log.from_host(message)
            request_id = message.get("id")
            is_request = isinstance(message.get("method"), str) and request_id is not None
            if is_request and request_id not in log.pending:
                state["other"].add(request_id)
            if not state["gone"] and process is not None and process.stdin is not None:
                try:
                    process.stdin.write(line if line.endswith(b"\n") else line + b"\n")
                    await process.stdin.drain()
                    continue
                except (ConnectionError, RuntimeError):
                    state["gone"] = True
            if is_request:
                log.unanswered += log.pending.pop(request_id, None) is not None
                state["other"].discard(request_id)
                host.send(gone_error(request_id, state["failure"]))

    reading = loop.create_task(server_to_host()) if process is not None else None
    session = loop.create_task(host_to_server())
    interrupted = []

    def on_signal() -> None:
        interrupted.append(True)
        log.ended = "interrupted"
        session.cancel()

    for number in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(number, on_signal)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread: signals stay with the caller
            pass
    try:
        await session
    except asyncio.CancelledError:
        if not interrupted:
            raise
    state["ended"] = True
    finish()
    if process is not None:
        await _shut_down(process, reading)
    return {"gone": state["gone"] and not interrupted, "failure": state["failure"]}


def _stop(process) -> None:
    try:
        process.kill()
    except ProcessLookupError:
        pass


async def _shut_down(process, reading) -> None:
    """Close the server's stdin, then terminate, then kill, as the MCP stdio transport asks."""
    try:
        if process.stdin is not None:
            process.stdin.close()
        await asyncio.wait_for(process.wait(), SHUTDOWN_SECONDS)
    except asyncio.TimeoutError:
        try:
            process.terminate()
            await asyncio.wait_for(process.wait(), SHUTDOWN_SECONDS)
        except asyncio.TimeoutError:
            _stop(process)
            await process.wait()
        except ProcessLookupError:
            pass
    if reading is not None:
        reading.cancel()
        try:
            await reading
        except (asyncio.CancelledError, Exception):  # noqa: BLE001 - the session is over
            pass
