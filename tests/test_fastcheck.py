"""The compiled fast check agrees with jsonschema on the shipped schema."""

from __future__ import annotations

import pathlib

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_mcptest.suite.fastcheck import UnsupportedSchema, compile_schema
from pytest_mcptest.suite.loader import load_documents
from pytest_mcptest.suite.validate import fast_check, schema

REFERENCE = jsonschema.Draft202012Validator(schema())
EXAMPLES = sorted((pathlib.Path(__file__).resolve().parent.parent / "examples").rglob("*.mcptest.yml"))

# Words the schema knows, so generated documents are often nearly valid.
WORDS = sorted({
    "scenarios", "agents", "tests", "servers", "conversations", "tool_quality", "tool_bench", "x-defaults",
    "name", "cassette", "seed", "transitions", "forbidden", "golden", "expect_state", "expect", "refusal",
    "escalation", "rubric", "skip", "xfail", "marks", "tags", "tool", "effect", "when", "reason", "calls",
    "alternates", "allow_extra_steps", "markers", "tools", "target", "matcher", "exact", "contains", "regex",
    "schema", ">=", "strict", "type", "agent", "command", "catalog", "synthetic_user", "evaluation",
    "description", "runs", "mode", "classes", "members", "server", "min_drop", "intents",
    "distractors", "count", "source", "from", "of", "correct", "complexity", "near_duplicate", "orchestration",
    "discovery", "name_free", "mutations", "query", "gold", "kind", "chars", "word", "truncate", "drop_keyword",
    "catalog_path", "tool_selection", "expected_tool", "min_selection_rate", "expected_trace", "args",
})
scalars = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.floats(allow_nan=False, width=16),
                    st.sampled_from(WORDS + ["", "a::b", "agent"]))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(WORDS), inner, max_size=4)),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(WORDS), values, max_size=4))
def test_agrees_with_jsonschema_on_generated_documents(doc):
    assert fast_check()(doc) == REFERENCE.is_valid(doc)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_are_valid_for_both(path):
    for doc, _ in load_documents(str(path), path.read_text()):
        assert fast_check()(doc) and REFERENCE.is_valid(doc)


@pytest.mark.parametrize("doc, valid", [
    ({"scenarios": [{"name": "a", "golden": {"calls": ["x"]}}]}, True),
    ({"scenarios": [{"name": "a::b"}]}, False),
    ({"scenarios": [{"name": "a", "seeds": {}}]}, False),
    ({"scenarios": [{"name": "a", "expect": [{"turns": {"exact": 1}}]}]}, True),
    ({"scenarios": [{"name": "a", "expect": [{"turns": {"exakt": 1}}]}]}, False),
    ({"servers": {"s": {"command": ["x"], "catalog": "c.json"}}}, False),
    ({"name": "n", "description": "d", "synthetic_user": {}, "evaluation": {}}, False),
    ({"name": "n", "description": "d", "synthetic_user": {"persona": "p", "initial_query": "q"},
      "evaluation": {"correctness_criteria": ["c"]}}, True),
    ({"name": "n", "description": "  ", "synthetic_user": {"persona": "p", "initial_query": "q"},
      "evaluation": {"correctness_criteria": ["c"]}}, False),
    ({"x-anchors": [1, 2]}, True),
    ({"agents": [{"name": "a", "expct": []}]}, False),
    ({"agents": [{"name": "a", "distractors": {"source": "catalog", "count": 2}}]}, True),
    ({"agents": [{"name": "a", "distractors": {"source": {"from": "near_duplicate"}}}]}, False),
    ({"agents": [{"name": "a", "distractors": {"source": {"from": "near_duplicate", "of": ["x"]}}}]}, True),
    ({"tests": [{"name": "t", "type": "agent", "agent": "a", "golden_path": {}}]}, False),
    ({"tool_bench": [{"name": "b", "catalog": [], "catalog_path": "c.json"}]}, False),
    ({"tool_bench": [{"name": "b", "catalog": [], "mutations": [{"tool": "a", "kind": "truncate"}]}]}, False),
    ({"tool_bench": [{"name": "b", "catalog": [], "mutations": [{"tool": "a", "kind": "truncate", "chars": 3}]}]},
     True),
])
def test_hand_picked_documents(doc, valid):
    assert fast_check()(doc) is valid
    assert REFERENCE.is_valid(doc) is valid


def test_unknown_keywords_are_refused_at_compile_time():
    with pytest.raises(UnsupportedSchema, match="uniqueItems"):
        compile_schema({"type": "array", "uniqueItems": True})
