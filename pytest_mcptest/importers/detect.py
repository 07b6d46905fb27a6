"""Which kind of log a file is, from its content: for ``mcptest import auto`` and to refuse a log
imported as the wrong kind.

The guess rests only on marks one kind has and the others lack, so it may say "don't know"
(``None``) but should not say a wrong kind:

- ``otel``: ``resourceSpans`` / ``resource_spans``, or objects with span fields (``attributes``
  with ``traceId``, ``spanId`` or ``context``);
- ``claude-code``: events of ``type`` ``user`` / ``assistant`` with the message under ``message``
  (also inside ``{"loglines": [...]}``);
- ``mcp-cassette``: an object with ``format_version`` and ``messages`` holding a ``payload``, or
  JSONL of ``header`` (``cassetteVersion``) and ``frame`` lines;
- ``mcp-recorder``: ``interactions`` whose ``request`` is a JSON-RPC message;
- ``inspect-ai``: an eval log, an object with an ``eval`` object and ``samples``, ``plan`` or
  ``results``;
- ``openai-agents``: objects with ``object`` ``trace`` / ``trace.span``, or with ``span_data``;
- ``openai-responses``: items of ``type`` ``function_call``, ``function_call_output``,
  ``mcp_call``, ``mcp_list_tools``, ... or an object with ``object: response``;
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
    if any(_is_claude_event(v) for v in values[:200]) or _is_claude_export(values[0]):
        return "claude-code"
    structural = _structural(values)
    if structural is not None:
        return structural
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


def _is_claude_export(value) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("loglines"), list)
            and any(_is_claude_event(v) for v in value["loglines"][:200]))


def _structural(values: list):
    """A kind told by the shape of the whole document: recorders and evaluation logs."""
    first = values[0]
    if isinstance(first, dict):
        messages = first.get("messages")
        if "format_version" in first and isinstance(messages, list) and any(
                isinstance(m, dict) and "payload" in m for m in messages[:20]):
            return "mcp-cassette"
        interactions = first.get("interactions")
        if isinstance(interactions, list) and any(
                isinstance(i, dict) and isinstance(i.get("request"), dict) and "jsonrpc" in i["request"]
                for i in interactions[:50]):
            return "mcp-recorder"
        if isinstance(first.get("eval"), dict) and any(k in first for k in ("samples", "plan", "results")):
            return "inspect-ai"
        if first.get("type") == "header" and "cassetteVersion" in first:
            return "mcp-cassette"
    spans = first.get("data") if isinstance(first, dict) and isinstance(first.get("data"), list) else values
    if len(spans) == 1 and isinstance(spans[0], list):
        spans = spans[0]
    if any(_is_agents_record(v) for v in spans[:50]):
        return "openai-agents"
    return None


def _is_agents_record(value) -> bool:
    return isinstance(value, dict) and (value.get("object") in ("trace", "trace.span")
                                        or isinstance(value.get("span_data"), dict))


# the items of the OpenAI Responses API that no other kind has
_RESPONSES_ITEMS = ("function_call", "function_call_output", "mcp_call", "mcp_list_tools",
                    "mcp_approval_request", "mcp_approval_response", "custom_tool_call",
                    "custom_tool_call_output", "web_search_call", "file_search_call",
                    "code_interpreter_call", "computer_call", "computer_call_output")

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
    if value.get("type") in _RESPONSES_ITEMS or value.get("object") == "response":
        marks.add("openai-responses")
        if value.get("type") is not None:
            return  # an item: what it holds (an MCP server's tool list) is not a mark of anything
    if isinstance(value.get("history"), list):
        marks.add("swe-agent")
    if "role" in value:
        if value.get("tool_calls") or value.get("function_call") or value.get("role") in ("tool", "function"):
            marks.add("openai-chat")
    if value.get("type") in _ANTHROPIC_BLOCKS or "input_schema" in value:
        marks.add("anthropic")
    if value.get("type") == "function" and isinstance(value.get("function"), dict):
        marks.add("openai-chat")
    for key in ("messages", "traj", "content", "tools", "input", "output"):
        if isinstance(value.get(key), list):
            _marks(value[key], depth - 1, marks)
    for key in ("request", "response"):  # a logged request and its response
        if isinstance(value.get(key), dict):
            _marks(value[key], depth - 1, marks)
