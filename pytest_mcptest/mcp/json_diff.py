"""Structural comparison of two JSON answers, and the path syntax that says what to ignore.

Shared by ``mcptest serve`` (which recorded call matches a request, and what differs from
the closest) and ``mcptest verify`` (which answers of a new server build changed).

Paths are dotted keys with list indexes, rooted at the JSON-RPC answer:
``result.content[0].text.datetime``. ``[*]`` stands for any index and ``*`` for any key;
``["a.b"]`` names a key that holds a dot. A string whose text is a JSON object or array
(the usual way a tool answers with data) is compared as that JSON, and a path goes on into
it (``text.datetime`` above). Numbers are compared as numbers (``1`` equals ``1.0``, never
``true``). Ignoring a path ignores everything under it.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Optional

from ..engine.values import is_number

ANY = object()  # the wildcard segment: any key (``*``) or any index (``[*]``)
_TOKEN = re.compile(r'\.?([^.\[\]"]+)|\[(\d+|\*)\]|\["((?:[^"\\]|\\.)*)"\]')


class _Absent:
    """A key or list item one side does not have."""

    def __repr__(self) -> str:
        return "<absent>"


ABSENT = _Absent()


class PathError(ValueError):
    """An ignore path that is not one (the message says where and what)."""


def parse_path(text: str) -> tuple:
    """``result.content[0].text`` -> ``("result", "content", 0, "text")``; PathError if bad."""
    if not isinstance(text, str) or not text.strip():
        raise PathError(f"{text!r}: an empty path; write it like result.content[0].text.datetime")
    parts: list = []
    at = 0
    while at < len(text):
        found = _TOKEN.match(text, at)
        if found is None or (found.group(1) is not None and text[at] == "." and at == 0):
            raise PathError(f"{text!r}: cannot read the path at character {at + 1} ({text[at:at + 12]!r}); "
                            f"write keys with dots and indexes in brackets, like result.content[0].text.datetime")
        key, index, quoted = found.groups()
        if key is not None:
            parts.append(ANY if key == "*" else key)
        elif index is not None:
            parts.append(ANY if index == "*" else int(index))
        else:
            parts.append(json.loads(f'"{quoted}"'))
        at = found.end()
    return tuple(parts)


def show_path(parts: Iterable) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and re.fullmatch(r"[^.\[\]\"]+", part) and part != "*":
            out += ("." if out else "") + part
        else:
            out += "[" + json.dumps(part) + "]"
    return out or "(the whole answer)"


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
        except ValueError:
            return value
    return value


def differences(recorded: Any, got: Any, ignore: Optional[list] = None, limit: int = 20,
                path: tuple = ()) -> list[tuple[str, Any, Any]]:
    """Where ``got`` differs from ``recorded``: ``(path, recorded value, got value)`` each, at
    most ``limit`` of them, in document order; ``ABSENT`` stands for a missing key or item.
    ``ignore`` holds parsed paths (:func:`parse_path`)."""
    out: list = []
    _walk(recorded, got, list(ignore or ()), path, out, limit)
    return out


def _walk(a: Any, b: Any, ignore: list, path: tuple, out: list, limit: int) -> None:
    if len(out) >= limit or (ignore and _ignored(path, ignore)):
        return
    a, b = _as_json(a), _as_json(b)
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            _walk(a.get(key, ABSENT), b.get(key, ABSENT), ignore, path + (key,), out, limit)
        return
    if isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            _walk(a[i] if i < len(a) else ABSENT, b[i] if i < len(b) else ABSENT, ignore, path + (i,), out, limit)
        return
    if is_number(a) and is_number(b):
        same = a == b
    else:
        same = type(a) is type(b) and a == b
    if not same and not (a is ABSENT and b is ABSENT):
        out.append((show_path(path), a, b))


def equal(recorded: Any, got: Any, ignore: Optional[list] = None) -> bool:
    return not differences(recorded, got, ignore, limit=1)


def brief(value: Any, width: int = 60) -> str:
    """A value as one short line of JSON, for messages."""
    if value is ABSENT:
        return "<absent>"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= width else text[:width - 3] + "..."
