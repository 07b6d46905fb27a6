"""How stable an agent is over repeated runs: pass^k per task, flaky tasks, the pass rate.

A run passes or fails on its own (the item's per-run gates decide); runs that carry a
``task`` are trials of that task, the others are trials of one task together. pass^k is
tau-bench's convention: for each task ``C(c, k) / C(n, k)`` (c passing trials of n), then
the mean over tasks, for k from 1 to the smallest number of trials any task has. A task
is flaky when some of its trials pass and some fail.
"""

from __future__ import annotations

from typing import Hashable, Optional, Sequence

import attrs

from .passk import pass_hat_k_curve
from .stats import wilson_interval

ALL_RUNS = "(all runs)"  # the one task of runs that name none


@attrs.frozen
class TaskOutcome:
    """One task's trials: how many, how many passed, and which (by their 1-based run)."""

    task: Hashable
    runs: tuple[int, ...]
    passed: tuple[int, ...]

    @property
    def flaky(self) -> bool:
        return 0 < len(self.passed) < len(self.runs)

    def to_dict(self) -> dict:
        return {"task": self.task, "trials": len(self.runs), "passed": len(self.passed),
                "failed_runs": [r for r in self.runs if r not in self.passed]}


@attrs.frozen
class Stability:
    """pass^k per k (fractions, mean over tasks), the tasks, and the overall pass rate with
    its two-sided 95% Wilson interval."""

    pass_hat_k: dict
    tasks: tuple[TaskOutcome, ...]
    runs: int
    passed: int
    interval: tuple[float, float]

    @property
    def flaky_tasks(self) -> list:
        return [t.task for t in self.tasks if t.flaky]

    def to_dict(self) -> dict:
        """Percents, as the envelope shows them: ``pass_hat_k."3"``, ``pass_rate`` and the
        interval's ends, rounded to two decimals."""
        return {
            "pass_hat_k": {str(k): _percent(v) for k, v in self.pass_hat_k.items()},
            "pass_rate": _percent(self.passed / self.runs) if self.runs else 0.0,
            "pass_rate_low": _percent(self.interval[0]),
            "pass_rate_high": _percent(self.interval[1]),
            "runs": self.runs,
            "passed_runs": self.passed,
            "tasks": len(self.tasks),
            "flaky_tasks": self.flaky_tasks,
            "per_task": [t.to_dict() for t in self.tasks],
        }


def _percent(fraction: float) -> float:
    return round(100 * fraction, 2)


def stability(outcomes: Sequence[tuple[Optional[Hashable], bool]]) -> Stability:
    """``outcomes`` is each run's (task or None, passed), in run order; runs are numbered
    from 1. Tasks keep the order in which they first appear."""
    tasks: dict = {}
    for number, (task, ok) in enumerate(outcomes, start=1):
        runs, passed = tasks.setdefault(ALL_RUNS if task is None else task, ([], []))
        runs.append(number)
        if ok:
            passed.append(number)
    per_task = tuple(TaskOutcome(task, tuple(runs), tuple(passed)) for task, (runs, passed) in tasks.items())
    good = sum(len(t.passed) for t in per_task)
    total = len(outcomes)
    curve = pass_hat_k_curve([(len(t.passed), len(t.runs)) for t in per_task])
    return Stability(curve, per_task, total, good, wilson_interval(good, total))
