"""The live catalog client: ``tools/list`` from an MCP server over stdio.

:func:`list_tools` starts the server command, runs the MCP handshake with the official
``mcp`` SDK's ``ClientSession``, follows ``nextCursor`` through every page of
``tools/list``, ends the server and returns ``{"tools": [...]}``: the tool objects as the
server sent them, with their wire names (``inputSchema``, ``annotations``,
``outputSchema``, ...), fields the SDK's models do not know included.

The transport is this module's own, not the SDK's ``stdio_client``, because a server is
someone else's program and the run must survive it:

- the server runs in its own session (process group), and when the call ends, whichever
  way, the whole group is ended: stdin closed, a short grace, SIGTERM, another grace,
  SIGKILL. A server that starts a background child and exits leaves nothing behind;
- its stderr goes through a pipe read as it comes, keeping only the last
  :data:`STDERR_KEEP_BYTES`: a server flooding stderr costs neither memory nor time past
  the timeout;
- a stdout line that is not JSON-RPC is counted, not logged: the error names how many and
  the first one, with no SDK tracebacks in the captured log (the SDK's logger is also
  quieted for the length of the call); one line longer than :data:`MAX_LINE_BYTES` ends
  the exchange.

Every failure (the command cannot be started, the server exits or closes its stdout, the
exchange outlives ``timeout``, a JSON-RPC error) raises :class:`ServerError`, whose message
names the command and ends with the tail of the server's stderr.

The ``mcp`` SDK is imported inside the functions, never at module import.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shlex
import signal
import subprocess
import sys
from typing import Optional

STDERR_KEEP_BYTES = 64 * 1024  # what is kept of the server's stderr, from its end
STDERR_TAIL_LINES = 40  # what an error shows of it
STDERR_TAIL_CHARS = 4000
MAX_LINE_BYTES = 64 * 1024 * 1024  # one JSON-RPC message on stdout
MAX_PAGES = 10_000
GRACE_SECONDS = 0.5  # after stdin closes, and again after SIGTERM, before SIGKILL
EXIT_GRACE_SECONDS = 2.0  # after a failed exchange, to see a server's exit (only waited while it runs)


class ServerError(Exception):
    """A live MCP server could not be reached or did not answer.

    ``command`` is the argv that was run, ``reason`` the one-line cause and ``stderr`` the
    tail of what the server wrote to its stderr (possibly empty). ``str(err)`` combines all
    three, ready to show to a user.
    """

    def __init__(self, command: list[str], reason: str, stderr: str = ""):
        self.command = list(command)
        self.reason = reason
        self.stderr = stderr
        super().__init__(self._render())

    def _render(self) -> str:
        from ..text import printable

        text = f"MCP server `{shlex.join(self.command)}`: {self.reason}"
        if self.stderr.strip():
            text += "\n--- server stderr (tail) ---\n" + self.stderr.rstrip("\n")
        else:
            text += "\n(the server wrote nothing to stderr)"
        return printable(text)  # the server's own words reach a terminal: escaped


def list_tools(command: list[str], env: Optional[dict] = None, cwd: Optional[str] = None,
               timeout: float = 30.0) -> dict:
    """Fetch the full tool catalog of the stdio MCP server started by ``command``.

    ``command`` is an argv list (``["mcptest", "mock", "--tools-from", "shop.yml"]``);
    ``env`` is merged over this process's environment; ``cwd`` is the server's working
    directory; ``timeout`` (seconds) bounds the whole exchange: start, initialize, every
    ``tools/list`` page. Returns ``{"tools": [tool, ...]}`` with plain JSON dicts.
    Raises :class:`ServerError` on any failure.
    """
    if (not isinstance(command, (list, tuple)) or not command
            or not all(isinstance(part, str) for part in command)):
        raise ValueError(f"command must be a non-empty list of strings, got {command!r}")
    if command[0] == "mcptest":
        # Our own command runs under this interpreter: the same version of the plugin, and
        # found even when the environment's bin folder is not on PATH.
        command = [sys.executable, "-m", "pytest_mcptest.cli", *command[1:]]
    command = list(command)
    if env is not None:
        env = {str(k): str(v) for k, v in env.items()}

    tail = StderrTail()
    with quiet_sdk_logging():
        try:
            return run_sync(_list_tools_async, command, env, cwd, float(timeout), tail)
        except BaseException as exc:  # noqa: BLE001 - every failure becomes a ServerError
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            leaf = innermost(exc)
            if isinstance(leaf, (KeyboardInterrupt, SystemExit)):
                raise leaf from None
            raise ServerError(command, startup_reason(leaf, tail, timeout), tail.text()) from leaf


class StderrTail:
    """What a server left behind: the last :data:`STDERR_KEEP_BYTES` of its stderr, however
    much goes through it, and its exit status when it exited on its own (``returncode``;
    None while it runs, or when it was ended by us), so that an error can say "exited with
    code 1" instead of what the exchange saw of it (a closed pipe, a timeout)."""

    def __init__(self, keep: int = STDERR_KEEP_BYTES):
        self.keep = keep
        self.data = bytearray()
        self.total = 0
        self.process = None  # the server, while open_session runs it
        self.returncode: Optional[int] = None
        self.pipes_closed = False  # its output ended, or it stopped reading its input

    async def settle(self, grace: float = EXIT_GRACE_SECONDS) -> None:
        """After a failed exchange: keep the server's exit status if it has exited. When its
        pipes closed (it is ending: its exit is reaped a moment later) it is given ``grace``
        seconds to be seen exited; a server still running with its pipes open is not waited
        for (a timeout, Ctrl-C)."""
        import anyio

        if self.process is None or self.returncode is not None:
            return
        if self.pipes_closed:
            with anyio.CancelScope(shield=True):
                await _wait_exit(self.process, grace)
        self.returncode = self.process.returncode

    def exit_text(self) -> str:
        """``exited with code 1``, ``was killed by signal SIGSEGV``, or "" while it runs."""
        from ..text import exit_words

        return exit_words(self.returncode)

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.data += chunk
        if len(self.data) > self.keep:
            del self.data[: len(self.data) - self.keep]

    def text(self) -> str:
        """The last :data:`STDERR_TAIL_LINES` lines, at most :data:`STDERR_TAIL_CHARS` characters."""
        text = self.data.decode("utf-8", errors="replace")
        lines = text.splitlines()
        if self.total > len(self.data) and lines:
            lines = lines[1:]  # the first kept line was cut somewhere in its middle
        tail = "\n".join(lines[-STDERR_TAIL_LINES:])
        if len(tail) > STDERR_TAIL_CHARS:
            tail = "..." + tail[-STDERR_TAIL_CHARS:]
        if self.total > len(self.data):
            tail = f"({self.total:,} bytes in all; the end follows)\n{tail}"
        return tail


# --------------------------------------------------------------------------- internals


def run_sync(fn, *args):
    """Run the coroutine function ``fn`` to completion from synchronous code.

    Inside a running event loop (an async test, a notebook), the exchange runs on a
    worker thread with its own loop, since a loop cannot be nested.
    """
    import anyio

    try:
        import asyncio

        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(fn, *args)
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, fn, *args).result()


@contextlib.asynccontextmanager
async def open_session(command: list[str], env: Optional[dict], cwd: Optional[str], tail: StderrTail,
                       stdout_faults: list[str], raw_pages: list[dict], inherit: bool = True):
    """A ``ClientSession`` (not yet initialized) over the stdio server ``command``, started
    by :func:`open_streams`. The catalog client and the live agent runner both start their
    servers here."""
    from mcp import ClientSession

    async with open_streams(command, env, cwd, tail, stdout_faults, raw_pages, inherit) as (reads, writes):
        async with ClientSession(reads, writes) as session:
            yield session


@contextlib.asynccontextmanager
async def open_streams(command: list[str], env: Optional[dict], cwd: Optional[str], tail: StderrTail,
                       stdout_faults: list[str], raw_pages: list[dict], inherit: bool = True, reader=None):
    """The stdio server ``command`` as the SDK's pair of message streams ``(read, write)``.

    The server runs in its own process group (session), ended as a whole when the block
    ends, however it ends; its stderr goes into ``tail``, bounded, and so does its exit
    status when it exits on its own; stdout lines that are not JSON-RPC are counted into
    ``stdout_faults`` (not logged); each raw ``tools/list`` result is appended to
    ``raw_pages``. With ``inherit`` False the server gets ``env`` alone, not this process's
    environment (the live runner's servers: no provider key reaches them). ``reader``, when
    given, reads stdout instead, as ``reader(stdout, to_session, tail)``: ``mcptest verify``
    reads it strictly (a banner or a byte that is not UTF-8 is a fault it reports).
    """
    import anyio

    err_read, err_write = os.pipe()
    os.set_blocking(err_read, False)
    process = None
    try:
        try:
            process = await anyio.open_process(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err_write,
                cwd=cwd, env={**os.environ, **(env or {})} if inherit else dict(env or {}), start_new_session=True)
        finally:
            os.close(err_write)  # the server holds the only write end now
        tail.process = process
        to_session, session_reads = anyio.create_memory_object_stream(0)
        session_writes, to_server = anyio.create_memory_object_stream(0)
        async with anyio.create_task_group() as tg:
            tg.start_soon(_read_stderr, err_read, tail)
            if reader is None:
                tg.start_soon(_read_stdout, process.stdout, to_session, stdout_faults, raw_pages, tail)
            else:
                tg.start_soon(reader, process.stdout, to_session, tail)
            tg.start_soon(_write_stdin, process.stdin, to_server, to_session, tail)
            try:
                yield session_reads, session_writes
            finally:
                tg.cancel_scope.cancel()
    finally:
        await tail.settle()  # exited before we end it, or about to: its status is kept
        tail.process = None
        with anyio.CancelScope(shield=True):
            await _end_group(process)
        _drain(err_read, tail)
        os.close(err_read)


def with_faults(exc: BaseException, stdout_faults: list[str], timeout: float,
                tail: Optional[StderrTail] = None) -> Optional[ServerError]:
    """The error to raise when a server that wrote non-JSON-RPC lines to stdout failed: the
    failure, then how many such lines and the first (``None`` when there were none)."""
    leaf = innermost(exc)
    if not stdout_faults or not isinstance(leaf, Exception) or isinstance(leaf, ServerError):
        return None
    return ServerError([], f"{startup_reason(leaf, tail, timeout)}; the server wrote {len(stdout_faults)} line(s) "
                           f"to stdout that are not JSON-RPC, the first: {stdout_faults[0]}")


def startup_reason(leaf: BaseException, tail: Optional[StderrTail], timeout: float) -> str:
    """Why a server's start-up exchange failed, in the user's words: a server that exited on
    its own is said to have exited, with its status (the stderr tail follows in the error),
    rather than what the exchange saw of it: a closed pipe, or a timeout while a process it
    started kept its output open."""
    if isinstance(leaf, ServerError):
        return leaf.reason
    reason = describe_failure(leaf, timeout)
    exited = tail.exit_text() if tail is not None else ""
    if exited and isinstance(leaf, TimeoutError):  # before OSError, of which TimeoutError is a kind
        return (f"the server {exited} at start-up and gave no complete answer within {timeout:g} s (a process "
                f"it started kept its output open)")
    if not exited or isinstance(leaf, OSError):
        return reason
    return f"the server {exited} before answering initialize and tools/list"


async def _list_tools_async(command: list[str], env: Optional[dict], cwd: Optional[str],
                            timeout: float, tail: StderrTail) -> dict:
    import anyio

    stdout_faults: list[str] = []
    raw_pages: list[dict] = []
    try:
        with anyio.fail_after(timeout):
            async with open_session(command, env, cwd, tail, stdout_faults, raw_pages) as session:
                await session.initialize()
                return {"tools": await all_pages(session, raw_pages)}
    except BaseException as exc:
        error = with_faults(exc, stdout_faults, timeout, tail)
        if error is not None:
            raise ServerError(command, error.reason) from innermost(exc)
        raise


async def _read_stderr(fd: int, tail: StderrTail) -> None:
    import anyio

    while True:
        await anyio.wait_readable(fd)
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            continue
        if not chunk:
            return
        tail.add(chunk)


def _drain(fd: int, tail: StderrTail, limit: int = 16 * STDERR_KEEP_BYTES) -> None:
    """What the server wrote to stderr just before it ended, without waiting for more."""
    while limit > 0:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # BlockingIOError included: nothing more for now
            return
        if not chunk:
            return
        tail.add(chunk)
        limit -= len(chunk)


async def _read_stdout(stdout, to_session, faults: list[str], raw_pages: list[dict], tail=None) -> None:
    """Turn the server's stdout lines into session messages; at its end, say so in ``tail``.

    A line that is not a JSON-RPC message is kept for the error (the first hundred) and
    not passed on. Raw ``tools/list`` results are kept too, in order: the SDK parses
    results into pydantic models, which drop fields they do not know.
    """
    import anyio
    from mcp import types
    from mcp.shared.message import SessionMessage

    buffer = b""
    async with to_session:
        try:
            async for chunk in stdout:
                buffer += chunk
                if len(buffer) > MAX_LINE_BYTES and b"\n" not in buffer:
                    faults.append(f"a line longer than {MAX_LINE_BYTES // (1024 * 1024)} MB")
                    return
                *lines, buffer = buffer.split(b"\n")
                for raw in lines:
                    line = raw.decode("utf-8", errors="replace").strip()
                    if not line:
                        continue
                    try:
                        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                    except ValueError:
                        if len(faults) < 100:
                            faults.append(repr(line[:200]))
                        continue
                    result = getattr(message, "result", None)
                    if isinstance(result, dict) and isinstance(result.get("tools"), list):
                        raw_pages.append(json.loads(line)["result"])
                    await to_session.send(SessionMessage(message))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            pass
        if tail is not None:  # the output's end (not a cancellation, which skips this)
            tail.pipes_closed = True


async def _write_stdin(stdin, to_server, to_session, tail=None) -> None:
    import anyio

    try:
        async with to_server:
            async for session_message in to_server:
                data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await stdin.send((data + "\n").encode("utf-8"))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        if tail is not None:
            tail.pipes_closed = True
        await to_session.aclose()  # the server stopped reading: the session sees the end


async def _end_group(process) -> None:
    """End the server and everything it started in its session, whichever way the call ended.

    stdin is closed first (a polite server exits on that); then the group gets SIGTERM,
    a grace, and SIGKILL for what is left. The group id is the server's pid (its own
    session), which stays valid while any member lives, even after the server exits.
    """
    import anyio

    if process is None:
        return
    with contextlib.suppress(Exception):
        await process.stdin.aclose()
    await _wait_exit(process, GRACE_SECONDS)
    if _signal_group(process.pid, signal.SIGTERM):
        with anyio.move_on_after(GRACE_SECONDS):
            while _signal_group(process.pid, 0):
                _ = process.returncode  # reaps the leader, or a zombie keeps the group alive
                await anyio.sleep(0.01)
        _signal_group(process.pid, signal.SIGKILL)
    await _wait_exit(process, GRACE_SECONDS)
    with contextlib.suppress(Exception):
        await process.stdout.aclose()
    with anyio.move_on_after(GRACE_SECONDS), contextlib.suppress(Exception):
        await process.aclose()


async def _wait_exit(process, seconds: float) -> bool:
    import anyio

    with anyio.move_on_after(seconds):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to the process group; False once the group is gone."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # a member we may not signal (or a zombie): the group is still there
    return True


async def all_pages(session, raw_pages: list[dict]) -> list[dict]:
    from mcp import types

    tools: list[dict] = []
    cursor: Optional[str] = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        before = len(raw_pages)
        params = None if cursor is None else types.PaginatedRequestParams(cursor=cursor)
        result = await session.list_tools(params=params)
        raw = raw_pages[-1].get("tools") if len(raw_pages) == before + 1 else None
        if (isinstance(raw, list) and len(raw) == len(result.tools)
                and all(isinstance(t, dict) for t in raw)):
            tools.extend(raw)  # exactly as sent
        else:
            tools.extend(tool.model_dump(mode="json", by_alias=True, exclude_unset=True) for tool in result.tools)
        cursor = result.next_cursor
        if not cursor:
            return tools
        if cursor in seen:
            raise ServerError([], f"tools/list pagination loops: cursor {cursor!r} came back twice")
        seen.add(cursor)
    raise ServerError([], f"tools/list did not end after {MAX_PAGES} pages")


@contextlib.contextmanager
def quiet_sdk_logging():
    """The SDK logs what goes wrong inside a session with tracebacks; the error this module
    raises says it once. The ``mcp`` logger's level is raised for the call, then put back."""
    logger = logging.getLogger("mcp")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


def innermost(exc: BaseException) -> BaseException:
    """The first meaningful exception inside (possibly nested) exception groups."""
    while True:
        inner = getattr(exc, "exceptions", None)
        if not inner:
            return exc
        candidates = [e for e in inner if not _is_cancel(e)] or list(inner)
        exc = candidates[0]


def _is_cancel(exc: BaseException) -> bool:
    import anyio

    try:
        cancelled = anyio.get_cancelled_exc_class()
    except Exception:  # outside an event loop
        import asyncio

        cancelled = asyncio.CancelledError
    return isinstance(exc, cancelled)


def describe_failure(exc: BaseException, timeout: float) -> str:
    if isinstance(exc, TimeoutError):
        return f"no complete answer within {timeout:g} s (initialize and tools/list)"
    if isinstance(exc, FileNotFoundError):
        return f"could not be started: command not found ({exc.filename or exc})"
    if isinstance(exc, PermissionError):
        return f"could not be started: permission denied ({exc.filename or exc})"
    if isinstance(exc, OSError):
        return f"could not be started: {exc}"
    code = getattr(exc, "code", None)
    message = getattr(exc, "message", None)
    if type(exc).__name__ == "MCPError" and message is not None:
        if "closed" in str(message).lower():
            return f"the server closed the connection or exited before answering ({message})"
        return f"protocol error {code}: {message}"
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"
