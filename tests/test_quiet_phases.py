"""A replayed item's phases skip pytest's output and log capture; user code keeps it."""

from __future__ import annotations

import json

import pytest

from pytest_mcptest.gates import GATES, replays_only
from suites import PING_RUN, simple_scenario

# A plugin outside any conftest.py (as an installed plugin is): it prints and logs in every
# item's call phase, so where that text lands shows whether the phase was captured.
LOUD_PLUGIN = """
import logging

def pytest_runtest_call(item):
    print("LOUD-" + item.name.replace(" ", "-"))
    logging.getLogger("loud").warning("LOGGED-" + item.name.replace(" ", "-"))
"""

CATALOG = {"tools": [{
    "name": "get_weather",
    "description": "Get the current weather forecast for a city. Returns JSON with temperature and conditions.",
    "inputSchema": {"type": "object", "additionalProperties": False, "required": ["city"],
                    "properties": {"city": {"type": "string", "maxLength": 80, "description": "City name, e.g. Paris"}},
                    "examples": [{"city": "Paris"}]},
    "annotations": {"readOnlyHint": True},
}]}


@pytest.fixture
def mixed(pytester):
    """A replayed scenario, a catalog item and a Python test, with the loud plugin on."""
    pytester.syspathinsert()
    pytester.makepyfile(loud_plugin=LOUD_PLUGIN)
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + simple_scenario("replayed", "p.json"))
    (pytester.path / "p.json").write_text(PING_RUN)
    (pytester.path / "catalog.json").write_text(json.dumps(CATALOG))
    pytester.makefile(".mcptest.yml", q="servers:\n  docs: {catalog: catalog.json}\n"
                                        "tool_quality:\n  - name: catalog\n    server: docs\n")
    pytester.makepyfile(test_py="def test_python():\n    pass\n")
    return pytester


def test_only_the_replayed_items_phases_go_uncaptured(mixed):
    result = mixed.runpytest("-p", "loud_plugin", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    out = result.stdout.str()
    # The replayed item's call is not captured: the print reaches the terminal at once.
    assert "LOUD-replayed" in out
    # A Python test and a catalog gate (which may start a server) keep pytest's capture:
    # a passing item's output is never shown.
    assert "LOUD-test_python" not in out and "LOUD-catalog" not in out


def test_a_failing_replayed_item_has_no_captured_sections_but_a_python_test_does(pytester):
    pytester.syspathinsert()
    pytester.makepyfile(loud_plugin=LOUD_PLUGIN)
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + simple_scenario("replayed", "bad.json"))
    (pytester.path / "bad.json").write_text(json.dumps({"runs": [{"tool_calls": [{"name": "nope"}]}]}))
    pytester.makepyfile(test_py="def test_python():\n    assert False\n")
    result = pytester.runpytest("-p", "loud_plugin", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "Captured stdout call" in out and "Captured log call" in out
    assert out.count("Captured stdout call") == 1 and out.count("Captured log call") == 1
    section = out.split("Captured stdout call", 1)[1]
    assert "LOUD-test_python" in section


def test_a_conftest_that_hooks_into_the_phases_keeps_its_folders_items_captured(pytester):
    """User code in a phase is captured as pytest always does, and only in its folder: items
    elsewhere stay quiet and the conftest's hooks do not reach them."""
    for folder in ("a", "b"):
        pytester.mkdir(folder)
        (pytester.path / folder / "s.mcptest.yml").write_text("scenarios:\n" + simple_scenario(f"in {folder}", "p.json"))
        (pytester.path / folder / "p.json").write_text(PING_RUN)
    (pytester.path / "a" / "conftest.py").write_text(
        "import pytest\n\n"
        "def pytest_runtest_setup(item):\n"
        "    print('CONFTEST-SETUP-' + item.name.replace(' ', '-'))\n"
        "    if item.get_closest_marker('mcptest') and 'skip me' in item.name:\n"
        "        pytest.skip('skipped by a conftest hook')\n")
    (pytester.path / "a" / "t.mcptest.yml").write_text("scenarios:\n" + simple_scenario("skip me", "p.json"))
    pytester.syspathinsert()
    pytester.makepyfile(loud_plugin=LOUD_PLUGIN)
    result = pytester.runpytest("-p", "loud_plugin", "-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(passed=2, skipped=1)
    out = result.stdout.str()
    assert "skipped by a conftest hook" in out  # the user's hook still runs on a block
    assert "CONFTEST-SETUP" not in out  # ... captured, as pytest always does
    assert "LOUD-in-a" not in out  # its folder's items keep every phase captured
    assert "LOUD-in-b" in out  # the other folder's item stays quiet


@pytest.mark.parametrize("option", ["--mcptest-record-mode=once", "--pdb"])
def test_a_mode_that_may_record_or_a_debugger_keeps_the_capture(mixed, option):
    result = mixed.runpytest("-p", "loud_plugin", "-p", "no:cacheprovider", option)
    result.assert_outcomes(passed=3)
    assert "LOUD-" not in result.stdout.str()


def test_skipped_plugins_and_no_capture_still_run(mixed):
    """With capture or logging off (``-s``, ``-p no:logging``) there is less to skip, and
    nothing breaks."""
    result = mixed.runpytest("-p", "loud_plugin", "-p", "no:cacheprovider", "-s", "-p", "no:logging")
    result.assert_outcomes(passed=3)
    out = result.stdout.str()
    assert "LOUD-replayed" in out and "LOUD-test_python" in out


def test_a_replayed_item_runs_under_xdist_and_junitxml(mixed):
    result = mixed.runpytest("-p", "no:cacheprovider", "-n", "2", "--junitxml=j.xml")
    result.assert_outcomes(passed=3)
    assert (mixed.path / "j.xml").read_text().count("<testcase") == 3


def test_which_kinds_only_replay():
    assert {kind for kind in GATES if replays_only(kind, "none")} == {"scenario", "agent", "distractors",
                                                                        "conversation"}
    assert not any(replays_only(kind, mode) for kind in GATES for mode in ("once", "new_episodes", "all", "rewrite"))
