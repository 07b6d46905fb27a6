"""The self-contained HTML report, built from the JSON report (and a comparison with a
baseline, when there is one) so that ``--mcptest-html`` and ``mcptest report --html``
write the same bytes for the same items.

Everything is inline: the style sheet, the script, the charts (SVG from
:mod:`pytest_mcptest.report.charts`) and the items themselves, as gzip-compressed JSON the
script unpacks with the browser's own ``DecompressionStream``; nothing is fetched. The
summary, the comparison and the charts are plain HTML; the item table is built by the
script, each row expanding into its failure text, its recorded calls and its envelope.
No time stamp and no absolute path: the same report gives the same bytes.
"""

from __future__ import annotations

import base64
import gzip
import json
from html import escape
from importlib import resources
from typing import Any, Optional

from ..formats.files import atomic_write, utf8_safe
from .matrix import matrix_section
from ..text import html_text, printable

OUTCOMES = ("failed", "error", "xpassed", "xfailed", "skipped", "passed")
MAX_COMPARE_ROWS = 200


def unavailable() -> Optional[str]:
    """Why no HTML report can be written here, if it cannot: its charts need matplotlib
    (the ``html`` extra). Checked without importing it."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        return "the HTML report needs matplotlib: pip install 'mcptest[html]'"
    return None


def _asset(name: str) -> str:
    return resources.files("pytest_mcptest").joinpath("data", name).read_text(encoding="utf-8")


def _outcome_order(outcome: str) -> tuple:
    return (OUTCOMES.index(outcome) if outcome in OUTCOMES else len(OUTCOMES), outcome)


def _count_table(items: list[dict]) -> str:
    """Items by kind and outcome; every number carries ``data-count`` for a reader (or a
    test) to check against the JSON."""
    outcomes = sorted({str(i.get("outcome", "unknown")) for i in items}, key=_outcome_order)
    kinds = sorted({str(i.get("kind", "?")) for i in items})
    counts: dict = {}
    for item in items:
        key = (str(item.get("kind", "?")), str(item.get("outcome", "unknown")))
        counts[key] = counts.get(key, 0) + 1
    head = "".join(f'<th class="o-{escape(o)}">{html_text(o)}</th>' for o in outcomes)
    rows = []
    for kind in kinds:
        cells = "".join(f'<td data-count="{escape(kind)}/{escape(o)}">{counts.get((kind, o), 0)}</td>' for o in outcomes)
        total = sum(counts.get((kind, o), 0) for o in outcomes)
        rows.append(f'<tr><th>{html_text(kind)}</th>{cells}<td data-count="{escape(kind)}/all">{total}</td></tr>')
    totals = "".join(f'<td data-count="all/{escape(o)}">{sum(counts.get((k, o), 0) for k in kinds)}</td>'
                     for o in outcomes)
    rows.append(f'<tr class="total"><th>all kinds</th>{totals}<td data-count="all/all">{len(items)}</td></tr>')
    return f'<table class="counts"><tr><th>kind</th>{head}<th>all</th></tr>{"".join(rows)}</table>'


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _facts(items: list[dict]) -> dict:
    """What the summary lists besides the counts, from each item's envelope: the floors
    breached (a section's ``floor.passed`` false), the deferred criteria and the recorded
    cost and tokens of each run (``cost_micros``; ``conversation.tokens.total``, else
    ``tokens.total``). Read by key, not by walking whole envelopes: ten thousand items
    with their calls and turns stay quick."""
    floors, deferred = [], []
    cost = tokens = costed = tokened = 0
    for item in items:
        env = item.get("envelope") or {}
        if any(isinstance(v, dict) and isinstance(v.get("floor"), dict) and v["floor"].get("passed") is False
               for v in env.values()):
            lines = [str(f.get("message", "")) for f in item.get("failures") or []
                     if isinstance(f, dict) and f.get("gate") == "tool_selection"]
            floors.append((item["id"], (lines[0].splitlines() or [""])[0] if lines else "floor breached"))
        runs = env.get("runs") if isinstance(env.get("runs"), list) else [env]
        for run in runs:
            if not isinstance(run, dict):
                continue
            deferred += [(item["id"], c) for c in run.get("deferred") or () if isinstance(c, str)]
            if _is_int(run.get("cost_micros")):
                cost, costed = cost + run["cost_micros"], costed + 1
            conversation = run.get("conversation") if isinstance(run.get("conversation"), dict) else {}
            for holder in (conversation, run):
                total = holder.get("tokens", {}).get("total") if isinstance(holder.get("tokens"), dict) else None
                if _is_int(total):
                    tokens, tokened = tokens + total, tokened + 1
                    break
    return {"floors": floors, "deferred": deferred, "cost_micros": cost, "costed": costed,
            "tokens": tokens, "tokened": tokened}


def _listing(pairs: list[tuple[str, str]], empty: str, limit: int = 50) -> str:
    if not pairs:
        return f'<p class="muted">{escape(empty)}</p>'
    rows = "".join(f"<li><code>{html_text(i)}</code>: {html_text(t)}</li>" for i, t in pairs[:limit])
    more = f'<li class="muted">... and {len(pairs) - limit} more</li>' if len(pairs) > limit else ""
    return f"<ul>{rows}{more}</ul>"


def _modes(report: dict) -> str:
    """The failed items' failure modes (``engine/failure_modes.py``), most first, or ``none``."""
    from ..engine.failure_modes import describe
    from .document import failure_mode_totals

    modes = report.get("failure_modes")
    if not isinstance(modes, dict):  # a report written before failure modes: work them out
        modes = failure_mode_totals(report.get("items", []))
    return describe({k: v for k, v in modes.items() if isinstance(v, int)}) or "none"


def _summary(report: dict) -> str:
    items = report.get("items", [])
    facts = _facts(items)
    cost = f"${facts['cost_micros'] / 1e6:.4f}" if facts["costed"] else "not recorded"
    tokens = f"{facts['tokens']}" if facts["tokened"] else "not recorded"
    errors = report.get("errors") or []
    bad = (f'<h3>Suite files that could not be read: <span data-count="errors">{len(errors)}</span></h3>'
           + _listing([(e.get("file", "?"), str(e.get("message", "")).splitlines()[0] if e.get("message") else "")
                       for e in errors], "")) if errors else ""
    return (
        '<section id="summary"><h2>Summary</h2>'
        f"{_count_table(items)}"
        '<dl class="facts">'
        f'<dt>floors breached</dt><dd data-count="floors">{len(facts["floors"])}</dd>'
        f'<dt>deferred criteria</dt><dd data-count="deferred">{len(facts["deferred"])}</dd>'
        f'<dt>recorded cost</dt><dd data-count="cost">{escape(cost)}</dd>'
        f'<dt>recorded tokens</dt><dd data-count="tokens">{escape(tokens)}</dd>'
        f'<dt>failing runs by mode</dt><dd data-count="failure_modes">{escape(_modes(report))}</dd></dl>'
        f"<h3>Floors breached</h3>{_listing(facts['floors'], 'none')}"
        f"<h3>Deferred criteria (no recorded judge verdict)</h3>{_listing(facts['deferred'], 'none')}"
        f"{bad}</section>")


def _show(value) -> str:
    if value is None:
        return "absent"
    return repr(round(value, 6)) if isinstance(value, float) else str(value)


def _basis(comparison: dict) -> str:
    """The differences of basis (``report.document.basis_lines``), first: what a change can be read as."""
    from .document import basis_lines

    lines = basis_lines(comparison)
    if not lines:
        return ""
    tone = "bad" if comparison["basis"]["refused"] else "neutral"
    items = "".join(f"<li>{html_text(line.strip())}</li>" for line in lines[1:])
    return f'<div class="basis {tone}"><p>{html_text(lines[0])}</p>' + (f"<ul>{items}</ul>" if items else "") + "</div>"


def _verdict(comparison: dict) -> str:
    """The paired tests' verdict and the significant changes (every test, folded away)."""
    sig = comparison.get("significance")
    if not isinstance(sig, dict):
        return _basis(comparison)
    tests = sig.get("tests") or []
    verdict = str(sig.get("verdict", "within noise"))
    tone = {"regressed": "bad", "improved": "good"}.get(verdict, "neutral")

    def row(t: dict) -> str:
        unit = "%" if t["unit"] == "percent" else ""
        points = " points" if t["unit"] == "percent" else ""
        tone_row = {"worse": "bad", "better": "good"}.get(t["change"], "") if t["significant"] else ""
        return (f'<tr class="{tone_row}"><td>{escape(t["change"] if t["significant"] else "noise")}</td>'
                f'<td><code>{html_text(t["id"])}</code></td><td>{html_text(t["measure"])}</td>'
                f'<td>{t["before"]:g}{unit} &rarr; {t["after"]:g}{unit}</td>'
                f'<td>{t["effect"]:+g}{points} (95% CI {t["interval"][0]:g} to {t["interval"][1]:g})</td>'
                f'<td>{t["p"]:.3g} ({t["p_adjusted"]:.3g})</td><td>{escape(t["test"])}</td></tr>')

    head = ("<tr><th>change</th><th>item</th><th>measure</th><th>before &rarr; after</th><th>effect</th>"
            "<th>p (adjusted)</th><th>test</th></tr>")
    significant = [t for t in tests if t.get("significant")]
    text = _basis(comparison)
    text += (f'<p class="verdict {tone}"><strong data-verdict="{escape(verdict)}">{escape(verdict.upper())}</strong>: '
             f'<span data-count="significant">{len(significant)}</span> of {len(tests)} paired tests significant at '
             f'alpha {sig.get("alpha", 0.05):g}, {escape(str(sig.get("correction", "Holm")))}-corrected.</p>')
    if significant:
        text += f'<table class="significant">{head}{"".join(row(t) for t in significant)}</table>'
    if len(tests) > len(significant):
        text += (f'<details><summary>every paired test ({len(tests)})</summary>'
                 f'<table class="tests">{head}{"".join(row(t) for t in tests)}</table></details>')
    return text


def _comparison(comparison: Optional[dict], baseline_name: str) -> str:
    """The verdict and the significant changes first, then floor flips, then the changed
    items, worst first: most flips to failed, then an outcome that changed, then the
    largest delta."""
    if comparison is None:
        return ""
    flips = comparison.get("floor_flips", [])
    flip_rows = "".join(
        f'<tr class="{"bad" if f["after"] == "failed" else "good"}"><td><code>{html_text(f["id"])}</code></td>'
        f'<td>{html_text(f["path"])}</td><td>{html_text(f["before"])} &rarr; {html_text(f["after"])}</td></tr>'
        for f in sorted(flips, key=lambda f: (f["after"] != "failed", f["id"], f["path"])))

    def badness(item):
        to_failed = sum(1 for f in item["floor_flips"] if f["after"] == "failed")
        deltas = [abs(v["delta"]) for v in item["values"] if v["delta"] is not None]
        moved = item["outcome"]["before"] != item["outcome"]["after"]
        return (-to_failed, not moved, -(max(deltas) if deltas else 0), item["id"])

    changed = sorted((i for i in comparison.get("items", []) if i.get("changed")), key=badness)
    rows = []
    for item in changed[:MAX_COMPARE_ROWS]:
        o = item["outcome"]
        values = "; ".join(f"{html_text(v['path'])} {escape(_show(v['before']))} &rarr; {escape(_show(v['after']))}"
                           for v in item["values"] if v["delta"] != 0)
        rows.append(f'<tr><td><code>{html_text(item["id"])}</code></td><td>{html_text(item["status"])}</td>'
                    f'<td>{html_text(o["before"])} &rarr; {html_text(o["after"])}</td>'
                    f'<td class="values">{values}</td></tr>')
    more = (f'<p class="muted">... and {len(changed) - MAX_COMPARE_ROWS} more changed items</p>'
            if len(changed) > MAX_COMPARE_ROWS else "")
    return (f'<section id="comparison"><h2>Compared with {html_text(baseline_name)}</h2>{_verdict(comparison)}'
            f'<p><span data-count="regressions">{comparison.get("regressions", 0)}</span> flips to failed, '
            f'{len(flips)} floor flips, {len(changed)} changed items, {len(comparison.get("added", []))} added, '
            f'{len(comparison.get("removed", []))} removed, {comparison.get("common", 0)} compared.</p>'
            + (f'<table class="flips"><tr><th>item</th><th>what</th><th>flip</th></tr>{flip_rows}</table>'
               if flips else "")
            + (f'<table class="deltas"><tr><th>item</th><th>status</th><th>outcome</th><th>values</th></tr>'
               f'{"".join(rows)}</table>{more}' if rows else '<p class="muted">nothing changed</p>')
            + "</section>")


def _charts(report: dict) -> str:
    from .charts import render_charts

    figures = [f'<figure class="chart" id="chart-{cid}"><figcaption>{escape(title)}</figcaption>{svg}</figure>'
               for cid, title, svg in render_charts(report)]
    if not figures:
        return ""
    return f'<section id="charts"><h2>Charts</h2>{"".join(figures)}</section>'


DETAIL_KEYS = ("envelope", "text")  # unpacked only when a row is first expanded


def _packed(data) -> str:
    """Compact JSON with sorted keys, gzip-compressed (fixed mtime) and base64-encoded: a
    tenth of the size, unpacked in the browser without any library.

    msgspec writes the JSON (the same bytes as ``json.dumps`` with sorted keys, compact and
    unescaped, in a sixth of the time: 25 MB of envelopes for 10,000 items). It refuses a
    lone surrogate (a file name that is not UTF-8, read by Python as ``caf\\udce9``), which
    the json module writes as its escape instead."""
    import msgspec

    try:
        raw = msgspec.json.encode(data, order="sorted")
    except UnicodeEncodeError:
        raw = utf8_safe(json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def _payloads(report: dict) -> str:
    """The items in two blocks: what the table lists and filters on (read at once), and each
    item's envelope and failure text (read on the first expanded row), so that a large
    report opens without parsing every envelope."""
    items = report.get("items", [])
    rows = [{k: v for k, v in item.items() if k not in DETAIL_KEYS} for item in items]
    details = [{k: item[k] for k in DETAIL_KEYS if k in item} for item in items]
    return (f'<script type="application/octet-stream" id="mcptest-rows">{_packed(rows)}</script>'
            f'<script type="application/octet-stream" id="mcptest-details">{_packed(details)}</script>')


def _script(text: str) -> str:
    return text.replace("</", "<\\/")


def _option(value: str) -> str:
    """A filter's choice: an option holds text only, so its controls are shown escaped."""
    return f'<option value="{escape(value)}">{escape(printable(value))}</option>'


def render_html(report: dict, comparison: Optional[dict] = None, baseline_name: str = "the baseline",
                title: str = "mcptest report") -> str:
    """The whole page for a JSON report (and its comparison with a baseline)."""
    items = report.get("items", [])
    options: dict[str, Any] = {
        "kinds": sorted({str(i.get("kind", "?")) for i in items}),
        "outcomes": sorted({str(i.get("outcome", "unknown")) for i in items}, key=_outcome_order),
        "tags": sorted({str(t) for i in items for t in i.get("tags") or ()}),
    }
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        f"<title>{escape(title)}</title><style>{_asset('report.css')}</style></head><body>"
        f"<header><h1>{escape(title)}</h1></header><main>"
        f"{_summary(report)}{matrix_section(report)}{_comparison(comparison, baseline_name)}{_charts(report)}"
        '<section id="items"><h2>Items</h2><div class="filters">'
        '<label>kind <select id="f-kind"><option value="">all</option>'
        + "".join(_option(k) for k in options["kinds"]) + "</select></label>"
        '<label>outcome <select id="f-outcome"><option value="">all</option>'
        + "".join(_option(o) for o in options["outcomes"]) + "</select></label>"
        '<label>tag <select id="f-tag"><option value="">all</option>'
        + "".join(_option(t) for t in options["tags"]) + "</select></label>"
        '<label>text <input id="f-text" type="search" placeholder="id, name, failure"></label>'
        '<span id="shown" aria-live="polite"></span></div>'
        '<table id="item-table"><thead><tr><th>outcome</th><th>kind</th><th>item</th><th>why</th></tr></thead>'
        '<tbody id="item-rows"><tr><td colspan="4" class="muted">loading...</td></tr></tbody></table>'
        '<p><button id="more" type="button" hidden>list more</button></p></section>'
        f"</main>{_payloads(report)}"
        f"<script>{_script(_asset('report.js'))}</script></body></html>\n")


def write_html(path: str, report: dict, comparison: Optional[dict] = None, baseline_name: str = "the baseline") -> None:
    atomic_write(path, render_html(report, comparison, baseline_name))
