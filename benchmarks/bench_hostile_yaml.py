#!/usr/bin/env python
"""How long the suite reader takes to refuse (or decline) hostile YAML.

The tests check that these texts are refused with the right words; how fast belongs here.
Each case is timed over ``--repeat`` rounds (best round kept) and printed with its goal:

=======================  =====================================================  ========
billion laughs           9 levels of 9 aliases (9^9 nodes if expanded)          <= 2 s
bomb in a 2nd document   the same after a good document                          <= 2 s
recursive alias          a mapping that contains itself                          <= 2 s
pathological texts       deep nesting, 200,000-character lines and keys, ...     <= 5 s
=======================  =====================================================  ========

A report, not a test: it exits 0 whether a goal is met or not, 1 when a text is not
refused (the benchmark would then not time what it says).

    python benchmarks/bench_hostile_yaml.py
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from pytest_mcptest.errors import InputError
from pytest_mcptest.suite import fastyaml
from pytest_mcptest.gates.suite_build import load_suite


def billion_laughs(levels: int = 9, width: int = 9) -> str:
    lines = ["x-lol0: &lol0 [" + ", ".join(["lol"] * width) + "]"]
    for i in range(1, levels + 1):
        lines.append(f"x-lol{i}: &lol{i} [" + ", ".join([f"*lol{i - 1}"] * width) + "]")
    lines.append("scenarios:\n  - name: boom\n    seed: {payload: *lol%d}" % levels)
    return "\n".join(lines) + "\n"


def refused(text: str) -> None:
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, "bad.mcptest.yml")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        try:
            load_suite(path)
        except InputError:
            return
    raise SystemExit("a hostile text was not refused: the benchmark is broken")


def pathological() -> None:
    texts = ["".join(f"{' ' * i}-\n" for i in range(3000)), "a: " + "[" * 150 + "]" * 150 + "\n",
             "a: b" + " " * 200_000 + "c: d\n", "'" * 200_001 + ": 1\n", "a: " + "x " * 100_000 + ":\n",
             "k: [" + "a " * 100_000 + "\n"]
    for text in texts:
        if fastyaml.read(text) is not None:
            raise SystemExit("the fast reader accepted a pathological text: the benchmark is broken")


CASES = [
    ("billion laughs", lambda: refused(billion_laughs()), 2.0),
    ("bomb in a 2nd document", lambda: refused("scenarios:\n  - name: fine\n---\n" + billion_laughs()), 2.0),
    ("recursive alias", lambda: refused("scenarios:\n  - &a\n    name: x\n    seed: {loop: *a}\n"), 2.0),
    ("pathological texts", pathological, 5.0),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"best of {args.repeat} rounds, load average {os.getloadavg()[0]:.2f}")
    for name, case, goal in CASES:
        best = float("inf")
        for _ in range(args.repeat):
            started = time.perf_counter()
            case()
            best = min(best, time.perf_counter() - started)
        print(f"  {name:<24} {best:7.3f} s   goal <= {goal:.0f} s  {'PASS' if best <= goal else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
