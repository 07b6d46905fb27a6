"""Two-space indented JSON text, the bytes ``json.dumps(value, indent=2)`` writes, made fast.

Python's ``json`` module writes indented JSON with its pure-Python encoder, about 20 times
slower than its C encoder: 45 seconds of a 43 MB ``mcptest import``, and most of a gigabyte
held in its list of small strings. Cassettes and reports are indented so that people can
read and diff them, so the text stays the same; only the way to it changes. A large value
is written by the C encoder without indentation, then indented by msgspec's formatter
(already what decodes cassettes), which keeps every token's text as it is and lays out
lines exactly as ``json.dumps(indent=2)`` does (``tests/formats/test_indented_json.py`` holds it to
that, byte for byte).
"""

from __future__ import annotations

import json
from typing import Any, Optional

FAST_FROM = 256 * 1024  # characters of compact JSON; below this the standard encoder is quick enough


def compact(value: Any, sort_keys: bool = False, allow_nan: bool = True) -> str:
    """The C encoder's text of ``value`` that :func:`dumps_indented` starts from."""
    return json.dumps(value, separators=(",", ": "), sort_keys=sort_keys, ensure_ascii=False, allow_nan=allow_nan)


def dumps_indented(value: Any, sort_keys: bool = False, allow_nan: bool = True, text: Optional[str] = None) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False, sort_keys=sort_keys, allow_nan=allow_nan)``.

    ``text``, when given, is ``compact(value, sort_keys, allow_nan)`` already made. Raises
    what ``json.dumps`` raises for a value it cannot write.
    """
    options = dict(sort_keys=sort_keys, ensure_ascii=False, allow_nan=allow_nan)
    flat = json.dumps(value, separators=(",", ": "), **options) if text is None else text
    if len(flat) >= FAST_FROM:
        indented = reindent(flat)
        if indented is not None:
            return indented
    return json.dumps(value, indent=2, **options)


def reindent(flat: str) -> Optional[str]:
    """The compact JSON text (``separators=(",", ": ")``) with two-space indentation, as
    ``json.dumps(..., indent=2)`` lays it out, or None when msgspec refuses the text (NaN
    or Infinity, which only a value written with ``allow_nan`` holds): the standard
    encoder then writes it. Lone surrogates pass through as they came."""
    import msgspec

    try:
        data = msgspec.json.format(flat.encode("utf-8", "surrogatepass"), indent=2)
    except msgspec.DecodeError:
        return None
    return data.decode("utf-8", "surrogatepass")
