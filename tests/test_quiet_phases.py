"""A replayed item's phases skip pytest's output and log capture; code of the project's that
runs in a phase keeps it, and every other hook is pytest's own for the item's folder."""

from __future__ import annotations

import json

import pytest
from _pytest.capture import CaptureManager
from _pytest.logging import LoggingPlugin

from pytest_mcptest.gates import BUILTIN, replays_only
from suites import PING_RUN, simple_scenario
from catalog_data import GOOD_TOOL

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
    """Three replayed scenarios in one file, a catalog item and a Python test."""
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + "".join(simple_scenario(name, "p.json")
                                                                 for name in ("first", "replayed", "last")))
    (pytester.path / "p.json").write_text(PING_RUN)
    (pytester.path / "catalog.json").write_text(json.dumps(CATALOG))
    pytester.makefile(".mcptest.yml", q="servers:\n  docs: {catalog: catalog.json}\n"
                                        "tool_quality:\n  - name: catalog\n    server: docs\n")
    pytester.makepyfile(test_py="def test_python():\n    print('PRINTED-by-python')\n")
    return pytester


def test_only_the_replayed_items_phases_skip_capture(mixed, captured):
    result = mixed.runpytest("-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=5)
    every = [(name, when) for name in ("catalog", "test_python") for when in ("setup", "call", "teardown")]
    # A Python test and a catalog gate (which may start a server) keep pytest's capture; of
    # the replayed items, the setup and teardown of the file's first and last (they may set
    # up a package or tear down fixtures of other tests), never a call.
    ends = [(name, when) for name in ("first", "last") for when in ("setup", "teardown")]
    for kind in ("output", "log"):
        assert sorted(captured[kind]) == sorted(every + ends)
    # ... and the Python test after them still has its output captured.
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
    # b's item runs its conftest's hook, so it keeps the capture; a's item (alone in its
    # file, so its setup and teardown are captured) runs its call without.
    assert ("in b", "call") not in captured["output"]  # skipped in setup: no call
    assert ("in b", "setup") in captured["output"] and ("in a", "call") not in captured["output"]


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
    assert ("replayed", "call") in captured["output"] and ("replayed", "call") in captured["log"]


@pytest.mark.parametrize("option", ["--mcptest-record-mode=once", "--pdb", "--trace"])
def test_a_mode_that_may_record_or_a_debugger_keeps_the_capture(mixed, captured, option):
    mixed.runpytest("-p", "no:cacheprovider", option, "-k", "replayed").assert_outcomes(passed=1, deselected=4)
    assert ("replayed", "call") in captured["output"] and ("replayed", "call") in captured["log"]


def test_with_capture_or_logging_off_there_is_less_to_skip(mixed, captured):
    result = mixed.runpytest("-p", "no:cacheprovider", "-s", "-p", "no:logging")
    result.assert_outcomes(passed=5)
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
    assert "Captured" not in out
    # the setup and teardown of the file's first and last item; none of the middle one's
    assert captured["output"] == [("skipped", "setup"), ("skipped", "teardown"), ("fails", "setup"),
                                  ("fails", "teardown")]


def test_a_replayed_item_runs_under_xdist_and_junitxml(mixed):
    result = mixed.runpytest("-p", "no:cacheprovider", "-n", "2", "--junitxml=j.xml")
    result.assert_outcomes(passed=5)
    assert (mixed.path / "j.xml").read_text().count("<testcase") == 5


def _three_scenarios(path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / "s.mcptest.yml").write_text("scenarios:\n" + "".join(simple_scenario(n, "p.json") for n in ("one", "two", "three")))
    (path / "p.json").write_text(PING_RUN)


def test_fixtures_torn_down_by_the_last_replayed_item_are_captured(pytester):
    """The session fixture of a Python test is torn down in the teardown of the session's
    last item, here a replayed one: what it prints is captured and reported with its error."""
    pytester.makeconftest("""
import pytest

@pytest.fixture(scope="session")
def resource():
    yield
    print("SESSION-FIXTURE-TEARDOWN")
    raise RuntimeError("teardown broke")
""")
    pytester.makepyfile(test_a="def test_a(resource):\n    pass\n")
    _three_scenarios(pytester.path / "z")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, errors=1)
    result.stdout.fnmatch_lines(["*ERROR at teardown of scenario: three*", "*teardown broke*",
                                 "*Captured stdout teardown*", "SESSION-FIXTURE-TEARDOWN"])


def test_a_session_stopped_by_a_middle_item_tears_down_captured(pytester):
    """``-x`` after a failure in the middle of a file: pytest tears everything down in that
    item's teardown (its setup was quiet); the finalizer's output is captured, nothing breaks."""
    pytester.makeconftest("""
import pytest

@pytest.fixture(scope="session")
def resource():
    yield
    print("SESSION-FIXTURE-TEARDOWN")
""")
    pytester.makepyfile(test_a="def test_a(resource):\n    pass\n")
    folder = pytester.path / "z"
    _three_scenarios(folder)
    (folder / "bad.json").write_text(json.dumps({"runs": [{"tool_calls": [{"name": "nope"}]}]}))
    text = (folder / "s.mcptest.yml").read_text()
    (folder / "s.mcptest.yml").write_text(text.replace("  - name: two\n    cassette: p.json", "  - name: two\n    cassette: bad.json"))
    result = pytester.runpytest("-p", "no:cacheprovider", "-x")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*Captured stdout teardown*", "SESSION-FIXTURE-TEARDOWN", "*short test summary*"])
    out = result.stdout.str()
    assert out.count("SESSION-FIXTURE-TEARDOWN") == 1 and "KeyError" not in out and "stopping after 1 failures" in out


def test_a_package_set_up_by_the_first_replayed_item_is_captured(pytester):
    _three_scenarios(pytester.path / "pkg")
    (pytester.path / "pkg" / "__init__.py").write_text(
        "def setup_module():\n    print('PACKAGE-SETUP')\n\n"
        "def teardown_module():\n    print('PACKAGE-TEARDOWN')\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    assert "PACKAGE-" not in result.stdout.str()
    result = pytester.runpytest("-p", "no:cacheprovider", "-s")  # the hooks did run
    assert "PACKAGE-SETUP" in result.stdout.str() and "PACKAGE-TEARDOWN" in result.stdout.str()


def test_a_plugin_registered_while_the_session_runs_is_checked_too(pytester, captured):
    """A conftest (hooking no phase) registers, after the first item, an object whose call
    hook prints: the items after it keep the capture."""
    _three_scenarios(pytester.path)
    pytester.makeconftest("""
class Late:
    def pytest_runtest_call(self, item):
        print("LATE-" + item.name)

CONFIG = []

def pytest_configure(config):
    CONFIG.append(config)

def pytest_runtest_logfinish(nodeid, location):
    pluginmanager = CONFIG[0].pluginmanager
    if not pluginmanager.has_plugin("late"):
        pluginmanager.register(Late(), "late")
""")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    assert "LATE-" not in result.stdout.str()
    assert ("one", "call") not in captured["output"]  # before the plugin came: quiet
    assert ("two", "call") in captured["output"] and ("three", "call") in captured["output"]


def test_reading_an_items_hooks_during_collection_changes_nothing(pytester):
    """A root conftest that reads each item's setup hook as it is collected, before the
    second folder's conftest is found: that conftest still reaches its own item only."""
    pytester.makeconftest("def pytest_itemcollected(item):\n    item.ihook.pytest_runtest_setup\n")
    _three_scenarios(pytester.path / "a")
    _three_scenarios(pytester.path / "b")
    (pytester.path / "b" / "conftest.py").write_text(
        "import pytest\n\ndef pytest_runtest_setup(item):\n    pytest.skip('skipped by b')\n")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3, skipped=3)


def test_which_kinds_only_replay():
    kinds = [gate.kind for gate in BUILTIN]
    assert {kind for kind in kinds if replays_only(kind, "none")} == {"scenario", "agent", "distractors",
                                                                        "conversation"}
    assert not any(replays_only(kind, mode) for kind in kinds for mode in ("once", "new_episodes", "all", "rewrite"))
