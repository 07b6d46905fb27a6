"""`distractors:` as its own item, `<agent> [distractors]` (issue 4)."""

from __future__ import annotations

import json
import pathlib

import pytest

from pytest_mcptest.errors import InputError
from pytest_mcptest.gates.evaluate import evaluate
from pytest_mcptest.report.render import render_verdict
from pytest_mcptest.gates.suite_build import load_suite

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "tool-selection" / "selection.mcptest.yml"

CATALOG = {"catalog": {"tools": [{"name": "search_products", "description": "Search products.",
                                  "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}}]}}


def _run(*names):
    return {"tool_calls": [{"name": n, "server": "catalog", "args": {"query": "notebook"}} for n in names]}


SUITE = """\
agents:
  - name: resists distractors
    servers: [catalog]
    cassette: run.json
    tags: [selection]
    distractors:
      count: {count}
      source: {source}
      correct: [catalog.search_products]
      complexity: parallel
{expect}"""


def _write(path, yaml, runs, catalog=CATALOG):
    (path / "run.json").write_text(json.dumps({"mcptest_cassette": 1, "runs": runs, "catalog": catalog}))
    (path / "a.mcptest.yml").write_text(yaml)
    return path / "a.mcptest.yml"


def test_an_agent_with_distractors_yields_a_second_item_right_after_it(tmp_path):
    suite = load_suite(str(_write(tmp_path, SUITE.format(count=2, source="{from: catalog}", expect=""),
                                  [_run("search_products")])))
    agent, item = suite.blocks
    assert agent.kind == "agent" and not agent.has_aggregates
    assert (item.kind, item.name, item.line) == ("distractors", "resists distractors [distractors]", 6)
    assert (item.count, item.source, item.correct, item.complexity) == (2, "catalog", ("catalog.search_products",),
                                                                        "parallel")
    assert item.cassette == "run.json" and item.tags == ("selection",)
    assert evaluate(agent).passed


def test_envelope_lists_injected_ids_and_default_gate_applies(tmp_path):
    path = _write(tmp_path, SUITE.format(count=2, source="{from: catalog}", expect=""),
                  [_run("search_products"), _run("convert_currency")])
    _, item = load_suite(str(path)).blocks
    (exp,) = item.expect
    assert (exp.target, exp.kind, exp.value) == ("distractors.accuracy", ">=", 50)
    verdict = evaluate(item)
    d = verdict.envelope["distractors"]
    assert d["distractors"] == ["convert_currency", "get_exchange_rate_history"]
    assert (d["accuracy"], d["chose_correct"], d["chose_distractor"]) == (50, 1, 1)
    assert d["complexity"] == "parallel" and d["certified_lower"] == 2.53 and verdict.passed
    path = _write(tmp_path, SUITE.format(count=2, source="{from: catalog}", expect=""),
                  [_run("convert_currency")] * 2)
    verdict = evaluate(load_suite(str(path)).blocks[1])
    assert not verdict.passed and verdict.envelope["distractors"]["accuracy"] == 0
    (failure,) = verdict.failures
    assert failure.line == 6 and "run 1: chose distractor `catalog.convert_currency`" in failure.message
    text = render_verdict(verdict)
    assert "distractors failed" in text and "2 runs" in text and "over all 2 runs" in text


def test_near_duplicates_of_the_agents_servers_tools(tmp_path):
    catalog = {**CATALOG, "other": {"tools": [{"name": "search_products_v2"}]}}
    path = _write(tmp_path, SUITE.format(count=2, source="{from: near_duplicate, of: [search_products]}",
                                         expect="      expect: [{distractors.chose_distractor: {'==': 1}}]\n"),
                  [_run("search_products"), _run("search_products_internal")], catalog)
    verdict = evaluate(load_suite(str(path)).blocks[1])
    assert verdict.passed, verdict.failures
    # only the declared server's tools are the real ones, so `search_products_v2` is still a variant
    assert verdict.envelope["distractors"]["distractors"] == ["search_products_v2", "search_products_internal"]


@pytest.mark.parametrize("count, source, line, words", [
    (2, "{from: near_duplicate}", 8, ["missing the required key 'of'", "needed when from is near_duplicate"]),
    (-1, "{from: catalog}", 7, ["count", ">= 0", "-1"]),
    (2, "{from: nearby}", 8, ['"catalog", "near_duplicate"', "nearby"]),
    (99, "{from: catalog}", 7, ["bundled catalog has"]),
    (2, "{from: near_dupliate, of: [a]}", 8, ["found \"near_dupliate\"; did you mean 'near_duplicate'?"]),
])
def test_bad_distractors_are_collection_errors_with_a_line(tmp_path, count, source, line, words):
    path = _write(tmp_path, SUITE.format(count=count, source=source, expect=""), [_run("x")])
    with pytest.raises(InputError) as exc:
        load_suite(str(path))
    assert exc.value.line == line, exc.value.render()
    for word in words:
        assert word in exc.value.message


def test_correct_must_be_a_list_of_ids(tmp_path):
    text = SUITE.format(count=1, source="{from: catalog}", expect="").replace(
        "[catalog.search_products]", "catalog.search_products")
    with pytest.raises(InputError) as exc:
        load_suite(str(_write(tmp_path, text, [_run("x")])))
    assert exc.value.line == 9 and "distractors.correct must be array, found string" in exc.value.message


def test_a_copied_node_id_reruns_the_distractors_item(pytester):
    pytester.makefile(".mcptest.yml", a=SUITE.format(count=1, source="{from: catalog}", expect=""))
    (pytester.path / "run.json").write_text(json.dumps({"mcptest_cassette": 1, "runs": [_run("search_products")],
                                                        "catalog": CATALOG}))
    result = pytester.runpytest("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=2)
    result = pytester.runpytest("-p", "no:cacheprovider", "-v", "a.mcptest.yml::resists distractors [distractors]")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*a.mcptest.yml::resists distractors ?distractors? PASSED*"])
    result = pytester.runpytest("-p", "no:cacheprovider", "-v", "a.mcptest.yml::resists distractors")
    result.assert_outcomes(passed=1)  # the agent's own id does not pick up its [distractors] item
    result.stdout.fnmatch_lines(["*a.mcptest.yml::resists distractors PASSED*"])


def test_the_example_ladder_falls_as_the_count_climbs():
    suite = load_suite(str(EXAMPLE))
    ladder = [b for b in suite.blocks if b.kind == "distractors"]
    assert [b.count for b in ladder] == [0, 2, 4, 8]
    verdicts = [evaluate(b) for b in ladder]
    assert all(v.passed for v in verdicts), [v.failures for v in verdicts]
    scores = [v.envelope["distractors"] for v in verdicts]
    assert [s["accuracy"] for s in scores] == [100, 80, 67, 50]
    assert [s["certified_lower"] for s in scores] == [54.92, 34.25, 18.92, 7.64]
    assert [len(s["distractors"]) for s in scores] == [0, 2, 4, 8]
