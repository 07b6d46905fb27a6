"""The five orchestration diagnostics, each empty-trace and no-class rule."""

from __future__ import annotations

import json

import pytest

from pytest_mcptest.engine.orchestration import DIAGNOSTICS, orchestrate_run, orchestration
from pytest_mcptest.engine.selection import FunctionClass
from pytest_mcptest.engine.trace import Run, ToolCall

CLASSES = [
    FunctionClass("search", ("catalog.search", "catalog.web_search")),
    FunctionClass("fetch", ("fulfillment.fetch", "fulfillment.get")),
]


def c(qualified, args=None, error=False):
    server, _, name = qualified.rpartition(".")
    return ToolCall(name=name, server=server or None, args={"q": 1} if args is None else args, error=error)


def scores(result):
    return tuple(getattr(result, d) for d in DIAGNOSTICS)


def test_reaching_both_classes_scores_discovery_100():
    r = orchestrate_run([c("catalog.search"), c("fulfillment.get")], CLASSES)
    assert scores(r) == (100, 100, 100, 100, 100)


def test_reaching_one_of_two_classes_scores_discovery_50():
    r = orchestrate_run([c("catalog.web_search")], CLASSES)
    assert r.discovery == 50
    assert r.efficiency == 100  # two classes, one call: capped


def test_two_classes_over_three_calls_is_efficiency_67():
    r = orchestrate_run([c("catalog.search"), c("catalog.web_search"), c("fulfillment.fetch")], CLASSES)
    assert r.efficiency == 67
    assert r.discovery == 100


def test_efficiency_rules():
    assert orchestrate_run([c("a.b")] * 4, CLASSES).efficiency == 50
    assert orchestrate_run([c("catalog.search")], []).efficiency == 0  # no expected classes
    assert orchestrate_run([], []).efficiency == 0
    assert orchestrate_run([], CLASSES).efficiency == 0  # nothing walked


def test_empty_trace_rules():
    r = orchestrate_run([], CLASSES)
    assert (r.parameterization, r.syntax, r.error_recovery) == (100, 100, 100)
    assert r.discovery == 0
    vacuous = orchestrate_run([], [])
    assert vacuous.discovery == 100  # the selection recall's vacuous case
    assert orchestrate_run([c("x.y")], []).discovery == 0


def test_parameterization_is_argument_presence():
    calls = [c("catalog.search", {"q": "paris"}), c("catalog.search", {}), c("catalog.search", None),
             ToolCall("fetch", args=None), ToolCall("fetch", args=["a"])]
    calls[2] = ToolCall("search", server="catalog", args=None)
    r = orchestrate_run(calls, CLASSES)
    assert r.parameterized_calls == 1 and r.parameterization == 20


def test_syntax_needs_a_name_and_object_args():
    calls = [
        ToolCall("search", args={}),          # well formed: empty object is an object
        ToolCall("search", args={"q": 1}),     # well formed
        ToolCall("", args={}),                 # empty name
        ToolCall("search", args=None),         # missing args
        ToolCall("search", args="q=1"),        # args not an object
    ]
    r = orchestrate_run(calls, CLASSES)
    assert r.well_formed_calls == 2 and r.syntax == 40


def test_error_recovery():
    # failed search retried on the same tool; failed fetch recovered by a class equivalent;
    # failed shell never recovered.
    calls = [
        c("catalog.search", error=True), c("catalog.search"),
        c("fulfillment.fetch", error=True), c("fulfillment.get"),
        c("shell.exec", error=True), c("catalog.search"),
    ]
    r = orchestrate_run(calls, CLASSES)
    assert (r.errors, r.recovered_errors, r.unrecovered) == (3, 2, (4,))
    assert r.error_recovery == 67


def test_error_recovery_needs_a_later_success():
    calls = [c("catalog.search"), c("catalog.search", error=True), c("catalog.search", error=True)]
    r = orchestrate_run(calls, CLASSES)
    assert r.error_recovery == 0
    assert orchestrate_run([c("a.b", error=True), c("a.c")], CLASSES).error_recovery == 0  # different tool
    assert orchestrate_run([c("a.b"), c("a.c")], CLASSES).error_recovery == 100  # no errors
    # the same tool on another server is another tool
    assert orchestrate_run([c("s1.t", error=True), c("s2.t")], []).error_recovery == 0


def test_multi_run_pooling():
    runs = [
        Run(tool_calls=(c("catalog.search"), c("fulfillment.get"))),                       # eff 100
        Run(tool_calls=(c("catalog.search"), c("catalog.search", {}), c("catalog.search"),
                        c("catalog.search", error=True))),                                  # eff 50, 1 search only
    ]
    o = orchestration(runs, CLASSES)
    assert o.discovery == 75  # 3 of 4 class-runs
    assert o.parameterization == 83  # 5 of 6
    assert o.syntax == 100
    assert o.error_recovery == 0  # the only error is never followed by a success
    assert o.efficiency == 75  # mean of 100 and 50
    d = o.to_dict()
    assert d["runs"] == 2 and [r["efficiency"] for r in d["per_run"]] == [100, 50]
    assert set(DIAGNOSTICS) <= set(d)


def test_single_run_aggregate_equals_run():
    calls = [c("catalog.search"), c("catalog.web_search"), c("fulfillment.fetch")]
    assert scores(orchestration([Run(tool_calls=tuple(calls))], CLASSES)) == scores(orchestrate_run(calls, CLASSES))


@pytest.mark.parametrize("runs, expected", [
    ([[], []], (0, 100, 100, 100, 0)),
    ([[c("catalog.search")], []], (25, 100, 100, 100, 50)),
])
def test_multi_run_empty_traces(runs, expected):
    assert scores(orchestration([Run(tool_calls=tuple(calls)) for calls in runs], CLASSES)) == expected


def test_arguments_that_were_not_json_are_not_well_formed():
    from pytest_mcptest.formats.cassette import parse_cassette

    cassette = parse_cassette("c.json", json.dumps({"runs": [{"tool_calls": [
        {"name": "catalog.search", "args": {"_raw": "{city: Paris"}, "args_invalid_json": True},
        {"name": "catalog.search", "args": {"q": "Paris"}}]}]}))
    assert orchestration(cassette.runs, CLASSES).to_dict()["syntax"] == 50
    assert cassette.runs[0].tool_calls[0].to_dict()["args_invalid_json"] is True


def test_args_invalid_json_must_be_a_boolean():
    from pytest_mcptest.formats.cassette import parse_cassette
    from pytest_mcptest.errors import InputError

    with pytest.raises(InputError) as info:
        parse_cassette("c.json", json.dumps({"runs": [{"tool_calls": [{"name": "a", "args_invalid_json": "yes"}]}]}))
    assert info.value.pointer == "/runs/0/tool_calls/0/args_invalid_json"
    assert 'expected a boolean or null, found "yes"' in info.value.message
