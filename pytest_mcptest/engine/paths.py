"""Dotted paths into JSON values: ``tool_calls[-1].args.city``, ``tool["read_file"].score``.

One grammar serves the ``expect:`` targets, the world's state paths, guards and
effects, and the paths ``mcptest verify`` and ``mcptest serve`` are told to ignore (which
may also hold the wildcards ``*``, any key, and ``[*]``, any index), so a path that works
in one place works in all of them.
"""

from __future__ import annotations

import re
from typing import Any, Optional, Union

Segment = Union[str, int]

_TOKEN = re.compile(
    r"""
    (?P<name>[^.\[\]"]+)               # a bare key
    | \[\s*(?P<index>-?\d+)\s*\]        # [3] or [-1]
    | \[\s*(?P<star>\*)\s*\]              # [*]: any index, where wildcards are allowed
    | \[\s*"(?P<dq>(?:[^"\\]|\\.)*)"\s*\]   # ["key with. dots"]
    | \[\s*'(?P<sq>(?:[^'\\]|\\.)*)'\s*\]   # ['key']
    | "(?P<qk>(?:[^"\\]|\\.)*)"           # ."3" or ."key with. dots": a quoted key after a dot
    | (?P<dot>\.)
    """,
    re.VERBOSE,
)


class PathError(ValueError):
    """A path that cannot be parsed."""


class _Any:
    """The wildcard segment: any key (``*``) or any index (``[*]``)."""

    def __repr__(self) -> str:
        return "ANY"


ANY = _Any()

_CACHE: dict[str, tuple[Segment, ...]] = {}


def parse_path(path: str, wildcards: bool = False) -> tuple[Segment, ...]:
    """Split a path into keys (str) and list indexes (int); with ``wildcards``, a bare ``*``
    key and a ``[*]`` index are :data:`ANY` (a quoted ``["*"]`` is the key ``*``).

    Raises :class:`PathError` naming the column of the first bad character.
    """
    if not wildcards:
        cached = _CACHE.get(path)
        if cached is not None:
            return cached
    if not isinstance(path, str) or not path.strip():
        raise PathError("a path must be a non-empty string")
    segments: list = []
    pos = 0
    expect_segment = True
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if m is None:
            raise PathError(f"unexpected {path[pos]!r} at column {pos + 1} of path {path!r}")
        if m.group("dot") is not None:
            if expect_segment:
                raise PathError(f"empty segment at column {pos + 1} of path {path!r}")
            expect_segment = True
        elif m.group("name") is not None:
            if not expect_segment:
                raise PathError(f"missing '.' before {m.group('name')!r} in path {path!r}")
            name = m.group("name").strip()
            segments.append(ANY if wildcards and name == "*" else name)
            expect_segment = False
        elif m.group("index") is not None:
            segments.append(int(m.group("index")))
            expect_segment = False
        elif m.group("star") is not None:
            if not wildcards:
                raise PathError(f"a wildcard [*] at column {pos + 1} of path {path!r}: only a path to ignore "
                                f"may hold one")
            segments.append(ANY)
            expect_segment = False
        elif m.group("qk") is not None:
            if not expect_segment:
                raise PathError(f"missing '.' before the quoted key at column {pos + 1} of path {path!r}")
            segments.append(re.sub(r"\\(.)", r"\1", m.group("qk")))
            expect_segment = False
        else:
            raw = m.group("dq") if m.group("dq") is not None else m.group("sq")
            segments.append(re.sub(r"\\(.)", r"\1", raw))
            expect_segment = False
        pos = m.end()
    if expect_segment:
        raise PathError(f"path {path!r} ends with '.'")
    result = tuple(segments)
    if not wildcards and len(_CACHE) < 10_000:
        _CACHE[path] = result
    return result


def format_path(segments: tuple[Segment, ...] | list[Segment]) -> str:
    """The canonical spelling of a parsed path (inverse of :func:`parse_path`)."""
    out = []
    for seg in segments:
        if isinstance(seg, int):
            out.append(f"[{seg}]")
        elif re.fullmatch(r"[A-Za-z0-9_\-$@]+", seg):
            out.append(("." if out else "") + seg)
        else:
            escaped = seg.replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'["{escaped}"]')
    return "".join(out)


class Missing:
    """Why a path resolved to nothing: the deepest prefix that exists and its keys."""

    __slots__ = ("found", "at", "keys", "reason")

    def __init__(self, found: tuple[Segment, ...], at: Any, reason: str):
        self.found = found
        self.at = at
        self.reason = reason
        if isinstance(at, dict):
            self.keys = sorted(str(k) for k in at)
        elif isinstance(at, list):
            self.keys = [f"[0..{len(at) - 1}]"] if at else ["(empty list)"]
        else:
            self.keys = []

    def __bool__(self) -> bool:
        return False


def _where(segments) -> str:
    return format_path(segments) or "the root"


def resolve(value: Any, segments: tuple[Segment, ...]) -> Any:
    """Follow ``segments`` into ``value``; return the target or a :class:`Missing`."""
    current = value
    for seg in segments:
        # The common cases, a key of a plain dict or an index within a plain list, in one
        # step; anything else (a missing key, an index written as a string) is walked again
        # from the start by the careful walk that says why.
        if type(current) is dict and seg in current:
            current = current[seg]
        elif type(current) is list and type(seg) is int and -len(current) <= seg < len(current):
            current = current[seg]
        else:
            return _resolve(value, segments)
    return current


def _resolve(value: Any, segments: tuple[Segment, ...]) -> Any:
    current = value
    for i, seg in enumerate(segments):
        if isinstance(current, dict):
            if seg in current:
                current = current[seg]
                continue
            if isinstance(seg, int):
                return Missing(segments[:i], current, f"{_where(segments[:i])} is not a list")
            return Missing(segments[:i], current, f"no key {seg!r} under {_where(segments[:i])}")
        if isinstance(current, list):
            if isinstance(seg, str) and _INDEX.fullmatch(seg):
                seg = int(seg)  # `tool_calls.0.name` reads like `tool_calls[0].name`
            if not isinstance(seg, int):
                return Missing(segments[:i], current, f"{_where(segments[:i])} is a list, not an object")
            if not -len(current) <= seg < len(current):
                return Missing(segments[:i], current,
                               f"index {seg} is out of range ({_where(segments[:i])} has {len(current)})")
            current = current[seg]
            continue
        kind = "a list" if isinstance(seg, int) else "an object"
        return Missing(segments[:i], current, f"{_where(segments[:i])} is not {kind}")
    return current


_INDEX = re.compile(r"-?\d+")


_ABSENT = object()


def assign(root: dict, segments: tuple[Segment, ...], value: Any, journal: Optional[list] = None) -> None:
    """Set ``value`` at ``segments`` inside ``root``, creating objects on the way.

    Raises :class:`PathError` when the way is blocked by a non-container or an index
    out of range; nothing is written then. With a ``journal`` every change is
    recorded so that :func:`rollback` can undo a series of writes.
    """
    # The common case in one pass: every step a key of an existing plain dict. Whatever
    # else (a list, a key to create, a blocked way) takes the careful walk from the start.
    current: Any = root
    for seg in segments[:-1]:
        if type(current) is not dict or type(seg) is not str:
            break
        current = current.get(seg)
    else:
        key = segments[-1] if segments else None
        if type(current) is dict and type(key) is str:
            if journal is not None:
                journal.append((current, key, current.get(key, _ABSENT)))
            current[key] = value
            return
    _assign(root, segments, value, journal)


def _assign(root: dict, segments: tuple[Segment, ...], value: Any, journal: Optional[list]) -> None:
    current: Any = root
    last = len(segments) - 1
    for i, seg in enumerate(segments):
        if isinstance(seg, int):
            if not isinstance(current, list) or not -len(current) <= seg < len(current):
                raise PathError(f"cannot index {_where(segments[:i])} with [{seg}]")
        elif not isinstance(current, dict):
            raise PathError(f"{_where(segments[:i])} is not an object, so {format_path(segments[: i + 1])} "
                            "cannot be set")
        if i == last:
            if journal is not None:
                journal.append((current, seg, _old(current, seg)))
            current[seg] = value
            return
        nxt = current[seg] if isinstance(seg, int) else current.get(seg)
        if nxt is None:
            # Everything below here is created fresh: empty objects, which no index can reach.
            for j in range(i + 1, len(segments)):
                if isinstance(segments[j], int):
                    raise PathError(f"{format_path(segments[:j])} does not exist, so it cannot be indexed")
            if journal is not None:
                journal.append((current, seg, _old(current, seg)))
            nxt = current[seg] = {}
        current = nxt


def _old(container: Any, seg: Segment) -> Any:
    """What ``container`` holds at ``seg`` before a write, for the journal: a list's item (an
    index was checked to be in range), or a dict's value or ``_ABSENT``."""
    return container[seg] if isinstance(seg, int) else container.get(seg, _ABSENT)


def rollback(journal: list) -> None:
    """Undo the writes recorded by :func:`assign`, newest first."""
    for container, key, old in reversed(journal):
        if old is _ABSENT:
            del container[key]
        else:
            container[key] = old
    journal.clear()


def json_pointer(parts) -> str:
    """RFC 6901 pointer for a sequence of keys and indexes."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def leaves(value: Any, keep_empty: bool = False) -> dict[str, Any]:
    """Leaf values of nested dicts and lists by dotted path (``a.b``, ``runs[0].actions``),
    keys in sorted order and list elements in order. Empty containers are left out, or
    with ``keep_empty`` kept as leaves. Iterative, so no nesting depth is too deep."""
    out: dict[str, Any] = {}
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        prefix, node = stack.pop()
        if isinstance(node, dict) and node:
            keys = sorted(node, key=str)
            stack.extend((f"{prefix}.{k}" if prefix else str(k), node[k]) for k in reversed(keys))
        elif isinstance(node, list) and node:
            stack.extend((f"{prefix}[{i}]", node[i]) for i in reversed(range(len(node))))
        elif keep_empty or not isinstance(node, (dict, list)):
            out[prefix] = node
    return out
