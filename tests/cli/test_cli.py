"""The ``mcptest`` command: the same verdicts as the items, exit 0 / 1 / 2."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from typing import NamedTuple

import pytest
from forkserver import forked

from pytest_mcptest.cli import main
from suites import BAD_RUN, GOOD_RUN, PING_RUN, WIDGET_SUITE, simple_scenario


@pytest.fixture
def suite(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shop.mcptest.yml").write_text(WIDGET_SUITE + simple_scenario("ping once"))
    (tmp_path / "cassettes").mkdir()
    (tmp_path / "cassettes" / "restock.json").write_text(GOOD_RUN)
    (tmp_path / "ping-once.json").write_text(PING_RUN)
    return tmp_path


def test_scenario_run_all_pass(suite, capsys):
    assert main(["scenario", "run", "shop.mcptest.yml"]) == 0
    out = capsys.readouterr().out
    assert "2 passed" in out.splitlines()[-1]


def test_scenario_run_failure_exits_1_with_the_same_text(suite, capsys):
    (suite / "cassettes" / "restock.json").write_text(BAD_RUN)
    assert main(["scenario", "run", "shop.mcptest.yml"]) == 1
    out = capsys.readouterr().out
    assert "shop.mcptest.yml:2: scenario failed" in out
    assert "call 3   drop_inventory   {}   destructive bulk delete is never allowed" in out
    assert "1 failed, 1 passed" in out.splitlines()[-1]


def test_scenario_run_name_filter_and_unknown_name(suite, capsys):
    (suite / "cassettes" / "restock.json").write_text(BAD_RUN)
    assert main(["scenario", "run", "shop.mcptest.yml", "--name", "ping once"]) == 0
    assert main(["scenario", "run", "shop.mcptest.yml", "--name", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no scenario named 'nope'" in err and "'ping once'" in err


def test_scenario_run_bad_input_exits_2(suite, capsys):
    (suite / "bad.mcptest.yml").write_text("scenarios:\n  - name: x\n    seeds: {}\n")
    assert main(["scenario", "run", "bad.mcptest.yml"]) == 2
    assert "bad.mcptest.yml:3: unknown key 'seeds'" in capsys.readouterr().err
    assert main(["scenario", "run", "missing.mcptest.yml"]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["scenario", "run"])
    assert exc.value.code == 2


def test_scenario_run_cassette_dir(suite, capsys):
    (suite / "elsewhere").mkdir()
    (suite / "elsewhere" / "ping-once.json").write_text(PING_RUN)
    (suite / "ping-once.json").unlink()
    assert main(["scenario", "run", "shop.mcptest.yml", "--name", "ping once"]) == 1
    assert main(["scenario", "run", "shop.mcptest.yml", "--name", "ping once", "--cassette-dir", "elsewhere"]) == 0


def test_scenario_run_json_matches_the_pytest_report(suite, capsys):
    (suite / "cassettes" / "restock.json").write_text(BAD_RUN)
    assert main(["scenario", "run", "shop.mcptest.yml", "--json"]) == 1
    cli = json.loads(capsys.readouterr().out)
    subprocess.run(forked([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "shop.mcptest.yml",
                           "--mcptest-report", "r.json"]), cwd=suite, capture_output=True, check=False)
    assert cli == json.loads((suite / "r.json").read_text())


def test_scenario_run_gives_pytests_outcomes_for_marks(suite, capsys):
    (suite / "marks.mcptest.yml").write_text("scenarios:\n" + "".join([
        simple_scenario("skipif", "ping-once.json", "    marks: [{skipif: {condition: true, reason: not here}}]\n"),
        simple_scenario("xfail not run", "ping-once.json", "    marks: [{xfail: {run: false}}]\n"),
        simple_scenario("plain", "ping-once.json"),
    ]))
    assert main(["scenario", "run", "marks.mcptest.yml", "--json"]) == 0
    outcomes = {i["name"]: i["outcome"] for i in json.loads(capsys.readouterr().out)["items"]}
    assert outcomes == {"skipif": "skipped", "xfail not run": "xfailed", "plain": "passed"}


class Done(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def _cli(*args, cwd):
    """``mcptest ARGS`` through ``main``, in this process, from ``cwd``: exit code and output."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch, redirect_stdout(out), redirect_stderr(err):
        patch.chdir(cwd)
        code = main(list(args))
    return Done(code, out.getvalue(), err.getvalue())


def test_run_drives_pytest(suite):
    done = _cli("run", "shop.mcptest.yml", cwd=suite)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout and "warning" not in done.stdout.lower()
    (suite / "cassettes" / "restock.json").write_text(BAD_RUN)
    done = _cli("run", "shop.mcptest.yml", "--json", cwd=suite)
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert [i["outcome"] for i in report["items"]] == ["passed", "failed"]
    assert "scenario failed" in done.stderr


def test_run_bad_suite_exits_2(suite):
    (suite / "bad.mcptest.yml").write_text("scenarios: 3\n")
    done = _cli("run", ".", cwd=suite)
    assert done.returncode == 2
    assert "scenarios must be array" in done.stdout
    assert _cli("run", "nothing-here", cwd=suite).returncode == 2


def test_version(capsys):
    from pytest_mcptest import __version__

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.strip() == f"mcptest {__version__}"


def test_run_passes_pytest_options_through(suite, capsys):
    assert main(["run", "shop.mcptest.yml", "-k", "ping", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [i["name"] for i in report["items"]] == ["ping once"]
    assert main(["run", "-k", "restock", "shop.mcptest.yml", "--", "-x"]) == 0
    assert "1 passed, 1 deselected" in capsys.readouterr().out


def test_run_is_pytest_last_failed_config_and_report_included(suite, capsys):
    """``mcptest run`` keeps pytest's cache: ``--lf`` reruns what failed; ``--config FILE``
    names a suite; the user's own ``--mcptest-report`` is written and read back."""
    (suite / "cassettes" / "restock.json").write_text(BAD_RUN)
    assert main(["run", "shop.mcptest.yml"]) == 1
    capsys.readouterr()
    assert main(["run", "shop.mcptest.yml", "--lf"]) == 1
    out = capsys.readouterr().out
    assert "1 failed, 1 deselected" in out
    (suite / "cassettes" / "restock.json").write_text(GOOD_RUN)
    assert main(["run", "--config", "shop.mcptest.yml", "--mcptest-report=mine.json"]) == 0
    assert "2 passed" in capsys.readouterr().out
    mine = json.loads((suite / "mine.json").read_text())
    assert [i["outcome"] for i in mine["items"]] == ["passed", "passed"]


def test_run_reads_options_before_suites(suite, capsys):
    """``-x`` before a suite is pytest's; a suite that is not there is said to be missing."""
    assert main(["run", "-x", "shop.mcptest.yml"]) == 0
    assert main(["run", "-x", "nosuch.mcptest.yml"]) == 2
    captured = capsys.readouterr()
    assert "nosuch.mcptest.yml" in captured.out + captured.err
    assert "SUITE" not in captured.err
    assert main(["run", "--config", "nosuch.yml"]) == 2
    assert "nosuch.yml: no such file or directory" in capsys.readouterr().err


def test_run_verbose_shows_the_figures_of_passing_items(suite):
    quiet = _cli("run", "shop.mcptest.yml", cwd=suite)
    assert quiet.returncode == 0 and "passing items" not in quiet.stdout
    done = _cli("run", "shop.mcptest.yml", "-v", cwd=suite)  # -v is not cancelled by mcptest's own -q
    assert done.returncode == 0, done.stdout + done.stderr
    assert "shop.mcptest.yml::ping once PASSED" in done.stdout
    assert "mcptest: passing items" in done.stdout
    assert "shop.mcptest.yml::restock the widget shelf: 1 run, " in done.stdout


def test_run_with_nothing_to_run_says_so(suite, capsys, tmp_path):
    (tmp_path / "empty").mkdir()
    assert main(["run", str(tmp_path / "empty")]) == 2
    assert "no block to run in" in capsys.readouterr().err
    assert main(["run", "shop.mcptest.yml", "-k", "nothing_matches"]) == 2
    assert "none selected" in capsys.readouterr().err


@pytest.mark.parametrize("path,root", [
    ("/p/cassettes/a.json", "/p"), ("/p/a.json", "/p/"), ("/p", "/p"), ("/q/a.json", "/p"), ("/p/../q/a.json", "/p"),
    ("/p/x/./a.json", "/p"), ("/pp/a.json", "/p"), ("/a.json", "/"), ("/p/a.json", "/p/../p"), ("/p/a.json", None),
])
def test_shown_paths_are_what_relpath_gives(path, root):
    """``display`` answers clean paths under a clean root without relpath: the same text."""
    import os

    from pytest_mcptest.gates.sources import display

    rel = os.path.relpath(path, root or os.getcwd())
    want = path if rel == ".." or rel.startswith(".." + os.sep) else rel.replace(os.sep, "/")
    assert display(path, root) == want
