"""The HTML report of ``examples/`` in a real browser (headless Chromium): its summary
numbers are the JSON report's, the table filters by outcome, kind, tag and text, a failed
item expands into its state diff, every chart is a drawn SVG, and the page logs no
error and requests nothing but itself."""

from __future__ import annotations

import collections

import pytest

from browser import Watched, chromium
from pytest_mcptest.report.html import render_html


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def watched(browser, example_reports):
    return Watched(browser, example_reports.html_path.as_uri())


def _listed(page) -> list[str]:
    return page.eval_on_selector_all("#item-rows tr.row code", "codes => codes.map(c => c.textContent)")


def test_summary_numbers_are_the_json_reports(watched, example_reports):
    page = watched.page
    items = example_reports.report["items"]
    counts = collections.Counter((i["kind"], i["outcome"]) for i in items)
    shown = page.eval_on_selector_all("[data-count]", "cells => Object.fromEntries(cells.map("
                                      "c => [c.dataset.count, c.textContent]))")
    for (kind, outcome), n in counts.items():
        assert shown[f"{kind}/{outcome}"] == str(n)
    for outcome in {o for _, o in counts}:
        assert shown[f"all/{outcome}"] == str(sum(n for (_, o), n in counts.items() if o == outcome))
    assert shown["all/all"] == str(len(items))
    assert shown["floors"] == "1" and shown["deferred"] == "1"
    assert sorted(_listed(page)) == sorted(i["id"] for i in items)


def test_filters_by_outcome_kind_tag_and_text(watched, example_reports):
    page = watched.page
    items = example_reports.report["items"]
    page.select_option("#f-outcome", "xfailed")
    xfailed = sorted(i["id"] for i in items if i["outcome"] == "xfailed")
    assert sorted(_listed(page)) == xfailed
    assert page.text_content("#shown") == f"{len(xfailed)} of {len(items)} items match"
    page.select_option("#f-kind", "scenario")
    assert _listed(page) == [i["id"] for i in items if i["outcome"] == "xfailed" and i["kind"] == "scenario"]
    page.select_option("#f-outcome", "")
    page.select_option("#f-kind", "")
    tag = sorted({t for i in items for t in i.get("tags", ())})[0]
    page.select_option("#f-tag", tag)
    assert sorted(_listed(page)) == sorted(i["id"] for i in items if tag in i.get("tags", ()))
    page.select_option("#f-tag", "")
    page.fill("#f-text", "forbidden_transition")
    assert _listed(page) == ["examples/scenario-world/shop.mcptest.yml::clearance sale on a bad day"]
    page.fill("#f-text", "")
    assert len(_listed(page)) == len(items)


def test_a_failed_item_expands_into_its_state_diff(watched):
    page = watched.page
    page.select_option("#f-outcome", "xfailed")
    row = page.locator("#item-rows tr.row", has_text="clearance sale on a bad day")
    row.click()
    detail = page.locator("#item-rows tr.detail")
    text = detail.locator("pre.failure-text").text_content()
    assert "final state: 1 of 2 expected paths differ" in text
    assert "inventory.widgets" in text and "expected 2" in text and "got 5" in text
    calls = detail.locator("table.calls").text_content()
    assert "drop_inventory" in calls and "apply_discount_everywhere" in calls
    assert '"widgets": 5' in detail.locator("pre.envelope").text_content()
    row.click()
    assert page.locator("#item-rows tr.detail").count() == 0
    page.select_option("#f-outcome", "")


def test_every_chart_is_drawn(watched):
    charts = watched.page.eval_on_selector_all("figure.chart", """figures => figures.map(f => {
        const s = f.querySelector('svg'); const r = s.getBoundingClientRect();
        return [f.id, r.width, r.height, s.querySelectorAll('path').length]; })""")
    assert [c[0] for c in charts] == ["chart-pass-k", "chart-distractors", "chart-tool-bench", "chart-catalog",
                                      "chart-token-cost"]
    for chart_id, width, height, paths in charts:
        assert width > 100 and height > 100 and paths > 5, chart_id


def test_no_console_error_and_no_network_request(watched):
    watched.requests.clear()
    watched.open()  # once more, watched from the start
    assert watched.problems == []
    assert watched.requests == [watched.url]


def test_a_screenshot(watched, tmp_path):
    shot = tmp_path / "report.png"
    watched.page.screenshot(path=str(shot), full_page=True)
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 50_000  # a page with charts, not a blank one


def test_a_long_report_lists_the_first_500_and_more_on_request(browser, tmp_path):
    items = [{"id": f"s.mcptest.yml::item {i:04d}", "name": f"item {i:04d}", "kind": "scenario",
              "outcome": "failed" if i % 4 == 0 else "passed", "envelope": {"turns": i},
              "failures": [{"gate": "expect", "message": f"turns: expected 0, got {i}"}] if i % 4 == 0 else []}
             for i in range(1200)]
    page_file = tmp_path / "long.html"
    page_file.write_text(render_html({"mcptest_report": 1, "items": items}), encoding="utf-8")
    watched = Watched(browser, page_file.as_uri())
    page = watched.page
    assert len(_listed(page)) == 500
    assert page.text_content("#shown") == "1200 of 1200 items match, the first 500 listed"
    page.click("#more")
    assert len(_listed(page)) == 1000
    page.click("#more")
    assert len(_listed(page)) == 1200 and not page.is_visible("#more")
    page.select_option("#f-outcome", "failed")
    assert len(_listed(page)) == 300 and page.text_content("#shown") == "300 of 1200 items match"
    assert watched.problems == []


def test_the_compare_view_shows_the_verdict_first(browser, tmp_path):
    from pytest_mcptest.report.document import compare_reports
    from tau_reports import TAU, tau_report, ten_tasks_fail

    base, new = tau_report(TAU["runs"]), tau_report(ten_tasks_fail(TAU["runs"]))
    page_file = tmp_path / "compare.html"
    page_file.write_text(render_html(new, compare_reports(new, base), "base.json"), encoding="utf-8")
    watched = Watched(browser, page_file.as_uri())
    page = watched.page
    first = page.locator("#comparison > *:nth-child(2)")
    assert first.evaluate("e => e.className") == "verdict bad"
    assert first.text_content().startswith("REGRESSED: 2 of 3 paired tests significant at alpha 0.05, Holm-corrected")
    rows = page.eval_on_selector_all("#comparison table.significant tr", "rows => rows.map(r => r.textContent)")
    assert len(rows) == 3 and "pass rate" in rows[1] and "42% → 34.5%" in rows[1]
    assert not page.is_visible("#comparison table.tests")  # every test: folded away until asked for
    page.click("#comparison details summary")
    assert page.is_visible("#comparison table.tests")
    assert watched.problems == []


def test_charts_use_the_width_of_the_page(watched):
    widths = watched.page.evaluate("""() => [document.querySelector('main').clientWidth,
        ...[...document.querySelectorAll('figure.chart svg')].map(s => s.getBoundingClientRect().width)]""")
    main, charts = widths[0], widths[1:]
    assert charts and all(w > 0.9 * (main - 60) for w in charts), widths
