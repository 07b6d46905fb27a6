"""OpenAI Responses API logs (``input`` / ``output`` items) -> cassette v1.

The file may hold a Response object (what ``client.responses.create`` returns), a request body
(``input``), a logged exchange ``{"request": ..., "response": ...}`` (or one object with both
``input`` and ``output``), a list or JSONL of those, or a bare list of items (a conversation
kept as items, ``{"data": [...]}`` as ``input_items.list`` answers).

Exchanges that continue one another are one run: a request whose ``previous_response_id``
names an earlier response of the run, or whose ``input`` repeats items of the run (the same
item ``id`` or ``call_id``: a client that sends the whole history each time). Of a repeated
history only the items after the last one already seen are new. Anything else starts a new run.

Items become calls:

- ``function_call`` (``call_id``, ``name``, ``arguments`` as JSON text) and
  ``custom_tool_call`` (``input`` text, kept as ``{"input": ...}``), answered by the
  ``*_output`` item with the same ``call_id``;
- ``mcp_call`` (a remote MCP server's tool run by OpenAI): ``server_label`` is the call's
  ``server``, ``output`` its result, ``error`` (or ``status: failed``) a failed call;
- the built-in tools' items (``web_search_call``, ``file_search_call``,
  ``code_interpreter_call``, ...): named after their type (``web_search``), with their
  ``action`` (or ``queries``, ``code``) as arguments and ``status: failed`` as an error.

``mcp_list_tools`` items are the catalog of their ``server_label``; function tools in the
request's (or the response's) ``tools`` are the catalog of server ``default``. A call's ``turn``
is the index of the model response that made it. Tokens are the responses' ``usage``
(``input_tokens``, ``output_tokens``, ``total_tokens``), summed; the run's ``meta.model`` is the
model that answered. The items are kept verbatim as the conversation's turns (``instructions``
as a first ``system`` turn), so a run's final response is its last assistant message.
"""

from __future__ import annotations

import json
from typing import Optional

from ..formats.cassette import Cassette
from ..engine.trace import Run, Tokens, message_text
from ..engine.values import type_name
from .common import (Catalog, Loc, Pending, Source, looks_like_error, make_cassette, make_run, read_usage,
                     set_arguments, text_result)

KIND = "openai-responses"
_USAGE = (("input_tokens",), ("output_tokens",), ("total_tokens",))
# items the caller sends back to the model; every other item is the model's
_CALLER_ITEMS = ("function_call_output", "custom_tool_call_output", "computer_call_output",
                 "local_shell_call_output", "shell_call_output", "apply_patch_call_output",
                 "mcp_approval_response")


def import_openai_responses(path: str, text: str) -> Cassette:
    """Read an OpenAI Responses API log (JSON or JSONL) and return a cassette."""
    src = Source(path, text)
    importer = _Importer(src)
    for request, response, items in _exchanges(src, src.records()):
        importer.exchange(request, response, items)
    return make_cassette(KIND, path, [run.finish() for run in importer.runs],
                         [importer.functions, *importer.servers.values()])


def _is_item(value) -> bool:
    return isinstance(value, dict) and not any(k in value for k in ("input", "output", "request", "response")) \
        and ("type" in value or "role" in value)


def _exchanges(src: Source, records) -> list:
    """``[(request, response, None), ...]``, each part ``(object, Loc)`` or ``None``; a bare item
    list is one request, ``(None, None, [(item, Loc), ...])``."""
    shape, found = records
    if shape == "json":
        doc, loc = found[0]
        if isinstance(doc, dict) and isinstance(doc.get("data"), list) and "object" in doc:
            doc, loc = doc["data"], loc / "data"
        if isinstance(doc, dict):
            return [_exchange(src, doc, loc)]
        src.need_list(doc, loc, "the document")
        elements = [(v, loc / i) for i, v in enumerate(doc)]
    else:
        elements = found
    if elements and all(_is_item(v) for v, _ in elements):
        return [(None, None, elements)]
    return [_exchange(src, v, loc) for v, loc in elements]


def _exchange(src: Source, obj, loc: Loc) -> tuple:
    src.need_dict(obj, loc, "a response, a request or an exchange")
    if "request" in obj or "response" in obj:
        parts = []
        for key in ("request", "response"):
            part = obj.get(key)
            if part is not None:
                src.need_dict(part, loc / key, f"'{key}'")
            parts.append(None if part is None else (part, loc / key))
        return parts[0], parts[1], None
    if "input" not in obj and "output" not in obj:
        raise src.fail(loc, "expected a Responses API request ('input'), response ('output') or exchange "
                       "('request' and 'response')")
    return ((obj, loc) if "input" in obj else None), ((obj, loc) if "output" in obj else None), None


class _Run:
    """What one run has gathered so far."""

    def __init__(self):
        self.calls: list = []
        self.turns: list = []
        self.pending = Pending()
        self.unmatched: list = []
        self.tokens = Tokens()
        self.seen: set = set()          # item ids and call ids met in this run
        self.responses: set = set()     # the ids of its responses
        self.turn = -1
        self.model_side = False         # the last item was the model's
        self.meta: dict = {}

    def finish(self) -> Run:
        extra: dict = {}
        if self.unmatched:
            extra["unmatched_results"] = self.unmatched
        if self.meta:
            extra["meta"] = self.meta
        return make_run(self.calls, self.turns, self.tokens, extra)


class _Importer:
    def __init__(self, src: Source):
        self.src = src
        self.runs: list[_Run] = []
        self.functions = Catalog()
        self.servers: dict[str, Catalog] = {}

    def exchange(self, request: Optional[tuple], response: Optional[tuple], items: Optional[list]) -> None:
        """Add one request and its response (each ``(object, Loc)`` or ``None``), or a bare list
        of ``items``."""
        src = self.src
        if items is None:
            items = self._input(*request) if request is not None else []
        req = request[0] if request is not None else {} if response is None else None
        previous = (req or {}).get("previous_response_id") or (response[0] if response else {}).get(
            "previous_response_id")
        run = self.runs[-1] if self.runs and self._continues(self.runs[-1], previous, items) else None
        if run is None:
            run = _Run()
            self.runs.append(run)
            instructions = (req or (response or ({},))[0]).get("instructions")
            if isinstance(instructions, str) and instructions.strip():
                run.turns.append({"role": "system", "content": instructions})
        else:
            items = _new_items(run, items)
        for part in (request, response):
            if part is not None:
                self._tools(part[0].get("tools"), part[1] / "tools")
        for item, iloc in items:
            self._item(run, item, iloc)
        answered = response or request  # the model that answered, else the one asked for
        if answered is not None and isinstance(answered[0].get("model"), str):
            run.meta.setdefault("model", answered[0]["model"])
        if response is None:
            return
        body, loc = response
        if isinstance(body.get("id"), str):
            run.responses.add(body["id"])
        run.tokens += read_usage(src, body.get("usage"), loc / "usage", *_USAGE)
        output = src.need_list(body.get("output", []), loc / "output", "'output'")
        run.model_side = False  # each response is one turn of the model
        for i, item in enumerate(output):
            self._item(run, item, loc / "output" / i)

    def _input(self, request: dict, loc: Loc) -> list:
        value = request.get("input")
        if value is None:
            return []
        if isinstance(value, str):
            return [({"role": "user", "content": value}, loc / "input")]
        self.src.need_list(value, loc / "input", "'input'")
        return [(item, loc / "input" / i) for i, item in enumerate(value)]

    @staticmethod
    def _continues(run: _Run, previous, items: list) -> bool:
        """Whether an exchange continues ``run``: it names a response of the run as its previous
        one, or its input repeats an item of the run."""
        if previous is not None and previous in run.responses:
            return True
        return any(_ids(item) & run.seen for item, _ in items if isinstance(item, dict))

    def _tools(self, tools, loc: Loc) -> None:
        if tools is None:
            return
        self.src.need_list(tools, loc, "'tools'")
        for i, tool in enumerate(tools):
            if isinstance(tool, dict) and tool.get("type", "function") == "function":
                self.functions.add_one(self.src, tool, loc / i)

    def _item(self, run: _Run, item, loc: Loc) -> None:
        src = self.src
        src.need_dict(item, loc, "an item")
        kind = item.get("type")
        if kind is not None and not isinstance(kind, str):
            raise src.fail(loc / "type", f"an item's 'type' must be a string, found {type_name(kind)}")
        if kind is None and "role" not in item:
            raise src.fail(loc, "an item needs 'type' (or, for a message, 'role')")
        run.turns.append(item)
        run.seen |= _ids(item)
        model_side = kind not in _CALLER_ITEMS and (kind not in (None, "message") or item.get("role") == "assistant")
        if model_side and not run.model_side:
            run.turn += 1
        run.model_side = model_side
        if kind == "mcp_list_tools":
            self._server_tools(item, loc)
        elif kind == "mcp_call":
            self._mcp_call(run, item, loc)
        elif kind is not None and kind.endswith("_call"):
            self._call(run, item, loc, kind)
        elif kind is not None and kind.endswith("_call_output"):
            self._output(run, item, loc)

    def _server_tools(self, item: dict, loc: Loc) -> None:
        src = self.src
        server = src.need_name(item.get("server_label"), loc / "server_label", "an mcp_list_tools' 'server_label'")
        tools = src.need_list(item.get("tools", []), loc / "tools", "'tools'")
        mcp_shaped = []
        for i, tool in enumerate(tools):
            src.need_dict(tool, loc / "tools" / i, "a tool definition")
            mcp_shaped.append({("inputSchema" if k == "input_schema" else k): v for k, v in tool.items()})
        self.servers.setdefault(server, Catalog(server)).add_verbatim(src, mcp_shaped, loc / "tools")

    def _mcp_call(self, run: _Run, item: dict, loc: Loc) -> None:
        src = self.src
        call: dict = {"name": src.need_name(item.get("name"), loc / "name", "an mcp_call's 'name'")}
        if isinstance(item.get("id"), str):
            call["id"] = item["id"]
        call["server"] = src.need_name(item.get("server_label"), loc / "server_label", "an mcp_call's 'server_label'")
        if item.get("arguments") is not None:
            set_arguments(call, item["arguments"])
        error = src.opt_str(item.get("error"), loc / "error", "an mcp_call's 'error'") \
            if not isinstance(item.get("error"), dict) else json.dumps(item["error"], ensure_ascii=False)
        failed = error is not None or item.get("status") == "failed"
        output = item.get("output")
        call["error"] = failed
        call["turn"] = run.turn
        if output is not None or error is not None:
            call["result"] = text_result(output if output is not None else error, failed)
        if output is not None and error is not None:
            call["error_message"] = error
        run.calls.append(call)

    def _call(self, run: _Run, item: dict, loc: Loc, kind: str) -> None:
        src = self.src
        name = item.get("name") if kind in ("function_call", "custom_tool_call") else kind[: -len("_call")]
        call: dict = {"name": src.need_name(name, loc / "name", f"a {kind}'s 'name'")}
        call_id = item.get("call_id", item.get("id"))
        if isinstance(call_id, str):
            call["id"] = call_id
        if "arguments" in item:
            set_arguments(call, item["arguments"])
        elif kind == "custom_tool_call" and "input" in item:
            call["args"] = {"input": item["input"]}
        elif isinstance(item.get("action"), dict):
            call["args"] = item["action"]
        else:
            found = {k: item[k] for k in ("queries", "code", "prompt") if item.get(k) is not None}
            if found:
                call["args"] = found
        call["error"] = item.get("status") == "failed"
        call["turn"] = run.turn
        inline = next((item[k] for k in ("results", "outputs", "result") if item.get(k) is not None), None)
        if inline is not None:
            call["result"] = text_result(inline if isinstance(inline, str) else json.dumps(inline, ensure_ascii=False),
                                         call["error"])
        run.calls.append(call)
        run.pending.add(call)

    def _output(self, run: _Run, item: dict, loc: Loc) -> None:
        src = self.src
        call_id = src.opt_str(item.get("call_id"), loc / "call_id", "an output's 'call_id'")
        call = run.pending.take(call_id, None)
        if call is None:
            run.unmatched.append(call_id or "?")
            return
        output = item.get("output")
        error = item.get("status") == "failed" or looks_like_error(message_text(output))
        call["error"] = error
        call["result"] = text_result(output, error)


def _ids(item: dict) -> set:
    """The ids by which a repeated history shows an item: its ``id`` and, for a call or an
    output, its ``call_id`` (tagged, so an output is not taken for its call)."""
    out = set()
    if isinstance(item.get("id"), str):
        out.add(("id", item["id"]))
    if isinstance(item.get("call_id"), str):
        kind = item.get("type") or ""
        out.add(("output" if kind.endswith("_output") else "call", item["call_id"]))
    return out


def _new_items(run: _Run, items: list) -> list:
    """Of a request that repeats the run's history, the items after the last one already seen."""
    last = -1
    for i, (item, _loc) in enumerate(items):
        if isinstance(item, dict) and _ids(item) & run.seen:
            last = i
    return items[last + 1:]
