"""The HTML report of ``examples/`` in a real browser (headless Chromium): its summary
numbers are the JSON report's, the table filters by outcome, kind, tag and text, a failed
item expands into its state diff, every chart is a drawn SVG, and the page logs no
error and requests nothing but itself."""

from __future__ import annotations

import collections

import pytest

from browser import requested_urls, start_browser, wait_ready


@pytest.fixture(scope="module")
def page(example_reports):
    driver = start_browser()
    try:
        url = example_reports.html_path.as_uri()
        driver.get(url)
        wait_ready(driver)
        yield driver, url
    finally:
        driver.quit()


def _visible_rows(driver) -> list:
    return driver.execute_script(
        "return [...document.querySelectorAll('#item-rows tr.row')].filter(r => !r.hidden)"
        ".map(r => r.querySelector('code').textContent)")


def _select(driver, element_id: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", element_id)).select_by_value(value)


def test_summary_numbers_are_the_json_reports(page, example_reports):
    driver, _ = page
    items = example_reports.report["items"]
    counts = collections.Counter((i["kind"], i["outcome"]) for i in items)
    shown = driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('[data-count]')]"
        ".map(e => [e.dataset.count, e.textContent]))")
    for (kind, outcome), n in counts.items():
        assert shown[f"{kind}/{outcome}"] == str(n)
    for outcome in {o for _, o in counts}:
        assert shown[f"all/{outcome}"] == str(sum(n for (_, o), n in counts.items() if o == outcome))
    assert shown["all/all"] == str(len(items))
    assert shown["floors"] == "1" and shown["deferred"] == "1"
    assert len(_visible_rows(driver)) == len(items)


def test_filters_by_outcome_kind_tag_and_text(page, example_reports):
    driver, _ = page
    items = example_reports.report["items"]
    _select(driver, "f-outcome", "xfailed")
    assert sorted(_visible_rows(driver)) == sorted(i["id"] for i in items if i["outcome"] == "xfailed")
    assert driver.find_element("id", "shown").text == f"{len(_visible_rows(driver))} of {len(items)} items match"
    _select(driver, "f-kind", "scenario")
    assert _visible_rows(driver) == [i["id"] for i in items if i["outcome"] == "xfailed" and i["kind"] == "scenario"]
    _select(driver, "f-outcome", "")
    _select(driver, "f-kind", "")
    tag = sorted({t for i in items for t in i.get("tags", ())})[0]
    _select(driver, "f-tag", tag)
    assert sorted(_visible_rows(driver)) == sorted(i["id"] for i in items if tag in i.get("tags", ()))
    _select(driver, "f-tag", "")
    box = driver.find_element("id", "f-text")
    box.send_keys("forbidden_transition")
    assert _visible_rows(driver) == ["examples/scenario-world/shop.mcptest.yml::clearance sale on a bad day"]
    box.clear()
    box.send_keys(" ")  # an input event with no text: everything again
    assert len(_visible_rows(driver)) == len(items)


def test_a_failed_item_expands_into_its_state_diff(page):
    driver, _ = page
    _select(driver, "f-outcome", "xfailed")
    target = [r for r in driver.find_elements("css selector", "#item-rows tr.row")
              if "clearance sale on a bad day" in r.text][0]
    target.click()
    detail = driver.find_element("css selector", "#item-rows tr.detail")
    text = detail.find_element("css selector", "pre.failure-text").text
    assert "final state: 1 of 2 expected paths differ" in text
    assert "inventory.widgets" in text and "expected 2" in text and "got 5" in text
    calls = detail.find_element("css selector", "table.calls").text
    assert "drop_inventory" in calls and "apply_discount_everywhere" in calls
    assert '"widgets": 5' in detail.find_element("css selector", "pre.envelope").text
    target.click()
    assert not driver.find_elements("css selector", "#item-rows tr.detail")
    _select(driver, "f-outcome", "")


def test_every_chart_is_drawn(page):
    driver, _ = page
    charts = driver.execute_script(
        "return [...document.querySelectorAll('figure.chart')].map(f => {"
        " const s = f.querySelector('svg'); const r = s.getBoundingClientRect();"
        " return [f.id, r.width, r.height, s.querySelectorAll('path').length]; })")
    assert [c[0] for c in charts] == ["chart-pass-k", "chart-distractors", "chart-tool-bench", "chart-catalog",
                                      "chart-token-cost"]
    for chart_id, width, height, paths in charts:
        assert width > 100 and height > 100 and paths > 5, chart_id


def test_no_console_error_and_no_network_request(page):
    driver, url = page
    driver.get(url)  # once more, with fresh logs
    wait_ready(driver)
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    assert set(requested_urls(driver)) <= {url}


def test_a_screenshot(page, tmp_path):
    driver, _ = page
    shot = tmp_path / "report.png"
    assert driver.save_screenshot(str(shot))
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 20_000  # a page with charts, not a blank one
