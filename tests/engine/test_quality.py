"""TDQS scoring and the tool_quality envelope: bounds, weights, defaults, smells, properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.engine.quality import (
    DEFAULT_GATES,
    SMELL_OF_RULE,
    SMELLS,
    WEIGHTS,
    score_catalog,
    score_components,
    score_tool,
)

GOOD = {
    "name": "search_orders",
    "description": "Search the order database by customer email and return a list of matching orders.",
    "inputSchema": {"type": "object", "properties": {
        "email": {"type": "string", "description": "Customer email", "maxLength": 254}},
        "required": ["email"], "additionalProperties": False},
    "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    "examples": [{"email": "ada@example.com"}],
}


def test_weights_sum_to_one_and_cover_six_heuristics():
    assert set(WEIGHTS) == {"description", "parameters", "conciseness", "return_format", "annotations", "examples"}
    assert sum(WEIGHTS.values()) == pytest.approx(1.0)


def test_good_tool_scores_one():
    quality = score_tool(GOOD)
    assert quality.score == 1.0
    assert set(quality.components.values()) == {1.0}
    assert [f.rule for f in quality.findings] == ["DESC-000"]
    assert quality.schema_findings == ()


def test_bare_tool_scores_low_but_not_negative():
    quality = score_tool({"name": "x"})
    # no description, no return format, no annotations; empty schema: params, conciseness, examples full
    assert quality.components == {"description": 0.0, "parameters": 1.0, "conciseness": 1.0, "return_format": 0.0,
                                  "annotations": 0.0, "examples": 1.0}
    assert quality.score == pytest.approx(0.45)


@pytest.mark.parametrize("length, expected", [(19, 0.25), (20, 0.6), (40, 0.8), (60, 1.0), (300, 1.0)])
def test_description_length_ramp(length, expected):
    text = ("Return " + "x" * 600)[:length]
    assert score_components({**GOOD, "description": text})["description"] == pytest.approx(expected)


def test_description_equal_to_name_scores_zero():
    assert score_components({**GOOD, "description": "Search orders"})["description"] == 0.0


def test_conciseness_falls_after_500_and_halves_for_inverted_density():
    text = "Return " + "x" * 993  # 1000 chars
    assert score_components({**GOOD, "description": text})["conciseness"] == pytest.approx(0.5)
    long_arg = {**GOOD, "description": "Return the orders of a customer.",
                "inputSchema": {"type": "object", "properties": {"email": {"type": "string",
                                                                           "description": "y" * 100}}}}
    assert score_components(long_arg)["conciseness"] == 0.5


def test_parameters_weigh_required_more():
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a"]}
    assert score_components({**GOOD, "inputSchema": schema})["parameters"] == pytest.approx(0.25)


def test_annotation_hints():
    assert score_components({**GOOD, "annotations": {}})["annotations"] == 0.5
    assert score_components({**GOOD, "annotations": {"readOnlyHint": "yes"}})["annotations"] == 0.375
    assert score_components({**GOOD, "annotations": None})["annotations"] == 0.0


def test_catalog_envelope_targets():
    bad = {"name": "thing", "description": "thing"}
    quality = score_catalog({"tools": [GOOD, bad]})
    env = quality.to_dict()
    assert env["tool"]["search_orders"]["score"] == 1.0
    assert env["tool"]["thing"]["score"] == score_tool(bad).score
    assert env["min_score"] == score_tool(bad).score
    assert env["mean_score"] == pytest.approx((1.0 + score_tool(bad).score) / 2, abs=1e-4)
    # "thing": DESC-001 and DESC-003 (critical), DESC-004, DESC-010, DESC-012
    assert env["critical_count"] == 2
    assert env["warning_count"] == 3
    assert env["rules"] == {"DESC-001": 1, "DESC-003": 1, "DESC-004": 1, "DESC-010": 1, "DESC-012": 1,
                            "SCH-002": 1}
    assert env["schema_criticals"] == 0 and env["schema_warnings"] == 1
    assert env["smells"] == {"underspecified": 1, "verbose": 0, "uninformative": 2, "brittle": 0,
                             "missing_examples": 0, "missing_return_format": 1, "missing_annotations": 1,
                             "invalid_annotation": 0}
    assert env["smell_total"] == 5
    assert [t["name"] for t in env["tools"]] == ["search_orders", "thing"]
    assert score_catalog([GOOD, bad]).to_dict() == env


def test_empty_catalog_has_no_scores():
    env = score_catalog([]).to_dict()
    assert "min_score" not in env and "mean_score" not in env
    assert env["critical_count"] == 0 and env["smell_total"] == 0


def test_duplicate_names_keep_the_first_in_tool_map():
    env = score_catalog([GOOD, {**GOOD, "description": ""}]).to_dict()
    assert env["tool"]["search_orders"]["score"] == 1.0
    assert len(env["tools"]) == 2


def test_default_gates_are_the_spec_defaults():
    assert DEFAULT_GATES == (
        {"target": "min_score", "matcher": {"schema": {"minimum": 0.50}}},
        {"target": "mean_score", "matcher": {"schema": {"minimum": 0.70}}},
        {"target": "critical_count", "matcher": {"schema": {"maximum": 0}}},
    )


def test_default_gates_compile_and_judge_the_envelope():
    from pytest_mcptest.engine.expect import check, compile_expectation

    good = score_catalog([GOOD]).to_dict()
    bad = score_catalog([GOOD, {"name": "thing", "description": "thing"}]).to_dict()
    assert all(check(compile_expectation(g), good).passed for g in DEFAULT_GATES)
    assert not check(compile_expectation(DEFAULT_GATES[2]), bad).passed
    per_tool = compile_expectation({"target": 'tool["search_orders"].score', "matcher": {"schema": {"minimum": 0.6}}})
    assert check(per_tool, bad).passed


def test_every_rule_maps_to_one_known_smell():
    assert sorted(SMELL_OF_RULE) == [f"DESC-{i:03d}" for i in range(1, 14)]
    assert set(SMELL_OF_RULE.values()) == set(SMELLS)


# --------------------------------------------------------------------------- properties

json_leaf = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=30)
json_value = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.text(max_size=8), inner, max_size=3), max_leaves=8)
prop_schema = st.fixed_dictionaries({}, optional={
    "type": st.sampled_from(["string", "integer", "array", "object", "boolean"]) | json_value,
    "description": st.text(max_size=120) | json_value,
    "enum": st.lists(st.text(max_size=6) | st.integers(), max_size=4) | json_value,
    "default": json_value,
    "maxLength": st.integers(0, 10),
})
tools = st.fixed_dictionaries({"name": st.from_regex(r"[a-z][a-z_]{0,12}", fullmatch=True)}, optional={
    "description": st.text(max_size=700) | json_value,
    "inputSchema": st.fixed_dictionaries({}, optional={
        "properties": st.dictionaries(st.text(min_size=1, max_size=6), prop_schema | json_value, max_size=4),
        "required": st.lists(st.text(max_size=6), max_size=3) | json_value,
        "examples": json_value,
    }) | json_value,
    "annotations": st.dictionaries(st.sampled_from(["readOnlyHint", "destructiveHint", "idempotentHint",
                                                    "openWorldHint", "title"]), json_value, max_size=4) | json_value,
    "outputSchema": json_value,
    "examples": json_value,
})
good_descriptions = st.builds(
    lambda verb, obj, ret: f"{verb} the {obj} and return {ret}.",
    st.sampled_from(["Search", "Create", "Delete", "List", "Fetch", "Update"]),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=5, max_size=200),
    st.sampled_from(["the matching rows", "a JSON object with id and status", "nothing"]),
)


@settings(max_examples=budget(100), deadline=None)
@given(tools)
def test_scores_stay_in_unit_interval(tool):
    quality = score_tool(tool)
    assert 0.0 <= quality.score <= 1.0
    assert all(0.0 <= v <= 1.0 for v in quality.components.values())
    assert quality.findings  # at least the synthetic Pass


@settings(max_examples=budget(100), deadline=None)
@given(tools, good_descriptions)
def test_adding_a_good_description_never_lowers_the_score(tool, description):
    bare = {k: v for k, v in tool.items() if k != "description"}
    described = {**bare, "description": description}
    assert score_tool(described).score >= score_tool(bare).score


@settings(max_examples=budget(50), deadline=None)
@given(st.lists(tools, max_size=5))
def test_catalog_summary_consistent(tool_list):
    env = score_catalog(tool_list).to_dict()
    scores = [t["score"] for t in env["tools"]]
    if scores:
        assert env["min_score"] == min(scores)
        assert min(scores) - 1e-4 <= env["mean_score"] <= max(scores) + 1e-4
    assert env["smell_total"] == sum(env["smells"].values())
    # every fired DESC rule is exactly one smell
    assert env["critical_count"] + env["warning_count"] == env["smell_total"]
