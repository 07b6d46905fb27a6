"""Which tool a recorded call names, and whether a declared id names it.

A declared id is ``server.tool`` (server-qualified: only that tool on that server) or a
bare ``tool`` (that tool on any server; the counting rule). This module is also
the one edge where loose inputs become typed ones: the engine's public functions accept
runs and calls as the cassette reader gives them (``Run`` and ``ToolCall``) and, for
callers of the public API, as names or plain dicts; :func:`calls_of` and :func:`as_call`
turn each into ``ToolCall`` once, and everything behind them reads attributes.
"""

from __future__ import annotations

from typing import Any, Mapping

from .trace import Run, ToolCall


def as_call(call: Any) -> ToolCall:
    """A ``ToolCall`` from a ToolCall, a bare tool name, or a ``{"name", "server", ...}`` dict.

    What a gate cannot use is normalized the way a recording that lacks it reads: a
    missing or non-string name is ``""``, an empty server is no server, only ``true`` is
    an error.
    """
    if type(call) is ToolCall:
        return call
    if isinstance(call, str):
        return ToolCall(call)
    get = call.get if isinstance(call, Mapping) else (lambda key, default=None: getattr(call, key, default))
    name, server, turn = get("name"), get("server"), get("turn")
    return ToolCall(name=name if isinstance(name, str) else "", args=get("args"),
                    server=server if isinstance(server, str) and server else None,
                    error=get("error", False) is True, result=get("result"),
                    turn=turn if isinstance(turn, int) and not isinstance(turn, bool) else None,
                    args_invalid_json=get("args_invalid_json", False) is True)


def calls_of(run: Any) -> tuple[ToolCall, ...]:
    """The calls of a ``Run``, of a ``{"tool_calls": [...]}`` dict, or of a plain sequence."""
    if type(run) is Run:
        return run.tool_calls
    if isinstance(run, Mapping):
        run = run.get("tool_calls") or ()
    elif hasattr(run, "tool_calls"):
        run = run.tool_calls
    return tuple(as_call(c) for c in run)


def call_id(call: ToolCall) -> str:
    """The qualified id of a call: ``server.name``, or ``name`` when no server was recorded."""
    return f"{call.server}.{call.name}" if call.server else call.name


def member_matches(member: str, call: ToolCall) -> bool:
    """Whether a declared id (a class member, an expected or correct tool) names this call.

    Dotted ids are server-qualified; a bare id matches the tool on any server, and also a
    call recorded with no server whose own name is qualified (``shop.search`` for ``search``).
    """
    if member == call_id(call):
        return True
    if "." in member:
        return False
    return member == call.name or (not call.server and call.name.endswith("." + member))

