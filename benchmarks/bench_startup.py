#!/usr/bin/env python
"""Start-up benchmark: what mcptest adds before the first answer (issue 47).

Three paired comparisons, each side a fresh process, the sides alternating (which goes first
flips every round), ``--repeat`` rounds, medians:

====================  ===========================================================  ==========
session (pytest)      ``python -m pytest -q`` of one realistic scenario item          <= 1.10x
                      (``realistic.py``) against one trivial Python test; both warm
                      (an untimed session first writes bytecode and pytest's cache)
session (mcptest run)  ``mcptest run .`` of the same scenario item, against the       <= 1.10x
                      same trivial test under ``pytest``
record                ``mcptest record --out CASSETTE --force -- SERVER`` answering    <= +0.20 s
                      ``initialize``, against ``SERVER`` alone
serve                 ``mcptest serve CASSETTE`` (that recorded session) answering     <= +0.20 s
                      ``initialize``, against a cassette-less server on the same SDK
                      (its low-level ``Server`` over stdio, nothing else)
====================  ===========================================================  ==========

A session's CPU time (user and system, from ``os.wait4``) is printed beside its wall time: on
a machine others load too, it moves less. SERVER is ``mcp-server-time`` (PyPI) when it is on ``PATH`` or beside this Python (a real
server, its own imports and all), else ``tests/notes_server.py`` (a server on the official
SDK, shipped with the tests). A time is the wall time from starting the process until the
first line of its answer is read (the session: until the process exits).

A report, not a test: it prints the figures with PASS or MISS and exits 0; it exits 1 only
when the benchmark is broken (a session did not pass, a server never answered).

``--instructions`` also counts, once per side, the instructions of each session under
valgrind's callgrind (``instructions.py``): a ratio the machine's load does not move, printed
beside the timed one (which stays the goal's figure).

    python benchmarks/bench_startup.py [--repeat 11] [--json] [--pythonpath DIR] [--instructions]

``--pythonpath DIR`` measures the ``pytest_mcptest`` checked out in ``DIR`` instead (put first
on ``PYTHONPATH``), for a before figure on the same machine.
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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import instructions  # noqa: E402
import realistic  # noqa: E402

SESSION_GOAL = 1.10
START_GOAL = 0.20  # seconds added to the server's own start
DROP_ENV = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_CURRENT_TEST",
            "PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
INITIALIZE = (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "bench_startup", "version": "1"}}}) + "\n").encode()
# The cassette-less baseline of ``mcptest serve``: the SDK's low-level server over stdio, which
# is what ``mcptest serve`` runs, without a recording to play.
BARE_SERVER = """\
import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

server = Server("bare")

async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""


class BenchFailure(Exception):
    """The benchmark itself is broken: a session failed, a server never answered."""


PYTHONPATH: list = []  # --pythonpath


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in DROP_ENV}
    env["PYTHONHASHSEED"] = "0"
    if PYTHONPATH:
        env["PYTHONPATH"] = PYTHONPATH[0]
    return env


def _command(name: str) -> list[str]:
    """A console script of this Python's environment (``mcptest``, ``mcp-server-time``)."""
    beside = os.path.join(os.path.dirname(sys.executable), name)
    found = beside if os.path.exists(beside) else shutil.which(name)
    return [found] if found else []


CPU: dict = {}  # a session's CPU seconds by label: on a loaded machine, steadier than its wall time


def session(cwd: str, command: list[str], label: str = "") -> float:
    """One whole pytest session (``command`` in ``cwd``): its wall time (its CPU time, user and
    system, of that process alone, from ``os.wait4``, goes to ``CPU[label]``); it must pass
    one item."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, env=_env(), stdout=out, stderr=subprocess.STDOUT)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    code = os.waitstatus_to_exitcode(status)
    if code != 0 or "1 passed" not in text:
        raise BenchFailure(f"{' '.join(command)} in {cwd}: exit {code}\n{text[-3000:]}")
    CPU.setdefault(label, []).append(usage.ru_utime + usage.ru_stime)
    return wall


def first_answer(command: list[str], cwd: str) -> float:
    """Start ``command``, send ``initialize`` at once, and time the first line it answers."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, env=_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    proc.stdin.write(INITIALIZE)
    proc.stdin.flush()
    line = proc.stdout.readline()
    wall = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(timeout=30)
    if not line.startswith(b"{"):
        raise BenchFailure(f"{' '.join(command)}: no answer to initialize (exit {proc.returncode})")
    return wall


def paired(label: str, sides: dict, repeat: int) -> dict:
    """``repeat`` rounds of both sides (each a callable returning seconds), alternating."""
    names = list(sides)
    times: dict = {name: [] for name in names}
    for r in range(repeat):
        for name in (names if r % 2 == 0 else names[::-1]):
            times[name].append(sides[name]())
        print(f"round {r + 1}/{repeat} {label}: " + ", ".join(f"{n} {times[n][-1]:.3f} s" for n in names),
              file=sys.stderr, flush=True)
    base, ours = names
    return {"baseline": base, "ours": ours, "baseline_s": statistics.median(times[base]),
            "ours_s": statistics.median(times[ours]),
            "ratio": statistics.median(o / b for o, b in zip(times[ours], times[base])),
            "added_s": statistics.median(o - b for o, b in zip(times[ours], times[base]))}


def measure(repeat: int, work: str, count: bool = False) -> dict:
    scenario, trivial = os.path.join(work, "scenario"), os.path.join(work, "python")
    realistic.generate_mcptest(scenario, 1, 1)
    realistic.generate_python(trivial, 1, 1)
    pytest_cmd = [sys.executable, "-m", "pytest", "-q"]
    mcptest = _command("mcptest") or [sys.executable, "-m", "pytest_mcptest.cli"]
    for cwd, cmd in ((scenario, pytest_cmd), (trivial, pytest_cmd), (scenario, mcptest + ["run", "."])):
        session(cwd, cmd)  # untimed: writes the bytecode and the caches a warm session finds
    figures = {
        "session (pytest)": paired("session (pytest)", {
            "python test": lambda: session(trivial, pytest_cmd, "python test"),
            "scenario item": lambda: session(scenario, pytest_cmd, "scenario item")}, repeat),
        "session (mcptest run)": paired("session (mcptest run)", {
            "python test": lambda: session(trivial, pytest_cmd, "python test"),
            "scenario item": lambda: session(scenario, mcptest + ["run", "."], "mcptest run")}, repeat),
    }
    if count:  # each side once more, under callgrind (the timed sessions above left every cache warm)
        trivial_i = instructions.count(pytest_cmd, trivial, _env())
        for label, cwd, cmd in (("session (pytest)", scenario, pytest_cmd),
                                ("session (mcptest run)", scenario, mcptest + ["run", "."])):
            ours_i = instructions.count(cmd, cwd, _env())
            if trivial_i and ours_i:
                figures[label].update(instructions=ours_i, baseline_instructions=trivial_i,
                                      instructions_ratio=ours_i / trivial_i)
    python_cpu = statistics.median(CPU["python test"])
    for label, key in (("session (pytest)", "scenario item"), ("session (mcptest run)", "mcptest run")):
        figures[label].update(cpu_s=statistics.median(CPU[key]), baseline_cpu_s=python_cpu,
                              cpu_ratio=statistics.median(CPU[key]) / python_cpu)
    server = _command("mcp-server-time") or [sys.executable, os.path.join(ROOT, "tests", "notes_server.py")]
    cassette = os.path.join(work, "session.json")
    figures["record"] = paired("record", {
        "server alone": lambda: first_answer(server, work),
        "mcptest record": lambda: first_answer(mcptest + ["record", "--out", cassette, "--force", "--"] + server, work),
    }, repeat)
    bare = os.path.join(work, "bare_server.py")
    with open(bare, "w", encoding="utf-8") as fh:
        fh.write(BARE_SERVER)
    figures["serve"] = paired("serve", {
        "bare SDK server": lambda: first_answer([sys.executable, bare], work),
        "mcptest serve": lambda: first_answer(mcptest + ["serve", cassette], work),
    }, repeat)
    figures["server"] = " ".join(os.path.basename(part) for part in server)
    return figures


def report(figures: dict, repeat: int) -> list[str]:
    mark = lambda ok: "PASS" if ok else "MISS"  # noqa: E731
    lines = [f"start-up, medians of {repeat} paired rounds (server: {figures['server']})"]
    for label in ("session (pytest)", "session (mcptest run)"):
        f = figures[label]
        lines.append(f"  {label:<22} {f['ours_s']:.3f} s vs {f['baseline_s']:.3f} s   ratio {f['ratio']:.2f}x   "
                     f"goal <= {SESSION_GOAL:.2f}x   {mark(f['ratio'] <= SESSION_GOAL)}   (cpu {f['cpu_s']:.3f} s vs "
                     f"{f['baseline_cpu_s']:.3f} s, {f['cpu_ratio']:.2f}x)")
        if "instructions" in f:
            lines.append(f"  {'':<22} instructions {f['instructions'] / 1e9:.3f} G vs "
                         f"{f['baseline_instructions'] / 1e9:.3f} G   ratio {f['instructions_ratio']:.3f}x (callgrind)")
    for label in ("record", "serve"):
        f = figures[label]
        lines.append(f"  {label:<22} {f['ours_s']:.3f} s vs {f['baseline_s']:.3f} s   added {f['added_s']:+.3f} s   "
                     f"goal <= +{START_GOAL:.2f} s   {mark(f['added_s'] <= START_GOAL)}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=11, help="paired rounds per comparison (default 11)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pythonpath", metavar="DIR", help="measure the pytest_mcptest checked out in DIR")
    parser.add_argument("--instructions", action="store_true",
                        help="also count each session's instructions under valgrind (callgrind), once per side")
    args = parser.parse_args(argv)
    if args.pythonpath:
        PYTHONPATH.append(os.path.abspath(args.pythonpath))
    with tempfile.TemporaryDirectory() as work:
        try:
            figures = measure(args.repeat, work, args.instructions and instructions.available())
        except BenchFailure as exc:
            print(f"bench_startup: {exc}", file=sys.stderr)
            return 1
    print(json.dumps(figures, indent=2) if args.json else "\n".join(report(figures, args.repeat)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
