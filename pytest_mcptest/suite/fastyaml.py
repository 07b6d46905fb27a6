"""A pure-Python reader of the YAML users write, straight to what the libyaml path builds.

On a cold run reading YAML costs most: libyaml composes a node (with marks) per scalar and
collection, calls our ``resolve`` for each, and the loader then walks the nodes into
:class:`LineDict` and :class:`LineList`. Suites are nearly always plain block YAML with
one-line scalars and one-line flow collections, which a line-by-line reader turns into the
same objects several times faster.

:func:`read` knows a strict subset and answers ``None`` for anything outside it or in
doubt; ``load_documents`` then reads the text with libyaml, which also says what is wrong,
at its line. So this reader never raises and never guesses. The subset, per line: blank
lines and comments; ``---`` alone; ``key: value`` and ``key:`` with a plain or quoted key
that is a string; ``- value``, ``-`` and ``- key: value`` (the mapping going on at the
key's column). A value is a plain scalar, a one-line quoted scalar or a one-line flow
collection of those. Anything else bails: tabs, anchors, aliases, tags, block scalars,
``?`` keys, directives, ``...``, continuation lines, duplicate keys, non-string keys, an
indentation that closes to no open collection, plain scalars that start with an indicator
or hold ``: `` (in flow collections any ':', '#' or '?'), infinities and NaN.
``tests/suite/test_fastyaml.py`` holds it to libyaml's results, types and lines included.

Why it is kept: reading realistic suites, libyaml's loaders (composing the nodes alone,
let alone constructing them) cost several times what this reader takes to build the finished
objects, and reading is the largest part of a cold collection; libyaml stays behind it for
what it does not read. The figures, and the other readers measured (rapidyaml, yaml-rs,
ryaml), are in ``benchmarks/README.md`` ("Reading YAML").
"""

from __future__ import annotations

import re
from typing import Any

from .yamlcore import BOOL, FLOAT, INT, NULL, STR, LineDict, LineList, core_tag, number

MAX_DEPTH = 100  # nested block collections, and flow ones within a line; deeper texts go to libyaml
MAX_KEY = 1000  # libyaml drops a possible simple key 1024 characters on; be well under

# What libyaml accepts and this reader handles as plain characters: no tab, no control
# character, no other line break (\r is seen only in \r\n, replaced first), no BOM. An
# ASCII text is checked by deleting the bytes it may hold (ten times faster than a search).
_ASCII_TAKEN = b"\n" + bytes(range(0x20, 0x7F))
_OUTSIDE = re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
# A plain scalar's first character: no indicator; '-' only before a character that cannot
# make it an entry or an indicator ('-1', '--x').
_FIRST = r"(?:[^ \-?:,\[\]{}#&*!|>'\"%@`]|-(?=[-0-9A-Za-z_./]))"
_SQ = r"'((?:[^']|'')*)'"
_DQ = r'"((?:[^"\\]|\\.)*)"'
# A block mapping entry: its key (plain up to the first ': ' and never across a ' #' that
# starts a comment, or quoted) and the colon.
_KEY = re.compile(rf"(?:({_FIRST}(?:[^ ]| +(?=[^ #]))*?)|{_SQ}|{_DQ}):(?: +|\Z)")
# A scalar that is the rest of a block line: plain (no ': ', no ':' at its end, spaces
# inside but not before a '#'), or quoted; then at most a comment.
_BLOCK_SCALAR = re.compile(rf"(?:({_FIRST}(?:[^ :]|:(?=[^ ])| +(?=[^ #]))*)|{_SQ}|{_DQ})(?: +#.*| *)\Z")
# In a flow collection a plain scalar holds no flow indicator, ':', '#' or '?': stricter than
# YAML, so no rule on where such a scalar ends is left to doubt. A key is followed by ': ',
# an item by ',' or the closing bracket.
_FLOW_PLAIN = rf"{_FIRST}[^ ,\[\]{{}}:#?]*(?: +[^ ,\[\]{{}}:#?]+)*"
_FLOW_KEY = re.compile(rf"(?:({_FLOW_PLAIN})|{_SQ}|{_DQ}): +")
_FLOW_SCALAR = re.compile(rf"(?:({_FLOW_PLAIN})|{_SQ}|{_DQ}) *(?:, *|([\]}}]))")
_AFTER_FLOW = re.compile(r" *(?:, *|([\]}]))")
_END = re.compile(r" *\Z| +#")  # what may follow a flow collection on a block line
_SEPARATOR = re.compile(r"---(?: *\Z| +#)")
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)")
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
            "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
            "L": "\u2028", "P": "\u2029"}
# Suites repeat most of their lines and words, so what a line or a plain scalar says is
# remembered; a cache that fills up is emptied (memory stays bounded, new suites get room).
_SHAPES: dict[str, tuple] = {}  # a line without its indent -> what _shape makes of it
_PLAIN_VALUES: dict[str, Any] = {}  # plain scalar -> its value
_CACHE_MAX = 10_000  # entries in each cache
_SHAPE_LEN = 200  # longer lines are read each time
_EMPTY = object()  # an entry with nothing after its '-' or ':' (null, or a block collection below)


class _Bail(Exception):
    """Not in the subset, or in doubt: libyaml reads the text instead."""


def read(text: str) -> list[tuple[Any, int]] | None:
    """Every document of ``text`` with the line it starts on, as ``load_documents`` gives
    them; ``None`` when the text is not in the subset (or not valid YAML)."""
    try:
        return _read(text)
    except _Bail:
        return None


def _read(text: str) -> list[tuple[Any, int]]:
    """The block structure, line by line: a stack of the open block collections, each with
    its indent, and the entry whose value was left open (``pending``) by a line ending in
    '-' or ':'. What each line says on its own comes from :func:`_shape`, remembered per
    line text. One function of about a hundred lines on purpose: it is the loop every line of
    every suite goes through, and its state (the stack, ``pending``) lives in locals; split
    into calls per line it reads no clearer and costs a call and an attribute walk a line."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if text.encode("ascii").translate(None, _ASCII_TAKEN) if text.isascii() else _OUTSIDE.search(text):
        raise _Bail
    docs: list[tuple[Any, int]] = []
    stack: list[tuple[int, Any, bool]] = []  # (indent, collection, is a mapping)
    pending = None  # (collection, key or index, indent of its line or key)
    explicit = False  # a '---' opened a document that has no content yet
    shapes = _SHAPES
    number = 0
    for number, line in enumerate(text.split("\n"), 1):
        body = line.lstrip(" ")
        if not body or body[0] == "#":
            continue
        indent = len(line) - len(body)
        if indent == 0 and body[:3] in ("---", "..."):
            if not _SEPARATOR.match(body):
                raise _Bail
            if stack:
                docs.append((stack[0][1], stack[0][1].line))
            elif explicit:
                docs.append((None, number))  # an empty document starts where the next token is
            stack, pending, explicit = [], None, True
            continue
        shape = shapes.get(body)
        if shape is None:
            shape = _shape(body)
            if len(body) <= _SHAPE_LEN:
                if len(shapes) >= _CACHE_MAX:
                    shapes.clear()
                shapes[body] = shape
        item, offset, key, value = shape
        if pending is not None:
            owner, at, owner_indent = pending
            pending = None
            # The open entry's value is a block collection that starts here: deeper, or a
            # sequence at a mapping key's own indent.
            if indent > owner_indent or (item and indent == owner_indent and type(owner) is LineDict):
                collection = _collection(item, number)
                owner[at] = collection
                if type(owner) is LineList:
                    owner.item_lines[at] = number
                stack.append((indent, collection, not item))
                if len(stack) > MAX_DEPTH:
                    raise _Bail
        if not stack:
            stack.append((indent, _collection(item, number), not item))
        top = stack[-1]
        while top[0] > indent:
            stack.pop()
            if not stack:
                raise _Bail
            top = stack[-1]
        if top[0] != indent:
            raise _Bail  # a continuation line, or an indent no open collection has
        if top[2] is item:
            if item:
                raise _Bail
            stack.pop()  # a key after a sequence written at its key's indent: the mapping goes on
            if not stack or stack[-1][0] != indent or not stack[-1][2]:
                raise _Bail
            top = stack[-1]
        owner = top[1]
        if type(value) is tuple:
            value = _instance(value, number)
        if item:
            owner.item_lines.append(number)
            if key is None:
                if value is _EMPTY:
                    pending = (owner, len(owner), indent)
                    value = None
                owner.append(value)
                continue
            mapping = _collection(False, number)  # '- key: ...': a mapping at the key's column
            owner.append(mapping)
            indent += offset
            stack.append((indent, mapping, True))
            owner = mapping
        if key in owner:
            raise _Bail  # libyaml's path refuses it, naming both lines
        owner.key_lines[key] = number
        if value is _EMPTY:
            pending = (owner, key, indent)
            value = None
        owner[key] = value
    if stack:
        docs.append((stack[0][1], stack[0][1].line))
    elif explicit:  # libyaml's stream end is on the line after a last line without a newline
        docs.append((None, number + (not text.endswith("\n"))))
    return docs


def _shape(body: str) -> tuple[bool, int, str | None, Any]:
    """What a line (without its indent) says wherever it stands: whether it is a sequence
    entry, the column of a key after its '-', the key, and the value: a scalar, ``_EMPTY``,
    or the template of a flow collection (see :func:`_flow`)."""
    if body[0] == "-" and body[1:2] in ("", " "):
        rest = body[1:].lstrip(" ")
        if not rest or rest[0] == "#":
            return True, 0, None, _EMPTY
        if rest[0] == "-" and rest[1:2] in ("", " "):
            raise _Bail  # '- - x'
        match = _KEY.match(rest)
        if match is None:
            return True, 0, None, _value(rest)
        return True, len(body) - len(rest), _key(match), _rest(rest[match.end():])
    match = _KEY.match(body)
    if match is None:
        raise _Bail
    return False, 0, _key(match), _rest(body[match.end():])


def _collection(item: bool, line: int) -> Any:
    if item:
        seq = LineList()
        seq.line, seq.item_lines = line, []
        return seq
    mapping = LineDict()
    mapping.line, mapping.key_lines = line, {}
    return mapping


def _instance(template: tuple, line: int) -> Any:
    """A flow collection made from its template, with every line attribute ``line``."""
    is_map, data, nested = template
    if is_map:
        copy = LineDict(data)
        copy.key_lines = dict.fromkeys(data, line)
    else:
        copy = LineList(data)
        copy.item_lines = [line] * len(data)
    copy.line = line
    for key, inner in nested:
        copy[key] = _instance(inner, line)
    return copy


def _key(match: re.Match) -> str:
    """A block or flow mapping key: a string, short enough to be a simple key."""
    if match.end() - match.start() > MAX_KEY:
        raise _Bail
    plain, single, double = match.group(1, 2, 3)
    if plain is None:
        return single.replace("''", "'") if double is None else _unescape(double)
    if plain[-1] == " " or core_tag(plain) != STR:
        raise _Bail  # 'a :', or a key that is not a string (1:, true:, <<:)
    return plain


def _rest(text: str) -> Any:
    """The value after a key's ': '; ``_EMPTY`` if there is none."""
    return _EMPTY if not text or text[0] == "#" else _value(text)


def _scalar(match: re.Match) -> Any:
    """The value of a plain, single- or double-quoted scalar matched as groups 1, 2, 3."""
    plain, single, double = match.group(1, 2, 3)
    if plain is not None:
        return _plain(plain)
    return single.replace("''", "'") if double is None else _unescape(double)


def _value(text: str) -> Any:
    """The value that ``text`` (the rest of a block line, not blank, no comment) holds."""
    if text[0] == "{" or text[0] == "[":
        value, end = _flow(text, 0, 1)
        if not _END.match(text, end):
            raise _Bail
        return value
    match = _BLOCK_SCALAR.match(text)
    if match is None:
        raise _Bail
    return _scalar(match)


def _plain(text: str) -> Any:
    value = _PLAIN_VALUES.get(text, _Bail)
    if value is _Bail:
        tag = core_tag(text)
        if tag == STR:
            value = text
        elif tag == NULL:
            value = None
        elif tag == BOOL:
            value = text.lower() == "true"
        elif tag == INT or tag == FLOAT:
            try:
                value = number(tag, text)
            except ValueError:
                raise _Bail from None  # libyaml's path says why it is no JSON number
        else:
            raise _Bail  # '<<' as a value
        if len(_PLAIN_VALUES) >= _CACHE_MAX:
            _PLAIN_VALUES.clear()
        _PLAIN_VALUES[text] = value
    return value


def _unescape(body: str) -> str:
    return _ESCAPE.sub(_escaped, body) if "\\" in body else body


def _escaped(match: re.Match) -> str:
    code = match.group(1)
    if len(code) == 1:
        if code not in _ESCAPES:
            raise _Bail
        return _ESCAPES[code]
    point = int(code[1:], 16)
    if 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:
        raise _Bail  # libyaml refuses these
    return chr(point)


def _flow(text: str, pos: int, depth: int) -> tuple[tuple, int]:
    """The flow collection opening at ``text[pos]`` and closed on this line, and where it
    ends. It is read as a template that :func:`_instance` makes collections from, each on
    its line: ``(is a mapping, its plain dict or list, (key or index, template) of each
    collection in it)``, so a line read once gives its collections cheaply again."""
    if depth > MAX_DEPTH:
        raise _Bail
    is_map = text[pos] == "{"
    value: Any = {} if is_map else []
    nested = []
    close = "}" if is_map else "]"
    pos += 1
    while text[pos:pos + 1] == " ":
        pos += 1
    if text[pos:pos + 1] == close:
        return (is_map, value, ()), pos + 1
    while True:
        if is_map:
            match = _FLOW_KEY.match(text, pos)
            if match is None:
                raise _Bail
            key = _key(match)
            if key in value:
                raise _Bail
            pos = match.end()
        if text[pos:pos + 1] in ("{", "["):
            item, pos = _flow(text, pos, depth + 1)
            nested.append((key if is_map else len(value), item))
            match = _AFTER_FLOW.match(text, pos)
            if match is None:
                raise _Bail
        else:
            match = _FLOW_SCALAR.match(text, pos)
            if match is None:
                raise _Bail
            item = _scalar(match)
        if is_map:
            value[key] = item
        else:
            value.append(item)
        pos = match.end()
        end = match.group(match.re.groups)  # the closing bracket, or None after a ','
        if end is not None:
            if end != close:
                raise _Bail
            return (is_map, value, tuple(nested)), pos
