"""Record modes, ``runs:`` and drift on items: the one decision (``record/modes.py``) carried
out by the cassette source of every replaying gate, and a live recording made by the agent
gate when the mode asks for it (against the loopback fake model)."""

from __future__ import annotations

import json

import pytest

from live_fake import MANIFEST, FakeProvider, forked_mock, live_env, reply  # noqa: F401 - fixtures
from pytest_mcptest.record.drift import catalog_sha256, prompt_sha256

AGENT = """\
agents:
  - name: weather
    model: openai:gpt-4o-mini
    prompt: What is the weather in Sacramento?
    cassette: weather.json
{extra}"""


def _cassette(runs: int, meta: dict | None = None) -> str:
    return json.dumps({"mcptest_cassette": 1, "meta": meta or {},
                       "runs": [{"tool_calls": [{"name": "get_weather", "args": {"city": "Sacramento"}}]}
                                for _ in range(runs)]})


def _run(pytester, *args):
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=r.json", *args)
    return result, json.loads((pytester.path / "r.json").read_text())["items"][0]


def test_runs_judges_the_first_n_and_says_so(pytester):
    pytester.makefile(".mcptest.yml", s=AGENT.format(extra="    runs: 2\n"))
    (pytester.path / "weather.json").write_text(_cassette(3))
    result, item = _run(pytester)
    result.assert_outcomes(passed=1)
    assert len(item["envelope"]["runs"]) == 2
    assert item["notes"] == ["judged the first 2 of the 3 runs recorded in weather.json (runs: 2)"]
    result.stdout.fnmatch_lines(["*mcptest: cassette notes*", "s.mcptest.yml::weather",
                                 "    judged the first 2 of the 3 runs recorded in weather.json (runs: 2)"])


def test_fewer_runs_than_asked_fails_naming_both_numbers(pytester):
    pytester.makefile(".mcptest.yml", s=AGENT.format(extra="    runs: 4\n"))
    (pytester.path / "weather.json").write_text(_cassette(3))
    result, item = _run(pytester)
    result.assert_outcomes(failed=1)
    assert "weather.json holds 3 recorded run(s) but the item asks for runs: 4" in item["failures"][0]["message"]


def test_runs_zero_is_refused_at_collection(pytester):
    pytester.makefile(".mcptest.yml", s=AGENT.format(extra="    runs: 0\n"))
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED or result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*s.mcptest.yml:*runs*"])


@pytest.mark.parametrize("meta, changed", [
    ({"model": "openai:gpt-4o"}, "model: recorded with openai:gpt-4o, the suite now says openai:gpt-4o-mini"),
    ({"prompt_sha256": prompt_sha256("What is the weather in Paris?")}, "prompt: changed since recording"),
])
def test_drift_warns_by_default_fails_when_asked_and_can_be_ignored(pytester, meta, changed):
    pytester.makefile(".mcptest.yml", s=AGENT.format(extra=""))
    (pytester.path / "weather.json").write_text(_cassette(1, meta))
    result, item = _run(pytester)
    result.assert_outcomes(passed=1)
    assert changed in item["notes"][0] and "re-record: pytest s.mcptest.yml::weather --mcptest-record-mode=all" \
        in item["notes"][0].replace("'", "")
    result, item = _run(pytester, "--mcptest-drift=fail")
    result.assert_outcomes(failed=1)
    assert item["failures"][0]["gate"] == "drift" and changed in item["failures"][0]["message"]
    result, item = _run(pytester, "--mcptest-drift=ignore")
    result.assert_outcomes(passed=1)
    assert "notes" not in item


def test_no_drift_when_the_recording_matches(pytester):
    pytester.makefile(".mcptest.yml", s=AGENT.format(extra=""))
    meta = {"model": "openai:gpt-4o-mini", "prompt_sha256": prompt_sha256("What is the weather in Sacramento?")}
    (pytester.path / "weather.json").write_text(_cassette(1, meta))
    result, item = _run(pytester, "--mcptest-drift=fail")
    result.assert_outcomes(passed=1)


def test_a_saved_catalog_that_changed_is_drift(pytester):
    tools = {"tools": [{"name": "get_weather", "description": "Weather for a city.", "inputSchema": {}}]}
    (pytester.path / "shop.json").write_text(json.dumps(tools))
    suite = "servers:\n  shop: {catalog: shop.json}\n" + AGENT.format(extra="    servers: [shop]\n")
    pytester.makefile(".mcptest.yml", s=suite)
    (pytester.path / "weather.json").write_text(_cassette(1, {"catalog_sha256": catalog_sha256({"shop": tools})}))
    _run(pytester, "--mcptest-drift=fail")[0].assert_outcomes(passed=1)
    tools["tools"][0]["description"] = "Weather."
    (pytester.path / "shop.json").write_text(json.dumps(tools))
    result, item = _run(pytester, "--mcptest-drift=fail")
    result.assert_outcomes(failed=1)
    assert "catalog: changed since recording" in item["failures"][0]["message"]


LIVE = """\
servers:
  shop: {{command: ["mcptest", "mock", "--tools-from", "shop.yml"]}}
agents:
  - name: weather
    model: openai:gpt-4o-mini
    prompt: What is the weather in Sacramento?
    servers: [shop]
    runs: 2
    cassette: weather.json
    expected_trace: {{mode: subsequence, calls: [get_weather]}}
"""


def test_record_mode_once_records_live_then_replays_the_same_report(pytester, live_env):  # noqa: F811
    def script(seen):
        if not seen.results:
            return reply(seen, calls=(("get_weather", {"city": "Sacramento"}),))
        return reply(seen, text=f"It is {seen.results[-1]}.")

    (pytester.path / "shop.yml").write_text(MANIFEST)
    pytester.makefile(".mcptest.yml", s=forked_mock(LIVE.format()))
    with FakeProvider(script) as fake:
        live_env(fake)
        live = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once",
                                             "--mcptest-report=live.json")
        assert len(fake.requests) == 4  # 2 runs x (a tool call, then the answer)
    live.assert_outcomes(passed=1)
    cassette = json.loads((pytester.path / "weather.json").read_text())
    assert len(cassette["runs"]) == 2 and cassette["meta"]["model"] == "openai:gpt-4o-mini"
    assert cassette["meta"]["prompt_sha256"] == prompt_sha256("What is the weather in Sacramento?")
    replay = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=replay.json")
    replay.assert_outcomes(passed=1)
    live.stdout.fnmatch_lines(["*mcptest: cassette notes*", "*record mode once: recording 2 run(s) into weather.json*"])
    assert (pytester.path / "live.json").read_bytes() == (pytester.path / "replay.json").read_bytes()


def test_a_mode_that_asks_to_record_what_nothing_can_record_says_so(pytester):
    pytester.makefile(".mcptest.yml", s=AGENT.format(extra=""))  # no servers: nothing a live run could start
    (pytester.path / "weather.json").write_text(_cassette(1))
    result, item = _run(pytester, "--mcptest-record-mode=all")
    result.assert_outcomes(passed=1)
    assert item["notes"][0].startswith("record mode all: nothing can record weather.json")


def test_a_dry_run_says_what_recording_would_spend_and_calls_nothing(pytester, live_env):  # noqa: F811
    (pytester.path / "shop.yml").write_text(MANIFEST)
    pytester.makefile(".mcptest.yml", s=forked_mock(LIVE.format()))
    with FakeProvider(lambda seen: reply(seen, text="never")) as fake:
        live_env(fake)
        result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once", "--mcptest-dry-run", "-rs")
        assert fake.requests == []
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*would record: 'weather': openai:gpt-4o-mini, 2 run(s) of up to 10 model replies, "
                                 "servers: shop into weather.json*"])
    assert not (pytester.path / "weather.json").exists()


def test_mcptest_run_record_dry_run_lists_and_calls_nothing(pytester, live_env, monkeypatch, capsys):  # noqa: F811
    from pytest_mcptest.cli import main

    (pytester.path / "shop.yml").write_text(MANIFEST)
    pytester.makefile(".mcptest.yml", s=forked_mock(LIVE.format()))
    monkeypatch.chdir(pytester.path)
    with FakeProvider(lambda seen: reply(seen, text="never")) as fake:
        live_env(fake)
        assert main(["run", "s.mcptest.yml", "--record", "--dry-run", "-rs"]) == 0
        assert fake.requests == []
    assert "would record: 'weather': openai:gpt-4o-mini, 2 run(s)" in capsys.readouterr().out
    assert main(["run", "s.mcptest.yml", "--dry-run"]) == 2
    assert "--dry-run goes with --record" in capsys.readouterr().err


@pytest.mark.parametrize("suite, needs", [
    (AGENT.format(extra=""), "a `model:`, a `prompt:` and `servers:` it can start"),
    ("conversations:\n  - name: weather\n    description: It answers.\n    cassette: weather.json\n    synthetic_user:\n"
     "      persona: A busy professional\n      initial_query: What's the weather?\n"
     "    evaluation:\n      correctness_criteria: [The agent answers]\n",
     "the agent's `model:` (and, for tools, `servers:` it can start"),
])
def test_an_item_that_cannot_record_says_which_keys_a_live_recording_needs(pytester, suite, needs):
    pytester.makefile(".mcptest.yml", s=suite)
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*record mode once: nothing can record weather.json "
                                 f"(this item records live only with {needs}*"])
