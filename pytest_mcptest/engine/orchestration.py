"""The five orchestration diagnostics of a name-free scenario.

A run can reach the right capability yet waste calls, call the right tool with
malformed arguments, or fail once and never recover. Each diagnostic is an integer
percent (rounded half up, :func:`~.selection.percent`) read from the recorded trace
and the declared equal-function classes, with no model in the loop:

- ``discovery``: the equal-function-set recall (:func:`~.selection.select_run`): of
  the declared classes, the percent at least one call hit. It is the selection
  recall exactly, so no classes and no calls is 100, no classes with calls is 0.
- ``parameterization``: of all calls, the percent whose args are a non-empty JSON
  object. Offline there are no argument schemas, so this is argument presence, not
  validity. An empty trace scores 100.
- ``syntax``: of all calls, the percent that are structurally well formed: a
  non-empty tool-name string paired with JSON-object args (``{}`` is well formed;
  missing or non-object args are not). An empty trace scores 100.
- ``error_recovery``: of the calls that returned an error, the percent followed
  later by a successful call to the same tool (same qualified id) or to a member of
  a class the failed call belongs to. No errors scores 100.
- ``efficiency``: the optimal path length (the number of declared classes) over the
  observed call count, capped at 100: two classes over three calls is 67. No
  declared classes scores 0; classes with an empty trace is a zero denominator and
  scores 0.

Across runs the count-based diagnostics pool their counts (micro-average, like the
selection F1): discovery over classes x runs, parameterization and syntax over all
calls, error_recovery over all errors; the empty-trace and no-error rules then apply
to the pooled counts. Efficiency is capped per run, so it cannot pool: it is the
mean of the per-run ratios, rounded once.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, Sequence

import attrs

from .selection import FunctionClass, select_run
from .toolid import call_id
from .trace import Run, ToolCall
from .values import percent

DIAGNOSTICS = ("discovery", "parameterization", "syntax", "error_recovery", "efficiency")


def parameterized(call: ToolCall) -> bool:
    """Args are a non-empty JSON object."""
    return isinstance(call.args, dict) and len(call.args) > 0


def well_formed(call: ToolCall) -> bool:
    """A non-empty tool-name string paired with JSON-object args; arguments that were not
    JSON in the log (kept as ``{"_raw": text}`` and flagged by the importer) are not."""
    return call.name != "" and isinstance(call.args, dict) and not call.args_invalid_json


@attrs.frozen
class RunOrchestration:
    """One run's diagnostics and the counts behind them; ``unrecovered`` holds the
    0-based indexes (as in ``tool_calls[i]``) of the failed calls never recovered."""

    discovery: int
    parameterization: int
    syntax: int
    error_recovery: int
    efficiency: int
    classes: int
    classes_hit: int
    calls: int
    parameterized_calls: int
    well_formed_calls: int
    errors: int
    recovered_errors: int
    unrecovered: tuple[int, ...]

    def to_dict(self) -> dict:
        out = attrs.asdict(self)
        out["unrecovered"] = list(self.unrecovered)
        return out


def _recovered(calls: Sequence[ToolCall], i: int, classes: tuple[FunctionClass, ...]) -> bool:
    failed = calls[i]
    failed_id = call_id(failed)
    its_classes = [c for c in classes if c.hit_by(failed)]
    for later in calls[i + 1:]:
        if later.error:
            continue
        if call_id(later) == failed_id or any(c.hit_by(later) for c in its_classes):
            return True
    return False


def orchestrate_run(calls: Sequence[ToolCall], classes: Iterable[FunctionClass]) -> RunOrchestration:
    """The five diagnostics of one run's calls against the classes."""
    classes = tuple(classes)
    calls = tuple(calls)
    n = len(calls)
    selection = select_run(calls, classes)
    hit = selection.true_positives
    if not classes:
        discovery = 100 if n == 0 else 0
    else:
        discovery = percent(hit, len(classes))
    params = sum(parameterized(c) for c in calls)
    formed = sum(well_formed(c) for c in calls)
    errors = [i for i, c in enumerate(calls) if c.error]
    unrecovered = tuple(i for i in errors if not _recovered(calls, i, classes))
    recovered = len(errors) - len(unrecovered)
    return RunOrchestration(
        discovery=discovery,
        parameterization=percent(params, n) if n else 100,
        syntax=percent(formed, n) if n else 100,
        error_recovery=percent(recovered, len(errors)) if errors else 100,
        efficiency=percent(min(len(classes), n), n) if classes and n else 0,
        classes=len(classes),
        classes_hit=hit,
        calls=n,
        parameterized_calls=params,
        well_formed_calls=formed,
        errors=len(errors),
        recovered_errors=recovered,
        unrecovered=unrecovered,
    )


@attrs.frozen
class Orchestration:
    """The five diagnostics over one or more runs (see the module docstring for pooling)."""

    discovery: int
    parameterization: int
    syntax: int
    error_recovery: int
    efficiency: int
    per_run: tuple[RunOrchestration, ...]

    def to_dict(self) -> dict:
        out = {name: getattr(self, name) for name in DIAGNOSTICS}
        out["runs"] = len(self.per_run)
        out["per_run"] = [r.to_dict() for r in self.per_run]
        return out


def orchestration(runs: Sequence[Run], classes: Iterable[FunctionClass]) -> Orchestration:
    """Score runs against the classes."""
    classes = tuple(classes)
    per_run = tuple(orchestrate_run(run.tool_calls, classes) for run in runs)
    if len(per_run) == 1:
        only = per_run[0]
        return Orchestration(only.discovery, only.parameterization, only.syntax, only.error_recovery,
                             only.efficiency, per_run)
    calls = sum(r.calls for r in per_run)
    errors = sum(r.errors for r in per_run)
    if not classes:
        discovery = 100 if per_run and calls == 0 else 0
    else:
        discovery = percent(sum(r.classes_hit for r in per_run), len(classes) * len(per_run))
    if classes and per_run:
        ratio = sum((Fraction(min(r.classes, r.calls), r.calls) if r.calls else Fraction(0) for r in per_run),
                    Fraction(0)) / len(per_run)
        efficiency = percent(ratio.numerator, ratio.denominator)
    else:
        efficiency = 0
    return Orchestration(
        discovery=discovery,
        parameterization=percent(sum(r.parameterized_calls for r in per_run), calls) if calls else 100,
        syntax=percent(sum(r.well_formed_calls for r in per_run), calls) if calls else 100,
        error_recovery=percent(sum(r.recovered_errors for r in per_run), errors) if errors else 100,
        efficiency=efficiency,
        per_run=per_run,
    )
