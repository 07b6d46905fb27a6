"""YAML with line numbers, strict about duplicate keys and safe from alias bombs.

Mappings load as :class:`LineDict` and sequences as :class:`LineList`: plain
``dict`` and ``list`` subclasses that remember the line of the node and of each key
or item, so a later error (schema, model) can point at the user's line. The custom
behaviour lives in our own Loader class; PyYAML's global loaders are untouched.
"""

from __future__ import annotations

import math
from typing import Any

import yaml

from ..errors import InputError, number_problem
from ..formats.files import brackets_within, read_bytes
from ..gc_pause import paused_collector
# By module path, not ``from . import fastyaml``: after pytester's in-process runs drop the
# package's submodules from sys.modules, that form would find the old module still hanging on the
# package and build the old module's LineDict, which the LineDict imported here would not match.
from .fastyaml import read as read_fast
from .yamlcore import BOOL, FLOAT, INT, MERGE, NULL, STR, LineDict, LineList, core_tag, number

try:  # libyaml's C parser is ~4.6x faster; fall back to pure Python when absent.
    _BaseLoader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _BaseLoader = yaml.SafeLoader

# A document may share nodes through aliases; past these sizes of its expanded
# tree it is refused rather than walked (a "billion laughs" would never finish).
MAX_EXPANDED_NODES = 200_000
MAX_EXPANSION_RATIO = 20


_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"


def _scalar(loader: "_Loader", node) -> Any:
    """A scalar as a JSON value; anything JSON cannot hold is refused at its line."""
    tag, value = node.tag, node.value
    if tag == STR or tag == _TIMESTAMP:  # dates stay the strings the user wrote
        return value
    if tag == NULL:
        return None
    if tag == BOOL:
        return value.lower() == "true"
    try:
        if tag == INT or tag == FLOAT:
            return number(tag, value)
    except ValueError as exc:
        raise InputError(loader._path, f"cannot read {value[:40]!r} as a number: {number_problem(exc)}",
                         line=node.start_mark.line + 1, source=loader._source) from None
    raise InputError(loader._path, f"the tag {tag!r} does not make a JSON value (suites hold JSON values)",
                     line=node.start_mark.line + 1, source=loader._source)


class _Loader(_BaseLoader):
    """libyaml's parser with a lean constructor of our own.

    PyYAML's generic constructor goes through generators and bookkeeping for every
    node; suites are plain trees of maps, lists and JSON scalars, so
    ``construct_document`` builds them in one direct pass, remembering lines and
    refusing duplicate keys, non-string keys and tags JSON cannot hold.

    Nodes are told apart by their ``id``, never their class: libyaml's extension keeps
    the node classes of the first ``yaml`` import even when ``yaml`` is imported again
    (pytester does that between in-process runs).
    """

    def resolve(self, kind, value, implicit):
        if kind.id != "scalar":
            return _SEQ if kind.id == "sequence" else _MAP
        if not implicit[0]:
            return STR  # quoted
        return core_tag(value)

    def construct_document(self, node):
        self._starts.append(node.start_mark.line + 1)
        if self._may_alias:
            _check_expansion(node, self._path)
        self._memo = {}
        return self._build(node)

    def _build(self, node):
        kind = node.id
        if kind == "scalar":
            if node.tag == STR:
                value = node.value
                return self._words.setdefault(value, value)
            return _scalar(self, node)
        if self._may_alias:
            done = self._memo.get(id(node))
            if done is not None:
                return done
        if kind == "mapping" and node.tag == _MAP:
            return self._build_map(node)
        if kind == "sequence" and node.tag == _SEQ:
            data = LineList()
            data.line = node.start_mark.line + 1
            if self._may_alias:
                self._memo[id(node)] = data
            data.item_lines = [child.start_mark.line + 1 for child in node.value]
            data.extend([self._build(child) for child in node.value])
            return data
        raise InputError(self._path, f"the tag {node.tag!r} does not make a JSON value (suites hold JSON values)",
                         line=node.start_mark.line + 1, source=self._source)

    def _build_map(self, node) -> LineDict:
        data = LineDict()
        data.line = node.start_mark.line + 1
        lines = data.key_lines = {}
        if self._may_alias:
            self._memo[id(node)] = data
        explicit = []
        for key_node, value_node in node.value:
            if key_node.tag == MERGE:
                self._merge_into(data, value_node)
            else:
                explicit.append((key_node, value_node))
        merged = set(data)
        for key_node, value_node in explicit:
            key = self._key(key_node)
            if key in data and key not in merged:
                raise InputError(self._path, f"duplicate key {key!r} (first defined at line {lines[key]})",
                                 line=key_node.start_mark.line + 1, source=self._source)
            merged.discard(key)  # an explicit key overrides a merged one, once
            data[key] = self._build(value_node)
            lines[key] = key_node.start_mark.line + 1
        return data

    def _merge_into(self, data: LineDict, value_node) -> None:
        """``<<: *base`` or ``<<: [*a, *b]``: copy keys not set yet (earlier sources win)."""
        sources = value_node.value if value_node.id == "sequence" else [value_node]
        for source in sources:
            if source.id != "mapping":
                raise InputError(self._path, "a merge key (<<) takes a mapping or a list of mappings",
                                 line=source.start_mark.line + 1, source=self._source)
            built = self._build(source)
            for key, value in built.items():
                if key not in data:
                    data[key] = value
                    data.key_lines[key] = built.key_lines.get(key, data.line)

    def _key(self, key_node) -> str:
        if key_node.id == "scalar" and key_node.tag == STR:
            key = key_node.value
            return self._words.setdefault(key, key)
        if key_node.id != "scalar":
            found = "a collection"
        else:
            found = f"{self._build(key_node)!r} (quote it: '{key_node.value}')"
        raise InputError(self._path, f"a key must be a string (JSON objects have string keys), found {found}",
                         line=key_node.start_mark.line + 1, source=self._source)


def _check_expansion(root, path: str) -> None:
    """Refuse documents whose aliases expand far beyond their written size, or loop."""
    sizes: dict[int, int] = {}
    distinct = 0
    stack: list[tuple[Any, bool]] = [(root, False)]
    on_path: set[int] = set()
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            children = _children(node)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > MAX_EXPANDED_NODES and sizes[key] > MAX_EXPANSION_RATIO * max(distinct, 1):
                raise InputError(path, f"aliases expand this document to more than {MAX_EXPANDED_NODES:,} "
                                 f"nodes from {distinct:,} written ones; refusing to expand it",
                                 line=node.start_mark.line + 1)
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise InputError(path, "an alias refers to a node that contains it (a recursive structure)",
                             line=node.start_mark.line + 1)
        distinct += 1
        on_path.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in on_path:
                raise InputError(path, "an alias refers to a node that contains it (a recursive structure)",
                                 line=child.start_mark.line + 1)
            if id(child) not in sizes:
                stack.append((child, False))


def _children(node) -> list:
    if node.id == "mapping":
        return [n for pair in node.value for n in pair]
    if node.id == "sequence":
        return list(node.value)
    return []


MAX_FLOW_DEPTH = 1000


def load_documents(path: str, text: str) -> list[tuple[Any, int]]:
    """Every YAML document of ``text`` with the line it starts on, in order.

    :mod:`.fastyaml` reads the common subset; libyaml reads the rest, and says what is
    wrong. Raises :class:`InputError` with the line.
    """
    if not brackets_within(text, MAX_FLOW_DEPTH):  # libyaml recurses in C: 100,000 levels crashed the process
        raise InputError(path, f"the YAML nests too deeply to read (more than {MAX_FLOW_DEPTH} levels of [ or {{)",
                         source=text)
    with paused_collector():  # a parse allocates many small objects; the collector only slows it down
        docs = read_fast(text)  # the plain YAML users write, several times faster
        return docs if docs is not None else read_with_libyaml(path, text)


def read_with_libyaml(path: str, text: str) -> list[tuple[Any, int]]:
    """What :func:`load_documents` gives, read by libyaml alone: the path for whatever the
    fast reader leaves, and the reference it is tested against."""
    loader = _Loader(text)
    loader._path = path
    loader._source = text
    loader._may_alias = "*" in text
    loader._starts = []
    loader._words = {}  # each string read, once: a word the file repeats is one object, as the fast reader makes it
    try:
        docs = []
        while loader.check_data():
            data = loader.get_data()
            docs.append((data, loader._starts[-1]))
        return docs
    except InputError as exc:
        exc.source = text
        raise
    except RecursionError:
        raise InputError(path, "the YAML nests too deeply to read", source=text) from None
    except Exception as exc:
        if not _is_yaml_error(exc):
            raise
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = " ".join(p for p in (getattr(exc, "context", None), getattr(exc, "problem", None)) if p)
        raise InputError(path, f"invalid YAML: {problem or exc}", line=line, source=text) from None
    finally:
        loader.dispose()


def _is_yaml_error(exc: Exception) -> bool:
    """A PyYAML error, also one of an earlier import of ``yaml``: libyaml's extension raises the
    classes of the first import, which ``yaml.YAMLError`` of a later import does not catch."""
    return any(cls.__name__ == "YAMLError" and cls.__module__ == "yaml.error" for cls in type(exc).__mro__)


def load_data(path: str, text: str) -> Any:
    """The one document of a user file that is not a suite (a mock server's manifest, a saved
    ``tools/list`` snapshot), read as strictly as suites: duplicate keys refused, YAML 1.2 core
    scalars (``yes`` is a word), lines kept for error messages. An empty file is ``None``.

    JSON is YAML too, except for one thing libyaml refuses: an escaped surrogate pair
    (``"\\ud83d\\ude00"``, how ``json.dumps`` writes an emoji). Such a file is read as JSON,
    equally strict, without lines (errors then name a JSON pointer).
    """
    try:
        docs = load_documents(path, text)
    except InputError:
        data = _strict_json(text)
        if data is _NOT_JSON:
            raise
        return data
    if len(docs) > 1:
        raise InputError(path, f"expected one YAML document, found {len(docs)} (separated by ---)",
                         line=docs[1][1], source=text)
    return docs[0][0] if docs else None


_NOT_JSON = object()


def _strict_json(text: str) -> Any:
    """``text`` as JSON with the loader's rules (no duplicate keys, finite numbers), or ``_NOT_JSON``."""
    import json

    def no_duplicates(pairs):
        data = {}
        for key, value in pairs:
            if key in data:
                raise ValueError(f"duplicate key {key!r}")
            data[key] = value
        return data

    def finite(word: str) -> float:
        value = float(word)  # NaN and Infinity are not JSON; 1e400 overflows to inf
        if not math.isfinite(value):
            raise ValueError(f"{word} is not a finite JSON number")
        return value

    try:
        return json.loads(text, object_pairs_hook=no_duplicates, parse_float=finite, parse_constant=finite)
    except (ValueError, RecursionError):
        return _NOT_JSON


def read_text(path: str, data: bytes | None = None) -> str:
    """A suite's text; an unreadable or non-UTF-8 file is an :class:`InputError`, and so is
    a FIFO, a device or a file over the size limit (read by :func:`~pytest_mcptest.formats.files.read_bytes`)."""
    try:
        if data is None:
            data = read_bytes(path)
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    except OSError as exc:
        raise InputError(path, f"cannot read the file: {exc.strerror or exc}") from None
