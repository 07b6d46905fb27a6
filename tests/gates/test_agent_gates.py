"""The tool-selection gates on agent items, judged once over every run of the cassette."""

from __future__ import annotations

import json

from pytest_mcptest.gates.evaluate import evaluate
from pytest_mcptest.report.render import render_verdict
from pytest_mcptest.gates.suite_build import load_suite


def _run(calls, total=None):
    run = {"tool_calls": [c if isinstance(c, dict) else {"name": c, "args": {"q": "x"}} for c in calls],
           "conversation": {"turns": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "ok"}]}}
    if total is not None:
        run["conversation"]["tokens"] = {"input": total - 1, "output": 1, "total": total}
    return run


def _item(tmp_path, yaml, runs, catalog=None):
    data = {"mcptest_cassette": 1, "runs": runs}
    if catalog is not None:
        data["catalog"] = catalog
    (tmp_path / "run.json").write_text(json.dumps(data))
    (tmp_path / "a.mcptest.yml").write_text(yaml)
    (block,) = load_suite(str(tmp_path / "a.mcptest.yml")).blocks
    return block, evaluate(block)


EFS = """\
agents:
  - name: research
    cassette: run.json
    equal_function_sets:
      classes:
        - name: search
          members: [brave.web_search, google.search]
        - name: fetch
          members: [http.get]
{expect}"""
F1_80 = """      expect:
        - tool_selection.f1: {">=": 80}
"""


def test_worked_example_all_classes_reached(tmp_path):
    _, verdict = _item(tmp_path, EFS.format(expect=F1_80),
                       [_run([{"name": "web_search", "server": "brave", "args": {"q": "x"}},
                              {"name": "get", "server": "http", "args": {"url": "u"}}])])
    assert verdict.passed, verdict.failures
    sel = verdict.envelope["tool_selection"]
    assert (sel["precision"], sel["recall"], sel["f1"]) == (100, 100, 100)
    assert verdict.envelope["tool_calls"]  # the run envelope is kept beside the aggregate


def test_worked_example_half_names_missed_class_and_unexpected_tool(tmp_path):
    _, verdict = _item(tmp_path, EFS.format(expect=F1_80),
                       [_run([{"name": "search", "server": "google", "args": {"q": "x"}},
                              {"name": "exec", "server": "shell", "args": {"cmd": "ls"}}])])
    sel = verdict.envelope["tool_selection"]
    assert (sel["precision"], sel["recall"], sel["f1"]) == (50, 50, 50)
    assert sel["missed"] == ["fetch"] and sel["unexpected"] == ["shell.exec"]
    (failure,) = verdict.failures
    assert failure.gate == "expect" and failure.run is None and failure.line == 11
    assert "`fetch`" in failure.message and "`shell.exec`" in failure.message
    text = render_verdict(verdict)
    assert "over all 1 run" in text and "shell.exec" in text


def test_default_gate_is_f1_at_least_50(tmp_path):
    block, verdict = _item(tmp_path, EFS.format(expect=""), [_run(["google.search", "shell.exec"])])
    (exp,) = block.equal_function_sets.expect
    assert (exp.target, exp.kind, exp.value) == ("tool_selection.f1", ">=", 50)
    assert verdict.passed  # 50 meets the default
    _, verdict = _item(tmp_path, EFS.format(expect=""), [_run(["shell.exec"])])
    assert not verdict.passed and verdict.envelope["tool_selection"]["f1"] == 0


FLOOR = """\
agents:
  - name: weather selection
    cassette: run.json
    tool_selection:
      expected_tool: get_weather
      min_selection_rate: 0.8
      max_total_tokens: 2000
"""


def test_floor_fails_with_the_spec_wording(tmp_path):
    runs = [_run(["get_weather"], 1500) for _ in range(10)]
    runs[3] = _run(["get_weather"], 2400)
    runs[6] = _run(["search"], 1500)
    runs[8] = _run(["search"], 1500)
    runs[9] = _run(["search"], 3120)
    _, verdict = _item(tmp_path, FLOOR, runs)
    assert all(r.passed for r in verdict.runs)
    (failure,) = verdict.failures
    assert failure.gate == "tool_selection"
    lines = failure.message.splitlines()
    assert lines[0] == ("FLOOR weather selection: selection rate 70% is below the 80% floor "
                        "(7 of 10 runs selected `get_weather`)")
    assert lines[1] == "FLOOR weather selection: 2 of 10 runs exceeded the 2000-token budget (worst run 3120 tokens)"
    assert "  run 4: 2400 tokens, over budget" in lines
    assert "  run 7: did not select `get_weather`, called search" in lines
    env = verdict.envelope
    assert len(env["runs"]) == 10
    sel = env["tool_selection"]
    assert (sel["selection_rate"], sel["pass_k"], sel["tokens_median"], sel["tokens_max"]) == (0.7, 0.6, 1500, 3120)
    assert sel["pass_hat_k"]["1"] == 0.6 and sel["pass_hat_k"]["10"] == 0.0
    assert "FLOOR weather selection" in render_verdict(verdict)


def test_floor_passes(tmp_path):
    _, verdict = _item(tmp_path, FLOOR, [_run(["get_weather"], 100), _run(["get_weather"], 200)])
    assert verdict.passed, verdict.failures
    assert verdict.envelope["tool_selection"]["pass_hat_k"] == {"1": 1.0, "2": 1.0}


ORCH = """\
agents:
  - name: name free
    cassette: run.json
    discovery: {name_free: true}
    equal_function_sets:
      classes:
        - {name: search, members: [search]}
        - {name: fetch, members: [fetch]}
    orchestration:
      expect:
        - target: orchestration.efficiency
          matcher: {schema: {minimum: 70}}
"""


def test_orchestration_two_classes_over_three_calls_is_67(tmp_path):
    block, verdict = _item(tmp_path, ORCH, [_run(["search", "search", "fetch"])])
    assert block.discovery == {"name_free": True}
    orch = verdict.envelope["orchestration"]
    assert (orch["efficiency"], orch["discovery"], orch["syntax"]) == (67, 100, 100)
    (failure,) = verdict.failures
    assert failure.gate == "expect" and "orchestration.efficiency" in failure.message


TOKENS = """\
agents:
  - name: lean catalog
    cassette: run.json
    token_efficiency:
      classes:
        - {name: search, members: [search]}
"""
CATALOG = {"docs": {"tools": [
    {"name": "search", "description": "Search the documents.", "inputSchema": {"type": "object"}},
    {"name": "fetch", "description": "Fetch one document.", "inputSchema": {"type": "object"}}]}}


def test_token_efficiency_counts_the_cassette_catalog(tmp_path):
    from pytest_mcptest.engine.tokens import count_surface_tokens, merged_catalog_tools

    runs = [_run(["search"]), _run(["search"])]
    runs[0]["cost_micros"] = 2000
    _, verdict = _item(tmp_path, TOKENS, runs, catalog=CATALOG)
    assert verdict.passed, verdict.failures
    eff = verdict.envelope["token_efficiency"]
    surface = count_surface_tokens(merged_catalog_tools(CATALOG))
    assert eff["tool_surface_tokens"] == surface > 0
    assert (eff["f1"], eff["correct_selections"], eff["grade"]) == (100, 2, "A")
    assert eff["tokens_per_correct"] == surface / 2 and eff["cost"] == 0.002 and eff["cost_per_correct"] == 0.001


def test_token_efficiency_without_a_catalog_fails_plainly(tmp_path):
    _, verdict = _item(tmp_path, TOKENS, [_run(["search"])])
    gates = [f.gate for f in verdict.failures]
    assert "token_efficiency" in gates


def test_tool_selection_takes_its_own_expect_and_the_agents_expect_refuses_it(tmp_path):
    import pytest as _pytest

    from pytest_mcptest.errors import InputError

    runs = [{"tool_calls": [{"name": "get_weather"}]}, {"tool_calls": [{"name": "search"}]}]
    (tmp_path / "run.json").write_text(json.dumps({"mcptest_cassette": 1, "runs": runs}))
    suite = tmp_path / "a.mcptest.yml"
    suite.write_text("agents:\n  - name: w\n    cassette: run.json\n    tool_selection:\n"
                     "      expected_tool: get_weather\n      min_selection_rate: 0.5\n"
                     "      expect: [{tool_selection.pass_hat_k.\"2\": {\">=\": 0.5}}]\n")
    verdict = evaluate(load_suite(str(suite)).blocks[0])
    assert not verdict.passed and [f.gate for f in verdict.failures] == ["expect"]
    assert "tool_selection.pass_hat_k.\"2\": expected >= 0.5, got 0.0" in verdict.failures[0].message
    suite.write_text("agents:\n  - name: w\n    cassette: run.json\n    tool_selection:\n"
                     "      expected_tool: get_weather\n      min_selection_rate: 0.5\n"
                     "    expect: [{tool_selection.selection_rate: {\">=\": 0.5}}]\n")
    with _pytest.raises(InputError) as info:
        load_suite(str(suite))
    assert info.value.line == 7 and "judged over all runs, not per run: put it under tool_selection: expect:" \
        in info.value.message


def test_hints_after_a_failed_expect_are_capped(tmp_path):
    runs = [{"tool_calls": [{"name": f"other_{i}"}]} for i in range(30)]
    (tmp_path / "run.json").write_text(json.dumps({"mcptest_cassette": 1, "runs": runs}))
    suite = tmp_path / "a.mcptest.yml"
    suite.write_text("agents:\n  - name: w\n    cassette: run.json\n    equal_function_sets:\n"
                     "      classes: [{name: s, members: [search]}]\n")
    [failure] = evaluate(load_suite(str(suite)).blocks[0]).failures
    parts = failure.message.split("; ")
    assert len(parts) == 12 and parts[-1] == "... and 50 more"  # 30 runs x (missed + unexpected) = 60 hints
