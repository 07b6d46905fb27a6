"""The ``mcptest_recorder`` fixture in a pytester run, each record mode, and replay of what it
(and the proxy) recorded under a YAML agent item."""

from __future__ import annotations

import json
import re
import sys
import textwrap

import pytest

from record_helpers import SHOP_MANIFEST, mock_command, proxy_command, with_session

pytest_plugins = ["pytester"]

AGENT_TEST = textwrap.dedent('''\
    import sys
    import anyio
    import pytest
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    SERVER = [sys.executable, "-m", "pytest_mcptest.cli", "mock", "--tools-from", "shop.yml"]
    CITY = "Paris"

    async def agent(session, rec):
        """A stand-in for the user's own agent loop: list tools, call two, answer."""
        from mcp import types

        page = await session.list_tools()
        names = [t.name for t in page.tools]
        while page.next_cursor:  # every page, as a careful agent does
            page = await session.list_tools(params=types.PaginatedRequestParams(cursor=page.next_cursor))
            names += [t.name for t in page.tools]
        assert names == ["get_weather", "add", "echo", "broken"]
        weather = await session.call_tool("get_weather", {"city": CITY})
        total = await session.call_tool("add", {"a": 2, "b": 3})
        rec.tokens(input=1200, output=80)
        rec.final_response(f"{weather.content[0].text}; 2 + 3 = {total.structured_content['sum']}")
        return weather.content[0].text, total.structured_content

    async def run(rec):
        rec.describe(agent="weather", model="anthropic:claude-sonnet-4-5", prompt="Weather in Paris?")
        if rec.replaying:  # nothing to start: answers come from the cassette
            return await agent(rec.wrap(None, server="shop"), rec)
        params = StdioServerParameters(command=SERVER[0], args=SERVER[1:])
        async with stdio_client(params, errlog=sys.__stderr__) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await agent(rec.wrap(session, server="shop"), rec)

    def test_weather(mcptest_recorder):
        text, total = anyio.run(run, mcptest_recorder)
        print("REPLAYING" if mcptest_recorder.replaying else "RECORDING")
        assert text == "Sunny in Paris"
        assert total == {"sum": 2, "note": "a=2, b=3"}
''').replace(  # the same mock server, started through the fork server (forkserver.py)
    '[sys.executable, "-m", "pytest_mcptest.cli", "mock", "--tools-from", "shop.yml"]', repr(mock_command("shop.yml")))


@pytest.fixture
def project(pytester):
    pytester.makefile(".yml", shop=SHOP_MANIFEST)
    pytester.makepyfile(test_agent=AGENT_TEST)
    return pytester


def cassette(pytester) -> dict:
    return json.loads((pytester.path / "test-weather.json").read_text())


def run(pytester, *args):
    return pytester.runpytest("-s", "-p", "no:cacheprovider", *args)


def test_once_records_then_none_replays_without_the_server(project):
    first = run(project, "--mcptest-record-mode=once")
    first.assert_outcomes(passed=1)
    first.stdout.fnmatch_lines(["*RECORDING*"])
    data = cassette(project)
    calls = data["runs"][0]["tool_calls"]
    assert [(c["name"], c["server"], c["args"], c["error"], c["turn"]) for c in calls] == [
        ("get_weather", "shop", {"city": "Paris"}, False, 0), ("add", "shop", {"a": 2, "b": 3}, False, 0)]
    assert calls[1]["result"]["structuredContent"] == {"sum": 2, "note": "a=2, b=3"}
    conversation = data["runs"][0]["conversation"]
    assert conversation["tokens"] == {"input": 1200, "output": 80, "total": 1280}
    assert [t["role"] for t in conversation["turns"]] == ["user", "assistant"]
    assert [t["name"] for t in data["catalog"]["shop"]["tools"]] == ["get_weather", "add", "echo", "broken"]
    assert data["meta"]["model"] == "anthropic:claude-sonnet-4-5" and len(data["meta"]["prompt_sha256"]) == 64
    before = (project.path / "test-weather.json").read_bytes()

    # the manifest is gone: a replay that touched the server would fail
    (project.path / "shop.yml").unlink()
    for mode in ("none", "once"):
        again = run(project, f"--mcptest-record-mode={mode}")
        again.assert_outcomes(passed=1)
        again.stdout.fnmatch_lines(["*REPLAYING*"])
    assert (project.path / "test-weather.json").read_bytes() == before  # replay never writes


def test_none_with_no_cassette_fails_saying_how_to_record(project):
    result = run(project)
    result.assert_outcomes(errors=0, failed=1)
    result.stdout.fnmatch_lines(["*no cassette at *test-weather.json (record mode none replays only); "
                                 "record one with `mcptest record --out *"])
    assert "Traceback" not in result.stdout.str()
    assert not (project.path / "test-weather.json").exists()


def test_a_call_with_no_recorded_answer_names_the_closest(project):
    run(project, "--mcptest-record-mode=once").assert_outcomes(passed=1)
    (project.path / "test_agent.py").write_text(AGENT_TEST.replace('CITY = "Paris"', 'CITY = "Pariss"'))
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(['*no recorded answer for get_weather {"city": "Pariss"}; the closest recorded '
                                 'call not yet used is get_weather {"city": "Paris"}*'])


def test_new_episodes_stops_at_one_run_without_runs_and_all_and_rewrite_record_anew(project):
    run(project, "--mcptest-record-mode=new_episodes").stdout.fnmatch_lines(["*RECORDING*"])
    run(project, "--mcptest-record-mode=new_episodes").stdout.fnmatch_lines(["*REPLAYING*"])
    assert len(cassette(project)["runs"]) == 1

    data = cassette(project)
    data["meta"]["notes"] = "kept by all, dropped by rewrite"  # what the cassette says of itself
    (project.path / "test-weather.json").write_text(json.dumps(data))
    run(project, "--mcptest-record-mode=all").stdout.fnmatch_lines(["*RECORDING*"])
    after_all = cassette(project)
    assert len(after_all["runs"]) == 1 and after_all["meta"]["notes"] == "kept by all, dropped by rewrite"
    run(project, "--mcptest-record-mode=rewrite").stdout.fnmatch_lines(["*RECORDING*"])
    after_rewrite = cassette(project)
    assert len(after_rewrite["runs"]) == 1 and "notes" not in after_rewrite["meta"]


def test_the_marker_sets_the_path_and_runs(project):
    project.makepyfile(test_agent=AGENT_TEST.replace(
        "def test_weather(", '@pytest.mark.mcptest_cassette("cassettes/w.json", runs=2)\ndef test_weather('))
    for _ in range(3):
        run(project, "--mcptest-record-mode=new_episodes").assert_outcomes(passed=1)
    data = json.loads((project.path / "cassettes" / "w.json").read_text())
    assert len(data["runs"]) == 2  # the third run replayed: runs=2 was reached


def test_an_agent_loop_that_breaks_off_writes_nothing(project):
    project.makepyfile(test_agent=AGENT_TEST.replace('rec.tokens(input=1200, output=80)',
                                                     'raise RuntimeError("model API down")'))
    result = run(project, "--mcptest-record-mode=once")
    result.assert_outcomes(failed=1)
    assert not (project.path / "test-weather.json").exists()


def test_the_redact_option_applies_to_the_fixture(project):
    result = run(project, "--mcptest-record-mode=once", "--mcptest-redact", "Sunny")
    result.assert_outcomes(passed=1)
    raw = (project.path / "test-weather.json").read_text()
    assert "Sunny" not in raw and re.search(r"<redacted:[0-9a-f]{12}> in Paris", raw)


def test_an_unusable_redaction_key_fails_the_recording_saying_why(project, monkeypatch):
    monkeypatch.setenv("MCPTEST_REDACT_KEY", "short")
    result = run(project, "--mcptest-record-mode=once")
    result.assert_outcomes(passed=1, errors=1)  # the test ran; writing its recording failed, at teardown
    result.stdout.fnmatch_lines(["*recording into *test-weather.json: MCPTEST_REDACT_KEY holds 5 characters; "
                                 "a redaction key needs 16 or more*"])
    assert "Traceback" not in result.stdout.str() and not (project.path / "test-weather.json").exists()


def test_a_bad_redact_pattern_is_a_usage_error(project):
    result = run(project, "--mcptest-redact", "(")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--mcptest-redact: '(' is not a valid regular expression*"])


# -- what was recorded replays under a YAML agent item ---------------------------------------

SUITE = textwrap.dedent('''\
    agents:
      - name: weather
        model: anthropic:claude-sonnet-4-5
        servers: [shop]
        prompt: Weather in Paris?
        cassette: {cassette}
        expected_trace:
          mode: subsequence
          calls:
            - {{name: get_weather, args: {{exact: {{city: Paris}}}}}}
            - add
        token_efficiency:
          classes: [{{name: weather, members: [get_weather]}}, {{name: math, members: [add]}}]
          expect: [{{token_efficiency.f1: {{">=": 100}}}}]
        expect:
          - tool_calls[1].result.structuredContent.sum: {{exact: 2}}
          - tool_calls[0].error: {{exact: false}}
''')


def test_a_fixture_recording_replays_under_an_agent_item(project):
    run(project, "--mcptest-record-mode=once").assert_outcomes(passed=1)
    project.makefile(".mcptest.yml", suite=SUITE.format(cassette="test-weather.json"))
    result = run(project, "suite.mcptest.yml", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*suite.mcptest.yml::weather PASSED*"])


def test_a_proxy_recording_replays_under_an_agent_item(pytester):
    pytester.makefile(".yml", shop=SHOP_MANIFEST)
    out = str(pytester.path / "proxied.json")

    async def agent(session, init):
        await session.list_tools()
        await session.call_tool("get_weather", {"city": "Paris"})
        await session.call_tool("add", {"a": 2, "b": 3})

    with_session(proxy_command(out, mock_command(str(pytester.path / "shop.yml")), "--server-name", "shop"), agent)
    pytester.makefile(".mcptest.yml", suite=SUITE.format(cassette="proxied.json"))
    result = run(pytester, "suite.mcptest.yml", "-v")
    result.assert_outcomes(passed=1)


# -- pytest_mcptest.Recorder, outside pytest ---------------------------------------------------


def test_recorder_outside_pytest_records_then_replays_and_rpc_errors_replay_too(tmp_path):
    import anyio

    from pytest_mcptest import Recorder, RecordingError

    manifest = tmp_path / "shop.yml"
    manifest.write_text(SHOP_MANIFEST)
    path = str(tmp_path / "c.json")

    async def agent(session):
        from mcp.shared.exceptions import MCPError

        weather = await session.call_tool("get_weather", {"city": "Oslo"})
        try:
            await session.call_tool("no_such_tool", {})
            unknown = None
        except MCPError as exc:
            unknown = exc.error.message
        broken = await session.call_tool("broken", {})
        return weather.content[0].text, unknown, broken.is_error

    with Recorder(path, mode="once") as rec:
        assert not rec.replaying
        recorded = with_session(mock_command(str(manifest)), lambda s, i: agent(rec.wrap(s, server="shop")))
    calls = json.loads(open(path).read())["runs"][0]["tool_calls"]
    assert [(c["name"], c["error"]) for c in calls] == [("get_weather", False), ("no_such_tool", True), ("broken", True)]
    before = open(path, "rb").read()

    with Recorder(path, mode="none") as rec:
        assert rec.replaying
        replayed = anyio.run(agent, rec.wrap(None, server="shop"))
    assert replayed == recorded and recorded[0] == "Sunny in Oslo" and recorded[2] is True
    assert open(path, "rb").read() == before

    with Recorder(path, mode="none", run=1) as rec, pytest.raises(
            RecordingError, match=r"holds 1 run\(s\); run=1 is not one of them \(run= counts from 0"):
        anyio.run(agent, rec.wrap(None, server="shop"))

    with pytest.raises(RecordingError, match="no cassette at .*missing.json"):
        Recorder(str(tmp_path / "missing.json"), mode="none").wrap(None, server="shop")


def test_the_cassette_dir_option_places_the_fixture_cassette(project):
    run(project, "--mcptest-record-mode=once", "--cassette-dir=recs").assert_outcomes(passed=1)
    assert (project.path / "recs" / "test-weather.json").exists()
    assert not (project.path / "test-weather.json").exists()
