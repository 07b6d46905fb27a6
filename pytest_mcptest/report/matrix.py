"""A model matrix's figures in words: in the HTML report, models side by side: each model
matrix (``model:`` a list) as one table, a row per model, from the items' ``model_matrix``
envelopes; the per-pair line is the gate's own (``gates/matrix.py``'s ``pair_line``).

Reads report entries only (plain dicts), so ``--mcptest-html`` and ``mcptest report --html``
show the same table for the same report.
"""

from __future__ import annotations

from html import escape

from ..gates.matrix import pair_line, percent as _percent
from ..text import html_text, markdown_text


def matrix_pairs(items: list[dict]) -> dict[tuple[str, str], list[tuple[dict, dict]]]:
    """(file, test) -> [(item, its pair figures)], in the report's order (sorted by id)."""
    groups: dict[tuple[str, str], list] = {}
    for item in items:
        pair = (item.get("envelope") or {}).get("model_matrix")
        if isinstance(pair, dict) and isinstance(pair.get("test"), str) and isinstance(pair.get("model"), str):
            groups.setdefault((str(item.get("file", "")), pair["test"]), []).append((item, pair))
    return groups


def _cell_percent(value) -> str:
    return _percent(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else "-"


def _line_of(p: dict) -> str:
    """The pair's line, or nothing when a report read from a file lacks what it needs."""
    try:
        return pair_line(p)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return ""


def tokens_cell(p: dict) -> str:
    """A pair's tokens as ``median / max``, or that they were not recorded."""
    if isinstance(p.get("tokens_median"), (int, float)) and isinstance(p.get("tokens_max"), (int, float)):
        return f"{p['tokens_median']:g} / {p['tokens_max']:g}"
    return "not recorded"


def cost_cell(p: dict) -> str:
    """A pair's recorded cost in dollars, or that it was not recorded."""
    return f"${p['cost_micros'] / 1e6:.6f}" if isinstance(p.get("cost_micros"), (int, float)) else "not recorded"


def matrix_markdown(report: dict) -> list[str]:
    """The Markdown lines of ``Models side by side`` (none when the report holds no matrix):
    one table per test, one row per model, with the pair's cost-vs-accuracy line."""
    lines: list[str] = []
    for (file, test), pairs in sorted(matrix_pairs(report.get("items", [])).items()):
        lines += ["", f"**{markdown_text(f'{file}::{test}')}**", "",
                  "| model | outcome | selection rate | pass^k | tokens median / max | cost | line |",
                  "|---|---|---|---|---|---|---|"]
        for item, p in pairs:
            cells = (p["model"], item.get("outcome", ""), _cell_percent(p.get("selection_rate")),
                     _cell_percent(p.get("pass_k")), tokens_cell(p), cost_cell(p), _line_of(p))
            lines.append("| " + " | ".join(markdown_text(c) for c in cells) + " |")
    return ["", "### Models side by side", *lines] if lines else []


def matrix_section(report: dict) -> str:
    """The ``Models side by side`` section; empty when the report holds no matrix."""
    groups = matrix_pairs(report.get("items", []))
    if not groups:
        return ""
    tables = []
    for (file, test), pairs in sorted(groups.items()):
        rows = []
        for item, p in pairs:
            tokens, cost = tokens_cell(p), cost_cell(p)
            rows.append(f'<tr class="o-{escape(str(item.get("outcome", "")))}"><td><code>{html_text(p["model"])}</code></td>'
                        f'<td>{escape(str(item.get("outcome", "")))}</td>'
                        f'<td data-count="{escape(str(item.get("id")))}/selection">{_cell_percent(p.get("selection_rate"))}</td>'
                        f'<td data-count="{escape(str(item.get("id")))}/pass_k">{_cell_percent(p.get("pass_k"))}</td>'
                        f'<td>{escape(tokens)}</td><td data-count="{escape(str(item.get("id")))}/cost">{escape(cost)}</td>'
                        f'<td class="values">{html_text(_line_of(p))}</td></tr>')
        tables.append(f"<h3><code>{html_text(file)}::{html_text(test)}</code></h3>"
                      '<table class="matrix"><tr><th>model</th><th>outcome</th><th>selection rate</th><th>pass^k</th>'
                      f'<th>tokens median / max</th><th>cost</th><th>line</th></tr>{"".join(rows)}</table>')
    return f'<section id="models"><h2>Models side by side</h2>{"".join(tables)}</section>'
