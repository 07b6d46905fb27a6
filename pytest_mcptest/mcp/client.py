"""The live catalog client: ``tools/list`` from an MCP server over stdio.

:func:`list_tools` starts the server command, runs the MCP handshake with the official
``mcp`` SDK (``ClientSession`` over ``stdio_client``), follows ``nextCursor`` through every
page of ``tools/list``, shuts the server down cleanly and returns ``{"tools": [...]}``: the
tool objects as the server sent them, with their wire names (``inputSchema``,
``annotations``, ``outputSchema``, ...), fields the SDK's models do not know included.

Every failure (the command cannot be started, the server exits or closes its stdout, the
exchange outlives ``timeout``, a JSON-RPC error) raises :class:`ServerError`, whose message
names the command and ends with the tail of the server's stderr.

The ``mcp`` SDK is imported inside the functions, never at module import.
"""

from __future__ import annotations

import os
import sys
import shlex
import tempfile
from typing import Any, Optional

STDERR_TAIL_LINES = 20
STDERR_TAIL_CHARS = 2000
MAX_PAGES = 10_000


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
        text = f"MCP server `{shlex.join(self.command)}`: {self.reason}"
        if self.stderr.strip():
            text += "\n--- server stderr (tail) ---\n" + self.stderr.rstrip("\n")
        else:
            text += "\n(the server wrote nothing to stderr)"
        return text


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

    _quiet_sdk_logging()
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            return _run_sync(_list_tools_async, command, env, cwd, float(timeout), errlog)
        except BaseException as exc:  # noqa: BLE001 - every failure becomes a ServerError
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            leaf = _leaf(exc)
            if isinstance(leaf, (KeyboardInterrupt, SystemExit)):
                raise leaf from None
            reason = leaf.reason if isinstance(leaf, ServerError) else _describe(leaf, timeout)
            raise ServerError(command, reason, _tail(errlog)) from leaf


# --------------------------------------------------------------------------- internals


def _run_sync(fn, *args):
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


async def _list_tools_async(command: list[str], env: Optional[dict], cwd: Optional[str],
                            timeout: float, errlog) -> dict:
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    try:
        from mcp import types as mcp_types
    except ImportError:  # pragma: no cover - every supported SDK has mcp.types
        mcp_types = None

    params = StdioServerParameters(
        command=command[0], args=command[1:],
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
    stdout_faults: list[str] = []
    raw_pages: list[dict] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            stdout_faults.append(_stdout_fault(message))

    try:
        with anyio.fail_after(timeout):
            async with stdio_client(params, errlog=errlog) as (read_stream, write_stream):
                # The session reads through a tap that keeps the raw tools/list results.
                tap_send, tap_receive = anyio.create_memory_object_stream(0)
                async with anyio.create_task_group() as tg:
                    tg.start_soon(_pump, read_stream, tap_send, raw_pages)
                    try:
                        async with ClientSession(tap_receive, write_stream,
                                                 message_handler=on_message) as session:
                            await session.initialize()
                            tools = await _all_pages(session, mcp_types, raw_pages)
                    finally:
                        tg.cancel_scope.cancel()
                return {"tools": tools}
    except BaseException as exc:
        leaf = _leaf(exc)
        if stdout_faults and isinstance(leaf, Exception) and not isinstance(leaf, ServerError):
            reason = _describe(leaf, timeout)
            reason += (f"; the server wrote {len(stdout_faults)} line(s) to stdout that are not "
                       f"JSON-RPC, the first: {stdout_faults[0]}")
            raise ServerError(command, reason) from leaf
        raise


async def _pump(source, sink, raw_pages: list[dict]) -> None:
    """Forward every transport item to the session, keeping raw ``tools/list`` results.

    The SDK parses results into pydantic models, which drop fields they do not know; the
    raw result dict rides along on the JSON-RPC response, so it is kept here, in order.
    """
    import anyio

    async with sink:
        try:
            async for item in source:
                message = getattr(item, "message", None)
                root = getattr(message, "root", message)  # mcp 1.x wraps in a RootModel
                result = getattr(root, "result", None)
                if isinstance(result, dict) and isinstance(result.get("tools"), list):
                    raw_pages.append(result)
                await sink.send(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            pass


async def _all_pages(session, mcp_types, raw_pages: list[dict]) -> list[dict]:
    tools: list[dict] = []
    cursor: Optional[str] = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        before = len(raw_pages)
        if cursor is None:
            result = await session.list_tools()
        else:
            result = await session.list_tools(params=mcp_types.PaginatedRequestParams(cursor=cursor))
        raw = raw_pages[-1].get("tools") if len(raw_pages) == before + 1 else None
        if (isinstance(raw, list) and len(raw) == len(result.tools)
                and all(isinstance(t, dict) for t in raw)):
            tools.extend(raw)  # exactly as sent
        else:
            tools.extend(_dump(tool) for tool in result.tools)
        cursor = getattr(result, "next_cursor", None)
        if cursor is None:
            cursor = getattr(result, "nextCursor", None)
        if not cursor:
            return tools
        if cursor in seen:
            raise ServerError([], f"tools/list pagination loops: cursor {cursor!r} came back twice")
        seen.add(cursor)
    raise ServerError([], f"tools/list did not end after {MAX_PAGES} pages")


def _dump(tool: Any) -> dict:
    if isinstance(tool, dict):
        return tool
    return tool.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _stdout_fault(exc: Exception) -> str:
    """One line for a stdout line the SDK could not parse: the line itself when known."""
    try:
        errors = exc.errors()  # pydantic ValidationError
        line = errors[0].get("input") if errors else None
    except Exception:  # noqa: BLE001 - not a pydantic error
        line = None
    if isinstance(line, str):
        return repr(line[:200])
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def _quiet_sdk_logging() -> None:
    """The SDK logs parse failures with tracebacks; with no logging configured, Python's
    last-resort handler would print them on our stderr. A NullHandler on the ``mcp``
    logger stops that and leaves propagation to the application's handlers intact."""
    import logging

    logger = logging.getLogger("mcp")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())


def _leaf(exc: BaseException) -> BaseException:
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


def _describe(exc: BaseException, timeout: float) -> str:
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
    if type(exc).__name__ in ("MCPError", "McpError") and message is not None:
        if "closed" in str(message).lower():
            return f"the server closed the connection or exited before answering ({message})"
        return f"protocol error {code}: {message}"
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


def _tail(errlog) -> str:
    try:
        errlog.flush()
        errlog.seek(0)
        text = errlog.read()
    except (OSError, ValueError):
        return ""
    lines = text.splitlines()[-STDERR_TAIL_LINES:]
    tail = "\n".join(lines)
    if len(tail) > STDERR_TAIL_CHARS:
        tail = "..." + tail[-STDERR_TAIL_CHARS:]
    return tail
