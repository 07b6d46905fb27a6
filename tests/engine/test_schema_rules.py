"""The strict input-schema lint: SCH-001..004 firing and not firing."""

from __future__ import annotations

import pytest

from pytest_mcptest.engine.schema_rules import SCHEMA_RULES, lint_tool_schema


def tool(schema) -> dict:
    return {"name": "t", "description": "Return things for the tests.", "inputSchema": schema}


def strict(props, required=()) -> dict:
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}


def rules(schema) -> list[tuple[str, object]]:
    return [(f.rule, f.argument) for f in lint_tool_schema(tool(schema))]


def test_severities():
    assert {r: s for r, (s, _) in SCHEMA_RULES.items()} == {
        "SCH-001": "Warning", "SCH-002": "Warning", "SCH-003": "Critical", "SCH-004": "Warning"}


def test_strict_schema_is_clean():
    props = {"q": {"type": "string", "maxLength": 100}, "tags": {"type": "array", "maxItems": 5,
                                                                 "items": {"type": "string"}},
             "n": {"type": "integer"}, "mode": {"enum": ["a", "b"]}}
    assert rules(strict(props, ["q"])) == []


def test_sch001_properties_without_required_list():
    schema = strict({"n": {"type": "integer"}})
    del schema["required"]
    assert rules(schema) == [("SCH-001", None)]
    schema["required"] = "n"
    assert rules(schema) == [("SCH-001", None)]


def test_sch001_quiet_without_properties_or_with_empty_required():
    assert rules(strict({})) == []
    assert rules(strict({"n": {"type": "integer"}}, [])) == []


@pytest.mark.parametrize("value", ["absent", True, {"type": "string"}, None])
def test_sch002_additional_properties_not_false(value):
    schema = strict({"n": {"type": "integer"}})
    if value == "absent":
        del schema["additionalProperties"]
    else:
        schema["additionalProperties"] = value
    assert rules(schema) == [("SCH-002", None)]


def test_sch002_on_tool_without_schema():
    assert [f.rule for f in lint_tool_schema({"name": "bare"})] == ["SCH-002"]


def test_sch003_untyped_property_is_critical():
    findings = lint_tool_schema(tool(strict({"x": {"description": "anything"}, "y": "junk"})))
    assert [(f.rule, f.severity, f.argument) for f in findings] == [
        ("SCH-003", "Critical", "x"), ("SCH-003", "Critical", "y")]


@pytest.mark.parametrize("prop", [{"enum": [1, 2]}, {"const": 3}, {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                                  {"oneOf": [{"type": "integer"}]}, {"$ref": "#/$defs/X"}, {"type": "integer"}])
def test_sch003_quiet_when_typed(prop):
    assert rules(strict({"x": prop})) == []


@pytest.mark.parametrize("prop, fires", [
    ({"type": "string"}, True),
    ({"type": ["string", "null"]}, True),
    ({"type": "string", "maxLength": 10}, False),
    ({"type": "string", "enum": ["a"]}, False),
    ({"type": "string", "format": "uri"}, False),
    ({"type": "array", "items": {"type": "integer"}}, True),
    ({"type": "array", "maxItems": 3}, False),
    ({"type": "number"}, False),
])
def test_sch004_unbounded_strings_and_arrays(prop, fires):
    assert (rules(strict({"x": prop})) == [("SCH-004", "x")]) is fires
    if not fires:
        assert rules(strict({"x": prop})) == []


def test_nested_objects_and_array_items_are_checked_with_paths():
    schema = strict({"entities": {"type": "array", "maxItems": 10, "items": {
        "type": "object", "properties": {"name": {"type": "string"}, "meta": {}}}}})
    assert rules(schema) == [("SCH-001", "entities[]"), ("SCH-002", "entities[]"),
                             ("SCH-004", "entities[].name"), ("SCH-003", "entities[].meta")]


