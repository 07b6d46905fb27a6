"""Speed of the gates over every run: lazy imports, token counting, statistics per process.

(a) A suite with no statistics or token gate never imports statsmodels, scipy, numpy or
    tiktoken, nor loads the tokenizer vocabulary: a small generated suite (scenarios and
    selection-F1 agents) runs in a fresh ``python -m pytest`` subprocess whose conftest
    records, at the end of the session, what is in ``sys.modules`` and whether the
    cl100k_base vocabulary was built. A distractor suite (Clopper-Pearson bounds) must not
    import statsmodels, scipy or numpy either. A token-efficiency suite is the control:
    there the vocabulary must be loaded, which shows the probe sees it.
(b) Counting the tool surface of a 117-tool catalog (``count_surface_tokens``: building the
    surface text and encoding it) against tiktoken's raw ``encode_ordinary`` of the same
    text, on the same Encoding. "before" is the surface text as it was built until
    2026-11-22 (one ``JSONEncoder.encode`` per schema), counted the same way. The three are
    timed in interleaved rounds of ``--number`` calls; medians of ``--repeat`` rounds, with
    their range, and the ratio of the best rounds (the least disturbed by other processes).
    Goal: a ratio of at most 1.2 (the median of the rounds' ratios), the vocabulary loaded
    once per process.
(c) Statistics per process. The import cost of the bounds: a fresh ``python -c`` that
    computes a Clopper-Pearson bound and a Wilson interval, against one that imports
    ``statsmodels.stats.proportion`` (what every process paid before), net of an empty
    ``python -c pass``. And whole sessions of ``--agents`` agents: plain, with a
    ``distractors:`` block each (one ``[distractors]`` item more per agent), and the same
    with the bounds computed by statsmodels again ("before", through a small plugin put
    in with ``-p``); with ``-n 2`` too when pytest-xdist is installed, where every worker
    paid the import. Each figure is the median of ``--sessions`` alternating runs, with
    its range; and, in this process, microseconds per Clopper-Pearson bound. Goal: the
    bounds cost a fresh process at most 0.1 s (importing statsmodels cost 1.3 to 2.5 s).
    The sessions are information: on a loaded machine their spread exceeds the difference.

A report, not a test: it prints figures with PASS or MISS beside each goal and exits 0
(1 only if the benchmark is broken: a generated suite did not pass).
    python benchmarks/bench_gates.py [--repeat 40] [--number 5] [--sessions 5] [--json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

SCENARIO = """\
  - name: ping {i}
    cassette: ping{i}.json
    seed: {{count: 0}}
    transitions:
      - tool: ping
        effect: {{count: {{inc: 1}}}}
    expect_state: {{count: 1}}
"""
AGENT = """\
  - name: research {i}
    cassette: agent{i}.json
    equal_function_sets:
      classes:
        - {{name: search, members: [search]}}
"""
DISTRACTORS = """\
    distractors:
      count: 2
      source: {from: near_duplicate, of: [search_products]}
      correct: [catalog.search_products]
      expect:
        - distractors.certified_lower: {">=": 40}
"""
TOKENS = """\
agents:
  - name: lean catalog
    cassette: tok.json
    token_efficiency:
      classes:
        - {name: search, members: [search]}
"""
PROBE = textwrap.dedent("""\
    import json, sys

    def pytest_sessionfinish(session):
        tokens = sys.modules.get("pytest_mcptest.engine.tokens")
        with open("probe.json", "w") as fh:
            json.dump({"statsmodels": "statsmodels" in sys.modules,
                       "scipy": "scipy" in sys.modules,
                       "numpy": "numpy" in sys.modules,
                       "tiktoken": "tiktoken" in sys.modules,
                       "vocabulary": bool(tokens is not None and tokens._encoding is not None),
                       "items": session.testscollected}, fh)
    """)
# The bounds as they were computed until 2026-11-22, put back for the "before" sessions.
STATSMODELS_BOUNDS = textwrap.dedent("""\
    from statsmodels.stats.proportion import proportion_confint

    import pytest_mcptest.engine.distractors
    import pytest_mcptest.engine.stats


    def clopper_pearson_lower(successes, trials, confidence=0.95):
        if successes == 0 or trials == 0:
            return 0.0
        return float(proportion_confint(successes, trials, alpha=2 * (1 - confidence), method="beta")[0])


    pytest_mcptest.engine.stats.clopper_pearson_lower = clopper_pearson_lower
    pytest_mcptest.engine.distractors.clopper_pearson_lower = clopper_pearson_lower
    """)
TURNS = {"turns": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "ok"}]}
CATALOG = {"catalog": {"tools": [{"name": "search_products", "description": "Search products.",
                                  "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}}]}}
GOAL_RATIO = 1.2
GOAL_STATISTICS_S = 0.1


def _write(path: str, data) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(data if isinstance(data, str) else json.dumps(data))


def _new_dir(root: str, name: str, probe: bool = True) -> str:
    folder = os.path.join(root, name)
    os.makedirs(folder)
    _write(os.path.join(folder, "pytest.ini"), "[pytest]\n")
    if probe:
        _write(os.path.join(folder, "conftest.py"), PROBE)
    return folder


def _plain_suite(root: str, n: int) -> str:
    folder = _new_dir(root, "plain")
    _write(os.path.join(folder, "plain.mcptest.yml"),
           "scenarios:\n" + "".join(SCENARIO.format(i=i) for i in range(n))
           + "agents:\n" + "".join(AGENT.format(i=i) for i in range(n)))
    for i in range(n):
        _write(os.path.join(folder, f"ping{i}.json"),
               {"mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "ping", "args": {}}]}]})
        _write(os.path.join(folder, f"agent{i}.json"),
               {"mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "search", "args": {"q": "x"}}],
                                                 "conversation": TURNS}]})
    return folder


def _token_suite(root: str) -> str:
    folder = _new_dir(root, "tokens")
    _write(os.path.join(folder, "tok.mcptest.yml"), TOKENS)
    _write(os.path.join(folder, "tok.json"), {
        "mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "search", "args": {"q": "x"}}],
                                         "conversation": TURNS}],
        "catalog": {"docs": {"tools": [{"name": "search", "description": "Search the documents.",
                                        "inputSchema": {"type": "object"}}]}}})
    return folder


def _agent_suite(root: str, name: str, n: int, distractors: bool, probe: bool = True) -> str:
    """``n`` agents over a catalog cassette of 5 runs (one chose a near-duplicate), each
    with a ``distractors:`` block (so a ``[distractors]`` item after it) or without."""
    folder = _new_dir(root, name, probe)
    _write(os.path.join(folder, "bounds.py"), STATSMODELS_BOUNDS)
    agents = "".join(f"  - name: notebook search {i}\n    servers: [catalog]\n    cassette: runs.json\n"
                     "    equal_function_sets:\n      classes:\n"
                     "        - {name: search, members: [catalog.search_products]}\n"
                     + (DISTRACTORS if distractors else "") for i in range(n))
    _write(os.path.join(folder, "agents.mcptest.yml"), "agents:\n" + agents)
    good = {"tool_calls": [{"name": "search_products", "server": "catalog", "args": {"query": "notebook"}}],
            "conversation": TURNS}
    _write(os.path.join(folder, "runs.json"), {"mcptest_cassette": 1, "runs": [good] * 5, "catalog": CATALOG})
    return folder


def _pytest(folder: str, *extra: str) -> tuple[float, subprocess.CompletedProcess]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")}
    env["PYTHONPATH"] = folder + os.pathsep + env.get("PYTHONPATH", "")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra],
                          cwd=folder, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"bench_gates: the generated suite in {folder} did not pass (exit {proc.returncode})")
    return elapsed, proc


def _probe(folder: str) -> dict:
    _pytest(folder, "-p", "no:xdist")
    with open(os.path.join(folder, "probe.json"), encoding="utf-8") as fh:
        return json.load(fh)


def catalog_117() -> list[dict]:
    """117 tools: the bundled distractor catalog, then near-duplicate variants of it."""
    from pytest_mcptest.engine.distractors import bundled_tools

    base = bundled_tools()
    tools, n = list(base), 0
    while len(tools) < 117:
        t = base[n % len(base)]
        suffix = ("_v2", "_internal", "_legacy", "_beta")[(n // len(base)) % 4]
        tools.append({"name": t["name"] + suffix, "description": t.get("description", "") + f" ({suffix[1:]})",
                      "inputSchema": t.get("inputSchema") or t.get("input_schema") or {"type": "object"}})
        n += 1
    return tools


def _summary(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def _interleaved(fns: dict, repeat: int, number: int) -> dict:
    """Per-call seconds of each function: rounds of ``number`` calls, the functions taking
    turns within each round, so that a change in machine load touches all of them alike."""
    times: dict = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(number):
                fn()
            times[name].append((time.perf_counter() - start) / number)
    return times


def _surface_text_before(tools) -> str:
    """The surface text as built until 2026-11-22: a ``JSONEncoder.encode`` per schema."""
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    parts = []
    for tool in tools:
        name, description = tool.get("name"), tool.get("description")
        schema = tool.get("inputSchema", tool.get("input_schema"))
        parts.append((name + "\n" if isinstance(name, str) else "")
                     + (description + "\n" if isinstance(description, str) and description else "")
                     + (encode(schema) + "\n" if schema is not None else ""))
    return "".join(parts)


def bench_counting(repeat: int, number: int) -> dict:
    from pytest_mcptest.engine import tokens

    loads = []
    original = tokens.load_cl100k_ranks

    def counted(*args, **kwargs):
        loads.append(1)
        return original(*args, **kwargs)

    tokens.load_cl100k_ranks = counted
    try:
        tools = catalog_117()
        start = time.perf_counter()
        first = tokens.count_surface_tokens(tools)
        first_call = time.perf_counter() - start
        enc = tokens.cl100k_base()
        text = tokens.surface_text(tools)
        if _surface_text_before(tools) != text or first != len(enc.encode_ordinary(text)):
            raise SystemExit("bench_gates: the surface text or its count differs from the reference")
        times = _interleaved({
            "raw": lambda: enc.encode_ordinary(text),
            "count": lambda: tokens.count_surface_tokens(tools),
            "before": lambda: len(enc.encode_ordinary(_surface_text_before(tools))),
            "surface_text": lambda: tokens.surface_text(tools),
            "surface_text_before": lambda: _surface_text_before(tools),
        }, repeat, number)
        if tokens.cl100k_base() is not enc:
            raise SystemExit("bench_gates: the vocabulary was built twice")
    finally:
        tokens.load_cl100k_ranks = original
    ratios = [c / r for c, r in zip(times["count"], times["raw"])]
    ratios_before = [b / r for b, r in zip(times["before"], times["raw"])]
    return {"tools": len(tools), "surface_tokens": first, "surface_chars": len(text),
            "first_call_s": first_call, "vocabulary_loads": len(loads),
            "seconds": {name: _summary(v) for name, v in times.items()},
            "ratio": _summary(ratios), "ratio_before": _summary(ratios_before),
            "ratio_of_best": min(times["count"]) / min(times["raw"]),
            "ratio_of_best_before": min(times["before"]) / min(times["raw"])}


def _python_c(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - start


def bench_statistics(sessions: int, agents: int) -> dict:
    """Import cost of the bounds, and whole sessions with and without [distractors] items."""
    codes = {
        "empty": "pass",
        "bounds": ("from pytest_mcptest.engine.stats import clopper_pearson_lower, wilson_interval\n"
                   "clopper_pearson_lower(5, 5); wilson_interval(4, 5)"),
        "statsmodels": ("from statsmodels.stats.proportion import proportion_confint\n"
                        "proportion_confint(5, 5, alpha=0.1, method='beta')"),
    }
    have_statsmodels = importlib.util.find_spec("statsmodels") is not None
    if not have_statsmodels:
        del codes["statsmodels"]
    processes: dict = {name: [] for name in codes}
    for _ in range(sessions):
        for name, code in codes.items():
            processes[name].append(_python_c(code))
    imports = {name: _summary([t - e for t, e in zip(values, processes["empty"])])
               for name, values in processes.items() if name != "empty"}

    xdist = importlib.util.find_spec("xdist") is not None
    runs: dict = {}
    with tempfile.TemporaryDirectory() as root:
        kinds = {"plain": _agent_suite(root, "agents", agents, distractors=False, probe=False),
                 "distractors": _agent_suite(root, "distractors", agents, distractors=True, probe=False)}
        variants = [("plain", ()), ("distractors", ())]
        if have_statsmodels:
            variants.append(("distractors", ("-p", "bounds")))
        modes = [("serial", ("-p", "no:xdist"))] + ([("-n 2", ("-n", "2"))] if xdist else [])
        for _ in range(sessions):
            for mode, mode_args in modes:
                for kind, extra in variants:
                    label = f"{kind}{' before' if extra else ''}, {mode}"
                    elapsed, proc = _pytest(kinds[kind], *mode_args, *extra)
                    runs.setdefault(label, []).append(elapsed)
                    expected = agents * (2 if kind == "distractors" else 1)
                    if f"{expected} passed" not in proc.stdout:
                        sys.stderr.write(proc.stdout)
                        raise SystemExit(f"bench_gates: expected {expected} passed items in {kinds[kind]}")
    sessions_s = {label: _summary(values) for label, values in runs.items()}
    extra_cost = {mode: sessions_s[f"distractors, {mode}"]["median"] - sessions_s[f"plain, {mode}"]["median"]
                  for mode, _ in modes}
    return {"import_s": imports, "sessions_s": sessions_s, "agents": agents,
            "distractors_minus_plain_s": extra_cost, "bound_us": _bound_microseconds()}


def _bound_microseconds() -> dict:
    """In-process microseconds per ``clopper_pearson_lower(4n // 5, n)`` (best of 5 x 20 calls)."""
    from pytest_mcptest.engine.stats import clopper_pearson_lower

    out = {}
    for n in (5, 20, 100, 1000, 10_000):
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(20):
                clopper_pearson_lower(4 * n // 5, n)
            best = min(best, (time.perf_counter() - start) / 20)
        out[n] = best * 1e6
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20, help="scenarios and agents each in the plain suite of (a)")
    parser.add_argument("--repeat", type=int, default=40, help="rounds of token counting in (b)")
    parser.add_argument("--number", type=int, default=5, help="calls per round in (b)")
    parser.add_argument("--sessions", type=int, default=5, help="alternating processes per figure in (c)")
    parser.add_argument("--agents", type=int, default=4, help="agents in the sessions of (c)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as root:
        plain = _probe(_plain_suite(root, args.items))
        distractor = _probe(_agent_suite(root, "distractors", 2, distractors=True))
        control = _probe(_token_suite(root))
    counting = bench_counting(args.repeat, args.number)
    stats = bench_statistics(args.sessions, args.agents)
    heavy = ("statsmodels", "scipy", "numpy", "tiktoken")
    lazy_ok = not (any(plain[m] for m in heavy) or plain["vocabulary"]
                   or any(distractor[m] for m in ("statsmodels", "scipy", "numpy")))
    figures = {"plain_suite": plain, "distractor_suite": distractor, "token_suite": control,
               "lazy_imports_ok": lazy_ok, "probe_sees_vocabulary": control["vocabulary"],
               "counting": counting, "statistics": stats,
               "counting_ok": counting["ratio"]["median"] <= GOAL_RATIO and counting["vocabulary_loads"] == 1,
               "statistics_ok": stats["import_s"]["bounds"]["median"] <= GOAL_STATISTICS_S}
    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
        return 0
    verdict = lambda ok: "PASS" if ok else "MISS"  # noqa: E731
    loaded = lambda probe, names: ", ".join(f"{m}={probe[m]}" for m in names)  # noqa: E731
    print(f"(a) plain suite, {plain['items']} items (scenarios + selection-F1 agents): imported "
          f"{loaded(plain, heavy)}; vocabulary loaded={plain['vocabulary']}")
    print(f"    distractor suite, {distractor['items']} items: imported "
          f"{loaded(distractor, ('statsmodels', 'scipy', 'numpy'))}")
    print(f"    control: token-efficiency suite, vocabulary loaded={control['vocabulary']}, "
          f"tiktoken imported={control['tiktoken']}")
    print(f"    {verdict(lazy_ok)}: no statsmodels, scipy or numpy for the bounds; no tiktoken without a token gate")
    c = counting
    sec = c["seconds"]
    span = lambda s, k=1e3: f"{s['median'] * k:.2f} ({s['min'] * k:.2f}-{s['max'] * k:.2f})"  # noqa: E731
    print(f"(b) {c['tools']}-tool catalog, {c['surface_chars']} chars, {c['surface_tokens']} tokens; "
          f"first call (vocabulary load included) {c['first_call_s'] * 1000:.1f} ms; vocabulary loaded "
          f"{c['vocabulary_loads']} time(s)")
    print(f"    ms per count, median (range) of {args.repeat} rounds: tiktoken encode_ordinary {span(sec['raw'])}, "
          f"count_surface_tokens {span(sec['count'])}, before {span(sec['before'])}")
    print(f"    surface text alone: {span(sec['surface_text'])} ms, before {span(sec['surface_text_before'])} ms")
    print(f"    ratio to raw tiktoken, median (range) of the rounds: {span(c['ratio'], 1)} "
          f"(before {span(c['ratio_before'], 1)}), goal <= {GOAL_RATIO}   {verdict(figures['counting_ok'])}")
    print(f"    ratio of the best rounds: {c['ratio_of_best']:.2f} (before {c['ratio_of_best_before']:.2f})")
    s = stats
    print(f"(c) seconds a fresh process spends on the bounds, net of `python -c pass`, median (range) "
          f"of {args.sessions}:")
    for name, label in (("bounds", "pure-Python bounds (now)"), ("statsmodels", "statsmodels import (before)")):
        if name in s["import_s"]:
            print(f"    {label:30} {span(s['import_s'][name], 1)}")
    print(f"    goal: the bounds cost a process <= {GOAL_STATISTICS_S} s   {verdict(figures['statistics_ok'])}")
    print("    one Clopper-Pearson bound in-process, us: "
          + ", ".join(f"n={n}: {us:.0f}" for n, us in s["bound_us"].items()))
    print(f"    whole sessions of {s['agents']} agents (+{s['agents']} [distractors] items), seconds:")
    for label, summary in s["sessions_s"].items():
        print(f"    {label:32} {span(summary, 1)}")
    for mode, extra in s["distractors_minus_plain_s"].items():
        print(f"    [distractors] items add {extra:+.2f} s to a session ({mode}; medians, information)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
