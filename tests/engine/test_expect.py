"""The ``expect:`` assertion grammar: compile_expectation and check."""

from __future__ import annotations

import pytest

from pytest_mcptest.engine.expect import ExpectSyntaxError, check, compile_expectation

ENVELOPE = {
    "invalid_actions": 0,
    "turns": 2,
    "cost": 12.5,
    "flag": True,
    "nothing": None,
    "answer": "It is 72F in Sacramento.",
    "tool_names": ["search", "open", "search", "summarize"],
    "tool_calls": [
        {"name": "get_weather", "args": {"city": "Sacramento", "units": "F"}, "error": False},
        {"name": "open", "args": {"path": "/tmp/x", "tags": ["a", "b", "a"]}, "error": True},
        {"name": "summarize", "args": {}, "error": False},
    ],
    "golden": {"matched": True, "penalty": 0.5},
    "state": {"inventory": {"widgets": 5, "gadgets": 1}, "shelf_full": True},
    "tool": {"read_file": {"score": 0.9}, "a.b": {"c d": 3}},
    "matrix": [[1, 2], [3, 4]],
    "items": [{"id": 1, "tags": ["x"]}, {"id": 2, "tags": ["y", "z"]}, {"id": 3}],
}


def run(entry, envelope=ENVELOPE):
    return check(compile_expectation(entry), envelope)


def passes(entry, envelope=ENVELOPE) -> bool:
    result = run(entry, envelope)
    assert isinstance(result.passed, bool)
    assert isinstance(result.message, str) and result.message
    return result.passed


# --------------------------------------------------------------------------- entry forms


def test_long_form():
    exp = compile_expectation({"target": "invalid_actions", "matcher": {"exact": 0}})
    assert (exp.target, exp.path, exp.kind, exp.value) == ("invalid_actions", ("invalid_actions",), "exact", 0)
    assert check(exp, ENVELOPE).passed


def test_long_form_with_description():
    exp = compile_expectation({"target": "turns", "matcher": {">=": 1}, "description": "at least one"})
    assert check(exp, ENVELOPE).passed


def test_short_form():
    exp = compile_expectation({"golden.matched": {"exact": True}})
    assert (exp.target, exp.path, exp.kind, exp.value) == ("golden.matched", ("golden", "matched"), "exact", True)
    assert check(exp, ENVELOPE).passed


def test_both_forms_compile_the_same():
    long = compile_expectation({"target": "state.inventory.widgets", "matcher": {">": 3}})
    short = compile_expectation({"state.inventory.widgets": {">": 3}})
    assert long == short


def test_line_is_kept():
    assert compile_expectation({"turns": {"exact": 2}}, line=17).line == 17


@pytest.mark.parametrize(
    "entry, words",
    [
        ("turns", ["must be an object", "string"]),
        ([{"turns": {"exact": 1}}], ["must be an object", "array"]),
        ({"target": "turns"}, ["both 'target' and 'matcher'"]),
        ({"matcher": {"exact": 1}}, ["both 'target' and 'matcher'"]),
        ({"target": "turns", "matcher": {"exact": 1}, "extra": 1}, ["unexpected key 'extra'"]),
        ({"turns": {"exact": 1}, "actions": {"exact": 1}}, ["exactly one", "found 2 keys"]),
        ({}, ["exactly one", "found 0 keys"]),
        ({"target": 3, "matcher": {"exact": 1}}, ["target must be a path string", "number"]),
        ({"turns": {"exact": 1, "regex": "x"}}, ["one '<kind>: <value>' pair"]),
        ({"turns": {}}, ["one '<kind>: <value>' pair"]),
        ({"turns": 5}, ["one '<kind>: <value>' pair"]),
    ],
)
def test_malformed_entries(entry, words):
    with pytest.raises(ExpectSyntaxError) as info:
        compile_expectation(entry)
    for word in words:
        assert word in str(info.value)


# --------------------------------------------------------------------------- exact


@pytest.mark.parametrize(
    "target, value, ok",
    [
        ("invalid_actions", 0, True),
        ("invalid_actions", 0.0, True),  # 0 and 0.0 are one JSON number
        ("invalid_actions", False, False),  # a boolean is never a number
        ("flag", 1, False),
        ("flag", True, True),
        ("nothing", None, True),
        ("nothing", 0, False),
        ("answer", "It is 72F in Sacramento.", True),
        ("answer", "It is 72F", False),
        ("tool_calls[0].args", {"city": "Sacramento", "units": "F"}, True),
        ("tool_calls[0].args", {"city": "Sacramento"}, False),  # exact is not a subset
        ("tool_names", ["search", "open", "search", "summarize"], True),
        ("tool_names", ["open", "search", "search", "summarize"], False),  # order matters
    ],
)
def test_exact(target, value, ok):
    assert passes({target: {"exact": value}}) is ok


# --------------------------------------------------------------------------- contains


@pytest.mark.parametrize(
    "target, value, ok",
    [
        # substring
        ("answer", "72F", True),
        ("answer", "72f", False),  # case-sensitive
        ("answer", "", True),
        ("answer", "Denver", False),
        # object subset (recursive)
        ("tool_calls[0].args", {"city": "Sacramento"}, True),
        ("tool_calls[0].args", {"city": "Denver"}, False),
        ("tool_calls[0].args", {"country": "US"}, False),
        ("tool_calls[0]", {"name": "get_weather", "args": {"units": "F"}}, True),
        ("state", {"inventory": {"widgets": 5}}, True),
        ("state", {"inventory": {"widgets": 5.0}}, True),
        ("state", {"inventory": {"widgets": 6}}, False),
        ("state", {}, True),
        # list member
        ("tool_names", "open", True),
        ("tool_names", "delete", False),
        ("tool_names", "sea", False),  # membership, not substring of an item
        ("items", {"id": 2}, True),  # a member that is a superset
        ("items", {"id": 4}, False),
        ("matrix", [1, 2], False),  # a list expected is a multiset subset, not a member
        # multiset arrays
        ("tool_names", ["search", "search"], True),
        ("tool_names", ["summarize", "search"], True),  # order does not matter
        ("tool_names", ["search", "search", "search"], False),  # only two searches
        ("tool_calls[1].args.tags", ["a", "a"], True),
        ("tool_calls[1].args.tags", ["b", "b"], False),
        ("tool_calls[1].args", {"tags": ["a", "b"]}, True),  # arrays inside an object subset
        ("tool_calls[1].args", {"tags": ["c"]}, False),
        ("items", [{"id": 1}, {"id": 3}], True),
        ("items", [{"tags": ["y"]}, {"tags": ["z"]}], False),  # only one item holds y and z
        ("items", [{}, {}, {}], True),
        ("items", [{}, {}, {}, {}], False),
        ("tool_names", [], True),
        # type mismatch never passes
        ("turns", "2", False),
        ("answer", {"a": 1}, False),
        ("flag", 1, False),
    ],
)
def test_contains(target, value, ok):
    assert passes({target: {"contains": value}}) is ok


def test_contains_multiset_needs_a_real_matching():
    # A greedy matcher would give the first actual item to the first expected and fail.
    env = {"xs": [{"a": 1, "b": 1}, {"a": 1}]}
    assert passes({"xs": {"contains": [{"a": 1}, {"b": 1}]}}, env)


# --------------------------------------------------------------------------- contains-all


@pytest.mark.parametrize(
    "target, value, ok",
    [
        ("answer", ["72F", "Sacramento"], True),
        ("answer", ["72F", "Denver"], False),
        ("tool_names", ["search", "summarize"], True),
        ("tool_names", ["search", "delete"], False),
        ("state", [{"shelf_full": True}, {"inventory": {"gadgets": 1}}], True),
        ("answer", [], True),
    ],
)
def test_contains_all(target, value, ok):
    assert passes({target: {"contains-all": value}}) is ok


def test_contains_all_names_what_is_missing():
    result = run({"tool_names": {"contains-all": ["search", "delete", "drop"]}})
    assert not result.passed
    assert '"delete"' in result.message and '"drop"' in result.message


def test_contains_all_requires_a_list():
    with pytest.raises(ExpectSyntaxError, match="contains-all takes a list"):
        compile_expectation({"tool_names": {"contains-all": "search"}})


# --------------------------------------------------------------------------- regex


@pytest.mark.parametrize(
    "target, pattern, ok",
    [
        ("answer", r"\d+F", True),
        ("answer", r"^It is", True),
        ("answer", r"^Sacramento", False),  # search, anchored at the start
        ("answer", r"Sacramento\.$", True),
        ("tool_calls[0].name", r"weather", True),  # search, not fullmatch
        ("tool_calls[-1].name", r"^summ", True),
        ("turns", r"2", False),  # a number is not a string
        ("nothing", r".*", False),
        ("tool_names", r"search", False),
    ],
)
def test_regex(target, pattern, ok):
    assert passes({target: {"regex": pattern}}) is ok


def test_regex_non_string_says_so():
    result = run({"turns": {"regex": "2"}})
    assert not result.passed and "number" in result.message


@pytest.mark.parametrize("pattern", ["(", "[a-", "*x", "(?P<n>a)(?P<n>b)"])
def test_bad_regex_is_a_syntax_error(pattern):
    with pytest.raises(ExpectSyntaxError, match="invalid regular expression"):
        compile_expectation({"answer": {"regex": pattern}})


def test_regex_requires_a_string():
    with pytest.raises(ExpectSyntaxError, match="regex matcher takes a string"):
        compile_expectation({"answer": {"regex": 5}})


# --------------------------------------------------------------------------- schema


def test_schema_pass_and_fail():
    schema = {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"},
                                                                      "units": {"enum": ["F", "C"]}}}
    assert passes({"tool_calls[0].args": {"schema": schema}})
    result = run({"tool_calls[2].args": {"schema": schema}})
    assert not result.passed
    assert "does not match the schema" in result.message and "city" in result.message


def test_schema_failure_names_where():
    schema = {"type": "object", "properties": {"widgets": {"type": "string"}}}
    result = run({"state.inventory": {"schema": schema}})
    assert not result.passed and "widgets" in result.message


def test_schema_true_and_false():
    assert passes({"turns": {"schema": True}})
    assert not passes({"turns": {"schema": False}})


def test_schema_other_draft():
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": {"type": "string"}}
    assert passes({"tool_names": {"schema": schema}})
    assert not passes({"matrix": {"schema": schema}})


@pytest.mark.parametrize(
    "schema, words",
    [
        ({"type": "nope"}, ["malformed JSON Schema", "type"]),
        ({"minimum": "x"}, ["malformed JSON Schema", "minimum"]),
        ({"properties": {"a": {"type": 5}}}, ["malformed JSON Schema", "properties.a.type"]),
        ({"required": "city"}, ["malformed JSON Schema", "required"]),
        ({"$schema": "http://json-schema.org/draft-07/schema#", "type": "nope"}, ["malformed JSON Schema"]),
        ([{"type": "string"}], ["JSON Schema object", "array"]),
        ("string", ["JSON Schema object", "string"]),
        (None, ["JSON Schema object", "null"]),
    ],
)
def test_malformed_schema_is_an_error_never_a_pass(schema, words):
    with pytest.raises(ExpectSyntaxError) as info:
        compile_expectation({"turns": {"schema": schema}})
    for word in words:
        assert word in str(info.value)


# --------------------------------------------------------------------------- comparisons


@pytest.mark.parametrize(
    "target, kind, value, ok",
    [
        ("turns", ">=", 2, True),
        ("turns", ">=", 3, False),
        ("turns", ">", 1, True),
        ("turns", ">", 2, False),
        ("turns", "<=", 2, True),
        ("turns", "<=", 1.5, False),
        ("turns", "<", 3, True),
        ("turns", "<", 2, False),
        ("cost", ">", 12, True),
        ("cost", "<", 12.5, False),
        ("turns", "==", 2, True),
        ("turns", "==", 2.0, True),
        ("turns", "==", 3, False),
        ("turns", "!=", 3, True),
        ("turns", "!=", 2, False),
        ("answer", "==", "It is 72F in Sacramento.", True),  # == and != take any JSON value
        ("flag", "==", True, True),
        ("flag", "==", 1, False),  # true is not 1
        ("flag", "!=", 1, True),
        ("golden", "==", {"matched": True, "penalty": 0.5}, True),
        ("golden.penalty", "<", 1, True),
        ("tool_calls[-1].args", "==", {}, True),
        # a non-number actual fails an ordering comparison
        ("flag", ">=", 0, False),
        ("answer", ">", 0, False),
        ("nothing", "<", 1, False),
        ("tool_names", ">=", 0, False),
        ("state", "<=", 10, False),
    ],
)
def test_comparisons(target, kind, value, ok):
    assert passes({target: {kind: value}}) is ok


def test_non_number_actual_message():
    result = run({"answer": {">=": 1}})
    assert not result.passed
    assert "expected a number" in result.message and "string" in result.message


@pytest.mark.parametrize("kind", [">=", ">", "<=", "<"])
@pytest.mark.parametrize("value", ["3", True, None, [1]])
def test_ordering_comparison_requires_a_number(kind, value):
    with pytest.raises(ExpectSyntaxError, match="compares numbers"):
        compile_expectation({"turns": {kind: value}})


# --------------------------------------------------------------------------- paths


@pytest.mark.parametrize(
    "target, expected",
    [
        ("tool_calls[0].args.city", "Sacramento"),
        ("tool_calls[-1].name", "summarize"),  # the last call
        ("tool_calls[-3].name", "get_weather"),
        ("tool_calls[2].error", False),
        ("tool_calls[1].error", True),
        ("tool_calls[ 1 ].name", "open"),
        ("state.inventory.widgets", 5),
        ('tool["read_file"].score', 0.9),
        ("tool['read_file'].score", 0.9),
        ('tool["a.b"]["c d"]', 3),
        ("matrix[1][0]", 3),
        ("matrix[-1][-1]", 4),
        ("tool_names[-1]", "summarize"),
        ("tool_calls.0.name", "get_weather"),
    ],
)
def test_paths(target, expected):
    result = run({target: {"exact": expected}})
    assert result.passed, result.message
    assert result.found and result.actual == expected


@pytest.mark.parametrize(
    "target, words",
    [
        ("state.inventory.widgetz", ["state.inventory.widgetz", "resolves to nothing", "widgets", "gadgets"]),
        ("golden.mached", ["golden.mached", "matched", "penalty"]),
        ("tool_calls[3].name", ["tool_calls[3].name", "out of range", "[0..2]"]),
        ("tool_calls[-4].name", ["tool_calls[-4].name", "out of range"]),
        ("answer.length", ["answer.length", "not an object"]),
        ("state[0]", ["state[0]", "not a list", "inventory", "shelf_full"]),
        ("nothing.deeper", ["nothing.deeper", "not an object"]),
        ("missing", ["missing", "invalid_actions", "tool_calls"]),
        ('tool["write_file"].score', ["write_file", "a.b", "read_file"]),
    ],
)
@pytest.mark.parametrize("kind, value", [("exact", None), ("contains", ""), ("!=", 1), ("schema", True),
                                         ("regex", ".*"), ("<", 100), ("contains-all", [])])
def test_path_resolving_to_nothing_fails_with_nearest_keys(target, words, kind, value):
    result = run({target: {kind: value}})  # never raises
    assert result.passed is False  # never passes, whatever the matcher
    assert result.found is False
    for word in words:
        assert word in result.message
    assert "actual" not in result.to_dict()


def test_path_into_empty_list():
    result = run({"xs[0]": {"exact": 1}}, {"xs": []})
    assert not result.passed and "empty list" in result.message


def test_path_into_a_non_container_envelope():
    for envelope in (None, 3, "text", []):
        result = run({"a.b": {"exact": 1}}, envelope)
        assert not result.passed and "a.b" in result.message


def test_nearest_keys_are_capped():
    env = {f"k{i:02d}": i for i in range(30)}
    result = run({"nope": {"exact": 1}}, env)
    assert not result.passed
    assert "k00" in result.message and "..." in result.message


@pytest.mark.parametrize(
    "target, words",
    [
        ("a..b", ["empty segment", "column 3"]),
        ("a.", ["ends with '.'"]),
        (".a", ["empty segment", "column 1"]),
        ("a[", ["unexpected '['", "column 2"]),
        ("a[x]", ["unexpected '['"]),
        ("a[0]b", ["missing '.'", "'b'"]),
        ('a["unterminated]', ["unexpected '['"]),
        ("", ["non-empty"]),
        ("   ", ["non-empty"]),
    ],
)
def test_bad_paths_are_syntax_errors(target, words):
    with pytest.raises(ExpectSyntaxError) as info:
        compile_expectation({"target": target, "matcher": {"exact": 1}})
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize(
    "kind, hint",
    [("contain", "contains"), ("exactly", "exact"), ("regexp", "regex"), ("contains_all", "contains-all"),
     ("shema", "schema"), ("exatc", "exact")],
)
def test_unknown_matcher_did_you_mean(kind, hint):
    with pytest.raises(ExpectSyntaxError) as info:
        compile_expectation({"turns": {kind: 1}})
    message = str(info.value)
    assert f"unknown matcher {kind!r}" in message
    assert f"did you mean {hint!r}?" in message
    assert "contains-all" in message  # lists the kinds


def test_unknown_matcher_without_close_match_lists_kinds():
    with pytest.raises(ExpectSyntaxError) as info:
        compile_expectation({"turns": {"zzzzzzzz": 1}})
    assert "did you mean" not in str(info.value)
    assert "expected one of exact, contains" in str(info.value)


def test_result_to_dict():
    result = run({"turns": {">=": 1}})
    assert result.to_dict() == {"target": "turns", "matcher": {">=": 1}, "passed": True,
                                "message": result.message, "actual": 2}


def test_a_quoted_key_after_a_dot():
    """``stability.pass_hat_k."3"``: the spelling the docs use for keys that are numbers."""
    from pytest_mcptest.engine.paths import PathError, format_path, parse_path

    assert parse_path('stability.pass_hat_k."3"') == ("stability", "pass_hat_k", "3")
    assert parse_path('a."x.y".b') == ("a", "x.y", "b")
    assert parse_path(format_path(("a", "x.y", 3))) == ("a", "x.y", 3)
    with pytest.raises(PathError, match="missing '.' before the quoted key"):
        parse_path('a"x"')
    exp = compile_expectation({'runs."2"': {"exact": 1}})
    assert check(exp, {"runs": {"2": 1}}).passed
