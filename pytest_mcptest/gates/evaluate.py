"""One block -> its gate -> results -> ``expect:`` -> verdict.

The pytest items and every ``mcptest`` command call :func:`evaluate`, so their verdicts
cannot drift. What is judged and how lives in the block's gate (``gates/<kind>.py``);
this module only opens the block's recording, asks the gate, and applies the
expectations, in one loop for every kind.
"""

from __future__ import annotations

import itertools
from typing import Optional

from .. import __version__
from .context import Context
from ..engine.trace import Run
from ..engine.expect import check
from . import gate, open_source
from .sources import NOTES, DryRun, RecordingUnavailable
from ..text import findings
from ..engine.verdict import AggregateVerdict, Failure, GateResult, RunVerdict, Verdict


MAX_HINTS = 10  # hints after a failed expectation (missed classes, runs that chose a distractor)
_NO_HINTS = itertools.repeat(())  # the block's own expectations come with none


def _expect(result: GateResult, block_expect: tuple, run: Optional[int]) -> tuple[tuple, tuple[Failure, ...]]:
    """Each expectation checked against the result's envelope: (results, the failures of
    those that failed, with the gate's hints after the message)."""
    checks = result.expect if result.expect is not None else zip(block_expect, _NO_HINTS)
    results, failures = [], []
    envelope = result.envelope
    for exp, hints in checks:
        res = check(exp, envelope)
        results.append(res)
        if not res.passed:
            message = res.message if res.message.startswith(exp.target) else f"{exp.target}: {res.message}"
            shown = tuple(hints[:MAX_HINTS]) + ((f"... and {len(hints) - MAX_HINTS} more",)
                                                 if len(hints) > MAX_HINTS else ())
            failures.append(Failure("expect", "; ".join((message,) + shown), run, exp.line))
    return tuple(results), tuple(failures)


def evaluate(block, ctx: Context = Context()) -> Verdict:
    """Evaluate ``block`` against its recording. Never raises for a user's bad data."""
    found = gate(block.kind)
    try:
        source = open_source(found, block, ctx)
        runs, summary = [], []
        judge_run = found.judge_run
        if judge_run is not None:
            total = len(source.items)
            for number, item in enumerate(source.items, start=1):
                result = judge_run(block, item, number, total, ctx)
                results, failed = _expect(result, block.expect, number)
                summary += result.summary
                # A gate's failures with no words of its own (a plugin's) read as "gate: message".
                lines = result.lines if result.lines or not result.failures else tuple(findings(result.failures))
                runs.append(RunVerdict(number, result.envelope, result.failures + failed, results, lines))
        aggregate = None
        judge_all = found.judge_all
        overall = judge_all(block, source, ctx, tuple(runs)) if judge_all is not None else None
        if overall is not None:
            results, failed = _expect(overall, block.expect, None)
            summary += overall.summary
            aggregate = AggregateVerdict(overall.envelope, overall.failures + failed, results, len(source.items),
                                         overall.replaces_runs)
        calibration = getattr(block, "calibration", None)  # judge_calibration: (gates/calibration.py)
        if calibration is not None and source.cassette is not None:
            from .calibration import fold, judge_calibration

            checked = judge_calibration(calibration, source.items, block.judged)
            if checked is not None:
                aggregate = fold(aggregate, *checked, len(source.items))
    except RecordingUnavailable as exc:
        return Verdict(block, exc.shown, problems=(Failure(exc.gate, exc.message),))
    except DryRun as exc:
        return Verdict(block, None, skipped=str(exc), summary=((NOTES, str(exc)),))
    if source.notes or source.said:
        summary += [(NOTES, note) for note in source.notes + source.said]
    cassette = source.cassette
    # The basis reads recorded runs; a gate judging other items (a conformance session) has its
    # cassette's meta alone.
    runs_judged = tuple([item for item in source.items if isinstance(item, Run)]) if cassette is not None else ()
    basis_of = (cassette.meta if cassette is not None else None, runs_judged, grading(block, ctx))
    return Verdict(block, source.shown, tuple(runs), source=source.head, aggregate=aggregate, summary=tuple(summary),
                   notes=source.notes, recorded_runs=cassette is not None, basis_of=basis_of,
                   infra_errors=source.infra_errors)


def grading(block, ctx: Context) -> dict:
    """The grading part of an item's basis (``engine/basis.py``): the mcptest that graded, and for
    an item a judge decides, whether verdicts were required and the judge's calibration."""
    out: dict = {"grading.mcptest": __version__}
    if getattr(block, "judged", ()):
        out["grading.require_judgments"] = ctx.require_judgments
        calibration = getattr(block, "calibration", None)
        if calibration is not None:
            out.update((f"grading.judge_calibration.{k}", v) for k, v in calibration.describe().items())
    return out
