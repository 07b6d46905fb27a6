"""The Markdown summary (--mcptest-markdown, `mcptest report --markdown`) and GitHub Actions
annotations (printed under GITHUB_ACTIONS=true)."""

from __future__ import annotations

import json

import pytest

from pytest_mcptest.cli import main
from pytest_mcptest.report.markdown import annotations, render_markdown
from pytest_mcptest.report.document import compare_reports

from tau_reports import TAU, tau_report, ten_tasks_fail

pytest_plugins = ["pytester"]

SUITE = """\
agents:
  - name: weather selection
    cassette: run.json
    tool_selection:
      expected_tool: get_weather
      min_selection_rate: 0.8
  - name: steady
    cassette: run.json
"""


def _cassette(tools):
    runs = [{"tool_calls": [{"name": t, "args": {"q": "x"}}],
             "conversation": {"turns": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "ok"}]}}
            for t in tools]
    return json.dumps({"mcptest_cassette": 1, "runs": runs})


@pytest.fixture
def suite(pytester):
    pytester.makefile(".mcptest.yml", a=SUITE)
    (pytester.path / "run.json").write_text(_cassette(["get_weather", "search"]))
    return pytester


def test_markdown_lists_counts_failures_at_file_line_and_floors(suite):
    result = suite.runpytest("-p", "no:cacheprovider", "--mcptest-markdown=summary.md", "--mcptest-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    text = (suite.path / "summary.md").read_text()
    assert text.startswith("## mcptest: FAILED\n\n2 items: 1 failed, 1 passed.\n")
    assert "| a.mcptest.yml:2 | weather selection | agent | tool_selection: FLOOR weather selection: selection " \
           "rate 50% is below the 80% floor" in text
    assert "### Floors that did not hold\n\n- `a.mcptest.yml::weather selection`: `tool_selection.floor.passed`" in text
    # the command writes the same bytes from the saved report
    assert main(["report", str(suite.path / "r.json"), "--markdown", str(suite.path / "again.md")]) == 0
    assert (suite.path / "again.md").read_text() == text


def test_markdown_of_a_comparison_leads_with_the_verdict(tmp_path):
    base, new = tau_report(TAU["runs"]), tau_report(ten_tasks_fail(TAU["runs"]))
    text = render_markdown(new, compare_reports(new, base), "base.json")
    section = text[text.index("### Compared with base.json"):].splitlines()
    assert section[2] == "**Verdict: REGRESSED**: 2 of 3 paired tests significant at alpha 0.05, Holm-corrected."
    assert section[6].startswith("| worse | airline.mcptest.yml::airline | pass rate | 42% | 34.5% | -7.5 (-13 to -3) |")
    assert "pass^4" not in text  # not significant: left out
    (tmp_path / "base.json").write_text(json.dumps(base))
    (tmp_path / "n.json").write_text(json.dumps(new))
    assert main(["report", str(tmp_path / "n.json"), "--compare", str(tmp_path / "base.json"),
                 "--markdown", str(tmp_path / "m.md")]) == 0
    assert (tmp_path / "m.md").read_text() == text


def test_markdown_cells_escape_pipes_and_stability_shows_noise():
    report = {"mcptest_report": 1, "items": [
        {"id": "s::a|b", "name": "a|b", "kind": "agent", "file": "s", "line": 4, "outcome": "failed",
         "failures": [{"gate": "expect", "message": "got `x` | not y\nsecond line"}], "envelope": {
             "stability": {"pass_rate": 42.0, "pass_rate_low": 35.37, "pass_rate_high": 48.93,
                           "pass_hat_k": {"1": 42.0, "4": 20.0}, "flip_rate": 52.0, "icc": 0.4046, "mde": 19.3}}}]}
    text = render_markdown(report)
    assert "| s:4 | a\\|b | agent | expect: got \\`x\\` \\| not y |" in text
    assert "| s::a\\|b | 42% (35.37-48.93) | pass^4 20% | 52% | 0.40 | 19.3 points |" in text


HOSTILE_NAMES = ["[click me](https://evil.example/steal)", "![pixel](https://evil.example/p.png)",
                 "cc @octocat and @org/team", "```\nfenced\n```", "<img src=x onerror=alert(1)>",
                 "**loud** _quiet_ ~~gone~~", "<!-- hidden -->", "a|b\\|c"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_hostile_item_name_renders_as_plain_text(name):
    """Item names, messages and model names come from suites and cassettes: in a PR comment they
    once formed links, images, fences, tags and @mentions. Rendered by markdown-it-py (CommonMark
    with GFM tables), each shows as the very text written, in its own cell, and forms nothing."""
    from markdown_it import MarkdownIt

    report = {"mcptest_report": 1, "items": [
        {"id": f"s::{name}", "name": name, "kind": "agent", "file": "s.mcptest.yml", "line": 3, "outcome": "failed",
         "failures": [{"gate": "expect", "message": name}],
         "envelope": {"model_matrix": {"test": name, "model": name, "runs": 1, "passed_runs": 0, "pass_k": 0.0}}}]}
    html = MarkdownIt("commonmark").enable("table").render(render_markdown(report))
    for tag in ("<a ", "<img", "<code", "<em", "<strong>loud", "<s>", "<!--", "<pre"):
        assert tag not in html, (tag, html)  # (a model matrix's title is bold by design)
    assert "@octocat" not in html and "@org" not in html  # a zero-width space keeps GitHub from mentioning
    import html as html_module

    shown = html_module.unescape(html).replace("\u200b", "")
    assert " ".join(name.split()) in shown


def test_annotations_point_at_the_suite_line_and_escape_newlines():
    report = {"mcptest_report": 1, "items": [
        {"id": "suites/a.yml::x", "name": "x", "kind": "scenario", "file": "suites/a.yml", "line": 7,
         "outcome": "failed", "failures": [], "text": "50% off\nline two"},
        {"id": "suites/a.yml::ok", "name": "ok", "file": "suites/a.yml", "line": 9, "outcome": "passed"}],
        "errors": [{"file": "suites/b.yml", "message": "b.yml:3: bad, very"}]}
    lines = list(annotations(report, "/repo/project", "/repo"))
    assert lines == ["::error file=project/suites/a.yml,line=7,title=mcptest scenario failed::x: 50%25 off%0Aline two",
                     "::error file=project/suites/b.yml,title=mcptest bad suite::b.yml:3: bad, very"]


def test_the_plugin_annotates_failures_under_github_actions_only(suite, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(suite.path.parent))
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([f"::error file={suite.path.name}/a.mcptest.yml,line=2,"
                                 "title=mcptest agent failed::weather selection: a.mcptest.yml:2: agent failed*"])
    assert result.stdout.str().count("::error ") == 1
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    result = suite.runpytest("-p", "no:cacheprovider")
    assert "::error" not in result.stdout.str()
