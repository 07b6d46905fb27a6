#!/usr/bin/env python
"""Benchmark: what ``mcptest record`` adds to each tool call and to start-up, against a direct session.

Starts a real server twice: once straight under an SDK ``ClientSession``, once behind
``mcptest record --out <tmp>``. Each session makes ``--warmup`` calls, then ``--calls``
sequential ``tools/call`` requests, timing each round trip, and the time from spawning the
command to a finished ``initialize`` is its start-up. The servers: ``mcptest mock`` (``echo``)
mcp-server-time (``convert_time``) and, where node is there, the reference server
``@modelcontextprotocol/server-everything`` (``echo``; found as ``mcp-server-everything`` on
the PATH, or given with ``--everything COMMAND``). Reports the median and p90 per call, the median
added latency (proxied minus direct) against the goal of at most 0.5 ms, and the added
start-up against the goal of at most 0.2 s. The two sessions alternate ``--repeat`` times
and the best median of each is kept, so a busy machine weighs on both.

It is a report, not a test: it exits 0 whether the goal is met or missed, and 1 only if
the benchmark is broken (a call failed, or the cassette does not hold every call).

    python benchmarks/bench_proxy.py              # 200 calls, best of 3
    python benchmarks/bench_proxy.py --json
    npm install @modelcontextprotocol/server-everything   # then, from that folder:
    python benchmarks/bench_proxy.py --everything node_modules/.bin/mcp-server-everything
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GOAL_MS = 0.5
GOAL_START_S = 0.2
MANIFEST = """\
mock_server:
  name: bench
  tools:
    - name: echo
      description: Echo the text back.
      input_schema: {type: object, properties: {text: {type: string}}}
      response: "you said ${args.text}"
"""


TIME_SERVER = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]
TIME_ARGS = {"source_timezone": "Europe/Paris", "time": "14:30", "target_timezone": "Asia/Tokyo"}


def session_times(command: list[str], calls: int, warmup: int, tool: str = "echo", args=None) -> list[float]:
    """Start-up (s, spawn to initialized) then the per-call round trips (ms) of ``calls``
    sequential tools/call requests on ``command``."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def run():
        params = StdioServerParameters(command=command[0], args=command[1:])
        with open(os.devnull, "w") as quiet:  # the proxy's one-line summary is not a figure
            return await timed(params, quiet)

    async def timed(params, errlog):
        begun = time.perf_counter()
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                times = [time.perf_counter() - begun]
                for i in range(warmup):
                    await session.call_tool(tool, args or {"text": f"w{i}"})
                for i in range(calls):
                    start = time.perf_counter()
                    result = await session.call_tool(tool, args or {"text": str(i)})
                    times.append((time.perf_counter() - start) * 1000)
                    if result.is_error:
                        raise SystemExit(f"call {i} failed: {result}")
        return times

    return anyio.run(run)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--everything", default=shutil.which("mcp-server-everything"),
                        help="command of @modelcontextprotocol/server-everything (default: on the PATH)")
    args = parser.parse_args(argv)
    servers = [("mcp-server-time convert_time", TIME_SERVER, "convert_time", TIME_ARGS)]
    if args.everything:
        servers.append(("server-everything echo", shlex.split(args.everything), "echo", {"message": "hello"}))
    else:
        print("server-everything not found (npm install @modelcontextprotocol/server-everything): skipped",
              file=sys.stderr)

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        manifest = os.path.join(tmp, "bench.yml")
        Path(manifest).write_text(MANIFEST)
        mock = [sys.executable, "-m", "pytest_mcptest.cli", "mock", "--tools-from", manifest]
        for label, server, tool, call_args in (("mcptest mock echo", mock, "echo", None), *servers):
            best = {"direct": None, "proxied": None}
            starts = {"direct": [], "proxied": []}
            for n in range(args.repeat):
                out = os.path.join(tmp, f"bench-{len(results)}-{n}.json")
                proxy = [sys.executable, "-m", "pytest_mcptest.cli", "record", "--out", out, "--", *server]
                for kind, command in (("direct", server), ("proxied", proxy)):
                    start, *times = session_times(command, args.calls, args.warmup, tool, call_args)
                    starts[kind].append(start)
                    if best[kind] is None or statistics.median(times) < statistics.median(best[kind]):
                        best[kind] = times
                with open(out, encoding="utf-8") as fh:
                    recorded = len(json.load(fh)["runs"][0]["tool_calls"])
                if recorded != args.calls + args.warmup:
                    print(f"broken: the cassette holds {recorded} calls, expected {args.calls + args.warmup}",
                          file=sys.stderr)
                    return 1
            results.append(_figures(label, best, starts, args))

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for result in results:
        direct, proxied = result["direct"], result["proxied"]
        print(f"{args.calls} sequential tools/call round trips to {result['server']}, best median of {args.repeat}:")
        print(f"  direct   median {direct['median_ms']:7.3f} ms   p90 {direct['p90_ms']:7.3f} ms   "
              f"start-up {result['start_direct_s']:.3f} s")
        print(f"  proxied  median {proxied['median_ms']:7.3f} ms   p90 {proxied['p90_ms']:7.3f} ms   "
              f"start-up {result['start_proxied_s']:.3f} s")
        print(f"  added by mcptest record: {result['added_median_ms']:.3f} ms per call at the median "
              f"(x{result['ratio']}), goal <= {GOAL_MS} ms: {'PASS' if result['met'] else 'MISS'}")
        print(f"  added start-up: {result['added_start_s']:.3f} s (best of {args.repeat}), goal <= {GOAL_START_S} s: "
              f"{'PASS' if result['start_met'] else 'MISS'}")
    return 0


def _figures(label: str, best: dict, starts: dict, args) -> dict:
    def figures(times):
        ordered = sorted(times)
        return {"median_ms": round(statistics.median(times), 3), "p90_ms": round(ordered[int(len(ordered) * 0.9)], 3)}

    direct, proxied = figures(best["direct"]), figures(best["proxied"])
    added = round(proxied["median_ms"] - direct["median_ms"], 3)
    added_start = round(min(starts["proxied"]) - min(starts["direct"]), 3)
    return {"server": label, "calls": args.calls, "repeat": args.repeat, "direct": direct, "proxied": proxied,
            "added_median_ms": added, "ratio": round(proxied["median_ms"] / direct["median_ms"], 2),
            "goal_ms": GOAL_MS, "met": added <= GOAL_MS, "start_direct_s": round(min(starts["direct"]), 3),
            "start_proxied_s": round(min(starts["proxied"]), 3), "added_start_s": added_start,
            "goal_start_s": GOAL_START_S, "start_met": added_start <= GOAL_START_S}


if __name__ == "__main__":
    sys.exit(main())
