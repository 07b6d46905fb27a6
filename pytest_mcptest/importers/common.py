"""What the importers share: reading JSON or JSONL with positions, and building a cassette.

A position in the source is a :class:`Loc`: the line of a JSONL record (or ``None`` for
a plain JSON document) and the JSON pointer parts inside that value. Every structural
complaint is raised as :class:`~pytest_mcptest.errors.InputError` through
:meth:`Source.fail`, so a user sees ``file:line (at /pointer): message``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from typing import Any, Iterator, Optional

from ..formats.cassette import Cassette
from ..engine.trace import Run, Tokens, ToolCall
from ..engine.values import is_number, type_name
from ..engine.paths import json_pointer
from ..errors import InputError
from ..formats.files import strict_decoder, strict_json


class Loc:
    """Where a value sits: a JSONL line (or ``None``) and the pointer parts below it.

    A child holds its parent and its key, not a copy of the parts: an import makes one for
    every field it reads (2.4 million for a 43 MB log) and needs the parts only to name the
    place of a problem."""

    __slots__ = ("line", "_up", "_key")

    def __init__(self, line: Optional[int] = None):
        self.line = line
        self._up: Optional[Loc] = None
        self._key = None

    def __truediv__(self, key) -> "Loc":
        child = _new_loc(Loc)
        child.line, child._up, child._key = self.line, self, key
        return child

    @property
    def parts(self) -> tuple:
        keys, loc = [], self
        while loc._up is not None:
            keys.append(loc._key)
            loc = loc._up
        return tuple(reversed(keys))

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Loc({self.line}, {json_pointer(self.parts)!r})"


_new_loc = object.__new__


# The files read inside parse_once(), by path: (text, records).
_parsed: Optional[dict[str, tuple[str, tuple]]] = None


@contextlib.contextmanager
def parse_once():
    """Within this block a file's JSON is parsed once, however often :meth:`Source.records`
    is asked (``mcptest import auto`` guesses the kind, then imports: a 43 MB log was parsed
    twice); the parses are let go when the block ends."""
    global _parsed
    _parsed = {}
    try:
        yield
    finally:
        _parsed = None


class Source:
    """One input file: its name, its text, and how to complain about a place in it."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text[1:] if text.startswith("\ufeff") else text

    def fail(self, loc: Loc, message: str) -> InputError:
        pointer = json_pointer(loc.parts) if (loc.parts or loc.line is None) else None
        return InputError(self.path, message, line=loc.line, pointer=pointer,
                          source=self.text if loc.line is not None else None)

    # -- typed accessors that name the place on failure --------------------------------

    def need_dict(self, value, loc: Loc, what: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(loc, f"{what} must be an object, found {type_name(value)}")
        return value

    def need_list(self, value, loc: Loc, what: str) -> list:
        if not isinstance(value, list):
            raise self.fail(loc, f"{what} must be an array, found {type_name(value)}")
        return value

    def need_name(self, value, loc: Loc, what: str) -> str:
        if value is None:
            raise self.fail(loc, f"{what} is missing")
        if not isinstance(value, str):
            raise self.fail(loc, f"{what} must be a string, found {type_name(value)}")
        if not value.strip():
            raise self.fail(loc, f"{what} must not be empty")
        return value

    def opt_str(self, value, loc: Loc, what: str) -> Optional[str]:
        if value is not None and not isinstance(value, str):
            raise self.fail(loc, f"{what} must be a string, found {type_name(value)}")
        return value

    # -- reading ----------------------------------------------------------------------

    def records(self) -> tuple[str, list[tuple[Any, Loc]]]:
        """The file as ``("json", [(document, Loc())])`` or ``("jsonl", [(record, Loc(line)), ...])``.

        A file is JSONL when it is not one JSON document but its first line is one. A line
        that does not parse is named by number and column, never quoted: the file may not
        be a log at all.
        """
        if _parsed is None:
            return self._records()
        hit = _parsed.get(self.path)
        if hit is None or hit[0] != self.text:
            hit = _parsed[self.path] = (self.text, self._records())
        return hit[1]

    def _records(self) -> tuple[str, list[tuple[Any, Loc]]]:
        text = self.text
        if not text.strip():
            raise InputError(self.path, "the file is empty: expected JSON or JSONL")
        try:
            return "json", [(strict_json(text), Loc())]
        except json.JSONDecodeError as exc:
            if exc.msg != "Extra data" or not self._first_line_is_json():
                raise InputError(self.path, f"invalid JSON: {exc.msg} (column {exc.colno})",
                                 line=exc.lineno) from None
        except ValueError as exc:
            raise InputError(self.path, f"invalid JSON: {exc}") from None
        return "jsonl", list(self._jsonl())

    def _first_line_is_json(self) -> bool:
        for line in self.text.split("\n"):
            if line.strip():
                try:
                    strict_json(line)
                except ValueError:
                    return False
                return True
        return False  # pragma: no cover - an all-blank file is refused earlier

    def _jsonl(self) -> Iterator[tuple[Any, Loc]]:
        for number, line in enumerate(self.text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                yield strict_json(line), Loc(number)
            except json.JSONDecodeError as exc:
                raise InputError(self.path, f"invalid JSON on line {number} of JSONL: {exc.msg} "
                                 f"(column {exc.colno})", line=number) from None
            except ValueError as exc:
                raise InputError(self.path, f"invalid JSON on line {number} of JSONL: {exc}",
                                 line=number) from None


# -- pieces of a cassette ---------------------------------------------------------------


def parse_arguments(raw) -> tuple[Any, bool]:
    """Tool-call arguments given as JSON text: ``(value, False)``, or ``({"_raw": text}, True)``
    when the text is not valid JSON (kept, never dropped). Non-text values pass through."""
    if not isinstance(raw, str):
        return raw, False
    try:
        return strict_json(raw), False
    except ValueError:
        return {"_raw": raw}, True


def set_arguments(call: dict, raw) -> None:
    """Store a call's arguments: parsed, or kept as text and flagged ``args_invalid_json``."""
    args, invalid = parse_arguments(raw)
    call["args"] = args
    if invalid:
        call["args_invalid_json"] = True


def text_result(content, error: bool = False) -> dict:
    """A tool's answer in MCP ``CallToolResult`` shape: ``{"content": [blocks]}``."""
    if content is None:
        blocks: list = []
    elif isinstance(content, str):
        blocks = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        blocks = [b if isinstance(b, dict) else {"type": "text", "text": b if isinstance(b, str) else
                                                 json.dumps(b, ensure_ascii=False)} for b in content]
    elif isinstance(content, dict):
        blocks = [content]
    else:
        blocks = [{"type": "text", "text": json.dumps(content, ensure_ascii=False)}]
    out: dict = {"content": blocks}
    if error:
        out["isError"] = True
    return out


# The shapes in which frameworks hand a failed tool call back to the model as plain text.
ERROR_SHAPES = (
    # the word Error first: ``Error: ...``, ``Error 404``, the MCP SDK's ``Error executing tool ...``
    re.compile(r"^\s*Error\b"),
    # pydantic-ai's RetryPromptPart (ModelRetry, argument validation, unknown tool)
    re.compile(r"Fix the errors and try again\.\s*$"),
    # a pydantic ValidationError's text (``1 validation error for Args``), and pydantic-ai's
    # retry wording of one (``2 validation errors:``)
    re.compile(r"^\s*\d+ validation errors?( for \S+|:)"),
    # the OpenAI Agents SDK's default tool failure text
    re.compile(r"^\s*An error occurred while running the tool\."),
)


def looks_like_error(text: str) -> bool:
    """A tool result whose text has one of :data:`ERROR_SHAPES`: a failure reported as text."""
    return any(shape.search(text) for shape in ERROR_SHAPES)


def read_usage(src: Source, usage, loc: Loc, inputs: tuple, outputs: tuple, totals: tuple) -> Tokens:
    """The :class:`Tokens` one ``usage`` object of a log reports (none present when it is
    absent); ``inputs`` (etc.) are the key names summed into each part. A run's tokens are
    the sum (``+``) of its usage objects: a part no object reported stays absent."""
    if usage is None:
        return Tokens()
    src.need_dict(usage, loc, "'usage'")
    found = []
    for names in (inputs, outputs, totals):
        value = None
        for name in names:
            got = usage.get(name)
            if got is None:
                continue
            if not is_number(got):
                raise src.fail(loc / name, f"'{name}' must be a number, found {type_name(got)}")
            value = got if value is None else value + got
        found.append(value)
    tokens = Tokens(*found)
    if tokens.total is None and tokens.input is not None and tokens.output is not None:
        return Tokens.of(tokens.input, tokens.output)
    return tokens


def make_run(calls: list, turns: list, tokens: Optional[Tokens], extra: Optional[dict] = None) -> Run:
    """A :class:`Run` of the calls an importer gathered (each the keyword arguments of a
    :class:`ToolCall`: a key the format does not know is a TypeError, not a silent extra);
    ``tokens`` with no part present are absent; ``extra`` holds other fields of the run
    (``task``, ``trial``, ``meta``, ``unmatched_results``)."""
    return Run(tool_calls=tuple([ToolCall(**call) for call in calls]), turns=tuple(turns), tokens=tokens or None,
               **(extra or {}))


def make_cassette(kind: str, path: str, runs: list, tools=None, meta: Optional[dict] = None) -> Cassette:
    """A cassette of ``runs``; ``tools`` is a :class:`Catalog` or a list of them (one per server),
    ``meta`` what the log says of itself (model, time of recording), added to the cassette's."""
    about: dict = {"recorder": f"mcptest import {kind}", "source": os.path.basename(path)}
    if meta:
        about.update(meta)
    catalogs = tools if isinstance(tools, (list, tuple)) else [] if tools is None else [tools]
    merged: dict = {}
    for catalog in catalogs:
        if catalog.tools:
            merged.update(catalog.to_dict())
    return Cassette(runs=tuple(runs), meta=about, catalog=merged)


def scalars(obj: dict, skip: tuple) -> dict:
    """The scalar fields of a run object (ids, rewards, trial numbers), kept for reference."""
    return {k: v for k, v in obj.items()
            if k not in skip and (v is None or isinstance(v, (str, bool, int, float)))}


TASK_KEYS = ("task_id", "task")
TRIAL_KEYS = ("trial",)


def run_fields(obj: Optional[dict], skip: tuple) -> dict:
    """What a run object says about its run, as run fields: ``task`` and ``trial`` (tau-bench's
    ``task_id`` / ``trial``) and every scalar under ``meta`` (``meta.reward`` for a per-run gate)."""
    if obj is None:
        return {}
    kept = scalars(obj, skip)
    out: dict = {}
    for field, keys in (("task", TASK_KEYS), ("trial", TRIAL_KEYS)):
        value = next((kept[k] for k in keys if kept.get(k) is not None), None)
        if value is not None:
            out[field] = value
    if kept:
        out["meta"] = kept
    return out


class Catalog:
    """The tool definitions a log carries, gathered into the cassette's ``catalog`` in MCP shape
    (``name``, ``description``, ``inputSchema``) under one server, ``default``. The first
    definition of a name wins; the order is the order of first appearance."""

    SERVER = "default"

    def __init__(self, server: str = SERVER):
        self.server = server
        self.tools: dict[str, dict] = {}

    def add_verbatim(self, src: Source, tools, loc: Loc) -> None:
        """Add a ``tools/list`` answer's tools as the server wrote them (``title``,
        ``outputSchema``, ``annotations`` kept); the first definition of a name wins."""
        src.need_list(tools, loc, "'tools'")
        for i, entry in enumerate(tools):
            src.need_dict(entry, loc / i, "a tool definition")
            name = src.need_name(entry.get("name"), loc / i / "name", "a tool definition's 'name'")
            self.tools.setdefault(name, entry)

    def add_all(self, src: Source, tools, loc: Loc) -> None:
        """Add a ``tools`` array: OpenAI chat (``{type: function, function: {name, description,
        parameters}}``), OpenAI responses / GenAI semconv (``{type: function, name, parameters}``),
        Anthropic (``{name, description, input_schema}``) or MCP (``inputSchema``) entries."""
        if tools is None:
            return
        src.need_list(tools, loc, "'tools'")
        for i, entry in enumerate(tools):
            self.add_one(src, entry, loc / i)

    def add_one(self, src: Source, entry, here: Loc) -> None:
        """Add one tool definition, in any shape :meth:`add_all` reads."""
        src.need_dict(entry, here, "a tool definition")
        if isinstance(entry.get("function"), dict):
            entry, here = entry["function"], here / "function"
        name = src.need_name(entry.get("name"), here / "name", "a tool definition's 'name'")
        if name in self.tools:
            return
        tool: dict = {"name": name}
        description = entry.get("description")
        if description is not None:
            tool["description"] = src.opt_str(description, here / "description", "a tool's 'description'")
        for key in ("inputSchema", "input_schema", "parameters"):
            if entry.get(key) is not None:
                tool["inputSchema"] = src.need_dict(entry[key], here / key, f"a tool's '{key}'")
                break
        self.tools[name] = tool

    def to_dict(self) -> dict:
        return {self.server: {"tools": list(self.tools.values())}}


def catalog_file(path: str, text: str) -> dict:
    """A cassette ``catalog`` from a file of tool definitions kept apart from the log (tau-bench's
    tools file): a ``tools`` array in any shape :meth:`Catalog.add_all` reads, or an object with
    ``tools`` (a saved ``tools/list`` answer)."""
    src = Source(path, text)
    _shape, found = src.records()
    doc, loc = found[0]
    if isinstance(doc, dict):
        if "tools" not in doc:
            raise src.fail(loc, "expected a tools array or an object with 'tools'")
        doc, loc = doc["tools"], loc / "tools"
    catalog = Catalog()
    catalog.add_all(src, doc, loc)
    if not catalog.tools:
        raise src.fail(loc, "no tool definitions found")
    return catalog.to_dict()


def concatenated_records(src: Source) -> list[tuple[Any, Loc]]:
    """JSON values written one after another with no separator or array around them, as the
    OpenTelemetry SDK's ``ConsoleSpanExporter`` prints spans: ``[(value, Loc(line)), ...]``
    with the line each value starts on."""
    decoder = strict_decoder()
    text, out, at = src.text, [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return out
        line = text.count("\n", 0, at) + 1
        try:
            value, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            raise InputError(src.path, f"invalid JSON in the object starting on line {line}: {exc.msg} "
                             f"(column {exc.colno})", line=exc.lineno) from None
        except (ValueError, RecursionError) as exc:
            raise InputError(src.path, f"invalid JSON in the object starting on line {line}: {exc}",
                             line=line) from None
        out.append((value, Loc(line)))


def any_records(src: Source) -> tuple[str, list[tuple[Any, Loc]]]:
    """:meth:`Source.records`, or else, when the file starts with one whole JSON object spread over
    several lines and followed by more, its :func:`concatenated_records` (shape ``"jsonl"``: one
    value per starting line). JSONL keeps JSONL's errors."""
    try:
        return src.records()
    except InputError:
        if src._first_line_is_json() or not _starts_with_an_object(src.text):
            raise
    return "jsonl", concatenated_records(src)


def _starts_with_an_object(text: str) -> bool:
    body = text.lstrip()
    if not body.startswith("{"):
        return False
    try:
        json.JSONDecoder().raw_decode(body)
    except (ValueError, RecursionError):
        return False
    return True


# -- summing up -------------------------------------------------------------


def summary(cassette: Cassette) -> dict:
    """Counts over an imported cassette: runs, calls, errors, missing results, flagged arguments."""
    runs = cassette.runs
    calls = [c for r in runs for c in r.tool_calls]
    return {
        "runs": len(runs),
        "calls": len(calls),
        "errors": sum(1 for c in calls if c.error),
        "without_result": sum(1 for c in calls if c.result is None),
        "invalid_json_args": sum(1 for c in calls if c.args_invalid_json),
        "unmatched_results": sum(len(r.unmatched_results or ()) for r in runs),
    }


# -- the run shapes chat logs come in ---------------------------------------------------


def chat_runs(src: Source, records: list, run_keys: tuple = ("messages",)) -> list:
    """Split chat-log records into runs: ``[(messages, run object or None, Loc), ...]`` where
    ``messages`` is ``[(message, Loc), ...]``.

    Accepted: one message list (one run), a list of message lists, an object with one of
    ``run_keys`` (one run), a list of such objects; as JSONL, one message per line (one run)
    or one run (list or object) per line.
    """
    shape, found = records
    want = " or ".join(repr(k) for k in run_keys)
    if shape == "json":
        doc, loc = found[0]
        if isinstance(doc, dict):
            if not any(k in doc for k in run_keys):
                raise src.fail(loc, f"expected a list of messages, a list of such lists, or an object with {want}")
            return [_run_object(src, doc, loc, run_keys)]
        src.need_list(doc, loc, "the document")
        elements = [(v, loc / i) for i, v in enumerate(doc)]
        if not elements:
            return [([], None, loc)]
    else:
        elements = found
    first, first_loc = elements[0]
    if isinstance(first, list):
        runs = []
        for value, loc in elements:
            src.need_list(value, loc, "a run (a list of messages, like the first)")
            runs.append(([(m, loc / j) for j, m in enumerate(value)], None, loc))
        return runs
    if isinstance(first, dict) and "role" in first:
        whole = Loc() if shape == "json" else Loc(first_loc.line)
        return [(elements, None, whole)]
    if isinstance(first, dict) and any(k in first for k in run_keys):
        runs = []
        for value, loc in elements:
            src.need_dict(value, loc, "a run (an object with " + want + ", like the first)")
            if not any(k in value for k in run_keys):
                raise src.fail(loc, f"a run object needs {want}")
            runs.append(_run_object(src, value, loc, run_keys))
        return runs
    raise src.fail(first_loc, f"expected a message (an object with 'role'), a list of messages, or a run "
                   f"object with {want}; found {type_name(first)}")


def _run_object(src: Source, obj: dict, loc: Loc, run_keys: tuple):
    key = next(k for k in run_keys if k in obj)
    messages = src.need_list(obj[key], loc / key, f"'{key}'")
    return [(m, loc / key / j) for j, m in enumerate(messages)], obj, loc


class Pending:
    """Calls waiting for their result, answered in the order they were made."""

    def __init__(self):
        self.calls: list[dict] = []

    def add(self, call: dict) -> None:
        self.calls.append(call)

    def take(self, call_id: Optional[str], name: Optional[str]) -> Optional[dict]:
        """The earliest unanswered call with this id (ids are reused in some logs), or,
        without an id, with this name, or else the earliest unanswered one."""
        for i, call in enumerate(self.calls):
            if call_id is not None:
                ok = call.get("id") == call_id
            else:
                ok = name is None or call["name"] == name
            if ok:
                return self.calls.pop(i)
        return None
