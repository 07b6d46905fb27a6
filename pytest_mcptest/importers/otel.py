"""OpenTelemetry GenAI spans -> cassette v1.

Input: a JSON array of spans, an OTLP JSON export (``resourceSpans[].scopeSpans[].spans[]``,
or an array of exports), or JSONL with one span or one export per line. Spans may be in
OTLP JSON form (``traceId``, ``startTimeUnixNano``, attributes as ``[{key, value:
{stringValue|intValue|...}}]``, ``status.code``) or in the SDK's ``to_json`` form
(``context.trace_id``, ``start_time`` as ISO text, attributes as an object).

Each trace is one run; runs are ordered by the start of their first span. A tool call is
a span whose ``gen_ai.operation.name`` is ``execute_tool`` (or, lacking the attribute, whose
name starts with ``execute_tool ``), ordered by start time: ``gen_ai.tool.name`` (or the
span name's rest), ``gen_ai.tool.call.arguments`` (JSON text; text that does not parse is
kept as ``{"_raw": text}`` and flagged), ``gen_ai.tool.call.result``, ``gen_ai.tool.call.id``;
an error status or an ``error.type`` attribute makes it an error. A call's ``turn`` is the
0-based index of the last chat span that started before it (absent when none did).
Tokens: ``gen_ai.usage.input_tokens`` / ``output_tokens`` summed over the chat spans
(``chat``, ``text_completion``, ``generate_content``); when no chat span reports usage,
over the outermost spans that do.
"""

from __future__ import annotations

import base64
import datetime as dt
import re
from typing import Any, Optional

from ..formats.cassette import Cassette
from ..engine.trace import Run, Tokens
from ..engine.values import is_number
from .common import (Catalog, Loc, Source, any_records, looks_like_error, make_cassette, make_run, parse_arguments,
                     read_usage, set_arguments, text_result)

KIND = "otel"
CHAT_OPS = ("chat", "text_completion", "generate_content")
_USAGE = (("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
          ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"), ())
_ERROR_CODES = (2, "2", "STATUS_CODE_ERROR", "ERROR", "error", "StatusCode.ERROR")


def import_otel(path: str, text: str) -> Cassette:
    """Read OpenTelemetry GenAI spans (JSON, OTLP JSON or JSONL) and return a cassette."""
    src = Source(path, text)
    shape, records = any_records(src)
    spans: list[_Span] = []
    for value, loc in records:
        if shape == "json" and isinstance(value, list):
            for i, item in enumerate(value):
                _collect(src, item, loc / i, spans)
        elif shape == "json" and isinstance(value, dict) and _export_key(value) is None and not _spanlike(value):
            raise src.fail(loc, "expected an array of spans, an OTLP JSON export ('resourceSpans') "
                           "or JSONL with one span per line")
        else:
            _collect(src, value, loc, spans)
    if not spans:
        raise src.fail(Loc(), "no spans found")
    traces: dict[Any, list[_Span]] = {}
    for span in spans:
        traces.setdefault(span.trace, []).append(span)
    ordered = sorted(traces.values(), key=lambda group: min(s.key for s in group))
    catalog = Catalog()
    runs = [_run(src, group, catalog) for group in ordered]
    return make_cassette(KIND, path, runs, catalog)


def _export_key(value: dict) -> Optional[str]:
    """``resourceSpans`` (OTLP/JSON) or ``resource_spans`` (protobuf JSON with field names)."""
    return next((k for k in ("resourceSpans", "resource_spans") if k in value), None)


def _key(raw: dict, *names: str) -> str:
    """The first of ``names`` present in ``raw`` (camelCase or snake_case), else the first name."""
    return next((n for n in names if n in raw), names[0])


def _spanlike(value: dict) -> bool:
    return any(k in value for k in ("attributes", "name", "traceId", "trace_id", "context", "spanId"))


def _collect(src: Source, value, loc: Loc, out: list) -> None:
    """A span, or an OTLP export holding many, appended to ``out``."""
    src.need_dict(value, loc, "a span")
    export = _export_key(value)
    if export is not None:
        for i, rs in enumerate(src.need_list(value[export], loc / export, f"'{export}'")):
            rloc = loc / export / i
            src.need_dict(rs, rloc, f"a {export} entry")
            key = _key(rs, "scopeSpans", "scope_spans", "instrumentationLibrarySpans", "instrumentation_library_spans")
            for j, ss in enumerate(src.need_list(rs.get(key, []), rloc / key, f"'{key}'")):
                sloc = rloc / key / j
                src.need_dict(ss, sloc, f"a {key} entry")
                for k, raw in enumerate(src.need_list(ss.get("spans", []), sloc / "spans", "'spans'")):
                    out.append(_Span(src, raw, sloc / "spans" / k, len(out)))
        return
    out.append(_Span(src, value, loc, len(out)))


class _Span:
    def __init__(self, src: Source, raw, loc: Loc, index: int):
        src.need_dict(raw, loc, "a span")
        self.loc = loc
        context = raw.get("context") if isinstance(raw.get("context"), dict) else {}
        self.trace = _span_id(_first(raw, ("traceId", "trace_id")) or context.get("trace_id"), 16)
        self.span_id = _span_id(_first(raw, ("spanId", "span_id")) or context.get("span_id"), 8)
        self.parent = _span_id(_first(raw, ("parentSpanId", "parent_span_id", "parent_id")), 8)
        self.name = raw.get("name") if isinstance(raw.get("name"), str) else ""
        self.attrs = _attributes(src, raw.get("attributes"), loc / "attributes")
        start_key = next((k for k in ("startTimeUnixNano", "start_time_unix_nano", "start_time", "startTime")
                          if raw.get(k) is not None), None)
        start = _time(src, raw[start_key], loc / start_key) if start_key else None
        # spans without a start time keep their order in the file, after the timed ones
        self.key = (start is None, start if start is not None else 0, index)
        self.error = _status_error(raw.get("status")) or self.attrs.get("error.type") is not None
        self.status_message = _status_message(raw.get("status")) if self.error else None
        op = self.attrs.get("gen_ai.operation.name")
        self.op = op if isinstance(op, str) else None
        self.is_tool = self.op == "execute_tool" or (self.op is None and self.name.startswith("execute_tool "))

    def tokens(self, src: Source) -> Optional[Tokens]:
        """The tokens the span's attributes report; ``None`` when it reports none."""
        present = {k: v for k, v in self.attrs.items() if k in _USAGE[0] + _USAGE[1]}
        return read_usage(src, present, self.loc / "attributes", *_USAGE) if present else None


def _first(raw: dict, keys: tuple):
    for key in keys:
        if raw.get(key) is not None:
            return raw[key]
    return None


_HEX = re.compile(r"^[0-9a-fA-F]+$")


def _span_id(value, size: int) -> Optional[str]:
    """A trace or span id as written (case kept), without the SDK's ``0x`` prefix; protobuf
    JSON's base64 of the ``size`` id bytes becomes the hex OTLP/JSON writes."""
    if value is None or value == "":
        return None
    text = str(value)
    if text[:2] in ("0x", "0X"):
        return text[2:]
    if len(text) != 2 * size or not _HEX.match(text):
        try:
            raw = base64.b64decode(text, validate=True)
        except ValueError:
            return text
        if len(raw) == size:
            return raw.hex()
    return text


def _any_value(src: Source, value, loc: Loc):
    """An OTLP ``AnyValue`` (``{"stringValue": ...}``, ``{"intValue": "7"}``, ...) as plain JSON."""
    if not isinstance(value, dict):
        return value  # already plain
    if not value:
        return None
    (kind, inner), = list(value.items())[:1]
    kind = _CAMEL.get(kind, kind)
    if kind == "stringValue" or kind == "boolValue":
        return inner
    if kind == "intValue":
        try:
            return int(inner)
        except (TypeError, ValueError):
            raise src.fail(loc / kind, f"'intValue' must be an integer, found {inner!r}") from None
    if kind == "doubleValue":
        try:
            return float(inner)
        except (TypeError, ValueError):
            raise src.fail(loc / kind, f"'doubleValue' must be a number, found {inner!r}") from None
    if kind == "arrayValue":
        items = src.need_dict(inner, loc / kind, "'arrayValue'").get("values", [])
        src.need_list(items, loc / kind / "values", "'arrayValue.values'")
        return [_any_value(src, v, loc / kind / "values" / i) for i, v in enumerate(items)]
    if kind == "kvlistValue":
        items = src.need_dict(inner, loc / kind, "'kvlistValue'").get("values", [])
        return _attributes(src, items, loc / kind / "values")
    if kind == "bytesValue":
        try:
            return base64.b64decode(inner).decode("utf-8")
        except (TypeError, ValueError):
            return inner
    return value  # an object that is no AnyValue: keep it


# protobuf JSON may keep the .proto field names
_CAMEL = {"string_value": "stringValue", "bool_value": "boolValue", "int_value": "intValue",
          "double_value": "doubleValue", "array_value": "arrayValue", "kvlist_value": "kvlistValue",
          "bytes_value": "bytesValue"}


def _attributes(src: Source, raw, loc: Loc) -> dict:
    """Attributes as an object, or OTLP's ``[{key, value}]`` list, as a plain dict."""
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    src.need_list(raw, loc, "'attributes'")
    out = {}
    for i, kv in enumerate(raw):
        src.need_dict(kv, loc / i, "an attribute ({key, value})")
        key = src.need_name(kv.get("key"), loc / i / "key", "an attribute's 'key'")
        out[key] = _any_value(src, kv.get("value"), loc / i / "value")
    return out


_ISO = re.compile(r"^(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$")


def _time(src: Source, value, loc: Loc) -> int:
    """A start time as a number: nanoseconds (OTLP), any integer, or ISO 8601 text."""
    if is_number(value):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return int(text)
        match = _ISO.match(text)
        if match:
            base, frac, zone = match.groups()
            try:
                when = dt.datetime.fromisoformat(base.replace(" ", "T"))
            except ValueError:
                match = None
            else:
                if zone and zone != "Z":
                    sign = 1 if zone[0] == "+" else -1
                    digits = zone[1:].replace(":", "")
                    when -= sign * dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
                when = when.replace(tzinfo=dt.timezone.utc)
                nanos = int((frac or "0")[:9].ljust(9, "0"))
                return int(when.timestamp()) * 1_000_000_000 + nanos
    raise src.fail(loc, f"a start time must be nanoseconds or ISO 8601 text, found {value!r}")


def _status_error(status) -> bool:
    if isinstance(status, dict):
        code = status.get("code", status.get("status_code"))
        return code in _ERROR_CODES
    return status in _ERROR_CODES


def _status_message(status) -> Optional[str]:
    """An error status's text: ``message`` (OTLP) or ``description`` (the SDK's ``to_json``)."""
    if isinstance(status, dict):
        for key in ("message", "description"):
            if isinstance(status.get(key), str) and status[key].strip():
                return status[key]
    return None


# Where an attribute may be named: today's GenAI conventions first, then older pydantic-ai spans
ARGUMENT_KEYS = ("gen_ai.tool.call.arguments", "tool_arguments")
RESULT_KEYS = ("gen_ai.tool.call.result", "tool_response")
TASK_KEYS = ("mcptest.task", "task.id", "task_id")
TRIAL_KEYS = ("mcptest.trial", "trial")


def _run(src: Source, spans: list, catalog: Catalog) -> Run:
    spans = sorted(spans, key=lambda s: s.key)
    for span in spans:
        _definitions(src, span, catalog)
    calls = _span_calls(src, spans)
    if not calls:
        calls = _message_calls(src, spans)
    reported = [t for t in (s.tokens(src) for s in spans if s.op in CHAT_OPS) if t is not None]
    if not reported:
        with_usage = {s.span_id for s in spans if s.span_id and s.tokens(src) is not None}
        by_id = {s.span_id: s for s in spans if s.span_id}
        reported = [t for t in (s.tokens(src) for s in spans if not _has_ancestor(s, by_id, with_usage))
                    if t is not None]
    tokens = sum(reported, Tokens())
    extra: dict = {}
    for field, keys in (("task", TASK_KEYS), ("trial", TRIAL_KEYS)):
        value = next((s.attrs[k] for s in spans for k in keys if s.attrs.get(k) is not None), None)
        if value is not None:
            extra[field] = value
    if spans[0].trace:
        extra["meta"] = {"trace_id": spans[0].trace}
    return make_run(calls, [], tokens, extra)


def _first_attr(attrs: dict, keys: tuple):
    return next((k for k in keys if k in attrs), None)


def _span_calls(src: Source, spans: list) -> list:
    """Calls from ``execute_tool`` spans, in start order."""
    calls = []
    chats_started = 0
    for span in spans:
        if span.op in CHAT_OPS:
            chats_started += 1
        if not span.is_tool:
            continue
        attrs = span.attrs
        name = attrs.get("gen_ai.tool.name")
        if name is None and span.name.startswith("execute_tool "):
            name = span.name[len("execute_tool "):]
        call: dict = {"name": src.need_name(name, span.loc / "attributes",
                                            "an execute_tool span's 'gen_ai.tool.name'")}
        call_id = attrs.get("gen_ai.tool.call.id")
        if call_id is not None:
            call["id"] = call_id if isinstance(call_id, str) else str(call_id)
        key = _first_attr(attrs, ARGUMENT_KEYS)
        if key is not None:
            set_arguments(call, attrs[key])
        key = _first_attr(attrs, RESULT_KEYS)
        result = attrs[key] if key is not None else None
        error = span.error or (isinstance(result, str) and looks_like_error(result))
        call["error"] = error
        if key is not None:
            call["result"] = text_result(result, error)
            if span.status_message is not None:
                call["error_message"] = span.status_message
        elif span.status_message is not None:
            call["result"] = text_result(span.status_message, True)
        if chats_started:
            call["turn"] = chats_started - 1
        calls.append(call)
    return calls


def _message_calls(src: Source, spans: list) -> list:
    """Calls read from the chat spans' messages, for instrumentations that make no tool spans
    (``opentelemetry-instrumentation-openai-v2``): each ``tool_call`` part of a chat span's
    ``gen_ai.output.messages`` is a call of that turn; a ``tool_call_response`` part with its id
    in any later span's ``gen_ai.input.messages`` is its result."""
    calls: list[dict] = []
    by_id: dict = {}
    chats = [s for s in spans if s.op in CHAT_OPS]
    for turn, span in enumerate(chats):
        for part, ploc in _parts(src, span, "gen_ai.input.messages"):
            call = by_id.get(part.get("id"))
            if part.get("type") == "tool_call_response" and call is not None and "result" not in call:
                result = part.get("response", part.get("result"))
                text = result if isinstance(result, str) else ""
                call["error"] = looks_like_error(text)
                call["result"] = text_result(result, call["error"])
        for part, ploc in _parts(src, span, "gen_ai.output.messages"):
            if part.get("type") != "tool_call":
                continue
            call = {"name": src.need_name(part.get("name"), ploc / "name", "a tool_call part's 'name'")}
            if isinstance(part.get("id"), str):
                call["id"] = part["id"]
            if "arguments" in part:
                set_arguments(call, part["arguments"])
            call["error"] = False
            call["turn"] = turn
            calls.append(call)
            if "id" in call:
                by_id.setdefault(call["id"], call)
    return calls


def _parts(src: Source, span: "_Span", key: str) -> list:
    """``[(part, Loc), ...]`` of the messages in ``span``'s attribute ``key`` (JSON text or a list)."""
    if span.attrs.get(key) is None:
        return []
    messages, loc = _json_attribute(src, span, key, "a message list")
    src.need_list(messages, loc, f"'{key}'")
    out = []
    for i, msg in enumerate(messages):
        src.need_dict(msg, loc / i, f"a message in '{key}'")
        parts = msg.get("parts") or []
        src.need_list(parts, loc / i / "parts", "a message's 'parts'")
        for j, part in enumerate(parts):
            out.append((src.need_dict(part, loc / i / "parts" / j, "a message part"), loc / i / "parts" / j))
    return out


def _definitions(src: Source, span: "_Span", catalog: Catalog) -> None:
    """The ``gen_ai.tool.definitions`` a span carries (JSON text or a list), into the catalog."""
    if span.attrs.get("gen_ai.tool.definitions") is not None:
        catalog.add_all(src, *_json_attribute(src, span, "gen_ai.tool.definitions", "a tool list"))


def _json_attribute(src: Source, span: "_Span", key: str, what: str) -> tuple:
    """``(value, Loc)`` of an attribute holding JSON, as text (the semantic conventions) or as is."""
    loc = span.loc / "attributes" / key
    value, invalid = parse_arguments(span.attrs[key])
    if invalid:
        raise src.fail(loc, f"'{key}' must be JSON text of {what}, found text that is not JSON")
    return value, loc


def _has_ancestor(span: _Span, by_id: dict, wanted: set) -> bool:
    seen = set()
    parent = span.parent
    while parent and parent not in seen:
        if parent in wanted:
            return True
        seen.add(parent)
        nxt = by_id.get(parent)
        parent = nxt.parent if nxt else None
    return False
