"""How stable an agent is over repeated runs: pass^k per task, flaky tasks, the pass rate.

A run passes or fails on its own (the item's per-run gates decide); runs that carry a
``task`` are trials of that task, the others are trials of one task together. pass^k is
tau-bench's convention: for each task ``C(c, k) / C(n, k)`` (c passing trials of n), then
the mean over tasks, for k from 1 to the smallest number of trials any task has. A task
is flaky when some of its trials pass and some fail; the flip rate is the share of flaky
tasks. ICC(1) says how much of the runs' spread is between tasks rather than between
trials, and the minimal detectable effect how large a drop these runs could tell from
noise (tau2-bench's users found two single runs must differ by 7 to 11 points).
"""

from __future__ import annotations

import math
from typing import Hashable, Optional, Sequence

import attrs

from .passk import pass_hat_k_curve
from .power import design_effect, detectable_h, drop_for_h
from .stats import wilson_interval

ALL_RUNS = "(all runs)"  # the one task of runs that name none
ALPHA, POWER = 0.05, 0.8  # the minimal detectable effect's test


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

    @property
    def flip_rate(self) -> float:
        """The share of tasks whose trials disagree (some pass, some fail)."""
        return len(self.flaky_tasks) / len(self.tasks) if self.tasks else 0.0

    @property
    def icc(self) -> Optional[float]:
        """ICC(1) of the trials' pass/fail within tasks: near 1, a task's trials agree (the
        task decides); near 0, they are as mixed as runs of different tasks (luck decides)."""
        return icc_one([[1.0 if r in t.passed else 0.0 for r in t.runs] for t in self.tasks])

    @property
    def mde(self) -> Optional[float]:
        """The smallest drop of the pass rate (a fraction) that a rerun of the same size
        would detect at alpha 0.05 with power 0.8: two samples, normal approximation on
        Cohen's h, the runs discounted by the design effect of their ICC(1). None without
        a pass rate to drop from."""
        if not self.runs or not self.passed:
            return None
        trials = self.runs / len(self.tasks)
        effective = self.runs / design_effect(trials, self.icc or 0.0)
        return drop_for_h(self.passed / self.runs, detectable_h(effective, ALPHA, POWER))

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
            "flip_rate": _percent(self.flip_rate),
            "icc": None if self.icc is None else round(self.icc, 4),
            "mde": None if self.mde is None else _percent(self.mde),
            "per_task": [t.to_dict() for t in self.tasks],
        }


def _percent(fraction: float) -> float:
    return round(100 * fraction, 2)


def icc_one(groups: list[list[float]]) -> float | None:
    """ICC(1), one-way random effects, single measure: ``(MSB - MSW) / (MSB + (n0 - 1) MSW)``
    over ``groups`` (a task's trials each), with ``n0`` the usual average group size of
    unbalanced one-way ANOVA. None when it is undefined (fewer than two groups, no group
    with two trials, or no variation at all)."""
    groups = [g for g in groups if g]
    k = len(groups)
    total = sum(len(g) for g in groups)
    if k < 2 or total <= k:
        return None
    grand = math.fsum(math.fsum(g) for g in groups) / total
    ssb = math.fsum(len(g) * (math.fsum(g) / len(g) - grand) ** 2 for g in groups)
    ssw = math.fsum(math.fsum((x - math.fsum(g) / len(g)) ** 2 for x in g) for g in groups)
    msb, msw = ssb / (k - 1), ssw / (total - k)
    n0 = (total - sum(len(g) ** 2 for g in groups) / total) / (k - 1)
    denominator = msb + (n0 - 1) * msw
    if denominator == 0:
        return None
    return (msb - msw) / denominator


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
