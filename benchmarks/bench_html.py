#!/usr/bin/env python
"""Benchmark: the HTML report of 10,000 items (issue 14).

Runs ``pytest examples --mcptest-report`` once (a subprocess) for real item entries, then
makes a report of ``--items`` entries (default 10,000) from them: each a copy of one of
the examples' items under a new id, with its numbers shifted so that no two are alike.
It writes that report, reads it back as ``mcptest report --html`` does (``load_report``:
strict JSON, the report schema, no number too large) and renders the HTML (``render_html``),
both timed; then it opens the file in
headless Chromium (Playwright driving the system's ``chromium``, as the browser tests
do), best of ``--repeat``:

| figure | goal |
|---|---|
| render the page (``render_html``, what ``--mcptest-html`` does at a session's end) | < 5 s |
| read the JSON report first (``load_report``: what ``mcptest report --html`` adds) | (information) |
| file size | < 10 MB |
| open: navigation start to the table built and laid out | < 2 s |
| filter by outcome, then by text: each until laid out | (in the 2 s with opening) |
| open + both filters | < 2 s |
| the first row expanded (unpacks every item's envelope once) | (information) |

A report, not a test: it prints the figures with PASS/MISS and exits 0; it exits 1 only
when the benchmark is broken (the examples did not run, or the page never got ready).

    python benchmarks/bench_html.py [--items 10000] [--repeat 3] [--json] [--keep DIR]
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from pytest_mcptest.report.document import load_report  # noqa: E402
from pytest_mcptest.report.html import render_html  # noqa: E402

SIZE_GOAL = 10_000_000
TIME_GOAL = 2.0
RENDER_GOAL = 5.0  # seconds to render 10,000 items (issue 47)
OUTCOMES = ("passed",) * 8 + ("failed", "xfailed")


def example_items(workdir: Path) -> list[dict]:
    out = workdir / "examples.json"
    proc = subprocess.run([sys.executable, "-m", "pytest", "examples", "-q", "-p", "no:cacheprovider",
                           f"--mcptest-report={out}"], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0 or not out.exists():
        print(proc.stdout, proc.stderr, sep="\n")
        raise SystemExit("bench_html: the examples did not run")
    return json.loads(out.read_text(encoding="utf-8"))["items"]


def _shift(value, i: int):
    """The entry's numbers moved a little, so the report is not one item 10,000 times."""
    if isinstance(value, dict):
        return {k: _shift(v, i) for k, v in value.items()}
    if isinstance(value, list):
        return [_shift(v, i) for v in value]
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value + i % 97
    if isinstance(value, float):
        return round(value * (1 + (i % 13) / 1000), 6)
    return value


def make_report(seeds: list[dict], n: int) -> dict:
    items = []
    for i in range(n):
        item = copy.deepcopy(seeds[i % len(seeds)])
        name = f"{item['name']} #{i:05d}"
        item.update(id=f"bench/suite_{i // 100:03d}.mcptest.yml::{name}", name=name,
                    file=f"bench/suite_{i // 100:03d}.mcptest.yml", outcome=OUTCOMES[i % len(OUTCOMES)])
        item["envelope"] = _shift(item.get("envelope") or {}, i)
        items.append(item)
    return {"mcptest_report": 1, "items": sorted(items, key=lambda e: e["id"])}


OPEN = """() => new Promise(done => {
  const wait = () => document.body.dataset.ready === "true" ? finish() : setTimeout(wait, 5);
  const finish = () => requestAnimationFrame(() => { document.body.offsetHeight; done(performance.now()); });
  wait();
})"""
FILTER = """([id, value, event]) => {
  const t0 = performance.now();
  const el = document.getElementById(id);
  el.value = value;
  el.dispatchEvent(new Event(event));
  document.body.offsetHeight;
  return [performance.now() - t0, document.getElementById("shown").textContent];
}"""


EXPAND = """() => new Promise(done => {
  const t0 = performance.now();
  document.querySelector("#item-rows tr.row").click();
  const wait = () => document.querySelector("#item-rows tr.detail") ? done(performance.now() - t0) : setTimeout(wait, 2);
  wait();
})"""


def measure(browser, path: Path) -> dict:
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    page.goto(path.as_uri(), wait_until="commit")
    opened = page.evaluate(OPEN) / 1000
    outcome, shown_outcome = page.evaluate(FILTER, ["f-outcome", "failed", "change"])
    text, shown_text = page.evaluate(FILTER, ["f-text", "weather", "input"])
    expand = page.evaluate(EXPAND) / 1000
    page.close()
    return {"open_s": opened, "filter_outcome_s": outcome / 1000, "filter_text_s": text / 1000, "expand_s": expand,
            "shown_after_outcome": shown_outcome, "shown_after_text": shown_text}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", metavar="DIR", help="write the report and the page here and keep them")
    args = parser.parse_args(argv)

    from browser import chromium, missing  # tests/browser.py: the same browser set-up as the tests

    if missing():
        raise SystemExit(f"bench_html: {missing()}")

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(args.keep or tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        report = make_report(example_items(workdir), args.items)
        (workdir / "report.json").write_text(json.dumps(report), encoding="utf-8")
        t0 = time.perf_counter()
        report = load_report(str(workdir / "report.json"))
        load_s = time.perf_counter() - t0
        html = render_html(report)
        render_s = time.perf_counter() - t0 - load_s
        page = workdir / "report.html"
        page.write_text(html, encoding="utf-8")
        size = page.stat().st_size
        with chromium() as browser:
            runs = [measure(browser, page) for _ in range(args.repeat)]
    best = {key: min(r[key] for r in runs) for key in ("open_s", "filter_outcome_s", "filter_text_s", "expand_s")}
    total = best["open_s"] + best["filter_outcome_s"] + best["filter_text_s"]
    figures = {"items": args.items, "size_bytes": size, "json_bytes": len(json.dumps(report)), "load_s": load_s,
               "render_s": render_s, "render_goal_met": render_s <= RENDER_GOAL,
               **best, "open_and_filter_s": total, "shown_after_outcome": runs[0]["shown_after_outcome"],
               "shown_after_text": runs[0]["shown_after_text"],
               "size_goal_met": size < SIZE_GOAL, "time_goal_met": total < TIME_GOAL}
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    mark = lambda ok: "PASS" if ok else "MISS"  # noqa: E731
    print(f"HTML report of {args.items} items (best of {args.repeat} opens in headless Chromium)")
    print(f"  JSON report            {figures['json_bytes'] / 1e6:8.2f} MB (for comparison)")
    print(f"  HTML file              {size / 1e6:8.2f} MB   goal < {SIZE_GOAL / 1e6:.2f} MB   ratio "
          f"{size / SIZE_GOAL:.2f}   {mark(figures['size_goal_met'])}")
    print(f"  render (Python)        {render_s:8.2f} s    goal <= {RENDER_GOAL:.1f} s   ratio "
          f"{render_s / RENDER_GOAL:.2f}   {mark(figures['render_goal_met'])}")
    print(f"  read the JSON report   {load_s:8.2f} s    (information: what mcptest report --html adds)")
    print(f"  open until laid out    {best['open_s']:8.3f} s")
    print(f"  filter by outcome      {best['filter_outcome_s']:8.3f} s    ({figures['shown_after_outcome']})")
    print(f"  filter by text         {best['filter_text_s']:8.3f} s    ({figures['shown_after_text']})")
    print(f"  first row expanded     {best['expand_s']:8.3f} s    (information: unpacks every envelope once)")
    print(f"  open + filters         {total:8.3f} s    goal < {TIME_GOAL:.1f} s   ratio {total / TIME_GOAL:.2f}   "
          f"{mark(figures['time_goal_met'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
