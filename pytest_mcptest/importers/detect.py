"""Which kind of log a file is, from its content: for ``mcptest import auto`` and to refuse a log
imported as the wrong kind.

The guess rests only on marks one kind has and the others lack, so it may say "don't know"
(``None``) but should not say a wrong kind:

- ``otel``: ``resourceSpans`` / ``resource_spans``, or objects with span fields (``attributes``
  with ``traceId``, ``spanId`` or ``context``);
- ``claude-code``: events of ``type`` ``user`` / ``assistant`` with the message under ``message``;
- ``swe-agent``: an object with a ``history`` message list;
- ``anthropic``: content blocks of type ``tool_use`` / ``tool_result`` (and the MCP and server
  variants), or tool definitions with ``input_schema``;
- ``openai-chat``: ``tool_calls`` / ``function_call`` on a message, ``tool`` messages, or tool
  definitions ``{type: function, function: {...}}``.
"""

from __future__ import annotations

from typing import Optional

from .common import Source, any_records

# how deep into the document the marks are looked for (a run list, a run, its messages, a block)
_DEPTH = 6


def detect_kind(path: str, text: str) -> Optional[str]:
    """The kind of log ``text`` looks like, or ``None`` when it has no mark of any, or of several.
    Raises :class:`~pytest_mcptest.errors.InputError` when it is not JSON, JSONL or concatenated
    JSON at all."""
    _shape, records = any_records(Source(path, text))
    values = [value for value, _ in records]
    if any(_is_span_or_export(v) for v in values[:50]):
        return "otel"
    if any(_is_claude_event(v) for v in values[:200]):
        return "claude-code"
    marks: set[str] = set()
    for value in values:
        _marks(value, _DEPTH, marks)
    if "swe-agent" in marks:
        return "swe-agent"
    return marks.pop() if len(marks) == 1 else None


def _is_span_or_export(value) -> bool:
    if isinstance(value, list):
        return bool(value) and _is_span_or_export(value[0])
    if not isinstance(value, dict):
        return False
    if "resourceSpans" in value or "resource_spans" in value:
        return True
    return "attributes" in value and any(k in value for k in ("traceId", "trace_id", "spanId", "context"))


def _is_claude_event(value) -> bool:
    return (isinstance(value, dict) and value.get("type") in ("user", "assistant")
            and isinstance(value.get("message"), dict) and "role" in value["message"])


_ANTHROPIC_BLOCKS = ("tool_use", "tool_result", "server_tool_use", "mcp_tool_use", "mcp_tool_result")


def _marks(value, depth: int, marks: set) -> None:
    if depth <= 0:
        return
    if isinstance(value, list):
        for item in value:
            _marks(item, depth - 1, marks)
        return
    if not isinstance(value, dict):
        return
    if isinstance(value.get("history"), list):
        marks.add("swe-agent")
    if "role" in value:
        if value.get("tool_calls") or value.get("function_call") or value.get("role") in ("tool", "function"):
            marks.add("openai-chat")
    if value.get("type") in _ANTHROPIC_BLOCKS or "input_schema" in value:
        marks.add("anthropic")
    if value.get("type") == "function" and isinstance(value.get("function"), dict):
        marks.add("openai-chat")
    for key in ("messages", "traj", "content", "tools"):
        if isinstance(value.get(key), list):
            _marks(value[key], depth - 1, marks)
