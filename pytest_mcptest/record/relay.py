"""The stdio side of ``mcptest record``: host and server lines relayed as they are.

Over stdio, MCP is newline-delimited JSON-RPC, so the proxy need not rebuild any message:
each line the host writes is decoded once (``json``, for the :class:`~.session_log.SessionLog`)
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
    return LineRelay(command, log, errlog, gone_error, max_line).run(finish)


class LineRelay:
    """The state both threads of one session share: the log and ``gone``/``failure`` under
    ``lock``, writes to the host under ``out_lock`` (a line is never interleaved)."""

    def __init__(self, command: list[str], log, errlog, gone_error, max_line: int):
        self.log, self.errlog, self.gone_error, self.max_line = log, errlog, gone_error, max_line
        self.lock, self.out_lock, self.ended = threading.Lock(), threading.Lock(), threading.Event()
        self.gone = False           # the server went away (or never started)
        self.failure = ""           # why, in words the host's errors and the last line use
        self.other: set = set()     # ids of the host's requests other than tools/call still waiting
        self.over = False           # the host ended the session (the server goes with it)
        self.interrupted = False    # SIGINT or SIGTERM ended it
        self.out = sys.stdout.buffer
        self.process = self._start(command)

    def _start(self, command: list[str]):
        try:
            stderr = self.errlog.fileno()
        except (AttributeError, OSError, ValueError):
            stderr = None
        try:
            return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                    env=dict(os.environ), bufsize=0)
        except OSError as exc:
            self.gone = True
            self.failure = f"could not be started: {exc.strerror or exc}"
            self.log.ended = f"server {self.failure}"
            return None

    def run(self, finish) -> dict:
        previous = {}
        if threading.current_thread() is threading.main_thread():  # else signals stay with the caller
            for number in (signal.SIGINT, signal.SIGTERM):
                previous[number] = signal.signal(number, self.on_signal)
        try:
            reader = None
            if self.process is not None:
                reader = threading.Thread(target=self.server_side, name="mcptest-record-server", daemon=True)
                reader.start()
            threading.Thread(target=self.host_side, name="mcptest-record-host", daemon=True).start()
            while not self.ended.wait(0.5):
                pass
            with self.lock:
                self.over = True
                finish()
            if self.process is not None:
                _shut_down(self.process)
                reader.join(SHUTDOWN_SECONDS)
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
        return {"gone": self.gone and not self.interrupted, "failure": self.failure}

    def to_host(self, data: bytes) -> None:
        with self.out_lock:
            try:
                self.out.write(data)
                self.out.flush()
            except (OSError, ValueError):
                pass  # the host is gone; what it missed is still recorded

    def answer_pending(self) -> None:  # under the lock
        for request_id in self.log.give_up_waiting(self.other):
            self.to_host(self.gone_error(request_id, self.failure))

    def server_side(self) -> None:
        errlog = self.errlog
        try:
            for line in lines(self.process.stdout.fileno(), self.max_line):
                message = _decode(line)
                if message is None or message.get("jsonrpc") != "2.0":
                    shown = printable(line[:200].decode("utf-8", "replace").strip())
                    errlog.write(f"mcptest record: the server sent a line that is not JSON-RPC, not forwarded: "
                                 f"{shown}\n")
                    errlog.flush()
                    continue
                with self.lock:
                    self.log.from_server(message)
                    if "method" not in message:
                        self.other.discard(message.get("id"))
                self.to_host(line if line.endswith(b"\n") else line + b"\n")
        except LineTooLong:
            self.failure = (f"sent a line longer than {self.max_line >> 20} MiB (MCPTEST_MAX_LINE_MB), "
                            f"not passed on; the server was stopped")
            errlog.write(f"mcptest record: the MCP server {self.failure}\n")
            errlog.flush()
            _stop(self.process)
        self.server_ended()

    def server_ended(self) -> None:
        """The server's output ended: say how it exited (once it has), and answer what waits."""
        exited = ""
        if not self.failure and not self.over:
            try:
                exited = exit_words(self.process.wait(SHUTDOWN_SECONDS))
            except subprocess.TimeoutExpired:
                pass
        with self.lock:
            if self.over:
                return  # the host ended the session and the server went with it
            if self.failure:
                self.log.ended = "server sent a line too long"
            else:
                self.failure = exited  # "exited with code 3": the host's errors and the last line say so
                self.log.ended = f"server {exited or 'exited'}"
            self.gone = True
            self.answer_pending()

    def host_side(self) -> None:
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):
            fd = 0
        try:
            for line in lines(fd, sys.maxsize):
                if line.strip():
                    self.from_host(line)
        finally:
            self.ended.set()

    def from_host(self, line: bytes) -> None:
        message = _decode(line)
        if message is None:
            self.errlog.write("mcptest record: the host sent a line that is not JSON-RPC, not forwarded: "
                              f"{printable(line[:200].decode('utf-8', 'replace').strip())}\n")
            self.to_host(b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": '
                         b'"Parse error: the line is not a JSON object"}}\n')
            return
        request_id = message.get("id")
        is_request = isinstance(message.get("method"), str) and request_id is not None
        with self.lock:
            self.log.from_host(message)
            if is_request and request_id not in self.log.pending:
                self.other.add(request_id)
            alive = not self.gone
        if alive:
            try:
                self.process.stdin.write(line if line.endswith(b"\n") else line + b"\n")
                return
            except (OSError, ValueError):
                with self.lock:
                    self.gone = True
        if is_request:
            with self.lock:
                self.log.unanswered += self.log.pending.pop(request_id, None) is not None
                self.other.discard(request_id)
            self.to_host(self.gone_error(request_id, self.failure))

    def on_signal(self, number, frame) -> None:
        self.log.ended = "interrupted"
        self.interrupted = True
        self.ended.set()


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
