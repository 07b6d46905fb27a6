"""A live recording is a cassette the replay gates judge: recorded against the loopback fake
with runtime distractors, written, then replayed by the plugin in a pytester run."""

from __future__ import annotations

import json

from live_fake import FakeProvider, live_env, reply, shop  # noqa: F401 - fixtures
from pytest_mcptest.formats.cassette import dump_cassette
from pytest_mcptest.live.runner import AgentTask, DistractorPlan, record_agent

SUITE = """\
servers:
  shop:
    command: ["mcptest", "mock", "--tools-from", "shop.yml"]
agents:
  - name: weather selection
    model: openai:gpt-4o-mini
    servers: [shop]
    prompt: What is the weather in Sacramento?
    runs: 4
    cassette: weather.json
    expected_trace: {mode: subsequence, calls: [{name: get_weather, args: {exact: {city: Sacramento}}}]}
    tool_selection: {expected_tool: get_weather, min_selection_rate: 0.75}
    distractors:
      count: 2
      source: {from: near_duplicate, of: [get_weather]}
      correct: [shop.get_weather]
      expect:
        - distractors.accuracy: {"==": 100}
        - distractors.chose_distractor: {"==": 0}
"""


def test_a_live_recording_replays_through_the_gates(shop, live_env, pytester):  # noqa: F811
    def script(seen):
        if not seen.results:
            return reply(seen, calls=(("get_weather", {"city": "Sacramento"}),))
        return reply(seen, text=f"It is {seen.results[-1]}.")

    plan = DistractorPlan(count=2, source="near_duplicate", of=("get_weather",))
    with FakeProvider(script) as fake:
        live_env(fake)
        recording = record_agent(AgentTask(model="openai:gpt-4o-mini", prompt="What is the weather in Sacramento?",
                                           servers=(shop,), runs=4, distractors=plan, name="weather selection"))
    assert fake.requests[0].tool_names == ["get_weather", "search", "get_weather_v2", "get_weather_internal"]
    pytester.makefile(".json", weather=dump_cassette(recording.cassette()))
    pytester.makefile(".mcptest.yml", suite=SUITE)
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report", "report.json")
    result.assert_outcomes(passed=2)
    report = json.loads((pytester.path / "report.json").read_text())
    distractors = next(i for i in report["items"] if i["kind"] == "distractors")
    assert distractors["envelope"]["distractors"]["distractors"] == ["get_weather_v2", "get_weather_internal"]
    assert distractors["envelope"]["distractors"]["runs"] == 4
