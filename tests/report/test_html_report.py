"""The HTML report: written by ``--mcptest-html`` and ``mcptest report --html`` from the
same JSON report, self-contained, byte-identical for the same items (with or without
xdist), and built from what the JSON says. The browser tests are in test_html_browser.py."""

from __future__ import annotations

import base64
import gzip
import json
import re
import shutil
import subprocess
import sys

import pytest
from forkserver import through_forkserver

from pytest_mcptest.report.html import render_html
from pytest_mcptest.report.document import compare_reports
from reports_of_examples import ROOT, run_examples


def _items_in(html: str) -> list:
    def unpack(block: str):
        payload = re.search(rf'<script type="application/octet-stream" id="mcptest-{block}">([^<]*)</script>', html)
        return json.loads(gzip.decompress(base64.b64decode(payload.group(1))))

    return [{**row, **detail} for row, detail in zip(unpack("rows"), unpack("details"), strict=True)]


def test_the_html_carries_every_item_of_the_json_report(example_reports):
    report = example_reports.report
    html = example_reports.html_path.read_text(encoding="utf-8")
    assert _items_in(html) == report["items"]
    assert f'<td data-count="all/all">{len(report["items"])}</td>' in html
    xfailed = sum(1 for i in report["items"] if i["outcome"] == "xfailed")
    assert f'<td data-count="all/xfailed">{xfailed}</td>' in html


def test_report_entries_carry_failure_text_and_tags(example_reports):
    items = {i["id"].split("::", 1)[1]: i for i in example_reports.report["items"]}
    failed = items["clearance sale on a bad day"]
    assert failed["text"].startswith("examples/scenario-world/shop.mcptest.yml:")
    assert "final state: 1 of 2 expected paths differ" in failed["text"]
    assert "\x1b" not in example_reports.json_path.read_text(encoding="utf-8")
    assert "text" not in items["restock the widget shelf"]  # a passed item has no failure text
    assert any(i.get("tags") for i in items.values())


def test_the_html_is_self_contained(example_reports):
    html = example_reports.html_path.read_text(encoding="utf-8")
    assert "\x1b" not in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<link" not in html and "@import" not in html
    assert not re.search(r"url\((?!#)", html)  # only references to the page's own SVG clip paths
    assert "default-src 'none'" in html  # the page may not fetch anything
    for chart in ("pass-k", "distractors", "tool-bench", "catalog", "token-cost"):
        figure = re.search(rf'<figure class="chart" id="chart-{chart}">.*?</figure>', html, re.S)
        assert figure and "<svg" in figure.group(0) and "<path" in figure.group(0), chart


def test_the_cli_writes_the_same_bytes_from_the_saved_report(example_reports, tmp_path, monkeypatch, capsys):
    from pytest_mcptest.cli import main

    out = tmp_path / "again.html"
    monkeypatch.chdir(ROOT)
    assert main(["report", str(example_reports.json_path), "--html", str(out)]) == 0, capsys.readouterr().err
    assert out.read_bytes() == example_reports.html_path.read_bytes()


def test_the_same_bytes_under_xdist(example_reports, tmp_path):
    parallel = run_examples(tmp_path / "n2", "-n", "2")
    assert parallel.json_path.read_bytes() == example_reports.json_path.read_bytes()
    assert parallel.html_path.read_bytes() == example_reports.html_path.read_bytes()


def test_a_comparison_lists_flips_worst_first(example_reports):
    current = example_reports.report
    baseline = json.loads(json.dumps(current))
    items = {i["id"].split("::", 1)[1]: i for i in baseline["items"]}
    items["restock the widget shelf"]["outcome"] = "failed"  # fixed since the baseline
    items["paris researcher"]["envelope"]["turns"] = 7
    broken = json.loads(json.dumps(current))
    for item in broken["items"]:
        if item["id"].endswith("::lisbon weather"):
            item["outcome"] = "failed"
    html = render_html(broken, compare_reports(broken, baseline), "base.json")
    section = re.search(r'<section id="comparison">.*?</section>', html, re.S).group(0)
    assert "Compared with <bdi>base.json</bdi>" in section  # a file name: isolated (issue 33)
    assert '<span data-count="regressions">1</span>' in section
    order = [section.index(name) for name in ("::lisbon weather<", "::restock the widget shelf<", "::paris researcher<")]
    assert order == sorted(order)
    assert render_html(broken, compare_reports(broken, baseline), "base.json") == html


def test_charts_are_left_out_when_there_is_nothing_to_draw():
    html = render_html({"mcptest_report": 1, "items": [
        {"id": "a.mcptest.yml::x", "name": "x", "kind": "scenario", "outcome": "passed", "envelope": {"turns": 1},
         "failures": []}]})
    assert '<section id="charts">' not in html
    assert '<td data-count="scenario/passed">1</td>' in html


def test_odd_values_in_a_hand_edited_report_draw_no_chart_rather_than_fail():
    html = render_html({"mcptest_report": 1, "items": [
        {"id": "a::bench", "kind": "tool_bench", "outcome": "passed", "failures": ["not an object"],
         "envelope": {"accuracy": "high", "intents": 3, "min_drop": "x", "tool_selection": {"floor": {"passed": False}},
                      "mutations": [{"tool": "t", "kind": "blank", "drop": "big", "correct": 9}]}},
        {"id": "a::agent", "kind": "agent", "outcome": "failed",
         "envelope": {"tool_selection": {"pass_hat_k": {"one": "x"}}, "distractors": {"accuracy": 5, "count": "2"},
                      "tools": [{"name": "t", "score": None}], "token_efficiency": {"tokens_per_correct": "3"}}}]})
    assert '<figure class="chart" id="chart-tool-bench">' in html
    assert '<dd data-count="floors">1</dd>' in html
    for chart in ("pass-k", "distractors", "catalog", "token-cost"):
        assert f'id="chart-{chart}"' not in html


def test_html_alone_under_xdist(pytester):
    from suites import GOOD_RUN, WIDGET_SUITE

    pytester.makefile(".mcptest.yml", shop=WIDGET_SUITE)
    pytester.mkdir("cassettes")
    (pytester.path / "cassettes" / "restock.json").write_text(GOOD_RUN)
    result = through_forkserver(pytester).runpytest_subprocess("--mcptest-html", "out/page.html", "-n", "2",
                                                               "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    html = (pytester.path / "out" / "page.html").read_text(encoding="utf-8")
    assert _items_in(html)[0]["id"] == "shop.mcptest.yml::restock the widget shelf"
    assert '<td data-count="scenario/passed">1</td>' in html


def test_a_bad_html_path_is_a_usage_error(pytester):
    pytester.makefile(".mcptest.yml", s="scenarios: []\n")
    result = pytester.runpytest("--mcptest-html", str(pytester.path))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mcptest-html needs a file path*(a directory)*"])


def test_the_cli_refuses_a_directory_for_html(example_reports, tmp_path, capsys):
    from pytest_mcptest.cli import main

    assert main(["report", str(example_reports.json_path), "--html", str(tmp_path)]) == 2
    assert "--html needs a file path" in capsys.readouterr().err


def test_matplotlib_is_imported_only_to_draw():
    code = ("import sys; import pytest_mcptest.plugin, pytest_mcptest.report.html, pytest_mcptest.report.charts; "
            "print(any(m.split('.')[0] == 'matplotlib' for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_pass_k_comes_as_fractions_from_stability_or_tool_selection():
    from pytest_mcptest.report.charts import _pass_hat_k

    assert _pass_hat_k({"stability": {"pass_hat_k": {"1": 80.0, "3": 51.2}},
                        "tool_selection": {"pass_hat_k": {"1": 0.9}}}) == {1: 0.8, 3: 0.512}
    assert _pass_hat_k({"tool_selection": {"pass_hat_k": {"1": 0.9, "2": 0.8}}}) == {1: 0.9, 2: 0.8}
    assert _pass_hat_k({"tool_selection": {"pass_hat_k": {"k": 0.9}}}) is None


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the page's script")
def test_the_call_table_numbers_calls_from_1_within_each_run():
    """As the failure text does: "call 2" of run #2 is that run's second call."""
    script = (ROOT / "pytest_mcptest" / "data" / "report.js").read_text(encoding="utf-8")
    calls = script[script.index("  function calls(env)"):script.index("  function short(")]
    probe = ("const MAX_CALLS = 200;\n" + calls +
             "console.log(JSON.stringify([calls({runs: [{tool_calls: [{name: 'a'}, {name: 'b'}]},"
             " {tool_calls: [{name: 'c'}]}]}), calls({tool_calls: [{name: 'x'}]})]));")
    done = subprocess.run(["node", "-e", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [[["#1", 1, {"name": "a"}], ["#1", 2, {"name": "b"}], ["#2", 1, {"name": "c"}]],
                                       [["", 1, {"name": "x"}]]]


def test_the_compare_view_leads_with_the_verdict_and_the_significant_changes():
    from tau_reports import TAU, tau_report, ten_tasks_fail

    base, new = tau_report(TAU["runs"]), tau_report(ten_tasks_fail(TAU["runs"]))
    html = render_html(new, compare_reports(new, base), "base.json")
    section = re.search(r'<section id="comparison">.*?</section>', html, re.S).group(0)
    verdict = section.index('data-verdict="regressed"')
    significant = section.index('<table class="significant">')
    assert verdict < significant < section.index("flips to failed") < section.index('<table class="deltas">')
    table = re.search(r'<table class="significant">.*?</table>', section, re.S).group(0)
    assert table.count("<tr") == 3 and "pass rate" in table and "pass^4" not in table  # only what is significant
    assert "-7.5 points (95% CI -13 to -3)" in table
    assert '<summary>every paired test (3)</summary>' in section  # the rest, folded away


def _tick_labels(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def test_pass_k_ticks_are_whole_and_identical_curves_are_one_series():
    from pytest_mcptest.report.charts import pass_k_chart

    def item(name, curve):
        return {"id": f"s::{name}", "name": name, "envelope": {"stability": {"pass_hat_k": curve}}}

    svg = pass_k_chart({"items": [item("a", {"1": 50.0, "2": 25.0}), item("b", {"1": 50.0, "2": 25.0}),
                                  item("c", {"1": 80.0, "2": 70.0})]})
    labels = _tick_labels(svg)
    assert "a (and 1 more, the same curve)" in labels and "c" in labels and "b" not in labels
    x_axis = "k (runs that must all pass)"
    assert labels[:labels.index(x_axis)] == ["1", "2"]  # whole numbers only, no 1.25, 1.5, 1.75
    single = _tick_labels(pass_k_chart({"items": [item("one", {"1": 60.0})]}))
    assert single[:single.index(x_axis)] == ["1"]  # not 0.96 ... 1.04


def test_charts_fill_the_page_width():
    from pytest_mcptest.report.html import _asset

    assert "figure.chart svg{width:100%;height:auto}" in _asset("report.css")
