#!/usr/bin/env python
"""Opening a cassette with and without its decoded record kept (``formats/kept_parses.py``).

What a replaying item pays to open its cassette when its verdict cannot be reused (the
suite file was edited, an option changed, the verdicts were cleared): the file read, its
SHA-1 (what the verdict cache records), and either the JSON decoded (``json``) or the
record kept by an earlier session decoded from MessagePack (``kept``; only for a cassette of
``KEPT_FROM`` bytes or more, so the small one reads as JSON either way). ``first`` is the
session that makes the entries (one pass, JSON decoded and each entry written). Reads are
watched, as in a session with the verdict cache on. Two sizes of ``realistic.py``'s cassettes, the
benchmark's own (10 calls, about 7 kB) and a large one (``--runs`` runs of ``--calls`` calls
each, about 1.3 MB by default, the size of 40 tau-bench tasks imported). The best of
``--repeat`` passes, the two ways alternating; the goal, for a cassette large enough to be
kept, is that a kept parse is never slower (ratio <= 1.05, for noise). The small cassette
takes the same path either way: its ratio is shown, as this machine's noise, with no goal. A report, not a test: PASS or MISS beside the goal, exit 0.

    python benchmarks/bench_kept_parses.py [--repeat 15] [--files 200] [--runs 20] [--calls 110]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import realistic  # noqa: E402

from pytest_mcptest.formats.cassette import KEPT_FROM, load_cassette  # noqa: E402
from pytest_mcptest.formats.files import watch_reads  # noqa: E402


GOAL = 1.05  # for a cassette of KEPT_FROM bytes or more


def cassettes(folder: str, count: int, runs: int, calls: int) -> list[str]:
    os.makedirs(folder)
    paths = []
    for index in range(count):
        planned, _final = realistic.plan_calls(index, calls)
        path = os.path.join(folder, f"c{index:05d}.json")
        realistic._dump(path, realistic.cassette(index, planned, runs))
        paths.append(path)
    return paths


def best(paths: list[str], kept, repeat: int) -> float:
    """Microseconds per cassette, the best pass."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        with watch_reads():
            for path in paths:
                load_cassette(path, path, keep=False, kept=kept)
        times.append(time.perf_counter() - start)
    return min(times) / len(paths) * 1e6


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--files", type=int, default=200, help="small cassettes (the large case uses a tenth)")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--calls", type=int, default=110)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as root:
        cases = [("small", cassettes(os.path.join(root, "small"), args.files, 1, 10)),
                 ("large", cassettes(os.path.join(root, "large"), max(args.files // 10, 1), args.runs, args.calls))]
        kept = (os.path.join(root, "parsed"), "bench")
        print(f"{'cassette':<10}{'size':>10}{'json us':>12}{'first us':>12}{'kept us':>12}{'ratio':>8}"
              "   goal   verdict")
        for name, paths in cases:
            start = time.perf_counter()
            with watch_reads():
                for path in paths:  # the first session: JSON decoded, and the entry made when large enough
                    load_cassette(path, path, keep=False, kept=kept)
            first_us = (time.perf_counter() - start) / len(paths) * 1e6
            size = os.path.getsize(paths[0])
            json_us = kept_us = float("inf")
            for _ in range(3):  # the two ways alternating
                json_us = min(json_us, best(paths, None, args.repeat))
                kept_us = min(kept_us, best(paths, kept, args.repeat))
            ratio = kept_us / json_us
            verdict = (f"<= {GOAL:.2f} {'PASS' if ratio <= GOAL else 'MISS'}" if size >= KEPT_FROM
                       else "not kept: the same path, the ratio is noise")
            print(f"{name:<10}{size / 1024:>8.0f}kB{json_us:>12.1f}{first_us:>12.1f}{kept_us:>12.1f}{ratio:>8.2f}   "
                  + verdict)
    return 0


if __name__ == "__main__":
    sys.exit(main())
