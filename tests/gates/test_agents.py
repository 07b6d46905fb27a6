"""Agent tests as users write them: agents:/tests:, expected_trace, golden, envelopes, errors."""

from __future__ import annotations

import json

import pytest

from pytest_mcptest.errors import InputError
from pytest_mcptest.gates.evaluate import evaluate
from pytest_mcptest.gates.suite_build import load_suite


def _cassette(*runs):
    return json.dumps({"mcptest_cassette": 1, "runs": [
        {"tool_calls": [{"name": n, "args": a} for n, a in run],
         "conversation": {"turns": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "done: 42"}],
                          "tokens": {"input": 10, "output": 5, "total": 15}}}
        for run in runs]})


SUITE = """\
agents:
  - name: researcher
    model: m1
    prompt: find it
    cassette: run.json
    expected_trace: {mode: subsequence, calls: [search, fetch]}
    golden: {calls: [search, fetch]}
    expect:
      - final_response: {contains: "42"}
      - conversation.tokens.total: {"<=": 20}
tests:
  - name: researcher strictly
    type: agent
    agent: researcher
    cassette: run.json
    expected_trace:
      mode: strict
      calls: [{name: search, args: {exact: {q: rust}}}, fetch]
"""


@pytest.fixture
def suite(tmp_path):
    (tmp_path / "a.mcptest.yml").write_text(SUITE)
    (tmp_path / "run.json").write_text(_cassette([("search", {"q": "rust"}), ("fetch", {"url": "u"})]))
    return load_suite(str(tmp_path / "a.mcptest.yml"))


def test_tests_take_the_agent_definition_but_not_its_gates(suite):
    agent, test = suite.blocks
    assert (test.model, test.prompt) == ("m1", "find it")
    assert test.golden is None and test.expect == ()
    assert test.trace.mode == "strict" and agent.trace.mode == "subsequence"


def test_envelope_carries_trace_golden_and_conversation(suite):
    verdict = evaluate(suite.blocks[0])
    assert verdict.passed, verdict.failures
    env = verdict.envelope
    assert env["trace"]["passed"] is True and env["trace"]["pairs"] == [[0, 0], [1, 1]]
    assert env["golden"]["penalty"] == 1.0 and env["golden"]["passed"] is True
    assert env["final_response"] == "done: 42" and env["conversation"]["tokens"]["total"] == 15
    assert env["tool_names"] == ["search", "fetch"] and env["tool_calls"][0]["args"] == {"q": "rust"}


def test_each_run_is_gated_and_named(tmp_path, suite):
    (tmp_path / "run.json").write_text(_cassette(
        [("search", {"q": "rust"}), ("fetch", {})],
        [("fetch", {}), ("search", {"q": "go"}), ("fetch", {})]))
    verdict = evaluate(load_suite(str(tmp_path / "a.mcptest.yml")).blocks[1])
    assert [r.passed for r in verdict.runs] == [True, False]
    gates = {(f.gate, f.run) for f in verdict.failures}
    assert gates == {("expected_trace", 2)}
    reasons = [f.message for f in verdict.failures]
    assert "call 1: search exact {\"q\": \"rust\"} does not match" in reasons
    assert any("beyond the 2 expected calls" in r for r in reasons)


def test_golden_waste_fails_an_agent_test(tmp_path, suite):
    (tmp_path / "run.json").write_text(_cassette([("search", {}), ("search", {}), ("fetch", {})]))
    verdict = evaluate(load_suite(str(tmp_path / "a.mcptest.yml")).blocks[0])
    golden = [f.message for f in verdict.failures if f.gate == "golden"]
    assert golden == ["penalty 0.5: 1 extra step, 0 backtracks, 1 repeated tool"]
    assert verdict.envelope["golden"]["repeated_tools"] == 1


def test_failure_text_puts_expected_and_recorded_side_by_side(pytester):
    pytester.makefile(".mcptest.yml", a=SUITE)
    (pytester.path / "run.json").write_text(_cassette([("search", {"q": "go"}), ("fetch", {})]))
    result = pytester.runpytest("-k", "strictly")
    result.assert_outcomes(failed=1, deselected=1)
    result.stdout.fnmatch_lines([
        "a.mcptest.yml:12: agent failed: 1 expected_trace (cassette run.json, 1 run, 2 calls)",
        "*expected_trace (strict): 1 mismatch",
        "*expected 1*recorded 1 search {\"q\": \"go\"}*call 1: search exact {\"q\": \"rust\"} does not match",
        "*args/q: expected \"rust\", recorded \"go\"",
    ])


def _error(tmp_path, text):
    path = tmp_path / "bad.mcptest.yml"
    path.write_text(text)
    with pytest.raises(InputError) as exc:
        load_suite(str(path))
    return exc.value


def test_unknown_agent_name_is_a_collection_error(tmp_path):
    err = _error(tmp_path, "agents:\n  - name: researcher\ntests:\n  - name: t\n    type: agent\n    agent: reseacher\n")
    assert err.line == 6 and "no agent named 'reseacher'" in err.message and "did you mean 'researcher'?" in err.message


@pytest.mark.parametrize("args, words", [
    ("{subsett: {q: 1}}", ["args must be any, ignore, {exact: ...}, {subset: ...} or {schema: ...}"]),
    ("everything", ["args must be any, ignore"]),
    ("{schema: {type: nope}}", ["malformed JSON Schema"]),
])
def test_bad_argument_shapes_are_collection_errors(tmp_path, args, words):
    err = _error(tmp_path, f"agents:\n  - name: a\n    expected_trace:\n      calls:\n        - {{name: s, args: {args}}}\n")
    assert err.line == 5
    for word in words:
        assert word in err.message


def test_bad_mode_is_a_collection_error(tmp_path):
    err = _error(tmp_path, "agents:\n  - name: a\n    expected_trace: {mode: sequence, calls: [s]}\n")
    assert err.line == 3 and "must be one of" in err.message and "subsequence" in err.message


def test_distractors_is_its_own_item_not_a_failure_of_the_agent(tmp_path, suite):
    (tmp_path / "a.mcptest.yml").write_text(
        "agents:\n  - name: a\n    cassette: run.json\n"
        "    distractors: {count: 2}\n")
    agent, distractors = load_suite(str(tmp_path / "a.mcptest.yml")).blocks
    assert evaluate(agent).passed and distractors.kind == "distractors"
    assert (distractors.kind, distractors.name, distractors.cassette) == ("distractors", "a [distractors]", "run.json")
