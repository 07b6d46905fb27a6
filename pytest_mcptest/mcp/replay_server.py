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
answer).

A request that matches nothing is answered with a JSON-RPC error, and the server goes on
serving: ``-32601`` (method not found) for a method the recording never answered, ``-32602``
(invalid params) for parameters no recorded request had. The message names the closest
recorded request by likeness, not by order (the same name first, else the most alike name;
then the fewest differing paths, the most values in common, the most alike differing
values) and says each difference, an argument missing or never recorded in words: the
agent's most common miss is one argument more or fewer than the recording.
"""

from __future__ import annotations

import difflib
import json
import sys
from typing import Any, Optional

from ..engine.values import ABSENT
from ..errors import InputError, start_failure
from .json_diff import brief, compare, differences, ignore_path
from .recording import HANDSHAKE, Recording
from .serving import tool_fault

METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32601, -32602, -32603  # JSON-RPC's codes
MATCH_MODES = ("args", "name", "strict-order")
NAMED = {"tools/call": "tool", "prompts/get": "prompt"}  # requests that name what they call, with arguments
RANKED = 50  # differences counted per recorded request when ranking them against a miss
SHOWN = 5    # differences a miss's message says


class NoMatch(Exception):
    """A request nothing recorded answers: its JSON-RPC error ``code``, the message, and
    ``data`` (plain JSON: the SDK writes it to the host as it is)."""

    def __init__(self, message: str, code: int = INVALID_PARAMS, data: Optional[dict] = None):
        super().__init__(message)
        self.code = code
        self.data = data or {}


def _what(method: str, params: dict) -> str:
    """A request in a few words: a named one's name and arguments, any other's method and params."""
    if method in NAMED:
        name = params.get("name")
        return f"{name[:80] if isinstance(name, str) else brief(name, 80)} {brief(params.get('arguments') or {}, 80)}"
    return f"{method} {brief(params, 80)}"


def _arguments(method: str, params: dict) -> Any:
    """What is compared of a request: a named request's arguments (its name is compared on
    its own), any other request's whole parameters."""
    return params.get("arguments") or {} if method in NAMED else params


def _check_named(method: str, params: dict) -> None:
    """A tools/call or prompts/get whose name is not a string, or whose arguments are not an
    object, is malformed whatever was recorded: said as such, not as a miss."""
    name, arguments = params.get("name"), params.get("arguments")
    if not isinstance(name, str):
        raise NoMatch(f"mcptest serve: invalid params: {method} needs params.name, a string; got "
                      f"{brief(name if 'name' in params else ABSENT, 80)}", INVALID_PARAMS, {"method": method})
    if arguments is not None and not isinstance(arguments, dict):
        raise NoMatch(f"mcptest serve: invalid params: {method}'s params.arguments must be an object; got "
                      f"{brief(arguments, 80)}", INVALID_PARAMS, {"method": method})


def _alike(a: Any, b: Any) -> float:
    """How alike two values read, 0 to 1 (the first 200 characters of each)."""
    if a is ABSENT or b is ABSENT:
        return 0.0
    return difflib.SequenceMatcher(None, _text(a), _text(b)).ratio()


def _text(value: Any) -> str:
    return (value if isinstance(value, str) else brief(value, 200))[:200]


# The path of a named request's own name among its differences: not the string "name", which
# an argument may be called too (a tool's ``name`` argument is an argument like any other).
_OWN_NAME = ("name",)


def _said(method: str, path: Any, recorded: Any, got: Any) -> str:
    """One difference in words: a missing or unrecorded argument by name, else both values."""
    if path is _OWN_NAME:
        return f"the {NAMED[method]}'s name differs: recorded {recorded!r}, got {got!r}"
    noun = "argument" if method in NAMED else "parameter"
    if got is ABSENT:
        return f"{noun} `{path}` is missing"
    if recorded is ABSENT:
        return f"{noun} `{path}` was not recorded"
    return f"{noun} `{path}` recorded {brief(recorded, 40)}, got {brief(got, 40)}"


def _plain(method: str, path: Any, recorded: Any, got: Any) -> dict:
    """A difference as the error's data holds it: the path from the params, an absent side left out."""
    if path is _OWN_NAME:
        path = "name"
    elif method in NAMED:
        path = "arguments" + ("" if path.startswith("[") else ".") + path
    out: dict = {"path": path}
    if recorded is not ABSENT:
        out["recorded"] = recorded
    if got is not ABSENT:
        out["got"] = got
    return out


class Matcher:
    """Which recorded exchange answers a request (see the module's docstring)."""

    def __init__(self, recording: Recording, match: str = "args", ignore_args: tuple = (), scrub=None):
        self.match = match
        # A recording that hid its secrets is matched with them hidden the same way: a request
        # carrying the secret becomes its placeholder, and no miss message shows it in clear.
        self.scrub = scrub
        self.ignore = [ignore_path(p) for p in ignore_args]  # paths inside a tools/call's arguments
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
        except (TypeError, ValueError, RecursionError):
            return None

    def _ignored(self, method: str) -> list:
        return self.ignore if method == "tools/call" else []

    def _same(self, method: str, recorded: dict, params: dict) -> bool:
        if method in NAMED and recorded.get("name") != params.get("name"):
            return False
        if method == "tools/call" and self.match == "name":
            return True
        return not differences(_arguments(method, recorded), _arguments(method, params), self._ignored(method),
                               limit=1)

    def find(self, method: str, params: dict):
        """The recorded exchange that answers ``method`` with ``params``; NoMatch if none."""
        if self.scrub is not None:
            params = self.scrub.value(params)
        recorded = self.by_method.get(method)
        if not recorded:
            raise self._not_found(method)
        if method in NAMED:
            _check_named(method, params)
        if method == "tools/call" and self.match == "strict-order":
            return self._next_in_order(params)
        key = self._key(method, params)
        matching = self.exact.get(key) if key is not None else None
        if not matching:
            matching = [e for e in recorded if self._same(method, e.params, params)]
        if not matching and method.endswith("/list"):
            return recorded[0]  # a list asked another way: its first recorded page
        if not matching:
            raise self._miss(method, params, recorded, "the closest recorded")
        for exchange in matching:
            if exchange.index not in self.played:
                self.played.add(exchange.index)
                return exchange
        return matching[-1]

    def _next_in_order(self, params: dict):
        recorded = self.by_method["tools/call"]
        if self.next_call >= len(recorded):
            raise NoMatch(f"mcptest serve: no recorded tools/call left for {_what('tools/call', params)}: "
                          f"all {len(recorded)} recorded call(s) were played (--match strict-order)",
                          INVALID_PARAMS, {"match": self.match})
        wanted = recorded[self.next_call]
        if not self._same("tools/call", wanted.params, params):
            raise self._miss("tools/call", params, [wanted], f"the next recorded call (call {self.next_call + 1})")
        self.next_call += 1
        return wanted

    def _not_found(self, method: str) -> NoMatch:
        answered = sorted(set(self.by_method) | {"tools/list"})
        like = difflib.get_close_matches(method[:200], answered, n=1)
        return NoMatch(f"mcptest serve: method not found: {brief(method, 80)} was never asked in the recorded "
                       f"session (it answers {', '.join(answered)})" + (f"; did you mean {like[0]}?" if like else ""),
                       METHOD_NOT_FOUND, {"method": method})

    def _differences(self, method: str, recorded: dict, params: dict, limit: int) -> tuple[list, list, int]:
        """How ``params`` differs from a recorded request: the name (a named request's, when it
        differs), the arguments or parameters, and how many values the two share."""
        name = ([(_OWN_NAME, recorded.get("name"), params.get("name"))]
                if method in NAMED and recorded.get("name") != params.get("name") else [])
        found, agreeing = compare(_arguments(method, recorded), _arguments(method, params), self._ignored(method),
                                  limit)
        return name, found, agreeing

    def _closeness(self, method: str, recorded: dict, params: dict) -> tuple:
        """A sort key: the most alike recorded request sorts first (see the module's docstring)."""
        name, found, agreeing = self._differences(method, recorded, params, RANKED)
        return (bool(name), -sum(_alike(a, b) for _, a, b in name), len(found), -agreeing,
                -sum(_alike(a, b) for _, a, b in found))

    def _miss(self, method: str, params: dict, recorded: list, which: str) -> NoMatch:
        numbered = {id(e): n for n, e in enumerate(self.by_method[method], 1)}
        closest = min(recorded, key=lambda e: self._closeness(method, e.params, params))
        name, found, _ = self._differences(method, closest.params, params, SHOWN)
        why = "; ".join(_said(method, *d) for d in name + found)
        message = (f"mcptest serve: no recorded {method} matches {_what(method, params)}; {which} is {method} "
                   f"#{numbered[id(closest)]}, {_what(method, closest.params)}: {why}")
        return NoMatch(message, INVALID_PARAMS, {"closest": closest.params, "differences": [
            _plain(method, *d) for d in name + found], "match": self.match})


def _capabilities(recording: Recording) -> set:
    """What the recorded server offered: from its initialize answer, else from what was asked."""
    offered = set((recording.initialize or {}).get("capabilities") or {})
    for exchange in recording.exchanges:
        offered.add({"completion": "completions", "logging": "logging"}.get(exchange.method.split("/")[0],
                                                                             exchange.method.split("/")[0]))
    return offered | {"tools"}


def _sdk_server(recording: Recording):
    """The SDK ``Server`` with the recorded server's name, version and instructions, and a
    handler for each capability it offered (so the SDK advertises it; the middleware of
    :func:`build_server` answers every request before a handler would)."""
    import warnings

    from mcp import types
    from mcp.server.lowlevel import Server

    info = recording.server_info

    async def unused(ctx, params):
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
                        instructions=(recording.initialize or {}).get("instructions"), **handlers)
    if "completions" in offered:
        server.add_request_handler("completion/complete", types.CompleteRequestParams, unused)
    return server


async def _replay_notes(ctx, exchange) -> None:
    """Send again what the server sent while it worked on the recorded request: progress
    (under the new request's token) and log messages."""
    import warnings

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


def _recorded_answer(answer: dict) -> dict:
    """The recorded result, or the recorded error raised as it was (a code that is not an
    integer, as an internal error)."""
    from mcp.shared.exceptions import MCPError

    error = answer.get("error")
    if isinstance(error, dict):
        code = error.get("code")
        raise MCPError(code=code if isinstance(code, int) and not isinstance(code, bool) else INTERNAL_ERROR,
                       message=str(error.get("message", "")), data=error.get("data"))
    return answer.get("result") if isinstance(answer.get("result"), dict) else {}


def _scrub(recording: Recording):
    """The redactor that hid the recording's secrets, to hide an incoming request's the same way;
    None when the recording hid none. A recording made with another key is said on stderr once:
    its placeholders cannot match (``MCPTEST_REDACT_KEY`` names the key, docs/recording.md)."""
    if recording.redaction_key_id is None:
        return None
    from ..redact import key_id, redactor

    scrub = redactor(())
    if key_id(scrub.key) != recording.redaction_key_id:
        print(f"mcptest serve: {recording.path} hid its secrets with another redaction key (key id "
              f"{recording.redaction_key_id}; this machine's is {key_id(scrub.key)}): a request carrying a secret "
              f"will not match its recording; set MCPTEST_REDACT_KEY to the key it was recorded with",
              file=sys.stderr)
    return scrub


def build_server(recording: Recording, match: str = "args", ignore_args: tuple = (), fault=None):
    """The SDK ``Server`` that plays ``recording``: one middleware answers every request
    from it; a request it cannot answer is a JSON-RPC error to that request alone."""
    from mcp.shared.exceptions import MCPError

    server = _sdk_server(recording)
    matcher = Matcher(recording, match, ignore_args, _scrub(recording))
    init = recording.initialize or {}
    calls = {"n": 0}

    async def replay(ctx, call_next):
        method = ctx.method
        if ctx.request_id is None or method in HANDSHAKE:  # notifications and the handshake: the SDK's
            result = await call_next(ctx)
            if method == "initialize" and isinstance(result, dict) and init:
                result = {**result, **{k: v for k, v in init.items() if k != "protocolVersion"}}
            return result
        params = {k: v for k, v in (ctx.params or {}).items() if k != "_meta"}
        if method == "tools/call" and fault is not None:
            calls["n"] += 1
            faulted = await tool_fault(fault, calls["n"])
            if faulted is not None:
                return faulted
        if method == "tools/list" and method not in matcher.by_method:
            return {"tools": recording.tools}  # never listed in this run: the cassette's catalog
        try:
            exchange = matcher.find(method, params)
        except NoMatch as miss:
            raise MCPError(code=miss.code, message=str(miss), data=miss.data) from None
        if exchange.notes:
            await _replay_notes(ctx, exchange)
        return _recorded_answer(exchange.answer)

    server.middleware.append(replay)
    return server


def run(cassette: str, run_number: Optional[int] = None, match: str = "args", ignore_args: tuple = (),
        http: Optional[str] = None, fault_spec: str = "none") -> int:
    """``mcptest serve``: play the recording until the host closes stdin (or Ctrl-C with
    ``--http``). Returns 0, or 2 for bad input (the reason on stderr)."""
    from .mock_server import MockError, parse_fault
    from .recording import load_recording
    from .serving import address, serve_until_closed

    try:
        fault = parse_fault(fault_spec)
        for path in ignore_args:
            ignore_path(path)
        host, port = address(http) if http else (None, None)
        recording = load_recording(cassette, run_number)
        server = build_server(recording, match, ignore_args, fault)  # a redaction key that is unusable: ValueError
    except (MockError, ValueError, InputError, OSError) as exc:
        print(start_failure("mcptest serve", cassette, exc), file=sys.stderr)
        return 2
    return serve_until_closed(server, host, port)
