"""Failure modes: one per failing run, from its trace; counted in the terminal, the report and the HTML."""

from __future__ import annotations

import json

import pytest

from pytest_mcptest.engine.failure_modes import MODES, add_counts, describe, item_modes, run_mode


def _call(name, error=False, **extra):
    return {"name": name, "args": {}, "error": error, **extra}


@pytest.mark.parametrize("calls, failures, envelope, mode", [
    ([], [("expected_trace", "expected call 1 search: not found in the trace")], {}, "no_tool_use"),
    ([], [("expect", "final_response: expected to contain 'refund'")], {}, "wrong_answer"),
    ([_call("drop_table")], [("forbidden_transition", "call 1 drop_table {}: forbidden")], {}, "forbidden_action"),
    ([_call("a", args_invalid_json=True)], [("expect", "actions: expected < 1")], {}, "malformed_call"),
    ([_call("a")], [("invalid_action", "call 1 a {}: no transition")], {}, "malformed_call"),
    ([_call("refund", True), _call("search")], [("expect", "final_response: ...")], {}, "error_not_recovered"),
    ([_call("refund", True), _call("refund")], [("expect", "actions: expected <= 1, got 2")], {}, "over_budget"),
    ([_call("a")], [("expect", "conversation.tokens.total: expected < 10, got 99")], {}, "over_budget"),
    ([_call("a"), _call("b")], [("golden", "penalty 2: 1 extra steps")], {"golden": {"extra_steps": 1}}, "over_budget"),
    ([_call("get_weather")], [("expected_trace", "call 1: get_weather exact {...} does not match")],
     {"trace": {"mismatches": [{"expected_index": 0, "recorded_index": 0, "diffs": [{"pointer": "/city"}],
                                "reason": "call 1 does not match"}]}}, "wrong_arguments"),
    ([_call("search")], [("expected_trace", "expected call 2 fetch: the trace ran out after 1 call")],
     {"trace": {"mismatches": [{"expected_index": 1, "recorded_index": None, "diffs": [],
                                "reason": "expected call 2 fetch: the trace ran out after 1 call"}]}}, "early_stop"),
    ([_call("search")], [("expected_trace", "expected call 1 fetch: not found in the trace")],
     {"trace": {"mismatches": [{"expected_index": 0, "recorded_index": None, "diffs": [],
                                "reason": "expected call 1 fetch: not found in the trace"}]}}, "wrong_tool"),
    ([_call("add")], [("expect_state", "inventory.widgets: expected 5, got 4")], {}, "early_stop"),
    ([_call("a")], [("prohibited_tools", "call 1 a: a prohibited tool was called")], {}, "forbidden_action"),
    ([_call("a")], [("required_tools", "required tool 'b' was never called")], {}, "wrong_tool"),
    ([_call("a")], [("judgment", "failed: 'is polite'")], {}, "wrong_answer"),
    ([_call("a")], [("loop", "the user repeated the same message")], {}, "other"),
    # another tool in the expected one's place: once wrong_arguments (its arguments differ too)
    ([_call("search")], [("expected_trace", "call 1: get_weather exact {...} does not match")],
     {"trace": {"mismatches": [{"expected_index": 0, "recorded_index": 0, "reason": "call 1 does not match",
                                "diffs": [{"pointer": "/name"}, {"pointer": "/args/city"}]}]}}, "wrong_tool"),
    # an expect: on the golden gate's own figure: once other
    ([_call("search")], [("expect", "golden.matched: expected exactly true, got false")], {}, "wrong_tool"),
    ([_call("a"), _call("a")], [("expect", "golden.matched: expected exactly true, got false")],
     {"golden": {"extra_steps": 1}}, "over_budget"),
])
def test_each_mode(calls, failures, envelope, mode):
    assert run_mode({"tool_calls": calls, **envelope}, failures) == mode


def test_an_envelope_that_lists_no_calls_is_not_no_tool_use():
    """A third-party gate's envelope need not list the run's calls: its failure is not taken
    for a run that made none (it was)."""
    assert run_mode({"score": 0.2}, [("my_gate", "score 0.2 below 0.5")]) == "other"
    assert run_mode({"tool_calls": []}, [("my_gate", "score 0.2 below 0.5")]) == "no_tool_use"


def test_a_passing_run_has_no_mode_and_counts_are_ordered():
    assert run_mode({"tool_calls": []}, []) is None
    runs = [({"tool_calls": []}, [("expected_trace", "x")]), ({"tool_calls": [_call("a", True)]}, [("expect", "x")]),
            ({"tool_calls": [_call("a", True)]}, [("expect", "x")]), ({"tool_calls": []}, [])]
    counts = item_modes(runs)
    assert counts == {"no_tool_use": 1, "error_not_recovered": 2} and list(counts) == [m for m in MODES if m in counts]
    assert describe(counts) == "2 error_not_recovered, 1 no_tool_use"
    assert item_modes([({"tool_calls": [_call("a")]}, [])], [("tool_selection", "rate 50 < 80")]) == {"wrong_tool": 1}
    assert add_counts({"wrong_tool": 1}, {"wrong_tool": 2, "bogus": 5, "other": "x"}) == {"wrong_tool": 3}


SUITE = """\
agents:
  - name: no recovery
    cassette: failed_call.json
    expect: [{final_response: {contains: refunded}}]
  - name: never called
    cassette: no_calls.json
    expected_trace: {mode: subsequence, calls: [refund]}
  - name: fine
    cassette: failed_call.json
"""


def test_counted_in_terminal_report_and_html(pytester):
    failed_call = {"runs": [{"tool_calls": [{"name": "refund", "error": True}],
                             "conversation": {"turns": [{"role": "assistant", "content": "sorry"}]}}] * 2}
    no_calls = {"runs": [{"tool_calls": [], "conversation": {"turns": []}}]}
    pytester.makefile(".json", failed_call=json.dumps(failed_call), no_calls=json.dumps(no_calls))
    pytester.makefile(".mcptest.yml", suite=SUITE)
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report", "r.json", "--mcptest-html", "r.html")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*mcptest: failure modes*", "failing runs by mode: 2 error_not_recovered, 1 no_tool_use"])
    report = json.loads((pytester.path / "r.json").read_text())
    by_name = {i["name"]: i for i in report["items"]}
    assert by_name["no recovery"]["failure_modes"] == {"error_not_recovered": 2}
    assert by_name["never called"]["failure_modes"] == {"no_tool_use": 1}
    assert "failure_modes" not in by_name["fine"]
    assert report["failure_modes"] == {"no_tool_use": 1, "error_not_recovered": 2}
    html = (pytester.path / "r.html").read_text()
    assert '<dd data-count="failure_modes">2 error_not_recovered, 1 no_tool_use</dd>' in html


def test_a_failed_catalog_has_no_failure_mode(pytester):
    """Failure modes name how an agent's run went wrong: a catalog that fails its quality
    gates is no run (it was counted as one "no_tool_use" run)."""
    bad = {"tools": [{"name": "do_it", "description": "do_it", "inputSchema": {"type": "object"}}]}
    pytester.makefile(".json", catalog=json.dumps(bad), no_calls=json.dumps({"runs": [{"tool_calls": []}]}))
    pytester.makefile(".mcptest.yml", suite=(
        "servers:\n  legacy: {catalog: catalog.json}\n"
        "tool_quality:\n  - {name: legacy tools, server: legacy}\n"
        "agents:\n  - name: never called\n    cassette: no_calls.json\n"
        "    expected_trace: {mode: subsequence, calls: [refund]}\n"))
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report", "r.json")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["failing runs by mode: 1 no_tool_use"])
    report = json.loads((pytester.path / "r.json").read_text())
    by_name = {i["name"]: i for i in report["items"]}
    assert "failure_modes" not in by_name["legacy tools"]
    assert by_name["never called"]["failure_modes"] == {"no_tool_use": 1}
    assert report["failure_modes"] == {"no_tool_use": 1}
