"""What the paired tests of a comparison cost: `compare_reports` on tau-bench's published
runs (one item, 50 tasks x 4 trials) and on a suite of 200 agent items of 10 runs each.

Goal: a comparison adds well under a second to a session of the size of tau-bench's, and
stays within a few seconds for 200 multi-run items (the resampling is pure Python with a
fixed seed: 4,000 bootstrap and 10,000 permutation draws per test, see engine/paired.py).

A report, not a test: it prints figures with PASS/MISS and exits 0. CPU time in process,
best of three; the 1-minute load average is printed with them.
    python benchmarks/bench_compare.py
"""

from __future__ import annotations

import os
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))

from pytest_mcptest.report.document import compare_reports  # noqa: E402
from tau_reports import TAU, tau_report, ten_tasks_fail  # noqa: E402

GOALS = {"tau-bench 50x4": 1.0, "200 items x 10 runs": 5.0}


def many_items(items: int, runs: int, shift: int) -> dict:
    out = []
    for i in range(items):
        passed = [(i * 7 + r * 3 + shift * (r % 2)) % 5 != 0 for r in range(runs)]
        out.append({"id": f"s.mcptest.yml::item {i:03d}", "outcome": "passed", "envelope": {
            "runs": [{"conversation": {"tokens": {"total": 1000 + 37 * ((i + r + shift) % 11)}}} for r in range(runs)]},
            "failures": [], "runs": [{"name": f"item #{r + 1}", "passed": p} for r, p in enumerate(passed)]})
    return {"mcptest_report": 1, "items": out}


def best(function, rounds: int = 3) -> float:
    times = []
    for _ in range(rounds):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return min(times)


def main() -> int:
    cases = {
        "tau-bench 50x4": (tau_report(ten_tasks_fail(TAU["runs"])), tau_report(TAU["runs"])),
        "200 items x 10 runs": (many_items(200, 10, 1), many_items(200, 10, 0)),
    }
    print(f"load average {os.getloadavg()[0]:.2f}")
    for name, (current, baseline) in cases.items():
        seconds = best(lambda: compare_reports(current, baseline))
        tests = len(compare_reports(current, baseline)["significance"]["tests"])
        verdict = "PASS" if seconds <= GOALS[name] else "MISS"
        print(f"{name}: {seconds:.3f} s CPU for {tests} paired tests (goal <= {GOALS[name]:g} s) {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
