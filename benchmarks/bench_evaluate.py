#!/usr/bin/env python
"""``evaluate()`` per item: what judging one realistic scenario costs, three ways.

Generates ``--items`` realistic scenarios (``realistic.py``: 30 to 40 lines each, a
10-call cassette of about 7 kB each) over ``--files`` suite files, collects them as a warm
session does (each file's suite cache written, then loaded from it), and times
``evaluate(block, ctx)`` per item:

- **cached**: the cassette already decoded and kept by the process: the same items, all
  replaying one shared cassette (``realistic.py``'s ``shared_cassette``), which the process
  parses once and keeps, as a session keeps a cassette it counted as shared. What is left is the replay, the envelope, ``expect:`` and the verdict.
  Blocks built beforehand.
- **parsed**: each item's cassette read from disk and decoded for it, nothing kept
  between items (as a cassette only one item replays is). Blocks built beforehand.
- **session**: inside a real warm ``python -m pytest -q`` session of the same suite, each
  item's ``evaluate()`` timed by a small plugin (``-p``) around the call pytest's item
  makes; the garbage collector, pytest's protocol between items and the building of each
  block from its cache entry are all as a user's run has them (the block's building is
  printed beside it, not counted in the figure).

The in-process figures are the best of ``--repeat`` passes over every item (the garbage
collector collected once after collection, then left on; the plugin pauses it only inside
each item's ``runtest``); the session figure is
the median of ``--sessions`` sessions. Goals (issue 15): at most 60, 100 and 150 us.
A report, not a test: it prints PASS or MISS beside each goal and exits 0 (1 only when the
benchmark is broken: an item did not pass).

    python benchmarks/bench_evaluate.py [--items 2000] [--files 20] [--repeat 5] [--sessions 3]
    python benchmarks/bench_evaluate.py --code /path/to/other/checkout   # time another version
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import realistic  # noqa: E402

GOALS = {"cached": 60.0, "parsed": 100.0, "session": 150.0}

# The plugin a timed session loads with -p: it wraps the evaluate() that pytest's item calls
# and the building of its block, and prints the sums when the process ends.
TIMER = '''\
import atexit, sys, time
_T = {"eval": 0.0, "block": 0.0, "n": 0}


def pytest_configure(config):
    from pytest_mcptest.plugin import collect
    evaluate, block = collect.evaluate, collect.BlockItem.block

    def timed_evaluate(*args):
        start = time.perf_counter()
        try:
            return evaluate(*args)
        finally:
            _T["eval"] += time.perf_counter() - start
            _T["n"] += 1

    def timed_block(item):
        start = time.perf_counter()
        try:
            return block.fget(item)
        finally:
            _T["block"] += time.perf_counter() - start

    collect.evaluate = timed_evaluate
    collect.BlockItem.block = property(timed_block)


@atexit.register
def _report():
    sys.stderr.write("BENCH-EVALUATE %d %.9f %.9f\\n" % (_T["n"], _T["eval"], _T["block"]))
'''


def collect(work: str) -> list:
    """Every item's built block, through the suite cache as a warm session reads it."""
    from pytest_mcptest.gates.suite_cache import collect_suite

    cache = os.path.join(work, ".bench-cache")
    os.makedirs(cache, exist_ok=True)
    blocks = []
    for name in sorted(os.listdir(work)):
        if name.endswith(".mcptest.yml"):
            path = os.path.join(work, name)
            collect_suite(path, cache)  # writes the cache entry
            suite = collect_suite(path, cache)  # reads it back
            blocks += [suite.block(i) for i in range(len(suite.heads))]
    return blocks


def shared_context(blocks: list, root: str):
    """The context a session gives items whose cassettes several of them replay: the plugin
    counts them at the end of collection (``shared_cassettes``) and keeps their parses."""
    from pytest_mcptest.gates.context import Context
    from pytest_mcptest.gates.sources import cassette_path

    ctx = Context(root=root)
    return ctx._replace(shared_cassettes=frozenset(cassette_path(block, ctx) for block in blocks))


def per_item(blocks: list, ctx, repeat: int) -> float:
    """Best pass over every block, in microseconds per item; every verdict must pass."""
    from pytest_mcptest.gates.evaluate import evaluate

    for block in blocks:  # the warm-up pass: imports, caches, and the check
        verdict = evaluate(block, ctx)
        if not verdict.passed:
            raise SystemExit(f"benchmark broken: {block.name} failed: {verdict.failures}")
    best = float("inf")
    clock = time.perf_counter
    for _ in range(repeat):
        start = clock()
        for block in blocks:
            evaluate(block, ctx)
        best = min(best, clock() - start)
    return best / len(blocks) * 1e6


def in_session(work: str, code: str, sessions: int) -> tuple[float, float, list[float]]:
    """Median us per item of evaluate() and of building the block inside warm sessions,
    and each session's evaluate() figure."""
    plugin_dir = os.path.join(work, ".bench-plugin")
    os.makedirs(plugin_dir, exist_ok=True)
    with open(os.path.join(plugin_dir, "bench_evaluate_timer.py"), "w", encoding="utf-8") as fh:
        fh.write(TIMER)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([plugin_dir, code]), PYTHONHASHSEED="0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "bench_evaluate_timer"]
    evals, builds = [], []
    for run in range(sessions + 1):  # the first writes the suite cache and bytecode
        # the verdicts a session kept are forgotten: every item is judged, as after a recording
        shutil.rmtree(os.path.join(work, ".pytest_cache", "d", "mcptest-verdicts"), ignore_errors=True)
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"benchmark broken: the session exited {proc.returncode}:\n{proc.stdout[-2000:]}")
        line = [x for x in proc.stderr.splitlines() if x.startswith("BENCH-EVALUATE ")][-1]
        n, ev, bl = line.split()[1:]
        if run:
            evals.append(float(ev) / int(n) * 1e6)
            builds.append(float(bl) / int(n) * 1e6)
    return statistics.median(evals), statistics.median(builds), evals


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--items", type=int, default=2000)
    p.add_argument("--files", type=int, default=20)
    p.add_argument("--repeat", type=int, default=5, help="passes per in-process figure (best is shown)")
    p.add_argument("--sessions", type=int, default=3, help="timed pytest sessions (median is shown)")
    p.add_argument("--code", default=os.path.dirname(HERE), help="the checkout whose pytest_mcptest is timed")
    p.add_argument("--workdir", help="generate here (must be absent or empty) and keep it")
    args = p.parse_args(argv)
    code = os.path.abspath(args.code)
    sys.path.insert(0, code)
    from pytest_mcptest.gates.context import Context

    work = args.workdir or tempfile.mkdtemp(prefix="mcptest-evaluate-")
    try:
        shared = os.path.join(work, "shared")
        realistic.generate_mcptest(work, args.items, args.files)
        realistic.generate_mcptest(shared, args.items, args.files, shared_cassette=True)
        os.chdir(work)
        blocks, shared_blocks = collect(work), collect(shared)
        gc.collect()
        figures = {
            "parsed": per_item(blocks, Context(root=work, shared_cassettes=frozenset()), args.repeat),
            "cached": per_item(shared_blocks, shared_context(shared_blocks, shared), args.repeat),
        }
        shutil.rmtree(shared)
        session, build, each = in_session(work, code, args.sessions)
        figures["session"] = session
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"evaluate() per item: {args.items:,} realistic scenarios in {args.files} files, "
          f"10-call cassettes; code {code}; load average {load:.1f}")
    print(f"{'figure':<10}{'us/item':>9}{'goal':>8}  verdict")
    for name in ("cached", "parsed", "session"):
        value, goal = figures[name], GOALS[name]
        print(f"{name:<10}{value:>9.0f}{'<= ' + format(goal, '.0f'):>8}  {'PASS' if value <= goal else 'MISS'}")
    print(f"session: each of {args.sessions}: {', '.join(f'{x:.0f}' for x in each)} us; "
          f"building the block {build:.0f} us more per item (not in the figure)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
