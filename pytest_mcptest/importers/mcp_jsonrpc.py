"""Recordings of the MCP wire itself (JSON-RPC between a client and a server) -> cassette v1.

Two recorders write them, each in its own envelope:

- ``mcp-cassette`` (the Python package): one JSON object with ``format_version`` and
  ``messages``, each ``{sender: client|server, kind, payload: <JSON-RPC message>}``; the npm
  package of the same name writes JSONL instead, a ``header`` line then one ``frame`` line per
  message, ``{type: frame, dir: c2s|s2c, frame: <JSON-RPC message>}``;
- ``mcp-recorder``: one JSON object with ``interactions``, each a ``request`` and its
  ``response`` already paired.

Either way a ``tools/call`` request is a call (``params.name``, ``params.arguments``) and the
response with its id is its result: a ``CallToolResult`` kept as the server sent it (its
``isError`` is the call's error), or a JSON-RPC ``error``, kept as the result's text with the
call marked failed. The ``tools/list`` answers are the catalog, kept whole, under the name the
server gave in ``initialize`` (``serverInfo.name``), which each call carries as its ``server``.
A recording of the protocol has no model in it: no turns, no tokens, and calls carry no
``turn``. Other requests (``resources/read``, ``prompts/get``, ...) are not tool calls and are
left out. One file is one run.
"""

from __future__ import annotations

from ..formats.cassette import Cassette
from ..engine.values import type_name
from .common import Catalog, Loc, Source, make_cassette, make_run, text_result

KIND_CASSETTE = "mcp-cassette"
KIND_RECORDER = "mcp-recorder"


def import_mcp_cassette(path: str, text: str) -> Cassette:
    """Read an mcp-cassette recording (the Python package's JSON or the npm package's JSONL)."""
    src = Source(path, text)
    shape, records = src.records()
    frames: list = []
    meta: dict = {}
    if shape == "jsonl":
        for record, loc in records:
            src.need_dict(record, loc, "a cassette line")
            kind = record.get("type")
            if kind == "header":
                _keep(meta, "recorded_at", record.get("startedAt"))
            elif kind == "frame":
                sender = {"c2s": "client", "s2c": "server"}.get(record.get("dir"))
                if sender is None:
                    raise src.fail(loc / "dir", f"a frame's 'dir' must be c2s or s2c, found {record.get('dir')!r}")
                frames.append((src.need_dict(record.get("frame"), loc / "frame", "a frame's 'frame'"),
                               loc / "frame", sender))
    else:
        doc, loc = records[0]
        src.need_dict(doc, loc, "an mcp-cassette recording")
        if "messages" not in doc:
            raise src.fail(loc, "expected an mcp-cassette recording: an object with 'messages' "
                           "(or JSONL of 'header' and 'frame' lines)")
        _keep(meta, "recorded_at", doc.get("recorded_at"))
        messages = src.need_list(doc["messages"], loc / "messages", "'messages'")
        for i, message in enumerate(messages):
            here = loc / "messages" / i
            src.need_dict(message, here, "a message")
            sender = message.get("sender")
            if sender not in ("client", "server"):
                raise src.fail(here / "sender", f"a message's 'sender' must be client or server, found {sender!r}")
            frames.append((src.need_dict(message.get("payload"), here / "payload", "a message's 'payload'"),
                           here / "payload", sender))
    return _cassette(KIND_CASSETTE, src, frames, meta)


def import_mcp_recorder(path: str, text: str) -> Cassette:
    """Read an mcp-recorder cassette (``interactions`` of paired requests and responses)."""
    src = Source(path, text)
    _shape, records = src.records()
    doc, loc = records[0]
    src.need_dict(doc, loc, "an mcp-recorder cassette")
    if "interactions" not in doc:
        raise src.fail(loc, "expected an mcp-recorder cassette: an object with 'interactions'")
    meta: dict = {}
    metadata = doc.get("metadata")
    if isinstance(metadata, dict):
        _keep(meta, "recorded_at", metadata.get("recorded_at"))
    frames: list = []
    interactions = src.need_list(doc["interactions"], loc / "interactions", "'interactions'")
    for i, interaction in enumerate(interactions):
        here = loc / "interactions" / i
        src.need_dict(interaction, here, "an interaction")
        for key, sender in (("request", "client"), ("response", "server")):
            if interaction.get(key) is not None:
                frames.append((src.need_dict(interaction[key], here / key, f"an interaction's '{key}'"),
                               here / key, sender))
    return _cassette(KIND_RECORDER, src, frames, meta)


def _keep(meta: dict, key: str, value) -> None:
    if isinstance(value, str):
        meta[key] = value


def _cassette(kind: str, src: Source, frames: list, meta: dict) -> Cassette:
    """One run from the JSON-RPC ``frames`` (``[(message, Loc, sender), ...]``, in the order sent)."""
    server = _server_name(frames)
    catalog = Catalog(server)
    calls: list = []
    asked: dict = {}  # the client's open requests by id: (method, the call it made or None)
    unmatched: list = []
    for message, loc, sender in frames:
        if "method" in message:
            method = message["method"]
            if not isinstance(method, str):
                raise src.fail(loc / "method", f"'method' must be a string, found {type_name(method)}")
            if sender != "client" or "id" not in message:
                continue  # a notification, or the server asking the client (sampling, elicitation)
            call = None
            if method == "tools/call":
                params = src.need_dict(message.get("params"), loc / "params", "a tools/call's 'params'")
                call = {"name": src.need_name(params.get("name"), loc / "params" / "name", "the tool's 'name'"),
                        "server": server}
                if "arguments" in params:
                    call["args"] = params["arguments"]
                call["error"] = False
                calls.append(call)
            asked[_key(message["id"])] = (method, call)
        elif "id" in message and sender == "server":
            method, call = asked.pop(_key(message["id"]), (None, None))
            if method is None:
                unmatched.append(message["id"])
            elif method == "tools/list" and isinstance(message.get("result"), dict):
                catalog.add_verbatim(src, message["result"].get("tools", []), loc / "result" / "tools")
            elif call is not None:
                _answer(src, call, message, loc)
    extra: dict = {"unmatched_results": unmatched} if unmatched else {}
    return make_cassette(kind, src.path, [make_run(calls, [], None, extra)], catalog, meta)


def _key(request_id) -> str:
    """JSON-RPC ids compare by value and type: ``1`` and ``"1"`` are two requests."""
    return f"{type(request_id).__name__}:{request_id}"


def _answer(src: Source, call: dict, message: dict, loc: Loc) -> None:
    if message.get("error") is not None:
        error = src.need_dict(message["error"], loc / "error", "a JSON-RPC 'error'")
        text = error.get("message")
        call["error"] = True
        call["result"] = text_result(text if isinstance(text, str) else str(error), True)
        return
    result = src.need_dict(message.get("result"), loc / "result", "a tools/call's 'result'")
    is_error = result.get("isError")
    if is_error is not None and not isinstance(is_error, bool):
        raise src.fail(loc / "result" / "isError", f"'isError' must be true or false, found {type_name(is_error)}")
    call["error"] = bool(is_error)
    call["result"] = result


def _server_name(frames: list) -> str:
    """The name the server gave itself in its ``initialize`` answer, else ``default``."""
    for message, _loc, sender in frames:
        result = message.get("result")
        if sender == "server" and isinstance(result, dict) and isinstance(result.get("serverInfo"), dict):
            name = result["serverInfo"].get("name")
            if isinstance(name, str) and name.strip():
                return name
    return Catalog.SERVER
