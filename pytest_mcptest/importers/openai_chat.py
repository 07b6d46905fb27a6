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

from ..formats.cassette import Cassette
from ..engine.trace import Run, Tokens, message_text
from ..engine.paths import json_pointer
from .common import (Catalog, Loc, Pending, Source, chat_runs, looks_like_error, make_cassette, make_run, read_usage,
                     run_fields, set_arguments, text_result)

KIND = "openai-chat"
RUN_KEYS = ("messages", "traj")
_USAGE = (("prompt_tokens", "input_tokens"), ("completion_tokens", "output_tokens"), ("total_tokens",))


def import_openai_chat(path: str, text: str) -> Cassette:
    """Read an OpenAI chat log (JSON or JSONL) and return a cassette."""
    return import_messages(KIND, path, text, RUN_KEYS)


def import_messages(kind: str, path: str, text: str, run_keys: tuple, run_tokens=None, finish=None) -> Cassette:
    """Import OpenAI-shaped message lists found as :func:`chat_runs` finds them (runs under
    ``run_keys``); ``run_tokens(src, obj, loc)`` is the :class:`Tokens` a run object reports elsewhere,
    and ``finish(src, obj, loc, run)`` returns a run completed from what the messages do not say."""
    src = Source(path, text)
    catalog = Catalog()
    runs = []
    for messages, obj, loc in chat_runs(src, src.records(), run_keys):
        extra = run_fields(obj, run_keys + ("usage", "tools"))
        if obj is not None:
            catalog.add_all(src, obj.get("tools"), loc / "tools")
        run = _run(src, messages, obj, loc, extra, run_tokens)
        if finish is not None:
            run = finish(src, obj, loc, run)
        runs.append(run)
    return make_cassette(kind, path, runs, catalog)


def _call(src: Source, name, arguments, call_id, turn: int, name_loc: Loc) -> dict:
    call: dict = {"name": src.need_name(name, name_loc, "a tool call's name")}
    if call_id is not None:
        call["id"] = call_id
    if arguments is not None:
        set_arguments(call, arguments)
    call["error"] = False
    call["turn"] = turn
    return call


def _marked_error(msg: dict) -> bool:
    return (msg.get("is_error") is True or msg.get("isError") is True or msg.get("error") is True
            or msg.get("status") == "error")


def _answered_ids(src: Source, msg: dict, mloc: Loc) -> list:
    """The call ids a tool message answers: its ``tool_call_id``, or SWE-agent's
    ``tool_call_ids`` list (every call listed gets the one observation); ``[None]`` when none."""
    ids = msg.get("tool_call_ids")
    if ids is None:
        return [src.opt_str(msg.get("tool_call_id"), mloc / "tool_call_id", "'tool_call_id'")]
    src.need_list(ids, mloc / "tool_call_ids", "'tool_call_ids'")
    return [src.opt_str(v, mloc / "tool_call_ids" / i, "a 'tool_call_ids' entry") for i, v in enumerate(ids)] or [None]


def _run(src: Source, messages: list, obj: Optional[dict], loc: Loc, extra: dict, run_tokens) -> Run:
    calls: list[dict] = []
    pending = Pending()
    unmatched: list = []
    tokens = Tokens()
    if obj is not None:
        tokens += read_usage(src, obj.get("usage"), loc / "usage", *_USAGE)
        if run_tokens is not None:
            tokens += run_tokens(src, obj, loc)
    assistant = -1
    for msg, mloc in messages:
        src.need_dict(msg, mloc, "a message")
        if msg.get("is_demo") is True:
            continue  # SWE-agent: a demonstration shown to the model, not something it did
        role = src.need_name(msg.get("role"), mloc / "role", "a message's 'role'")
        tokens += read_usage(src, msg.get("usage"), mloc / "usage", *_USAGE)
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
            name = src.opt_str(msg.get("name"), mloc / "name", "a tool message's 'name'")
            content = msg.get("content")
            error = _marked_error(msg) or looks_like_error(message_text(content))
            for call_id in _answered_ids(src, msg, mloc):
                call = pending.take(call_id, name)
                if call is None:
                    unmatched.append(call_id or name or json_pointer(mloc.parts))
                    continue
                call["error"] = error
                call["result"] = text_result(content, error)
    if unmatched:
        extra["unmatched_results"] = unmatched
    return make_run(calls, [m for m, _ in messages], tokens, extra)
