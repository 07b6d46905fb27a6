"""``stability:`` on agent items and conversations: judge an item by how often its runs
pass, instead of requiring every run to pass.

A run passes when it passes the item's per-run gates (trajectory, golden path, per-run
``expect:``, which may read the run's ``meta``, e.g. ``meta.reward: {exact: 1}``). The
envelope's ``stability.*`` (pass^k per k as a percent, mean over tasks when runs carry
tasks; the pass rate with its Wilson interval; the flaky tasks) is gated by the block's
own ``stability.expect:``, which then replaces "every run must pass". Not a kind of its
own: :mod:`.agent` and :mod:`.conversation` declare it. Schema part: ``$defs/stability``.
"""

from __future__ import annotations

from typing import Optional, Sequence

import msgspec

from ..suite.doc import Doc, expectations
from ..engine.verdict import GateResult, RunVerdict


class StabilityGate(msgspec.Struct, frozen=True):
    """The floors over the runs' pass/fail, as ``expect:`` entries on ``stability.*``."""

    expect: tuple = ()


def build(doc: Doc, parts, raw: dict) -> Optional[StabilityGate]:
    gate = raw.get("stability")
    if gate is None:
        return None
    here = parts + ["stability"]
    expect = expectations(doc, here + ["expect"], gate.get("expect"))
    if not expect:  # no floor would make every outcome pass: refuse rather than pass silently
        raise doc.error(here, "stability: needs an expect: list, e.g. "
                        "[{stability.pass_hat_k.\"3\": {\">=\": 80}}]; it replaces \"every run must pass\"")
    return StabilityGate(expect)


def judge(gate: StabilityGate, runs: Sequence, verdicts: Sequence[RunVerdict]) -> GateResult:
    """pass^k, flaky tasks and the pass rate from each run's own verdict."""
    from ..engine.stability import stability

    result = stability([(run.task, verdict.passed) for run, verdict in zip(runs, verdicts)])
    data = result.to_dict()
    shown = {k: data[k] for k in ("pass_hat_k", "pass_rate", "pass_rate_low", "pass_rate_high", "runs",
                                  "passed_runs", "tasks", "flip_rate", "icc", "mde")}
    shown["flaky"] = len(data["flaky_tasks"])
    return GateResult({"stability": data}, expect=tuple((e, _hints(result)) for e in gate.expect),
                      summary=((STABILITY, shown),), replaces_runs=True)


def _hints(result) -> tuple[str, ...]:
    """What a failed floor should name: the flaky tasks and the tasks that never passed."""
    hints = []
    flaky = [t for t in result.tasks if t.flaky]
    never = [t for t in result.tasks if not t.passed]
    if flaky:
        hints.append("flaky: " + ", ".join(f"task {t.task} ({len(t.passed)}/{len(t.runs)})" for t in flaky[:10])
                     + (", ..." if len(flaky) > 10 else ""))
    if never:
        hints.append("never passed: " + ", ".join(f"task {t.task}" for t in never[:10])
                     + (", ..." if len(never) > 10 else ""))
    return tuple(hints)


# --------------------------------------------------------------------------- terminal summary

STABILITY = "stability"
CURVE_SHOWN = 5  # pass^k values on the line; the JSON report keeps the whole curve


def _section(entries: list) -> tuple[str, list[str]]:
    """Each ``stability:`` item, passing or not: its pass rate with the 95% Wilson interval, the
    pass^k curve (mean over tasks when runs name tasks), how many tasks are flaky, the flip
    rate, ICC(1) and the minimal detectable drop."""
    lines = []
    for nodeid, s in sorted(entries, key=lambda e: e[0]):
        curve = list(s["pass_hat_k"].items())
        shown = ", ".join(f"pass^{k} {_number(v)}" for k, v in curve[:CURVE_SHOWN])
        if len(curve) > CURVE_SHOWN:
            shown += f", ... pass^{curve[-1][0]} {_number(curve[-1][1])}"
        over = f" (mean over {s['tasks']} tasks)" if s["tasks"] > 1 else ""
        lines.append(f"{nodeid}: {s['passed_runs']} of {s['runs']} runs passed, {_number(s['pass_rate'])}% "
                     f"(95% CI {_number(s['pass_rate_low'])}-{_number(s['pass_rate_high'])}); {shown}{over}; "
                     f"{s['flaky']} flaky task{'' if s['flaky'] == 1 else 's'}{_noise(s)}")
    return f"mcptest: {STABILITY}", lines


def _noise(s: dict) -> str:
    """The flip rate, ICC(1) and the smallest drop these runs could detect, when known
    (summaries written before they existed lack them)."""
    if "flip_rate" not in s:
        return ""
    parts = [f"flip rate {_number(s['flip_rate'])}%"]
    if s.get("icc") is not None:
        parts.append(f"ICC(1) {s['icc']:.2f}")
    if s.get("mde") is not None:
        parts.append(f"detectable drop {_number(s['mde'])} points (alpha 0.05, power 0.8)")
    return "; " + ", ".join(parts)


def _number(value) -> str:
    return f"{value:g}"


SUMMARY_SECTIONS = {STABILITY: _section}
