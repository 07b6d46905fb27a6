"""Anthropic Messages API conversations -> cassette v1.

Assistant ``tool_use`` blocks (``{id, name, input}``) become tool calls; the
``tool_result`` block (``{tool_use_id, content, is_error}``) that answers one becomes its
result, with ``is_error`` as the call's error. ``mcp_tool_use`` / ``mcp_tool_result``
(the MCP connector) and ``server_tool_use`` are read the same way; an MCP call keeps
its ``server_name`` as ``server``. An ``input`` given as text is parsed as JSON, and
text that does not parse is kept as ``{"_raw": text}`` and flagged ``args_invalid_json``.

A call's ``turn`` is the 0-based index of the assistant message that asked for it.
``usage`` (``input_tokens`` plus the cache tokens, ``output_tokens``) is summed over the
run object and every message (API responses carry their own).
"""

from __future__ import annotations

from ..formats.cassette import Cassette
from .common import (Catalog, Loc, Pending, Source, chat_runs, looks_like_error, make_cassette, make_run, read_usage,
                     run_fields, set_arguments, text_result)
from ..engine.trace import Run, Tokens, message_text
from ..engine.values import type_name

KIND = "anthropic"
RUN_KEYS = ("messages",)
CALL_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")
_USAGE = (("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"), ("output_tokens",), ())


def import_anthropic(path: str, text: str) -> Cassette:
    """Read an Anthropic Messages log (JSON or JSONL) and return a cassette."""
    src = Source(path, text)
    catalog = Catalog()
    runs = []
    for messages, obj, loc in chat_runs(src, src.records(), RUN_KEYS):
        extra = run_fields(obj, RUN_KEYS + ("usage", "system", "tools"))
        turns = []
        if obj is not None:
            catalog.add_all(src, obj.get("tools"), loc / "tools")
            if obj.get("system") is not None:
                turns.append({"role": "system", "content": obj["system"]})
        runs.append(run_messages(src, messages, obj, loc, turns, extra))
    return make_cassette(KIND, path, runs, catalog)


def content_blocks(src: Source, msg: dict, mloc: Loc) -> list:
    """A message's content blocks, each checked to be an object with a string ``type``."""
    content = msg.get("content")
    if content is None or isinstance(content, str):
        return []
    src.need_list(content, mloc / "content", "a message's 'content'")
    for k, block in enumerate(content):
        src.need_dict(block, mloc / "content" / k, "a content block")
        kind = block.get("type")
        if not isinstance(kind, str):
            raise src.fail(mloc / "content" / k / "type",
                           f"a content block's 'type' must be a string, found {type_name(kind)}")
    return content


def run_messages(src: Source, messages: list, obj, loc: Loc, turns: list, extra: dict) -> Run:
    """One run from ``[(message, Loc), ...]``; ``obj`` is the run object (or ``None``)."""
    calls: list[dict] = []
    pending = Pending()
    unmatched: list = []
    tokens = Tokens()
    if obj is not None:
        tokens += read_usage(src, obj.get("usage"), loc / "usage", *_USAGE)
    assistant = -1
    for msg, mloc in messages:
        src.need_dict(msg, mloc, "a message")
        role = src.need_name(msg.get("role"), mloc / "role", "a message's 'role'")
        tokens += read_usage(src, msg.get("usage"), mloc / "usage", *_USAGE)
        if role == "assistant":
            assistant += 1
        for k, block in enumerate(content_blocks(src, msg, mloc)):
            bloc = mloc / "content" / k
            kind = block["type"]
            if kind in CALL_BLOCKS:
                if role != "assistant":
                    raise src.fail(bloc / "type", f"a {kind} block belongs in an assistant message, found in a {role!r} one")
                call: dict = {"name": src.need_name(block.get("name"), bloc / "name", f"a {kind} block's 'name'")}
                call_id = src.opt_str(block.get("id"), bloc / "id", f"a {kind} block's 'id'")
                if call_id is not None:
                    call["id"] = call_id
                server = src.opt_str(block.get("server_name"), bloc / "server_name", "'server_name'")
                if server is not None:
                    call["server"] = server
                if "input" in block:
                    set_arguments(call, block["input"])
                call["error"] = False
                call["turn"] = assistant
                calls.append(call)
                pending.add(call)
            elif kind == "tool_result" or kind.endswith("_tool_result"):
                use_id = src.need_name(block.get("tool_use_id"), bloc / "tool_use_id", f"a {kind} block's 'tool_use_id'")
                is_error = block.get("is_error")
                if is_error is not None and not isinstance(is_error, bool):
                    raise src.fail(bloc / "is_error", f"'is_error' must be true or false, found {type_name(is_error)}")
                call = pending.take(use_id, None)
                if call is None:
                    unmatched.append(use_id)
                    continue
                # an explicit is_error is believed; without one, the text's shape decides
                error = bool(is_error) if is_error is not None else looks_like_error(
                    message_text(block.get("content")))
                call["error"] = error
                call["result"] = text_result(block.get("content"), error)
    if unmatched:
        extra["unmatched_results"] = unmatched
    return make_run(calls, turns + [m for m, _ in messages], tokens, extra)
