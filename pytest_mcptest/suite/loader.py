"""YAML with line numbers, strict about duplicate keys and safe from alias bombs.

Mappings load as :class:`LineDict` and sequences as :class:`LineList`: plain
``dict`` and ``list`` subclasses that remember the line of the node and of each key
or item, so a later error (schema, model) can point at the user's line. The custom
behaviour lives in our own Loader class; PyYAML's global loaders are untouched.
"""

from __future__ import annotations

import gc
from typing import Any, Iterator

import yaml

from ..errors import InputError

try:  # libyaml's C parser is ~4.6x faster; fall back to pure Python when absent.
    _BaseLoader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _BaseLoader = yaml.SafeLoader

# A document may share nodes through aliases; past these sizes of its expanded
# tree it is refused rather than walked (a "billion laughs" would never finish).
MAX_EXPANDED_NODES = 200_000
MAX_EXPANSION_RATIO = 20


class LineDict(dict):
    """A mapping that remembers its own line and the line of each key."""

    __slots__ = ("line", "key_lines")


class LineList(list):
    """A sequence that remembers its own line and the line of each item."""

    __slots__ = ("line", "item_lines")


class _Loader(_BaseLoader):
    def construct_document(self, node):
        self._starts.append(node.start_mark.line + 1)
        if self._may_alias:
            _check_expansion(node, self._path)
        return super().construct_document(node)


def _construct_map(loader: _Loader, node: yaml.MappingNode):
    data = LineDict()
    data.line = node.start_mark.line + 1
    data.key_lines = {}
    yield data
    explicit = [pair for pair in node.value
                if not (isinstance(pair[0], yaml.ScalarNode) and pair[0].tag == "tag:yaml.org,2002:merge")]
    seen: dict[Any, int] = {}
    for key_node, _ in explicit:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        key = loader.construct_object(key_node)
        line = key_node.start_mark.line + 1
        if key in seen:
            raise InputError(loader._path, f"duplicate key {key!r} (first defined at line {seen[key]})",
                             line=line, source=loader._source)
        seen[key] = line
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=False)
        try:
            hash(key)
        except TypeError:
            raise InputError(loader._path, "a mapping key must be a scalar, found a collection",
                             line=key_node.start_mark.line + 1, source=loader._source) from None
        data[key] = loader.construct_object(value_node, deep=False)
        data.key_lines[key] = key_node.start_mark.line + 1


def _construct_seq(loader: _Loader, node: yaml.SequenceNode):
    data = LineList()
    data.line = node.start_mark.line + 1
    data.item_lines = [child.start_mark.line + 1 for child in node.value]
    yield data
    data.extend(loader.construct_object(child, deep=False) for child in node.value)


def _construct_timestamp(loader: _Loader, node: yaml.ScalarNode) -> str:
    # Dates stay the strings the user wrote: suites and states are JSON values.
    return loader.construct_scalar(node)


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


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
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def load_documents(path: str, text: str) -> list[tuple[Any, int]]:
    """Every YAML document of ``text`` with the line it starts on, in order.

    Raises :class:`InputError` with the line.
    """
    loader = _Loader(text)
    loader._path = path
    loader._source = text
    loader._may_alias = "*" in text
    loader._starts = []
    gc_was_enabled = gc.isenabled()
    gc.disable()  # a parse allocates many small objects; the collector only slows it down
    try:
        docs = []
        while loader.check_data():
            data = loader.get_data()
            docs.append((data, loader._starts[-1]))
        return docs
    except InputError as exc:
        exc.source = text
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = " ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
        raise InputError(path, f"invalid YAML: {problem}", line=line, source=text) from None
    except yaml.YAMLError as exc:
        raise InputError(path, f"invalid YAML: {exc}", source=text) from None
    except RecursionError:
        raise InputError(path, "the YAML nests too deeply to read", source=text) from None
    finally:
        loader.dispose()
        if gc_was_enabled:
            gc.enable()


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
