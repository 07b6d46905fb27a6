"""A scenario's ``expect:`` on its rubric (``rubric.failed: {"==": 0}``, as docs/scenarios.md and
docs/live.md gate it): with recorded verdicts it is checked; with none the rubric is deferred
(spec: "recorded as deferred in the offline path"), so an entry reading its verdicts is
deferred too, never failed and never passed: listed in the terminal summary, and failed by
``--mcptest-require-judgments``."""

from __future__ import annotations

import json

import pytest

from pytest_mcptest.gates.context import Context
from pytest_mcptest.gates.conversation import DEFERRED
from pytest_mcptest.gates.evaluate import evaluate
from pytest_mcptest.gates.suite_build import load_suite

SUITE = """\
scenarios:
  - name: restock
    cassette: restock.json
    rubric: [The assistant confirms what it did]
    seed: {widgets: 3}
    transitions:
      - {tool: add_widget, effect: {widgets: {inc: 1}}}
    expect_state: {widgets: 4}
    expect:
      - rubric.failed: {"==": 0}
      - rubric.status: {regex: "judged|deferred"}
"""


def _cassette(judgments: list) -> dict:
    return {"mcptest_cassette": 1, "runs": [{
        "tool_calls": [{"name": "add_widget", "args": {}, "result": {"content": [{"type": "text", "text": "ok"}]}}],
        "conversation": {"turns": [{"role": "user", "content": "Restock."},
                                   {"role": "assistant", "content": "I added a widget."}]},
        "judgments": judgments}]}


def _verdict(tmp_path, judgments: list, ctx: Context = Context()):
    (tmp_path / "restock.json").write_text(json.dumps(_cassette(judgments)), encoding="utf-8")
    (tmp_path / "shop.mcptest.yml").write_text(SUITE, encoding="utf-8")
    (block,) = load_suite(str(tmp_path / "shop.mcptest.yml")).blocks
    return evaluate(block, ctx)


def _judged(verdict: str) -> list:
    return [{"criterion": "The assistant confirms what it did", "verdict": verdict, "reason": "r", "model": "m"}]


def test_a_deferred_rubric_defers_the_entries_on_its_verdicts_and_checks_the_others(tmp_path):
    verdict = _verdict(tmp_path, [])
    assert verdict.runs[0].envelope["rubric"]["status"] == "deferred"
    assert verdict.passed, verdict.failures
    assert [r.expectation.target for r in verdict.runs[0].expect_results] == ["rubric.status"]
    assert dict(verdict.summary)[DEFERRED] == ["rubric.failed (the rubric has no recorded verdict)"]
    assert verdict.deferred == ("rubric.failed",)  # the envelope's deferred, as a conversation's: reports list it


def test_judgments_required_a_deferred_rubric_entry_fails(tmp_path):
    verdict = _verdict(tmp_path, [], Context(require_judgments=True))
    assert [(f.gate, f.message) for f in verdict.failures] == [
        ("rubric", "rubric.failed cannot be decided: the rubric has no recorded verdict (judgments are required)")]


@pytest.mark.parametrize("said, passed", [("pass", True), ("fail", False)])
def test_recorded_verdicts_are_gated_by_the_entry(tmp_path, said, passed):
    verdict = _verdict(tmp_path, _judged(said))
    assert verdict.passed is passed
    assert DEFERRED not in dict(verdict.summary) and verdict.deferred == ()
    if not passed:
        assert "rubric.failed: expected == 0, got 1" in verdict.failures[0].message


def test_the_terminal_summary_lists_the_deferred_entry(pytester):
    pytester.makefile(".json", restock=json.dumps(_cassette([])))
    pytester.makefile(".mcptest.yml", shop=SUITE)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*mcptest: 1 criterion deferred (no recorded judge verdict)*",
                                 "*rubric.failed (the rubric has no recorded verdict)"])
