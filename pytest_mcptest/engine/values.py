"""JSON value semantics shared by every gate.

Python's ``==`` says ``True == 1`` and ``1 == 1.0``; JSON says a boolean is never a
number, while ``1`` and ``1.0`` are the same number. Every comparison a user writes
in YAML goes through :func:`json_equal` so the two never get confused.
"""

from __future__ import annotations

import json
from typing import Any


def is_number(value: Any) -> bool:
    """True for ints and floats, never for booleans."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def json_equal(a: Any, b: Any) -> bool:
    """Deep equality with JSON's rules: bools are not numbers, 1 equals 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if is_number(a) and is_number(b):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if type(a) is not type(b) and not (isinstance(a, str) and isinstance(b, str)):
        return False
    return a == b


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, scalars); several times faster than
    ``copy.deepcopy``, which a replay would otherwise call for every state it hands out."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [copy_json(v) for v in value]
    return value


def json_diff(expected: Any, actual: Any, path: tuple = (), limit: int = 8) -> list[tuple[tuple, Any, Any]]:
    """Where two JSON values differ: ``(path, expected, actual)`` at the deepest level
    that still tells (a key only one side has, a list length, a scalar), at most ``limit``.
    A side that lacks a key shows :data:`ABSENT`."""
    out: list = []
    _diff(expected, actual, path, out, limit)
    return out


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


def _diff(expected, actual, path, out, limit) -> None:
    if len(out) >= limit or json_equal(expected, actual):
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in list(expected) + [k for k in actual if k not in expected]:
            _diff(expected.get(key, ABSENT), actual.get(key, ABSENT), path + (key,), out, limit)
        return
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for i, (e, a) in enumerate(zip(expected, actual)):
            _diff(e, a, path + (i,), out, limit)
        return
    out.append((path, expected, actual))


def type_name(value: Any) -> str:
    """The JSON type of a value, as messages name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def show(value: Any, limit: int = 80) -> str:
    """A compact, stable JSON rendering of a value for failure messages (``absent`` for ABSENT)."""
    if value is ABSENT:
        return "absent"
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def percent(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` as an integer percent, rounded half up; 0 when the
    denominator is 0.

    Integer arithmetic only, so 2/3 is 67 and 1/8 is 13 on every platform (Python's
    ``round`` would give banker's rounding and float noise).
    """
    if denominator <= 0:
        return 0
    return (200 * numerator + denominator) // (2 * denominator)
