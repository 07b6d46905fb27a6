"""The live tier through the items, end to end: a record mode plays a conversation (synthetic
user, agent, judge), records a scenario with its rubric judged, and records an agent with its
runtime distractors, all against the loopback fake model and the mock MCP server; then the
replay writes the same report bytes with no model at all."""

from __future__ import annotations

import json

import pytest

from live_fake import (ANTHROPIC_KEY, ANTHROPIC_MODEL, MANIFEST, OPENAI_KEY, OPENAI_MODEL, FakeProvider, error,
                       forked_mock, live_env, play, reply)  # noqa: F401 - fixtures

CONVERSATION = forked_mock("""\
servers:
  shop: {command: ["mcptest", "mock", "--tools-from", "shop.yml"]}
conversations:
  - name: weather clarification
    description: The agent asks for the city, then answers.
    model: anthropic:claude-haiku-4-5
    servers: [shop]
    cassette: chat.json
    config:
      judge: {model: "openai:gpt-4o-mini", extra_instructions: Mind units.}
      synthetic_user: {temperature: 0.2, extra_instructions: Answer in one line.}
    synthetic_user:
      persona: A busy professional
      initial_query: What's the weather like?
      max_turns: 4
      clarification_behavior: {known_facts: ["I'm in Sacramento"], traits: {patience: low}}
    evaluation:
      correctness_criteria: ["The agent asks for the location since it wasn't specified"]
      failure_criteria: [The agent assumes a location without asking]
      tool_usage:
        required_tools: [get_weather]
        tool_call_criteria: [{tool: get_weather, assertions: ["Called with city='Sacramento'"]}]
""")


def _files(pytester) -> None:
    (pytester.path / "shop.yml").write_text(MANIFEST)


def _record(pytester, *args):
    """A run with ``--mcptest-record-mode=once`` (the fake must be serving): it records, then judges."""
    return pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once",
                                         "--mcptest-report=live.json", *args)


def _replay(pytester, *args):
    """A replay (no model): its report must be byte for byte the recording run's."""
    replay = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=replay.json", *args)
    assert (pytester.path / "live.json").read_bytes() == (pytester.path / "replay.json").read_bytes()
    return replay


def test_a_conversation_item_is_played_live_then_replayed_with_the_same_report(pytester, live_env):  # noqa: F811
    _files(pytester)
    pytester.makefile(".mcptest.yml", s=CONVERSATION)
    with FakeProvider(play()) as fake:
        live_env(fake)
        # graded as the replay below is (the report pins its grading options in each item's basis)
        live = _record(pytester, "--mcptest-require-judgments")
    live.assert_outcomes(passed=1)
    live.stdout.fnmatch_lines(["*recording 1 run(s) into chat.json with the live conversation runner*"])
    # Each role reached the fake as configured: the agent on Anthropic with the shop's tools,
    # the synthetic user (the agent's model, by default) with its persona and overrides, the
    # judge on OpenAI (config.judge.model) with its extra instructions.
    users = [r for r in fake.requests if r.system.startswith("You play a human user")]
    judges = [r for r in fake.requests if r.system.startswith("You are a strict")]
    agents = [r for r in fake.requests if r not in users and r not in judges]
    assert {r.api for r in agents} == {"anthropic"} and agents[0].tool_names == ["get_weather", "search"]
    assert [r.api for r in users] == ["anthropic", "anthropic"]
    assert "A busy professional" in users[0].system and "patience is low" in users[0].system
    assert users[0].system.endswith("Answer in one line.") and users[0].tool_names == []
    assert [r.api for r in judges] == ["openai"] and judges[0].system.endswith("Mind units.")
    cassette = json.loads((pytester.path / "chat.json").read_text())
    assert cassette["meta"]["conversation"] == "weather clarification"
    assert cassette["meta"]["model"] == "anthropic:claude-haiku-4-5"
    run = cassette["runs"][0]
    assert [t["role"] for t in run["conversation"]["turns"]] == ["user", "assistant", "user", "assistant", "tool",
                                                                 "assistant"]
    assert [(j["criterion"], j["verdict"], j["model"]) for j in run["judgments"]] == [
        ("The agent asks for the location since it wasn't specified", "pass", OPENAI_MODEL),
        ("The agent assumes a location without asking", "pass", OPENAI_MODEL),
        ("Called with city='Sacramento'", "pass", OPENAI_MODEL)]
    assert run["meta"]["model"] == ANTHROPIC_MODEL and run["meta"]["stopped"] == "user_done"

    replay = _replay(pytester, "--mcptest-require-judgments")  # every criterion has its recorded verdict
    replay.assert_outcomes(passed=1)
    envelope = json.loads((pytester.path / "replay.json").read_text())["items"][0]["envelope"]
    assert [j["outcome"] for j in envelope["judgments"]] == ["passed", "passed", "passed"]
    assert envelope["deferred"] == [] and envelope["user_turns"] == 2


def test_a_failure_the_judge_saw_fails_the_conversation_live_and_on_replay(pytester, live_env):  # noqa: F811
    _files(pytester)
    pytester.makefile(".mcptest.yml", s=CONVERSATION)
    holds = json.dumps({"results": [{"id": n, "holds": True, "reason": "it did"} for n in (1, 2, 3)]})
    with FakeProvider(play(holds)) as fake:
        live_env(fake)
        live = _record(pytester)
    live.assert_outcomes(failed=1)
    live.stdout.fnmatch_lines(["*the failure happened: 'The agent assumes a location without asking' "
                               f"(judge {OPENAI_MODEL}: it did)*"])
    _replay(pytester).assert_outcomes(failed=1)


def test_a_conversation_needs_a_model_to_be_recorded_and_its_servers_must_exist(pytester):
    _files(pytester)
    pytester.makefile(".mcptest.yml", s=CONVERSATION.replace("    model: anthropic:claude-haiku-4-5\n", ""))
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*record mode once: nothing can record chat.json*"])
    pytester.makefile(".mcptest.yml", s=CONVERSATION.replace("servers: [shop]", "servers: [shp]"))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*s.mcptest.yml:7: server 'shp' is not under servers: in this document (shop); "
                                 "did you mean 'shop'?*"])
    assert result.ret != 0


def test_a_dry_run_lists_the_conversation_and_calls_nothing(pytester, live_env):  # noqa: F811
    _files(pytester)
    pytester.makefile(".mcptest.yml", s=CONVERSATION.replace("    cassette: chat.json\n",
                                                             "    cassette: chat.json\n    runs: 3\n"))
    with FakeProvider(lambda seen: reply(seen, text="never")) as fake:
        live_env(fake)
        result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once", "--mcptest-dry-run",
                                    "-rs")
        assert fake.requests == []
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*would record: 'weather clarification': agent anthropic:claude-haiku-4-5, "
                                 "synthetic user anthropic:claude-haiku-4-5, judge openai:gpt-4o-mini, 3 run(s) of "
                                 "up to 4 user turns, servers: shop into chat.json*"])
    assert not (pytester.path / "chat.json").exists()


SCENARIO = forked_mock("""\
servers:
  shop: {command: ["mcptest", "mock", "--tools-from", "shop.yml"]}
scenarios:
  - name: weather world
    model: openai:gpt-4o-mini
    prompt: What is the weather in Sacramento?
    servers: [shop]
    runs: 2
    cassette: world.json
    seed: {asked: 0}
    transitions: [{tool: get_weather, effect: {asked: {inc: 1}}}]
    expect_state: {asked: 1}
    rubric: [The assistant states the temperature, The assistant apologises for the delay]
    config: {judge: {model: "anthropic:claude-haiku-4-5", extra_instructions: Be brief.}}
    expect:
      - rubric.passed: {"==": 1}
      - rubric.failed: {"==": 1}
""")


def test_a_scenario_records_its_agent_and_the_judge_decides_its_rubric(pytester, live_env):  # noqa: F811
    def script(seen):
        if seen.system.startswith("You are a strict"):
            return reply(seen, text=json.dumps({"results": [
                {"id": 1, "holds": True, "reason": "it says 72F"},
                {"id": 2, "holds": False, "reason": "no apology"}]}))
        if not seen.results:
            return reply(seen, calls=(("get_weather", {"city": "Sacramento"}),))
        return reply(seen, text=f"It is {seen.results[-1]}.")

    _files(pytester)
    pytester.makefile(".mcptest.yml", s=SCENARIO)
    with FakeProvider(script) as fake:
        live_env(fake)
        live = _record(pytester)
    live.assert_outcomes(passed=1)
    judges = [r for r in fake.requests if r.system.startswith("You are a strict")]
    assert [r.api for r in judges] == ["anthropic", "anthropic"] and judges[0].system.endswith("Be brief.")
    assert "1. The assistant states the temperature\n2. The assistant apologises for the delay" \
        in judges[0].user_texts[-1]
    assert "TOOL RESULT (get_weather): 72F in Sacramento" in judges[0].user_texts[-1]
    cassette = json.loads((pytester.path / "world.json").read_text())
    assert cassette["meta"]["scenario"] == "weather world" and cassette["meta"]["judge_model"] == \
        "anthropic:claude-haiku-4-5"
    assert [[j["verdict"] for j in run["judgments"]] for run in cassette["runs"]] == [["pass", "fail"]] * 2
    assert cassette["runs"][0]["meta"]["judge"]["model"] == ANTHROPIC_MODEL

    _replay(pytester).assert_outcomes(passed=1)
    runs = json.loads((pytester.path / "replay.json").read_text())["items"][0]["envelope"]["runs"]
    assert runs[0]["state"] == {"asked": 1}
    assert runs[0]["rubric"] == {
        "status": "judged", "rubric": ["The assistant states the temperature",
                                       "The assistant apologises for the delay"],
        "passed": 1, "failed": 1, "deferred": 0,
        "judgments": [{"criterion": "The assistant states the temperature", "outcome": "passed", "verdict": "pass",
                       "reason": "it says 72F", "model": ANTHROPIC_MODEL},
                      {"criterion": "The assistant apologises for the delay", "outcome": "failed",
                       "verdict": "fail", "reason": "no apology", "model": ANTHROPIC_MODEL}]}


DISTRACTORS = """\
servers:
  shop: {{command: ["mcptest", "mock", "--tools-from", "shop.yml"]}}
agents:
  - name: weather selection
    model: {model}
    servers: [shop]
    prompt: What is the weather in Sacramento?
    runs: 2
    cassette: weather.json
    tool_selection: {{expected_tool: get_weather, min_selection_rate: 1.0}}
    distractors:
      count: 2
      source: {{from: near_duplicate, of: [get_weather]}}
      correct: [shop.get_weather]
      expect:
        - distractors.chose_distractor: {{"==": 0}}
"""


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_runtime_distractors_reach_the_model_and_no_key_byte_is_written(api, pytester, live_env):  # noqa: F811
    """The fake sees the injected tools beside the real ones; the model echoes its API key in a
    tool argument and its answer, and no written byte (cassette, JSON and HTML reports, terminal)
    holds either key."""
    def leaky(seen):
        key = seen.headers.get("x-api-key") or seen.headers["authorization"].split()[-1]
        if not seen.results:
            return reply(seen, calls=(("get_weather", {"city": f"Sacramento {key}"}),))
        return reply(seen, text=f"It is {seen.results[-1]}; your key is {key}.")

    _files(pytester)
    pytester.makefile(".mcptest.yml", s=forked_mock(DISTRACTORS.format(model=f"{api}:gpt-4o-mini" if api == "openai"
                                                                       else f"{api}:claude-haiku-4-5")))
    with FakeProvider(leaky) as fake:
        live_env(fake)
        live = _record(pytester, "--mcptest-html=live.html")
    live.assert_outcomes(passed=2)
    assert {r.api for r in fake.requests} == {api}
    assert fake.requests[0].tool_names == ["get_weather", "search", "get_weather_v2", "get_weather_internal"]
    cassette = json.loads((pytester.path / "weather.json").read_text())
    assert [run["meta"]["distractors"] for run in cassette["runs"]] == [["get_weather_v2",
                                                                         "get_weather_internal"]] * 2
    assert cassette["runs"][0]["tool_calls"][0]["args"] == {"city": "Sacramento <redacted>"}
    replay = _replay(pytester, "--mcptest-html=replay.html")
    replay.assert_outcomes(passed=2)
    written = b"".join(p.read_bytes() for p in sorted(pytester.path.rglob("*")) if p.is_file())
    written += "\n".join(live.outlines + live.errlines + replay.outlines + replay.errlines).encode()
    assert b"<redacted>" in written
    assert OPENAI_KEY.encode() not in written and ANTHROPIC_KEY.encode() not in written


def test_a_recording_that_fails_leaves_the_old_cassette_untouched(pytester, live_env):  # noqa: F811
    _files(pytester)
    pytester.makefile(".mcptest.yml", s=forked_mock(DISTRACTORS.format(model="openai:gpt-4o-mini")))
    old = json.dumps({"mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "get_weather"}]}] * 2})
    (pytester.path / "weather.json").write_text(old)
    with FakeProvider(lambda seen: error(seen, 500, "the model is on fire", {"retry-after-ms": "5"})) as fake:
        live_env(fake)
        result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=all",
                                               "--mcptest-live-concurrency=1")
        assert len(fake.requests) == 3  # one request and its two retries; the other runs did not start
    result.assert_outcomes(failed=1, passed=1)  # the [distractors] item only replays, and judges the old cassette
    result.stdout.fnmatch_lines([f"*recording weather.json failed: openai:gpt-4o-mini: HTTP 500 from {fake.url}/v1 "
                                 "after 3 attempt(s): the model is on fire (0 of 2 run(s) completed)*"])
    assert (pytester.path / "weather.json").read_text() == old


def test_mcptest_run_record_dry_run_lists_conversations_and_scenarios(pytester, live_env, monkeypatch,  # noqa: F811
                                                                       capsys):
    from pytest_mcptest.cli import main

    _files(pytester)
    pytester.makefile(".mcptest.yml", s=CONVERSATION, w=SCENARIO)
    monkeypatch.chdir(pytester.path)
    with FakeProvider(lambda seen: reply(seen, text="never")) as fake:
        live_env(fake)
        assert main(["run", "s.mcptest.yml", "w.mcptest.yml", "--record", "--dry-run", "-rs"]) == 0
        assert fake.requests == []
    out = capsys.readouterr().out
    assert "would record: 'weather clarification': agent anthropic:claude-haiku-4-5," in out
    assert ("would record: 'weather world': openai:gpt-4o-mini, 2 run(s) of up to 10 model replies, then judge "
            "anthropic:claude-haiku-4-5 once per run, servers: shop into world.json") in out


def test_a_rubric_is_a_statement_or_a_list_and_a_lone_scenario_document_names_no_servers(pytester):
    pytester.makefile(".mcptest.yml", s=SCENARIO.replace("rubric: [The assistant states the temperature, "
                                                         "The assistant apologises for the delay]",
                                                         "rubric: {criteria: [polite]}"))
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*s.mcptest.yml:13*rubric*"])
    lone = ("name: greeting\ndescription: Says hello.\nmodel: openai:gpt-4o-mini\nservers: [shop]\n"
            "synthetic_user: {persona: A user, initial_query: Hello}\nevaluation: {correctness_criteria: [Greets]}\n")
    pytester.makefile(".mcptest.yml", s=lone)
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*s.mcptest.yml:4: server 'shop' is not under servers: in this document "
                                 "(none defined)*"])


def test_a_lone_conversation_document_with_a_model_records_a_conversation_without_tools(pytester, live_env):  # noqa: F811
    lone = ("name: weather clarification\ndescription: Asks for the city.\nmodel: openai:gpt-4o-mini\n"
            "cassette: chat.json\n"
            "synthetic_user: {persona: A busy professional, initial_query: What's the weather like?}\n"
            "evaluation: {correctness_criteria: [The agent asks for the location]}\n")
    pytester.makefile(".mcptest.yml", s=lone)
    with FakeProvider(play()) as fake:
        live_env(fake)
        live = _record(pytester)
    live.assert_outcomes(passed=1)
    agents = [r for r in fake.requests if not r.system.startswith(("You play a human user", "You are a strict"))]
    assert agents and all(r.tool_names == [] and "tools" not in r.body for r in agents)
    run = json.loads((pytester.path / "chat.json").read_text())["runs"][0]
    assert run["judgments"][0]["criterion"] == "The agent asks for the location"
    assert run["tool_calls"][0]["error"] is True  # the fake called a tool it was never shown: not available
    _replay(pytester).assert_outcomes(passed=1)
