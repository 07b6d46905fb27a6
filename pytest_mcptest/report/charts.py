"""The HTML report's plots, drawn by matplotlib's SVG backend from a JSON report's items.

Each chart reads plain report data (the item entries of :mod:`pytest_mcptest.report.document`)
and returns inline SVG text, or ``None`` when the report holds nothing to draw. The
output is deterministic: a fixed ``svg.hashsalt`` per chart (so two charts on one page
never share an element id), no date or creator in the metadata, text kept as text.
matplotlib is imported here only, and this module only when HTML is asked for.

Each chart draws a bounded number of series (the worst first), so a report of ten
thousand items still renders in a second or two and the page stays small.
"""

from __future__ import annotations

import io
from typing import Callable, Iterable, Optional

MAX_CURVES = 12  # pass^k curves, distractor ladders
MAX_BARS = 30  # items in the token-cost chart, tools in a catalog chart
MAX_PANELS = 6  # tool-bench and catalog items drawn one panel each
_FAIL, _HOLD, _MUTED = "#c0392b", "#27ae60", "#7f8c8d"


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value  # not nan


def _short(text: str, width: int = 48) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _name(item: dict) -> str:
    return str(item.get("name") or item.get("id", "?"))


def _svg(name: str, draw: Callable, height: float) -> str:
    """Draw on a fresh figure (no pyplot state) and return its ``<svg>`` element alone."""
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    # text.parse_math off: a tool or item name holding two "$" is drawn as text, never as
    # (crashing, or italic) mathtext.
    style = {"svg.hashsalt": f"mcptest-{name}", "svg.fonttype": "none", "font.size": 9, "text.parse_math": False,
             "axes.spines.top": False, "axes.spines.right": False}
    with matplotlib.rc_context(style):
        fig = Figure(figsize=(11, height), layout="constrained")  # the page's width; the SVG scales to it
        FigureCanvasSVG(fig)
        draw(fig)
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    text = out.getvalue()
    return text[text.index("<svg"):].strip()


# --------------------------------------------------------------------------- the data each chart reads


def _pass_hat_k(envelope: dict) -> Optional[dict]:
    """The item's pass^k curve as fractions, ``{k: value}``: ``stability.pass_hat_k`` (whole
    runs judged by every gate; percents, averaged over tasks when runs carry them), else
    ``tool_selection.pass_hat_k`` (the expected tool selected; fractions)."""
    for key, scale in (("stability", 100.0), ("tool_selection", 1.0)):
        section = envelope.get(key)
        curve = section.get("pass_hat_k") if isinstance(section, dict) else None
        if isinstance(curve, dict) and curve:
            try:
                return {int(k): float(v) / scale for k, v in curve.items()}
            except (TypeError, ValueError):
                return None
    return None


def _items(report: dict) -> list[dict]:
    return [i for i in report.get("items", []) if isinstance(i, dict) and isinstance(i.get("envelope"), dict)]


def _integer_axis(axis, values: Iterable[int]) -> None:
    """Whole-number ticks on an axis of counts (k, distractors): never ``1.900 ... 2.100``,
    and half a step of room each side when there is a single value."""
    from matplotlib.ticker import FixedLocator, MaxNLocator

    values = sorted(set(values))
    if len(values) <= 12:  # a tick on each value drawn
        axis.set_major_locator(FixedLocator(values))
    else:
        axis.set_major_locator(MaxNLocator(integer=True))
    if len(values) == 1:
        axis.axes.set_xlim(values[0] - 0.5, values[0] + 0.5)


_STYLES = ("-", "--", "-.", ":")
_MARKERS = ("o", "s", "^", "D", "v", "P")


def pass_k_chart(report: dict) -> Optional[str]:
    curves = [(item, c) for item in _items(report) if (c := _pass_hat_k(item["envelope"]))]
    if not curves:
        return None
    curves.sort(key=lambda ic: (ic[1][max(ic[1])], ic[0]["id"]))  # lowest pass^k at the largest k first
    # Items with the very same curve are one series, named together: drawn apart, the
    # later line would hide the earlier one exactly.
    series: dict = {}
    for item, curve in curves:
        series.setdefault(tuple(sorted(curve.items())), []).append(item)
    grouped = list(series.items())
    shown = grouped[:MAX_CURVES]

    def draw(fig):
        ax = fig.add_subplot()
        for n, (points, items) in enumerate(shown):
            label = _short(_name(items[0])) + (f" (and {len(items) - 1} more, the same curve)" if len(items) > 1 else "")
            ax.plot([k for k, _ in points], [v for _, v in points], marker=_MARKERS[n % len(_MARKERS)], markersize=4,
                    linestyle=_STYLES[n // 10 % len(_STYLES)], label=label)
        ax.set_xlabel("k (runs that must all pass)")
        ax.set_ylabel("pass^k")
        ax.set_ylim(-0.02, 1.02)
        _integer_axis(ax.xaxis, [k for points, _ in shown for k, _ in points])
        more = f" (the {len(shown)} lowest of {len(grouped)})" if len(grouped) > len(shown) else ""
        ax.set_title("pass^k per agent item" + more)
        ax.legend(fontsize=7, loc="upper right")

    return _svg("pass-k", draw, 3.4)


def distractor_chart(report: dict) -> Optional[str]:
    ladders: dict = {}
    for item in _items(report):
        d = item["envelope"].get("distractors")
        if isinstance(d, dict) and isinstance(d.get("accuracy"), (int, float)) and isinstance(d.get("count"), int):
            key = (str(d.get("source", "")), ", ".join(map(str, d.get("correct") or ())))
            ladders.setdefault(key, []).append((d["count"], d["accuracy"], d.get("certified_lower")))
    if not ladders:
        return None
    shown = sorted(ladders.items())[:MAX_CURVES]

    def draw(fig):
        ax = fig.add_subplot()
        for n, ((source, correct), points) in enumerate(shown):
            points.sort()
            colour = f"C{n % 10}"
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", color=colour,
                    label=_short(f"{source}: {correct} accuracy"))
            lower = [(p[0], p[2]) for p in points if isinstance(p[2], (int, float))]
            if lower:
                ax.plot([p[0] for p in lower], [p[1] for p in lower], linestyle="--", marker=".", color=colour,
                        label=_short(f"{source}: certified lower bound"))
        ax.set_xlabel("distractors injected")
        _integer_axis(ax.xaxis, [p[0] for _, points in shown for p in points])
        ax.set_ylabel("accuracy (%)")
        ax.set_ylim(-2, 102)
        ax.set_title("distractor ladder: accuracy and certified lower bound")
        ax.legend(fontsize=7)

    return _svg("distractors", draw, 3.4)


def _wilson(correct: int, total: int) -> Optional[tuple[float, float]]:
    if not isinstance(correct, int) or not isinstance(total, int) or not 0 <= correct <= total or total == 0:
        return None
    from ..engine.toolbench import wilson_interval

    return wilson_interval(correct, total)


def tool_bench_chart(report: dict) -> Optional[str]:
    benches = [i for i in _items(report) if i.get("kind") == "tool_bench"
               and isinstance(i["envelope"].get("mutations"), list) and i["envelope"]["mutations"]]
    if not benches:
        return None
    shown = benches[:MAX_PANELS]

    def draw(fig):
        axes = fig.subplots(len(shown), 1, squeeze=False)[:, 0]
        for ax, item in zip(axes, shown):
            env = item["envelope"]
            base, intents = env.get("accuracy"), env.get("intents")
            muts = [m for m in env["mutations"] if isinstance(m, dict)][:MAX_BARS]
            labels = [_short(f"{m.get('tool')} {m.get('kind')}", 28) for m in muts]
            drops = [float(m["drop"]) if _number(m.get("drop")) else 0.0 for m in muts]
            low, high = [], []
            for m, drop in zip(muts, drops):
                ci = _wilson(m.get("correct"), intents) if _number(base) else None
                # the drop's range: baseline accuracy minus the mutated accuracy's Wilson interval
                low.append(max(0.0, drop - (base - ci[1])) if ci else 0.0)
                high.append(max(0.0, (base - ci[0]) - drop) if ci else 0.0)
            floor = env.get("min_drop") if _number(env.get("min_drop")) else None
            colours = [_HOLD if floor is None or d >= floor else _FAIL for d in drops]
            ax.bar(range(len(muts)), drops, yerr=[low, high], color=colours, capsize=3)
            ax.set_xticks(range(len(muts)), labels, rotation=20, ha="right", fontsize=7)
            if floor is not None:
                ax.axhline(floor, color=_MUTED, linestyle=":", label=f"min_drop {floor}")
                ax.legend(fontsize=7)
            ax.set_ylabel("accuracy drop")
            ax.set_title(_short(_name(item), 70) + " (95% Wilson interval)", fontsize=9)

    return _svg("tool-bench", draw, 2.6 * len(shown) + 0.4)


def catalog_chart(report: dict) -> Optional[str]:
    catalogs = [i for i in _items(report) if isinstance(i["envelope"].get("tools"), list)
                and any(isinstance(t, dict) and isinstance(t.get("score"), (int, float)) for t in i["envelope"]["tools"])]
    if not catalogs:
        return None
    shown = catalogs[:MAX_PANELS]
    panels = []
    for item in shown:
        tools = sorted((t for t in item["envelope"]["tools"] if isinstance(t, dict) and isinstance(t.get("score"), (int, float))),
                       key=lambda t: (t["score"], str(t.get("name"))))[:MAX_BARS]
        panels.append((item, tools))

    def draw(fig):
        axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
        for ax, (item, tools) in zip(axes, panels):
            critical = [bool(t.get("critical_count")) for t in tools]
            ax.barh(range(len(tools)), [t["score"] for t in tools],
                    color=[_FAIL if c else _HOLD for c in critical])
            ax.set_yticks(range(len(tools)), [_short(str(t.get("name")), 32) + (" (critical)" if c else "")
                                              for t, c in zip(tools, critical)], fontsize=7)
            ax.set_xlim(0, 1)
            ax.set_xlabel("quality score (red: a critical finding)")
            ax.set_title(_short(_name(item), 70), fontsize=9)

    height = sum(0.5 + 0.22 * len(tools) for _, tools in panels) + 0.6
    return _svg("catalog", draw, max(2.0, height))


def token_cost_chart(report: dict) -> Optional[str]:
    points = []
    for item in _items(report):
        te = item["envelope"].get("token_efficiency")
        if isinstance(te, dict) and isinstance(te.get("tokens_per_correct"), (int, float)):
            points.append((te["tokens_per_correct"], item["id"], item, te))
    if not points:
        return None
    points.sort(key=lambda p: (-p[0], p[1]))  # the costliest first
    shown = points[:MAX_BARS]

    def draw(fig):
        ax = fig.add_subplot()
        ax.barh(range(len(shown)), [p[0] for p in shown], color="C0")
        ax.set_yticks(range(len(shown)), [_short(_name(p[2]), 40) + f" [{p[3].get('grade', '?')}]" for p in shown],
                      fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("tool-surface tokens per correct selection (grade in brackets)")
        more = f" (the {len(shown)} costliest of {len(points)})" if len(points) > len(shown) else ""
        ax.set_title("token cost per correct selection" + more)

    return _svg("token-cost", draw, 0.9 + 0.25 * len(shown))


CHARTS: tuple[tuple[str, str, Callable[[dict], Optional[str]]], ...] = (
    ("pass-k", "pass^k per agent item", pass_k_chart),
    ("distractors", "Distractor ladder", distractor_chart),
    ("tool-bench", "Tool-bench drops per mutation", tool_bench_chart),
    ("catalog", "Catalog quality per tool", catalog_chart),
    ("token-cost", "Token cost per correct selection", token_cost_chart),
)


def render_charts(report: dict) -> Iterable[tuple[str, str, str]]:
    """``(id, title, svg)`` for every chart the report has data for, in a fixed order."""
    for chart_id, title, draw in CHARTS:
        svg = draw(report)
        if svg is not None:
            yield chart_id, title, svg

