"""The description lint: every DESC rule firing and not firing, on tools made here."""

from __future__ import annotations

import copy

import pytest

from pytest_mcptest.engine.catalog import CatalogError
from pytest_mcptest.engine.description_rules import (
    PASS_RULE,
    RULES,
    Finding,
    has_common_verb,
    lint_catalog,
    lint_tool,
    listed_values,
)

GOOD_DESCRIPTION = ("Search the order database by customer email and return a list of matching orders "
                    "with id, total and status.")


def good_tool(**changes) -> dict:
    """A tool no DESC rule fires on; ``changes`` replace top-level keys (None deletes one)."""
    tool = {
        "name": "search_orders",
        "description": GOOD_DESCRIPTION,
        "inputSchema": {
            "type": "object",
            "properties": {
                "email": {"type": "string", "description": "Customer email address", "maxLength": 254},
                "status": {"type": "string", "enum": ["open", "closed"], "description": "Order status: open or closed"},
            },
            "required": ["email"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
                        "openWorldHint": False},
        "examples": [{"email": "ada@example.com"}],
    }
    for key, value in changes.items():
        if value is None:
            tool.pop(key, None)
        else:
            tool[key] = value
    return tool


def with_props(props: dict, required=(), **changes) -> dict:
    schema = {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}
    return good_tool(inputSchema=schema, **changes)


def rules(tool) -> list[str]:
    return [f.rule for f in lint_tool(tool)]


def fired(tool, rule) -> list[Finding]:
    return [f for f in lint_tool(tool) if f.rule == rule]


# --------------------------------------------------------------------------- the clean tool


def test_clean_tool_gets_one_synthetic_pass():
    findings = lint_tool(good_tool())
    assert len(findings) == 1
    only = findings[0]
    assert (only.rule, only.severity, only.tool) == (PASS_RULE, "Pass", "search_orders")
    assert only.to_dict() == {"rule": "DESC-000", "severity": "Pass", "tool": "search_orders", "argument": None,
                              "message": "no description rule fired", "suggestion": None}


def test_rule_table_has_thirteen_rules_and_the_two_criticals():
    assert sorted(RULES) == [f"DESC-{i:03d}" for i in range(1, 14)]
    assert {r for r, (sev, _) in RULES.items() if sev == "Critical"} == {"DESC-001", "DESC-003"}
    for rule in ("DESC-009", "DESC-010", "DESC-011", "DESC-012", "DESC-013"):
        assert RULES[rule][0] == "Warning"


def test_findings_carry_severity_message_and_suggestion():
    finding = fired(good_tool(description="Get it"), "DESC-001")[0]
    assert finding.severity == "Critical"
    assert finding.tool == "search_orders"
    assert "6 characters" in finding.message
    assert finding.suggestion


# --------------------------------------------------------------------------- DESC-001 / 002


@pytest.mark.parametrize("description", [None, "", "   ", "Get orders", "x" * 19, 42])
def test_desc001_fires_on_empty_or_short(description):
    tool = good_tool(description=description) if description is not None else good_tool(description=None)
    assert "DESC-001" in rules(tool)


@pytest.mark.parametrize("description", ["Return the order list.", "Return orders by id!"])
def test_desc001_quiet_from_20_chars(description):
    assert len(description) >= 20
    assert "DESC-001" not in rules(good_tool(description=description))


def test_desc001_counts_stripped_characters():
    assert "DESC-001" in rules(good_tool(description="  Return orders  " + " " * 10))


def test_desc002_fires_over_500_only():
    base = "Return the orders. "
    exactly = (base * 30)[:500]
    assert "DESC-002" not in rules(good_tool(description=exactly))
    assert "DESC-002" in rules(good_tool(description=exactly + "s"))


# --------------------------------------------------------------------------- DESC-003


@pytest.mark.parametrize("name, description", [
    ("search_orders", "search_orders"),
    ("search_orders", "Search orders."),
    ("searchOrders", "search orders"),
    ("search-orders", "SEARCH ORDERS"),
])
def test_desc003_fires_when_description_repeats_the_name(name, description):
    found = fired(good_tool(name=name, description=description), "DESC-003")
    assert len(found) == 1 and found[0].severity == "Critical"


def test_desc003_quiet_when_the_description_adds_words():
    assert "DESC-003" not in rules(good_tool(description="Search orders and return the matches."))
    assert "DESC-003" not in rules(good_tool(description=""))


# --------------------------------------------------------------------------- DESC-004 / 005


def test_desc004_fires_without_a_common_verb():
    assert "DESC-004" in rules(good_tool(description="The order database, customer email index and totals."))


@pytest.mark.parametrize("text", ["Creates an order.", "Listing every order.", "Order lookup: fetched rows.",
                                  "Deleted orders vanish.", "Queries the archive."])
def test_desc004_accepts_inflected_verbs(text):
    assert has_common_verb(text)


def test_desc004_not_on_empty_description():
    assert "DESC-004" not in rules(good_tool(description=""))


@pytest.mark.parametrize("phrase", ["see above", "See Below", "the previous tool", "the next  tool",
                                    "as described above"])
def test_desc005_fires_on_positional_phrases(phrase):
    tool = good_tool(description=f"Return the order list; for filters {phrase}.")
    assert "DESC-005" in rules(tool)


def test_desc005_quiet_on_flat_wording():
    assert "DESC-005" not in rules(good_tool(description="Return orders above a total, see the status field."))


# --------------------------------------------------------------------------- DESC-006


def test_desc006_fires_per_required_argument_without_description():
    tool = with_props({"a": {"type": "string"}, "b": {"type": "string", "description": "  "},
                       "c": {"type": "string", "description": "fine"}}, required=["a", "b", "c", "ghost"])
    found = fired(tool, "DESC-006")
    assert [f.argument for f in found] == ["a", "b", "ghost"]
    assert all(f.severity == "Warning" for f in found)


def test_desc006_quiet_on_optional_undescribed_argument():
    assert "DESC-006" not in rules(with_props({"a": {"type": "string"}}, required=[]))


# --------------------------------------------------------------------------- DESC-007 / 013


def test_desc007_fires_when_enum_values_are_not_all_mentioned():
    tool = with_props({"level": {"type": "string", "enum": ["error", "warning", "info"],
                                 "description": "Log level, defaults to info"}})
    found = fired(tool, "DESC-007")
    assert len(found) == 1 and found[0].argument == "level"
    assert "error, warning" in found[0].message


def test_desc007_quiet_when_values_mentioned_or_no_description():
    mentioned = with_props({"level": {"type": "string", "enum": ["error", "info", True],
                                      "description": "Either Error, INFO or true"}})
    assert "DESC-007" not in rules(mentioned)
    undescribed = with_props({"level": {"type": "string", "enum": ["error", "info"]}})
    assert "DESC-007" not in rules(undescribed)


def test_desc007_needs_whole_words():
    tool = with_props({"mode": {"type": "string", "enum": ["in", "out"], "description": "Direction of the input"}})
    assert "DESC-007" in rules(tool)


@pytest.mark.parametrize("description, values", [
    ("The new status, one of open, closed, or pending", ["open", "closed", "pending"]),
    ("Sort order: either 'asc' or 'desc'", ["asc", "desc"]),
    ("Allowed values: png, jpeg", ["png", "jpeg"]),
    ("Format, must be json|yaml", ["json", "yaml"]),
    ('Output as "text" | "markdown" | "html"', ["text", "markdown", "html"]),
])
def test_desc013_fires_on_values_spelled_out_without_enum(description, values):
    assert listed_values(description) == values
    for prop in ({"type": "string", "description": description}, {"description": description}):
        found = fired(with_props({"fmt": prop}), "DESC-013")
        assert len(found) == 1 and found[0].argument == "fmt"
        assert "enum" in found[0].suggestion


@pytest.mark.parametrize("description", [
    "IANA timezone name (e.g., 'America/New_York', 'Europe/London').",
    "Path to the file, must be a path or a URL",
    "Customer email address",
    "Free text, for example red, green or blue",
])
def test_desc013_quiet_on_prose_without_a_closed_set(description):
    assert listed_values(description) == []
    assert "DESC-013" not in rules(with_props({"x": {"type": "string", "description": description}}))


def test_desc013_quiet_when_the_list_names_sibling_arguments():
    props = {"text": {"type": "string", "description": "Text to find. Provide either text or regex, not both."},
             "regex": {"type": "string", "description": "A pattern"}}
    assert "DESC-013" not in rules(with_props(props))


def test_desc013_quiet_with_enum_or_non_string_type():
    text = "one of open, closed, or pending"
    assert "DESC-013" not in rules(with_props({"s": {"type": "string", "enum": ["open", "closed", "pending"],
                                                    "description": text}}))
    assert "DESC-013" not in rules(with_props({"n": {"type": "integer", "description": "one of 1, 2 or 3"}}))


# --------------------------------------------------------------------------- DESC-008


def test_desc008_fires_when_argument_text_is_longer_than_tool_text():
    tool = with_props({"q": {"type": "string", "description": "x" * (len(GOOD_DESCRIPTION) + 1)}})
    found = fired(tool, "DESC-008")
    assert len(found) == 1 and found[0].argument == "q"


def test_desc008_quiet_on_equal_length():
    tool = with_props({"q": {"type": "string", "description": "x" * len(GOOD_DESCRIPTION)}})
    assert "DESC-008" not in rules(tool)


# --------------------------------------------------------------------------- DESC-009


@pytest.mark.parametrize("props, required", [
    ({"a": {"type": "string"}, "b": {"type": "string"}}, []),          # more than one property
    ({"a": {"type": "string"}}, ["a"]),                                 # a single required property
    ({"a": {"type": "integer"}}, []),                                   # not a string
    ({"a": {"type": "string", "enum": ["x", "y"]}}, []),                # a constrained string
    ({"a": {"type": "string", "format": "uri"}}, []),
])
def test_desc009_fires_on_non_trivial_schema_without_examples(props, required):
    assert "DESC-009" in rules(with_props(props, required=required, examples=None))


@pytest.mark.parametrize("props", [{}, {"a": {"type": "string"}}])
def test_desc009_quiet_on_trivial_schema(props):
    assert "DESC-009" not in rules(with_props(props, examples=None))


@pytest.mark.parametrize("documented", [
    {"examples": [{"a": "x", "b": 1}]},
    {"props": {"a": {"type": "string", "examples": ["x"]}}},
    {"props": {"a": {"type": "string", "example": "x"}}},
    {"props": {"b": {"type": "integer", "default": 3}}},
    {"schema_examples": [{"a": "x"}]},
])
def test_desc009_quiet_when_documented(documented):
    props = {"a": {"type": "string"}, "b": {"type": "integer"}}
    for name, extra in documented.get("props", {}).items():
        props[name] = extra
    tool = with_props(props, examples=documented.get("examples"))
    if "examples" not in documented:
        tool.pop("examples", None)
    if "schema_examples" in documented:
        tool["inputSchema"]["examples"] = documented["schema_examples"]
    assert "DESC-009" not in rules(tool)


def test_desc009_empty_examples_array_is_not_documentation():
    props = {"a": {"type": "string"}, "b": {"type": "integer"}}
    assert "DESC-009" in rules(with_props(props, examples=[]))


# --------------------------------------------------------------------------- DESC-010


def test_desc010_fires_without_return_words_or_output_schema():
    assert "DESC-010" in rules(good_tool(description="Search the order database by customer email."))


@pytest.mark.parametrize("description", ["Search orders; returns matching rows.", "Search orders and output CSV.",
                                         "Search orders, the result is a list."])
def test_desc010_quiet_with_return_words(description):
    assert "DESC-010" not in rules(good_tool(description=description))


def test_desc010_quiet_with_output_schema_or_empty_description():
    tool = good_tool(description="Search the order database by customer email.",
                     outputSchema={"type": "object"})
    assert "DESC-010" not in rules(tool)
    assert "DESC-010" not in rules(good_tool(description=""))


# --------------------------------------------------------------------------- DESC-011 / 012


def test_desc011_fires_per_non_boolean_hint():
    tool = good_tool(annotations={"readOnlyHint": "true", "destructiveHint": 0, "idempotentHint": None,
                                  "openWorldHint": False, "title": 7})
    found = fired(tool, "DESC-011")
    assert [f.message.split()[0] for f in found] == ["annotations.readOnlyHint", "annotations.destructiveHint",
                                                    "annotations.idempotentHint"]


def test_desc011_quiet_on_booleans_and_absent_hints():
    assert "DESC-011" not in rules(good_tool(annotations={"readOnlyHint": False}))


@pytest.mark.parametrize("annotations", [None, "readonly", ["readOnlyHint"]])
def test_desc012_fires_without_an_annotations_object(annotations):
    tool = good_tool(annotations=None)
    if annotations is not None:
        tool["annotations"] = annotations
    assert "DESC-012" in rules(tool)
    assert "DESC-011" not in rules(tool)


def test_desc012_quiet_on_empty_annotations_object():
    assert "DESC-012" not in rules(good_tool(annotations={}))


# --------------------------------------------------------------------------- robustness and catalogs


@pytest.mark.parametrize("tool", [
    {},
    {"name": 3, "description": ["x"], "inputSchema": "nope", "annotations": 5},
    {"name": "t", "inputSchema": {"properties": {"a": "not a schema", "b": None}, "required": "a"}},
    {"name": "t", "inputSchema": {"properties": ["a"], "required": [1, None]}},
])
def test_malformed_tools_never_crash(tool):
    findings = lint_tool(tool)
    assert findings and all(isinstance(f, Finding) for f in findings)


def test_lint_does_not_change_the_tool():
    tool = good_tool(description="x")
    before = copy.deepcopy(tool)
    lint_tool(tool)
    assert tool == before


def test_lint_catalog_accepts_object_or_list_in_order():
    tools = [good_tool(name="a"), good_tool(name="b", description="")]
    from_object = lint_catalog({"tools": tools})
    assert from_object == lint_catalog(tools)
    # b: DESC-001, and DESC-008 for both described arguments (any argument text is longer than none)
    assert [(f.tool, f.rule) for f in from_object] == [("a", "DESC-000"), ("b", "DESC-001"), ("b", "DESC-008"),
                                                       ("b", "DESC-008")]


@pytest.mark.parametrize("catalog", [{"tool": []}, {"tools": {}}, "tools", [1]])
def test_bad_catalog_shapes_raise(catalog):
    with pytest.raises(CatalogError):
        lint_catalog(catalog)
