"""OpenAI chat-completions message lists -> cassette v1.

Each assistant message's ``tool_calls`` (``{id, type: function, function: {name,
arguments}}``) become tool calls; the ``tool`` message whose ``tool_call_id`` answers one
becomes its result. ``arguments`` is JSON text: text that does not parse is kept as
``{"_raw": text}`` and the call is flagged ``args_invalid_json``. The legacy single
``function_call`` and ``function`` messages are read the same way.

A call's ``turn`` is the 0-based index of the assistant message that asked for it, so
parallel calls share one. Messages are kept verbatim as the conversation's turns.
"""

from __future__ import annotations

from typing import Optional

from ..engine.trace import message_text
from ..engine.paths import json_pointer
from .common import (Loc, Pending, Source, Tokens, chat_runs, looks_like_error, make_cassette, make_run,
                     parse_arguments, scalars, text_result)

KIND = "openai-chat"
RUN_KEYS = ("messages", "traj")
_USAGE = (("prompt_tokens", "input_tokens"), ("completion_tokens", "output_tokens"), ("total_tokens",))


def import_openai_chat(path: str, text: str) -> dict:
    """Read an OpenAI chat log (JSON or JSONL) and return a cassette v1 dict."""
    src = Source(path, text)
    runs = []
    for index, (messages, obj, loc) in enumerate(chat_runs(src, src.records(), RUN_KEYS)):
        extra = {}
        if obj is not None:
            kept = scalars(obj, RUN_KEYS + ("usage",))
            if kept:
                extra["source"] = kept
        runs.append(_run(src, messages, obj, loc, extra))
    return make_cassette(KIND, path, runs)


def _call(src: Source, name, arguments, call_id, turn: int, name_loc: Loc) -> dict:
    call: dict = {"name": src.need_name(name, name_loc, "a tool call's name")}
    if call_id is not None:
        call["id"] = call_id
    if arguments is not None:
        args, invalid = parse_arguments(arguments)
        call["args"] = args
        if invalid:
            call["args_invalid_json"] = True
    call["error"] = False
    call["turn"] = turn
    return call


def _marked_error(msg: dict) -> bool:
    return (msg.get("is_error") is True or msg.get("isError") is True or msg.get("error") is True
            or msg.get("status") == "error")


def _run(src: Source, messages: list, obj: Optional[dict], loc: Loc, extra: dict) -> dict:
    calls: list[dict] = []
    pending = Pending()
    unmatched: list = []
    tokens = Tokens()
    if obj is not None:
        tokens.add(src, obj.get("usage"), loc / "usage", *_USAGE)
    assistant = -1
    for msg, mloc in messages:
        src.need_dict(msg, mloc, "a message")
        role = src.need_name(msg.get("role"), mloc / "role", "a message's 'role'")
        tokens.add(src, msg.get("usage"), mloc / "usage", *_USAGE)
        if role == "assistant":
            assistant += 1
            tool_calls = msg.get("tool_calls")
            if tool_calls is not None:
                src.need_list(tool_calls, mloc / "tool_calls", "'tool_calls'")
                for j, tc in enumerate(tool_calls):
                    tloc = mloc / "tool_calls" / j
                    src.need_dict(tc, tloc, "a tool call")
                    call_id = src.opt_str(tc.get("id"), tloc / "id", "a tool call's 'id'")
                    if "function" not in tc:
                        raise src.fail(tloc, "a tool call needs 'function' ({name, arguments})")
                    fn = src.need_dict(tc["function"], tloc / "function", "'function'")
                    call = _call(src, fn.get("name"), fn.get("arguments"), call_id, assistant,
                                 tloc / "function" / "name")
                    calls.append(call)
                    pending.add(call)
            legacy = msg.get("function_call")
            if legacy is not None:
                floc = mloc / "function_call"
                src.need_dict(legacy, floc, "'function_call'")
                call = _call(src, legacy.get("name"), legacy.get("arguments"), None, assistant, floc / "name")
                calls.append(call)
                pending.add(call)
        elif role in ("tool", "function"):
            call_id = src.opt_str(msg.get("tool_call_id"), mloc / "tool_call_id", "'tool_call_id'")
            name = src.opt_str(msg.get("name"), mloc / "name", "a tool message's 'name'")
            call = pending.take(call_id, name)
            if call is None:
                unmatched.append(call_id or name or json_pointer(mloc.parts))
                continue
            content = msg.get("content")
            error = _marked_error(msg) or looks_like_error(message_text(content))
            call["error"] = error
            call["result"] = text_result(content, error)
    if unmatched:
        extra["unmatched_results"] = unmatched
    return make_run(calls, [m for m, _ in messages], tokens.to_dict(), extra)
