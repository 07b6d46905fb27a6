"""Infrastructure is not the agent: a run that the provider's 5xx storm ends (retries exhausted)
is recorded as ``infra_error`` with its cause, left out of the per-run verdicts and of pass^k and
the pass rate (the report counts it), and recorded again by the next recording run."""

from __future__ import annotations

import json
import threading

from live_fake import MANIFEST, FakeProvider, error, forked_mock, live_env, tool_then_answer  # noqa: F401 - fixtures

from pytest_mcptest.engine.infra import infra_error, split
from pytest_mcptest.formats.cassette import load_cassette
from pytest_mcptest.record import modes

SUITE = forked_mock("""\
servers:
  shop: {command: ["mcptest", "mock", "--tools-from", "shop.yml"]}
models:
  openai: {max_retries: 1}
agents:
  - name: weather
    model: openai:gpt-4o-mini
    prompt: What is the weather?
    servers: [shop]
    runs: 4
    cassette: w.json
    expect:
      - tool_calls[0].name: {exact: get_weather}
    stability:
      expect:
        - stability.pass_rate: {">=": 100}
""")


class Storm:
    """Answers well, except the requests numbered in ``failing`` (from 0), which get HTTP 500."""

    def __init__(self, failing):
        self.failing = set(failing)
        self.script = tool_then_answer("get_weather", {"city": "Sacramento"})
        self.count = 0
        self.lock = threading.Lock()

    def __call__(self, seen):
        with self.lock:
            n, self.count = self.count, self.count + 1
        if n in self.failing:
            return error(seen, 500, "the model is on fire", {"retry-after-ms": "1"})
        return self.script(seen)


def test_a_run_lost_to_a_5xx_storm_is_kept_as_infra_error_left_out_of_the_rates_and_recorded_again(
        pytester, live_env):  # noqa: F811
    (pytester.path / "shop.yml").write_text(MANIFEST)
    pytester.makefile(".mcptest.yml", s=SUITE)
    args = ("-p", "no:cacheprovider", "--mcptest-record-mode=once", "--mcptest-live-concurrency=1",
            "--mcptest-report=r.json")
    # Runs 1 and 2 take requests 0-3; run 3's first request fails twice (one retry): requests 4 and 5.
    storm = Storm({4, 5})
    with FakeProvider(storm) as fake:
        live_env(fake)
        result = pytester.runpytest(*args)
        result.assert_outcomes(passed=1)
        assert storm.count == 8  # three runs of two requests, and the one lost twice
        cassette = load_cassette(str(pytester.path / "w.json"))
        kept, broken = split(cassette.runs)
        assert len(kept) == 3 and len(broken) == 1 and cassette.runs[2] is broken[0]
        cause = infra_error(broken[0])
        assert cause["cause"] == "server_error" and "HTTP 500" in cause["message"] and "after 2 attempt(s)" in \
            cause["message"]
        report = json.loads((pytester.path / "r.json").read_text())
        item = report["items"][0]
        assert item["infra_errors"] == 1 and report["infra_errors"] == 1
        assert len(item["runs"]) == 3 and item["envelope"]["stability"]["pass_rate"] == 100
        assert any("1 recorded run(s) ended in an infrastructure failure (1 server_error)" in n for n in item["notes"])
        # The next recording run records the lost run again (two requests), and the broken one is gone.
        result = pytester.runpytest(*args)
        result.assert_outcomes(passed=1)
        assert storm.count == 10
    cassette = load_cassette(str(pytester.path / "w.json"))
    assert len(cassette.runs) == 4 and split(cassette.runs)[1] == ()
    item = json.loads((pytester.path / "r.json").read_text())["items"][0]
    assert "infra_errors" not in item and len(item["runs"]) == 4


def test_when_nothing_has_worked_yet_a_5xx_storm_stops_the_recording_and_writes_nothing(pytester, live_env):  # noqa: F811
    (pytester.path / "shop.yml").write_text(MANIFEST)
    pytester.makefile(".mcptest.yml", s=SUITE)
    storm = Storm(range(100))
    with FakeProvider(storm) as fake:
        live_env(fake)
        result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once",
                                    "--mcptest-live-concurrency=1")
    result.assert_outcomes(failed=1)
    assert storm.count == 2  # the first run's request and its retry: the provider is down, the rest wait
    assert not (pytester.path / "w.json").exists()


def test_once_records_again_what_infrastructure_broke_and_none_judges_what_the_recording_session_judged():
    again = modes.decide("once", "w.json", True, runs_recorded=3, runs_wanted=4, can_record=True, runs_broken=1)
    assert again.action == modes.APPEND and again.runs_to_record == 1
    assert modes.decide("once", "w.json", True, 3, 4, can_record=True).action == modes.FAIL
    # The session that recorded 4 runs, 1 ended by the infrastructure, judged the other 3 and
    # passed: a replay in CI (record mode none) says the same, not "runs missing".
    replay = modes.decide("none", "w.json", True, runs_recorded=3, runs_wanted=4, runs_broken=1)
    assert replay.action == modes.REPLAY and replay.runs_to_judge == 4
    # Runs missing besides those: still missing, and the message says what the cassette holds.
    short = modes.decide("none", "w.json", True, runs_recorded=2, runs_wanted=4, runs_broken=1)
    assert short.action == modes.FAIL
    assert "holds 2 recorded run(s) (and 1 an infrastructure failure ended)" in short.message
    assert modes.decide("none", "w.json", True, runs_recorded=0, runs_wanted=1, runs_broken=1).action == modes.FAIL
