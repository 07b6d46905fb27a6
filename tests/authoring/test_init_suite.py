"""``mcptest init CASSETTE``: a starting suite from a recording, which passes on that recording."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis_budget import budget

from pytest_mcptest.cli import main
from pytest_mcptest.gates.evaluate import evaluate
from pytest_mcptest.gates.suite_build import load_suite

RUNS = [
    {"tool_calls": [{"name": "search", "args": {"q": "weather", "n": 3}},
                    {"name": "get_weather", "args": {"city": "Sacramento"}},
                    {"name": "get_weather", "args": {"city": "Davis", "units": "F"}}],
     "conversation": {"turns": [], "tokens": {"input": 10, "output": 5, "total": 15}}},
    {"tool_calls": [{"name": "get_weather", "args": {"city": "Sacramento"}}],
     "conversation": {"turns": [], "tokens": {"input": 10, "output": 20, "total": 30}}},
]


def _write(path: Path, runs, meta=None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcptest_cassette": 1, "meta": meta or {"agent": "weather bot"}, "runs": runs}))
    return path


@pytest.mark.parametrize("kind", ["agent", "scenario"])
def test_init_then_pytest_passes_on_the_cassette_it_came_from(pytester, kind):
    _write(pytester.path / "cassettes" / "weather.json", RUNS)
    assert main(["init", str(pytester.path / "cassettes" / "weather.json"), "--kind", kind,
                 "-o", str(pytester.path / "suites" / "w.mcptest.yml")]) == 0
    text = (pytester.path / "suites" / "w.mcptest.yml").read_text()
    assert "cassette: ../cassettes/weather.json" in text and "runs: 2" in text
    result = pytester.runpytest("-p", "no:cacheprovider", "suites")
    result.assert_outcomes(passed=1)
    # The suite says what the recording showed: a moved recording fails it.
    moved = [dict(RUNS[1], tool_calls=[{"name": "get_weather", "args": {"city": 7}}, {"name": "search", "args": {}}])]
    _write(pytester.path / "cassettes" / "weather.json", moved * 2)
    pytester.runpytest("-p", "no:cacheprovider", "suites").assert_outcomes(failed=1)


def test_the_suite_reads_as_people_write_suites(tmp_path, capsys):
    _write(tmp_path / "weather.json", RUNS, {"agent": "weather bot", "model": "openai:gpt-4o-mini", "prompt": "Weather?"})
    assert main(["init", str(tmp_path / "weather.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "# A starting suite written by `mcptest init weather.json` from 2 recorded runs."
    assert lines[4].startswith("    cassette: ") and lines[4].endswith("weather.json")  # relative to the working directory
    assert lines[2:4] + lines[5:] == [
        "agents:",
        "  - name: weather bot",
        "    model: openai:gpt-4o-mini",
        "    prompt: Weather?",
        "    runs: 2",
        "    expected_trace:",
        "      mode: subsequence",
        "      calls:",
        "        - {name: get_weather, args: {schema: {type: object, properties: {city: {type: string}, "
        "units: {type: string}}, required: [city]}}}",
        "    golden:",
        "      calls: [search, get_weather, get_weather]",
        "      alternates: [[get_weather]]",
        "      penalize_repeated_tools: false",
        "    expect:",
        '      - {actions: {"<=": 3}}',
        '      - {conversation.tokens.total: {"<=": 30}}']


def test_init_refuses_what_it_cannot_use(tmp_path, capsys):
    assert main(["init", str(tmp_path / "none.json")]) == 2
    assert "no such cassette" in capsys.readouterr().err
    _write(tmp_path / "empty.json", [])
    assert main(["init", str(tmp_path / "empty.json")]) == 2
    assert "records no run" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text('{"runs": [{"tool_calls": [{"args": {}}]}]}')
    assert main(["init", str(tmp_path / "bad.json")]) == 2
    assert "missing the required key 'name'" in capsys.readouterr().err
    _write(tmp_path / "w.json", RUNS)
    (tmp_path / "s.mcptest.yml").write_text("# mine\n")
    assert main(["init", str(tmp_path / "w.json"), "-o", str(tmp_path / "s.mcptest.yml")]) == 2
    assert "already exists; pass --force" in capsys.readouterr().err
    assert (tmp_path / "s.mcptest.yml").read_text() == "# mine\n"
    assert main(["init", str(tmp_path / "w.json"), "-o", str(tmp_path / "s.mcptest.yml"), "--force"]) == 0


_ARGS = st.one_of(st.none(), st.dictionaries(st.sampled_from(["q", "n", "city"]),
                                            st.one_of(st.integers(), st.text(max_size=3), st.booleans(),
                                                      st.lists(st.integers(), max_size=2)), max_size=3))
_CALL = st.fixed_dictionaries({"name": st.sampled_from(["a", "b", "c"]), "args": _ARGS, "error": st.booleans()})
_RUN = st.fixed_dictionaries({"tool_calls": st.lists(_CALL, max_size=5),
                              "conversation": st.fixed_dictionaries({"turns": st.just([]), "tokens": st.one_of(
                                  st.none(), st.fixed_dictionaries({"total": st.integers(0, 10_000)}))})})


@settings(max_examples=budget(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(runs=st.lists(_RUN, min_size=1, max_size=4), kind=st.sampled_from(["agent", "scenario"]))
def test_any_recording_passes_the_suite_written_from_it(runs, kind):
    with tempfile.TemporaryDirectory() as folder:
        cassette = _write(Path(folder) / "c.json", runs)
        suite = Path(folder) / "s.mcptest.yml"
        from pytest_mcptest.authoring.init_suite import command

        assert command(str(cassette), kind, str(suite)) == 0
        (block,) = load_suite(str(suite)).blocks
        verdict = evaluate(block)
        assert verdict.passed, (verdict.failures, suite.read_text())
