#!/usr/bin/env python
"""The suite cache per item, whichever reader read the suites: bytes on disk and the time to
load a file's entry and build every block from it (what a warm run pays per item).

Generates ``--items`` realistic scenarios (``realistic.py``) over ``--files`` suites, caches
them once as read by the fast reader (``suite/fastyaml.py``) and once as read by libyaml's
path alone (the fast reader switched off), and prints for each the cache's bytes per item
and the median of ``--repeat`` rounds of CPU microseconds per item to load and build. Rules
are shared by value (``Doc.built_once``), so the two should agree.

A report, not a test: it exits 0. Stdlib only, plus this package.

    python benchmarks/bench_suite_cache.py --items 3000 --files 30
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import realistic  # noqa: E402

from pytest_mcptest.gates import suite_cache  # noqa: E402
from pytest_mcptest.suite import loader  # noqa: E402


def measure(paths: list[str], items: int, repeat: int) -> tuple[float, float]:
    """(bytes per item, median CPU us per item to load every entry and build every block)."""
    folder = tempfile.mkdtemp(prefix="mcptest-suite-cache-")
    for path in paths:
        suite_cache.collect_suite(path, folder)
    size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(folder, "*.pickle")))
    rounds = []
    for _ in range(repeat):
        started = time.process_time()
        for path in paths:
            collected = suite_cache.collect_suite(path, folder)
            for i in range(len(collected.heads)):
                collected.block(i)
            collected.let_go()
        rounds.append(time.process_time() - started)
    return size / items, statistics.median(rounds) / items * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--files", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="mcptest-suites-")
    realistic.generate_mcptest(root, args.items, args.files)
    paths = sorted(glob.glob(os.path.join(root, "*.mcptest.yml")))
    print(f"suite cache, {args.items:,} scenarios in {args.files} files, median of {args.repeat} rounds")
    fast = loader.read_fast
    for name, reader in (("fast reader", fast), ("libyaml", lambda text: None)):
        loader.read_fast = reader
        size, us = measure(paths, args.items, args.repeat)
        print(f"  read by {name:<12} {size:6.0f} B/item   load and build {us:5.1f} us CPU/item")
    loader.read_fast = fast
    return 0


if __name__ == "__main__":
    sys.exit(main())
