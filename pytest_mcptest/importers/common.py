"""What the importers share: reading JSON or JSONL with positions, and writing a cassette.

A position in the source is a :class:`Loc`: the line of a JSONL record (or ``None`` for
a plain JSON document) and the JSON pointer parts inside that value. Every structural
complaint is raised as :class:`~pytest_mcptest.errors.InputError` through
:meth:`Source.fail`, so a user sees ``file:line (at /pointer): message``.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Iterator, Optional

from ..cassette import CASSETTE_VERSION, _finite_float, _refuse_constant
from ..engine.values import is_number, type_name
from ..errors import InputError, json_pointer


class Loc:
    """Where a value sits: a JSONL line (or ``None``) and the pointer parts below it."""

    __slots__ = ("line", "parts")

    def __init__(self, line: Optional[int] = None, parts: tuple = ()):
        self.line = line
        self.parts = parts

    def __truediv__(self, key) -> "Loc":
        return Loc(self.line, self.parts + (key,))

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Loc({self.line}, {json_pointer(self.parts)!r})"


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

    def _loads(self, text: str):
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)

    def records(self) -> tuple[str, list[tuple[Any, Loc]]]:
        """The file as ``("json", [(document, Loc())])`` or ``("jsonl", [(record, Loc(line)), ...])``.

        A file is JSONL when it is not one JSON document but its first line is one.
        """
        text = self.text
        if not text.strip():
            raise InputError(self.path, "the file is empty: expected JSON or JSONL")
        try:
            return "json", [(self._loads(text), Loc())]
        except json.JSONDecodeError as exc:
            if exc.msg != "Extra data" or not self._first_line_is_json():
                raise InputError(self.path, f"invalid JSON: {exc.msg} (column {exc.colno})",
                                 line=exc.lineno, source=text) from None
        except ValueError as exc:
            raise InputError(self.path, f"invalid JSON: {exc}") from None
        except RecursionError:
            raise InputError(self.path, "invalid JSON: nested too deeply to read") from None
        return "jsonl", list(self._jsonl())

    def _first_line_is_json(self) -> bool:
        for line in self.text.split("\n"):
            if line.strip():
                try:
                    self._loads(line)
                except (ValueError, RecursionError):
                    return False
                return True
        return False  # pragma: no cover - an all-blank file is refused earlier

    def _jsonl(self) -> Iterator[tuple[Any, Loc]]:
        for number, line in enumerate(self.text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                yield self._loads(line), Loc(number)
            except json.JSONDecodeError as exc:
                raise InputError(self.path, f"invalid JSON on line {number} of JSONL: {exc.msg} "
                                 f"(column {exc.colno})", line=number, source=self.text) from None
            except ValueError as exc:
                raise InputError(self.path, f"invalid JSON on line {number} of JSONL: {exc}",
                                 line=number, source=self.text) from None
            except RecursionError:
                raise InputError(self.path, f"invalid JSON on line {number} of JSONL: nested too deeply",
                                 line=number, source=self.text) from None


# -- pieces of a cassette ---------------------------------------------------------------


def parse_arguments(raw) -> tuple[Any, bool]:
    """Tool-call arguments given as JSON text: ``(value, False)``, or ``({"_raw": text}, True)``
    when the text is not valid JSON (kept, never dropped). Non-text values pass through."""
    if not isinstance(raw, str):
        return raw, False
    try:
        return json.loads(raw, parse_constant=_refuse_constant, parse_float=_finite_float), False
    except (ValueError, RecursionError):
        return {"_raw": raw}, True


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


ERROR_TEXT = re.compile(r"^\s*Error\b")


def looks_like_error(text: str) -> bool:
    """A tool result whose text starts with the word ``Error`` (``Error: ...``, ``Error 404``)."""
    return bool(ERROR_TEXT.match(text))


class Tokens:
    """Token usage summed over the places a log reports it; absent stays absent."""

    def __init__(self):
        self.input: Optional[float] = None
        self.output: Optional[float] = None
        self.total: Optional[float] = None

    @staticmethod
    def _add(a, b):
        return b if a is None else a + b

    def add(self, src: Source, usage, loc: Loc, inputs: tuple, outputs: tuple, totals: tuple) -> None:
        """Add one ``usage`` object; ``inputs`` (etc.) are the key names summed into each field."""
        if usage is None:
            return
        src.need_dict(usage, loc, "'usage'")
        found = {}
        for field, names in (("input", inputs), ("output", outputs), ("total", totals)):
            value = None
            for name in names:
                got = usage.get(name)
                if got is None:
                    continue
                if not is_number(got):
                    raise src.fail(loc / name, f"'{name}' must be a number, found {type_name(got)}")
                value = self._add(value, got)
            found[field] = value
        if found["total"] is None and found["input"] is not None and found["output"] is not None:
            found["total"] = found["input"] + found["output"]
        for field, value in found.items():
            if value is not None:
                setattr(self, field, self._add(getattr(self, field), value))

    def to_dict(self) -> Optional[dict]:
        out = {k: v for k, v in (("input", self.input), ("output", self.output), ("total", self.total))
               if v is not None}
        return out or None


def make_run(calls: list, turns: list, tokens: Optional[dict], extra: Optional[dict] = None) -> dict:
    conversation: dict = {"turns": turns}
    if tokens:
        conversation["tokens"] = tokens
    run: dict = {"tool_calls": calls, "conversation": conversation}
    if extra:
        run.update(extra)
    return run


def make_cassette(kind: str, path: str, runs: list) -> dict:
    return {"mcptest_cassette": CASSETTE_VERSION,
            "meta": {"recorder": f"mcptest import {kind}", "source": os.path.basename(path)},
            "runs": runs}


def scalars(obj: dict, skip: tuple) -> dict:
    """The scalar fields of a run object (ids, rewards, trial numbers), kept for reference."""
    return {k: v for k, v in obj.items()
            if k not in skip and (v is None or isinstance(v, (str, bool, int, float)))}


# -- summing up -------------------------------------------------------------


def summary(data: dict) -> dict:
    """Counts over an imported cassette: runs, calls, errors, missing results, flagged arguments."""
    runs = data.get("runs", [])
    calls = [c for r in runs for c in r.get("tool_calls", [])]
    return {
        "runs": len(runs),
        "calls": len(calls),
        "errors": sum(1 for c in calls if c.get("error")),
        "without_result": sum(1 for c in calls if "result" not in c),
        "invalid_json_args": sum(1 for c in calls if c.get("args_invalid_json")),
        "unmatched_results": sum(len(r.get("unmatched_results", ())) for r in runs),
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
