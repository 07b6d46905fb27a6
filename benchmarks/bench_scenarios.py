#!/usr/bin/env python
"""Benchmark: what collecting and replaying ``*.mcptest.yml`` scenarios costs per item.

Generates N passing scenario items (each with its own cassette of C tool calls)
spread over F suite files, and the same number of trivial Python tests
(``def test_N(): pass``) over the same number of files, then times pytest on
both, each in a fresh subprocess:

- a full run (``pytest -q``) of each,
- ``--collect-only -q`` of each,
- an empty session with the plugin loaded and with ``-p no:mcptest``, to see
  what importing and configuring the plugin adds to every pytest start.

Each timing is the best (minimum) wall clock of ``--repeat`` runs. It prints
seconds per 1,000 items, the ratios mcptest/python and the goals from
``DESIGN.md`` ("Standards" -> Speed), with PASS or MISS. It is a report, not a
test: it exits 0 whether or not a goal is met, and non-zero only when a
generated suite does not pass or cannot be collected (then the benchmark itself
is broken).

Stdlib and pytest only. Usage::

    python benchmarks/bench_scenarios.py                       # 10,000 items, 100 files, best of 3
    python benchmarks/bench_scenarios.py --items 500 --files 10 --repeat 1
    python benchmarks/bench_scenarios.py --json                # the figures as JSON
    python benchmarks/bench_scenarios.py --keep --workdir /tmp/bench   # keep the suites to profile
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import resource
except ImportError:  # pragma: no cover - not on Windows
    resource = None

GOALS = {
    "run_ratio": 1.0,          # mcptest run per item <= python run per item
    "collect_ratio": 0.75,     # mcptest collect-only per item <= 0.75 x python's
    "import_overhead_s": 0.1,  # loading the plugin adds at most 0.1 s to a session
}

INI = "[pytest]\n# written by benchmarks/bench_scenarios.py: keeps the repository's config out\n"

# The session's plugins: the same for every timed run, pytest's cache included (the suite
# cache lives in it). Environment variables that would add options or plugins to a run are
# dropped so that the comparison is fair.
BASE_ARGS = ["-q"]
# PYTHONDONTWRITEBYTECODE is dropped too: a user's second run finds the bytecode
# of the plugin and of their test modules cached, and that steady state is what we
# compare (with it set, every session would compile the plugin from source again).
DROP_ENV = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_CURRENT_TEST",
            "PYTHONDONTWRITEBYTECODE")


# --------------------------------------------------------------------------- generation

TOOLS_CYCLE = ("add_widget", "restock", "remove_widget")


def _plan_calls(index: int, calls: int) -> tuple[list[dict], dict]:
    """The recorded calls of scenario ``index`` and the final state they lead to.

    The first ``calls - 1`` calls cycle through add / restock / remove (every guard
    holds), the last one marks the shelf full; the final state is worked out here
    so that ``expect_state`` holds.
    """
    widgets = index % 7
    gadgets = 1
    out = []
    for i in range(calls - 1):
        tool = TOOLS_CYCLE[(i + index) % len(TOOLS_CYCLE)]
        if tool == "remove_widget" and widgets < 1:
            tool = "add_widget"
        if tool == "add_widget":
            widgets += 1
            args = {"sku": f"W-{index}-{i}", "qty": 1}
        elif tool == "restock":
            widgets += 2
            gadgets += 1
            args = {"supplier": "acme", "lot": f"L{index:05d}{i:03d}", "n": 2}
        else:
            widgets -= 1
            args = {"sku": f"W-{index}-{i}", "reason": "damaged in transit"}
        out.append({"name": tool, "server": "shop", "args": args, "error": False,
                    "result": {"content": [{"type": "text", "text": f"ok: {widgets} widgets"}]}, "turn": 0})
    out.append({"name": "mark_full", "server": "shop", "args": {"by": "agent", "note": f"shelf {index} done"},
                "error": False, "result": {"content": [{"type": "text", "text": "shelf marked full"}]}, "turn": 0})
    return out, {"widgets": widgets, "gadgets": gadgets}


def _cassette(index: int, calls: list[dict]) -> dict:
    prompt = f"Restock shelf {index} with widgets until it is full, then mark it full."
    return {
        "mcptest_cassette": 1,
        "meta": {"agent": f"restock shelf {index}", "model": "claude-sonnet-4-5", "prompt": prompt,
                 "recorded_at": "2026-01-01T00:00:00Z", "recorder": "benchmarks/bench_scenarios.py"},
        "runs": [{
            "tool_calls": calls,
            "conversation": {
                "turns": [
                    {"role": "user", "content": prompt},
                    {"role": "assistant", "content": f"I restocked shelf {index} and marked it full."},
                ],
                "tokens": {"input": 1200 + index % 100, "output": 320, "total": 1520 + index % 100},
            },
            "cost_micros": 4200,
        }],
    }


def _scenario_yaml(index: int, cassette_rel: str, calls: list[dict], final: dict) -> str:
    names = ", ".join(c["name"] for c in calls)
    lines = [
        f"  - name: restock shelf {index}",
        f"    cassette: {cassette_rel}",
        "    seed:",
        f"      inventory: {{widgets: {index % 7}, gadgets: 1}}",
        "      shelf_full: false",
        "      status: open",
        "    transitions:",
        "      - tool: add_widget",
        "        when: {shelf_full: false}",
        "        effect:",
        "          inventory.widgets: {inc: 1}",
        "      - tool: restock",
        "        when:",
        "          status: {eq: open}",
        "        effect:",
        "          inventory.widgets: {inc: 2}",
        "          inventory.gadgets: {inc: 1}",
        "      - tool: remove_widget",
        "        when:",
        "          inventory.widgets: {min: 1}",
        "        effect:",
        "          inventory.widgets: {dec: 1}",
        "      - tool: mark_full",
        "        effect:",
        "          shelf_full: {set: true}",
        "          status: closed",
        "    forbidden:",
        "      - tool: drop_inventory",
        "        reason: destructive bulk delete is never allowed",
        "    golden:",
        f"      calls: [{names}]",
        "    expect_state:",
        f"      inventory.widgets: {final['widgets']}",
        f"      inventory.gadgets: {final['gadgets']}",
        "      shelf_full: true",
        "    expect:",
        "      - target: invalid_actions",
        "        matcher: {exact: 0}",
        "      - golden.matched: {exact: true}",
    ]
    if index % 2 == 0:
        lines.append("      - tool_calls[-1].name: {exact: mark_full}")
    return "\n".join(lines) + "\n"


def _spread(items: int, files: int) -> list[int]:
    """How many items go into each file: as even as possible, in file order."""
    base, extra = divmod(items, files)
    return [base + (1 if f < extra else 0) for f in range(files)]


def generate_mcptest(root: str, items: int, files: int, calls: int) -> None:
    os.makedirs(os.path.join(root, "cassettes"))
    with open(os.path.join(root, "pytest.ini"), "w", encoding="utf-8") as fh:
        fh.write(INI)
    index = 0
    for f, count in enumerate(_spread(items, files)):
        parts = ["# generated by benchmarks/bench_scenarios.py\nscenarios:\n"]
        for _ in range(count):
            rel = f"cassettes/f{f:04d}_s{index:06d}.json"
            planned, final = _plan_calls(index, calls)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as fh:
                json.dump(_cassette(index, planned), fh, indent=1)
            parts.append(_scenario_yaml(index, rel, planned, final))
            index += 1
        with open(os.path.join(root, f"shop_{f:04d}.mcptest.yml"), "w", encoding="utf-8") as fh:
            fh.write("".join(parts))


def generate_python(root: str, items: int, files: int) -> None:
    os.makedirs(root)
    with open(os.path.join(root, "pytest.ini"), "w", encoding="utf-8") as fh:
        fh.write(INI)
    index = 0
    for f, count in enumerate(_spread(items, files)):
        body = []
        for _ in range(count):
            body.append(f"def test_{index}():\n    pass\n")
            index += 1
        with open(os.path.join(root, f"test_{f:04d}.py"), "w", encoding="utf-8") as fh:
            fh.write("\n\n".join(body))


def generate_empty(root: str) -> None:
    os.makedirs(root)
    with open(os.path.join(root, "pytest.ini"), "w", encoding="utf-8") as fh:
        fh.write(INI)


# --------------------------------------------------------------------------- running


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in DROP_ENV}
    env["PYTHONHASHSEED"] = "0"
    return env


def _child_cpu() -> float:
    if resource is None:
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


CPU: dict[str, list[float]] = {}


def run_pytest(cwd: str, extra: list[str]) -> tuple[float, float, int, str]:
    """One pytest session in a subprocess: (wall seconds, cpu seconds, exit code, output)."""
    cmd = [sys.executable, "-m", "pytest", *BASE_ARGS, *extra]
    cpu0 = _child_cpu()
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=False)
    elapsed = time.perf_counter() - start
    return elapsed, _child_cpu() - cpu0, proc.returncode, proc.stdout


class BenchFailure(Exception):
    """A generated suite did not pass or collect as expected: the benchmark is broken."""


def _tail(output: str, lines: int = 40) -> str:
    return "\n".join(output.rstrip().splitlines()[-lines:])


def check_outcome(label: str, code: int, output: str, items: int, collect: bool) -> None:
    if code != 0:
        raise BenchFailure(f"{label}: pytest exited {code} (expected 0)\n{_tail(output)}")
    summary = output.rstrip().splitlines()[-1] if output.strip() else ""
    if collect:
        m = re.search(r"(\d+) tests? collected", summary)
        got = int(m.group(1)) if m else None
        if got != items:
            raise BenchFailure(f"{label}: expected {items} items collected, summary says: {summary!r}\n{_tail(output)}")
    else:
        m = re.search(r"(\d+) passed", summary)
        got = int(m.group(1)) if m else None
        bad = re.search(r"\b(failed|error|errors|skipped|xfailed|xpassed)\b", summary)
        if got != items or bad:
            raise BenchFailure(f"{label}: expected {items} passed and nothing else, summary says: {summary!r}\n"
                               f"{_tail(output)}")


def timed(label: str, cwd: str, extra: list[str], items: int | None, collect: bool,
          expect_code: int = 0, key: str | None = None) -> float:
    """Run one session, check its outcome, return its wall time (its cpu time goes to CPU[key])."""
    seconds, cpu, code, output = run_pytest(cwd, extra)
    if key is not None:
        CPU.setdefault(key, []).append(cpu)
    if items is None:
        if code != expect_code:
            raise BenchFailure(f"{label}: pytest exited {code} (expected {expect_code})\n{_tail(output)}")
    else:
        check_outcome(label, code, output, items, collect)
    return seconds


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- the report


def figures(args, best: dict, cpu: dict) -> dict:
    """The report: per-1,000-item costs, ratios, goals. ``best`` and ``cpu`` map a session to seconds."""
    n = args.items
    per_k = lambda s: s / n * 1000.0  # noqa: E731

    def compare(mc: str, py: str, goal: float) -> dict:
        ratio = best[mc] / best[py]
        # Net of what an empty session costs (interpreter, pytest and plugin start-up):
        # closer to the per-item cost alone. Informational; the goal is on whole sessions.
        base = best["empty_plugin"]
        net_mc, net_py = max(best[mc] - base, 0.0), max(best[py] - base, 0.0)
        return {"mcptest_s_per_1000": round(per_k(best[mc]), 4), "python_s_per_1000": round(per_k(best[py]), 4),
                "ratio": round(ratio, 3), "goal": goal, "met": ratio <= goal,
                "net_of_startup": {"mcptest_s_per_1000": round(per_k(net_mc), 4),
                                   "python_s_per_1000": round(per_k(net_py), 4),
                                   "ratio": round(net_mc / net_py, 3) if net_py > 0 else None},
                "cpu_ratio": round(cpu[mc] / cpu[py], 3) if cpu.get(py) else None}

    overhead = best["empty_plugin"] - best["empty_no_plugin"]
    return {
        "items": n, "files": args.files, "calls": args.calls, "repeat": args.repeat,
        "import_repeat": args.import_repeat,
        "python": sys.version.split()[0], "pytest": _pytest_version(), "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "seconds": {k: round(v, 4) for k, v in best.items()},
        "cpu_seconds": {k: round(v, 4) for k, v in cpu.items()},
        "run": compare("mcptest_run", "python_run", GOALS["run_ratio"]),
        "collect_only": compare("mcptest_collect", "python_collect", GOALS["collect_ratio"]),
        "import_overhead": {"seconds": round(overhead, 4), "goal": GOALS["import_overhead_s"],
                            "met": overhead <= GOALS["import_overhead_s"],
                            "cpu_seconds": round(cpu["empty_plugin"] - cpu["empty_no_plugin"], 4)},
    }


def _pytest_version() -> str:
    try:
        import pytest

        return pytest.__version__
    except ImportError:  # pragma: no cover - the script runs pytest, so it is there
        return "?"


def table(fig: dict) -> str:
    def verdict(ok: bool) -> str:
        return "PASS" if ok else "MISS"

    def row(label: str, g: dict) -> str:
        return (f"{label:<14}{g['mcptest_s_per_1000']:>10.3f} s{g['python_s_per_1000']:>10.3f} s"
                f"{g['ratio']:>9.2f}{'<= ' + format(g['goal'], '.2f'):>10}   {verdict(g['met'])}")

    def net(label: str, g: dict) -> str:
        n = g["net_of_startup"]
        ratio = "-" if n["ratio"] is None else format(n["ratio"], ".2f")
        cpu = "-" if g["cpu_ratio"] is None else format(g["cpu_ratio"], ".2f")
        return (f"  {label:<12}{n['mcptest_s_per_1000']:>10.3f} s{n['python_s_per_1000']:>10.3f} s{ratio:>9}"
                f"   (cpu-time ratio {cpu})")

    r, c, i = fig["run"], fig["collect_only"], fig["import_overhead"]
    s = fig["seconds"]
    lines = [
        f"mcptest benchmark: {fig['items']:,} items in {fig['files']} files, {fig['calls']} calls per cassette; "
        f"best of {fig['repeat']} (empty sessions: best of {fig['import_repeat']})",
        f"python {fig['python']}, pytest {fig['pytest']}, {fig['machine']}, {fig['cpus']} cpus",
        "",
        "seconds per 1,000 items (whole pytest sessions, wall clock)",
        f"{'':<14}{'mcptest':>12}{'python':>12}{'ratio':>9}{'goal':>10}   verdict",
        row("run", r),
        row("collect-only", c),
        "",
        "the same net of an empty session's start-up (information only)",
        net("run", r),
        net("collect-only", c),
        "",
        f"plugin import overhead: {i['seconds']:.3f} s   goal <= {i['goal']:.2f} s   {verdict(i['met'])}",
        f"  (empty session {s['empty_plugin']:.3f} s with the plugin, {s['empty_no_plugin']:.3f} s "
        f"with -p no:mcptest; cpu-time difference {i['cpu_seconds']:.3f} s)",
        "",
        "whole sessions, best wall seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in s.items()),
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- main


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--items", type=int, default=10000, help="scenario items (and trivial tests) to generate")
    p.add_argument("--files", type=int, default=100, help="files to spread them over")
    p.add_argument("--calls", type=int, default=10, help="tool calls in each scenario's cassette")
    p.add_argument("--repeat", type=int, default=3, help="timed runs of each session; the best counts")
    p.add_argument("--import-repeat", type=int, default=None,
                   help="timed empty sessions with and without the plugin (default: 3 x --repeat + 2)")
    p.add_argument("--workdir", default=None,
                   help="generate here (must be absent or empty) instead of a fresh temporary directory")
    p.add_argument("--keep", action="store_true", help="keep the generated files (the path is printed)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    args = p.parse_args(argv)
    for name in ("items", "files", "calls", "repeat"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1")
    if args.files > args.items:
        p.error("--files may not exceed --items")
    if args.import_repeat is None:
        args.import_repeat = 3 * args.repeat + 2
    elif args.import_repeat < 1:
        p.error("--import-repeat must be at least 1")
    return args


def make_workdir(args) -> str:
    if args.workdir is None:
        return tempfile.mkdtemp(prefix="mcptest-bench-")
    path = os.path.abspath(args.workdir)
    if os.path.exists(path):
        if not os.path.isdir(path) or os.listdir(path):
            raise SystemExit(f"bench_scenarios: --workdir {path} exists and is not an empty directory")
    else:
        os.makedirs(path)
    return path


def bench(args, work: str) -> dict:
    mc, py, empty = (os.path.join(work, d) for d in ("mcptest", "python", "empty"))
    CPU.clear()
    t0 = time.perf_counter()
    generate_mcptest(mc, args.items, args.files, args.calls)
    generate_python(py, args.items, args.files)
    generate_empty(empty)
    log(f"generated {args.items:,} scenarios and {args.items:,} python tests in {args.files} files each "
        f"under {work} ({time.perf_counter() - t0:.1f} s)")

    # One untimed collection of the Python tests writes their bytecode cache
    # (__pycache__, by pytest's assertion rewriter), as any second run finds it.
    # Every timed run below also checks its outcome: all collected, all passed.
    n = args.items
    timed("python collect (warm-up)", py, ["--collect-only"], n, collect=True)

    samples: dict[str, list[float]] = {}

    def sample(key: str, label: str, cwd: str, extra: list[str], items, collect: bool, code: int = 0) -> None:
        samples.setdefault(key, []).append(timed(label, cwd, extra, items, collect, code, key=key))

    # Interleaved, so that a drift in machine load touches both sides alike.
    for r in range(args.repeat):
        sample("mcptest_collect", "mcptest collect-only", mc, ["--collect-only"], n, True)
        sample("python_collect", "python collect-only", py, ["--collect-only"], n, True)
        sample("mcptest_run", "mcptest run", mc, [], n, False)
        sample("python_run", "python run", py, [], n, False)
        log(f"round {r + 1}/{args.repeat}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in samples.items()))
    # An empty session: no test files, so pytest exits 5 ("no tests collected").
    for _ in range(args.import_repeat):
        sample("empty_plugin", "empty session", empty, ["--collect-only"], None, True, 5)
        sample("empty_no_plugin", "empty session without the plugin", empty,
               ["--collect-only", "-p", "no:mcptest"], None, True, 5)
    log(f"empty sessions: plugin {min(samples['empty_plugin']):.3f} s, "
        f"no plugin {min(samples['empty_no_plugin']):.3f} s")
    return figures(args, {k: min(v) for k, v in samples.items()}, {k: min(v) for k, v in CPU.items()})


def main(argv=None) -> int:
    args = parse_args(argv)
    work = make_workdir(args)
    try:
        fig = bench(args, work)
    except BenchFailure as exc:
        log(f"bench_scenarios: FAILED: {exc}")
        log(f"(generated files kept in {work})")
        return 1
    except BaseException:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        raise
    if args.keep:
        log(f"generated files kept in {work} (mcptest/, python/, empty/)")
    else:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(fig, indent=2, sort_keys=True))
    else:
        print(table(fig))
    return 0


if __name__ == "__main__":
    sys.exit(main())
