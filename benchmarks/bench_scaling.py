#!/usr/bin/env python
"""Scaling curves: does the cost per item, per call and per run stay flat as suites grow?

Prints one table per curve (the figures ``benchmarks/README.md`` quotes):

- items: whole ``pytest -q`` runs (suite cache warm) of N realistic scenarios in N/100
  files against N trivial Python tests, N in ``--items``; microseconds per item, the ratio,
  and each side's peak memory (``ru_maxrss`` of the child);
- layout: the same items as one file or as files of 10 (``--layout-items``), run and
  collect-only;
- cassette size: one scenario replaying a cassette of 10 to 10,000 calls, evaluated in this
  process (``evaluate()``, the cassette cache off), microseconds per call;
- runs per cassette: one scenario over a cassette of 1 to 100 runs of 10 calls, per run.

Trace length for unordered ``expected_trace`` matching (10 to 10,000 calls) is
``bench_trace.py``'s. Every figure is the best of ``--repeat``. A report, not a test: it
exits 0 whatever it finds (1 only when a generated suite does not pass).

    python benchmarks/bench_scaling.py                                  # the defaults below
    python benchmarks/bench_scaling.py --items 1000,10000,100000 --layout-items 10000
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import realistic  # noqa: E402
from bench_paired import clear_caches, session  # noqa: E402
from bench_scenarios import check_outcome  # noqa: E402


def best_session(cwd: str, collect: bool, items: int, repeat: int) -> dict:
    session(cwd, collect, True, None)  # writes the suite cache and bytecode: a warm run follows
    runs = []
    for _ in range(repeat):
        got = session(cwd, collect, True, None)
        check_outcome(cwd, got["code"], got["output"], items, collect)
        runs.append(got)
    return min(runs, key=lambda g: g["wall"])


def items_curve(work: str, sizes: list[int], repeat: int) -> list[str]:
    lines = ["items (warm run, whole sessions)",
             f"{'items':>8}{'files':>7}{'python us/item':>16}{'mcptest us/item':>17}{'ratio':>7}"
             f"{'python MiB':>12}{'mcptest MiB':>13}{'ratio':>7}"]
    for n in sizes:
        files = max(1, n // 100)
        mc, py = os.path.join(work, f"items-{n}", "mcptest"), os.path.join(work, f"items-{n}", "python")
        realistic.generate_mcptest(mc, n, files)
        realistic.generate_python(py, n, files)
        a, b = best_session(py, False, n, repeat), best_session(mc, False, n, repeat)
        lines.append(f"{n:>8,}{files:>7}{a['wall'] / n * 1e6:>16.0f}{b['wall'] / n * 1e6:>17.0f}"
                     f"{b['wall'] / a['wall']:>7.2f}{a['rss_mib']:>12.0f}{b['rss_mib']:>13.0f}"
                     f"{b['rss_mib'] / a['rss_mib']:>7.2f}")
        print(lines[-1], file=sys.stderr, flush=True)
        shutil.rmtree(os.path.join(work, f"items-{n}"), ignore_errors=True)
    return lines


def layout_curve(work: str, n: int, repeat: int) -> list[str]:
    lines = [f"layout: {n:,} items as one file or as files of 10 (warm, whole sessions)",
             f"{'layout':>16}{'run s':>8}{'collect s':>11}{'MiB':>6}"]
    for files, label in ((1, "1 file"), (max(1, n // 10), f"{max(1, n // 10):,} files")):
        mc = os.path.join(work, f"layout-{files}")
        realistic.generate_mcptest(mc, n, files)
        run, collect = best_session(mc, False, n, repeat), best_session(mc, True, n, repeat)
        lines.append(f"{label:>16}{run['wall']:>8.2f}{collect['wall']:>11.2f}{run['rss_mib']:>6.0f}")
        print(lines[-1], file=sys.stderr, flush=True)
        clear_caches(mc)
        shutil.rmtree(mc, ignore_errors=True)
    return lines


def _one_block(root: str, calls: int, runs: int):
    """One realistic scenario over a cassette of ``calls`` calls and ``runs`` runs, built."""
    from pytest_mcptest.gates.suite_build import load_suite

    realistic.generate_mcptest(root, 1, 1, calls=calls, runs=runs)
    suite = os.path.join(root, "shop_0000.mcptest.yml")
    with open(suite, encoding="utf-8") as fh:
        return load_suite(suite, fh.read()).blocks[0]


def _evaluate_best(block, repeat: int) -> float:
    from pytest_mcptest.gates.context import Context
    from pytest_mcptest.gates.evaluate import evaluate

    ctx = Context(shared_cassettes=frozenset())  # nothing kept parsed: every evaluation reads the file
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        verdict = evaluate(block, ctx)
        best = min(best, time.perf_counter() - start)
        assert verdict.passed, verdict.failures
    return best


def cassette_curve(work: str, sizes: list[int], repeat: int) -> list[str]:
    lines = ["cassette size: one scenario, evaluate() in process (read, decode, replay, expect)",
             f"{'calls':>8}{'ms':>9}{'us/call':>9}"]
    for calls in sizes:
        block = _one_block(os.path.join(work, f"calls-{calls}"), calls, 1)
        t = _evaluate_best(block, repeat)
        lines.append(f"{calls:>8,}{t * 1e3:>9.2f}{t / calls * 1e6:>9.1f}")
    return lines


def runs_curve(work: str, sizes: list[int], repeat: int) -> list[str]:
    lines = ["runs per cassette: one scenario, 10 calls a run, evaluate() in process",
             f"{'runs':>8}{'ms':>9}{'us/run':>9}"]
    for runs in sizes:
        block = _one_block(os.path.join(work, f"runs-{runs}"), 10, runs)
        t = _evaluate_best(block, repeat)
        lines.append(f"{runs:>8,}{t * 1e3:>9.2f}{t / runs * 1e6:>9.1f}")
    return lines


def _sizes(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--items", default="1000,2000,5000,10000", help="suite sizes for the items curve")
    p.add_argument("--layout-items", type=int, default=10000, help="items for one file vs files of 10")
    p.add_argument("--calls", default="10,100,1000,10000", help="cassette sizes")
    p.add_argument("--runs", default="1,10,100", help="runs per cassette")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--only", default="items,layout,cassette,runs", help="which curves, comma-separated")
    args = p.parse_args(argv)
    only = set(args.only.split(","))
    work = tempfile.mkdtemp(prefix="mcptest-scaling-")
    out: list[str] = []
    try:
        # The sessions first: on Linux a child's ru_maxrss starts at its parent's resident size,
        # so this process stays small (nothing of pytest_mcptest imported) until they are done.
        if "items" in only:
            out += items_curve(work, _sizes(args.items), args.repeat) + [""]
        if "layout" in only:
            out += layout_curve(work, args.layout_items, args.repeat) + [""]
        if "cassette" in only:
            out += cassette_curve(work, _sizes(args.calls), args.repeat) + [""]
        if "runs" in only:
            out += runs_curve(work, _sizes(args.runs), args.repeat) + [""]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus at the end")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
