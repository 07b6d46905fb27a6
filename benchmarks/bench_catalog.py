#!/usr/bin/env python
"""Benchmark: the catalog-quality engine on a 117-tool catalog.

Generates a catalog of 117 tools (verbs x objects, in the shapes the tests use: some
with enums, examples, annotations, outputSchema, nested array items; some deliberately
bad), then times, each as the best of ``--repeat`` runs:

- the lint: ``score_catalog`` (every DESC and SCH rule plus the scores), goal < 1 s;
- a tool-bench of 100 intents x 20 mutations (``run_bench``), goal < 2 s.

It is a report, not a test: it exits 0 whether a goal is met or missed. Stdlib and the
engine only. Usage::

    python benchmarks/bench_catalog.py            # best of 5
    python benchmarks/bench_catalog.py --json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_mcptest.engine.quality import score_catalog  # noqa: E402
from pytest_mcptest.engine.toolbench import run_bench  # noqa: E402

VERBS = ["search", "create", "delete", "list", "update", "fetch", "convert", "export", "archive"]
OBJECTS = ["order", "invoice", "customer", "ticket", "report", "shipment", "refund", "coupon", "warehouse",
           "supplier", "contract", "payment", "review"]


def make_tool(i: int, verb: str, obj: str) -> dict:
    """One generated tool; ``i % 6`` picks its shape, from exemplary to poor."""
    name = f"{verb}_{obj}"
    shape = i % 6
    props = {
        "id": {"type": "string", "description": f"The {obj} identifier", "maxLength": 64},
        "limit": {"type": "integer", "description": "Maximum rows", "default": 20},
    }
    tool: dict = {"name": name}
    if shape == 0:      # exemplary
        tool["description"] = (f"{verb.capitalize()} a {obj} by its identifier and return the {obj} record "
                               f"with status and totals.")
        props["status"] = {"type": "string", "enum": ["open", "closed"], "description": "Status: open or closed"}
        tool["annotations"] = {"readOnlyHint": verb in ("search", "list", "fetch"), "destructiveHint": False,
                               "idempotentHint": True, "openWorldHint": False}
        tool["outputSchema"] = {"type": "object"}
    elif shape == 1:    # prose-only enum, no annotations
        tool["description"] = f"{verb.capitalize()} {obj} entries in the back office."
        props["format"] = {"type": "string", "description": "Output format, one of json, csv or xml"}
    elif shape == 2:    # nested items, verbose
        tool["description"] = (f"{verb.capitalize()} {obj} batches. " * 40).strip()
        props["items"] = {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}, "qty": {"type": "integer"}}}}
        tool["annotations"] = {"readOnlyHint": "no"}
    elif shape == 3:    # repeats its name
        tool["description"] = name.replace("_", " ")
        tool["annotations"] = {}
    elif shape == 4:    # short, untyped argument
        tool["description"] = f"{obj} {verb}"
        props["extra"] = {"description": "anything else; see above"}
    else:               # fine but example-free
        tool["description"] = f"{verb.capitalize()} the {obj} list for a customer account; returns JSON rows."
        props.pop("limit")
        props["region"] = {"type": "string", "enum": ["eu", "us"], "description": "Region eu or us"}
        tool["annotations"] = {"readOnlyHint": True}
    tool["inputSchema"] = {"type": "object", "properties": props, "required": ["id"]}
    if shape in (0, 5):
        tool["inputSchema"]["additionalProperties"] = False
    return tool


def make_catalog(n: int = 117) -> dict:
    pairs = [(v, o) for o in OBJECTS for v in VERBS]
    return {"tools": [make_tool(i, v, o) for i, (v, o) in enumerate(pairs[:n])]}


def make_intents(catalog: dict, n: int = 100) -> list[dict]:
    tools = catalog["tools"]
    out = []
    for i in range(n):
        verb, obj = tools[(i * 7) % len(tools)]["name"].split("_", 1)
        out.append({"query": f"please {verb} the {obj} number {i}", "gold": [f"{verb}_{obj}"]})
    return out


def make_mutations(catalog: dict, n: int = 20) -> list[dict]:
    tools = catalog["tools"]
    out = []
    for i in range(n):
        name = tools[(i * 11) % len(tools)]["name"]
        kind = ("blank", "genericize", "truncate", "drop_keyword")[i % 4]
        m = {"tool": name, "kind": kind}
        if kind == "truncate":
            m["chars"] = 12
        elif kind == "drop_keyword":
            m["word"] = name.split("_", 1)[1]
        out.append(m)
    return out


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    catalog = make_catalog()
    intents = make_intents(catalog)
    mutations = make_mutations(catalog)

    lint_s, quality = best_of(lambda: score_catalog(catalog), args.repeat)
    bench_s, report = best_of(lambda: run_bench(catalog, intents, mutations, min_drop=0.01), args.repeat)
    env = quality.to_dict()
    figures = {
        "tools": len(catalog["tools"]),
        "intents": len(intents),
        "mutations": len(mutations),
        "lint_seconds": round(lint_s, 4),
        "lint_goal_seconds": 1.0,
        "bench_seconds": round(bench_s, 4),
        "bench_goal_seconds": 2.0,
        "mean_score": env["mean_score"],
        "min_score": env["min_score"],
        "critical_count": env["critical_count"],
        "warning_count": env["warning_count"],
        "accuracy": report.accuracy,
        "max_drop": report.max_drop,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    verdict = lambda s, goal: "PASS" if s < goal else "MISS"  # noqa: E731
    print(f"catalog: {figures['tools']} tools; bench: {figures['intents']} intents x {figures['mutations']} mutations")
    print(f"lint (score_catalog, best of {args.repeat})   {lint_s:8.4f} s   goal < 1 s   {verdict(lint_s, 1.0)}")
    print(f"tool-bench (run_bench, best of {args.repeat})   {bench_s:8.4f} s   goal < 2 s   {verdict(bench_s, 2.0)}")
    print(f"scores: min {env['min_score']}  mean {env['mean_score']}  criticals {env['critical_count']}  "
          f"warnings {env['warning_count']}; accuracy {report.accuracy}, max drop {report.max_drop}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
