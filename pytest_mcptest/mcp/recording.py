"""One recorded MCP session read back from a cassette, for ``mcptest serve`` and ``verify``.

A run recorded by ``mcptest record`` keeps every message (``messages``); each request of
the host is paired here with the server's answer, in the order the host sent them. A run
without messages (recorded before they were kept, or imported from a log) still plays:
its ``tools/list`` is the cassette's catalog and each tool call is a ``tools/call``.
The file is read by the cassette reader, so a malformed cassette is the same clear message
(file and JSON pointer) here as everywhere else.
"""

from __future__ import annotations

from typing import Any, Optional

import attrs

from ..engine.trace import Run
from ..errors import InputError

# What the handshake and the transport say; they are not answers a server is held to.
HANDSHAKE = frozenset({"initialize", "server/discover", "ping"})


@attrs.frozen
class Exchange:
    """A host request and the server's answer (``answer`` holds ``result`` or ``error``;
    None when the server never answered)."""

    index: int              # 0-based among the host's requests of the run
    method: str
    params: dict
    request: dict
    answer: Optional[dict]
    notes: tuple = ()       # what the server sent while it worked on the request (progress, logging)


@attrs.frozen
class Recording:
    path: str
    run: int                # 1-based
    runs: int
    server_info: dict
    protocol_version: Optional[str]
    initialize: Optional[dict]      # the recorded initialize result, when there is one
    exchanges: tuple
    host_answers: tuple             # (method, the host's answer) to each server request, in order
    tools: list
    sent: tuple = ()                # what the host sent, requests and notifications, in order
    redaction_key_id: Optional[str] = None  # the key that hid the run's secrets, when it hid any

    def of(self, method: str) -> list:
        return [e for e in self.exchanges if e.method == method]


def params_of(message: dict) -> dict:
    params = message.get("params")
    return {k: v for k, v in params.items() if k != "_meta"} if isinstance(params, dict) else {}


def load_recording(path: str, run: Optional[int] = None, shown: Optional[str] = None) -> Recording:
    """The session of run ``run`` (1-based; default the last) of the cassette at ``path``.

    Raises :class:`InputError` for a file that is not a cassette, a run that is not there,
    or a run with nothing to play."""
    from ..formats.cassette import parse_cassette
    from ..formats.files import read_or_map

    shown = shown or path
    try:
        data = read_or_map(path, shown)
    except FileNotFoundError:
        raise InputError(shown, "no such cassette") from None
    except IsADirectoryError:
        raise InputError(shown, "is a folder, not a cassette") from None
    cassette = parse_cassette(shown, data)
    runs = cassette.runs
    if not runs:
        raise InputError(shown, "holds no recorded run to play", pointer="/runs")
    number = len(runs) if run is None else run
    if not 1 <= number <= len(runs):
        raise InputError(shown, f"has {len(runs)} run(s); --run {run} is not one of them (runs count from 1)",
                         pointer="/runs")
    chosen = runs[number - 1]
    meta = chosen.meta or {}
    if chosen.messages:
        return _from_messages(shown, number, len(runs), chosen.messages, meta, cassette.catalog)
    return _from_calls(shown, number, len(runs), chosen, meta, cassette.catalog)


def _from_messages(shown: str, number: int, runs: int, messages: list, meta: dict, catalog: dict) -> Recording:
    host_requests: dict = {}     # id -> index in exchanges (while unanswered)
    server_requests: dict = {}   # id -> method
    exchanges: list = []
    answers: list = []
    host_answers: list = []
    notes: dict = {}             # index -> notifications the server sent meanwhile
    sent: list = []
    for entry in messages:
        message, side = entry.message, entry.sender
        method, request_id = message.get("method"), message.get("id")
        if side == "host" and isinstance(method, str):
            sent.append(message)
        if side == "host":
            if isinstance(method, str) and request_id is not None:
                host_requests[_key(request_id)] = len(exchanges)
                exchanges.append([method, params_of(message), message])
                answers.append(None)
            elif method is None and _key(request_id) in server_requests:
                host_answers.append((server_requests.pop(_key(request_id)), message))
        elif isinstance(method, str):
            if request_id is not None:
                server_requests[_key(request_id)] = method
            else:
                for index in host_requests.values():  # progress and logging while requests are open
                    notes.setdefault(index, []).append(message)
        elif _key(request_id) in host_requests:
            answers[host_requests.pop(_key(request_id))] = message
    result = [Exchange(i, m, p, r, answers[i], tuple(notes.get(i, ()))) for i, (m, p, r) in enumerate(exchanges)]
    init = next((e.answer.get("result") for e in result if e.method == "initialize" and e.answer
                 and isinstance(e.answer.get("result"), dict)), None)
    info = (init or {}).get("serverInfo") if init else None
    if not isinstance(info, dict):
        info = _discovered(result) or {"name": meta.get("server") or "mcptest-serve"}
    tools = _listed_tools(result)
    if tools is None:
        tools = _catalog_tools(catalog, meta)
    return Recording(shown, number, runs, info, meta.get("protocol_version"), init, tuple(result), tuple(host_answers),
                     tools, tuple(sent), meta.get("redaction_key_id"))


def _key(request_id: Any) -> Any:
    return ("s", request_id) if isinstance(request_id, str) else ("n", request_id)


def _discovered(exchanges: list) -> Optional[dict]:
    for e in exchanges:
        if e.method == "server/discover" and e.answer and isinstance(e.answer.get("result"), dict):
            meta = e.answer["result"].get("_meta") or {}
            info = meta.get("io.modelcontextprotocol/serverInfo")
            if isinstance(info, dict):
                return info
    return None


def _listed_tools(exchanges: list) -> Optional[list]:
    """The tools of the last complete ``tools/list`` answer (its pages joined)."""
    tools, pages = None, None
    for e in exchanges:
        if e.method != "tools/list" or not e.answer or not isinstance(e.answer.get("result"), dict):
            continue
        result = e.answer["result"]
        if not e.params.get("cursor") or pages is None:
            pages = []
        pages.extend(t for t in result.get("tools") or () if isinstance(t, dict))
        if not result.get("nextCursor"):
            tools, pages = pages, None
    return tools


def _catalog_tools(catalog: dict, meta: dict) -> list:
    entry = catalog.get(meta.get("server")) if meta.get("server") in catalog else next(iter(catalog.values()), None)
    tools = entry.get("tools") if isinstance(entry, dict) else None
    return [t for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []


def _from_calls(shown: str, number: int, runs: int, chosen: Run, meta: dict, catalog: dict) -> Recording:
    """A run without messages: its tool calls as ``tools/call`` exchanges."""
    exchanges = []
    for i, call in enumerate(chosen.tool_calls):
        args = call.args
        params = {"name": call.name, "arguments": args if isinstance(args, dict) else {}}
        request = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": params}
        if call.unanswered:
            answer = None
        elif isinstance(call.rpc_error, dict):
            answer = {"jsonrpc": "2.0", "id": i + 1, "error": call.rpc_error}
        else:
            result = call.result
            if not isinstance(result, dict):
                text = result if isinstance(result, str) else ("" if result is None else _json(result))
                result = {"content": [{"type": "text", "text": text}], "isError": bool(call.error)}
            answer = {"jsonrpc": "2.0", "id": i + 1, "result": result}
        exchanges.append(Exchange(i, "tools/call", params, request, answer))
    server = meta.get("server") or (next(iter(catalog)) if len(catalog) == 1 else None) or "mcptest-serve"
    handshake = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "mcptest verify", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    return Recording(shown, number, runs, {"name": server}, meta.get("protocol_version"), None, tuple(exchanges), (),
                     _catalog_tools(catalog, meta), tuple(handshake + [e.request for e in exchanges]),
                     meta.get("redaction_key_id"))


def _json(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)
