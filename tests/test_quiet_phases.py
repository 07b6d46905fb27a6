"""A replayed item's phases skip pytest's output and log capture; code of the project's that
runs in a phase keeps it, and every other hook is pytest's own for the item's folder."""

from __future__ import annotations

import json

import pytest
from _pytest.capture import CaptureManager
from _pytest.logging import LoggingPlugin

from pytest_mcptest.gates import GATES, replays_only
from suites import PING_RUN, simple_scenario
from test_catalog_items import GOOD_TOOL

CATALOG = {"tools": [GOOD_TOOL]}

PRINTS_IN_CALL = """
def pytest_runtest_call(item):
    print("PRINTED-" + item.name.replace(" ", "-"))
"""


@pytest.fixture
def captured(monkeypatch, request):
    """The (item, phase) pairs pytest's output capture and log capture wrapped in pytester's
    in-process runs (not this test's own phases): ``{"output": [...], "log": [...]}``."""
    seen: dict = {"output": [], "log": []}
    item_capture, runtest_for = CaptureManager.item_capture, LoggingPlugin._runtest_for
    outer = request.session

    def spy_output(self, when, item):
        if item.session is not outer:
            seen["output"].append((item.name, when))
        return item_capture(self, when, item)

    def spy_log(self, item, when):
        if item.session is not outer:
            seen["log"].append((item.name, when))
        return runtest_for(self, item, when)

    monkeypatch.setattr(CaptureManager, "item_capture", spy_output)
    monkeypatch.setattr(LoggingPlugin, "_runtest_for", spy_log)
    return seen


def _names(pairs) -> set:
    return {name for name, _ in pairs}


@pytest.fixture
def mixed(pytester):
    """A replayed scenario, a catalog item and a Python test."""
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + simple_scenario("replayed", "p.json"))
    (pytester.path / "p.json").write_text(PING_RUN)
    (pytester.path / "catalog.json").write_text(json.dumps(CATALOG))
    pytester.makefile(".mcptest.yml", q="servers:\n  docs: {catalog: catalog.json}\n"
                                        "tool_quality:\n  - name: catalog\n    server: docs\n")
    pytester.makepyfile(test_py="def test_python():\n    print('PRINTED-by-python')\n")
    return pytester


def test_only_the_replayed_items_phases_skip_capture(mixed, captured):
    result = mixed.runpytest("-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=3)
    # A Python test and a catalog gate (which may start a server) keep pytest's capture.
    for kind in ("output", "log"):
        assert sorted(captured[kind]) == sorted((name, when) for name in ("catalog", "test_python")
                                                for when in ("setup", "call", "teardown"))
    # ... and the Python test after the replayed item still has its output captured.
    result.stdout.fnmatch_lines(["*Captured stdout call*", "PRINTED-by-python"])


def test_other_folders_conftests_never_reach_a_replayed_item(pytester, captured):
    """The folder collected last brings a conftest that skips everything it sees and logs
    every report: it must see its own item only (pytest's conftest scoping)."""
    for folder in ("a", "b"):
        pytester.mkdir(folder)
        (pytester.path / folder / "s.mcptest.yml").write_text("scenarios:\n" + simple_scenario(f"in {folder}", "p.json"))
        (pytester.path / folder / "p.json").write_text(PING_RUN)
    (pytester.path / "b" / "conftest.py").write_text(
        "import pytest\n\n"
        "def pytest_runtest_setup(item):\n"
        "    pytest.skip('skipped by b: ' + item.nodeid)\n\n"
        "def pytest_runtest_logreport(report):\n"
        "    print('B-SAW', report.nodeid, report.when)\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-rs", "-s")
    result.assert_outcomes(passed=1, skipped=1)
    out = result.stdout.str()
    assert "skipped by b: b/s.mcptest.yml::in b" in out
    assert "B-SAW a/" not in out and "B-SAW b/s.mcptest.yml::in b setup" in out
    # b's item runs its conftest's hook, so it keeps the capture; a's item skips it.
    assert _names(captured["output"]) == {"in b"}


@pytest.mark.parametrize("where", ["conftest", "pytest_plugins", "registered", "-p"])
def test_a_phase_hook_of_the_projects_keeps_the_capture(pytester, captured, where):
    """A project's hook in a phase is captured as pytest always does, wherever it is written."""
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + simple_scenario("replayed", "p.json"))
    (pytester.path / "p.json").write_text(PING_RUN)
    pytester.syspathinsert()
    args = ["-p", "no:cacheprovider"]
    if where == "conftest":
        pytester.makeconftest(PRINTS_IN_CALL)
    elif where == "pytest_plugins":
        pytester.makepyfile(helpers=PRINTS_IN_CALL)
        pytester.makeconftest("pytest_plugins = ['helpers']\n")
    elif where == "registered":
        pytester.makeconftest("class Late:\n" + PRINTS_IN_CALL.replace("\ndef ", "\n    def ").replace("(item)", "(self, item)")
                              .replace("\n    print", "\n        print") +
                              "\ndef pytest_configure(config):\n    config.pluginmanager.register(Late(), 'late')\n")
    else:
        pytester.makepyfile(project_plugin=PRINTS_IN_CALL)
        args += ["-p", "project_plugin"]
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=1)
    assert "PRINTED-" not in result.stdout.str()  # captured: a passing item's output is not shown
    assert _names(captured["output"]) == {"replayed"} and _names(captured["log"]) == {"replayed"}


@pytest.mark.parametrize("option", ["--mcptest-record-mode=once", "--pdb", "--trace"])
def test_a_mode_that_may_record_or_a_debugger_keeps_the_capture(mixed, captured, option):
    mixed.runpytest("-p", "no:cacheprovider", option, "-k", "replayed").assert_outcomes(passed=1, deselected=2)
    assert _names(captured["output"]) == {"replayed"} and _names(captured["log"]) == {"replayed"}


def test_with_capture_or_logging_off_there_is_less_to_skip(mixed, captured):
    result = mixed.runpytest("-p", "no:cacheprovider", "-s", "-p", "no:logging")
    result.assert_outcomes(passed=3)
    assert "PRINTED-by-python" in result.stdout.str()
    assert "replayed" not in _names(captured["output"]) and captured["log"] == []


def test_marks_and_a_failure_read_as_before(pytester, captured):
    body = "scenarios:\n" + "".join([
        simple_scenario("skipped", "p.json", "    skip: not today\n"),
        simple_scenario("expected to fail", "bad.json", "    xfail: known\n"),
        simple_scenario("fails", "bad.json"),
    ])
    pytester.makefile(".mcptest.yml", s=body)
    (pytester.path / "p.json").write_text(PING_RUN)
    (pytester.path / "bad.json").write_text(json.dumps({"runs": [{"tool_calls": [{"name": "nope"}]}]}))
    result = pytester.runpytest("-p", "no:cacheprovider", "-rsx")
    result.assert_outcomes(skipped=1, xfailed=1, failed=1)
    out = result.stdout.str()
    assert "not today" in out and "known" in out and "s.mcptest.yml:" in out
    assert "Captured" not in out and captured["output"] == []


def test_a_replayed_item_runs_under_xdist_and_junitxml(mixed):
    result = mixed.runpytest("-p", "no:cacheprovider", "-n", "2", "--junitxml=j.xml")
    result.assert_outcomes(passed=3)
    assert (mixed.path / "j.xml").read_text().count("<testcase") == 3


def test_which_kinds_only_replay():
    assert {kind for kind in GATES if replays_only(kind, "none")} == {"scenario", "agent", "distractors",
                                                                        "conversation"}
    assert not any(replays_only(kind, mode) for kind in GATES for mode in ("once", "new_episodes", "all", "rewrite"))
