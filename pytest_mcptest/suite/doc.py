"""What every gate's builder shares: one document being built, where its errors point,
and the parts every block has (name, line, marks, tags, cassette, ``expect:``).

The gates (``gates/<kind>.py``) build their blocks with these; :mod:`.build` reads a
file, validates each document and hands each block's YAML to its gate.
"""

from __future__ import annotations

import difflib
import os
from typing import Any, Callable

from ..engine.paths import PathError, format_path, parse_path
from ..errors import InputError
from ..engine.expect import ExpectSyntaxError, compile_expectation
from .yamlcore import LineList, line_of
from .marks import build_marks
from .model import Mark


_UNBUILT = object()


class Doc:
    """One document being built: its file, its text and its YAML root, where errors point."""

    def __init__(self, path: str, source: str, root: Any, warnings: list | None = None):
        self.path, self.source, self.root = path, source, root
        self.warnings = [] if warnings is None else warnings  # (line, message): kept with the built suite
        self._built: dict[tuple, Any] = {}  # (builder, value key) -> what it built

    def built_once(self, build: Callable[["Doc", list, Any], Any], parts: list, raw: Any) -> Any:
        """``build(self, parts, raw)``, or what it gave for an earlier ``raw`` of the same
        value (:func:`value_key`).

        Scenarios repeat their rules (the same transitions and forbidden rules, copied into
        each, or through a YAML alias): a file of 100 builds each list once, and its blocks
        hold the same objects, which the suite cache then pickles once (one pickle for the
        file). Keyed by the parsed value, not by where or how it was read, so whichever
        reader read the file (the fast one or libyaml) the sharing is the same. A builder
        given to it must make the same thing of the same value wherever it stands (no line
        of ``parts`` kept in what it builds). A build that raised or warned is not
        remembered, so every copy says so at its own line."""
        key = (build, value_key(raw))
        built = self._built.get(key, _UNBUILT)
        if built is _UNBUILT:
            warned = len(self.warnings)
            built = build(self, parts, raw)
            if len(self.warnings) == warned:
                self._built[key] = built
        return built

    def warn(self, parts, message: str) -> None:
        """Something legal but likely a mistake: said as a pytest warning at its line, on every
        collection (it is kept in the built suite, so the cache does not swallow it)."""
        self.warnings.append((line_of(self.root, parts) or 1, message))

    def error(self, parts, message: str) -> InputError:
        return InputError(self.path, message, line=line_of(self.root, parts), source=self.source)

    def line(self, parts) -> int | None:
        return line_of(self.root, parts)


def value_key(raw: Any) -> str:
    """A key equal for two values read from YAML exactly when they are the same JSON value
    of the same types, keys in the same order: their ``repr`` (a suite holds only dicts,
    lists, strings, numbers, booleans and None, whose ``repr`` tells each apart, ``0`` from
    ``0.0`` and ``false``; made in C, one string to hash)."""
    return repr(raw)


def path_at(doc: Doc, parts, text: Any):
    """A dotted path written in the suite, parsed; a bad one is an error at its line."""
    try:
        return parse_path(text)
    except PathError as exc:
        raise doc.error(parts, f"bad path {text!r}: {exc}") from None


def expectations(doc: Doc, parts, raw) -> tuple:
    """An ``expect:`` list, compiled, each entry remembering its line."""
    out = []
    lines = raw.item_lines if isinstance(raw, LineList) else None  # read where the loader kept them
    for i, entry in enumerate(raw or ()):
        try:
            out.append(compile_expectation(entry, line=lines[i] if lines else line_of(doc.root, parts + [i])))
        except ExpectSyntaxError as exc:
            raise doc.error(parts + [i], f"{format_path(parts + [i])}: {exc}") from None
    return tuple(out)


def defaults(entries, line: int | None) -> tuple:
    """A gate's default ``expect:``, compiled at the line of the block."""
    return tuple(compile_expectation(e, line=line) for e in entries)


def marks(doc: Doc, parts, raw: dict) -> tuple[tuple[Mark, ...], tuple[str, ...]]:
    """Marks and tags, checked and built by :mod:`.marks` (no string is ever run as code)."""
    return build_marks(raw, lambda sub, message: doc.error(parts + sub, message))


def common(doc: Doc, parts, raw: dict, kind: str, name: str | None = None) -> dict:
    """The fields every block has, as keyword arguments of its class."""
    marks_, tags = marks(doc, parts, raw)
    return dict(kind=kind, name=name or raw["name"], file=doc.path, line=line_of(doc.root, parts) or 1,
                marks=marks_, tags=tags, cassette=raw.get("cassette"),
                expect=expectations(doc, parts + ["expect"], raw.get("expect")))


def plain(value: Any) -> Any:
    """Loader containers back to plain dicts and lists, for the engine and the report."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def near(word: str, names) -> str:
    """``; did you mean 'x'?`` when one of ``names`` is close to ``word``, else nothing."""
    close = difflib.get_close_matches(str(word), [str(n) for n in names], n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def suite_path(doc: Doc, path: str) -> str:
    """A path written in a suite, relative to the suite's folder."""
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(doc.path)), path))


def golden(raw: Any):
    """A ``golden:`` block (scenarios and agent tests both take one) as the engine's oracle."""
    from ..engine.golden import GoldenOracle, GoldenPath

    if raw is None:
        return None
    return GoldenOracle(
        path=GoldenPath(calls=tuple(raw["calls"]), allow_extra_steps=raw.get("allow_extra_steps", False),
                        penalize_backtracking=raw.get("penalize_backtracking", True),
                        penalize_repeated_tools=raw.get("penalize_repeated_tools", True)),
        alternates=tuple(tuple(a) for a in raw.get("alternates") or ()),
    )
