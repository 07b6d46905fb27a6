"""Tool selection: equal-function-set F1 and the pass^k floor (the unbiased
pass^k estimator itself is in :mod:`.passk`, the id rules in :mod:`.toolid`).

Equal-function sets score *capabilities*, not exact tool ids: a class is a named
group of interchangeable tools, and reaching any member reaches the class. The
counting rule, per run:

- a class is a true positive when at least one observed call names one of its
  members (each class is consumed at most once, so calling two members of the
  same class, or one member twice, is still one true positive);
- a class no observed call names is a false negative;
- an observed call that names no member of any class is a false positive (every
  such call counts, so calling ``shell.exec`` twice is two false positives);
- a call that names a member of an already-consumed class is a repeat: it neither
  inflates nor penalizes.

A call that names a member of two overlapping classes reaches both: "the first
time an observed call names a member of that class" is read per class, which is
also what ``orchestration.discovery`` ("of the declared classes, the percent that
at least one trace call hit") needs, and it leaves no order-dependent greedy
choice to get wrong.

Member ids: a member with a dot (``brave.web_search``) is server-qualified and
matches only the call whose qualified id (``server.name``, or the bare ``name``
when the recording kept no server) equals it, so two servers exposing the same
tool name stay distinct. A member with no dot (``web_search``) matches that tool
on any server; it also matches a serverless call whose name was recorded
qualified (``brave.web_search``). A qualified member never matches a call whose
server is unknown and whose name is bare: the server cannot be proven.

Percents are integers 0..100 rounded half up (:func:`~.values.percent`): the rule "two
classes over three calls rounds efficiency to 67" rules out truncation, and the
same rounding is used by every gate so one number never rounds two ways. F1 is
computed from the counts (``2TP / (2TP + FP + FN)``), not from the two rounded
percents. No classes and no calls is vacuously 100 for all three; any other zero
denominator gives 0, never NaN.

Across runs the gate micro-averages: it sums TP, FP and FN over the runs and
derives the percents from the totals, so the aggregate is independent of run
order.
"""

from __future__ import annotations

import statistics
from typing import Any, Iterable, Optional, Sequence

import attrs

from .passk import pass_hat_k_curve
from .toolid import call_id, member_matches
from .trace import Run, ToolCall
from .values import percent

# --------------------------------------------------------------------------- selection F1


@attrs.frozen
class FunctionClass:
    """A named group of interchangeable tool ids; reaching any member reaches the class."""

    name: str
    members: tuple[str, ...] = attrs.field(converter=tuple)

    def hit_by(self, call: ToolCall) -> bool:
        return any(member_matches(m, call) for m in self.members)


def _distinct(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


@attrs.frozen
class RunSelection:
    """One run's counts, the classes it reached and missed, and its out-of-class calls."""

    true_positives: int
    false_positives: int
    false_negatives: int
    calls: int
    matched: tuple[str, ...]
    missed: tuple[str, ...]
    unexpected: tuple[str, ...]

    def to_dict(self) -> dict:
        return {
            "true_positives": self.true_positives,
            "false_positives": self.false_positives,
            "false_negatives": self.false_negatives,
            "calls": self.calls,
            "matched_classes": list(self.matched),
            "missed_classes": list(self.missed),
            "unexpected_tools": list(self.unexpected),
        }


def select_run(calls: Sequence[ToolCall], classes: Iterable[FunctionClass]) -> RunSelection:
    """Apply the counting rule to one run's calls."""
    classes = tuple(classes)  # counted and walked once per run
    hit = [False] * len(classes)
    fp = 0
    unexpected = []
    for call in calls:
        reached = [i for i, cls in enumerate(classes) if cls.hit_by(call)]
        if not reached:
            fp += 1
            unexpected.append(call_id(call))
        for i in reached:
            hit[i] = True
    tp = sum(hit)
    return RunSelection(
        true_positives=tp,
        false_positives=fp,
        false_negatives=len(classes) - tp,
        calls=len(calls),
        matched=tuple(c.name for c, h in zip(classes, hit) if h),
        missed=tuple(c.name for c, h in zip(classes, hit) if not h),
        unexpected=_distinct(unexpected),
    )


@attrs.frozen
class SelectionScore:
    """Micro-averaged precision, recall and F1 over one or more runs.

    ``missed`` names the classes missed in at least one run (declaration order) and
    ``unexpected`` the distinct out-of-class tool ids (first-seen order); ``per_run``
    keeps each run's own counts for the report.
    """

    precision: int
    recall: int
    f1: int
    true_positives: int
    false_positives: int
    false_negatives: int
    classes: tuple[str, ...]
    missed: tuple[str, ...]
    unexpected: tuple[str, ...]
    per_run: tuple[RunSelection, ...]

    @property
    def runs(self) -> int:
        return len(self.per_run)

    def to_dict(self) -> dict:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "true_positives": self.true_positives,
            "false_positives": self.false_positives,
            "false_negatives": self.false_negatives,
            "runs": self.runs,
            "missed_classes": list(self.missed),
            "unexpected_tools": list(self.unexpected),
            "per_run": [r.to_dict() for r in self.per_run],
        }

    def miss_lines(self) -> list[str]:
        """What a failure should name: the missed classes and the unexpected tools, per run
        when there is more than one run."""
        lines = []
        for i, r in enumerate(self.per_run, 1):
            where = f"run {i}: " if len(self.per_run) > 1 else ""
            if r.missed:
                lines.append(f"{where}missed class{'es' if len(r.missed) > 1 else ''} "
                             + ", ".join(f"`{m}`" for m in r.missed))
            if r.unexpected:
                lines.append(f"{where}unexpected tool{'s' if len(r.unexpected) > 1 else ''} "
                             + ", ".join(f"`{u}`" for u in r.unexpected))
        return lines


def selection_f1(runs: Sequence[Run], classes: Iterable[FunctionClass]) -> SelectionScore:
    """Score runs against the declared classes, micro-averaged across runs. No classes
    and no calls anywhere is vacuously 100/100/100.
    """
    classes = tuple(classes)  # counted and walked once per run
    per_run = tuple(select_run(run.tool_calls, classes) for run in runs)
    tp = sum(r.true_positives for r in per_run)
    fp = sum(r.false_positives for r in per_run)
    fn = sum(r.false_negatives for r in per_run)
    if not classes and all(r.calls == 0 for r in per_run) and per_run:
        precision = recall = f1 = 100
    else:
        precision, recall, f1 = percent(tp, tp + fp), percent(tp, tp + fn), percent(2 * tp, 2 * tp + fp + fn)
    return SelectionScore(
        precision=precision,
        recall=recall,
        f1=f1,
        true_positives=tp,
        false_positives=fp,
        false_negatives=fn,
        classes=tuple(c.name for c in classes),
        missed=tuple(c.name for c in classes if any(c.name in r.missed for r in per_run)),
        unexpected=_distinct(u for r in per_run for u in r.unexpected),
        per_run=per_run,
    )


# --------------------------------------------------------------------------- the tool_selection floor


def run_total_tokens(run: Run) -> Optional[int]:
    """``conversation.tokens.total`` of a run, or ``None`` when not recorded (absent is not zero)."""
    total = None if run.tokens is None else run.tokens.total
    if isinstance(total, bool) or not isinstance(total, (int, float)):
        return None
    return int(total) if float(total).is_integer() else total


@attrs.frozen
class FloorRun:
    """One run of a floor: did it select the tool, its tokens, and whether it counts for pass^k."""

    index: int
    selected: bool
    tokens: Optional[int]
    over_budget: bool
    unmetered: bool
    called: tuple[str, ...]
    task: Any = None
    trial: Optional[int] = None

    @property
    def passed(self) -> bool:
        return self.selected and not self.over_budget and not self.unmetered

    def to_dict(self) -> dict:
        out: dict = {"run": self.index, "selected": self.selected, "passed": self.passed}
        if self.tokens is not None:
            out["tokens"] = self.tokens
        out["over_budget"] = self.over_budget
        out["called"] = list(self.called)
        if self.task is not None:
            out["task"] = self.task
        if self.trial is not None:
            out["trial"] = self.trial
        return out


@attrs.frozen
class ToolSelectionFloor:
    """The ``tool_selection:`` floor over N runs.

    ``selection_rate`` and ``pass_k`` are fractions (the units of ``min_selection_rate``);
    ``pass_k`` counts a run only when it selected the tool AND stayed within
    ``max_total_tokens``. With a budget, a run with no recorded token count cannot be
    shown to be within it: it does not count for pass^k and fails the budget half of the
    floor (absent is never zero). ``tokens_median``/``tokens_max`` are over the runs that
    recorded a total, ``None`` when none did. ``pass_hat_k`` is the unbiased estimator
    for k = 1..runs with a run's success being the pass^k condition.
    """

    expected_tool: str
    min_selection_rate: float
    max_total_tokens: Optional[int]
    runs: tuple[FloorRun, ...]
    pass_hat_k: dict = attrs.field(eq=False)

    @property
    def selected(self) -> int:
        return sum(r.selected for r in self.runs)

    @property
    def passed_runs(self) -> int:
        return sum(r.passed for r in self.runs)

    @property
    def selection_rate(self) -> float:
        return self.selected / len(self.runs) if self.runs else 0.0

    @property
    def pass_k(self) -> float:
        return self.passed_runs / len(self.runs) if self.runs else 0.0

    @property
    def tokens_median(self):
        totals = [r.tokens for r in self.runs if r.tokens is not None]
        if not totals:
            return None
        median = statistics.median(totals)
        return int(median) if float(median).is_integer() else median

    @property
    def tokens_max(self):
        totals = [r.tokens for r in self.runs if r.tokens is not None]
        return max(totals) if totals else None

    @property
    def rate_ok(self) -> bool:
        return bool(self.runs) and self.selection_rate >= self.min_selection_rate

    @property
    def budget_ok(self) -> bool:
        return not any(r.over_budget or r.unmetered for r in self.runs)

    @property
    def passed(self) -> bool:
        return self.rate_ok and self.budget_ok

    def to_dict(self) -> dict:
        out: dict = {
            "expected_tool": self.expected_tool,
            "runs": len(self.runs),
            "selected": self.selected,
            "selection_rate": self.selection_rate,
            "pass_k": self.pass_k,
            "passed_runs": self.passed_runs,
            "min_selection_rate": self.min_selection_rate,
        }
        if self.max_total_tokens is not None:
            out["max_total_tokens"] = self.max_total_tokens
        if self.tokens_median is not None:
            out["tokens_median"] = self.tokens_median
            out["tokens_max"] = self.tokens_max
        out["pass_hat_k"] = {str(k): v for k, v in self.pass_hat_k.items()}
        out["passed"] = self.passed
        out["per_run"] = [r.to_dict() for r in self.runs]
        return out


def tool_selection_floor(
    runs: Sequence[Run],
    expected_tool: str,
    min_selection_rate: float,
    max_total_tokens: Optional[int] = None,
) -> ToolSelectionFloor:
    """Aggregate the ``tool_selection:`` floor over runs (Runs or dicts with ``tool_calls``
    and ``tokens``).

    A run selects the tool when any of its calls is named by ``expected_tool`` (the
    member rule: bare ids match any server, dotted ids one server). Runs are numbered
    from 1 in the order given. When runs carry a ``task``, ``pass_hat_k`` is the mean over
    tasks of each task's estimate (tau-bench's convention), for k up to the fewest trials.
    """
    rows = []
    for i, run in enumerate(runs, 1):
        calls = run.tool_calls
        tokens = run_total_tokens(run)
        budget = max_total_tokens is not None
        rows.append(FloorRun(
            index=i,
            selected=any(member_matches(expected_tool, c) for c in calls),
            tokens=tokens,
            over_budget=budget and tokens is not None and tokens > max_total_tokens,
            unmetered=budget and tokens is None,
            called=_distinct(call_id(c) for c in calls),
            task=run.task,
            trial=run.trial,
        ))
    tasks: dict = {}  # task -> [passed, runs]; runs that name no task are one task together
    for r in rows:
        count = tasks.setdefault(r.task, [0, 0])
        count[0] += r.passed
        count[1] += 1
    curve = pass_hat_k_curve([(c, n) for c, n in tasks.values()])
    return ToolSelectionFloor(
        expected_tool=expected_tool,
        min_selection_rate=min_selection_rate,
        max_total_tokens=max_total_tokens,
        runs=tuple(rows),
        pass_hat_k=curve,
    )
