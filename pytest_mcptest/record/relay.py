"""The stdio side of ``mcptest record``: host and server lines relayed as they are.

Over stdio, MCP is newline-delimited JSON-RPC, so the proxy need not rebuild any message:
each line the host writes is decoded once (``json``, for the :class:`~.proxy.SessionLog`)
and its bytes written to the server unchanged, and the same the other way. No SDK model is
built, so nothing the SDK does not know is lost, a message costs one JSON decoding, and the
proxy starts with nothing heavier than ``subprocess`` and ``threading`` imported (no SDK,
no event loop): a host waits for that start.

One thread reads the host, one the server; each line is handled on the thread that read
it, the log under a lock. Lines are cut from ``os.read`` chunks (linear in their length;
no buffered reader whose lock a blocked daemon thread would hold at exit). A line longer
than ``max_line`` bytes (``MCPTEST_MAX_LINE_MB``, default 64 MiB) from the server is
refused: the server is stopped and each waiting request answered with an error that says
so (the SDK's own reader takes quadratic time on such a line and never passes it on). A
host line that is not JSON gets a ``-32700`` answer at once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

from ..text import exit_words, printable

MAX_LINE = int(float(os.environ.get("MCPTEST_MAX_LINE_MB", "64")) * (1 << 20))
SHUTDOWN_SECONDS = 2.0
CHUNK = 1 << 16


class LineTooLong(Exception):
    pass


def lines(fd: int, limit: int):
    """The lines (each ending in ``\\n``, the last maybe not) read from ``fd``; LineTooLong
    when one grows past ``limit`` bytes."""
    pending = bytearray()
    while True:
        try:
            chunk = os.read(fd, CHUNK)
        except OSError:
            chunk = b""
        if not chunk:
            if len(pending) > limit:  # a last line with no newline is held to the cap too
                raise LineTooLong
            if pending:
                yield bytes(pending)
            return
        start = len(pending)
        pending += chunk
        cut = pending.rfind(b"\n", start)
        if cut < 0:
            if len(pending) > limit:
                raise LineTooLong
            continue
        for line in bytes(pending[:cut]).split(b"\n"):
            if len(line) > limit:
                raise LineTooLong
            yield line + b"\n"
        del pending[:cut + 1]


def _decode(line: bytes):
    """The JSON object on ``line``, or None: not JSON, not an object, or holding ``NaN`` or
    ``Infinity`` (which Python's json reads, JSON has not, and a cassette could not hold)."""
    try:
        message = json.loads(line, parse_constant=_no_constant)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def relay(command: list[str], log, finish, errlog, gone_error, max_line: int = MAX_LINE) -> dict:
    """Relay one host session to the server started by ``command``: ``finish()`` as soon as
    the session ends (host closed stdin, SIGINT or SIGTERM), then the server is stopped.
    Returns ``{"gone": bool, "failure": str}`` (see :func:`.proxy.record`)."""
    lock, out_lock, ended = threading.Lock(), threading.Lock(), threading.Event()
    state = {"gone": False, "failure": "", "other": set(), "over": False, "interrupted": False}
    out = sys.stdout.buffer

    def to_host(data: bytes) -> None:
        with out_lock:
            try:
                out.write(data)
                out.flush()
            except (OSError, ValueError):
                pass  # the host is gone; what it missed is still recorded

    try:
        stderr = errlog.fileno()
    except (AttributeError, OSError, ValueError):
        stderr = None
    try:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                   env=dict(os.environ), bufsize=0)
    except OSError as exc:
        process = None
        state["gone"] = True
        state["failure"] = f"could not be started: {exc.strerror or exc}"
        log.ended = f"server {state['failure']}"

    def answer_pending() -> None:  # under the lock
        for request_id in list(log.pending):
            log.pending.pop(request_id)
            log.unanswered += 1
            to_host(gone_error(request_id, state["failure"]))
        log.listing.clear()
        for request_id in sorted(state["other"], key=str):
            to_host(gone_error(request_id, state["failure"]))
        state["other"].clear()

    def server_side() -> None:
        try:
            for line in lines(process.stdout.fileno(), max_line):
                message = _decode(line)
                if message is None or message.get("jsonrpc") != "2.0":
                    shown = printable(line[:200].decode("utf-8", "replace").strip())
                    errlog.write(f"mcptest record: the server sent a line that is not JSON-RPC, not forwarded: "
                                 f"{shown}\n")
                    errlog.flush()
                    continue
                with lock:
                    log.from_server(message)
                    if "method" not in message:
                        state["other"].discard(message.get("id"))
                to_host(line if line.endswith(b"\n") else line + b"\n")
        except LineTooLong:
            state["failure"] = (f"sent a line longer than {max_line >> 20} MiB (MCPTEST_MAX_LINE_MB), "
                                f"not passed on; the server was stopped")
            errlog.write(f"mcptest record: the MCP server {state['failure']}\n")
            errlog.flush()
            _stop(process)
        exited = ""
        if not state["failure"] and not state["over"]:  # its output ended: say how it exited, once it has
            try:
                exited = exit_words(process.wait(SHUTDOWN_SECONDS))
            except subprocess.TimeoutExpired:
                pass
        with lock:
            if state["over"]:
                return  # the host ended the session and the server went with it
            if state["failure"]:
                log.ended = "server sent a line too long"
            else:
                state["failure"] = exited  # "exited with code 3": the host's errors and the last line say so
                log.ended = f"server {exited or 'exited'}"
            state["gone"] = True
            answer_pending()

    def host_side() -> None:
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):
            fd = 0
        try:
            for line in lines(fd, sys.maxsize):
                if line.strip():
                    from_host(line)
        finally:
            ended.set()

    def from_host(line: bytes) -> None:
        message = _decode(line)
        if message is None:
            errlog.write("mcptest record: the host sent a line that is not JSON-RPC, not forwarded: "
                         f"{printable(line[:200].decode('utf-8', 'replace').strip())}\n")
            to_host(b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": '
                    b'"Parse error: the line is not a JSON object"}}\n')
            return
        request_id = message.get("id")
        is_request = isinstance(message.get("method"), str) and request_id is not None
        with lock:
            log.from_host(message)
            if is_request and request_id not in log.pending:
                state["other"].add(request_id)
            alive = not state["gone"]
        if alive:
            try:
                process.stdin.write(line if line.endswith(b"\n") else line + b"\n")
                return
            except (OSError, ValueError):
                with lock:
                    state["gone"] = True
        if is_request:
            with lock:
                log.unanswered += log.pending.pop(request_id, None) is not None
                state["other"].discard(request_id)
            to_host(gone_error(request_id, state["failure"]))

    def on_signal(number, frame) -> None:
        log.ended = "interrupted"
        state["interrupted"] = True
        ended.set()

    previous = {}
    if threading.current_thread() is threading.main_thread():  # else signals stay with the caller
        for number in (signal.SIGINT, signal.SIGTERM):
            previous[number] = signal.signal(number, on_signal)
    try:
        reader = None
        if process is not None:
            reader = threading.Thread(target=server_side, name="mcptest-record-server", daemon=True)
            reader.start()
        threading.Thread(target=host_side, name="mcptest-record-host", daemon=True).start()
        while not ended.wait(0.5):
            pass
        with lock:
            state["over"] = True
            finish()
        if process is not None:
            _shut_down(process)
            reader.join(SHUTDOWN_SECONDS)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    return {"gone": state["gone"] and not state["interrupted"], "failure": state["failure"]}


def _stop(process) -> None:
    try:
        process.kill()
    except OSError:
        pass


def _shut_down(process) -> None:
    """Close the server's stdin, then terminate, then kill, as the MCP stdio transport asks."""
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(SHUTDOWN_SECONDS)
    except subprocess.TimeoutExpired:
        process.terminate()
        try:
            process.wait(SHUTDOWN_SECONDS)
        except subprocess.TimeoutExpired:
            _stop(process)
            process.wait()
