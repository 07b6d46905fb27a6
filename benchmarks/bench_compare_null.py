"""How often `mcptest report --compare` calls noise a change, and how often it finds a real drop,
when a task's trials move together.

Simulated pairs of runs of one item: 30 tasks x 6 trials. Each task has its own chance of
success (logit normal around 60%); between the two runs each task's logit drifts by a normal
amount with standard deviation 1.0 (a prompt tweak helps some tasks and hurts others) and, in
the effect condition, falls by the shift that takes the mean pass rate down 12 points. Each pair
goes through the product's own `significance()` (the paired tests, Holm-corrected); a pair is
"flagged" when the verdict is anything but "within noise". The same pairs are also judged the way
compare did before it was task-aware (McNemar over runs, with pass^k, Holm), for comparison.

Goal: at most 5% of null pairs flagged at alpha 0.05 (with drift), and the power to find the
12-point drop within a few points of the run-level test's where trials are independent (no drift).

A report, not a test: it prints figures with the goal and PASS/MISS and exits 0.
    python benchmarks/bench_compare_null.py                  # 1,000 pairs per condition (about 10 minutes)
    python benchmarks/bench_compare_null.py --pairs 200      # a quicker look
"""

from __future__ import annotations

import argparse
import math
import random
import time

from pytest_mcptest.engine.paired import holm, mcnemar_exact
from pytest_mcptest.report.compare import _pairs, _pass_k, _runs, significance

TASKS, TRIALS, BASE, DROP = 30, 6, 0.6, 0.12


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def _shift_for(drop: float, logits: list[float]) -> float:
    """The logit shift that lowers the mean chance over ``logits`` by ``drop`` (bisection)."""
    target = sum(_sigmoid(x) for x in logits) / len(logits) - drop
    low, high = -10.0, 0.0
    for _ in range(60):
        mid = (low + high) / 2
        if sum(_sigmoid(x + mid) for x in logits) / len(logits) > target:
            high = mid
        else:
            low = mid
    return (low + high) / 2


def _report(chances: list[float], rng: random.Random) -> dict:
    runs, details = [], []
    for task, p in enumerate(chances):
        for trial in range(TRIALS):
            runs.append({"name": f"run {len(runs) + 1}", "passed": rng.random() < p})
            details.append({"task": f"t{task:02d}", "trial": trial})
    item = {"id": "sim.mcptest.yml::agent", "outcome": "passed", "failures": [], "runs": runs,
            "envelope": {"runs": details}}
    return {"mcptest_report": 1, "items": [item]}


def _pair(rng: random.Random, drift: float, effect: bool) -> tuple[dict, dict]:
    base = [rng.gauss(_logit(BASE), 1.0) for _ in range(TASKS)]
    moved = [x + rng.gauss(0.0, drift) for x in base]
    if effect:
        shift = _shift_for(DROP, moved)
        moved = [x + shift for x in moved]
    return _report([_sigmoid(x) for x in base], rng), _report([_sigmoid(x) for x in moved], rng)


def _run_level_flag(before: dict, after: dict, alpha: float) -> bool:
    """The verdict compare gave before it was task-aware: McNemar on runs and pass^k, Holm."""
    pairs = _pairs(_runs(before["items"][0]), _runs(after["items"][0]))
    worse = sum(1 for _, a, b in pairs if a["passed"] and not b["passed"])
    better = sum(1 for _, a, b in pairs if not a["passed"] and b["passed"])
    pvalues = [mcnemar_exact(worse, better)] if worse + better else []
    passk = _pass_k("x", pairs)
    if passk is not None:
        pvalues.append(passk["p"])
    return any(q < alpha for q in holm(pvalues))


def condition(pairs: int, drift: float, effect: bool, seed: int, alpha: float = 0.05) -> tuple[float, float]:
    """(share flagged by compare now, share flagged by the run-level test) over ``pairs``."""
    rng = random.Random(seed)
    ours = theirs = 0
    for _ in range(pairs):
        before, after = _pair(rng, drift, effect)
        ours += significance(after, before, alpha)["verdict"] != "within noise"
        theirs += _run_level_flag(before, after, alpha)
    return ours / pairs, theirs / pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261128)
    args = parser.parse_args()
    started = time.perf_counter()
    null_ours, null_runs = condition(args.pairs, 1.0, False, args.seed)
    drop_ours, drop_runs = condition(args.pairs, 0.0, True, args.seed + 1)
    drift_ours, drift_runs = condition(args.pairs, 1.0, True, args.seed + 2)
    print(f"{args.pairs} simulated pairs per condition, {TASKS} tasks x {TRIALS} trials, base {BASE:.0%}, "
          f"alpha 0.05, Holm ({time.perf_counter() - started:.0f} s)")
    print(f"  no change, task drift sd 1.0:    flagged {null_ours:6.1%} (run-level test {null_runs:6.1%})   "
          f"goal <= 5.0%   {'PASS' if null_ours <= 0.05 else 'MISS'}")
    print(f"  12-point drop, no drift:         flagged {drop_ours:6.1%} (run-level test {drop_runs:6.1%})   "
          f"goal >= run-level - 5 points   {'PASS' if drop_ours >= drop_runs - 0.05 else 'MISS'}")
    print(f"  12-point drop, task drift sd 1.0: flagged {drift_ours:6.1%} (run-level test {drift_runs:6.1%})   "
          f"(the run-level figure counts noise as power)")


if __name__ == "__main__":
    main()
