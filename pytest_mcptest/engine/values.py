"""JSON value semantics shared by every gate.

Python's ``==`` says ``True == 1`` and ``1 == 1.0``; JSON says a boolean is never a
number, while ``1`` and ``1.0`` are the same number. Every comparison a user writes
in YAML goes through :func:`json_equal` so the two never get confused.
"""

from __future__ import annotations

import json
from typing import Any


class NestingError(ValueError):
    """A value nested too deeply to walk; ``path`` (when known) leads to where it got too deep."""

    def __init__(self, message: str, path=None):
        super().__init__(message)
        self.path = path


def is_number(value: Any) -> bool:
    """True for ints and floats, never for booleans."""
    kind = type(value)
    return kind is int or kind is float or (kind is not bool and isinstance(value, (int, float)))


# The types of JSON's scalars: a value of one of them is its own copy, and two of one type compare with ==.
SCALARS = frozenset((str, int, float, bool, type(None)))


def json_equal(a: Any, b: Any) -> bool:
    """Deep equality with JSON's rules: bools are not numbers, 1 equals 1.0.

    Walks with an explicit stack, so a value nested thousands deep costs no recursion.
    """
    kind = type(a)
    if kind is type(b) and kind in SCALARS:  # the common case (a guard, an expectation): one comparison
        return a == b
    pending = [(a, b)]
    while pending:
        a, b = pending.pop()
        if isinstance(a, bool) or isinstance(b, bool):
            if not (isinstance(a, bool) and isinstance(b, bool) and a is b):
                return False
        elif is_number(a) and is_number(b):
            if a != b:
                return False
        elif isinstance(a, dict) and isinstance(b, dict):
            if a.keys() != b.keys():
                return False
            pending.extend((a[k], b[k]) for k in a)
        elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            if len(a) != len(b):
                return False
            pending.extend(zip(a, b))
        elif type(a) is not type(b) and not (isinstance(a, str) and isinstance(b, str)):
            return False
        elif a != b:
            return False
    return True


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, scalars); several times faster than
    ``copy.deepcopy``, which a replay would otherwise call for every state it hands out.

    Recursive for speed on the values users write; a value nested too deeply for the
    stack is copied again with an explicit stack.
    """
    try:
        return _copy(value)
    except RecursionError:
        return _copy_deep(value)


def _copy(value: Any) -> Any:
    # A scalar is its own copy: taken as it is, without a call (most of a state is scalars).
    if isinstance(value, dict):
        return {k: v if type(v) in SCALARS else _copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [v if type(v) in SCALARS else _copy(v) for v in value]
    return value


def _copy_deep(value: Any) -> Any:
    root: list = [None]
    pending = [(value, root, 0)]  # (source, container to fill, key in it)
    while pending:
        source, into, key = pending.pop()
        if isinstance(source, dict):
            into[key] = copy = {}
            pending.extend((v, copy, k) for k, v in source.items())
        elif isinstance(source, (list, tuple)):
            into[key] = copy = [None] * len(source)
            pending.extend((v, copy, i) for i, v in enumerate(source))
        else:
            into[key] = source
    return root[0]


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
    # A stack, newest last: children are pushed in reverse to keep key and index order.
    # Equal subtrees are walked rather than compared first, so a deep value costs its size.
    pending = [(expected, actual, path)]
    while pending and len(out) < limit:
        expected, actual, path = pending.pop()
        if isinstance(expected, dict) and isinstance(actual, dict):
            keys = list(expected) + [k for k in actual if k not in expected]
            pending.extend((expected.get(k, ABSENT), actual.get(k, ABSENT), path + (k,)) for k in reversed(keys))
        elif isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
            pending.extend((expected[i], actual[i], path + (i,)) for i in reversed(range(len(expected))))
        elif expected is ABSENT or actual is ABSENT or not json_equal(expected, actual):
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


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 run``, ``2 runs``; ``many`` for nouns that do not just take an s."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def show(value: Any, limit: int = 80) -> str:
    """A compact, stable JSON rendering of a value for failure messages (``absent`` for ABSENT)."""
    if value is ABSENT:
        return "absent"
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        try:
            text = repr(value)
        except RecursionError:
            text = f"(a {type_name(value)} nested too deeply to show)"
    except RecursionError:
        text = f"(a {type_name(value)} nested too deeply to show)"
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
