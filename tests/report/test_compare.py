"""Comparing two JSON reports: compare_reports, --mcptest-compare, and `mcptest report`."""

from __future__ import annotations

import json

import pytest
from forkserver import through_forkserver

from pytest_mcptest.cli import main
from pytest_mcptest.report.document import compare_reports, flatten, load_report, render_comparison

pytest_plugins = ["pytester"]


def _item(item_id, outcome="passed", envelope=None):
    return {"id": item_id, "name": item_id, "kind": "agent", "file": "a.mcptest.yml", "line": 1,
            "outcome": outcome, "envelope": envelope or {}, "failures": []}


def _report(*items):
    return {"mcptest_report": 1, "items": list(items)}


BASE = _report(
    _item("a::one", envelope={"tool_selection": {"f1": 80, "precision": 100, "floor": {"passed": True}},
                              "runs": [{"actions": 3, "ok": True}], "name": "x"}),
    _item("a::two", "failed", envelope={"invalid_actions": 1}),
    _item("a::gone"),
)
CURRENT = _report(
    _item("a::new", "failed"),
    _item("a::one", "failed", envelope={"tool_selection": {"f1": 60, "precision": 100, "floor": {"passed": False}},
                                        "runs": [{"actions": 4, "ok": False}], "name": "y"}),
    _item("a::two", "passed", envelope={"invalid_actions": 0.5}),
)


def test_flatten_uses_dotted_paths_and_indexes():
    assert flatten({"b": {"c": 1}, "a": [{"x": 2}, 3], "e": {}}) == {"a[0].x": 2, "a[1]": 3, "b.c": 1}


def test_compare_reports_deltas_flips_added_removed():
    cmp = compare_reports(CURRENT, BASE)
    assert [i["id"] for i in cmp["items"]] == ["a::gone", "a::new", "a::one", "a::two"]
    assert cmp["added"] == ["a::new"] and cmp["removed"] == ["a::gone"]
    one = cmp["items"][2]
    assert one["values"] == [
        {"path": "runs[0].actions", "before": 3, "after": 4, "delta": 1},
        {"path": "tool_selection.f1", "before": 80, "after": 60, "delta": -20},
        {"path": "tool_selection.precision", "before": 100, "after": 100, "delta": 0},
    ]  # booleans and strings are not numbers
    assert cmp["outcome_changes"] == [{"id": "a::one", "before": "passed", "after": "failed"},
                                      {"id": "a::two", "before": "failed", "after": "passed"}]
    assert cmp["floor_flips"] == [
        {"id": "a::one", "path": "outcome", "before": "passed", "after": "failed"},
        {"id": "a::one", "path": "tool_selection.floor.passed", "before": "passed", "after": "failed"},
        {"id": "a::two", "path": "outcome", "before": "failed", "after": "passed"},
    ]
    assert cmp["regressions"] == 2
    assert compare_reports(CURRENT, BASE) == cmp  # deterministic
    short = render_comparison(cmp).splitlines()
    assert "a::one: outcome passed -> failed" in short and "FLOOR FLIP a::one: passed -> failed" in short
    assert short[-1] == "3 value deltas not shown (--all shows every delta and every test)"
    text = render_comparison(cmp, every=True).splitlines()
    assert "a::one: outcome passed -> failed, runs[0].actions 3 -> 4 (+1), tool_selection.f1 80 -> 60 (-20)" in text
    assert "a::two: outcome failed -> passed, invalid_actions 1 -> 0.5 (-0.5)" in text
    assert "FLOOR FLIP a::one: passed -> failed" in text
    assert "FLOOR FLIP a::one (tool_selection.floor.passed): passed -> failed" in text
    assert "added a::new (failed)" in text and "removed a::gone (was passed)" in text


def test_same_report_compares_clean():
    cmp = compare_reports(BASE, BASE)
    assert not cmp["floor_flips"] and not cmp["regressions"] and not any(i["changed"] for i in cmp["items"])
    assert render_comparison(cmp).splitlines()[1:] == [
        "3 items compared: 0 changed, 0 added, 0 removed, 0 floor flips (0 to failed)"]
    assert cmp["significance"] == {"alpha": 0.05, "correction": "Holm", "verdict": "within noise", "tests": [],
                                   "significant": 0, "regressions": 0}


@pytest.mark.parametrize("text, needle", [
    ("{", "invalid JSON"), ("[]", "not an mcptest report"), ('{"mcptest_report": 2, "items": []}', "version"),
    ('{"mcptest_report": 1, "items": [{}]}', "(at /items/0): not an mcptest report: items[0] is missing the required key 'id'"),
])
def test_load_report_names_the_file(tmp_path, text, needle):
    (tmp_path / "b.json").write_text(text)
    with pytest.raises(ValueError, match="b.json") as info:
        load_report(str(tmp_path / "b.json"))
    assert needle in str(info.value)


def _write(path, data):
    path.write_text(json.dumps(data))
    return str(path)


def test_cli_report_exit_codes(tmp_path, capsys):
    cur, base = _write(tmp_path / "cur.json", CURRENT), _write(tmp_path / "base.json", BASE)
    assert main(["report", cur]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 items: 2 failed, 1 passed") and "FAILED a::one" in out
    assert main(["report", cur, "--compare", base]) == 1
    assert "FLOOR FLIP a::one: passed -> failed" in capsys.readouterr().out
    assert main(["report", base, "--compare", base]) == 0
    capsys.readouterr()
    assert main(["report", base, "--compare", cur, "--json"]) == 1  # the other way round, a::two regressed
    data = json.loads(capsys.readouterr().out)
    assert data["mcptest_compare"] == 1 and data["regressions"] == 1
    assert data["floor_flips"][-1] == {"id": "a::two", "path": "outcome", "before": "passed", "after": "failed"}
    assert main(["report", cur, "--compare", str(tmp_path / "missing.json")]) == 2
    assert "missing.json: no such file" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("nope")
    assert main(["report", str(tmp_path / "bad.json")]) == 2
    assert "bad.json:1: invalid JSON: Expecting value (column 1)" in capsys.readouterr().err


FLOOR_SUITE = """\
agents:
  - name: weather selection
    cassette: run.json
    tool_selection:
      expected_tool: get_weather
      min_selection_rate: 0.8
"""


def _cassette(tools):
    runs = [{"tool_calls": [{"name": t, "args": {"q": "x"}}],
             "conversation": {"turns": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "ok"}]}}
            for t in tools]
    return json.dumps({"mcptest_cassette": 1, "runs": runs})


@pytest.fixture
def floor_suite(pytester):
    pytester.makefile(".mcptest.yml", a=FLOOR_SUITE)
    (pytester.path / "run.json").write_text(_cassette(["get_weather", "get_weather"]))
    return pytester


def test_pytest_compare_option_prints_deltas_and_floor_flips(floor_suite):
    result = floor_suite.runpytest("-p", "no:cacheprovider", "--mcptest-report=base.json")
    result.assert_outcomes(passed=1)
    (floor_suite.path / "run.json").write_text(_cassette(["get_weather", "search"]))
    result = floor_suite.runpytest("-p", "no:cacheprovider", "--mcptest-compare=base.json")
    result.assert_outcomes(failed=1)
    assert not (floor_suite.path / "cur.json").exists()
    result.stdout.fnmatch_lines([
        "*mcptest: tool-selection floors*",
        "a.mcptest.yml::weather selection",
        "    FLOOR weather selection: selection rate 50% is below the 80% floor*",
        "*mcptest: compared with base.json*",
        "verdict: WITHIN NOISE: no paired measure changed*",
        "a.mcptest.yml::weather selection: outcome passed -> failed",
        "FLOOR FLIP a.mcptest.yml::weather selection: passed -> failed",
        "*value deltas not shown (-v shows every delta and every test)",
    ])
    verbose = floor_suite.runpytest("-p", "no:cacheprovider", "-v", "--mcptest-compare=base.json")
    verbose.stdout.fnmatch_lines([
        "*mcptest: compared with base.json*",
        "a.mcptest.yml::weather selection: outcome passed -> failed*tool_selection.selection_rate 1.0 -> 0.5 (-0.5)*",
    ])


def test_pytest_compare_under_xdist_with_report(floor_suite):
    floor_suite.runpytest("-p", "no:cacheprovider", "--mcptest-report=base.json").assert_outcomes(passed=1)
    (floor_suite.path / "run.json").write_text(_cassette(["search", "search"]))
    result = through_forkserver(floor_suite).runpytest_subprocess("-p", "no:cacheprovider", "-n", "1",
                                                                  "--mcptest-compare=base.json",
                                                                  "--mcptest-report=cur.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*mcptest: tool-selection floors*", "    FLOOR weather selection:*",
                                 "FLOOR FLIP a.mcptest.yml::weather selection: passed -> failed"])
    assert main(["report", str(floor_suite.path / "cur.json"), "--compare", str(floor_suite.path / "base.json")]) == 1


def test_pytest_compare_missing_or_invalid_baseline_is_a_usage_error(floor_suite):
    result = floor_suite.runpytest("-p", "no:cacheprovider", "--mcptest-compare=nope.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mcptest-compare: nope.json: no such file*"])
    (floor_suite.path / "bad.json").write_text("{")
    result = floor_suite.runpytest("-p", "no:cacheprovider", "--mcptest-compare=bad.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*bad.json:1: invalid JSON*"])


def test_report_ids_do_not_move_with_pytests_rootdir(floor_suite):
    """When pytest's rootdir moves (``--rootdir``, or a path among the arguments), node ids
    change; report ids are relative to the ini file (or the invocation folder) and do not."""
    (floor_suite.path / "recordings").mkdir()
    (floor_suite.path / "recordings" / "run.json").write_text(_cassette(["get_weather", "search"]))
    floor_suite.runpytest("-p", "no:cacheprovider", "--mcptest-report=base.json")
    result = floor_suite.runpytest("-p", "no:cacheprovider", "--cassette-dir", "recordings", "--rootdir=recordings",
                                   "--mcptest-compare=base.json", "--mcptest-report=cur.json", "-v")
    assert "recordings" in result.stdout.str().split("rootdir:", 1)[1].splitlines()[0]  # pytest's rootdir moved
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    ids = [i["id"] for i in json.loads((floor_suite.path / "cur.json").read_text())["items"]]
    assert ids == ["a.mcptest.yml::weather selection"]
    result.stdout.fnmatch_lines(["FLOOR FLIP a.mcptest.yml::weather selection: passed -> failed",
                                 "1 item compared: 1 changed, 0 added, 0 removed, 2 floor flips (2 to failed)"])


def test_cassette_dir_written_apart_moves_rootdir_but_not_report_ids(pytester, monkeypatch):
    """``--cassette-dir ../recs`` (the value apart) is taken by pytest for a path when it picks
    its rootdir, which moves up to the common folder; ``=`` does not. Report ids stay put."""
    (pytester.path / "suites").mkdir()
    (pytester.path / "recs").mkdir()
    (pytester.path / "suites" / "a.mcptest.yml").write_text(FLOOR_SUITE)
    (pytester.path / "recs" / "run.json").write_text(_cassette(["get_weather", "get_weather"]))
    monkeypatch.chdir(pytester.path / "suites")
    joined = pytester.runpytest("-p", "no:cacheprovider", "--cassette-dir=../recs", "--mcptest-report=base.json")
    joined.assert_outcomes(passed=1)
    apart = pytester.runpytest("-p", "no:cacheprovider", "--cassette-dir", "../recs", "--mcptest-compare=base.json",
                               "--mcptest-report=cur.json")
    apart.assert_outcomes(passed=1)
    rootdirs = [r.stdout.str().split("rootdir: ", 1)[1].splitlines()[0] for r in (joined, apart)]
    assert rootdirs == [str(pytester.path / "suites"), str(pytester.path)]
    assert apart.ret == pytest.ExitCode.OK
    apart.stdout.fnmatch_lines(["1 item compared: 0 changed, 0 added, 0 removed, 0 floor flips (0 to failed)"])
    ids = [i["id"] for i in json.loads((pytester.path / "suites" / "cur.json").read_text())["items"]]
    assert ids == ["a.mcptest.yml::weather selection"]


def test_a_comparison_with_no_item_in_common_is_a_usage_error(floor_suite, tmp_path, capsys):
    (floor_suite.path / "other.json").write_text(json.dumps(_report(_item("elsewhere.mcptest.yml::x"))))
    result = floor_suite.runpytest("-p", "no:cacheprovider", "--mcptest-compare=other.json", "--mcptest-report=cur.json")
    assert result.ret == 2
    result.stdout.fnmatch_lines(["*no item in common with the baseline (1 item there, 1 here)*"])
    assert main(["report", str(floor_suite.path / "cur.json"), "--compare", str(floor_suite.path / "other.json")]) == 2
    assert "no item in common" in capsys.readouterr().err


def test_a_floor_flip_to_failed_fails_the_session_even_when_no_item_failed(floor_suite):
    base = _report(_item("a.mcptest.yml::weather selection",
                         envelope={"tool_selection": {"floor": {"passed": True}}}))
    (floor_suite.path / "base.json").write_text(json.dumps(base))
    (floor_suite.path / "a.mcptest.yml").write_text(FLOOR_SUITE + "    xfail: the floor is known to fail\n")
    (floor_suite.path / "run.json").write_text(_cassette(["search", "search"]))
    result = floor_suite.runpytest("-p", "no:cacheprovider", "--mcptest-compare=base.json")
    result.assert_outcomes(xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FLOOR FLIP a.mcptest.yml::weather selection (tool_selection.floor.passed): "
                                 "passed -> failed"])
