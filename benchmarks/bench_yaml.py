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

With ``--others``, the readers that were weighed against it are timed too, where installed
(none is a dependency): ``yaml-rs`` and ``ryaml`` (Rust), and PyYAML's ``CSafeLoader``
alone (libyaml with PyYAML's own constructor: YAML 1.1, no lines), each with how many
files it reads to the same values as the loader (types included). None of them gives the
lines every item, ``expect:`` entry and error message needs.

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


def other_readers(texts: list[str]) -> dict:
    """The other readers that are installed, each checked against the loader's values first
    (printed: how many files each reads to the same values, types included)."""
    found = {}
    try:
        import yaml_rs

        found["yaml-rs"] = lambda _p, text: (lambda v: v if "\n---" in text else [v])(
            yaml_rs.loads(text, parse_datetime=False))
    except ImportError:
        pass
    try:
        import ryaml

        found["ryaml"] = lambda _p, text: ryaml.loads_all(text)
    except ImportError:
        pass
    import yaml

    found["CSafeLoader"] = lambda _p, text: list(yaml.load_all(text, Loader=yaml.CSafeLoader))

    def typed(value):
        if isinstance(value, dict):
            return {k: typed(v) for k, v in value.items()}
        if isinstance(value, list):
            return [typed(v) for v in value]
        return type(value).__name__, value

    for name, read in found.items():
        same = 0
        for text in texts:
            try:
                same += typed(read("x", text)) == typed([doc for doc, _ in read_with_libyaml("x", text)])
            except Exception:  # a reader that refuses a file reads it to no value
                pass
        print(f"  {name}: the same values as the loader in {same} of {len(texts)} files")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--others", action="store_true", help="also time yaml-rs, ryaml and CSafeLoader")
    parser.add_argument("--examples", action="store_true", help="read the example suites, not generated ones")
    args = parser.parse_args()
    if args.examples:
        examples = os.path.join(os.path.dirname(HERE), "examples")
        paths = sorted(os.path.join(d, n) for d, _, names in os.walk(examples) for n in names if n.endswith(".mcptest.yml"))
        texts = [open(p, encoding="utf-8").read() for p in paths]
        args.items = sum(text.count("\n  - name:") for text in texts)  # blocks, roughly: per-item figures
    else:
        with tempfile.TemporaryDirectory() as root:
            realistic.generate_mcptest(root, args.items, args.files)
            paths = sorted(os.path.join(root, n) for n in os.listdir(root) if n.endswith(".mcptest.yml"))
            texts = [open(p, encoding="utf-8").read() for p in paths]
    declined = sum(fastyaml.read(text) is None for text in texts)
    if declined and not args.examples:
        print(f"the fast reader declined {declined} of {len(texts)} generated files", file=sys.stderr)
        return 1
    lines = sum(text.count("\n") for text in texts)
    paths = {"libyaml": read_with_libyaml, "fast": lambda _path, text: fastyaml.read(text) or [],
             "load_documents": load_documents}
    if args.others:
        paths.update(other_readers(texts))
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
