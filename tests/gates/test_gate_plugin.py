"""A gate added from outside mcptest: the example of docs/gates.md, registered by a conftest
hook and by an entry point, collects items from its own suite section, checks that section
against its own schema, and passes and fails runs with its failure text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_mcptest import gates
from pytest_mcptest.gates import Gate, GateError, register

DOC = (Path(__file__).resolve().parents[2] / "docs" / "gates.md").read_text(encoding="utf-8")
GATE_CODE = re.search(r"```python\n(.*?)```", DOC, re.S).group(1)
SUITE = re.search(r"```yaml\n(.*?)```", DOC, re.S).group(1)
CASSETTE = {"mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "search"}, {"name": "fetch"}]}]}


@pytest.fixture
def project(pytester):
    pytester.makefile(".mcptest.yml", budget=SUITE)
    (pytester.path / "cassettes").mkdir()
    (pytester.path / "cassettes" / "lookup.json").write_text(json.dumps(CASSETTE), encoding="utf-8")
    return pytester


def test_the_docs_gate_from_a_conftest_passes_and_fails_runs(project):
    project.makeconftest(GATE_CODE)
    result = project.runpytest("-p", "no:cacheprovider", "--mcptest-report", "report.json", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*budget.mcptest.yml::lookup stays cheap PASSED*",
                                 "*budget.mcptest.yml::lookup in one call FAILED*",
                                 "*call_budget: 2 tool calls, over the budget of 1*"])
    report = json.loads((project.path / "report.json").read_text(encoding="utf-8"))
    assert [(item["kind"], item["outcome"]) for item in report["items"]] == [("call_budget", "failed"),
                                                                            ("call_budget", "passed")]
    failed = report["items"][0]
    assert failed["failures"][0]["gate"] == "call_budget"
    assert failed["envelope"] == {"calls": 2}


def test_a_block_written_as_an_attrs_class_is_refused_with_what_to_write():
    """``Block`` was an attrs class once: a plugin that still decorates its subclass is told
    what to write instead, not msgspec's 'Struct types cannot define __init__'."""
    import attrs

    from pytest_mcptest.gates import Block

    with pytest.raises(TypeError) as raised:
        @attrs.frozen
        class BudgetBlock(Block):
            max_calls: int = 0
    assert str(raised.value) == ("BudgetBlock: a Block is a msgspec Struct; declare it as "
                                 "`class BudgetBlock(Block, frozen=True)` with fields that have defaults, "
                                 "without an attrs decorator (docs/gates.md)")

    class BudgetBlock(Block, frozen=True):  # what the docs show
        max_calls: int = 0

    assert BudgetBlock(kind="k", name="n", file="f", line=1, max_calls=2).max_calls == 2


def test_the_gate_is_removed_when_its_session_ends(project):
    project.makeconftest(GATE_CODE)
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1, failed=1)
    assert gates.section_gate("call_budgets") is None
    (project.path / "conftest.py").unlink()
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)  # without the plugin the section is an unknown key
    result.stdout.fnmatch_lines(["*unknown key 'call_budgets'*"])


def test_an_entry_that_breaks_the_gates_schema_is_a_collection_error_at_its_line(project):
    project.makeconftest(GATE_CODE)
    project.makefile(".mcptest.yml", bad="call_budgets:\n  - name: x\n    max_calls: three\n")
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1, errors=1)
    result.stdout.fnmatch_lines(['bad.mcptest.yml:3: call_budgets?0?.max_calls must be integer, found string "three"'])


def test_expect_entries_of_a_plugin_section_are_checked_by_the_grammar(project):
    project.makeconftest(GATE_CODE)
    project.makefile(".mcptest.yml", bad="call_budgets:\n  - name: x\n    max_calls: 1\n"
                                          "    expect:\n      - calls: {about: 3}\n")
    result = project.runpytest("-p", "no:cacheprovider", "bad.mcptest.yml")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["bad.mcptest.yml:5: *about*"])


def test_a_gate_from_an_entry_point(project, monkeypatch):
    site = project.path / "site"
    site.mkdir()
    (site / "mcptest_budget.py").write_text(GATE_CODE.split("\n\ndef pytest_mcptest_gates")[0], encoding="utf-8")
    info = site / "mcptest_budget-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mcptest-budget\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[mcptest.gates]\ncall_budget = mcptest_budget:CALL_BUDGET\n",
                                           encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(site))
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*call_budget: 2 tool calls, over the budget of 1*"])


def test_a_gate_that_takes_a_kind_already_there_stops_the_session(project):
    project.makeconftest("from pytest_mcptest.gates import Gate, GateResult\n"
                         "def pytest_mcptest_gates(config):\n"
                         "    return [Gate('scenario', None, judge_all=lambda *a: None)]\n")
    result = project.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*a gate of kind 'scenario' already exists*"])


@pytest.mark.parametrize("made, message", [
    (lambda: "not a gate", "where a pytest_mcptest.gates.Gate was expected"),
    (lambda: Gate("mine", lambda *a: None, "servers", schema={}, judge_all=lambda *a: None), "already taken"),
    (lambda: Gate("mine", lambda *a: None, "mine", judge_all=lambda *a: None), "needs `build` and a JSON Schema"),
    (lambda: Gate("mine", lambda *a: None, "mine", schema={}), "judges nothing"),
])
def test_a_gate_that_cannot_be_used_is_refused_in_one_line(made, message):
    with pytest.raises(GateError, match=re.escape(message)):
        register([made()], "test")
    assert gates.section_gate("mine") is None


def test_registering_and_removing_a_gate():
    mine = Gate("mine", lambda *a: None, ("mine", "mine_too"), schema={}, judge_run=lambda *a: None)
    remove = register([mine], "test")
    try:
        assert gates.gate("mine") is mine and gates.section_gate("mine_too") is mine
    finally:
        remove()
    assert gates.section_gate("mine") is None
    with pytest.raises(GateError, match="no gate judges items of kind 'mine'"):
        gates.gate("mine")


def test_suites_with_a_plugins_blocks_are_not_served_from_the_suite_cache(project):
    project.makeconftest(GATE_CODE)
    project.makefile(".mcptest.yml", plain="scenarios:\n  - name: w\n    transitions: [{tool: ping}]\n"
                                            "    expect_state: {}\n")
    project.runpytest().assert_outcomes(passed=1, failed=2)  # pytest's cache (and the suite cache) on
    cached = [p.name for p in (project.path / ".pytest_cache").rglob("*.pickle")]
    assert [name.split("-", 1)[1] for name in cached] == ["plain.mcptest.yml.pickle"]
    (project.path / "conftest.py").unlink()
    result = project.runpytest()
    result.assert_outcomes(failed=1, errors=1)
    result.stdout.fnmatch_lines(["*unknown key 'call_budgets'*"])


def test_a_suite_of_built_in_sections_keeps_the_shipped_schema():
    """Only a document that holds a plugin's section is checked against the extended schema
    (jsonschema, slower); every other keeps the shipped one and its compiled check."""
    assert gates.suite_schema({"scenarios": [], "agents": [], "servers": {}, "x-note": 1}) == "v1.json"
    assert gates.suite_schema({"no_such_section": []}) == "v1.json"
    mine = Gate("mine", lambda *a: None, "mine", schema={"type": "object"}, judge_run=lambda *a: None)
    remove = register([mine], "test")
    try:
        assert gates.suite_schema({"scenarios": []}) == "v1.json"
        assert gates.suite_schema({"scenarios": [], "mine": []}).startswith("v1.json+gates-")
    finally:
        remove()
