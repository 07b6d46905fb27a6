"""The strict input-schema lint: rules SCH-001..004 (``schema_criticals`` / ``schema_warnings``).

A description tells an agent what to send; the input schema is what lets a client (and
the server) reject a bad call before it runs. These rules ask whether the schema
constrains the call at all:

- SCH-001 (Warning): an object schema with properties but no ``required`` list, so every
  argument silently reads as optional. ``required: []`` is an explicit answer and passes.
- SCH-002 (Warning): an object schema whose ``additionalProperties`` is not ``false``
  (absent, ``true`` or a schema), so misspelled arguments are accepted and ignored.
  It applies to argument-less tools too: ``{}`` is still an open object.
- SCH-003 (Critical): a property with neither ``type`` nor ``enum``: nothing says what
  value it takes. ``const`` and the compositions ``anyOf``, ``oneOf``, ``allOf`` and
  ``$ref`` also count as declaring the type, because generators (pydantic, zod) spell
  ``Optional[str]`` as ``anyOf: [{type: string}, {type: null}]``; reading them as
  untyped would put a Critical on every optional argument of most published servers.
- SCH-004 (Warning): a property whose type is (or includes) ``string`` without
  ``maxLength`` (an ``enum``, ``const`` or ``format`` bounds it already and passes),
  or ``array`` without ``maxItems``.

The rules apply to the tool's ``inputSchema`` and, recursively, to every object schema
reached through ``properties`` and ``items`` (arguments that are objects or arrays of
objects). ``argument`` names the place with dots and ``[]`` for array items
(``entities[].name``); it is None for the top-level object. Findings are only the
rules that fired (no synthetic Pass: that belongs to the description lint); they share
:class:`~.description_rules.Finding`.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from .catalog import input_schema, tool_name, type_names
from .description_rules import CRITICAL, WARNING, Finding

SCHEMA_RULES: dict[str, tuple[str, str]] = {
    "SCH-001": (WARNING, "Properties without a required list"),
    "SCH-002": (WARNING, "additionalProperties is not false"),
    "SCH-003": (CRITICAL, "A property with neither type nor enum"),
    "SCH-004": (WARNING, "A string without maxLength or an array without maxItems"),
}

_TYPED_BY = ("type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref")
_MAX_DEPTH = 32


def _f(rule: str, tool: str, where: Optional[str], message: str, suggestion: str) -> Finding:
    return Finding(rule=rule, severity=SCHEMA_RULES[rule][0], message=message, tool=tool, suggestion=suggestion,
                   argument=where)


def _label(where: Optional[str]) -> str:
    return "the input schema" if where is None else f"object {where!r}"


def _object(schema: Mapping, tool: str, where: Optional[str], out: list, depth: int) -> None:
    props = schema.get("properties")
    props = props if isinstance(props, dict) else {}
    if props and not isinstance(schema.get("required"), list):
        out.append(_f("SCH-001", tool, where, f"{_label(where)} has properties but no required list",
                      "list the required arguments, or 'required: []' when all are optional"))
    if schema.get("additionalProperties") is not False:
        out.append(_f("SCH-002", tool, where, f"{_label(where)} does not set additionalProperties to false",
                      "add 'additionalProperties: false' so unknown arguments are rejected"))
    for name, prop in props.items():
        path = f"{where}.{name}" if where else str(name)
        _property(prop, tool, path, out, depth)


def _property(prop: Any, tool: str, path: str, out: list, depth: int) -> None:
    if not isinstance(prop, dict):
        out.append(_f("SCH-003", tool, path, f"property {path!r} is not a schema object",
                      "give it a 'type' (or an 'enum')"))
        return
    if not any(k in prop for k in _TYPED_BY):
        out.append(_f("SCH-003", tool, path, f"property {path!r} has neither type nor enum",
                      "give it a 'type' (or an 'enum' of the allowed values)"))
    types = type_names(prop)
    if "string" in types and not any(k in prop for k in ("maxLength", "enum", "const", "format")):
        out.append(_f("SCH-004", tool, path, f"string property {path!r} has no maxLength",
                      "add a maxLength that fits the longest sensible value"))
    if "array" in types and "maxItems" not in prop:
        out.append(_f("SCH-004", tool, path, f"array property {path!r} has no maxItems",
                      "add a maxItems that bounds the call"))
    if depth >= _MAX_DEPTH:
        return
    if "object" in types or isinstance(prop.get("properties"), dict):
        _object(prop, tool, path, out, depth + 1)
    items = prop.get("items")
    if isinstance(items, dict) and ("object" in type_names(items) or isinstance(items.get("properties"), dict)):
        _object(items, tool, path + "[]", out, depth + 1)


def lint_tool_schema(tool: Mapping) -> tuple[Finding, ...]:
    """The SCH findings of one tool's input schema (empty when none fires).

    A tool without any ``inputSchema`` object is read as ``{}``: an open object, SCH-002.
    """
    out: list[Finding] = []
    _object(input_schema(tool), tool_name(tool), None, out, 0)
    return tuple(out)
