#!/usr/bin/env python
"""Benchmark: ``mcptest serve`` against ``mcptest mock``, and what ``mcptest verify`` adds.

1. A session of ``--calls`` sequential ``tools/call`` requests to ``mcptest mock`` (one
   catalog, one ``echo`` tool) is recorded through ``mcptest record``; then the same session
   is timed against ``mcptest mock`` and against ``mcptest serve`` of the recording. Goal: the
   median per call of serve within 1.5x of mock's.
2. Verifying that recording against ``mcptest mock`` is timed in this process (the SDK
   already loaded, as for the direct session), against a direct session that sends the same
   requests (the server's own time). Goal: verify costs at most 2 ms per call more.

Each figure is the best of ``--repeat``. It is a report, not a test: it exits 0 whether the
goals are met or missed, 1 only if the benchmark is broken.

    python benchmarks/bench_serve_verify.py            # 200 calls, best of 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_proxy import MANIFEST, session_times  # noqa: E402

SERVE_RATIO = 1.5
VERIFY_GOAL_MS = 2.0
CLI = [sys.executable, "-m", "pytest_mcptest.cli"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        manifest = os.path.join(tmp, "bench.yml")
        Path(manifest).write_text(MANIFEST)
        mock = [*CLI, "mock", "--tools-from", manifest]
        cassette = os.path.join(tmp, "bench.json")
        session_times([*CLI, "record", "--out", cassette, "--", *mock], args.calls, 0)
        serve = [*CLI, "serve", cassette]
        best = {"mock": None, "serve": None}
        for _ in range(args.repeat):
            for kind, command in (("mock", mock), ("serve", serve)):
                _, *times = session_times(command, args.calls, 0)
                median = statistics.median(times)
                best[kind] = median if best[kind] is None else min(best[kind], median)
        ratio = best["serve"] / best["mock"]
        print(f"{args.calls} sequential tools/call round trips, best median of {args.repeat}:")
        print(f"  mcptest mock   median {best['mock']:7.3f} ms")
        print(f"  mcptest serve  median {best['serve']:7.3f} ms")
        print(f"  serve / mock: x{ratio:.2f}, goal <= x{SERVE_RATIO}: {'PASS' if ratio <= SERVE_RATIO else 'MISS'}")

        from pytest_mcptest.mcp.recording import load_recording
        from pytest_mcptest.record.verify import verify

        recording = load_recording(cassette)
        direct, verified = None, None
        for _ in range(args.repeat):
            start = time.perf_counter()
            session_times(mock, args.calls, 0)
            took = time.perf_counter() - start
            direct = took if direct is None else min(direct, took)
            start = time.perf_counter()
            outcome = verify(recording, mock)
            took = time.perf_counter() - start
            if not outcome.ok:
                print(f"broken: verify found changes: {outcome.changes[:3]}", file=sys.stderr)
                return 1
            verified = took if verified is None else min(verified, took)
        added = (verified - direct) * 1000 / args.calls
        print(f"verify of a {args.calls}-call recording against mcptest mock, in process, best of {args.repeat}:")
        print(f"  direct session {direct:6.3f} s   verify {verified:6.3f} s (both include the server's start-up)")
        print(f"  added by verify: {added:.3f} ms per call, goal <= {VERIFY_GOAL_MS} ms: "
              f"{'PASS' if added <= VERIFY_GOAL_MS else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
