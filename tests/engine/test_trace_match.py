"""Offline trajectory validation: validate_trace, its modes and argument shapes, and the
golden-path penalty properties."""

from __future__ import annotations

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.engine.golden import GoldenPath, score_golden_path
from pytest_mcptest.engine.matching import MalformedSchema
from pytest_mcptest.engine.trace import ToolCall
from pytest_mcptest.engine.trace_match import (
    ARG_KINDS,
    MODES,
    ExpectedCall,
    ExpectedTrace,
    TraceValidation,
    validate_trace,
)

E = ExpectedCall
ALL_MODES = ("strict", "exact_sequence", "subsequence", "unordered", "superset", "subset")
PROPS = settings(max_examples=budget(200), database=None, deadline=None)


# --------------------------------------------------------------------------- helpers


def tc(name, args=None):
    return ToolCall(name, args)


def names(*tool_names):
    return [tc(n, {"n": n}) for n in tool_names]


def run(mode, expected_calls, recorded) -> TraceValidation:
    return validate_trace(recorded, ExpectedTrace(mode, expected_calls))


def check_shape(result: TraceValidation):
    """Invariants every result has: passed iff no mismatches; one-line reasons; JSON pointers."""
    assert result.passed is (not result.mismatches)
    for m in result.mismatches:
        assert isinstance(m.reason, str) and m.reason
        assert "\n" not in m.reason and "\r" not in m.reason
        for d in m.diffs:
            assert d.pointer == "/name" or d.pointer == "/args" or d.pointer.startswith("/args/")
    return result


def same_outcome(a: TraceValidation, b: TraceValidation):
    return (a.passed, a.mismatches, a.pairs) == (b.passed, b.mismatches, b.pairs)


# --------------------------------------------------------------------------- vocabulary


def test_mode_and_kind_vocabulary():
    assert set(MODES) == set(ALL_MODES) | {"exact-sequence"}  # the spec spells the alias both ways
    with pytest.raises(ValueError, match="unknown argument shape"):
        E("a", "bogus", {})
    assert set(ARG_KINDS) == {"any", "ignore", "exact", "subset", "schema"}
    with pytest.raises(ValueError):
        ExpectedTrace("fuzzy", [E("a")])
    assert ExpectedTrace.strict([E("a")]).mode == "strict"
    assert ExpectedTrace.subsequence([E("a")]).mode == "subsequence"
    assert E.by_name("open") == E("open", "any")


# --------------------------------------------------------------------------- modes x orderings

REF = ("a", "b", "c")

#                         strict  subseq  unordered/superset  subset
ORDERINGS = {
    "in_order":          (("a", "b", "c"), True, True, True, True),
    "reversed":          (("c", "b", "a"), False, False, True, True),
    "rotated":           (("b", "c", "a"), False, False, True, True),
    "interleaved_extra": (("x", "a", "y", "b", "z", "c"), False, True, True, False),
    "trailing_extra":    (("a", "b", "c", "x"), False, True, True, False),
    "leading_extra":     (("x", "a", "b", "c"), False, True, True, False),
    "reversed_extra":    (("c", "x", "b", "a"), False, False, True, False),
    "duplicate_call":    (("a", "a", "b", "c"), False, True, True, False),
    "missing_middle":    (("a", "c"), False, False, False, True),
    "missing_last":      (("a", "b"), False, False, False, True),
    "missing_reordered": (("c", "a"), False, False, False, True),
    "missing_and_extra": (("a", "x", "c"), False, False, False, False),
    "only_extras":       (("x", "y"), False, False, False, False),
    "empty_trace":       ((), False, False, False, True),
}


def expected_outcome(mode, row):
    _, strict, subseq, unordered, sub = row
    return {"strict": strict, "exact_sequence": strict, "subsequence": subseq,
            "unordered": unordered, "superset": unordered, "subset": sub}[mode]


@pytest.mark.parametrize("mode", ALL_MODES)
@pytest.mark.parametrize("case", list(ORDERINGS))
def test_modes_on_orderings(mode, case):
    row = ORDERINGS[case]
    recorded = names(*row[0])
    result = check_shape(run(mode, [E(n) for n in REF], recorded))
    assert result.passed is expected_outcome(mode, row), result
    assert result.mode == mode
    if result.passed:
        assert result.mismatches == ()


@pytest.mark.parametrize("mode", ALL_MODES)
@pytest.mark.parametrize("case", list(ORDERINGS))
def test_modes_on_orderings_with_arg_shapes(mode, case):
    """Same table, but with calls pinned by exact/subset/schema args that the recorded calls satisfy."""
    row = ORDERINGS[case]
    recorded = [tc(n, {"n": n, "extra": 1}) for n in row[0]]
    ref = [E("a", "exact", {"n": "a", "extra": 1}), E("b", "subset", {"n": "b"}),
           E("c", "schema", {"type": "object", "properties": {"n": {"const": "c"}}, "required": ["n"]})]
    result = check_shape(run(mode, ref, recorded))
    assert result.passed is expected_outcome(mode, row), result


@pytest.mark.parametrize("mode", ALL_MODES)
def test_empty_reference(mode):
    """An empty reference passes for any trace, except under subset where only an empty trace passes."""
    assert run(mode, [], []).passed is True
    for trace in (["a"], ["a", "b"], ["x", "x", "x"]):
        result = check_shape(run(mode, [], names(*trace)))
        assert result.passed is (mode != "subset"), (mode, trace)
        if mode == "subset":
            assert [m.recorded_index for m in result.mismatches] == list(range(len(trace)))


def test_three_arg_shapes_in_one_trace():
    recorded = [ToolCall("a", {"x": 1}), ToolCall("b", {"y": 2}), ToolCall("c")]
    ref = [E("a", "exact", {"x": 1}), E("b", "subset", {"y": 2}), E("c")]
    for mode in ALL_MODES:
        assert run(mode, ref, recorded).passed


# --------------------------------------------------------------------------- strict / exact_sequence

STRICT_CASES = [
    ([], []),
    ([], [tc("a")]),
    ([E("a")], []),
    ([E("a")], [tc("a")]),
    ([E("a")], [tc("b")]),
    ([E("a"), E("b")], [tc("a"), tc("b")]),
    ([E("a"), E("b")], [tc("b"), tc("a")]),
    ([E("a"), E("b")], [tc("a"), tc("b"), tc("c")]),
    ([E("a"), E("b"), E("c")], [tc("a")]),
    ([E("a", "exact", {"x": 1})], [tc("a", {"x": 1})]),
    ([E("a", "exact", {"x": 1})], [tc("a", {"x": 2})]),
    ([E("a", "exact", {"x": 1})], [tc("a", {"x": 1, "y": 2})]),
    ([E("a", "subset", {"x": 1})], [tc("a", {"x": 1, "y": 2})]),
    ([E("a", "subset", {"x": [1, 1]})], [tc("a", {"x": [1, 2]})]),
    ([E("a", "schema", {"type": "object"})], [tc("a")]),
    ([E("a", "schema", {"type": "object"})], [ToolCall("a", {})]),
    ([E("a", "ignore"), E("b", "any")], [ToolCall("a", [1, 2]), ToolCall("b")]),
    ([E("a"), E("a")], [ToolCall("a"), ToolCall("a"), ToolCall("a")]),
    ([E("a", "subset", {}), E("a", "exact", {"x": 1})], [tc("a", {"x": 1}), tc("a", {"x": 2})]),
]


@pytest.mark.parametrize("ref, recorded", STRICT_CASES)
def test_exact_sequence_is_strict(ref, recorded):
    a = check_shape(run("strict", ref, recorded))
    b = check_shape(run("exact_sequence", ref, recorded))
    assert same_outcome(a, b)
    assert b.mode == "exact_sequence"


def test_strict_mismatch_on_reversed():
    result = check_shape(run("strict", [E("a"), E("b"), E("c")], names("c", "b", "a")))
    assert not result.passed
    assert [(m.expected_index, m.recorded_index) for m in result.mismatches] == [(0, 0), (2, 2)]
    for m in result.mismatches:
        assert [d.pointer for d in m.diffs] == ["/name"]
    first = result.mismatches[0].diffs[0]
    assert (first.expected, first.recorded) == ("a", "c")
    assert result.pairs == ((1, 1),)


def test_strict_trace_ran_out():
    result = check_shape(run("strict", [E("a"), E("b"), E("c")], names("a")))
    assert not result.passed
    assert [(m.expected_index, m.recorded_index) for m in result.mismatches] == [(1, None), (2, None)]
    assert all(m.diffs == () for m in result.mismatches)


def test_strict_trailing_extra_calls_fail():
    result = check_shape(run("strict", [E("a")], names("a", "x", "y")))
    assert not result.passed
    assert [m.recorded_index for m in result.mismatches] == [1, 2]
    assert result.pairs == ((0, 0),)


def test_reasons_number_calls_from_1_while_indexes_stay_0_based():
    """Reasons are read by people ("call 2" is the second call); the index fields are paths."""
    strict = run("strict", [E("a"), E("q")], names("a", "b", "c"))
    assert [m.reason for m in strict.mismatches] == ["call 2: q does not match",
                                                     "recorded call 3 c: beyond the 2 expected calls"]
    assert [(m.expected_index, m.recorded_index) for m in strict.mismatches] == [(1, 1), (None, 2)]
    later = run("subsequence", [E("b"), E("a")], names("a", "b"))
    assert [m.reason for m in later.mismatches] == ["expected call 2 a: not found after recorded call 2"]
    subset = run("subset", [E("a")], names("a", "z"))
    assert subset.mismatches[0].reason.startswith("recorded call 2 z ")


# --------------------------------------------------------------------------- subsequence / unordered / subset detail


def test_subsequence_respects_order_of_duplicates():
    ref = [E("a", "exact", {"i": 1}), E("a", "exact", {"i": 2})]
    assert run("subsequence", ref, [tc("a", {"i": 1}), tc("x"), tc("a", {"i": 2})]).passed
    assert not run("subsequence", ref, [tc("a", {"i": 2}), tc("a", {"i": 1})]).passed
    assert run("unordered", ref, [tc("a", {"i": 2}), tc("a", {"i": 1})]).passed


def test_subsequence_pairs_and_miss():
    result = check_shape(run("subsequence", [E("a"), E("b")], names("x", "a", "y", "b")))
    assert result.passed and result.pairs == ((0, 1), (1, 3))
    miss = check_shape(run("subsequence", [E("a"), E("q")], names("a", "b")))
    assert [m.expected_index for m in miss.mismatches] == [1]
    assert miss.mismatches[0].recorded_index is None  # no call named q anywhere


@pytest.mark.parametrize("mode", ["unordered", "superset"])
def test_unordered_needs_distinct_calls(mode):
    assert not run(mode, [E("a"), E("a")], names("a")).passed
    assert run(mode, [E("a"), E("a")], names("a", "b", "a")).passed
    result = check_shape(run(mode, [E("a"), E("z")], names("b", "a")))
    assert [(m.expected_index, m.recorded_index) for m in result.mismatches] == [(1, None)]
    assert check_shape(run(mode, [E("a")], [])).mismatches[0].recorded_index is None


def test_unordered_mismatch_points_at_closest_same_name_call():
    result = check_shape(run("unordered", [E("search", "subset", {"q": "rust"})],
                             [tc("open", {"q": "rust"}), tc("search", {"q": "go"})]))
    (m,) = result.mismatches
    assert m.expected_index == 0 and m.recorded_index == 1
    assert [d.pointer for d in m.diffs] == ["/args/q"]


def test_subset_counts_multiplicity():
    ref = [E("a"), E("b")]
    assert run("subset", ref, names("b")).passed
    result = check_shape(run("subset", ref, names("a", "a")))
    assert not result.passed
    assert [(m.expected_index, m.recorded_index) for m in result.mismatches] == [(None, 1)]
    result = check_shape(run("subset", ref, names("a", "zzz", "b")))
    assert [m.recorded_index for m in result.mismatches] == [1]
    assert "zzz" in result.mismatches[0].reason


def test_subset_checks_args():
    ref = [E("a", "exact", {"x": 1})]
    assert run("subset", ref, [tc("a", {"x": 1})]).passed
    assert not run("subset", ref, [tc("a", {"x": 2})]).passed


# --------------------------------------------------------------------------- greedy first-fit trap

GREEDY_REF = [E("a", "subset", {}), E("a", "exact", {"x": 1})]


@pytest.mark.parametrize("mode", ["unordered", "superset", "subset"])
def test_optimal_matching_not_greedy(mode):
    recorded = [tc("a", {"x": 1}), tc("a", {"x": 2})]
    result = check_shape(run(mode, GREEDY_REF, recorded))
    assert result.passed, result
    assert sorted(result.pairs) == [(0, 1), (1, 0)]


@pytest.mark.parametrize("mode", ["unordered", "superset", "subset"])
def test_optimal_matching_longer_chain(mode):
    # Each expected call accepts its own value or anything "looser" placed before it;
    # first-fit takes the wrong partner at each step, an augmenting path fixes them all.
    ref = [E("t", "any"), E("t", "subset", {"k": 1}), E("t", "exact", {"k": 1, "j": 1})]
    recorded = [tc("t", {"k": 1, "j": 1}), tc("t", {"k": 1}), tc("t", {"z": 0})]
    assert check_shape(run(mode, ref, recorded)).passed


# --------------------------------------------------------------------------- args kinds


@pytest.mark.parametrize("kind", ["any", "ignore"])
@pytest.mark.parametrize("args", [None, {}, {"x": [1, {"y": None}]}, "not-an-object", 42])
def test_any_and_ignore_pin_name_only(kind, args):
    call = tc("a", args)
    assert E("a", kind).matches(call)
    assert E("a", kind, {"ignored": True}).matches(call)
    diffs = E("b", kind).diffs(call)
    assert [(d.pointer, d.expected, d.recorded) for d in diffs] == [("/name", "b", "a")]
    assert run("strict", [E("a", kind)], [call]).passed


def test_exact_deep_equality():
    want = {"q": "rust", "filter": {"lang": ["en", "de"], "n": 1}, "flag": True, "none": None}
    assert E("a", "exact", want).matches(tc("a", {"none": None, "flag": True, "filter": {"n": 1.0, "lang": ["en", "de"]},
                                                  "q": "rust"}))
    assert not E("a", "exact", {"x": 1}).matches(tc("a", {"x": True}))
    assert not E("a", "exact", {"x": 0}).matches(tc("a", {"x": False}))
    assert not E("a", "exact", {"x": [1, 2]}).matches(tc("a", {"x": [2, 1]}))
    assert not E("a", "exact", {"x": 1}).matches(tc("a", {"x": 1, "y": 2}))
    assert E("a", "exact", None).matches(tc("a"))
    assert E("a", "exact", [1, "b"]).matches(tc("a", [1, "b"]))


def test_exact_diff_pointers():
    ref = E("search", "exact", {"q": "rust", "filter": {"lang": "en"}, "ids": [1, 2, 3], "gone": 1})
    call = tc("search", {"q": "go", "filter": {"lang": "fr"}, "ids": [1, 9, 3], "new": 2})
    result = check_shape(run("strict", [ref], [call]))
    (m,) = result.mismatches
    assert (m.expected_index, m.recorded_index) == (0, 0)
    by_ptr = {d.pointer: (d.expected, d.recorded) for d in m.diffs}
    assert by_ptr.keys() == {"/args/q", "/args/filter/lang", "/args/ids/1", "/args/gone", "/args/new"}
    assert by_ptr["/args/q"] == ("rust", "go")
    assert by_ptr["/args/filter/lang"] == ("en", "fr")
    assert by_ptr["/args/ids/1"] == (2, 9)
    assert by_ptr["/args/gone"][0] == 1
    assert by_ptr["/args/new"][1] == 2
    for d in m.diffs:
        assert d.message and "\n" not in d.message


def test_exact_pointer_escaping_and_absent_args():
    (m,) = run("strict", [E("a", "exact", {"a/b": 2, "t~": 3})], [tc("a", {"a/b": 1, "t~": 3})]).mismatches
    assert [d.pointer for d in m.diffs] == ["/args/a~1b"]
    (m,) = run("strict", [E("a", "exact", {})], [tc("a")]).mismatches
    assert [d.pointer for d in m.diffs] == ["/args"]


def test_wrong_name_reports_name_pointer_only():
    (m,) = run("strict", [E("search", "exact", {"q": 1})], [tc("open", {"q": 2})]).mismatches
    assert [(d.pointer, d.expected, d.recorded) for d in m.diffs] == [("/name", "search", "open")]


@pytest.mark.parametrize("want, got, ok", [
    ({"q": "rust"}, {"q": "rust", "limit": 10}, True),                       # extra recorded keys fine
    ({}, {"anything": 1}, True),
    ({"f": {"lang": "en"}}, {"f": {"lang": "en", "n": 2}, "q": 1}, True),    # nested object subset
    ({"tags": [1, 2]}, {"tags": [2, 3, 1]}, True),                            # arrays as multisets, order-free
    ({"tags": [1, 1]}, {"tags": [1, 2]}, False),                              # multiplicity counts
    ({"tags": [1, 1]}, {"tags": [2, 1, 1]}, True),
    ({"tags": [{"id": 1}]}, {"tags": [{"id": 1, "x": 2}, {"id": 3}]}, True),  # objects inside arrays: subset
    ({"tags": []}, {"tags": [1]}, True),
    ({"tags": []}, {"tags": "x"}, False),
    ({"q": "rust"}, {"q": "rusty"}, False),                                   # not substring
    ({"q": 1}, {"q": True}, False),
    ({"q": 1}, {"q": 1.0}, True),
    ({"q": "rust"}, {}, False),
    ({"q": "rust"}, None, False),
])
def test_subset_args(want, got, ok):
    call = tc("a", got)
    assert E("a", "subset", want).matches(call) is ok
    assert run("strict", [E("a", "subset", want)], [call]).passed is ok


def test_subset_diff_pointers():
    ref = E("a", "subset", {"q": "rust", "f": {"lang": "en", "n": 1}, "tags": [1, 1], "missing": {"t": 1}})
    call = tc("a", {"q": "go", "f": {"lang": "fr", "n": 1, "extra": 0}, "tags": [1, 2], "other": 5})
    (m,) = check_shape(run("strict", [ref], [call])).mismatches
    by_ptr = {d.pointer: (d.expected, d.recorded) for d in m.diffs}
    assert by_ptr.keys() == {"/args/q", "/args/f/lang", "/args/tags", "/args/missing"}
    assert by_ptr["/args/q"] == ("rust", "go")
    assert by_ptr["/args/f/lang"] == ("en", "fr")
    assert by_ptr["/args/tags"] == ([1, 1], [1, 2])
    assert by_ptr["/args/missing"][0] == {"t": 1}


SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
          "required": ["q"]}


@pytest.mark.parametrize("args, ok", [
    ({"q": "rust"}, True),
    ({"q": "rust", "limit": 5, "extra": [1]}, True),
    ({"q": 3}, False),
    ({"limit": 5}, False),
    ({"q": "x", "limit": 0}, False),
    (None, False),
    ("q", False),
])
def test_schema_args(args, ok):
    call = tc("search", args)
    assert E("search", "schema", SCHEMA).matches(call) is ok
    assert run("strict", [E("search", "schema", SCHEMA)], [call]).passed is ok


def test_schema_diff_pointers():
    (m,) = check_shape(run("strict", [E("s", "schema", SCHEMA)], [tc("s", {"q": 3, "limit": 0})])).mismatches
    assert sorted(d.pointer for d in m.diffs) == ["/args/limit", "/args/q"]
    (m,) = run("strict", [E("s", "schema", SCHEMA)], [tc("s", {"limit": 2})]).mismatches
    assert [d.pointer for d in m.diffs] == ["/args"]  # required: reported at the object
    nested = {"type": "object", "properties": {"f": {"type": "object", "properties": {"n": {"type": "integer"}}}}}
    (m,) = run("strict", [E("s", "schema", nested)], [tc("s", {"f": {"n": "x"}})]).mismatches
    assert [d.pointer for d in m.diffs] == ["/args/f/n"]


def test_schema_special_documents():
    assert E("a", "schema", True).matches(tc("a", {"x": 1}))
    assert not E("a", "schema", False).matches(tc("a", {"x": 1}))
    assert E("a", "schema", {}).matches(tc("a"))
    local = {"$defs": {"q": {"type": "string"}}, "type": "object", "properties": {"q": {"$ref": "#/$defs/q"}}}
    assert E("a", "schema", local).matches(tc("a", {"q": "x"}))
    (m,) = run("strict", [E("a", "schema", local)], [tc("a", {"q": 1})]).mismatches
    assert [d.pointer for d in m.diffs] == ["/args/q"]
    recursive = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}},
                 "additionalProperties": False}
    assert E("a", "schema", recursive).matches(tc("a", {"kids": [{"kids": []}]}))
    assert not E("a", "schema", recursive).matches(tc("a", {"kids": [{"x": 1}]}))


# --------------------------------------------------------------------------- malformed schemas

BAD_SCHEMAS = [
    {"type": "nope"},
    {"type": "object", "properties": {"q": {"type": 12}}},
    {"required": "q"},
    {"minimum": "one"},
    "not a schema",
    ["type", "object"],
]
BAD_REFS = ["#/$defs/missing", "other.json", "https://example.com/schema.json", "other.json#/x", "#/properties/nope"]


@pytest.mark.parametrize("mode", ALL_MODES)
@pytest.mark.parametrize("schema", BAD_SCHEMAS, ids=repr)
def test_malformed_schema_raises(mode, schema):
    ref = [E("a", "schema", schema)]
    # a recorded call the schema would be applied to: valid or not, the answer is an error.
    for args in ({}, {"q": "x"}, None):
        with pytest.raises(MalformedSchema):
            run(mode, ref, [tc("a", args)])


@pytest.mark.parametrize("mode", ALL_MODES)
@pytest.mark.parametrize("ref_target", BAD_REFS)
def test_ref_outside_schema_is_refused(mode, ref_target):
    schema = {"type": "object", "properties": {"q": {"$ref": ref_target}}}
    with pytest.raises(MalformedSchema):
        run(mode, [E("a", "schema", schema)], [tc("a", {"q": "x"})])


def test_malformed_schema_is_not_a_pass_alongside_other_calls():
    ref = [E("b"), E("a", "schema", {"type": "nope"})]
    for mode in ("strict", "subsequence", "unordered", "superset", "subset"):
        with pytest.raises(MalformedSchema):
            run(mode, ref, [tc("b"), tc("a", {})])


@pytest.mark.parametrize("recorded", [[], [ToolCall("b")]], ids=["empty", "other_allowed_call"])
def test_malformed_schema_never_a_silent_pass_under_subset(recorded):
    with pytest.raises(MalformedSchema):
        run("subset", [E("b"), E("a", "schema", {"type": "nope"})], recorded)


@pytest.mark.parametrize("mode", ["strict", "exact_sequence", "subsequence", "unordered", "superset"])
def test_malformed_schema_is_an_error_regardless_of_trace(mode):
    with pytest.raises(MalformedSchema):
        run(mode, [E("a", "schema", {"type": "nope"})], [ToolCall("other", {})])


# --------------------------------------------------------------------------- mismatch structure

@pytest.mark.parametrize("ref, recorded", [
    (["a", "a"], ["a"]),
    (["b", "a"], ["a", "b"]),
], ids=["duplicate_exhausted", "out_of_order_exhausted"])
def test_subsequence_trace_ran_out_reports_none(ref, recorded):
    result = run("subsequence", [E(n) for n in ref], [tc(n) for n in recorded])
    (m,) = result.mismatches
    assert m.expected_index == 1
    assert m.recorded_index is None


@pytest.mark.parametrize("mode", ["subset", "strict"])
def test_reason_is_one_line_for_odd_recorded_names(mode):
    result = run(mode, [E("a")], [tc("a"), tc("evil\nname")])
    assert not result.passed
    for m in result.mismatches:
        assert "\n" not in m.reason


def test_to_dict_round_shape():
    result = run("strict", [E("a", "exact", {"x": 1}), E("b")], [tc("a", {"x": 2})])
    d = result.to_dict()
    assert d["passed"] is False and d["mode"] == "strict"
    assert d["mismatches"][0] == {"expected_index": 0, "recorded_index": 0,
                                  "diffs": [{"pointer": "/args/x", "message": result.mismatches[0].diffs[0].message}],
                                  "reason": result.mismatches[0].reason}
    assert d["mismatches"][1]["recorded_index"] is None


# --------------------------------------------------------------------------- the spec's example


def test_spec_example_subsequence_with_a_subset_call():
    calls = [ToolCall("login", {}, server="auth"), ToolCall("search", {"q": "rust", "limit": 5}, server="web"),
             ToolCall("log_event", {"e": 1}), ToolCall("open", {"url": "https://x"})]
    expected = ExpectedTrace.subsequence([E("search", "subset", {"q": "rust"}), E.by_name("open")])
    result = validate_trace(calls, expected)
    assert result.passed and result.pairs == ((0, 1), (1, 3))
    assert not validate_trace([], expected).passed


# --------------------------------------------------------------------------- hypothesis properties

NAME = st.sampled_from(["a", "b", "c"])
SCALAR = st.integers(0, 2)
ARGS = st.one_of(
    st.none(),
    st.dictionaries(st.sampled_from(["x", "y", "z"]),
                    st.one_of(SCALAR, st.lists(SCALAR, max_size=3)), max_size=3),
)


@st.composite
def expected_for(draw, call):
    """An expected call that ``call`` satisfies."""
    name, args = call.name, call.args
    kind = draw(KINDS_OF[isinstance(args, dict)])
    if kind in ("any", "ignore"):
        return E(name, kind)
    if kind == "exact":
        return E(name, "exact", args)
    if kind == "subset":
        keys = draw(st.lists(st.sampled_from(sorted(args)), unique=True)) if args else []
        return E(name, "subset", {k: args[k] for k in keys})
    if isinstance(args, dict):
        return E(name, "schema", {"type": "object", "required": sorted(args)})
    return E(name, "schema", {"type": "null"})


@st.composite
def any_expected(draw):
    name = draw(NAME)
    kind = draw(KINDS)
    if kind in ("any", "ignore"):
        return E(name, kind)
    if kind == "schema":
        return E(name, "schema", draw(SCHEMAS))
    args = draw(ARGS)
    if kind == "subset" and args is None:
        args = {}
    return E(name, kind, args)


# Strategies built once and drawn from many times (hypothesis checks each new strategy object
# when first drawn from: built anew in every draw, that cost more than the matching tested).
KINDS_OF = {False: st.sampled_from(["any", "ignore", "exact", "schema"]),
            True: st.sampled_from(["any", "ignore", "exact", "schema", "subset"])}
KINDS = st.sampled_from(["any", "ignore", "exact", "subset", "schema"])
SCHEMAS = st.sampled_from([{"type": "object"}, {"type": "null"}, {"type": "object", "required": ["x"]}])
RECORDED_CALL = st.builds(ToolCall, NAME, ARGS)
ANY_EXPECTED = any_expected()
TRACES = st.lists(RECORDED_CALL, max_size=5)


@st.composite
def random_case(draw):
    return draw(st.lists(ANY_EXPECTED, max_size=4)), draw(TRACES)


@st.composite
def fitting_case(draw):
    """A trace and a reference derived from it one for one (so strict passes), then perhaps perturbed."""
    trace = draw(TRACES)
    ref = [draw(expected_for(c)) for c in trace]
    if draw(st.booleans()):
        ref = [draw(ANY_EXPECTED) if draw(st.integers(0, 3)) == 0 else e for e in ref]
    return ref, trace


CASES = st.one_of(random_case(), fitting_case())


@PROPS
@given(CASES)
def test_prop_how_the_modes_relate_on_any_case(case):
    """Four properties over the same drawn cases (drawing is most of an example's cost):
    strict implies subsequence, superset, unordered and (with a reference) subset;
    exact_sequence is strict under another name; superset and unordered agree; subsequence
    implies superset."""
    ref, trace = case
    strict = check_shape(validate_trace(trace, ExpectedTrace("strict", ref)))
    subsequence = validate_trace(trace, ExpectedTrace("subsequence", ref))
    superset = check_shape(validate_trace(trace, ExpectedTrace("superset", ref)))
    unordered = check_shape(validate_trace(trace, ExpectedTrace("unordered", ref)))
    if strict.passed:
        assert subsequence.passed and superset.passed and unordered.passed
        if ref:
            assert validate_trace(trace, ExpectedTrace("subset", ref)).passed
    assert same_outcome(strict, validate_trace(trace, ExpectedTrace("exact_sequence", ref)))
    assert superset.passed is unordered.passed
    if subsequence.passed:
        assert superset.passed


@st.composite
def subsequence_case(draw):
    """A trace, a reference derived from an ordered selection of it, and extra calls with insertion points."""
    trace = draw(TRACES)
    keep = draw(st.lists(st.booleans(), min_size=len(trace), max_size=len(trace)))
    ref = [draw(expected_for(c)) for c, k in zip(trace, keep) if k]
    extras = draw(st.lists(st.tuples(st.integers(0, 100), RECORDED_CALL), max_size=4))
    return ref, trace, extras


@PROPS
@given(st.one_of(subsequence_case(),
                 st.tuples(st.lists(ANY_EXPECTED, max_size=3), TRACES,
                           st.lists(st.tuples(st.integers(0, 100), RECORDED_CALL), max_size=4))))
def test_prop_subsequence_survives_inserted_calls(case):
    ref, trace, extras = case
    before = validate_trace(trace, ExpectedTrace("subsequence", ref))
    if not before.passed:
        return
    grown = list(trace)
    for where, call in extras:
        grown.insert(where % (len(grown) + 1), call)
    note(f"grown={grown!r}")
    assert check_shape(validate_trace(grown, ExpectedTrace("subsequence", ref))).passed


@st.composite
def subset_case(draw):
    """A reference, a trace each of whose base calls fits a distinct reference call (both shuffled),
    perhaps with unrelated calls appended, and a removal mask."""
    base = draw(TRACES)
    ref = [draw(expected_for(c)) for c in base] + draw(st.lists(ANY_EXPECTED, max_size=2))
    ref = draw(st.permutations(ref))
    trace = draw(st.permutations(base))
    extended = draw(st.booleans())
    if extended:
        trace = trace + draw(st.lists(RECORDED_CALL, max_size=2))  # may or may not still pass
    mask = draw(st.lists(st.booleans(), min_size=len(trace), max_size=len(trace)))
    return ref, trace, mask, extended


@PROPS
@given(subset_case())
def test_prop_subset_closed_under_removal(case):
    ref, trace, mask, extended = case
    full = check_shape(validate_trace(trace, ExpectedTrace("subset", ref)))
    if not extended:
        assert full.passed  # each call fits a distinct reference call: a one-to-one matching exists
    if not full.passed:
        return
    smaller = [c for c, keep in zip(trace, mask) if keep]
    note(f"smaller={smaller!r}")
    assert check_shape(validate_trace(smaller, ExpectedTrace("subset", ref))).passed
    assert validate_trace([], ExpectedTrace("subset", ref)).passed


@PROPS
@given(CASES, st.randoms(use_true_random=False))
def test_prop_one_to_one_modes_ignore_trace_order(case, rnd):
    ref, trace = case
    shuffled = list(trace)
    rnd.shuffle(shuffled)
    for mode in ("unordered", "superset", "subset"):
        assert validate_trace(shuffled, ExpectedTrace(mode, ref)).passed is \
            validate_trace(trace, ExpectedTrace(mode, ref)).passed


# --------------------------------------------------------------------------- golden-path penalty properties


def reference_waste(names, golden: GoldenPath):
    extra = max(0, len(names) - len(golden.calls))
    backtracks = repeats = 0
    for i, n in enumerate(names):
        if i > 0 and n == names[i - 1]:
            repeats += 1
        elif n in names[:i]:
            backtracks += 1
    w = ((0 if golden.allow_extra_steps else extra) + (backtracks if golden.penalize_backtracking else 0)
         + (repeats if golden.penalize_repeated_tools else 0))
    return extra, backtracks, repeats, w


GOLDEN = st.builds(GoldenPath, st.lists(st.sampled_from(["s", "o", "m"]), max_size=4),
                   st.booleans(), st.booleans(), st.booleans())
PATH_NAMES = st.lists(st.sampled_from(["s", "o", "m", "x"]), max_size=8)


@PROPS
@given(PATH_NAMES, GOLDEN)
def test_prop_golden_penalty(names_, golden):
    score = score_golden_path(names_, golden)
    extra, backtracks, repeats, w = reference_waste(names_, golden)
    # all three counts always reported, whatever the flags
    assert (score.extra_steps, score.backtracks, score.repeated_tools) == (extra, backtracks, repeats)
    assert score.penalty == 1.0 / (1.0 + 0.5 * w)
    assert (score.penalty == 1.0) is (w == 0)
    assert score.passed is (w == 0)
    assert 0.0 < score.penalty <= 1.0


@PROPS
@given(PATH_NAMES, GOLDEN)
def test_prop_golden_flags_only_remove_waste(names_, golden):
    import msgspec

    strictest = msgspec.structs.replace(golden, allow_extra_steps=False, penalize_backtracking=True,
                                        penalize_repeated_tools=True)
    loose = score_golden_path(names_, golden)
    tight = score_golden_path(names_, strictest)
    assert loose.penalty >= tight.penalty
    assert (loose.extra_steps, loose.backtracks, loose.repeated_tools) == \
        (tight.extra_steps, tight.backtracks, tight.repeated_tools)


def test_golden_backtrack_scores_below_clean():
    g = GoldenPath(("search", "open", "summarize"))
    clean = score_golden_path(["search", "open", "summarize"], g)
    back = score_golden_path(["search", "open", "search"], g)
    rep = score_golden_path(["search", "search", "open"], g)
    assert clean.penalty == 1.0 and clean.passed
    assert back.backtracks == 1 and back.repeated_tools == 0 and back.penalty == 1.0 / 1.5
    assert rep.repeated_tools == 1 and rep.backtracks == 0 and rep.penalty == 1.0 / 1.5
    assert back.penalty < clean.penalty
