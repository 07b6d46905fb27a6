"""``mcptest serve``: a recorded session played back as an MCP server, on the official SDK.

The host's agent (any MCP client) talks to the recording instead of the real server. The
SDK's low-level ``Server`` runs the transport and the handshake; one middleware answers
each request from the recording:

- ``initialize``: the recorded server name, version, instructions and capabilities (the
  protocol version is negotiated as usual);
- ``tools/list``: the recorded answer to the same request (cursor and all), else the tools
  of the last complete listing (or the cassette's catalog);
- ``tools/call``: the recorded call that matches (see :class:`Matcher`);
- every other request the recording answered (resources, templates, prompts, completion,
  logging level, subscriptions): the recorded answer to the same parameters; a ``*/list``
  asked with parameters never recorded gets its first recorded page.

While a recorded call ran, the server may have reported progress and logged: those are
sent again (progress under the new request's token). Requests the server sent to the host
(sampling, elicitation, roots) are not replayed.

Matching, as vcrpy's ``match_on``: ``args`` (default) is the tool's name and its arguments
(compared as JSON, ``--ignore-arg`` paths left out); ``name`` the name alone;
``strict-order`` the name and arguments of the next recorded call, in order. Among the
recorded calls that match, the first not yet played answers; once all have been played,
the last one answers again (so a call repeated more often than recorded keeps its last
answer). A request that matches nothing is answered with JSON-RPC error ``-32010`` whose
message names the closest recorded call and what differs.
"""

from __future__ import annotations

import json
import socket
import sys
from typing import Any, Optional

from ..errors import InputError, start_failure
from ..text import printable
from .json_diff import brief, differences, ignore_path
from .recording import HANDSHAKE, Recording
from .serving import tool_fault

NO_MATCH = -32010  # JSON-RPC implementation-defined server error: nothing recorded matches
MATCH_MODES = ("args", "name", "strict-order")


class NoMatch(Exception):
    def __init__(self, message: str, data: Optional[dict] = None):
        super().__init__(message)
        self.data = data or {}


def _what(method: str, params: dict) -> str:
    if method == "tools/call":
        return f"{params.get('name')} {brief(params.get('arguments') or {}, 80)}"
    return f"{method} {brief(params, 80)}"


class Matcher:
    """Which recorded exchange answers a request (see the module's docstring)."""

    def __init__(self, recording: Recording, match: str = "args", ignore_args: tuple = ()):
        self.match = match
        self.ignore = [("arguments",) + ignore_path(p) for p in ignore_args]
        self.by_method: dict = {}
        for exchange in recording.exchanges:
            if exchange.answer is not None and exchange.method not in HANDSHAKE:
                self.by_method.setdefault(exchange.method, []).append(exchange)
        self.played: set = set()
        self.next_call = 0  # strict-order: the position among the recorded tools/call
        # Exact requests found by key, so a long recording answers in constant time; a key
        # that misses (1 against 1.0, ignored arguments) falls back to comparing each.
        self.exact: dict = {}
        for method, exchanges in self.by_method.items():
            for exchange in exchanges:
                self.exact.setdefault(self._key(method, exchange.params), []).append(exchange)

    def _key(self, method: str, params: dict):
        if method == "tools/call" and self.match == "name":
            return method, params.get("name")
        if method == "tools/call" and self.ignore:
            return None
        try:
            return method, json.dumps(params, sort_keys=True)
        except (TypeError, ValueError):
            return None

    def _same(self, method: str, recorded: dict, params: dict) -> bool:
        if method == "tools/call":
            if recorded.get("name") != params.get("name"):
                return False
            if self.match == "name":
                return True
            return not differences({"arguments": recorded.get("arguments") or {}},
                                   {"arguments": params.get("arguments") or {}}, self.ignore, limit=1)
        return not differences(recorded, params, limit=1)

    def find(self, method: str, params: dict):
        """The recorded exchange that answers ``method`` with ``params``; NoMatch if none."""
        recorded = self.by_method.get(method, [])
        if method == "tools/call" and self.match == "strict-order":
            if self.next_call >= len(recorded):
                raise NoMatch(f"mcptest serve: no recorded tools/call left for {_what(method, params)}: "
                              f"all {len(recorded)} recorded call(s) were played (--match strict-order)")
            wanted = recorded[self.next_call]
            if not self._same(method, wanted.params, params):
                raise self._miss(method, params, [wanted], f"the next recorded call (call {self.next_call + 1})")
            self.next_call += 1
            return wanted
        key = self._key(method, params)
        matching = self.exact.get(key) if key is not None else None
        if not matching:
            matching = [e for e in recorded if self._same(method, e.params, params)]
        if not matching and method.endswith("/list") and recorded:
            return recorded[0]  # a list asked another way: its first recorded page
        if not matching:
            raise self._miss(method, params, recorded, "the closest recorded")
        for exchange in matching:
            if exchange.index not in self.played:
                self.played.add(exchange.index)
                return exchange
        return matching[-1]

    def _miss(self, method: str, params: dict, recorded: list, which: str) -> NoMatch:
        asked = _what(method, params)
        if not recorded:
            return NoMatch(f"mcptest serve: nothing recorded answers {asked}: the recording has no {method}",
                           {"method": method})
        args = lambda p: {"arguments": p.get("arguments") or {}} if method == "tools/call" else p  # noqa: E731

        def distance(exchange) -> tuple:
            same_name = method != "tools/call" or exchange.params.get("name") == params.get("name")
            return (not same_name, len(differences(args(exchange.params), args(params), self.ignore, limit=50)))

        closest = min(recorded, key=distance)
        if method == "tools/call" and closest.params.get("name") != params.get("name"):
            why = f"the tool's name differs: recorded {closest.params.get('name')!r}, got {params.get('name')!r}"
            diffs = [("name", closest.params.get("name"), params.get("name"))]
        else:
            diffs = differences(args(closest.params), args(params), self.ignore, limit=5)
            why = "; ".join(f"{path} recorded {brief(a, 40)}, got {brief(b, 40)}" for path, a, b in diffs)
        number = self.by_method[method].index(closest) + 1
        message = (f"mcptest serve: no recorded {method} matches {asked}; {which} is {method} #{number}, "
                   f"{_what(method, closest.params)}: {why}")
        return NoMatch(message, {"closest": closest.params, "differences": [
            {"path": p, "recorded": a, "got": b} for p, a, b in diffs], "match": self.match})


def _capabilities(recording: Recording) -> set:
    """What the recorded server offered: from its initialize answer, else from what was asked."""
    offered = set((recording.initialize or {}).get("capabilities") or {})
    for exchange in recording.exchanges:
        offered.add({"completion": "completions", "logging": "logging"}.get(exchange.method.split("/")[0],
                                                                             exchange.method.split("/")[0]))
    return offered | {"tools"}


def build_server(recording: Recording, match: str = "args", ignore_args: tuple = (), fault=None):
    """The SDK ``Server`` that plays ``recording``."""
    import warnings

    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    matcher = Matcher(recording, match, ignore_args)
    info = recording.server_info
    init = recording.initialize or {}
    calls = {"n": 0}

    async def unused(ctx, params):  # the middleware answers; a handler makes the SDK advertise the capability
        return {}

    handlers: dict[str, Any] = {"on_list_tools": unused, "on_call_tool": unused}
    offered = _capabilities(recording)
    if "resources" in offered:
        handlers.update(on_list_resources=unused, on_read_resource=unused, on_list_resource_templates=unused)
        if any(e.method == "resources/subscribe" for e in recording.exchanges):
            handlers.update(on_subscribe_resource=unused, on_unsubscribe_resource=unused)
    if "prompts" in offered:
        handlers.update(on_list_prompts=unused, on_get_prompt=unused)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # logging is deprecated at 2026-07-28; a recording may still hold it
        if "logging" in offered:
            handlers["on_set_logging_level"] = unused
        server = Server(str(info.get("name") or "mcptest-serve"), version=str(info.get("version") or ""),
                        instructions=init.get("instructions"), **handlers)
    if "completions" in offered:
        server.add_request_handler("completion/complete", types.CompleteRequestParams, unused)

    async def replay_notes(ctx, exchange, params: dict) -> None:
        meta = (ctx.params or {}).get("_meta") if isinstance(ctx.params, dict) else None
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        for note in exchange.notes:
            body = note.get("params") or {}
            try:
                if note.get("method") == "notifications/progress" and token is not None:
                    await ctx.session.send_progress_notification(token, body.get("progress", 0), body.get("total"),
                                                                 body.get("message"), related_request_id=ctx.request_id)
                elif note.get("method") == "notifications/message":
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        await ctx.session.send_log_message(body.get("level", "info"), body.get("data"),
                                                           body.get("logger"), related_request_id=ctx.request_id)
            except Exception:  # noqa: BLE001 - a note the host cannot take is not worth the answer
                pass

    async def replay(ctx, call_next):
        method = ctx.method
        if method == "initialize":
            result = await call_next(ctx)
            if isinstance(result, dict) and init:
                result = {**result, **{k: v for k, v in init.items() if k != "protocolVersion"}}
            return result
        if method in HANDSHAKE:
            return await call_next(ctx)
        params = {k: v for k, v in (ctx.params or {}).items() if k != "_meta"}
        if method == "tools/call" and fault is not None:
            calls["n"] += 1
            faulted = await tool_fault(fault, calls["n"])
            if faulted is not None:
                return faulted
        try:
            exchange = matcher.find(method, params)
        except NoMatch as miss:
            if method == "tools/list":
                return {"tools": recording.tools}
            raise MCPError(code=NO_MATCH, message=str(miss), data=miss.data) from None
        if exchange.notes:
            await replay_notes(ctx, exchange, params)
        answer = exchange.answer
        if "error" in answer and isinstance(answer["error"], dict):
            error = answer["error"]
            raise MCPError(code=int(error.get("code", -32603)), message=str(error.get("message", "")),
                           data=error.get("data"))
        return answer.get("result") if isinstance(answer.get("result"), dict) else {}

    server.middleware.append(replay)
    return server


def run(cassette: str, run_number: Optional[int] = None, match: str = "args", ignore_args: tuple = (),
        http: Optional[str] = None, fault_spec: str = "none") -> int:
    """``mcptest serve``: play the recording until the host closes stdin (or Ctrl-C with
    ``--http``). Returns 0, or 2 for bad input (the reason on stderr)."""
    from .mock_server import MockError, parse_fault
    from .recording import load_recording

    try:
        fault = parse_fault(fault_spec)
        for path in ignore_args:
            ignore_path(path)
        recording = load_recording(cassette, run_number)
        host, port = _address(http) if http else (None, None)
    except (MockError, ValueError, InputError, OSError) as exc:
        print(start_failure("mcptest serve", cassette, exc), file=sys.stderr)
        return 2
    return serve_until_closed(build_server(recording, match, ignore_args, fault), host, port)


def serve_until_closed(server, host: Optional[str], port: Optional[int]) -> int:
    """Serve ``server`` (a recording's or a world's) over stdio, or Streamable HTTP at
    ``host:port``, until the host closes it; the exit status (130 on Ctrl-C)."""
    from .client import _quiet_sdk_logging

    with _quiet_sdk_logging():
        try:
            if host is not None:
                return _serve_http(server, host, port)
            import anyio

            anyio.run(_serve_stdio, server)
        except KeyboardInterrupt:
            return 130
    return 0


def _address(text: str) -> tuple:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ValueError(f"--http {text!r}: expected HOST:PORT, as in 127.0.0.1:8765")
    return host, int(port)


async def _serve_stdio(server) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    from .mock_server import answer_garbage

    async with stdio_server() as (read_stream, write_stream):
        async with anyio.create_task_group() as tg:
            async def serve() -> None:
                await server.run(answer_garbage(read_stream, write_stream), write_stream,
                                 server.create_initialization_options())
                tg.cancel_scope.cancel()

            tg.start_soon(serve)


def _serve_http(server, host: str, port: int) -> int:
    import uvicorn

    config = uvicorn.Config(server.streamable_http_app(host=host), host=host, port=port, log_level="warning")
    # Listening before the line is printed: a host (or a script) that waits for the line
    # connects at once, its connection queued until uvicorn takes it. An address that cannot
    # be had is said in one line (exit 2), and no "on http://" line comes before it.
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(config.backlog)
    except OSError as exc:
        sock.close()
        print(printable(f"mcptest serve: cannot listen on {host}:{port}: {exc.strerror or exc}"), file=sys.stderr)
        return 2
    # the name is the recorded server's own: escaped
    print(printable(f"mcptest serve: {server.name} on http://{host}:{port}/mcp"), file=sys.stderr, flush=True)
    uvicorn.Server(config).run(sockets=[sock])
    return 0
