"""Matching JSON values: object subsets, multisets, membership, and JSON Schema.

Shared by the ``expect:`` matchers and the trajectory validator, so ``contains`` and
an expected call's ``subset`` arguments mean the same thing everywhere.
"""

from __future__ import annotations

import json
from typing import Any

from .bipartite import group, json_key, match_groups
from .paths import format_path
from .values import NestingError, json_equal, type_name


class MalformedSchema(ValueError):
    """A JSON Schema that cannot be used: malformed, or with a ``$ref`` that leads outside it."""


def subset(actual: Any, expected: Any) -> bool:
    """Object subset with multiset arrays: every expected key/item is in ``actual``.

    Objects are walked with an explicit stack; only arrays inside arrays recurse (through
    the matching), and a value nested too deeply for that raises :class:`NestingError`.
    """
    try:
        return _subset(actual, expected)
    except RecursionError:
        raise NestingError("the values are nested too deeply to compare") from None


def _subset(actual: Any, expected: Any) -> bool:
    pending = [(actual, expected)]
    while pending:
        actual, expected = pending.pop()
        if isinstance(expected, dict):
            if not isinstance(actual, dict):
                return False
            for key, value in expected.items():
                if key not in actual:
                    return False
                pending.append((actual[key], value))
        elif isinstance(expected, list):
            if not (isinstance(actual, list) and _multiset_match(actual, expected)):
                return False
        elif not json_equal(actual, expected):
            return False
    return True


def _multiset_match(actual: list, expected: list) -> bool:
    """Each expected item pairs with a distinct actual item (a maximum bipartite matching).

    Equal items are grouped first, so ``subset`` runs once per distinct pair of items.
    """
    if len(expected) > len(actual):
        return False
    if len(expected) == 1:  # nothing to pair: any fitting item will do
        return any(_subset(item, expected[0]) for item in actual)
    expected_group, expected_members = group(json_key(e) for e in expected)
    _, actual_members = group(json_key(a) for a in actual)
    edges = [[g for g, members in enumerate(actual_members) if _subset(actual[members[0]], expected[first[0]])]
             for first in expected_members]
    return len(match_groups(expected_group, actual_members, edges)) == len(expected)


def contains(actual: Any, expected: Any) -> bool:
    """Substring for strings, membership for a list and a non-list, subset otherwise."""
    try:
        return _contains(actual, expected)
    except RecursionError:
        raise NestingError("the values are nested too deeply to compare") from None


def _contains(actual: Any, expected: Any) -> bool:
    if isinstance(actual, str) and isinstance(expected, str):
        return expected in actual
    if isinstance(actual, list) and not isinstance(expected, list):
        return any(_subset(item, expected) for item in actual)
    return _subset(actual, expected)


_VALIDATORS: dict[str, Any] = {}
_BY_OBJECT: dict[int, tuple[Any, Any]] = {}


def schema_validator(schema: Any):
    """A checked, compiled validator for ``schema``; one per distinct schema per process.

    Looked up first by the schema object itself (an expectation checks the same object
    run after run), then by its canonical JSON.
    """
    hit = _BY_OBJECT.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    key = json.dumps(schema, sort_keys=True)
    validator = _VALIDATORS.get(key)
    if validator is None:
        validator = _VALIDATORS[key] = _compile_schema(schema)
    _BY_OBJECT[id(schema)] = (schema, validator)
    return validator


def _compile_schema(schema: Any):
    import jsonschema

    if not isinstance(schema, (dict, bool)):
        raise MalformedSchema(f"the schema matcher takes a JSON Schema object, found {type_name(schema)}")
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = format_path(list(exc.path)) or "the schema"
        raise MalformedSchema(f"malformed JSON Schema at {where}: {exc.message}") from None
    for where, ref in _refs(schema, ()):
        target = _local_ref(schema, ref)
        if target is None:
            raise MalformedSchema(f"JSON Schema $ref {ref!r} at {format_path(list(where)) or 'the schema'} "
                                    "does not point inside this schema (only local '#/...' refs: nothing is fetched)")
    from referencing import Registry

    return cls(schema, registry=Registry())  # an empty registry: a $ref never reaches the network


def _refs(node: Any, where: tuple):
    """Every ``$ref`` in a schema, with where it stands."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield where, value
            else:
                yield from _refs(value, where + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _refs(value, where + (i,))


def _local_ref(schema: Any, ref: str) -> Any:
    """The part of ``schema`` a ``#/a/b`` ref names, or None."""
    if ref == "#":
        return schema
    if not ref.startswith("#/"):
        return None
    node = schema
    for raw in ref[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node
