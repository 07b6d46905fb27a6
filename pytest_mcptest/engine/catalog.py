"""Reading an MCP tool catalog (a ``tools/list`` result) as plain data.

The catalog rules (description lint, schema lint, scoring, tool-bench) all read the
same few fields of a tool, and real servers disagree on how much they send: some
tools carry ``title``, ``outputSchema``, ``annotations`` or ``_meta`` and others do
not, and a hand-written catalog may hold anything. These helpers read a tool
defensively, so a rule never crashes on a malformed tool: a field of the wrong JSON
type reads as absent (a description that is not a string is no description).

The wire names are ``inputSchema`` and ``outputSchema``; the mock-server manifest's
``input_schema`` / ``output_schema`` spellings are accepted too.
"""

from __future__ import annotations

from typing import Any, Mapping

from .values import type_name


class CatalogError(ValueError):
    """A catalog that is neither ``{"tools": [...]}`` nor a bare list of tool objects."""


def catalog_tools(catalog: Any) -> list[dict]:
    """The tools of a ``{"tools": [...]}`` object or of a bare list, in catalog order.

    Raises :class:`CatalogError` when the shape is wrong or an entry is not an object:
    a catalog is the input being judged, so a broken one is an error, never an empty pass.
    """
    if isinstance(catalog, Mapping):
        if "tools" not in catalog:
            raise CatalogError("a catalog object needs a 'tools' array")
        tools = catalog["tools"]
    else:
        tools = catalog
    if not isinstance(tools, (list, tuple)):
        raise CatalogError(f"a catalog's tools must be an array, found {type_name(tools)}")
    for i, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            raise CatalogError(f"tools[{i}] must be an object, found {type_name(tool)}")
    return list(tools)


def tool_name(tool: Mapping) -> str:
    name = tool.get("name")
    return name if isinstance(name, str) else ""


def tool_description(tool: Mapping) -> str:
    """The description, or ``""`` when it is absent, null or not a string."""
    text = tool.get("description")
    return text if isinstance(text, str) else ""


def input_schema(tool: Mapping) -> dict:
    schema = tool.get("inputSchema", tool.get("input_schema"))
    return schema if isinstance(schema, dict) else {}


def has_output_schema(tool: Mapping) -> bool:
    return isinstance(tool.get("outputSchema", tool.get("output_schema")), dict)


def properties(schema: Mapping) -> dict:
    """``schema["properties"]`` keeping only entries whose value is an object."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return {}
    return {str(k): v for k, v in props.items() if isinstance(v, dict)}


def required_names(schema: Mapping) -> list[str]:
    req = schema.get("required")
    if not isinstance(req, list):
        return []
    return [r for r in req if isinstance(r, str)]


def prop_description(prop: Mapping) -> str:
    text = prop.get("description")
    return text.strip() if isinstance(text, str) else ""


def type_names(prop: Mapping) -> tuple[str, ...]:
    """The JSON types a property declares (``type`` may be a string or a list)."""
    t = prop.get("type")
    if isinstance(t, str):
        return (t,)
    if isinstance(t, list):
        return tuple(x for x in t if isinstance(x, str))
    return ()
