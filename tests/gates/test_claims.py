"""Claims against the trace: a sentence of the final answer and the successful calls that back it,
under agent tests and scenarios; judged claims replay their recorded verdicts."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st
from live_fake import forked_mock

from pytest_mcptest.gates.context import Context
from pytest_mcptest.engine.claims import Backing, Claim, check_claims, sentence_around
from pytest_mcptest.engine.trace import Run, ToolCall
from pytest_mcptest.errors import InputError
from pytest_mcptest.gates.evaluate import evaluate
from pytest_mcptest.gates.suite_build import load_suite


def _run(answer: str, *calls: ToolCall, judgments=()) -> Run:
    return Run(tool_calls=calls, turns=({"role": "user", "content": "help"}, {"role": "assistant", "content": answer}),
               judgments=tuple(judgments))


REFUND = Claim("refunded", (Backing(("refund_order",)),))


def test_a_claim_with_no_backing_call_names_the_sentence_and_the_call():
    result = check_claims((REFUND,), _run("Sorry for the wait. I have refunded your order! Bye."))
    (check,) = result.unsupported
    assert check.sentence == "I have refunded your order!"
    assert check.missing == ("needs a successful call to refund_order, found none",)
    assert result.to_dict()["made"] == 1 and result.to_dict()["supported"] == 0


def test_a_backed_claim_is_supported_and_an_unmade_one_is_not_judged():
    calls = (ToolCall("refund_order", {"id": 7}),)
    assert check_claims((REFUND,), _run("I have REFUNDED it.", *calls)).unsupported == ()
    result = check_claims((REFUND,), _run("Your order is on its way."))
    assert result.to_dict() == {"made": 0, "supported": 0, "unsupported": [],
                                "results": [{"claim": "refunded", "made": False}]}


def test_a_failed_call_does_not_back_a_claim_and_is_named():
    result = check_claims((REFUND,), _run("I have refunded it.", ToolCall("refund_order", {}, error=True)))
    assert result.unsupported[0].missing == (
        "needs a successful call to refund_order, found none; call 1 refund_order returned an error",)


def test_a_count_an_argument_shape_and_a_server_qualified_id():
    three = Claim(r"checked (three|3) sources", (Backing(("web.search",), count=3),), regex=True)
    shoes = Claim("shoes", (Backing(("search",), args_kind="subset", args={"q": "shoes"}),))
    calls = (ToolCall("search", {"q": "shoes"}, server="web"), ToolCall("search", {"q": "hats"}, server="other"))
    result = check_claims((three, shoes), _run("I checked 3 sources about shoes.", *calls))
    assert [c.missing for c in result.checks] == [("needs 3 successful calls to web.search, found 1",), ()]


def test_judged_claims_read_recorded_verdicts_and_defer_without_one():
    run = _run("ok", judgments=[{"criterion": "A", "verdict": "fail", "reason": "no call", "model": "j"}])
    result = check_claims((), run, ("A", "B"))
    assert [j.to_dict() for j in result.judged] == [
        {"criterion": "A", "outcome": "failed", "reason": "no call", "model": "j"},
        {"criterion": "B", "outcome": "deferred"}]


@given(st.lists(st.sampled_from(["I did it", "x", " ", ".", "!", "?", "\n", "refunded", "Done"]), max_size=12))
def test_the_sentence_around_a_match_holds_the_match(parts):
    text = "".join(parts) + " refunded"
    start = text.lower().find("refunded")
    sentence = sentence_around(text, start, start + len("refunded"))
    assert "refunded" in sentence and "\n" not in sentence


SUITE = """\
agents:
  - name: refund bot
    cassette: run.json
    equal_function_sets:
      classes: [{name: lookup, members: [search, find]}]
    claims:
      - says: refunded
        backed_by: refund_order
      - says: looked it up
        backed_by: {class: lookup, count: 1}
      - judge: Every action the answer reports is shown by a successful call
scenarios:
  - name: refund world
    cassette: run.json
    transitions: [{tool: refund_order}, {tool: search}, {tool: find}]
    claims:
      - says: {regex: "refund(ed)?"}
        backed_by: [{tool: [refund_order, refund], args: {subset: {id: 7}}}]
"""


def _cassette(tmp_path, calls, judgments=()):
    run = {"tool_calls": calls, "judgments": list(judgments),
           "conversation": {"turns": [{"role": "user", "content": "refund"},
                                      {"role": "assistant", "content": "I looked it up. I have refunded order 7."}]}}
    (tmp_path / "run.json").write_text(json.dumps({"mcptest_cassette": 1, "runs": [run]}))


def _blocks(tmp_path, text=SUITE):
    (tmp_path / "s.mcptest.yml").write_text(text)
    return load_suite(str(tmp_path / "s.mcptest.yml")).blocks


def test_agents_and_scenarios_fail_an_unbacked_claim_naming_sentence_and_call(tmp_path):
    _cassette(tmp_path, [{"name": "refund_order", "args": {"id": 7}, "error": True}, {"name": "search", "args": {}}])
    agent, scenario = _blocks(tmp_path)
    verdict = evaluate(agent)
    messages = [f.message for f in verdict.failures if f.gate == "claims"]
    assert messages == ["'refunded' in \"I have refunded order 7.\": needs a successful call to refund_order, "
                        "found none; call 1 refund_order returned an error"]
    assert verdict.envelope["claims"]["supported"] == 1  # "looked it up", by the class member search
    assert verdict.summary == (("deferred criteria", ["Every action the answer reports is shown by a successful call"]),)
    scen = evaluate(scenario)
    assert [f.gate for f in scen.failures] == ["claims"]
    assert "refund_order or refund with args subset" in scen.failures[0].message


def test_backed_claims_pass_and_recorded_judge_verdicts_replay(tmp_path):
    criterion = "Every action the answer reports is shown by a successful call"
    _cassette(tmp_path, [{"name": "refund_order", "args": {"id": 7}}, {"name": "find", "args": {}}],
              [{"criterion": criterion, "verdict": "pass", "model": "judge-1"}])
    agent, scenario = _blocks(tmp_path)
    verdict = evaluate(agent)
    assert verdict.passed and verdict.summary == ()
    assert verdict.envelope["claims"]["judgments"] == [{"criterion": criterion, "outcome": "passed", "model": "judge-1"}]
    assert evaluate(scenario).passed
    _cassette(tmp_path, [{"name": "refund_order", "args": {"id": 7}}, {"name": "find", "args": {}}],
              [{"criterion": criterion, "verdict": "fail", "reason": "made up", "model": "judge-1"}])
    failed = evaluate(agent)
    assert [f.message for f in failed.failures] == [
        f"the judge found this claim unsupported: {criterion!r} (judge-1: made up)"]


def test_a_judged_claim_with_no_verdict_fails_when_judgments_are_required(tmp_path):
    _cassette(tmp_path, [{"name": "refund_order", "args": {"id": 7}}, {"name": "find", "args": {}}])
    agent, _ = _blocks(tmp_path)
    verdict = evaluate(agent, Context(require_judgments=True))
    assert [f.message for f in verdict.failures] == [
        "no recorded verdict for 'Every action the answer reports is shown by a successful call' (judgments are required)"]


@pytest.mark.parametrize("entry, message", [
    ("{says: x, backed_by: {class: lookpu}}", "no class named 'lookpu': the classes declared under "
                                              "equal_function_sets: or token_efficiency: are lookup; did you mean 'lookup'?"),
    ("{says: {regex: '(unclosed'}, backed_by: a}", "says.regex is not a valid regular expression"),
    ("{says: x, backed_by: {tool: a, args: {exactly: 1}}}", "args must be any, ignore"),
    ("{says: x}", "is missing the required key 'backed_by'"),
    ("{judge: x, backed_by: a}", "backed_by: belongs to a says: claim"),
])
def test_bad_claims_are_errors_at_their_line(tmp_path, entry, message):
    text = ("agents:\n  - name: a\n    equal_function_sets: {classes: [{name: lookup, members: [s]}]}\n"
            f"    claims:\n      - {entry}\n")
    with pytest.raises(InputError) as info:
        _blocks(tmp_path, text)
    assert message in info.value.message and info.value.line == 5


def test_a_claims_item_fails_in_pytest_with_the_claims_section(pytester):
    pytester.makefile(".mcptest.yml", s="agents:\n  - name: bot\n    cassette: run.json\n    claims:\n"
                                        "      - {says: refunded, backed_by: refund_order}\n")
    _cassette(pytester.path, [])
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*claims: 1 of 1 claim made is not backed by the calls*",
                                 "*'refunded'*\"I have refunded order 7.\"*needs a successful call to refund_order*"])


def _doc_blocks(name: str) -> list[str]:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / name).read_text(encoding="utf-8")
    return [b.split("```", 1)[0] for b in text.split("```yaml\n")[1:] if "claims:" in b.split("```", 1)[0]]


def test_the_docs_claims_suites_load_and_judge_as_they_say(tmp_path):
    (agent_doc,) = _doc_blocks("agents.md")
    (scenario_doc,) = _doc_blocks("scenarios.md")
    (tmp_path / "support.json").write_text(json.dumps({"mcptest_cassette": 1, "runs": [{
        "tool_calls": [{"name": "find_order", "server": "shop", "args": {"order": "A17"}},
                       {"name": "refund_order", "args": {}, "error": True}],
        "conversation": {"turns": [{"role": "user", "content": "?"}, {"role": "assistant", "content":
                                   "I looked up your order A17. I have refunded your order!"}]}}]}))
    (agent,) = _blocks(tmp_path, agent_doc)
    verdict = evaluate(agent)
    assert [c["claim"] for c in verdict.envelope["claims"]["unsupported"]] == ["refunded"]
    assert verdict.envelope["claims"]["supported"] == 1
    (scenario,) = _blocks(tmp_path, scenario_doc)
    assert scenario.claims.claims[0].backed_by[0].count == 2


LIVE = forked_mock("""\
servers:
  shop: {command: ["mcptest", "mock", "--tools-from", "shop.yml"]}
agents:
  - name: weather
    model: openai:gpt-4o-mini
    servers: [shop]
    prompt: What is the weather in Sacramento?
    cassette: weather.json
    claims:
      - {says: "It is", backed_by: get_weather}
      - judge: The answer reports only what the calls show
""")


def test_a_live_recording_asks_the_judge_about_judge_claims_and_the_replay_reads_its_verdict(pytester, monkeypatch):
    from live_fake import MANIFEST, OPENAI_KEY, FakeProvider, reply

    def script(seen):
        if seen.system.startswith("You are a strict"):
            return reply(seen, text=json.dumps({"results": [{"id": 1, "holds": False, "reason": "invented"}]}))
        if not seen.results:
            return reply(seen, calls=(("get_weather", {"city": "Sacramento"}),))
        return reply(seen, text=f"It is {seen.results[-1]}.")

    (pytester.path / "shop.yml").write_text(MANIFEST)
    pytester.makefile(".mcptest.yml", s=LIVE)
    with FakeProvider(script) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url + "/v1")
        live = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once")
    live.assert_outcomes(failed=1)
    (run,) = json.loads((pytester.path / "weather.json").read_text())["runs"]
    assert [(j["criterion"], j["verdict"]) for j in run["judgments"]] == [
        ("The answer reports only what the calls show", "fail")]
    replay = pytester.runpytest("-p", "no:cacheprovider")
    replay.assert_outcomes(failed=1)
    replay.stdout.fnmatch_lines(["*claims: the judge found this claim unsupported: "
                                 "'The answer reports only what the calls show' (*: invented)*"])
