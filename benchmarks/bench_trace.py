"""Trajectory matching at scale (issue 9, point 8): trace length against time.

Recorded traces of 10 .. 10,000 calls over 20 tool names, every call with its own
arguments (``{"id": i, "q": "q<i % 50>"}``), validated against expected traces that
exercise the one-to-one modes where a maximum bipartite matching is needed:

- ``unordered exact pass``: the recorded calls, shuffled, each with ``exact`` args;
- ``unordered exact fail``: the same with 1% of the expected calls changed so nothing fits
  them (each miss is explained with its closest recorded call);
- ``unordered all wrong fail``: no expected call fits (only the first 100 misses are
  explained with a closest call, see ``EXPLAINED_MISSES``);
- ``superset subset pass``: every call as a ``subset`` shape on ``q`` only (many expected
  calls fit many recorded ones: the matching has real choices to make);
- ``subset any fail``: mode ``subset`` with ``any`` args and one tool missing from the
  reference, so every call of that tool is refused;
- ``subsequence pass`` (every third call), ``subsequence fail`` (no call fits) and
  ``strict pass`` for reference.

The goal: every case of 10,000 calls in under 2 s, and no RecursionError at any length.
Best of ``--repeat`` runs per figure; ratios are time per call against the 10-call case.

A report, not a test: it prints figures with PASS/MISS and exits 0 (1 if a result is wrong).
    python benchmarks/bench_trace.py [--repeat 3] [--sizes 10,100,1000,2000,10000]
"""

from __future__ import annotations

import argparse
import random
import sys

from bench_catalog import best_of  # this folder is on sys.path when a script here runs
from pytest_mcptest.engine.trace import ToolCall
from pytest_mcptest.engine.trace_match import ExpectedCall, ExpectedTrace, validate_trace

GOAL_SECONDS = 2.0
GOAL_SIZE = 10_000
TOOLS = [f"tool_{t:02d}" for t in range(20)]


def recorded(n: int) -> list[ToolCall]:
    return [ToolCall(TOOLS[i % len(TOOLS)], {"id": i, "q": f"q{i % 50}"}) for i in range(n)]


def shuffled(calls: list, seed: int = 0) -> list:
    order = list(range(len(calls)))
    random.Random(seed).shuffle(order)
    return [calls[i] for i in order]


def cases(n: int):
    calls = recorded(n)
    exact = [ExpectedCall(c.name, "exact", c.args) for c in shuffled(calls)]
    broken = list(exact)
    for i in range(0, n, 100):  # 1% of them fit nothing
        broken[i] = ExpectedCall(broken[i].name, "exact", {"id": -1 - i, "q": "none"})
    wrong = [ExpectedCall(c.name, "exact", {"id": -1 - c.args["id"]}) for c in shuffled(calls)]
    shapes = [ExpectedCall(c.name, "subset", {"q": c.args["q"]}) for c in shuffled(calls, 1)]
    some_tools = [ExpectedCall(t) for t in TOOLS[1:]]
    yield "unordered exact pass", calls, ExpectedTrace("unordered", exact), True
    yield "unordered exact fail", calls, ExpectedTrace("unordered", broken), False
    yield "unordered all wrong fail", calls, ExpectedTrace("unordered", wrong), n == 0
    yield "superset subset pass", calls, ExpectedTrace("superset", shapes), True
    yield "subset any fail", calls, ExpectedTrace("subset", some_tools * (n // len(TOOLS) + 1)), n == 0
    yield "subsequence pass", calls, ExpectedTrace("subsequence", [
        ExpectedCall(c.name, "exact", c.args) for c in calls[::3]]), True
    yield "subsequence fail", calls, ExpectedTrace("subsequence", wrong), n == 0
    yield "strict pass", calls, ExpectedTrace("strict", [ExpectedCall(c.name, "exact", c.args)
                                                         for c in calls]), True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="10,100,1000,2000,10000")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    rows: dict[str, list[tuple[int, float]]] = {}
    wrong = []
    for n in sizes:
        for name, calls, expected, should_pass in cases(n):
            seconds, result = best_of(lambda: validate_trace(calls, expected), args.repeat)
            rows.setdefault(name, []).append((n, seconds))
            if result.passed is not should_pass:
                wrong.append(f"{name} at {n}: passed={result.passed}, expected {should_pass}")
    width = max(len(k) for k in rows)
    print(f"{'case':<{width}}  " + "  ".join(f"{n:>9}" for n in sizes) + "   per-call ratio (largest/smallest)  goal")
    status = []
    for name, figures in rows.items():
        cells = "  ".join(f"{s * 1000:>7.1f}ms" for _, s in figures)
        (n0, s0), (n1, s1) = figures[0], figures[-1]
        ratio = (s1 / n1) / (s0 / n0) if s0 > 0 else float("nan")
        at_goal = next((s for n, s in figures if n == GOAL_SIZE), None)
        verdict = "n/a" if at_goal is None else ("PASS" if at_goal < GOAL_SECONDS else "MISS")
        status.append(verdict)
        print(f"{name:<{width}}  {cells}   {ratio:>10.2f}x                        {verdict}")
    print(f"goal: {GOAL_SIZE:,} calls in under {GOAL_SECONDS:g} s per case; "
          f"{status.count('PASS')} PASS, {status.count('MISS')} MISS")
    for line in wrong:
        print("WRONG RESULT:", line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
