"""Structural comparison of two JSON answers, and the path syntax that says what to ignore.

Shared by ``mcptest serve`` (which recorded call matches a request, and what differs from
the closest) and ``mcptest verify`` (which answers of a new server build changed).

Paths are dotted keys with list indexes, rooted at the JSON-RPC answer:
``result.content[0].text.datetime``, written as ``expect:`` paths are (``engine/paths.py``);
``[*]`` stands for any index and ``*`` for any key; ``["a.b"]`` names a key that holds a dot.
A string whose text is a JSON object or array (the usual way a tool answers with data) is
compared as that JSON, and a path goes on into it (``text.datetime`` above). Numbers are
compared as numbers (``1`` equals ``1.0``, never ``true``). Ignoring a path ignores
everything under it.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Optional

from ..engine.paths import ANY, format_path, parse_path
from ..engine.values import ABSENT, is_number


def ignore_path(text: str) -> tuple:
    """A path to ignore, ``result.content[*].text``: the one path grammar (``engine/paths.py``,
    as ``expect:`` reads it) with its wildcards; a bad one is a :class:`PathError`."""
    return parse_path(text, wildcards=True)


def show_path(parts: Iterable) -> str:
    """Where a difference lies, as the path grammar writes it (the root, said in words)."""
    return format_path(tuple(parts)) or "(the whole answer)"


def _ignored(path: tuple, patterns: list) -> bool:
    for pattern in patterns:
        if len(pattern) <= len(path) and all(p is ANY or p == q for p, q in zip(pattern, path)):
            return True
    return False


def _as_json(value: Any) -> Any:
    """A string holding a JSON object or array, as that JSON; anything else as it is."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or nested past what Python reads
            return value
    return value


def differences(recorded: Any, got: Any, ignore: Optional[list] = None, limit: int = 20,
                path: tuple = ()) -> list[tuple[str, Any, Any]]:
    """Where ``got`` differs from ``recorded``: ``(path, recorded value, got value)`` each, at
    most ``limit`` of them, in document order; ``ABSENT`` stands for a missing key or item.
    ``ignore`` holds parsed paths (:func:`ignore_path`)."""
    return compare(recorded, got, ignore, limit, path)[0]


def compare(recorded: Any, got: Any, ignore: Optional[list] = None, limit: int = 20,
            path: tuple = ()) -> tuple[list[tuple[str, Any, Any]], int]:
    """:func:`differences`, and how many values the two share (leaves equal at the same path,
    counted until ``limit`` differences are found): ``mcptest serve`` ranks the recorded
    requests by both to name the closest to one that matches none."""
    out: list = []
    agreeing = _walk(recorded, got, list(ignore or ()), path, out, limit)
    return out, agreeing


# Deeper than this, two values are compared whole: a string argument may hold JSON nested
# hundreds deep, and walking it would exhaust the stack of the server comparing it.
MAX_DEPTH = 64


def _walk(a: Any, b: Any, ignore: list, path: tuple, out: list, limit: int) -> int:
    """Append the differences under ``path`` to ``out``; the number of equal leaves."""
    if len(out) >= limit or (ignore and _ignored(path, ignore)):
        return 0
    a, b = _as_json(a), _as_json(b)
    if len(path) < MAX_DEPTH and isinstance(a, dict) and isinstance(b, dict):
        return sum(_walk(a.get(key, ABSENT), b.get(key, ABSENT), ignore, path + (key,), out, limit)
                   for key in list(a) + [k for k in b if k not in a])
    if len(path) < MAX_DEPTH and isinstance(a, list) and isinstance(b, list):
        return sum(_walk(a[i] if i < len(a) else ABSENT, b[i] if i < len(b) else ABSENT, ignore, path + (i,), out,
                         limit) for i in range(max(len(a), len(b))))
    if a is ABSENT and b is ABSENT:
        return 0
    if _same_leaf(a, b):
        return 1
    out.append((show_path(path), a, b))
    return 0


def _same_leaf(a: Any, b: Any) -> bool:
    if is_number(a) and is_number(b):
        return a == b
    try:
        return type(a) is type(b) and a == b
    except RecursionError:  # nested past what Python compares: not shown to be the same
        return False


def equal(recorded: Any, got: Any, ignore: Optional[list] = None) -> bool:
    return not differences(recorded, got, ignore, limit=1)


def brief(value: Any, width: int = 60) -> str:
    """A value as one short line of JSON, for messages."""
    if value is ABSENT:
        return "<absent>"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= width else text[:width - 3] + "..."
