"""Conversation scenarios: validation, defaults, offline gates, judgment replay."""

from __future__ import annotations

import json

import pytest

from pytest_mcptest.engine.conversation import ConversationSpec, evaluate_conversation
from pytest_mcptest.engine.trace import Run, Tokens, ToolCall
from pytest_mcptest.errors import InputError
from pytest_mcptest.gates.evaluate import Context, evaluate
from pytest_mcptest.gates.suite_build import load_suite

MINIMAL = """\
name: Basic Greeting Test
description: Verifies the agent responds to a simple greeting.
synthetic_user:
  persona: A casual user seeking friendly interaction
  initial_query: "Hello! How are you?"
evaluation:
  correctness_criteria:
    - "The agent responds with a greeting"
"""


def _load(tmp_path, text):
    path = tmp_path / "c.mcptest.yml"
    path.write_text(text)
    return load_suite(str(path))


def _error(tmp_path, text) -> InputError:
    with pytest.raises(InputError) as exc:
        _load(tmp_path, text)
    return exc.value


def test_minimal_scenario_and_spec_defaults(tmp_path):
    [block] = _load(tmp_path, MINIMAL).blocks
    assert block.kind == "conversation" and block.name == "Basic Greeting Test"
    assert block.synthetic_user["max_turns"] == 10
    assert block.synthetic_user["clarification_behavior"]["traits"] == {
        "patience": "medium", "verbosity": "concise", "expertise": "novice"}
    assert block.spec.max_turns == 10 and block.spec.correctness == ("The agent responds with a greeting",)


def test_names_and_descriptions_are_trimmed(tmp_path):
    [block] = _load(tmp_path, MINIMAL.replace("name: Basic Greeting Test", "name: '  Basic  '")
                    .replace("description: Verifies the agent responds to a simple greeting.",
                             "description: '  Verifies the greeting.  '")).blocks
    assert block.name == "Basic" and block.description == "Verifies the greeting."


@pytest.mark.parametrize("change, line, words", [
    (("name: Basic Greeting Test\n", ""), 1, ["missing the required key 'name'"]),
    (("description: Verifies the agent responds to a simple greeting.\n", ""), 1, ["required key 'description'"]),
    (("name: Basic Greeting Test", "name: '   '"), 1, ["name must not be empty or only whitespace"]),
    (("description: Verifies the agent responds to a simple greeting.", "description: ''"), 2,
     ["description must not be empty or only whitespace"]),
    (("  persona: A casual user seeking friendly interaction\n", ""), 3, ["required key 'persona'"]),
    (('  initial_query: "Hello! How are you?"', "  initial_query: ' '"), 5, ["initial_query must not be empty"]),
    (('  initial_query: "Hello! How are you?"', '  initial_query: "Hello"\n  max_turns: 0'), 6,
     ["max_turns", "must be >= 1, found 0"]),
    (('  initial_query: "Hello! How are you?"', '  initial_query: "Hello"\n  max_turns: 101'), 6,
     ["max_turns", "must be <= 100, found 101"]),
    (('  correctness_criteria:\n    - "The agent responds with a greeting"\n', "  correctness_criteria: []\n"), 7,
     ["correctness_criteria", "must not be empty"]),
    (("  correctness_criteria:\n    - \"The agent responds with a greeting\"\n", "  failure_criteria: [x]\n"), 6,
     ["required key 'correctness_criteria'"]),
    (('  initial_query: "Hello! How are you?"',
      '  initial_query: "Hello"\n  clarification_behavior: {traits: {patience: extreme}}'), 6,
     ["patience must be one of", "\"low\"", "extreme"]),
    (('  initial_query: "Hello! How are you?"',
      '  initial_query: "Hello"\n  clarification_behavior: {traits: {verbosity: chatty}}'), 6,
     ["verbosity must be one of"]),
    (('  initial_query: "Hello! How are you?"',
      '  initial_query: "Hello"\n  clarification_behavior: {traits: {expertise: guru}}'), 6,
     ["expertise must be one of"]),
    (("evaluation:\n", "evaluation:\n  tool_usage: {tool_call_criteria: [{tool: '', assertions: [a]}]}\n"), 7,
     ["tool must not be empty"]),
    (("name: Basic Greeting Test\n", "name: Basic Greeting Test\nskip: ''\n"), 2, ["skip"]),
    (("name: Basic Greeting Test\n", "name: Basic Greeting Test\nskip: 3\n"), 2, ["skip"]),
])
def test_each_validation_rule_is_a_collection_error_at_its_line(tmp_path, change, line, words):
    err = _error(tmp_path, MINIMAL.replace(*change))
    assert err.line == line, err.render()
    for word in words:
        assert word in err.message, err.message


def _run(names=(), users=("hi",), total=None, judgments=()):
    turns = []
    for u in users:
        turns += [{"role": "user", "content": u}, {"role": "assistant", "content": "ok"}]
    tokens = Tokens(total=total) if total is not None else None
    return Run(tool_calls=tuple(ToolCall(n, {}) for n in names), turns=tuple(turns), tokens=tokens,
               judgments=tuple(judgments))


def _gates(result):
    return [gate for gate, _ in result.problems]


def test_tool_usage_gates():
    spec = ConversationSpec(required_tools=("get_weather",), optional_tools=("geocode",),
                            prohibited_tools=("delete_file",))
    good = evaluate_conversation(spec, _run(["geocode", "get_weather"]))
    assert good.problems == () and good.outside == ()
    bad = evaluate_conversation(spec, _run(["delete_file", "search"]))
    assert _gates(bad) == ["required_tools", "prohibited_tools"]
    assert bad.outside == ("search",) and bad.to_dict()["tool_usage"]["prohibited_called"] == [
        {"index": 0, "tool": "delete_file"}]
    assert dict(bad.problems)["prohibited_tools"] == "call 1 delete_file: a prohibited tool was called"


def test_budgets_and_max_turns():
    spec = ConversationSpec(max_tool_calls=1, max_llm_tokens=100, max_conversation_turns=2, max_turns=3)
    result = evaluate_conversation(spec, _run(["a", "b"], users=("1", "2", "3", "4"), total=150))
    messages = [m for _, m in result.problems]
    assert messages == ["max_tool_calls: 2 is over the limit of 1", "max_llm_tokens: 150 is over the limit of 100",
                        "max_conversation_turns: 4 is over the limit of 2", "max_turns: 4 is over the limit of 3"]
    within = evaluate_conversation(spec, _run(["a"], users=("1", "2"), total=100))
    assert within.problems == ()


def test_token_budget_without_recorded_tokens_is_deferred_not_zero():
    spec = ConversationSpec(max_llm_tokens=100)
    result = evaluate_conversation(spec, _run(total=None))
    assert result.problems == ()
    assert result.deferred == ("efficiency.max_llm_tokens (the cassette records no token totals)",)
    assert _gates(evaluate_conversation(spec, _run(total=None), require_judgments=True)) == ["efficiency"]


def test_a_user_repeating_themselves_is_a_loop():
    spec = ConversationSpec()
    looped = evaluate_conversation(spec, _run(users=("hi", "again?", "Again?", "again? ")))
    assert looped.loop and _gates(looped) == ["loop"]
    assert not evaluate_conversation(spec, _run(users=("again?", "again?", "again?"))).loop  # three turns
    assert not evaluate_conversation(spec, _run(users=("a", "b", "b", "c"))).loop


def test_judgments_are_replayed_by_exact_criterion_text():
    spec = ConversationSpec(correctness=("asks for the city", "gives Fahrenheit"),
                            failure=("assumes a location",),
                            tool_call_criteria=(("get_weather", ("city is San Francisco",)),))
    judgments = [
        {"criterion": "asks for the city", "verdict": "pass", "reason": "it asked"},
        {"criterion": "gives Fahrenheit", "verdict": "fail", "reason": "gave Celsius", "model": "judge-1"},
        {"criterion": "assumes a location", "verdict": "fail", "reason": "assumed Paris"},
        {"criterion": "city is san francisco", "verdict": "fail", "reason": "case differs: not this criterion"},
    ]
    result = evaluate_conversation(spec, _run(judgments=judgments))
    assert [m for g, m in result.problems if g == "judgment"] == [
        "not met: 'gives Fahrenheit' (judge judge-1: gave Celsius)",
        "the failure happened: 'assumes a location' (judge: assumed Paris)",
    ]
    assert result.deferred == ("city is San Francisco",)
    outcomes = {j["criterion"]: j["outcome"] for j in result.to_dict()["judgments"]}
    assert outcomes == {"asks for the city": "passed", "gives Fahrenheit": "failed", "assumes a location": "failed",
                        "city is San Francisco": "deferred"}
    strict = evaluate_conversation(spec, _run(judgments=judgments), require_judgments=True)
    assert "no recorded verdict for 'city is San Francisco' (judgments are required)" in [m for _, m in strict.problems]


def _suite_with_cassette(tmp_path, judgments):
    (tmp_path / "c.mcptest.yml").write_text(MINIMAL + "cassette: run.json\nconfig: {judge: {model: gpt-4o}}\n")
    (tmp_path / "run.json").write_text(json.dumps({"mcptest_cassette": 1, "runs": [{
        "tool_calls": [], "judgments": judgments,
        "conversation": {"turns": [{"role": "user", "content": "Hello!"}, {"role": "assistant", "content": "Hi!"}]}}]}))
    return load_suite(str(tmp_path / "c.mcptest.yml")).blocks[0]


def test_deferral_and_require_judgments_through_evaluate(tmp_path):
    block = _suite_with_cassette(tmp_path, [])
    verdict = evaluate(block, Context())
    assert verdict.passed and verdict.deferred == ("The agent responds with a greeting",)
    assert verdict.envelope["config"] == {"judge": {"model": "gpt-4o"}}
    assert not evaluate(block, Context(require_judgments=True)).passed


def test_bad_judgments_in_a_cassette_are_input_errors(tmp_path):
    block = _suite_with_cassette(tmp_path, [{"criterion": "x", "verdict": "maybe"}])
    [problem] = evaluate(block, Context()).problems
    assert "(at /runs/0/judgments/0/verdict)" in problem.message and 'expected "pass" or "fail", found "maybe"' in problem.message


def test_items_skip_tags_summary_and_option(pytester):
    pytester.makefile(".mcptest.yml", a=MINIMAL + "cassette: run.json\ntags: [greeting]\n---\n"
                      + MINIMAL.replace("Basic Greeting Test", "Later") + "skip: not yet\n")
    (pytester.path / "run.json").write_text(json.dumps({"runs": [{"tool_calls": [], "conversation": {
        "turns": [{"role": "user", "content": "Hello!"}, {"role": "assistant", "content": "Hi!"}]}}]}))
    result = pytester.runpytest("-rs", "--strict-markers")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*mcptest: 1 criterion deferred (no recorded judge verdict)*",
                                 "a.mcptest.yml::Basic Greeting Test", "    The agent responds with a greeting",
                                 "*not yet*"])
    pytester.runpytest("-m", "greeting").assert_outcomes(passed=1, deselected=1)
    failed = pytester.runpytest("--mcptest-require-judgments")
    failed.assert_outcomes(failed=1, skipped=1)
    failed.stdout.fnmatch_lines(["*judgment: no recorded verdict for 'The agent responds with a greeting'*"])
