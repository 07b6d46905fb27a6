"""OpenAI Agents SDK traces (the objects its tracing exports) -> cassette v1.

The SDK hands each trace and span to its processors, whose ``export()`` gives
``{"object": "trace", "id", "workflow_name", "group_id", "metadata"}`` and
``{"object": "trace.span", "id", "trace_id", "parent_id", "started_at", "ended_at",
"span_data": {"type": ...}, "error"}``. The file may be JSONL of those (what a processor that
writes them as they come gives), a JSON array, or the batch the SDK posts, ``{"data": [...]}``.

Each trace is one run, in order of first appearance; its ``workflow_name``, ``group_id`` and id
go to the run's ``meta``. Calls are the ``function`` spans, in order of start: ``name``,
``input`` (JSON text of the arguments), ``output``; ``mcp_data.server`` names the MCP server of a
tool that came from one; a span with an ``error`` is a failed call (its message kept as
``error_message``), and so is one whose output has a failure's shape. A call's ``turn`` is the
number of model spans (``generation`` / ``response``) started before it, less one. Tokens are the
model spans' ``usage``, summed; ``meta.model`` is the model a ``generation`` span names. A
``generation`` span carries the chat messages it sent and got: the last one's are the
conversation's turns. Traces name the tools (``mcp_tools``, ``agent`` spans) but do not define
them: there is no catalog (give ``--tools``).
"""

from __future__ import annotations

import json
from typing import Optional

from ..formats.cassette import Cassette
from ..engine.trace import Run, Tokens
from .common import Loc, Source, looks_like_error, make_cassette, make_run, read_usage, set_arguments, text_result

KIND = "openai-agents"
MODEL_SPANS = ("generation", "response")
_USAGE = (("input_tokens",), ("output_tokens",), ("total_tokens",))


def import_openai_agents(path: str, text: str) -> Cassette:
    """Read exported Agents SDK traces and spans (JSONL, a JSON array or ``{"data": [...]}``)."""
    src = Source(path, text)
    traces: dict = {}
    for record, loc in _records(src):
        src.need_dict(record, loc, "an exported trace or span")
        kind = record.get("object")
        if kind == "trace":
            trace_id = src.need_name(record.get("id"), loc / "id", "a trace's 'id'")
            _trace(traces, trace_id)["record"] = record
        elif kind == "trace.span" or "span_data" in record:
            trace_id = src.need_name(record.get("trace_id"), loc / "trace_id", "a span's 'trace_id'")
            src.need_dict(record.get("span_data"), loc / "span_data", "a span's 'span_data'")
            _trace(traces, trace_id)["spans"].append((record, loc))
        else:
            raise src.fail(loc / "object", f"expected 'object' trace or trace.span, found {record.get('object')!r}")
    if not traces:
        raise src.fail(Loc(), "no traces or spans found: expected what the Agents SDK's tracing exports")
    return make_cassette(KIND, path, [_run(src, trace_id, t) for trace_id, t in traces.items()])


def _records(src: Source) -> list:
    shape, found = src.records()
    if shape == "jsonl":
        return found
    doc, loc = found[0]
    if isinstance(doc, dict) and isinstance(doc.get("data"), list):
        doc, loc = doc["data"], loc / "data"
    elif isinstance(doc, dict):
        return [(doc, loc)]
    src.need_list(doc, loc, "the document")
    return [(v, loc / i) for i, v in enumerate(doc)]


def _trace(traces: dict, trace_id: str) -> dict:
    return traces.setdefault(trace_id, {"record": None, "spans": []})


def _run(src: Source, trace_id: str, trace: dict) -> Run:
    spans = sorted(trace["spans"], key=lambda s: _start(s[0]))
    calls: list = []
    tokens = Tokens()
    meta: dict = {"trace_id": trace_id}
    record = trace["record"]
    if record is not None:
        for key in ("workflow_name", "group_id"):
            if isinstance(record.get(key), str):
                meta[key] = record[key]
    turns: list = []
    model_spans = 0
    for span, loc in spans:
        data = span["span_data"]
        kind = data.get("type")
        if kind in MODEL_SPANS:
            model_spans += 1
            tokens += read_usage(src, data.get("usage"), loc / "span_data" / "usage", *_USAGE)
            if isinstance(data.get("model"), str):
                meta.setdefault("model", data["model"])
            if isinstance(data.get("input"), list) and isinstance(data.get("output"), list):
                turns = list(data["input"]) + list(data["output"])
        elif kind == "function":
            calls.append(_call(src, span, data, loc, model_spans - 1))
    return make_run(calls, turns, tokens, {"meta": meta})


def _start(span: dict) -> str:
    started = span.get("started_at")
    return started if isinstance(started, str) else ""


def _call(src: Source, span: dict, data: dict, loc: Loc, turn: int) -> dict:
    dloc = loc / "span_data"
    call: dict = {"name": src.need_name(data.get("name"), dloc / "name", "a function span's 'name'")}
    if isinstance(span.get("id"), str):
        call["id"] = span["id"]
    mcp = data.get("mcp_data")
    if isinstance(mcp, dict) and isinstance(mcp.get("server"), str):
        call["server"] = mcp["server"]
    if data.get("input") is not None:
        set_arguments(call, data["input"])
    output = data.get("output")
    error = span.get("error")
    if error is not None:
        src.need_dict(error, loc / "error", "a span's 'error'")
    failed = error is not None or (isinstance(output, str) and looks_like_error(output))
    call["error"] = failed
    call["turn"] = max(turn, 0)
    if output is not None:
        call["result"] = text_result(output if isinstance(output, str) else json.dumps(output), failed)
    message = _error_message(error)
    if message is not None:
        call["error_message"] = message
    return call


def _error_message(error: Optional[dict]) -> Optional[str]:
    """The error's message, with its ``data.error`` detail when it gives one."""
    if error is None:
        return None
    message = error.get("message")
    detail = error.get("data", {}).get("error") if isinstance(error.get("data"), dict) else None
    parts = [p for p in (message, detail) if isinstance(p, str) and p]
    return ": ".join(parts) or None
