"""The report as Markdown for a pull-request comment or ``$GITHUB_STEP_SUMMARY``, and
failures as GitHub Actions workflow annotations.

Both read the JSON report (and a comparison) only, like the HTML report: what the plugin
writes with ``--mcptest-markdown`` is what ``mcptest report R.json --markdown`` writes from
the saved report. The Markdown is short on purpose: counts, each failure at its
``file:line``, the floors that did not hold, the stability figures, and of a comparison
its verdict with the significant changes only; a model matrix's models side by side.
"""

from __future__ import annotations

import os
from typing import Iterable, Optional

from ..engine.paths import leaves
from ..formats.files import atomic_write
from .matrix import matrix_markdown
from ..text import markdown_text, plural, printable

MAX_LISTED = 50  # failures and floors listed; the rest are counted
MAX_MESSAGE = 300  # characters of a failure message in a table cell or an annotation title line
_OUTCOMES = ("failed", "error", "xpassed", "passed", "xfailed", "skipped")


def _cell(text) -> str:
    """Text safe inside a Markdown table cell: inert (:func:`~pytest_mcptest.text.markdown_text`:
    no link, mention, fence or tag forms from an item's name), long text cut."""
    line = " ".join(str(text).split())
    if len(line) > MAX_MESSAGE:
        line = line[:MAX_MESSAGE - 3] + "..."
    return markdown_text(line)


def _code(text) -> str:
    """Inline code that holds any backticks of ``text`` (control and bidi characters escaped)."""
    text = printable(" ".join(str(text).split()))
    fence = "`"
    while fence in text:
        fence += "`"
    return f"{fence} {text} {fence}" if text.startswith("`") or text.endswith("`") else f"{fence}{text}{fence}"


def _where(item: dict) -> str:
    line = item.get("line")
    return f"{item.get('file', '?')}:{line}" if isinstance(line, int) else str(item.get("file", "?"))


def _first_message(item: dict) -> str:
    for failure in item.get("failures") or ():
        message = str(failure.get("message", "")).strip()
        if message:
            return f"{failure.get('gate', '?')}: {message.splitlines()[0]}"
    return item.get("outcome", "failed")


def _floors(items: list[dict]) -> list[tuple[dict, str]]:
    return [(item, path) for item in items for path, value in leaves(item.get("envelope") or {}).items()
            if (path == "floor.passed" or path.endswith(".floor.passed")) and value is False]


def _stability(items: list[dict]) -> list[str]:
    rows = []
    for item in items:
        s = (item.get("envelope") or {}).get("stability")
        if not isinstance(s, dict) or "pass_rate" not in s:
            continue
        curve = s.get("pass_hat_k") or {}
        last = f"pass^{list(curve)[-1]} {list(curve.values())[-1]:g}%" if curve else ""
        icc = s.get("icc")
        mde = s.get("mde")
        flips = f"{s['flip_rate']:g}%" if isinstance(s.get("flip_rate"), (int, float)) else ""
        rows.append(f"| {_cell(item['id'])} | {s['pass_rate']:g}% ({s.get('pass_rate_low', 0):g}-"
                    f"{s.get('pass_rate_high', 100):g}) | {last} | {flips} | "
                    f"{'' if icc is None else f'{icc:.2f}'} | {'' if mde is None else f'{mde:g} points'} |")
    if not rows:
        return []
    return ["", "### Stability", "",
            "| item | pass rate (95% CI) | pass^k | flip rate | ICC(1) | detectable drop |",
            "|---|---|---|---|---|---|"] + rows


def _comparison(comparison: dict, baseline_name: str) -> list[str]:
    from .document import basis_lines

    sig = comparison.get("significance") or {}
    lines = ["", f"### Compared with {_cell(baseline_name)}", ""]
    basis = basis_lines(comparison)
    if basis:
        lines += [_cell(basis[0]), ""] + [f"- {_cell(line.strip())}" for line in basis[1:]] + [""]
    if "significance" not in comparison:
        return lines
    verdict = str(sig.get("verdict", "within noise")).upper()
    tests = sig.get("tests") or []
    lines.append(f"**Verdict: {verdict}**: {sig.get('significant', 0)} of {len(tests)} paired tests significant at "
                 f"alpha {sig.get('alpha', 0.05):g}, {sig.get('correction', 'Holm')}-corrected.")
    significant = [t for t in tests if t.get("significant")]
    if significant:
        lines += ["", "| change | item | measure | before | after | effect (95% CI) | p (adjusted) | test |",
                  "|---|---|---|---|---|---|---|---|"]
        for t in significant:
            unit = "%" if t["unit"] == "percent" else ""
            lines.append(f"| {t['change']} | {_cell(t['id'])} | {_cell(t['measure'])} | {t['before']:g}{unit} | "
                         f"{t['after']:g}{unit} | {t['effect']:+g} ({t['interval'][0]:g} to {t['interval'][1]:g}) | "
                         f"{t['p']:.3g} ({t['p_adjusted']:.3g}) | {_cell(t['test'])} |")
    flips = comparison.get("floor_flips") or []
    if flips:
        lines += ["", f"Floor flips ({comparison.get('regressions', 0)} to failed):", ""]
        lines += [f"- {_code(f['id'])}{'' if f['path'] == 'outcome' else ' (' + _code(f['path']) + ')'}: "
                  f"{f['before']} -> {f['after']}" for f in flips[:MAX_LISTED]]
    added, removed = comparison.get("added") or [], comparison.get("removed") or []
    if added or removed:
        lines += ["", f"{plural(len(added), 'item')} added, {len(removed)} removed."]
    return lines


def render_markdown(report: dict, comparison: Optional[dict] = None, baseline_name: str = "the baseline") -> str:
    """The Markdown summary of ``report`` (and of ``comparison``, when given)."""
    items = report.get("items", [])
    counts: dict[str, int] = {}
    for item in items:
        counts[item.get("outcome", "passed")] = counts.get(item.get("outcome", "passed"), 0) + 1
    errors = report.get("errors") or []
    bad = counts.get("failed", 0) + counts.get("error", 0) + len(errors)
    mark = "FAILED" if bad else "passed"
    tally = ", ".join(f"{counts[o]} {o}" for o in _OUTCOMES if counts.get(o)) or "no items"
    lines = [f"## mcptest: {mark}", "", f"{plural(len(items), 'item')}: {tally}"
             + (f"; {plural(len(errors), 'bad suite file')}" if errors else "") + "."]
    failed = [i for i in items if i.get("outcome") in ("failed", "error")]
    if failed or errors:
        lines += ["", "### Failures", "", "| where | item | kind | why |", "|---|---|---|---|"]
        for item in failed[:MAX_LISTED]:
            lines.append(f"| {_cell(_where(item))} | {_cell(item.get('name', item['id']))} | {item.get('kind', '')} | "
                         f"{_cell(_first_message(item))} |")
        for error in errors[:MAX_LISTED]:
            first = str(error["message"]).strip().splitlines()[:1] or [""]
            lines.append(f"| {_cell(error['file'])} | | bad suite | {_cell(first[0])} |")
        if len(failed) > MAX_LISTED:
            lines.append(f"\n... and {len(failed) - MAX_LISTED} more failures (the JSON report has them all).")
    floors = _floors(items)
    if floors:
        lines += ["", "### Floors that did not hold", ""]
        lines += [f"- {_code(item['id'])}: {_code(path)}" for item, path in floors[:MAX_LISTED]]
    lines += _stability(items)
    lines += matrix_markdown(report)
    if comparison is not None:
        lines += _comparison(comparison, baseline_name)
    return "\n".join(lines) + "\n"


def write_markdown(path: str, report: dict, comparison: Optional[dict] = None,
                   baseline_name: str = "the baseline") -> None:
    atomic_write(path, render_markdown(report, comparison, baseline_name))


# --------------------------------------------------------------------------- GitHub Actions annotations

def _escape_data(text: str) -> str:
    text = printable(text)  # a workflow command printed to the CI log: no escape sequence in it
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotations(report: dict, base_dir: str, workspace: Optional[str] = None) -> Iterable[str]:
    """One ``::error file=...,line=...,title=...::message`` workflow command per failed
    item (and per bad suite file), the file relative to ``workspace`` (the repository's
    root, ``$GITHUB_WORKSPACE``) so GitHub puts it on the suite's line in the diff.
    ``base_dir`` is the folder the report's paths are relative to."""
    def where(path: str) -> str:
        full = os.path.normpath(os.path.join(base_dir, path))
        if workspace:
            relative = os.path.relpath(full, workspace)
            if not relative.startswith(".."):
                return relative.replace(os.sep, "/")
        return path

    for item in report.get("items", []):
        if item.get("outcome") not in ("failed", "error"):
            continue
        props = f"file={_escape_property(where(item.get('file', '')))}"
        if isinstance(item.get("line"), int):
            props += f",line={item['line']}"
        props += f",title={_escape_property('mcptest ' + str(item.get('kind', 'item')) + ' ' + item.get('outcome', ''))}"
        text = item.get("text") or "\n".join(f"{f.get('gate', '?')}: {f.get('message', '')}"
                                             for f in item.get("failures") or ()) or item.get("outcome", "failed")
        yield f"::error {props}::{_escape_data(item.get('name', item['id']) + ': ' + str(text).strip())}"
    for error in report.get("errors") or ():
        yield (f"::error file={_escape_property(where(error['file']))},title=mcptest bad suite::"
               f"{_escape_data(str(error['message']).strip())}")
