"""Speed of spec 001's gates (issue 4, part 4).

(a) A suite with no statistics or token gate never imports statsmodels nor loads the
    tokenizer vocabulary: a small generated suite (scenarios and selection-F1 agents) runs
    in a fresh ``python -m pytest`` subprocess whose conftest records, at the end of the
    session, whether ``statsmodels`` / ``tiktoken`` are in ``sys.modules`` and whether the
    cl100k_base vocabulary was built. A token-efficiency suite is run the same way as the
    control: there the vocabulary must be loaded, which shows the probe sees it.
(b) Counting the tool surface of a 117-tool catalog (``count_surface_tokens``: building the
    surface text and encoding it) against tiktoken's raw ``encode_ordinary`` of the same
    text, on the same Encoding; best of ``--repeat`` timings of ``--number`` calls each.
    The goal is a ratio of at most 1.2, with the vocabulary loaded once per process.

A report, not a test: it prints figures and exits 0 (1 only if the benchmark is broken).
    python benchmarks/bench_gates.py [--repeat 5] [--number 200] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
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
                       "tiktoken": "tiktoken" in sys.modules,
                       "vocabulary": bool(tokens is not None and tokens._encoding is not None),
                       "items": session.testscollected}, fh)
    """)
TURNS = {"turns": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "ok"}]}


def _write(path: str, data) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(data if isinstance(data, str) else json.dumps(data))


def _suite_dir(root: str, name: str, n: int, tokens: bool) -> str:
    folder = os.path.join(root, name)
    os.makedirs(folder)
    _write(os.path.join(folder, "pytest.ini"), "[pytest]\n")
    _write(os.path.join(folder, "conftest.py"), PROBE)
    if tokens:
        _write(os.path.join(folder, "tok.mcptest.yml"), TOKENS)
        _write(os.path.join(folder, "tok.json"), {
            "mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "search", "args": {"q": "x"}}],
                                             "conversation": TURNS}],
            "catalog": {"docs": {"tools": [{"name": "search", "description": "Search the documents.",
                                            "inputSchema": {"type": "object"}}]}}})
        return folder
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


def _probe(folder: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-p", "no:benchmark"], cwd=folder, capture_output=True, text=True)
    path = os.path.join(folder, "probe.json")
    if proc.returncode != 0 or not os.path.exists(path):
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"bench_gates: the generated suite in {folder} did not pass (exit {proc.returncode})")
    with open(path, encoding="utf-8") as fh:
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


def _best(fn, repeat: int, number: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


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
        assert first == len(enc.encode_ordinary(text))
        ours = _best(lambda: tokens.count_surface_tokens(tools), repeat, number)
        raw = _best(lambda: enc.encode_ordinary(text), repeat, number)
        build = _best(lambda: tokens.surface_text(tools), repeat, number)
        assert tokens.cl100k_base() is enc
    finally:
        tokens.load_cl100k_ranks = original
    return {"tools": len(tools), "surface_tokens": first, "surface_chars": len(text),
            "first_call_s": round(first_call, 4), "count_surface_tokens_s": ours, "raw_encode_s": raw, "surface_text_s": build,
            "ratio": round(ours / raw, 3), "vocabulary_loads": len(loads)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20, help="scenarios and agents each in the plain suite")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--number", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as root:
        plain = _probe(_suite_dir(root, "plain", args.items, tokens=False))
        control = _probe(_suite_dir(root, "tokens", 0, tokens=True))
    counting = bench_counting(args.repeat, args.number)
    lazy_ok = not (plain["statsmodels"] or plain["vocabulary"] or plain["tiktoken"])
    figures = {"plain_suite": plain, "token_suite": control, "lazy_imports_ok": lazy_ok,
               "probe_sees_vocabulary": control["vocabulary"], "counting": counting,
               "counting_ok": counting["ratio"] <= 1.2 and counting["vocabulary_loads"] == 1}
    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
        return 0
    print(f"(a) plain suite, {plain['items']} items (scenarios + selection-F1 agents): "
          f"statsmodels imported={plain['statsmodels']}, scipy imported={plain['scipy']}, "
          f"tiktoken imported={plain['tiktoken']}, vocabulary loaded={plain['vocabulary']}")
    print(f"    control: token-efficiency suite, vocabulary loaded={control['vocabulary']}, "
          f"tiktoken imported={control['tiktoken']}")
    print(f"    verdict: {'PASS' if lazy_ok else 'FAIL'}: a suite with no statistics or token gate "
          f"{'never imports statsmodels nor loads the vocabulary' if lazy_ok else 'pays for them'}")
    c = counting
    print(f"(b) {c['tools']}-tool catalog, {c['surface_chars']} chars, {c['surface_tokens']} tokens; "
          f"first call (vocabulary load included) {c['first_call_s'] * 1000:.1f} ms")
    print(f"    count_surface_tokens {c['count_surface_tokens_s'] * 1e6:.1f} us, tiktoken encode_ordinary "
          f"{c['raw_encode_s'] * 1e6:.1f} us, ratio {c['ratio']:.3f} (goal <= 1.2); vocabulary loaded "
          f"{c['vocabulary_loads']} time(s) in this process")
    print(f"    of which building the surface text (names, descriptions, schema JSON) {c['surface_text_s'] * 1e6:.1f} us")
    print(f"    verdict: {'PASS' if figures['counting_ok'] else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
