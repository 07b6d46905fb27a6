"""Two-space indented JSON text, the bytes ``json.dumps(value, indent=2)`` writes, made fast.

Python's ``json`` module writes indented JSON with its pure-Python encoder, about 20 times
slower than its C encoder: 45 seconds of a 43 MB ``mcptest import``, and most of a gigabyte
held in its list of small strings. Cassettes and reports are indented so that people can
read and diff them, so the text stays the same; only the way to it changes. A large value
is written by the C encoder without indentation, then the line breaks and indentation are
put in with array operations (numpy, which the statistics already depend on): a JSON
text's structure (``{ } [ ] ,`` outside strings) is found from its quotes alone, since the
encoder escapes every quote inside a string and nothing else can hold one.
"""

from __future__ import annotations

import json
from typing import Any, Optional

FAST_FROM = 256 * 1024  # characters of compact JSON; below this the standard encoder is quick enough
_CHUNK = 1 << 20  # bytes of compact JSON re-indented per step, to bound the arrays' memory


def compact(value: Any, sort_keys: bool = False, allow_nan: bool = True) -> str:
    """The C encoder's text of ``value`` that :func:`dumps_indented` starts from."""
    return json.dumps(value, separators=(",", ": "), sort_keys=sort_keys, ensure_ascii=False, allow_nan=allow_nan)


def dumps_indented(value: Any, sort_keys: bool = False, allow_nan: bool = True, text: Optional[str] = None) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False, sort_keys=sort_keys, allow_nan=allow_nan)``.

    ``text``, when given, is ``compact(value, sort_keys, allow_nan)`` already made. Raises
    what ``json.dumps`` raises for a value it cannot write.
    """
    options = dict(sort_keys=sort_keys, ensure_ascii=False, allow_nan=allow_nan)
    compact = json.dumps(value, separators=(",", ": "), **options) if text is None else text
    if len(compact) < FAST_FROM:
        return json.dumps(value, indent=2, **options)
    return reindent(compact)


def reindent(compact: str) -> str:
    """The compact JSON text (``separators=(",", ": ")``) with two-space indentation, as
    ``json.dumps(..., indent=2)`` lays it out: a line break after ``{``, ``[`` and ``,`` and
    before ``}`` and ``]``, except inside an empty ``{}`` or ``[]``.

    The text is read in steps of ``_CHUNK`` bytes, so the arrays stay small whatever its
    size; what one step must tell the next (inside a string or not, the depth, a run of
    backslashes, a break owed after its last byte) is carried in a :class:`_State`.
    """
    import numpy as np

    data = compact.encode("utf-8", "surrogatepass")
    raw = np.frombuffer(data, np.uint8)
    marks = np.zeros(256, bool)
    marks[list(b"{}[],")] = True
    state = _State()
    pieces = [_step(raw[lo:lo + _CHUNK], state, marks, np) for lo in range(0, len(data), _CHUNK)]
    del data, raw
    text = b"".join(pieces)
    del pieces
    return text.decode("utf-8", "surrogatepass")


class _State:
    """What one step of :func:`reindent` leaves to the next."""

    def __init__(self):
        self.in_string = 0  # 1 inside a string
        self.depth = 0
        self.backslashes = 0  # the run of backslashes that ended the last step
        self.owed = None  # (width, after an opening bracket) of a break due at the next step's first byte


def _step(chunk, state: _State, marks, np) -> bytes:
    """One step of :func:`reindent`: ``chunk`` with its line breaks put in."""
    size = len(chunk)
    quotes = np.flatnonzero(chunk == ord('"'))
    quotes = quotes[_unescaped(chunk, quotes, state.backslashes, np)]
    tail = size - 1 - _last_not_backslash(chunk, np)
    state.backslashes = tail + state.backslashes if tail == size else tail
    toggles = np.zeros(size, np.uint8)
    toggles[quotes] = 1
    inside = (np.cumsum(toggles, dtype=np.uint8) + state.in_string) & 1  # counts modulo 256: the parity tells
    state.in_string = int(state.in_string + len(quotes)) & 1
    where = np.flatnonzero(marks[chunk])
    where = where[inside[where] == 0]
    del toggles, inside
    chars = chunk[where]
    opens = (chars == ord("{")) | (chars == ord("["))
    closes = (chars == ord("}")) | (chars == ord("]"))
    depth = state.depth + np.cumsum(opens.astype(np.int64) - closes.astype(np.int64))
    if len(depth):
        state.depth = int(depth[-1])
    keep = np.ones(len(where), bool)
    empty = opens[:-1] & closes[1:] & (where[1:] == where[:-1] + 1)  # "{}" or "[]": no break inside
    keep[:-1] &= ~empty
    keep[1:] &= ~empty
    at = (where + ~closes)[keep]  # the break goes after an opening bracket or a comma, before a closing one
    widths = (1 + 2 * depth)[keep]  # "\n" and two spaces a level
    owed, state.owed = state.owed, None
    if owed is not None:
        if owed[1] and len(where) and where[0] == 0 and closes[0]:  # "{" ended the last step, "}" starts this one
            at, widths = at[1:], widths[1:]
        else:
            at, widths = np.concatenate(([0], at)), np.concatenate(([owed[0]], widths))
    if len(at) and at[-1] == size:  # a break after this step's last byte belongs to the next step
        state.owed = (int(widths[-1]), bool(opens[-1]))
        at, widths = at[:-1], widths[:-1]
    return _spread(chunk, at, widths, np)


def _unescaped(chunk, quotes, carried: int, np):
    """A mask of the quotes that delimit strings: not preceded by an odd run of backslashes
    (``carried`` of them ended the step before)."""
    keep = np.ones(len(quotes), bool)
    after = np.flatnonzero(quotes > 0)
    after = after[chunk[quotes[after] - 1] == ord("\\")]
    slashes = np.flatnonzero(chunk == ord("\\"))
    runs = np.zeros(len(quotes), np.int64)
    if len(after):
        starts = np.ones(len(slashes), bool)  # the first backslash of each run
        starts[1:] = slashes[1:] != slashes[:-1] + 1
        first = np.maximum.accumulate(np.where(starts, np.arange(len(slashes)), 0))
        last = np.searchsorted(slashes, quotes[after] - 1)  # the backslash right before the quote
        runs[after] = last - first[last] + 1 + np.where(slashes[first[last]] == 0, carried, 0)
    if len(quotes) and quotes[0] == 0:
        runs[0] = carried
    keep[runs % 2 == 1] = False
    return keep


def _last_not_backslash(chunk, np) -> int:
    """The offset of the last byte of ``chunk`` that is not a backslash, or -1."""
    others = np.flatnonzero(chunk[-4096:] != ord("\\"))
    if len(others):
        return len(chunk) - min(len(chunk), 4096) + int(others[-1])
    others = np.flatnonzero(chunk != ord("\\"))
    return int(others[-1]) if len(others) else -1


def _spread(chunk, at, widths, np) -> bytes:
    """``chunk`` with a line break and ``widths - 1`` spaces inserted before each offset in ``at``."""
    shift = np.zeros(len(chunk), np.int64)
    shift[at] = widths
    np.cumsum(shift, out=shift)
    out = np.full(len(chunk) + (int(shift[-1]) if len(chunk) else 0), ord(" "), np.uint8)
    out[at + shift[at] - widths] = ord("\n")
    shift += np.arange(len(chunk))
    out[shift] = chunk
    return out.tobytes()
