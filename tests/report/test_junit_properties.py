"""Under ``--junitxml``, each item's kind, verdict, failures per gate and numeric envelope
values are ``<property>`` elements a CI dashboard can chart; one item of each kind is
checked in the parsed XML of ``examples/``."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from pytest_mcptest.report.document import MAX_PROPERTIES


@pytest.fixture(scope="module")
def properties(example_reports) -> dict[str, dict[str, str]]:
    out = {}
    for case in ET.parse(example_reports.junit_path).iter("testcase"):
        out[case.get("name")] = {p.get("name"): p.get("value") for p in case.iter("property")}
    return out


@pytest.mark.parametrize(("name", "kind", "expected"), [
    ("clearance sale on a bad day", "scenario",
     {"mcptest.verdict": "failed", "mcptest.gate.expect_state": "1", "mcptest.gate.expect": "2",
      "mcptest.envelope.forbidden_transitions": "1", "mcptest.envelope.cost_micros": "1400"}),
    ("lisbon weather", "agent",
     {"mcptest.verdict": "passed", "mcptest.envelope.tool_selection.pass_k": "0.9",
      "mcptest.envelope.tool_selection.floor.passed": "true", "mcptest.envelope.tool_selection.tokens_median": "1262.5"}),
    ("notebook search, 4 distractors [distractors]", "distractors",
     {"mcptest.envelope.distractors.accuracy": "67", "mcptest.envelope.distractors.certified_lower": "18.92"}),
    ("partial refund needs a human", "conversation",
     {"mcptest.verdict": "passed", "mcptest.envelope.tokens.total": "2100"}),
    ("legacy catalog (demo of a failure)", "tool_quality",
     {"mcptest.verdict": "failed", "mcptest.gate.expect": "3", "mcptest.envelope.min_score": "0.25",
      "mcptest.envelope.critical_count": "2"}),
    ("weather and money descriptions carry the signal", "tool_bench",
     {"mcptest.envelope.max_drop": "0.333333", "mcptest.envelope.ci_low": "0.438503",
      "mcptest.envelope.passed": "true"}),
])
def test_one_item_of_each_kind_carries_its_metrics(properties, name, kind, expected):
    props = properties[name]
    assert props["mcptest.kind"] == kind
    for key, value in expected.items():
        assert props.get(key) == value, key


def test_properties_are_bounded_and_leave_lists_out(properties):
    for name, props in properties.items():
        assert len(props) <= MAX_PROPERTIES + 3 + sum(1 for k in props if k.startswith("mcptest.gate.")), name
        assert not any("[" in key for key in props), name  # per-run lists stay in the JSON report


def test_the_xml_carries_no_escape_codes(example_reports):
    assert "\x1b" not in example_reports.junit_path.read_text(encoding="utf-8")
