#!/usr/bin/env python
"""Benchmark: precision and recall of the SEC rules, beside Cisco mcp-scanner's YARA rules.

Positives: the poisoned tools and tool results of ``security_corpus.py`` (written in our
words after public attack write-ups), and its held-out tools, counted apart: written
after the rules were frozen and never tuned against. Negatives: every tool of the real catalogs under
``tests/data/catalogs`` and of the examples' catalogs, and, reported apart, the hard
benign tools of the corpus (honest tools whose words sound dangerous).

A poisoned tool is flagged by our rules when any SEC finding is reported on its text
(SEC-008/009 are about names across a catalog and are left out: the YARA rules cannot see
them). A benign tool of a real catalog is linted with its catalog (its siblings known, as
``mcptest doctor`` lints it) and is a false positive of ours when it gets a Critical finding;
its Warnings are counted apart. A
tool is flagged by YARA the way ``mcpscanner``'s scanner runs its YARA analyzer: the rules
matched on the description, then on the tool's JSON without its description. A result is
flagged by ours when SEC-013 fires, by YARA when a rule matches its text.

The YARA side needs ``cisco-ai-mcp-scanner`` and ``yara-python`` installed (not
dependencies of mcptest: ``pip install --no-deps cisco-ai-mcp-scanner yara-python``;
the package is not imported, only its rule files are read and compiled with
yara-python, because importing it needs its network-facing dependencies). Without them
the YARA columns say why. Goals: no false positive on a real catalog, and recall at or
above the YARA rules'. It is a report, not a test: it exits 0 whether a goal is met or
missed. Usage::

    python benchmarks/bench_security.py
    python benchmarks/bench_security.py --json
    python benchmarks/bench_security.py --misses     # list every miss and false positive
    python benchmarks/bench_security.py --heldout    # the frozen held-out set, real catalogs, hostile input

``--heldout`` scores ``benchmarks/security_heldout/`` (written by someone who never read the
rules, frozen before they were tuned: never tune against it) as a user lints it with
``mcptest doctor --security --catalog FILE``: each file is one catalog (its tools are each
other's siblings; the label key ``x-heldout`` is a vendor extension, which the lint does not
read, as hosts do not show it to the model). It prints the poisoned tools flagged Critical
and with any finding, the tricky benign tools given a Critical (and a Warning), the tool
results, the in-sample figures of ``security_corpus.py``, the real catalogs' Criticals and
Warning rate, and the time 1 MB of hostile text takes through every rule (goal < 1 s).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pytest_mcptest.engine.catalog import catalog_tools  # noqa: E402
from pytest_mcptest.engine.security_rules import lint_catalog_security, lint_results, lint_tool_security  # noqa: E402
from pytest_mcptest.engine.trace import Run, ToolCall  # noqa: E402
from security_corpus import (  # noqa: E402
    HARD_BENIGN, HELD_OUT, HELD_OUT_2, POISONED, POISONED_RESULTS, ROUND3_BENIGN, ROUND3_PARAPHRASES, ROUND3_POISONED,
    ROUND3_RESULTS,
)

HELDOUT = ROOT / "benchmarks" / "security_heldout"
#: The real catalogs (copies of ../shared/real/catalogs, with their sources noted in tests/data).
REAL_FILES = sorted((ROOT / "tests" / "data" / "catalogs").glob("*.json"))

BENIGN_FILES = sorted((ROOT / "tests" / "data" / "catalogs").glob("*.json")) + [
    ROOT / "examples" / "tool-bench" / "catalog.json", ROOT / "examples" / "tool-quality" / "catalog-legacy.json"]


def ours_tool(tool: dict) -> bool:
    return any(f.rule not in ("SEC-008", "SEC-009") for f in lint_tool_security(tool))


def ours_result(text: str) -> bool:
    return bool(lint_results([Run(tool_calls=(ToolCall("tool", {}, result=text),))]))


def yara_matcher():
    """(match(text) -> rule names, version) from the installed mcp-scanner's rule files, or
    (None, why not)."""
    try:
        import yara
    except ImportError:
        return None, "yara-python is not installed"
    spec = importlib.util.find_spec("mcpscanner")  # finds the package without running its __init__
    if spec is None or not spec.submodule_search_locations:
        return None, "cisco-ai-mcp-scanner is not installed"
    rules_dir = Path(spec.submodule_search_locations[0]) / "data" / "yara_rules"
    sources = {p.name: p.read_text(encoding="utf-8") for p in sorted(rules_dir.iterdir())
               if p.name.endswith((".yara", ".yar"))}
    if not sources:
        return None, f"no YARA rule files in {rules_dir}"
    from importlib.metadata import version

    rules = yara.compile(sources=sources)
    return (lambda text: [m.rule for m in rules.match(data=text)] if text else []), \
        f"cisco-ai-mcp-scanner {version('cisco-ai-mcp-scanner')}, {len(sources)} rule files"


def yara_tool(match, tool: dict) -> bool:
    """As mcpscanner's scanner does: the description, then the tool's JSON without it."""
    rest = {k: v for k, v in tool.items() if k != "description"}
    return bool(match(str(tool.get("description") or "")) or match(json.dumps(rest)))


def _score(flags: list[bool], positive: bool) -> int:
    return sum(1 for f in flags if f == positive)


def run() -> dict:
    benign = [(f"{path.name}:{t.get('name')}", t) for path in BENIGN_FILES
              for t in catalog_tools(json.loads(path.read_text(encoding="utf-8")))]
    match, yara_about = yara_matcher()
    catalogs = [json.loads(path.read_text(encoding="utf-8")) for path in BENIGN_FILES]
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        for catalog in catalogs:
            lint_catalog_security(catalog)
        rounds.append(time.perf_counter() - start)
    out: dict = {"ms_per_tool": round(min(rounds) * 1000 / len(benign), 3),
                 "poisoned_tools": len(POISONED), "poisoned_results": len(POISONED_RESULTS),
                 "benign_tools": len(benign), "hard_benign_tools": len(HARD_BENIGN), "yara_rules": yara_about,
                 "catalogs": [p.name for p in BENIGN_FILES]}
    ours_benign: dict[str, str] = {}
    for path, catalog in zip(BENIGN_FILES, catalogs):
        for tool, findings in zip(catalog_tools(catalog), _per_tool(catalog)):
            ours_benign[f"{path.name}:{tool.get('name')}"] = _worst(
                [f for f in findings if f.rule not in ("SEC-008", "SEC-009")])
    out["ours_warnings_real"] = sum(1 for worst in ours_benign.values() if worst == "Warning")
    scanners = {"ours": (ours_tool, ours_result)}
    if match is not None:
        scanners["yara"] = (lambda t: yara_tool(match, t), lambda text: bool(match(text)))
    for name, (on_tool, on_result) in scanners.items():
        tp = [cid for cid, _, _, tool in POISONED if on_tool(tool)]
        rtp = [cid for cid, _, text in POISONED_RESULTS if on_result(text)]
        fp = [bid for bid, tool in benign if (ours_benign[bid] == "Critical" if name == "ours" else on_tool(tool))]
        hard_fp = [bid for bid, tool in HARD_BENIGN if on_tool(tool)]
        positives = len(POISONED) + len(POISONED_RESULTS)
        found = len(tp) + len(rtp)
        by_category: dict[str, list[int]] = {}
        for cid, category, _, tool in POISONED:
            cell = by_category.setdefault(category, [0, 0])
            cell[0] += cid in tp
            cell[1] += 1
        out[name] = {
            "recall": round(found / positives, 4),
            "tools_found": len(tp), "results_found": len(rtp),
            "false_positives_real": len(fp), "false_positives_hard": len(hard_fp),
            "precision_real": round(found / (found + len(fp)), 4) if found + len(fp) else None,
            "precision_with_hard": round(found / (found + len(fp) + len(hard_fp)), 4)
            if found + len(fp) + len(hard_fp) else None,
            "by_category": {k: f"{v[0]}/{v[1]}" for k, v in sorted(by_category.items())},
            "held_out_found": sum(1 for _, _, _, tool in HELD_OUT if on_tool(tool)),
            "held_out_missed": [cid for cid, _, _, tool in HELD_OUT + HELD_OUT_2 if not on_tool(tool)],
            "held_out_2_found": sum(1 for _, _, _, tool in HELD_OUT_2 if on_tool(tool)),
            "missed": [cid for cid, _, _, _ in POISONED if cid not in tp]
            + [cid for cid, _, _ in POISONED_RESULTS if cid not in rtp],
            "false_positive_ids": fp + hard_fp,
        }
    return out


def _worst(findings) -> str:
    """"Critical", "Warning" or "" for one tool's findings."""
    severities = {f.severity for f in findings}
    return "Critical" if "Critical" in severities else "Warning" if severities else ""


def _per_tool(catalog: dict, **kwargs) -> list[list]:
    """Each tool's findings of one catalog linted as a whole (so siblings are known)."""
    tools = catalog_tools(catalog)
    out: list[list] = [[] for _ in tools]
    for f in lint_catalog_security(catalog, **kwargs):
        out[int(f.pointer.split("/")[2])].append(f)
    return out


def _result_flagged(tool: str, text: str) -> bool:
    return bool(lint_results([Run(tool_calls=(ToolCall(tool, {}, result=text),))]))


def hostile_inputs() -> dict[str, str]:
    """About 1 MB each of the inputs that make backtracking patterns slow (issue 42: "<" and
    8,000 spaces took 2.5 s, 100,000 newlines over 30 s) and of text dense in near-matches."""
    size = 1 << 20

    def fill(piece: str) -> str:
        return (piece * (size // len(piece) + 1))[:size]

    near = ("ignore the previous send to https://x.example/ do not tell user <important ~/.ssh/ "
            "id_rsa.pub when send_email is called ")
    return {
        "'<' and spaces": "<" + " " * (size - 1),
        "newlines": "\n" * size,
        "spaces": " " * size,
        "near-matches": (near * (size // len(near) + 1))[:size],
        "one long word": "a" * size,
        "base64-like run": "QUFB" * (size // 4),
        "zero-width spaces": "a\u200b" * (size // 2),
        "Cyrillic look-alikes": "\u0456gn\u043er\u0435 " * (size // 8),
        "negated concealment": fill("Never send it without informing the user. "),
        "secret files as examples": fill("files such as .env or id_rsa.pub, "),
        "quoted mentions": fill("phrases like 'ignore previous instructions' "),
        "percent escapes": "%41" * (size // 3),
        "one sentence, no stop": fill("send the data and then to the user the previous "),
    }


def hostile(size_note: bool = True) -> dict:
    """Seconds each hostile input takes through every rule (a tool description and a result)."""
    times = {}
    for label, text in hostile_inputs().items():
        start = time.perf_counter()
        lint_tool_security({"name": "t", "description": text})
        lint_results([Run(tool_calls=(ToolCall("t", {}, result=text),))])
        times[label] = round(time.perf_counter() - start, 3)
    return times


def heldout() -> dict:
    """The frozen held-out set, the in-sample corpus and the real catalogs, scored as a user lints them."""
    def read(name):
        return json.loads((HELDOUT / name).read_text(encoding="utf-8"))

    poisoned, benign, results = read("poisoned.json"), read("benign.json"), read("results.json")
    p_worst = [_worst(fs) for fs in _per_tool(poisoned)]
    b_worst = [_worst(fs) for fs in _per_tool(benign)]
    r_flag = [(r["id"], r["poisoned"], _result_flagged(r["tool"], r["text"])) for r in results]
    by_category: dict[str, list[int]] = {}
    for tool, worst in zip(poisoned["tools"], p_worst):
        cell = by_category.setdefault(tool["x-heldout"]["category"], [0, 0, 0])
        cell[0] += worst == "Critical"
        cell[1] += bool(worst)
        cell[2] += 1
    in_sample = [tool for *_, tool in POISONED + HELD_OUT + HELD_OUT_2 + ROUND3_POISONED] \
        + [tool for _, tool in ROUND3_PARAPHRASES]
    in_worst = [_worst(lint_catalog_security([tool])) for tool in in_sample]
    results_in = [(True, text) for _, _, text in POISONED_RESULTS] + [(p, text) for _, p, text in ROUND3_RESULTS]
    hard = [(tool, []) for _, tool in HARD_BENIGN] + [(entry[2], entry[3] if len(entry) > 3 else [])
                                                      for entry in ROUND3_BENIGN]
    hard_worst = [_worst([f for f in lint_catalog_security([tool] + siblings) if f.pointer.startswith("/0/")])
                  for tool, siblings in hard]
    real = []
    for path in REAL_FILES:
        worst = [_worst(fs) for fs in _per_tool(json.loads(path.read_text(encoding="utf-8")), server=path.stem)]
        real.append((path.stem, len(worst), worst.count("Critical"), worst.count("Warning")))
    return {
        "heldout_poisoned": len(p_worst),
        "heldout_poisoned_critical": p_worst.count("Critical"),
        "heldout_poisoned_any": sum(1 for w in p_worst if w),
        "heldout_by_category": {k: f"{v[0]}/{v[1]}/{v[2]}" for k, v in sorted(by_category.items())},
        "heldout_benign": len(b_worst),
        "heldout_benign_critical": b_worst.count("Critical"),
        "heldout_benign_warning": b_worst.count("Warning"),
        "heldout_results_poisoned": sum(1 for _, p, _ in r_flag if p),
        "heldout_results_poisoned_flagged": sum(1 for _, p, f in r_flag if p and f),
        "heldout_results_benign": sum(1 for _, p, _ in r_flag if not p),
        "heldout_results_benign_flagged": sum(1 for _, p, f in r_flag if not p and f),
        "in_sample_tools": len(in_sample),
        "in_sample_critical": in_worst.count("Critical"),
        "in_sample_any": sum(1 for w in in_worst if w),
        "in_sample_results_flagged": sum(1 for p, text in results_in if p and _result_flagged("tool", text)),
        "in_sample_results": sum(1 for p, _ in results_in if p),
        "in_sample_benign_results_flagged": sum(1 for p, text in results_in if not p and _result_flagged("tool", text)),
        "in_sample_benign_results": sum(1 for p, _ in results_in if not p),
        "in_sample_hard_benign_critical": hard_worst.count("Critical"),
        "in_sample_hard_benign_warning": hard_worst.count("Warning"),
        "hard_benign": len(hard),
        "real": real,
        "hostile_seconds": hostile(),
    }


def print_heldout(out: dict) -> None:
    def pct(a, b):
        return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "0/0"

    def goal(ok):
        return "PASS" if ok else "MISS"

    n = out["heldout_poisoned"]
    print(f"held-out (benchmarks/security_heldout, frozen; {n} poisoned, {out['heldout_benign']} tricky benign tools, "
          f"{out['heldout_results_poisoned'] + out['heldout_results_benign']} results)")
    print(f"  poisoned flagged Critical      {pct(out['heldout_poisoned_critical'], n):>14}  goal >= 80% -> "
          f"{goal(out['heldout_poisoned_critical'] >= 0.8 * n)}")
    print(f"  poisoned with any finding      {pct(out['heldout_poisoned_any'], n):>14}  goal >= 90% -> "
          f"{goal(out['heldout_poisoned_any'] >= 0.9 * n)}")
    b = out["heldout_benign"]
    print(f"  benign given a Critical        {pct(out['heldout_benign_critical'], b):>14}  goal <= 1 in 30 -> "
          f"{goal(out['heldout_benign_critical'] * 30 <= b)}")
    print(f"  benign given a Warning only    {pct(out['heldout_benign_warning'], b):>14}  (allowed)")
    flagged = pct(out["heldout_results_poisoned_flagged"], out["heldout_results_poisoned"])
    print(f"  poisoned results flagged       {flagged:>14}")
    flagged = pct(out["heldout_results_benign_flagged"], out["heldout_results_benign"])
    print(f"  benign results flagged         {flagged:>14}")
    print("  by category (Critical/any/cases): " + ", ".join(f"{k} {v}" for k, v in out["heldout_by_category"].items()))
    m = out["in_sample_tools"]
    print(f"in-sample (security_corpus.py: main, held-out sets 1 and 2, round 3; {m} poisoned, "
          f"{out['hard_benign']} hard benign tools)")
    print(f"  poisoned flagged Critical      {pct(out['in_sample_critical'], m):>14}")
    print(f"  poisoned with any finding      {pct(out['in_sample_any'], m):>14}")
    print(f"  poisoned results flagged       {pct(out['in_sample_results_flagged'], out['in_sample_results']):>14}")
    print(f"  benign results flagged         "
          f"{pct(out['in_sample_benign_results_flagged'], out['in_sample_benign_results']):>14}")
    print(f"  hard benign given a Critical   {pct(out['in_sample_hard_benign_critical'], out['hard_benign']):>14}")
    print(f"  hard benign given a Warning    {pct(out['in_sample_hard_benign_warning'], out['hard_benign']):>14}")
    tools = sum(r[1] for r in out["real"])
    critical = sum(r[2] for r in out["real"])
    warning = sum(r[3] for r in out["real"])
    print(f"real catalogs ({len(out['real'])} catalogs, {tools} tools)")
    print(f"  tools given a Critical         {pct(critical, tools):>14}  goal 0 -> {goal(critical == 0)}")
    print(f"  tools given a Warning only     {pct(warning, tools):>14}  (the Warning rate)")
    for name, n_tools, c, w in out["real"]:
        if c or w:
            print(f"    {name}: {c} Critical, {w} Warning of {n_tools} tools")
    worst = max(out["hostile_seconds"].values())
    print(f"hostile input, 1 MB through every rule: worst {worst:.3f} s  goal < 1 s -> {goal(worst < 1)}")
    for label, seconds in out["hostile_seconds"].items():
        print(f"    {label:<22} {seconds:.3f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", action="store_true", help="list every miss and false positive")
    parser.add_argument("--heldout", action="store_true",
                        help="the frozen held-out set, in-sample figures, real catalogs and 1 MB of hostile text")
    args = parser.parse_args()
    if args.heldout:
        out = heldout()
        if args.json:
            print(json.dumps(out, indent=2, sort_keys=True))
        else:
            print_heldout(out)
        return 0
    out = run()
    if args.json:
        print(json.dumps(out, indent=2, sort_keys=True))
        return 0
    print(f"corpus: {out['poisoned_tools']} poisoned tools, {out['poisoned_results']} poisoned results; "
          f"{out['benign_tools']} benign tools of {len(out['catalogs'])} real and example catalogs; "
          f"{out['hard_benign_tools']} hard benign tools")
    print(f"YARA: {out['yara_rules']}")
    names = [n for n in ("ours", "yara") if n in out]
    rows = [("", *names), ("recall (tools+results)", *(f"{out[n]['recall']:.3f}" for n in names)),
            ("poisoned tools found", *(f"{out[n]['tools_found']}/{out['poisoned_tools']}" for n in names)),
            ("poisoned results found", *(f"{out[n]['results_found']}/{out['poisoned_results']}" for n in names)),
            ("held-out set 1 found", *(f"{out[n]['held_out_found']}/{len(HELD_OUT)}" for n in names)),
            ("held-out set 2 found", *(f"{out[n]['held_out_2_found']}/{len(HELD_OUT_2)}" for n in names)),
            ("false positives, real catalogs", *(f"{out[n]['false_positives_real']}/{out['benign_tools']}"
                                                 for n in names)),
            ("false positives, hard benign", *(f"{out[n]['false_positives_hard']}/{out['hard_benign_tools']}"
                                               for n in names)),
            ("precision (real)", *(str(out[n]['precision_real']) for n in names)),
            ("precision (real + hard)", *(str(out[n]['precision_with_hard']) for n in names))]
    for category in out["ours"]["by_category"]:
        rows.append((f"  {category}", *(out[n]["by_category"][category] for n in names)))
    width = max(len(r[0]) for r in rows)
    for row in rows:
        print(row[0].ljust(width) + "".join(f"  {cell:>10}" for cell in row[1:]))
    ours = out["ours"]
    print(f"ours: Warnings (not counted as false positives) on {out['ours_warnings_real']}/{out['benign_tools']} "
          "real and example tools")
    print(f"speed: {out['ms_per_tool']} ms per tool (the benign catalogs, best of 5); goal < 5 ms -> "
          f"{'PASS' if out['ms_per_tool'] < 5 else 'MISS'}")
    goal_fp = ours["false_positives_real"] == 0
    print(f"goal: no false positive on a real catalog: {ours['false_positives_real']} -> "
          f"{'PASS' if goal_fp else 'MISS'}")
    if "yara" in out:
        goal = ours["recall"] >= out["yara"]["recall"]
        print(f"goal: recall >= YARA's: {ours['recall']:.3f} vs {out['yara']['recall']:.3f} -> "
              f"{'PASS' if goal else 'MISS'}")
    else:
        print("goal: recall >= YARA's: not measured (YARA side unavailable)")
    if args.misses:
        for n in names:
            print(f"{n}: missed {', '.join(out[n]['missed'] + out[n]['held_out_missed']) or 'none'}; false positives "
                  f"{', '.join(out[n]['false_positive_ids']) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
