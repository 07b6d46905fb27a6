#!/usr/bin/env python
"""Reading suite YAML: libyaml's path against the fast reader (``suite/fastyaml.py``).

Generates ``--items`` realistic scenarios (``realistic.py``, 30 to 40 lines each) over
``--files`` suites, reads the texts once into memory, then for ``--repeat`` rounds times
each path reading every file, the order flipping every round:

==============  ==========================================================================
libyaml         ``read_with_libyaml``: libyaml's parser and the loader's constructor
fast            ``fastyaml.read``: the pure-Python reader of the common subset
load_documents  what collection calls: the bracket-depth check, then the fast reader
==============  ==========================================================================

Each round starts with the readers' caches emptied (the scalar tags, the fast reader's
lines and words), as in a fresh process, and with the garbage collector off, as
``load_documents`` has it. It prints each path's median CPU time per scenario (and
range), and the median of the rounds' ratios libyaml / fast. The goal (issue 15): at
least 3x, aim 5x.

A report, not a test: it exits 0, or 1 when the fast reader declines a generated file
(the benchmark would then not time what it says). Stdlib only, plus this package.

    python benchmarks/bench_yaml.py                            # 10,000 items, 100 files, 5 rounds
    python benchmarks/bench_yaml.py --items 2000 --files 20 --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import realistic  # noqa: E402

from pytest_mcptest.suite import fastyaml, yamlcore  # noqa: E402
from pytest_mcptest.suite.loader import load_documents, read_with_libyaml  # noqa: E402

GOAL = 3.0


def timed(read, texts: list[str]) -> float:
    """CPU seconds to read every text (steadier than the wall clock on a shared machine),
    from empty caches, the collector off."""
    yamlcore._TAGS.clear()
    fastyaml._SHAPES.clear()
    fastyaml._PLAIN_VALUES.clear()
    gc.collect()
    gc.disable()
    try:
        started = time.process_time()
        for text in texts:
            read("suite.mcptest.yml", text)
        return time.process_time() - started
    finally:
        gc.enable()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        realistic.generate_mcptest(root, args.items, args.files)
        paths = sorted(os.path.join(root, n) for n in os.listdir(root) if n.endswith(".mcptest.yml"))
        texts = [open(p, encoding="utf-8").read() for p in paths]
    declined = sum(fastyaml.read(text) is None for text in texts)
    if declined:
        print(f"the fast reader declined {declined} of {len(texts)} generated files", file=sys.stderr)
        return 1
    lines = sum(text.count("\n") for text in texts)
    paths = {"libyaml": read_with_libyaml, "fast": lambda _path, text: fastyaml.read(text),
             "load_documents": load_documents}
    times: dict[str, list[float]] = {name: [] for name in paths}
    for round_ in range(args.repeat):
        order = list(paths) if round_ % 2 == 0 else list(reversed(paths))
        for name in order:
            times[name].append(timed(paths[name], texts))
    print(f"{args.items:,} scenarios in {len(texts)} files ({lines:,} lines), median of {args.repeat} rounds, "
          f"load average {os.getloadavg()[0]:.2f}")
    for name, seconds in times.items():
        per = [s / args.items * 1e6 for s in seconds]
        print(f"  {name:<15} {statistics.median(per):7.1f} us CPU/scenario  (range {min(per):.1f} - {max(per):.1f})")
    ratios = [slow / fast for slow, fast in zip(times["libyaml"], times["fast"])]
    ratio = statistics.median(ratios)
    print(f"  libyaml / fast  {ratio:5.2f}x  (range {min(ratios):.2f} - {max(ratios):.2f}); "
          f"goal >= {GOAL:.0f}x: {'PASS' if ratio >= GOAL else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
