#!/usr/bin/env python
"""Paired benchmark: realistic scenario items against trivial Python tests, run for run.

Generates ``--items`` realistic scenarios (``realistic.py``: 30 to 40 lines each, a
10-call cassette each) over ``--files`` suites, and as many ``def test_N(): pass``
functions over as many modules. Then, for ``--repeat`` rounds, it runs every mode below
once per side, the sides alternating (which goes first flips every round), each session
a fresh ``python -m pytest -q`` process whose wall time, CPU time and peak memory
(``ru_maxrss`` of that child alone, from ``os.wait4``; on Linux it starts at the parent's
resident size, so this script imports nothing large) are recorded:

========================  ============================================================
run-warm                  a run with every cache written (suite cache, bytecode) but the
                          kept verdicts, removed before it: every item is judged, as after
                          its cassettes were recorded again
run-cold                  the first run after a change: every cache removed before it
run-nobytecode            ``PYTHONDONTWRITEBYTECODE=1``: no bytecode is ever written (the
                          kept verdicts removed, as in run-warm)
rerun                     a run where nothing changed since the last: every cache written,
                          the verdicts kept too (``plugin/verdict_cache.py``)
collect-warm/-cold/-nobytecode  the same with ``--collect-only``
========================  ============================================================

It prints, per mode, each side's median and range, and the median (and range) of the
per-round ratios mcptest / python, with the goal and PASS or MISS; and the peak memory of
the warm run. ``--baseline DIR`` adds a third side: the same suites run with ``DIR`` put
first on ``PYTHONPATH`` (an older ``pytest_mcptest`` checked out there), so a before and
after are taken in one alternating series on one machine.

``--instructions`` then runs each mode once more per side under valgrind's callgrind
(``instructions.py``) and prints the ratio of executed instructions beside the timed one: a
figure the machine's load does not move (the timed ratios stay the goals' figures). Each
session is about 50 times slower there: use it with a few hundred items.

A report, not a test: it exits 0 whether a goal is met or not, 1 when a generated suite
does not pass or collect (the benchmark is broken). Stdlib only, plus pytest.

    python benchmarks/bench_paired.py                          # 10,000 items, 5 rounds
    python benchmarks/bench_paired.py --items 2000 --files 20 --repeat 3   # a quicker look
    python benchmarks/bench_paired.py --baseline /tmp/old      # before and after together
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import instructions  # noqa: E402
import realistic  # noqa: E402
from bench_scenarios import BenchFailure, check_outcome  # noqa: E402

MODES = {  # name -> (collect only, bytecode written?, caches removed before each run, verdicts kept?)
    "run-warm": (False, True, False, False),
    "run-cold": (False, True, True, False),
    "run-nobytecode": (False, False, False, False),
    "rerun": (False, True, False, True),
    "collect-warm": (True, True, False, False),
    "collect-cold": (True, True, True, False),
    "collect-nobytecode": (True, False, False, False),
}
GOALS = {"run-warm": 1.0, "run-cold": 1.25, "run-nobytecode": 1.0, "rerun": 0.6,
         "collect-warm": 0.75, "collect-cold": 1.25, "collect-nobytecode": 0.75, "memory": 1.3}
DROP_ENV = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_CURRENT_TEST",
            "PYTHONDONTWRITEBYTECODE", "PYTHONPATH")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def clear_caches(root: str) -> None:
    """Remove what a previous session left: bytecode, pytest's cache, the suite caches."""
    for folder, dirs, _files in os.walk(root):
        for name in list(dirs):
            if name in ("__pycache__", ".pytest_cache"):
                shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
                dirs.remove(name)
            elif name == "cassettes":
                dirs.remove(name)


def forget_verdicts(root: str) -> None:
    """Remove the verdicts a previous session kept (pytest's cache folder keeps the rest)."""
    shutil.rmtree(os.path.join(root, ".pytest_cache", "d", "mcptest-verdicts"), ignore_errors=True)


def _env(bytecode: bool, pythonpath: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in DROP_ENV}
    env["PYTHONHASHSEED"] = "0"
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


def _command(collect: bool) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q"] + (["--collect-only"] if collect else [])


def session(cwd: str, collect: bool, bytecode: bool, pythonpath: str | None) -> dict:
    """One pytest process: wall and CPU seconds, peak resident memory, exit code, output."""
    env = _env(bytecode, pythonpath)
    cmd = _command(collect)
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mib": usage.ru_maxrss / 1024,
            "code": proc.returncode, "output": text}


def measure(args, sides: dict) -> dict:
    """Every mode, ``args.repeat`` rounds, the sides alternating; samples per (mode, side)."""
    samples: dict = {mode: {side: [] for side in sides} for mode in MODES}
    order = list(sides)
    for r in range(args.repeat):
        for mode, (collect, bytecode, cold, verdicts) in MODES.items():
            if mode not in args.modes:
                continue
            for side in (order if r % 2 == 0 else order[::-1]):
                cwd, pythonpath = sides[side]
                if cold or (not bytecode and r == 0):
                    clear_caches(cwd)
                if not cold and r == 0:  # the untimed session that writes what a warm one finds
                    session(cwd, collect, bytecode, pythonpath)
                if not verdicts:
                    forget_verdicts(cwd)
                got = session(cwd, collect, bytecode, pythonpath)
                check_outcome(f"{side} {mode}", got["code"], got["output"], args.items, collect)
                samples[mode][side].append({k: got[k] for k in ("wall", "cpu", "rss_mib")})
            log(f"round {r + 1}/{args.repeat} {mode}: " + ", ".join(
                f"{side} {samples[mode][side][-1]['wall']:.2f} s" for side in order))
    return samples


def count_instructions(args, sides: dict) -> dict:
    """Each mode's session once per side under callgrind, set up as a timed round sets it up:
    ``{mode: {side: instructions}}``."""
    counts: dict = {}
    for mode, (collect, bytecode, cold, verdicts) in MODES.items():
        if mode not in args.modes:
            continue
        for side, (cwd, pythonpath) in sides.items():
            if cold or not bytecode:  # as the first timed round of the mode found it
                clear_caches(cwd)
            if not cold:
                session(cwd, collect, bytecode, pythonpath)  # what the previous session leaves
            if not verdicts:
                forget_verdicts(cwd)
            counts.setdefault(mode, {})[side] = instructions.count(_command(collect), cwd, _env(bytecode, pythonpath))
        log(f"instructions {mode}: " + ", ".join(f"{side} {n / 1e9:.3f} G" for side, n in counts[mode].items() if n))
    return counts


def summarize(samples: dict, sides: list[str]) -> dict:
    out: dict = {}
    for mode, by_side in samples.items():
        if not by_side["python"]:
            continue
        entry: dict = {"goal": GOALS[mode]}
        for side in sides:
            walls = [s["wall"] for s in by_side[side]]
            entry[side] = {"median_s": statistics.median(walls), "min_s": min(walls), "max_s": max(walls),
                           "cpu_median_s": statistics.median(s["cpu"] for s in by_side[side]),
                           "rss_median_mib": statistics.median(s["rss_mib"] for s in by_side[side])}
            if side != "python":
                ratios = [a["wall"] / b["wall"] for a, b in zip(by_side[side], by_side["python"])]
                cpu = [a["cpu"] / b["cpu"] for a, b in zip(by_side[side], by_side["python"])]
                rss = [a["rss_mib"] / b["rss_mib"] for a, b in zip(by_side[side], by_side["python"])]
                entry[side].update(ratio=statistics.median(ratios), ratio_min=min(ratios), ratio_max=max(ratios),
                                   cpu_ratio=statistics.median(cpu), rss_ratio=statistics.median(rss))
        out[mode] = entry
    return out


def table(summary: dict, sides: list[str], args) -> str:
    lines = [f"paired benchmark: {args.items:,} realistic scenarios in {args.files} files vs as many trivial "
             f"python tests; medians of {args.repeat} alternating rounds (range in brackets); "
             f"load average before/after {args.load[0]:.1f}/{args.load[1]:.1f} on {os.cpu_count()} cpus", ""]
    mc_sides = [s for s in sides if s != "python"]
    head = f"{'mode':<20}{'python s':>18}" + "".join(f"{s + ' s':>18}{'ratio':>18}{'cpu':>6}" for s in mc_sides)
    lines += [head + f"{'goal':>8}  verdict"]
    for mode, e in summary.items():
        py = e["python"]
        row = f"{mode:<20}{py['median_s']:>8.2f} [{py['min_s']:.1f}-{py['max_s']:.1f}]"
        for side in mc_sides:
            m = e[side]
            row += (f"{m['median_s']:>8.2f} [{m['min_s']:.1f}-{m['max_s']:.1f}]"
                    f"{m['ratio']:>8.2f} [{m['ratio_min']:.2f}-{m['ratio_max']:.2f}]{m['cpu_ratio']:>6.2f}")
        verdict = "PASS" if e["mcptest"]["ratio"] <= e["goal"] else "MISS"
        lines.append(row + f"{'<= ' + format(e['goal'], '.2f'):>8}  {verdict}")
    counted = {mode: e["instructions"] for mode, e in summary.items() if e.get("instructions")}
    if counted:
        lines += ["", "instructions executed, once per side under callgrind (G; ratio to python):"]
        for mode, by_side in counted.items():
            py = by_side.get("python")
            lines.append(f"{mode:<20}" + "".join(
                f"  {side} {n / 1e9:.3f}" + (f" ({n / py:.3f}x)" if py and side != "python" else "")
                for side, n in by_side.items() if n))
    if "run-warm" in summary:
        e = summary["run-warm"]
        lines += ["", "peak memory of the warm run (ru_maxrss, median): python "
                  f"{e['python']['rss_median_mib']:.0f} MiB" + "".join(
                      f", {s} {e[s]['rss_median_mib']:.0f} MiB ({e[s]['rss_ratio']:.2f}x)" for s in mc_sides)
                  + f"; goal <= {GOALS['memory']:.2f}x  "
                  + ("PASS" if e["mcptest"]["rss_ratio"] <= GOALS["memory"] else "MISS")]
    lines += ["", "ratio: median of the per-round ratios of wall times; cpu: the same of CPU times "
              "(less disturbed by other load on the machine)"]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--items", type=int, default=10000)
    p.add_argument("--files", type=int, default=100)
    p.add_argument("--calls", type=int, default=10)
    p.add_argument("--repeat", type=int, default=5, help="rounds (at least 5 for the issue's medians)")
    p.add_argument("--modes", default=",".join(MODES), help="comma-separated subset of: " + ", ".join(MODES))
    p.add_argument("--baseline", default=None, metavar="DIR",
                   help="also time the suites with DIR first on PYTHONPATH (an older pytest_mcptest)")
    p.add_argument("--code", default=None, metavar="DIR",
                   help="time the mcptest side with DIR first on PYTHONPATH (a snapshot of the code under test)")
    p.add_argument("--workdir", default=None, help="generate here (kept) instead of a temporary folder")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--instructions", action="store_true",
                   help="also count each mode's instructions once per side under valgrind (callgrind)")
    args = p.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in args.modes if m not in MODES]
    if unknown or args.items < 1 or args.files < 1 or args.files > args.items or args.repeat < 1:
        p.error(f"bad arguments (unknown modes: {unknown})" if unknown else "bad --items/--files/--repeat")
    work = os.path.abspath(args.workdir) if args.workdir else tempfile.mkdtemp(prefix="mcptest-paired-")
    done = False
    try:
        mc, py = os.path.join(work, "mcptest"), os.path.join(work, "python")
        if not os.path.exists(os.path.join(mc, "pytest.ini")):
            realistic.generate_mcptest(mc, args.items, args.files, args.calls)
            realistic.generate_python(py, args.items, args.files)
        sides = {"python": (py, None), "mcptest": (mc, os.path.abspath(args.code) if args.code else None)}
        if args.baseline:
            base = os.path.join(work, "mcptest-baseline")
            if not os.path.exists(base):
                shutil.copytree(mc, base)
            sides["baseline"] = (base, os.path.abspath(args.baseline))
        args.load = [os.getloadavg()[0]]
        samples = measure(args, sides)
        args.load.append(os.getloadavg()[0])
        counts = count_instructions(args, sides) if args.instructions and instructions.available() else {}
        done = True
    except BenchFailure as exc:
        log(f"bench_paired: FAILED: {exc}\n(generated files kept in {work})")
        return 1
    finally:
        if done and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    summary = summarize(samples, list(sides))
    for mode, by_side in counts.items():
        summary[mode]["instructions"] = by_side
    if args.json:
        print(json.dumps({"summary": summary, "samples": samples, "load": args.load}, indent=2))
    else:
        print(table(summary, list(sides), args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
