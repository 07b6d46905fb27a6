"""The Streamable HTTP side of ``mcptest record --http``: the host on this process's stdio, the
server at a URL, each through the SDK's transports.

Over stdio :mod:`.relay` passes lines as they are; an HTTP endpoint speaks sessions, posts and
event streams, so here the SDK's Streamable HTTP client talks to the server and its stdio
server to the host, and the typed messages are handed across. The host side and the server
side run as separate tasks of one :class:`HttpRelay`, sharing its state, so a server that
cannot be reached, or that goes away, is reported to the host as JSON-RPC errors instead of
ending the session under it.
"""

from __future__ import annotations

import sys
from typing import Optional

from ..text import printable
from .session_log import ENDED_SIGNAL, SessionLog, gone_error, late_error

HTTP_TIMEOUT = 60.0  # seconds one request may wait for the endpoint (record --timeout)


class HttpRelay:
    """One host session relayed to the Streamable HTTP endpoint ``url`` (sent ``headers``).

    ``finish()`` is called as soon as the host ends the session (or a signal arrives), before
    the server side is shut down, which may take seconds during which a host may already be
    killing this process. A request the endpoint has not answered within ``timeout`` seconds
    (one that accepts the connection and never answers) gets an error that says so; its
    answer, if it comes later, is recorded but not passed on (the host has had one).

    When the session ends while the host still holds its end open (a signal), the SDK's
    stdin reader stays blocked in a worker thread that no cancellation reaches; once the
    server side is shut down, ``abandon(outcome)`` is called to end the process instead.
    """

    def __init__(self, command: list[str], log: SessionLog, finish, errlog=None, url: str = "", abandon=None,
                 headers: Optional[dict] = None, timeout: float = HTTP_TIMEOUT):
        import anyio

        self.command, self.log, self.finish, self.url = command, log, finish, url
        self.errlog = sys.stderr if errlog is None else errlog
        self.abandon, self.headers, self.timeout = abandon, headers, timeout
        self.gone = False           # the server went away (or was never reached)
        self.failure = ""           # why it could not be reached
        self.server_write = None
        self.host_closed = False    # the host closed its end: the stdin reader has returned
        self.other: set = set()     # ids of the host's requests other than tools/call still waiting
        self.late: set = set()      # ids the host got a timeout error for
        self.ready, self.ended, self.server_done = anyio.Event(), anyio.Event(), anyio.Event()

    async def run(self) -> dict:
        """Relay until the host ends the session; ``{"gone": bool, "failure": str}``: whether
        the server went away first, and why it could not be reached."""
        import anyio
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (host_read, host_write):
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.server_side, host_write)
                with anyio.CancelScope() as session:
                    watch = anyio.CancelScope()

                    async def watch_signals():
                        with watch:
                            await self.on_signals(session)

                    tg.start_soon(watch_signals)
                    await self.ready.wait()
                    async with anyio.create_task_group() as timers:
                        await self.host_to_server(host_read, host_write, timers)
                        timers.cancel_scope.cancel()  # the session is over: no deadline is left to keep
                self.finish()
                self.ended.set()
                watch.cancel()
                outcome = {"gone": self.gone and self.log.ended != ENDED_SIGNAL, "failure": self.failure}
                if self.abandon is not None and not self.host_closed:
                    await self.server_done.wait()
                    self.abandon(outcome)
            await host_write.aclose()  # lets the host-side writer finish
        return outcome

    def transport(self):
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = create_mcp_http_client(headers=self.headers or None)
        return streamable_http_client(self.url, http_client=client)

    async def answer_pending(self, host_write) -> None:
        for request_id in self.log.give_up_waiting(self.other):
            await host_write.send(typed(gone_error(request_id, self.command, self.failure)))

    async def server_side(self, host_write) -> None:
        import anyio

        from ..mcp.client import innermost

        try:
            async with self.transport() as streams:
                server_read, self.server_write = streams[0], streams[1]
                self.ready.set()
                async with anyio.create_task_group() as inner:
                    inner.start_soon(self.server_to_host, server_read, host_write)
                    await self.ended.wait()
                    inner.cancel_scope.cancel()
        except Exception as exc:  # noqa: BLE001 - start-up or transport failure: tell the host
            leaf = innermost(exc)
            self.failure = f"could not be reached: {getattr(leaf, 'strerror', None) or leaf}"
        finally:
            if not self.ended.is_set():
                self.gone = True
                if self.failure:
                    self.log.ended = f"server {self.failure}"
                with anyio.CancelScope(shield=True):
                    try:
                        await self.answer_pending(host_write)
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        pass
            self.ready.set()
            self.server_done.set()

    async def deadline(self, request_id, method, host_write) -> None:
        import anyio

        await anyio.sleep(self.timeout)
        log = self.log
        if request_id not in log.pending and request_id not in self.other:
            return  # answered meanwhile
        log.unanswered += log.pending.pop(request_id, None) is not None
        log.listing.pop(request_id, None)
        self.other.discard(request_id)
        self.late.add(request_id)
        self.errlog.write(f"mcptest record: the MCP server `{self.command[0]}` gave no answer within "
                          f"{self.timeout:g} s to {printable(str(method))}; the host got an error instead\n")
        try:
            await host_write.send(typed(late_error(request_id, self.command, method, self.timeout)))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the host is gone meanwhile

    async def host_to_server(self, host_read, host_write, timers) -> None:
        import anyio

        async for item in host_read:
            if isinstance(item, Exception):
                self.errlog.write(f"mcptest record: the host sent a line that is not JSON-RPC, not forwarded: "
                                  f"{printable(str(item))}\n")
                continue
            message = item.message
            self.log.from_host(message)
            request_id = getattr(message, "id", None)
            is_request = getattr(message, "method", None) is not None and request_id is not None
            if is_request and request_id not in self.log.pending:
                self.other.add(request_id)
            if not self.gone:
                try:
                    await self.server_write.send(item)
                    if is_request:
                        timers.start_soon(self.deadline, request_id, getattr(message, "method", None), host_write)
                    continue
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    self.gone = True
            if is_request:
                self.log.unanswered += self.log.pending.pop(request_id, None) is not None
                self.other.discard(request_id)
                await host_write.send(typed(gone_error(request_id, self.command, self.failure)))
        self.host_closed = True

    async def server_to_host(self, server_read, host_write) -> None:
        async for item in server_read:
            if isinstance(item, Exception):
                self.errlog.write(f"mcptest record: the server sent a message that is not JSON-RPC, "
                                  f"not forwarded: {printable(str(item))}\n")
                continue
            self.log.from_server(item.message)
            answered = getattr(item.message, "id", None) if getattr(item.message, "method", None) is None else None
            self.other.discard(answered)
            if answered is not None and answered in self.late:
                self.late.discard(answered)  # the host already had its timeout error
                continue
            await host_write.send(item)
        if not self.ended.is_set():  # the server closed its output: it has exited or is about to
            self.log.ended = "server exited"
            self.gone = True
            await self.answer_pending(host_write)

    async def on_signals(self, scope) -> None:
        import signal

        import anyio

        try:
            receiver = anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM)
            with receiver as signals:
                async for _ in signals:
                    self.log.ended = ENDED_SIGNAL
                    scope.cancel()
                    return
        except (RuntimeError, ValueError):  # not the main thread: signals stay with the caller
            return


def typed(message: dict):
    """A plain JSON-RPC dict as the SDK's session message, for its stdio writer."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    return SessionMessage(types.jsonrpc_message_adapter.validate_python(message))
