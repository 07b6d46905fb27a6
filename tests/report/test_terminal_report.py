"""The terminal after a run: failure text in pytest's colours where the terminal has
them (red for what failed, green for what held, dim for context) and none under
``NO_COLOR``, ``--color=no`` or a pipe; JUnit failure messages stay plain; and the
per-kind summary sections (token efficiency, catalog scores) beside the floors."""

from __future__ import annotations

import pathlib
import xml.etree.ElementTree as ET

import pytest
from forkserver import through_forkserver

from pytest_mcptest.report.render import line_style
from suites import BAD_RUN, GOOD_RUN, WIDGET_SUITE

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
RED, GREEN, DIM = "\x1b[31m", "\x1b[32m", "\x1b[2m"


def _shop(pytester, run: str):
    """The widget suite with its cassette holding ``run``."""
    pytester.makefile(".mcptest.yml", shop=WIDGET_SUITE)
    pytester.mkdir("cassettes")
    (pytester.path / "cassettes" / "restock.json").write_text(run)
    return pytester


@pytest.fixture
def failing(pytester):
    return _shop(pytester, BAD_RUN)


def test_failure_text_is_coloured_on_a_terminal(failing):
    result = failing.runpytest("--color=yes")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert f"{RED}\x1b[1mshop.mcptest.yml:2: scenario failed" in out
    assert any(line.startswith(RED) and "inventory.widgets" in line and "expected 5" in line for line in out.splitlines())


@pytest.mark.parametrize("how", [("--color=no",), ("--color=auto",)])
def test_no_colour_without_a_terminal_or_when_told(failing, how):
    result = failing.runpytest(*how)  # pytester's output is not a terminal: auto means none
    result.assert_outcomes(failed=1)
    assert "\x1b[" not in result.stdout.str()
    result.stdout.fnmatch_lines(["shop.mcptest.yml:2: scenario failed*", "*inventory.widgets*expected 5*got 3"])


def test_no_colour_under_NO_COLOR(failing, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    result = through_forkserver(failing).runpytest_subprocess()
    assert "\x1b[" not in result.stdout.str()
    assert "shop.mcptest.yml:2: scenario failed" in result.stdout.str()


def test_colour_reaches_the_terminal_through_xdist(failing):
    result = through_forkserver(failing).runpytest_subprocess("--color=yes", "-n", "2")
    assert f"{RED}\x1b[1mshop.mcptest.yml:2: scenario failed" in result.stdout.str()


def test_junit_failure_text_stays_plain(failing):
    xml = failing.path / "out.xml"
    failing.runpytest("--color=yes", f"--junitxml={xml}").assert_outcomes(failed=1)
    failure = next(ET.parse(xml).iter("failure"))
    assert failure.text.startswith("shop.mcptest.yml:2: scenario failed")
    assert "\x1b" not in xml.read_text(encoding="utf-8")


@pytest.mark.parametrize(("line", "style"), [
    ("    tool-selection floor [PASS] w: selection 9/10 (90%)", {"green": True}),
    ("  3 of 3 runs passed on their own", {"green": True}),
    ("  1 of 3 runs passed on their own", {"light": True}),
    ("    FLOOR w: selection rate 90% is below the 100% floor", {"red": True}),
    ("    inventory.widgets   expected 2   got 5", {"red": True}),
    ("  lowest scores: do_it 0.25, fetch_rows 0.96", {"light": True}),
    ("", {}),
])
def test_what_each_line_is_coloured(line, style):
    assert line_style(line) == style


def test_summary_sections_per_kind(pytester, servers_forked):
    result = pytester.runpytest(str(EXAMPLES / "tool-selection"), str(EXAMPLES / "tool-quality"),
                                "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines([
        "*mcptest: tool-selection floors*",
        "*tool-selection floor [[]PASS] lisbon weather: selection 9/10 (90%)*",
        "*mcptest: token efficiency*",
        "grade A  F1 100, 21.3 surface tokens per correct selection, $0.002325 per correct selection   "
        "*paris research, token efficiency",
        "*mcptest: distractor accuracy by count*",
        "*mcptest: catalog scores*",
        "2 tools: min score 0.25, mean 0.6062, 2 critical, 4 warnings   *legacy catalog (demo of a failure)",
    ])


@pytest.fixture
def passing(pytester):
    return _shop(pytester, GOOD_RUN)


def test_verbose_lists_each_passing_item_with_its_figures(passing):
    result = passing.runpytest("-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([
        "*mcptest: passing items*",
        "shop.mcptest.yml::restock the widget shelf: 1 run, forbidden_transitions 0, golden.penalty 0.6667, "
        "invalid_actions 0 (exact 0), golden.matched true (exact true)",
    ])


def test_default_verbosity_adds_no_passing_section(passing):
    result = passing.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "passing items" not in result.stdout.str()


def test_a_failing_item_is_not_listed_as_passing(failing):
    result = failing.runpytest("-v", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    assert "passing items" not in result.stdout.str()


def test_passing_figures_cross_xdist(passing):
    result = through_forkserver(passing).runpytest_subprocess("-v", "-n", "2", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*mcptest: passing items*",
                                 "shop.mcptest.yml::restock the widget shelf: 1 run, *golden.matched true*"])


def test_passing_figures_of_runs_and_floors(pytester, servers_forked):
    result = pytester.runpytest(str(EXAMPLES / "tool-selection"), str(EXAMPLES / "tool-quality"), "-v",
                                "-p", "no:cacheprovider", "-k", "lisbon or research or notebook or bar")
    result.stdout.fnmatch_lines([
        "*mcptest: passing items*",
        # a catalog has no runs to count
        "*quality.mcptest.yml::shop tools meet the default bar: min_score 0.9625 (schema {\"minimum\": 0.5}), *",
        "*selection.mcptest.yml::lisbon weather: 10 runs, tool_selection.floor.selection_rate 0.9, "
        "tool_selection.floor.pass_k 0.9, conversation.tokens.total <= 2000 in 10 of 10 runs",
        "*selection.mcptest.yml::notebook search, 0 distractors [[]distractors]: 5 runs, "
        "distractors.accuracy 100 (== 100), *",
        "*selection.mcptest.yml::paris research: 3 runs, tool_selection.f1 100 (>= 80), *",
    ])
