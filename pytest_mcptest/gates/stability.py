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

import attrs

from ..suite.doc import Doc, expectations
from ..verdict import GateResult, RunVerdict


@attrs.frozen
class StabilityGate:
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
    return GateResult({"stability": result.to_dict()}, expect=tuple((e, _hints(result)) for e in gate.expect),
                      replaces_runs=True)


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
