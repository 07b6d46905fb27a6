"""Huge inputs against the bound of issue 9: under 10 s and 1 GB for any input under 50 MB.

Two cases, each generated in a fresh temporary folder (nothing big is committed) and run
as a user runs it, in its own process, timed by its wall clock, with its CPU time and its
peak resident memory (``wait4``'s ``ru_maxrss``, the child alone):

- ``200,000-call cassette + report``: an agent item whose one recorded run has 200,000
  tool calls (a 37 MB cassette), judged by ``pytest --mcptest-report`` (an unordered
  expected trace and an ``expect:`` over ``tool_names``);
- ``43 MB import``: ``mcptest import auto`` of a 43 MB OpenAI chat log (tau-bench's shape:
  a list of runs of 20 tool calls, arguments as JSON text).

A report, not a test: it prints figures with PASS/MISS and exits 0 (1 if a run failed).
The machine matters: the figures of a busy shared machine are slower (the 1-minute load
average is printed with them).
    python benchmarks/bench_bounds.py [--calls 200000] [--log-mb 43] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

GOAL_SECONDS = 10.0
GOAL_MB = 1024


def big_cassette(folder: str, calls: int) -> list[str]:
    """A suite with one agent item over a cassette of ``calls`` calls; the command to judge it."""
    run = [{"name": f"tool_{i % 50}", "server": "web", "args": {"q": f"query number {i}", "limit": i % 7},
            "error": False, "result": {"content": [{"type": "text", "text": f"result {i}"}]}, "turn": i}
           for i in range(calls)]
    cassette = {"mcptest_cassette": 1, "meta": {"agent": "big"}, "runs": [{
        "tool_calls": run, "conversation": {"turns": [{"role": "user", "content": "go"},
                                                      {"role": "assistant", "content": "done"}]}}]}
    with open(os.path.join(folder, "big.json"), "w") as fh:
        json.dump(cassette, fh)
    with open(os.path.join(folder, "pytest.ini"), "w") as fh:
        fh.write("[pytest]\n")
    with open(os.path.join(folder, "big.mcptest.yml"), "w") as fh:
        fh.write("agents:\n  - name: big\n    model: gpt-4o\n    servers: [web]\n    prompt: go\n"
                 "    cassette: big.json\n    expected_trace: {mode: unordered, calls: [tool_0, tool_1]}\n"
                 "    expect:\n      - tool_names: {contains: tool_3}\n")
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--mcptest-report", "report.json"]


def big_log(folder: str, megabytes: int) -> list[str]:
    """An OpenAI chat log of about ``megabytes`` MB; the command to import it."""
    target, parts, size, task = megabytes * 1024 * 1024, [], 2, 0
    while size < target:
        traj = [{"role": "system", "content": "You are an airline agent."},
                {"role": "user", "content": "Change my flight please."}]
        for k in range(20):
            call_id = f"call_{task}_{k}"
            traj.append({"role": "assistant", "content": None, "tool_calls": [{
                "id": call_id, "type": "function",
                "function": {"name": f"tool_{k % 7}", "arguments": json.dumps({"user_id": f"u{task}", "n": k})}}]})
            traj.append({"role": "tool", "tool_call_id": call_id, "name": f"tool_{k % 7}",
                         "content": json.dumps({"status": "ok", "rows": list(range(10))})})
        traj.append({"role": "assistant", "content": "Done, your flight is changed."})
        part = json.dumps({"task_id": task, "reward": 1.0, "trial": 0, "traj": traj})
        parts.append(part)
        size += len(part) + 2
        task += 1
    with open(os.path.join(folder, "log.json"), "w") as fh:
        fh.write("[" + ", ".join(parts) + "]")
    mcptest = os.path.join(os.path.dirname(sys.executable), "mcptest")
    return [mcptest, "import", "auto", "log.json", "-o", "imported.json"]


def measure(command: list[str], folder: str) -> tuple[float, float, float, int, str]:
    """(wall seconds, CPU seconds, peak MB, exit status, last line of output) of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    lines = out.decode("utf-8", "replace").strip().splitlines()
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode, lines[-1] if lines else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--log-mb", type=int, default=43)
    parser.add_argument("--keep", metavar="DIR", help="generate in DIR (absent or empty) and keep it")
    args = parser.parse_args()
    root = args.keep or tempfile.mkdtemp(prefix="bench-bounds-")
    os.makedirs(root, exist_ok=True)
    broken = False
    try:
        print(f"{'case':34} {'input':>9} {'wall':>8} {'cpu':>8} {'peak':>9}  goal (< {GOAL_SECONDS:.0f} s, < {GOAL_MB} MB)")
        for name, make, size in ((f"{args.calls:,}-call cassette + report", big_cassette, args.calls),
                                 (f"{args.log_mb} MB import", big_log, args.log_mb)):
            folder = os.path.join(root, make.__name__)
            os.makedirs(folder, exist_ok=True)
            command = make(folder, size)
            data = max((os.path.join(folder, f) for f in os.listdir(folder)), key=os.path.getsize)
            wall, cpu, peak, status, last = measure(command, folder)
            ok = wall < GOAL_SECONDS and peak < GOAL_MB
            print(f"{name:34} {os.path.getsize(data) / 2**20:7.1f}MB {wall:7.2f}s {cpu:7.2f}s {peak:7.0f}MB  "
                  f"{'PASS' if ok else 'MISS'}")
            if status != 0:
                broken = True
                print(f"    exit status {status}: {last}")
        print(f"load average (1 min) at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
