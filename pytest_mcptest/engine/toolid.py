"""Which tool a recorded call names, and whether a declared id names it.

A declared id is ``server.tool`` (server-qualified: only that tool on that server) or a
bare ``tool`` (that tool on any server; the counting rule). The engine's functions take
runs and calls as the cassette reader gives them (``Run`` and ``ToolCall``) and nothing
looser: a caller with JSON builds those first (``pytest_mcptest.formats.cassette.parse_cassette``).
"""

from __future__ import annotations

from .trace import ToolCall


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

