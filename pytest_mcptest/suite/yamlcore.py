"""What both YAML readers share (libyaml's in ``loader``, the fast one in ``fastyaml``): the
containers that remember lines, and the YAML 1.2 core rules that turn a plain scalar into a
JSON value. One copy, so the two readers cannot drift apart.
"""

from __future__ import annotations

import math
import re
from typing import Any


class LineDict(dict):
    """A mapping that remembers its own line and the line of each key."""

    __slots__ = ("line", "key_lines")


class LineList(list):
    """A sequence that remembers its own line and the line of each item."""

    __slots__ = ("line", "item_lines")


STR = "tag:yaml.org,2002:str"
NULL = "tag:yaml.org,2002:null"
BOOL = "tag:yaml.org,2002:bool"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
MERGE = "tag:yaml.org,2002:merge"

# The YAML 1.2 core schema, which is what JSON users expect: `yes`, `on`, `010`
# and `1:30` are not the booleans, octal and sexagesimal numbers of YAML 1.1.
_CORE = (
    (NULL, re.compile(r"(?:~|null|Null|NULL|)\Z")),
    (BOOL, re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z")),
    (INT, re.compile(r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z")),
    (FLOAT, re.compile(r"(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                       r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z")),
)
_TAGS: dict = {}
_TAGS_MAX = 100_000


def core_tag(value: str) -> str:
    """The tag of a plain (unquoted) scalar; remembered, as suites repeat their words."""
    tag = _TAGS.get(value)
    if tag is None:
        tag = _match_tag(value)
        if len(_TAGS) < _TAGS_MAX:
            _TAGS[value] = tag
    return tag


def _match_tag(value: str) -> str:
    if value == "<<":
        return MERGE  # the merge key: not YAML 1.2, but what every suite with anchors uses
    for tag, pattern in _CORE:
        if pattern.match(value):
            return tag
    return STR


def number(tag: str, value: str) -> int | float:
    """An ``INT`` or ``FLOAT`` scalar as a JSON number; ValueError for what JSON cannot hold
    (infinity, NaN, an overflow, more digits than Python converts)."""
    if tag == INT:
        if value.startswith(("0o", "0x")):
            return int(value[2:], 8 if value[1] == "o" else 16)
        return int(value)
    result = float(value) if value.lstrip("+-")[:1] != "." or value[-1:].isdigit() else math.inf
    if math.isfinite(result):
        return result
    raise ValueError("JSON has no infinity or NaN")


def line_of(root: Any, parts) -> int | None:
    """The line of the deepest key or item along ``parts`` that the loader recorded."""
    line = getattr(root, "line", None)
    node = root
    for part in parts:
        if isinstance(node, LineDict) and part in node:
            line = node.key_lines.get(part, line)
        elif isinstance(node, LineList) and isinstance(part, int) and -len(node) <= part < len(node):
            line = node.item_lines[part]
        else:
            break
        node = node[part]
    return line
