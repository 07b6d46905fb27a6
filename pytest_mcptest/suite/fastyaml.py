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
collection. Anything else bails: tabs, anchors, aliases, tags, block scalars, ``?`` keys,
directives, ``...``, continuation lines, duplicate keys, non-string keys, an indentation
that closes to no open collection, plain scalars that start with an indicator or hold
``: ``, infinities and NaN. A differential test holds it to libyaml's results, lines
included.
"""

from __future__ import annotations

import re
from typing import Any

from .yamlcore import BOOL, FLOAT, INT, NULL, STR, LineDict, LineList, core_tag, number

MAX_DEPTH = 100  # nested collections, block and flow together; deeper texts go to libyaml
MAX_KEY = 1000  # libyaml drops a possible simple key 1024 characters on; be well under

# What libyaml accepts and this reader handles as plain characters: no tab, no control
# character, no other line break (\r is seen only in \r\n, replaced first), no BOM.
_OUTSIDE = re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
# A plain scalar's first character: no indicator; '-' only before a character that cannot
# make it an entry or an indicator ('-1', '-x').
_FIRST = r"(?:[^ \-?:,\[\]{}#&*!|>'\"%@`]|-(?=[-0-9A-Za-z_./]))"
_SQ = r"'((?:[^']|'')*)'"
_DQ = r'"((?:[^"\\]|\\.)*)"'
# A block mapping entry: its key (plain up to the first ': ' and never across a ' #' that
# starts a comment, or quoted) and the colon.
_KEY = re.compile(rf"(?:({_FIRST}(?:[^ ]| +(?=[^ #]))*?)|{_SQ}|{_DQ}):(?: +|$)")
_BLOCK_PLAIN_START = re.compile(_FIRST)
_QUOTED = {"'": re.compile(_SQ), '"': re.compile(_DQ)}
# In a flow collection a plain scalar holds no flow indicator, ':', '#' or '?': stricter than
# YAML, so no rule on where such a scalar ends is left to doubt.
_FLOW_PLAIN = re.compile(rf"{_FIRST}[^ ,\[\]{{}}:#?]*(?: +[^ ,\[\]{{}}:#?]+)*")
_SPACES = re.compile(" *")
_COLON = re.compile(": +")
_END = re.compile(r" *\Z| +#")  # what may follow a value: nothing, or a comment
_SEPARATOR = re.compile(r"---(?: *\Z| +#)")
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)")
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
            "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
            "L": "\u2028", "P": "\u2029"}
_PLAIN_VALUES: dict[str, Any] = {}  # plain scalar -> its value; suites repeat their words
_PLAIN_MAX = 100_000


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
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if _OUTSIDE.search(text):
        raise _Bail
    docs: list[tuple[Any, int]] = []
    stack: list[tuple[int, Any, bool]] = []  # open block collections: (indent, collection, is a mapping)
    pending = None  # (collection, key or index, indent): an entry with no value on its line
    explicit = False  # a '---' opened a document that has no content yet
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
        item = body[0] == "-" and body[1:2] in ("", " ")
        if pending is not None:
            owner, key, owner_indent = pending
            pending = None
            # The entry's value is a block collection that starts here: deeper, or a
            # sequence at a mapping key's own indent.
            if indent > owner_indent or (item and indent == owner_indent and type(owner) is LineDict):
                value = _collection(item, number)
                owner[key] = value
                if type(owner) is LineList:
                    owner.item_lines[key] = number
                stack.append((indent, value, not item))
        if not stack:
            stack.append((indent, _collection(item, number), not item))
        top = stack[-1]
        while top[0] > indent:
            stack.pop()
            if not stack:
                raise _Bail
            top = stack[-1]
        if top[0] != indent:
            raise _Bail
        if top[2] is item:
            if item:
                raise _Bail
            stack.pop()  # a key after a sequence written at its key's indent: the mapping goes on
            if not stack or stack[-1][0] != indent or not stack[-1][2]:
                raise _Bail
            top = stack[-1]
        if len(stack) > MAX_DEPTH:
            raise _Bail
        owner = top[1]
        if item:
            rest = body[1:].lstrip(" ")
            index = len(owner)
            owner.item_lines.append(number)
            if not rest or rest[0] == "#":
                owner.append(None)
                pending = (owner, index, indent)
                continue
            if rest[0] == "-" and rest[1:2] in ("", " "):
                raise _Bail  # '- - x'
            match = _KEY.match(rest)
            if match is None:
                owner.append(_value(rest, number, len(stack)))
                continue
            column = indent + len(body) - len(rest)
            mapping = _collection(False, number)
            owner.append(mapping)
            stack.append((column, mapping, True))
            owner, indent, body = mapping, column, rest
        else:
            match = _KEY.match(body)
            if match is None:
                raise _Bail
        key = _key(match)
        if key in owner:
            raise _Bail  # libyaml's path refuses it, naming both lines
        owner.key_lines[key] = number
        rest = body[match.end():]
        if not rest or rest[0] == "#":
            owner[key] = None
            pending = (owner, key, indent)
        else:
            owner[key] = _value(rest, number, len(stack))
    if stack:
        docs.append((stack[0][1], stack[0][1].line))
    elif explicit:  # libyaml's stream end is on the line after a last line without a newline
        docs.append((None, number + (not text.endswith("\n"))))
    return docs


def _collection(item: bool, line: int) -> Any:
    if item:
        seq = LineList()
        seq.line, seq.item_lines = line, []
        return seq
    mapping = LineDict()
    mapping.line, mapping.key_lines = line, {}
    return mapping


def _key(match: re.Match) -> str:
    """A block mapping key from a ``_KEY`` match: a string, short enough to be a simple key."""
    if match.end() > MAX_KEY:
        raise _Bail
    plain, single, double = match.groups()
    if plain is None:
        return single.replace("''", "'") if double is None else _unescape(double)
    if plain[-1] == " " or core_tag(plain) != STR:
        raise _Bail  # 'a :', or a key that is not a string (1:, true:, <<:)
    return plain


def _value(text: str, line: int, depth: int) -> Any:
    """The value that ``text`` (the rest of a line, not blank, no comment) holds."""
    first = text[0]
    if first == "{" or first == "[":
        value, end = _flow(text, 0, line, depth + 1)
    elif first == "'" or first == '"':
        value, end = _quoted(text, 0)
    else:
        cut = text.find(" #")
        if cut >= 0:
            text = text[:cut]
        text = text.rstrip(" ")
        if ": " in text or text[-1] == ":" or not _BLOCK_PLAIN_START.match(text):
            raise _Bail
        return _plain(text)
    if not _END.match(text, end):
        raise _Bail
    return value


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
        if len(_PLAIN_VALUES) < _PLAIN_MAX:
            _PLAIN_VALUES[text] = value
    return value


def _quoted(text: str, pos: int) -> tuple[str, int]:
    match = _QUOTED[text[pos]].match(text, pos)
    if match is None:
        raise _Bail  # not closed on this line
    if text[pos] == "'":
        return match.group(1).replace("''", "'"), match.end()
    return _unescape(match.group(1)), match.end()


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


def _flow(text: str, pos: int, line: int, depth: int) -> tuple[Any, int]:
    """The flow collection opening at ``text[pos]``, closed on this line, and where it ends."""
    if depth > MAX_DEPTH:
        raise _Bail
    is_map = text[pos] == "{"
    value = _collection(not is_map, line)
    close = "}" if is_map else "]"
    pos = _SPACES.match(text, pos + 1).end()
    if text[pos:pos + 1] == close:
        return value, pos + 1
    while True:
        if is_map:
            start = pos
            key, pos = _flow_node(text, pos, line, depth)
            colon = _COLON.match(text, pos)
            if colon is None or type(key) is not str or pos - start > MAX_KEY or key in value:
                raise _Bail  # no ': ', a key that is not a string (1, true, null), too long, twice
            value.key_lines[key] = line
            value[key], pos = _flow_node(text, colon.end(), line, depth)
        else:
            item, pos = _flow_node(text, pos, line, depth)
            value.append(item)
            value.item_lines.append(line)
        pos = _SPACES.match(text, pos).end()
        following = text[pos:pos + 1]
        if following == close:
            return value, pos + 1
        if following != ",":
            raise _Bail
        pos = _SPACES.match(text, pos + 1).end()


def _flow_node(text: str, pos: int, line: int, depth: int) -> tuple[Any, int]:
    first = text[pos:pos + 1]
    if first == "{" or first == "[":
        return _flow(text, pos, line, depth + 1)
    if first == "'" or first == '"':
        return _quoted(text, pos)
    match = _FLOW_PLAIN.match(text, pos)
    if match is None:
        raise _Bail
    return _plain(match.group()), match.end()
