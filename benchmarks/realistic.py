"""The realistic suites the paired benchmarks time: scenario items as users write them.

A scenario here is 30 to 40 lines of YAML with everything a real one carries: a seed of
nested state, four transitions with guards (``eq``, ``min``/``max``, a bare literal) and
effects (``inc``, ``inc`` from an argument, ``dec``, ``set`` and a bare value), two
forbidden rules (one guarded), a golden path, ``expect_state`` on three paths and four
``expect`` entries (long and short form, a negative index). Each scenario has its own
cassette of ``calls`` tool calls (default 10), written as ``mcptest record`` writes one:
two-space indented, with meta, arguments, results carrying text and structured content,
a conversation with its tokens, and the cost. Every scenario passes.

The yardstick is the same number of trivial Python tests (``def test_N(): pass``) over the
same number of files. Both folders get their own ``pytest.ini`` so no outer configuration
is picked up. Stdlib only: ``bench_paired.py`` and ``bench_scaling.py`` import it.
"""

from __future__ import annotations

import json
import os

INI = "[pytest]\n# written by benchmarks/realistic.py: keeps the repository's config out\n"
TOOLS_CYCLE = ("add_widget", "restock", "remove_widget")


def plan_calls(index: int, calls: int) -> tuple[list[dict], dict]:
    """The recorded calls of scenario ``index`` and the final state they lead to (every
    guard holds; the last call marks the shelf full)."""
    widgets, gadgets = index % 7, 1
    out = []
    for i in range(calls - 1):
        tool = TOOLS_CYCLE[(i + index) % len(TOOLS_CYCLE)]
        if tool == "remove_widget" and widgets < 1:
            tool = "add_widget"
        if tool == "add_widget":
            widgets += 1
            args = {"sku": f"W-{index}-{i}", "qty": 1, "bin": f"A{i % 9}"}
        elif tool == "restock":
            widgets += 2
            gadgets += 1
            args = {"supplier": "acme", "lot": f"L{index:05d}{i:03d}", "n": 2}
        else:
            widgets -= 1
            args = {"sku": f"W-{index}-{i}", "reason": "damaged in transit"}
        text = f"ok: {tool} done, the shelf now holds {widgets} widgets and {gadgets} gadgets"
        out.append({"name": tool, "server": "shop", "args": args, "error": False,
                    "result": {"content": [{"type": "text", "text": text}],
                               "structuredContent": {"widgets": widgets, "gadgets": gadgets, "ok": True}},
                    "duration_ms": 12 + i, "turn": 0})
    out.append({"name": "mark_full", "server": "shop", "args": {"by": "agent", "note": f"shelf {index} done"},
                "error": False, "result": {"content": [{"type": "text", "text": "shelf marked full"}],
                                           "structuredContent": {"ok": True}},
                "duration_ms": 9, "turn": 0})
    return out, {"widgets": widgets, "gadgets": gadgets}


def cassette(index: int, calls: list[dict], runs: int = 1) -> dict:
    prompt = f"Restock shelf {index} with widgets until it is full, then mark it full."
    run = {
        "tool_calls": calls,
        "conversation": {
            "turns": [
                {"role": "user", "content": prompt},
                {"role": "assistant", "content": [{"type": "text", "text": "I will restock the shelf."}]},
                {"role": "assistant", "content": f"I restocked shelf {index} and marked it full."},
            ],
            "tokens": {"input": 1200 + index % 100, "output": 320, "total": 1520 + index % 100},
        },
        "cost_micros": 4200,
    }
    return {
        "mcptest_cassette": 1,
        "meta": {"agent": f"restock shelf {index}", "model": "claude-sonnet-4-5", "prompt": prompt,
                 "recorded_at": "2026-01-01T00:00:00Z", "recorder": "benchmarks/realistic.py"},
        "runs": [run] * runs,
    }


def scenario_yaml(index: int, cassette_rel: str, calls: list[dict], final: dict) -> str:
    names = ", ".join(c["name"] for c in calls)
    lines = [
        f"  - name: restock shelf {index}",
        f"    cassette: {cassette_rel}",
        "    seed:",
        f"      inventory: {{widgets: {index % 7}, gadgets: 1, bins: [A0, A1, A2]}}",
        "      shelf_full: false",
        "      status: open",
        "    transitions:",
        "      - tool: add_widget",
        "        when: {shelf_full: false}",
        "        effect: {inventory.widgets: {inc: 1}}",
        "      - tool: restock",
        "        when: {status: {eq: open}, inventory.widgets: {max: 100000}}",
        "        effect:",
        "          inventory.widgets: {inc: {from_arg: n}}",
        "          inventory.gadgets: {inc: 1}",
        "      - tool: remove_widget",
        "        when: {inventory.widgets: {min: 1}}",
        "        effect:",
        "          inventory.widgets: {dec: 1}",
        "      - tool: mark_full",
        "        effect:",
        "          shelf_full: {set: true}",
        "          status: closed",
        "    forbidden:",
        "      - tool: drop_inventory",
        "        reason: destructive bulk delete is never allowed",
        "      - tool: add_widget",
        "        when: {status: closed}",
        "        reason: the shelf is closed",
        f"    golden: {{calls: [{names}]}}",
        "    expect_state:",
        f"      inventory.widgets: {final['widgets']}",
        f"      inventory.gadgets: {final['gadgets']}",
        "      shelf_full: true",
        "    expect:",
        "      - target: invalid_actions",
        "        matcher: {exact: 0}",
        "      - forbidden_transitions: {exact: 0}",
        "      - golden.matched: {exact: true}",
        "      - tool_calls[-1].name: {exact: mark_full}",
    ]
    return "\n".join(lines) + "\n"


def spread(items: int, files: int) -> list[int]:
    """How many items go into each file: as even as possible, in file order."""
    base, extra = divmod(items, files)
    return [base + (1 if f < extra else 0) for f in range(files)]


def write_ini(root: str) -> None:
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "pytest.ini"), "w", encoding="utf-8") as fh:
        fh.write(INI)


def generate_mcptest(root: str, items: int, files: int, calls: int = 10, runs: int = 1,
                     shared_cassette: bool = False) -> None:
    """``items`` scenarios over ``files`` suites under ``root``; each with its own cassette of
    ``calls`` calls and ``runs`` runs, or (``shared_cassette``) all replaying one cassette."""
    write_ini(root)
    os.makedirs(os.path.join(root, "cassettes"), exist_ok=True)
    shared = None
    if shared_cassette:
        planned, final = plan_calls(0, calls)
        shared = ("cassettes/shared.json", planned, final)
        _dump(os.path.join(root, shared[0]), cassette(0, planned, runs))
    index = 0
    for f, count in enumerate(spread(items, files)):
        parts = ["# generated by benchmarks/realistic.py\nscenarios:\n"]
        for _ in range(count):
            if shared is None:
                rel = f"cassettes/f{f:04d}_s{index:06d}.json"
                planned, final = plan_calls(index, calls)
                _dump(os.path.join(root, rel), cassette(index, planned, runs))
                parts.append(scenario_yaml(index, rel, planned, final))
            else:
                parts.append(scenario_yaml(0, shared[0], shared[1], shared[2]).replace(
                    "name: restock shelf 0", f"name: restock shelf {index}", 1))
            index += 1
        with open(os.path.join(root, f"shop_{f:04d}.mcptest.yml"), "w", encoding="utf-8") as fh:
            fh.write("".join(parts))


def _dump(path: str, data: dict) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=2) + "\n")


def generate_python(root: str, items: int, files: int) -> None:
    """The yardstick: ``items`` trivial test functions over ``files`` modules."""
    write_ini(root)
    index = 0
    for f, count in enumerate(spread(items, files)):
        body = []
        for _ in range(count):
            body.append(f"def test_{index}():\n    pass\n")
            index += 1
        with open(os.path.join(root, f"test_{f:04d}.py"), "w", encoding="utf-8") as fh:
            fh.write("\n\n".join(body))
