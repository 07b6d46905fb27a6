"""The HTML report shows what a cassette, a catalog or a report file says without letting it
act (issue 33, item 12): a bidi override in a tool or item name is shown as its escape, in
an element of its own isolated with ``<bdi>``, so the words around it keep their order;
control characters likewise; and markup in a hand-edited report's paths is text."""

from __future__ import annotations

import base64
import gzip
import json
import re

import pytest

from pytest_mcptest.report.html import render_html
from pytest_mcptest.report.document import compare_reports
from pytest_mcptest.text import html_text

RLO = "\u202e"
HEBREW = "\u05e9\u05dc\u05d5\u05dd"  # a right-to-left name, legitimately
EVIL_ID = f"s.mcptest.yml::get{RLO}txt.exe"
EVIL_TOOL = f"drop_{RLO}table\x1b]0;PWNED\x07"


def _report() -> dict:
    item = {"id": EVIL_ID, "name": "x", "kind": "agent", "outcome": "failed", "file": "s.mcptest.yml", "line": 3,
            "tags": [f"t{RLO}ag"],
            "failures": [{"gate": "expect", "message": f"tool {EVIL_TOOL} was called; expected never"}],
            "text": f"tool {EVIL_TOOL} was called; expected never",
            "envelope": {"tool_selection": {"floor": {"passed": False}},
                         "tool_calls": [{"name": EVIL_TOOL, "args": {"q": f"a{RLO}b"}, "result": HEBREW}]}}
    rtl = {"id": f"s.mcptest.yml::{HEBREW} 12", "name": HEBREW, "kind": "agent", "outcome": "passed",
           "envelope": {}, "failures": []}
    return {"mcptest_report": 1, "items": [item, rtl]}


def test_html_text_isolates_and_shows_controls_as_escapes():
    assert html_text(f"a{RLO}<b>\x1b") == ('<bdi>a<span class="ctl">\\u202e</span>&lt;b&gt;'
                                            '<span class="ctl">\\x1b</span></bdi>')
    assert html_text("plain") == "<bdi>plain</bdi>"


def test_the_page_written_in_python_holds_no_raw_override_in_its_text():
    report = _report()
    html = render_html(report, compare_reports(report, report), f"base{RLO}.json")
    static = html[:html.index('<script type="application/octet-stream"')]
    shown = re.sub(r'="[^"]*"', "", static)  # attribute values (a filter's option value) are not drawn
    assert RLO not in shown and "\x1b" not in static and "\x1b" not in static
    assert '<bdi>s.mcptest.yml::get<span class="ctl">\\u202e</span>txt.exe</bdi>' in static  # floors breached list
    assert "Compared with <bdi>base<span class=\"ctl\">\\u202e</span>.json</bdi>" in static


def test_markup_in_a_hand_edited_reports_paths_is_text():
    before = {"mcptest_report": 1, "items": [{"id": "a", "kind": "agent", "outcome": "passed",
                                              "envelope": {"<img src=x onerror=alert(1)>": 1}}]}
    after = json.loads(json.dumps(before))
    after["items"][0]["envelope"] = {"<img src=x onerror=alert(1)>": 2}
    html = render_html(after, compare_reports(after, before), "b.json")
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def _items_payload(html: str) -> list:
    found = re.search(r'id="mcptest-rows">([^<]*)<', html)
    return json.loads(gzip.decompress(base64.b64decode(found.group(1))))


def test_the_names_themselves_are_kept_in_the_data():
    """Escaping is for the eye: the filter and the JSON keep the names as they are."""
    assert _items_payload(render_html(_report()))[0]["id"] == EVIL_ID


# -- in a browser -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def page(tmp_path_factory):
    from browser import Watched, chromium

    path = tmp_path_factory.mktemp("bidi") / "report.html"
    path.write_text(render_html(_report()), encoding="utf-8")
    with chromium() as browser:
        watched = Watched(browser, path.as_uri())
        watched.page.locator("#item-rows tr.row").first.click()
        watched.page.wait_for_selector("#item-rows tr.detail")
        yield watched


def _in_order(page, selector: str, text: str) -> bool:
    """Whether the characters of ``text`` (a text node under ``selector``) are drawn left to
    right in the order they are written."""
    return page.evaluate("""([selector, text]) => {
        const root = document.querySelector(selector);
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = node.data.indexOf(text);
          if (at < 0) continue;
          const xs = [];
          for (let i = at; i < at + text.length; i++) {
            if (node.data[i] === " ") continue;
            const range = document.createRange();
            range.setStart(node, i); range.setEnd(node, i + 1);
            xs.push(range.getBoundingClientRect().left);
          }
          return xs.every((x, i) => i === 0 || x > xs[i - 1]);
        }
        throw new Error("not found: " + text);
    }""", [selector, text])


def test_no_override_reaches_the_rendered_page(page):
    text = page.page.evaluate("document.body.innerText")
    assert RLO not in text and "\x1b" not in text and "\x07" not in text
    assert "get\\u202etxt.exe" in text and "drop_\\u202etable\\x1b]0;PWNED\\x07" in text
    assert page.problems == []


def test_each_name_is_in_an_isolated_element(page):
    styles = page.page.eval_on_selector_all(
        "#item-rows tr.row code bdi, table.calls bdi, #summary li bdi",
        "els => els.map(e => [e.tagName, getComputedStyle(e).unicodeBidi])")
    assert styles and all(tag == "BDI" and bidi == "isolate" for tag, bidi in styles), styles
    ids = page.page.eval_on_selector_all("#item-rows tr.row code bdi", "els => els.map(e => e.textContent)")
    assert f"s.mcptest.yml::{HEBREW} 12" in ids


def test_the_words_around_a_name_keep_their_order(page):
    # the failure text: the words after the tool's name are drawn as written
    assert _in_order(page.page, "pre.failure-text", "was called; expected never")
    # the summary's floors list: ": floor breached" follows the item's name, in order
    assert _in_order(page.page, "#summary", "floor breached")
    # the why column: "expect: tool" precedes the name
    assert _in_order(page.page, "#item-rows tr.row td.why", "expect: tool")
