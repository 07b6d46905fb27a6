"""Which changes between two reports are real: paired tests over items, tasks and trials.

Two reports of the same suite pair up: an item by its id; inside an item with several
runs, a run by ``(task, trial)`` when its runs carry both (tau-bench's convention), by
its place among its task's runs when they carry a task only, else by its index. On
those pairs (tests in :mod:`.engine.paired`):

- ``pass rate``: when tasks have several trials, the per-task differences by a sign-flip
  permutation test (a task's trials move together, so the task is the unit: McNemar over runs
  flagged one in eight pairs of pure noise); else McNemar's exact test on the runs whose
  verdict changed;
- ``pass^k`` (runs with tasks, k the most trials both sides have): the per-task
  differences, by a sign-flip permutation test with a fixed seed;
- each per-run number (``runs[].tokens.total``, ``runs[].meta.reward``...): the paired
  t-test of the mean difference (of the tasks' mean differences, when tasks have trials);
- ``items passing``, over the whole suite: McNemar's exact test on the items whose
  outcome flipped between passed and failed.

Only tests with a change are counted (a test with none cannot be significant); their
p-values are adjusted together (Holm by default, Benjamini-Hochberg on request), and a
change is significant when its adjusted p is below alpha. Each test knows which way is
worse for its measure when the name says so (a pass rate, reward or F1 should rise;
tokens, cost or invalid actions should fall); the verdict leads with that.
"""

from __future__ import annotations

from typing import Any, Optional

from ..engine.paired import CORRECTION_NAMES, CORRECTIONS, RESAMPLES, SEED, bootstrap_interval, mcnemar_exact, paired_t, sign_flip_p
from ..engine.passk import pass_hat_k
from ..engine.paths import leaves
from ..text import plural

ALPHA = 0.05
SUITE = "(all items)"
_PAIR_KEYS = ("task", "trial")  # a run's own keys, not numbers to compare
_LOWER_BETTER = ("tokens", "token", "cost", "cost_micros", "invalid", "invalid_actions", "errors", "error",
                 "latency", "duration", "turns", "actions", "calls", "refusals", "escalations", "over_budget")
_HIGHER_BETTER = ("f1", "precision", "recall", "reward", "score", "pass_rate", "passed", "accuracy", "matched",
                  "selection_rate", "success")


def _direction(path: str) -> Optional[int]:
    """+1 when a rise is better, -1 when a fall is, None when the name does not say."""
    parts = [p for p in path.replace("[]", "").replace("[", ".").replace("]", "").split(".") if p]
    for part in reversed(parts):
        name = part.lower()
        if name in _HIGHER_BETTER:
            return 1
        if name in _LOWER_BETTER or name.endswith("_tokens"):
            return -1
    return None


def _runs(item: dict) -> Optional[list[dict]]:
    """Each run of an item with several: passed, task, trial and its numbers, or None."""
    verdicts = item.get("runs")
    envelope = item.get("envelope") or {}
    details = envelope.get("runs") if isinstance(envelope, dict) else None
    if not isinstance(verdicts, list) or len(verdicts) < 2:
        return None
    if not isinstance(details, list) or len(details) != len(verdicts):
        details = [{}] * len(verdicts)
    runs = []
    for verdict, detail in zip(verdicts, details):
        if not isinstance(verdict, dict) or not isinstance(verdict.get("passed"), bool):
            return None
        detail = detail if isinstance(detail, dict) else {}
        numbers = {path: value for path, value in leaves({k: v for k, v in detail.items() if k not in _PAIR_KEYS}).items()
                   if "[" not in path and isinstance(value, (int, float)) and not isinstance(value, bool)
                   and value == value}  # scalars of the run (tokens, cost, reward), not of its calls
        runs.append({"passed": verdict["passed"], "task": detail.get("task"), "trial": detail.get("trial"),
                     "numbers": numbers})
    return runs


def _keys(runs: list[dict], by_trial: bool = True) -> list:
    """The pairing key of each run: (task, trial), (task, n-th run of the task) or the index."""
    if by_trial and all(r["task"] is not None and r["trial"] is not None for r in runs):
        return [("task", repr(r["task"]), repr(r["trial"])) for r in runs]
    if all(r["task"] is not None for r in runs):
        seen: dict = {}
        keys = []
        for r in runs:
            seen[repr(r["task"])] = seen.get(repr(r["task"]), 0) + 1
            keys.append(("task", repr(r["task"]), seen[repr(r["task"])]))
        return keys
    return [("run", i) for i in range(len(runs))]


def _pairs(before: list[dict], after: list[dict]) -> list[tuple[Any, dict, dict]]:
    """Runs paired by key. Trials numbered apart on the two sides (trials 0-1 against
    2-3 of one batch) pair by their order within each task instead."""
    best: list = []
    for by_trial in (True, False):
        old = dict(zip(_keys(before, by_trial), before))
        new = dict(zip(_keys(after, by_trial), after))
        pairs = [(k, old[k], new[k]) for k in old if k in new]
        if len(pairs) > len(best):
            best = pairs
    return best


def _percent(value: float) -> float:
    return round(100 * value, 4)


def _number(value: float) -> float:
    return round(value, 10)


def _by_task(pairs) -> Optional[dict]:
    if not pairs or pairs[0][0][0] != "task":
        return None
    tasks: dict = {}
    for key, a, b in pairs:
        tasks.setdefault(key[1], []).append((a, b))
    return tasks


def _clustered(pairs) -> Optional[dict]:
    """The runs by task when the task must be the unit: several tasks, and some task with
    several trials. Trials of one task move together (a prompt change helps some tasks and
    hurts others), so a test that counts them as independent runs flags noise as change."""
    tasks = _by_task(pairs)
    if tasks is None or len(tasks) < 2 or all(len(g) == 1 for g in tasks.values()):
        return None
    return tasks


def _pass_rate(item_id: str, pairs) -> Optional[dict]:
    worse = sum(1 for _, a, b in pairs if a["passed"] and not b["passed"])
    better = sum(1 for _, a, b in pairs if not a["passed"] and b["passed"])
    if worse + better == 0:
        return None
    tasks = _by_task(pairs)
    groups = list(tasks.values()) if tasks is not None and len(tasks) > 1 else [[(a, b)] for _, a, b in pairs]
    diffs = [sum(b["passed"] - a["passed"] for a, b in g) / len(g) for g in groups]
    before = sum(sum(a["passed"] for a, _ in g) / len(g) for g in groups) / len(groups)
    after = sum(sum(b["passed"] for _, b in g) / len(g) for g in groups) / len(groups)
    low, high = bootstrap_interval(diffs)
    unit = f"{len(groups)} tasks" if tasks is not None and len(tasks) > 1 else plural(len(pairs), "run")
    counts = f"{worse} pass->fail, {better} fail->pass of {len(pairs)} paired runs"
    if _clustered(pairs) is not None:
        p, exact = sign_flip_p(diffs)
        how = "every sign pattern" if exact else f"{RESAMPLES} resamples, seed {SEED}"
        test, why = ("paired permutation over tasks (sign flip)",
                     f"the {len(groups)} tasks are the unit, since a task's trials move together ({how})")
    else:
        p, test = mcnemar_exact(worse, better), "McNemar exact"
        why = ("each task has one trial, so runs are the unit" if tasks is not None and len(tasks) > 1
               else "the runs carry no task, so each run is taken as independent")
    return {"id": item_id, "measure": "pass rate", "unit": "percent", "test": test,
            "pairs": len(pairs), "before": _percent(before), "after": _percent(after),
            "effect": _percent(after - before), "interval": [_percent(low), _percent(high)],
            "p": p, "direction": 1, "detail": f"{counts}; {why}; interval by bootstrap over {unit}"}


def _pass_k(item_id: str, pairs) -> Optional[dict]:
    tasks = _by_task(pairs)
    if tasks is None or len(tasks) < 2:
        return None
    k = min(len(g) for g in tasks.values())
    if k < 2:
        return None
    before = [pass_hat_k(sum(a["passed"] for a, _ in g), len(g), k) for g in tasks.values()]
    after = [pass_hat_k(sum(b["passed"] for _, b in g), len(g), k) for g in tasks.values()]
    diffs = [y - x for x, y in zip(before, after)]
    if not any(diffs):
        return None
    p, exact = sign_flip_p(diffs)
    low, high = bootstrap_interval(diffs)
    how = "every sign pattern" if exact else f"{RESAMPLES} resamples, seed {SEED}"
    return {"id": item_id, "measure": f"pass^{k}", "unit": "percent", "test": "paired permutation (sign flip)",
            "pairs": len(tasks), "before": _percent(sum(before) / len(before)),
            "after": _percent(sum(after) / len(after)), "effect": _percent(sum(diffs) / len(diffs)),
            "interval": [_percent(low), _percent(high)], "p": p, "direction": 1,
            "detail": f"{sum(1 for d in diffs if d)} of {len(tasks)} tasks changed; {how}; interval by bootstrap"}


def _numbers(item_id: str, pairs) -> list[dict]:
    """A paired t-test per number the runs carry: on the runs' differences, or, when a task's
    trials move together (see :func:`_clustered`), on each task's mean difference."""
    paths = sorted({p for _, a, _ in pairs for p in a["numbers"]} & {p for _, _, b in pairs for p in b["numbers"]})
    tasks = _clustered(pairs)
    groups = list(tasks.values()) if tasks is not None else [[(a, b)] for _, a, b in pairs]
    tests = []
    for path in paths:
        cells = [[(a["numbers"][path], b["numbers"][path]) for a, b in g
                  if path in a["numbers"] and path in b["numbers"]] for g in groups]
        cells = [c for c in cells if c]
        values = [v for c in cells for v in c]
        diffs = [sum(y - x for x, y in c) / len(c) for c in cells]
        if not any(diffs):
            continue
        result = paired_t(diffs)
        if result is None:
            continue
        mean, low, high, p = result
        unit = f"the mean of each of {len(cells)} tasks" if tasks is not None else f"{len(values)} paired runs"
        tests.append({"id": item_id, "measure": f"runs[].{path}", "unit": "number", "test": "paired t",
                      "pairs": len(values), "before": _number(sum(x for x, _ in values) / len(values)),
                      "after": _number(sum(y for _, y in values) / len(values)), "effect": _number(mean),
                      "interval": [_number(low), _number(high)], "p": p, "direction": _direction(path),
                      "detail": f"differences of {unit}"})
    return tests


def _suite(old: dict, new: dict) -> Optional[dict]:
    both = [(old[i].get("outcome"), new[i].get("outcome")) for i in sorted(set(old) & set(new))]
    both = [(a, b) for a, b in both if a in ("passed", "failed") and b in ("passed", "failed")]
    worse = sum(1 for a, b in both if a == "passed" and b == "failed")
    better = sum(1 for a, b in both if a == "failed" and b == "passed")
    if worse + better == 0 or len(both) < 2:
        return None
    before = sum(a == "passed" for a, _ in both) / len(both)
    after = sum(b == "passed" for _, b in both) / len(both)
    diffs = [(b == "passed") - (a == "passed") for a, b in both]
    low, high = bootstrap_interval(diffs)
    return {"id": SUITE, "measure": "items passing", "unit": "percent", "test": "McNemar exact",
            "pairs": len(both), "before": _percent(before), "after": _percent(after),
            "effect": _percent(after - before), "interval": [_percent(low), _percent(high)],
            "p": mcnemar_exact(worse, better), "direction": 1,
            "detail": f"{worse} passed->failed, {better} failed->passed of {len(both)} items; interval by bootstrap"}


def significance(current: dict, baseline: dict, alpha: float = ALPHA, correction: str = "holm") -> dict:
    """The paired tests of ``current`` against ``baseline``, adjusted together, and the
    verdict: ``regressed`` (some significant change is for the worse), ``improved`` (some
    for the better, none worse), ``changed`` (significant, direction unknown) or
    ``within noise``."""
    old = {i["id"]: i for i in baseline.get("items", [])}
    new = {i["id"]: i for i in current.get("items", [])}
    tests: list[dict] = []
    for item_id in sorted(set(old) & set(new)):
        before, after = _runs(old[item_id]), _runs(new[item_id])
        if before is None or after is None:
            continue
        pairs = _pairs(before, after)
        if len(pairs) < 2:
            continue
        tests += [t for t in (_pass_rate(item_id, pairs), _pass_k(item_id, pairs)) if t is not None]
        tests += _numbers(item_id, pairs)
    suite = _suite(old, new)
    if suite is not None:
        tests.append(suite)
    adjusted = CORRECTIONS[correction]([t["p"] for t in tests])
    for test, q in zip(tests, adjusted):
        test["p"] = _number(test["p"])
        test["p_adjusted"] = _number(q)
        test["significant"] = q < alpha
        sign = (test["effect"] > 0) - (test["effect"] < 0)
        test["change"] = ("changed" if test["direction"] is None
                          else "better" if sign * test["direction"] > 0 else "worse")
        del test["direction"]
    significant = [t for t in tests if t["significant"]]
    changes = {t["change"] for t in significant}
    verdict = ("regressed" if "worse" in changes else "improved" if "better" in changes
               else "changed" if changes else "within noise")
    return {"alpha": alpha, "correction": CORRECTION_NAMES[correction], "verdict": verdict, "tests": tests,
            "significant": len(significant),
            "regressions": sum(1 for t in significant if t["change"] == "worse")}


def _p(value: float) -> str:
    return f"{value:.3g}" if value >= 0.001 else f"{value:.2e}"


def _value(value: float, unit: str) -> str:
    return f"{value:g}%" if unit == "percent" else f"{value:g}"


def describe(test: dict) -> str:
    """One test on one line: where, what, before -> after, the effect with its 95% interval,
    the test and its p-values."""
    unit = test["unit"]
    points = " points" if unit == "percent" else ""
    low, high = test["interval"]
    return (f"{test['id']}  {test['measure']} {_value(test['before'], unit)} -> {_value(test['after'], unit)} "
            f"({test['effect']:+g}{points}, 95% CI {low:g} to {high:g}); {test['test']}, "
            f"p {_p(test['p'])}, adjusted {_p(test['p_adjusted'])} ({test['detail']})")


def verdict_lines(result: dict, every: bool = False) -> list[str]:
    """The verdict first, then the significant changes (``every``: all tests)."""
    tests = result["tests"]
    significant = [t for t in tests if t["significant"]]
    head = {"regressed": "REGRESSED", "improved": "IMPROVED", "changed": "CHANGED",
            "within noise": "WITHIN NOISE"}[result["verdict"]]
    if not tests:
        return [f"verdict: {head}: no paired measure changed (paired tests need items with several runs, "
                f"or items whose outcome flipped)"]
    worse = sum(1 for t in significant if t["change"] == "worse")
    better = sum(1 for t in significant if t["change"] == "better")
    split = (f" ({worse} worse, {better} better, {len(significant) - worse - better} of unknown direction)"
             if significant else "")
    lines = [f"verdict: {head}: {len(significant)} of {len(tests)} paired test{'s' if len(tests) != 1 else ''} "
             f"significant at alpha {result['alpha']:g}, {result['correction']}-corrected{split}"]
    for test in (tests if every else significant):
        mark = {"worse": "WORSE", "better": "BETTER", "changed": "CHANGED"}[test["change"]] if test["significant"] \
            else "noise"
        lines.append(f"  {mark} {describe(test)}")
    return lines
