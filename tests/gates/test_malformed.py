"""Malformed suites and cassettes: each names the exact file:line (or JSON pointer) and what is wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cassette_cases import CASSETTE_CASES
from pytest_mcptest.formats.cassette import parse_cassette
from pytest_mcptest.engine.trace import Tokens
from pytest_mcptest.errors import InputError
from pytest_mcptest.gates.suite_build import load_suite


def suite_error(tmp_path: Path, text: str | bytes, name: str = "bad.mcptest.yml") -> InputError:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_suite(str(path))
    err = info.value
    assert err.path == str(path)
    return err


def assert_at(err: InputError, line: int | None, *words: str) -> None:
    assert err.line == line, err.render()
    rendered = err.render()
    first = rendered.splitlines()[0]
    if line is not None:
        assert first.startswith(f"{err.path}:{line}: "), rendered
    for word in words:
        assert word in err.message, (word, err.message)
        assert word in rendered


# --------------------------------------------------------------------------- suites: table of cases

SUITE_CASES = [
    pytest.param(
        "scenarios:\n  - name: a\n    seed: {a: 1\n",
        4, ["invalid YAML", "flow mapping"], id="yaml-unclosed-flow-mapping"),
    pytest.param(
        "scenarios:\n  - name: a\n   bad: indentation\n",
        3, ["invalid YAML"], id="yaml-bad-indentation"),
    pytest.param(
        "scenarios:\n\t- name: a\n",
        2, ["invalid YAML", "cannot start any token"], id="yaml-tab"),
    pytest.param(
        "scenarios:\n  - name: a\n    seed: {}\n    seed: {}\n",
        4, ["duplicate key 'seed'", "first defined at line 3"], id="duplicate-key"),
    pytest.param(
        "scenarios:\n  - name: a\n    seed:\n      inventory:\n        widgets: 1\n        widgets: 2\n",
        6, ["duplicate key 'widgets'", "first defined at line 5"], id="duplicate-nested-key"),
    pytest.param(
        "scenarios:\n  - {name: a, name: b}\n",
        2, ["duplicate key 'name'"], id="duplicate-key-flow"),
    pytest.param(
        "scenarios:\n  - name: a\n    transitons: []\n",
        3, ["unknown key 'transitons'", "did you mean 'transitions'?"], id="misspelled-key"),
    pytest.param(
        "scenario:\n  - name: a\n",
        1, ["unknown key 'scenario'", "did you mean 'scenarios'?"], id="misspelled-top-level-key"),
    pytest.param(
        "scenarios:\n  - name: a\n    golden:\n      calls: [a]\n      alternate: [[b]]\n",
        5, ["unknown key 'alternate'", "did you mean 'alternates'?"], id="misspelled-golden-key"),
    pytest.param(
        "scenarios:\n  - name: a\n    transitions:\n      - tool: t\n        effects: {a: 1}\n",
        5, ["unknown key 'effects'", "did you mean 'effect'?"], id="misspelled-transition-key"),
    pytest.param(
        "scenarios:\n  - cassette: x.json\n",
        2, ["scenarios[0]", "missing the required key 'name'"], id="missing-name"),
    pytest.param(
        "scenarios:\n  - name: a\n    forbidden:\n      - tool: drop\n",
        4, ["scenarios[0].forbidden[0]", "missing the required key 'reason'"], id="missing-forbidden-reason"),
    pytest.param(
        "scenarios:\n  - name: a\n    transitions:\n      - effect: {a: 1}\n",
        4, ["scenarios[0].transitions[0]", "missing the required key 'tool'"], id="missing-transition-tool"),
    pytest.param(
        "scenarios:\n  - name: a\n    golden:\n      alternates: [[a]]\n",
        3, ["scenarios[0].golden", "missing the required key 'calls'"], id="missing-golden-calls"),
    pytest.param(
        "scenarios:\n  - name: a\n    refusal: {}\n",
        3, ["scenarios[0].refusal", "missing the required key 'markers'"], id="missing-refusal-markers"),
    pytest.param(
        "scenarios:\n  - name: a\n    seed: [1, 2]\n",
        3, ["scenarios[0].seed must be object", "array"], id="wrong-type-seed"),
    pytest.param(
        "scenarios:\n  - name: a\n    transitions: {tool: x}\n",
        3, ["scenarios[0].transitions must be array", "object"], id="wrong-type-transitions"),
    pytest.param(
        "scenarios:\n  - name: 5\n",
        2, ["scenarios[0].name must be string", "number"], id="wrong-type-name"),
    pytest.param(
        "scenarios:\n  - name: a\n    golden:\n      calls: add\n",
        4, ["scenarios[0].golden.calls must be array", "string"], id="wrong-type-golden-calls"),
    pytest.param(
        "scenarios:\n  - name: a\n    skip: 3\n",
        3, ["scenarios[0].skip must be boolean or string", "number"], id="wrong-type-skip"),
    pytest.param(
        "- name: a\n",
        1, ["the document must be object", "array"], id="wrong-type-document"),
    pytest.param(
        "scenarios:\n  - name: restock::widgets\n",
        2, ["scenarios[0].name", "'::'", "restock::widgets"], id="name-with-double-colon"),
    pytest.param(
        "scenarios:\n  - name: a\n  - name: b\n  - name: a\n",
        4, ["two blocks are named 'a'", "first at line 2", "unique"], id="duplicate-names"),
    pytest.param(
        "scenarios:\n  - name: a\n---\nscenarios:\n  - name: b\n  - name: a\n",
        6, ["two blocks are named 'a'", "first at line 2"], id="duplicate-names-across-documents"),
    pytest.param(
        "scenarios:\n  - name: a\n    transitions:\n      - tool: t\n        when:\n          n: {min: '3'}\n"
        "        effect: {n: 1}\n",
        6, ["guard 'n'", "min takes a number", "string"], id="guard-min-string"),
    pytest.param(
        "scenarios:\n  - name: a\n    forbidden:\n      - tool: d\n        reason: r\n        when: {n: {max: [1]}}\n",
        6, ["guard 'n'", "max takes a number", "array"], id="forbidden-guard-max-array"),
    pytest.param(
        "scenarios:\n  - name: a\n    transitions:\n      - tool: t\n        effect:\n          n: {inc: one}\n",
        6, ["effect 'n'", "inc takes a number", "string"], id="effect-inc-string"),
    pytest.param(
        "scenarios:\n  - name: a\n    transitions:\n      - tool: t\n        effect:\n          n: {dec: true}\n",
        6, ["effect 'n'", "dec takes a number", "boolean"], id="effect-dec-boolean"),
    pytest.param(
        "scenarios:\n  - name: a\n    transitions:\n      - tool: t\n        effect:\n          n: {from_arg: 3}\n",
        6, ["effect 'n'", "from_arg takes a dotted argument path", "number"], id="from-arg-not-string"),
    pytest.param(
        "scenarios:\n  - name: a\n    transitions:\n      - tool: t\n        effect:\n          n: {decr: 1}\n",
        6, ["unknown operator 'decr'", "did you mean 'dec'?"], id="misspelled-effect-operator"),
    pytest.param(
        "scenarios:\n  - name: a\n    transitions:\n      - tool: t\n        when:\n          n: {mn: 1}\n",
        6, ["unknown operator 'mn'", "did you mean 'min'?"], id="misspelled-guard-operator"),
    pytest.param(
        "scenarios:\n  - name: a\n    transitions:\n      - tool: t\n        effect:\n          n: {from_arg: 'x..y'}\n",
        6, ["bad path 'x..y'", "empty segment"], id="from-arg-bad-path"),
    pytest.param(
        "scenarios:\n  - name: a\n    expect_state:\n      inventory..widgets: 5\n",
        4, ["bad path 'inventory..widgets'", "empty segment", "column 11"], id="bad-path-expect-state"),
    pytest.param(
        "scenarios:\n  - name: a\n    expect_state:\n      shelf_full: true\n      'a[x]': 1\n",
        5, ["bad path 'a[x]'", "column 2"], id="bad-index-expect-state"),
    pytest.param(
        "scenarios:\n  - name: a\n    transitions:\n      - tool: t\n        effect:\n          'a[': 1\n",
        6, ["bad path 'a['", "unexpected '['"], id="bad-path-effect"),
    pytest.param(
        "scenarios:\n  - name: a\n    transitions:\n      - tool: t\n        when:\n          'a.': 1\n"
        "        effect: {b: 1}\n",
        6, ["bad path 'a.'", "ends with '.'"], id="bad-path-guard"),
    pytest.param(
        "scenarios:\n  - name: a\n    expect:\n      - target: turns\n        matcher: {exact: 0}\n"
        "      - target: 'a..b'\n        matcher: {exact: 1}\n",
        6, ["scenarios[0].expect[1]", "empty segment", "'a..b'"], id="bad-path-expect-target"),
    pytest.param(
        "scenarios:\n  - name: a\n    expect:\n      - 'a..b': {exact: 1}\n",
        4, ["scenarios[0].expect[0]", "empty segment"], id="bad-path-expect-short-form"),
    pytest.param(
        "scenarios:\n  - name: a\n    expect:\n      - target: turns\n        matcher: {contain: 1}\n",
        4, ["scenarios[0].expect[0]", "unknown matcher 'contain'", "did you mean 'contains'?"],
        id="unknown-matcher"),
    pytest.param(
        "scenarios:\n  - name: a\n    expect:\n      - target: state\n        matcher:\n"
        "          schema: {type: nope}\n",
        4, ["scenarios[0].expect[0]", "malformed JSON Schema", "type"], id="malformed-json-schema"),
    pytest.param(
        "scenarios:\n  - name: a\n    expect:\n      - state: {schema: {minimum: x}}\n",
        4, ["scenarios[0].expect[0]", "malformed JSON Schema", "minimum"], id="malformed-json-schema-short"),
    pytest.param(
        "scenarios:\n  - name: a\n    expect:\n      - target: state\n        matcher:\n          regex: '('\n",
        4, ["scenarios[0].expect[0]", "invalid regular expression '('"], id="bad-regex"),
    pytest.param(
        "scenarios:\n  - name: a\n    expect:\n      - answer: {regex: '[a-'}\n",
        4, ["invalid regular expression '[a-'"], id="bad-regex-short"),
    pytest.param(
        "scenarios:\n  - name: a\n    expect:\n      - target: turns\n        matcher: {'>=': 'x'}\n",
        4, ["scenarios[0].expect[0]", "'>=' compares numbers", "string"], id="comparison-with-string"),
    pytest.param(
        "scenarios:\n  - name: a\n    marks: ['not valid']\n",
        3, ["mark name 'not valid'", "not a valid identifier"], id="bad-mark-name"),
]


@pytest.mark.parametrize("text, line, words", SUITE_CASES)
def test_malformed_suite(tmp_path, text, line, words):
    err = suite_error(tmp_path, text)
    assert_at(err, line, *words)


def test_at_least_twenty_malformed_suites():
    assert len(SUITE_CASES) >= 20


def test_render_shows_the_offending_line(tmp_path):
    err = suite_error(tmp_path, "scenarios:\n  - name: a\n    transitons: []\n    seed: {}\n")
    rendered = err.render()
    assert rendered.startswith(f"{err.path}:3: unknown key 'transitons'")
    assert ">" in rendered and "3 |     transitons: []" in rendered
    # and str() is the same rendering the pytest layer shows
    assert str(err) == rendered


def test_unknown_matcher_short_form_did_you_mean(tmp_path):
    err = suite_error(tmp_path, "scenarios:\n  - name: a\n    expect:\n      - turns: {contain: 1}\n")
    assert_at(err, 4, "contain", "did you mean 'contains'?")


def test_scalar_document_has_a_line(tmp_path):
    err = suite_error(tmp_path, "hello\n")
    assert_at(err, 1, "the document must be object", "string")


# --------------------------------------------------------------------------- aliases and encodings


def billion_laughs(levels: int = 9, width: int = 9) -> str:
    lines = ["x-lol0: &lol0 [" + ", ".join(["lol"] * width) + "]"]
    for i in range(1, levels + 1):
        lines.append(f"x-lol{i}: &lol{i} [" + ", ".join([f"*lol{i - 1}"] * width) + "]")
    lines.append("scenarios:\n  - name: boom\n    seed: {payload: *lol%d}" % levels)
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused_before_it_expands(tmp_path):
    """The loader counts what aliases would expand to and refuses before building it (how
    fast: benchmarks/bench_yaml.py)."""
    text = billion_laughs()
    err = suite_error(tmp_path, text)
    assert "aliases expand" in err.message and "refusing" in err.message
    assert err.line is not None and 1 <= err.line <= text.count("\n")
    assert err.render().startswith(f"{err.path}:{err.line}: ")


def test_alias_bomb_under_pytest_is_one_error_without_the_loaders_frames(pytester):
    """Refused at once by the loader, the bomb still hung the session for over a minute: the
    error kept the frames that found it, and pytest renders a setup error's traceback (each
    frame's arguments, the bomb's nodes among them) before the plugin's hook replaces it. The
    item raises the error without them."""
    from pytest_mcptest.plugin.collect import BadSuiteItem

    pytester.makefile(".mcptest.yml", bomb=billion_laughs())
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider")
    [item] = items
    assert isinstance(item, BadSuiteItem)
    assert item.error.__traceback__ is None and item.error.__context__ is None
    result = pytester.runpytest("-p", "no:cacheprovider", "--tb=long")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["bomb.mcptest.yml:*: aliases expand this document to more than 200,000 nodes*"])


def test_alias_bomb_in_second_document_is_refused(tmp_path):
    text = "scenarios:\n  - name: fine\n---\n" + billion_laughs()
    err = suite_error(tmp_path, text)
    assert "aliases expand" in err.message
    assert err.line is not None and err.line > 3


def test_modest_aliases_are_fine(tmp_path):
    text = ("x-seed: &seed {inventory: {widgets: 3}, shelf_full: false}\n"
            "x-t: &t {tool: add_widget, effect: {inventory.widgets: {inc: 1}}}\n"
            "scenarios:\n"
            "  - name: one\n    seed: *seed\n    transitions: [*t, *t]\n"
            "  - name: two\n    seed:\n      <<: *seed\n      extra: 1\n")
    path = tmp_path / "ok.mcptest.yml"
    path.write_text(text, encoding="utf-8")
    suite = load_suite(str(path))
    names = [b.name for b in suite.blocks]
    assert names == ["one", "two"]
    assert suite.blocks[0].world.seed == {"inventory": {"widgets": 3}, "shelf_full": False}
    assert suite.blocks[1].world.seed == {"inventory": {"widgets": 3}, "shelf_full": False, "extra": 1}


@pytest.mark.parametrize(
    "text, line",
    [
        pytest.param("scenarios:\n  - &a\n    name: x\n    seed: {loop: *a}\n", 2, id="mapping-contains-itself"),
        pytest.param("x-a: &a [1, *a]\nscenarios: []\n", 1, id="list-contains-itself"),
    ],
)
def test_recursive_alias_is_refused(tmp_path, text, line):
    err = suite_error(tmp_path, text)
    assert_at(err, line, "recursive")


def test_non_utf8_file(tmp_path):
    raw = "scenarios:\n  - name: caf".encode() + b"\xe9\n"  # latin-1 e-acute
    err = suite_error(tmp_path, raw)
    assert "not UTF-8" in err.message
    assert "byte 24" in err.message  # the 0-based offset of the bad byte
    assert err.render().startswith(err.path)


def test_empty_and_trailing_documents_are_fine(tmp_path):
    path = tmp_path / "ok.mcptest.yml"
    path.write_text("scenarios:\n  - name: a\n---\n---\nscenarios:\n  - name: b\n---\n", encoding="utf-8")
    assert [b.name for b in load_suite(str(path)).blocks] == ["a", "b"]


def test_schema_comment_line_is_allowed(tmp_path):
    path = tmp_path / "ok.mcptest.yml"
    path.write_text("# yaml-language-server: $schema=../pytest_mcptest/schema/v1.json\n"
                    "scenarios:\n  - name: a\n    transitons: []\n", encoding="utf-8")
    err = suite_error(tmp_path, path.read_text(encoding="utf-8"))
    assert_at(err, 4, "did you mean 'transitions'?")


# --------------------------------------------------------------------------- cassettes


def cassette_error(text: str, path: str = "cassettes/run.json") -> InputError:
    with pytest.raises(InputError) as info:
        parse_cassette(path, text)
    err = info.value
    assert err.path == path
    return err


def assert_pointer(err: InputError, pointer: str, *words: str) -> None:
    assert err.pointer == pointer, err.render()
    assert err.line is None
    rendered = err.render()
    assert rendered.startswith(f"{err.path} (at {pointer or '/'}): "), rendered
    for word in words:
        assert word in err.message, (word, err.message)


def test_cassette_invalid_json_names_line():
    text = '{\n  "mcptest_cassette": 1,\n  "runs": [\n    {"tool_calls": [}\n  ]\n}\n'
    err = cassette_error(text)
    assert err.line == 4
    assert err.pointer is None
    assert "invalid JSON" in err.message and "column 21" in err.message
    rendered = err.render()
    assert rendered.startswith("cassettes/run.json:4: invalid JSON")
    assert "tool_calls" not in rendered  # line and column, never the text of a file that is not JSON


def test_cassette_trailing_garbage():
    err = cassette_error('{"runs": []},\n')
    assert err.line == 1 and "invalid JSON" in err.message and "Extra data" in err.message


def test_cassette_empty_text():
    err = cassette_error("")
    assert err.line == 1 and "invalid JSON" in err.message




@pytest.mark.parametrize("data, pointer, words", CASSETTE_CASES)
def test_malformed_cassette(data, pointer, words):
    err = cassette_error(json.dumps(data, indent=2))
    assert_pointer(err, pointer, *words)


def test_at_least_twenty_malformed_cassettes():
    assert len(CASSETTE_CASES) >= 20


def test_cassette_version_boolean_is_refused():
    err = cassette_error(json.dumps({"mcptest_cassette": True, "runs": []}))
    assert_pointer(err, "/mcptest_cassette", "unsupported cassette version")


# --------------------------------------------------------------------------- cassettes that parse


def test_v1_cassette_parses_with_defaults():
    text = json.dumps({
        "mcptest_cassette": 1,
        "meta": {"agent": "weather selection", "model": "m"},
        "catalog": {"shop": {"tools": [{"name": "get_weather"}]}},
        "runs": [
            {"tool_calls": [{"name": "get_weather", "server": "shop", "args": {"city": "Sacramento"},
                             "error": True, "result": {"content": []}, "turn": 0},
                            {"name": "reply", "future_key": 1}],
             "conversation": {"turns": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
                              "tokens": {"input": 1200, "output": 320, "total": 1520}},
             "cost_micros": 4200, "judgments": [{"criterion": "c", "verdict": "pass"}], "unknown": [1]},
            {"tool_calls": []},
        ],
    })
    cassette = parse_cassette("c.json", text)
    assert cassette.shape == "v1"
    assert cassette.meta["agent"] == "weather selection"
    assert "shop" in cassette.catalog
    first, second = cassette.runs
    assert first.tool_calls[0].error is True
    assert first.tool_calls[0].server == "shop"
    assert first.tool_calls[0].args == {"city": "Sacramento"}
    assert first.tool_calls[1].error is False  # missing error is false
    assert first.tool_calls[1].args is None
    assert first.tokens == Tokens(1200, 320, 1520)
    assert first.cost_micros == 4200
    assert first.final_responses == ("a",)
    assert second.tool_calls == ()
    assert second.tokens is None  # absent, never zero
    assert second.cost_micros is None
    assert second.turns == ()


def test_missing_version_is_read_as_v1():
    cassette = parse_cassette("c.json", json.dumps({"runs": [{"tool_calls": [{"name": "a"}]}]}))
    assert cassette.shape == "v1" and cassette.runs[0].names == ("a",)


def test_error_null_is_false():
    cassette = parse_cassette("c.json", json.dumps({"runs": [{"tool_calls": [{"name": "a", "error": None}]}]}))
    assert cassette.runs[0].tool_calls[0].error is False


def test_tokens_partial_and_cost_zero_are_kept():
    cassette = parse_cassette("c.json", json.dumps(
        {"runs": [{"tool_calls": [], "cost_micros": 0, "conversation": {"tokens": {"total": 5}}}]}))
    run = cassette.runs[0]
    assert run.cost_micros == 0 and run.cost_micros is not None
    assert run.tokens == Tokens(total=5)


def test_root_envelope_parses():
    text = json.dumps({
        "tool_calls": [{"name": "search", "args": {"q": "x"}}, {"name": "open", "error": True}],
        "conversation": {"turns": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "done"}]},
    })
    cassette = parse_cassette("env.json", text)
    assert cassette.shape == "envelope"
    assert len(cassette.runs) == 1
    run = cassette.runs[0]
    assert run.names == ("search", "open")
    assert [c.error for c in run.tool_calls] == [False, True]
    assert run.final_responses == ("done",)
    assert run.tokens is None and run.cost_micros is None


def test_trace_envelope_parses():
    text = json.dumps({"trace": {"tool_calls": [{"name": "fetch"}], "cost_micros": 7,
                                 "conversation": {"tokens": {"input": 1, "output": 2, "total": 3}}}})
    cassette = parse_cassette("trace.json", text)
    assert cassette.shape == "trace"
    run = cassette.runs[0]
    assert run.names == ("fetch",)
    assert run.tool_calls[0].error is False
    assert run.cost_micros == 7
    assert run.tokens == Tokens(1, 2, 3)


def test_trace_nesting_is_checked_before_root():
    text = json.dumps({"tool_calls": [{"name": "root_call"}],
                       "trace": {"tool_calls": [{"name": "nested_call"}]}})
    cassette = parse_cassette("both.json", text)
    assert cassette.shape == "trace"
    assert cassette.runs[0].names == ("nested_call",)


def test_trace_that_is_not_an_object_falls_back_to_root():
    cassette = parse_cassette("both.json", json.dumps({"trace": "x", "tool_calls": [{"name": "root_call"}]}))
    assert cassette.shape == "envelope" and cassette.runs[0].names == ("root_call",)


@pytest.mark.parametrize("text, line, words", [
    ('scenarios:\n  - name: " padded"\n', 2, ["control characters", "start or end with a space"]),
    ('scenarios:\n  - name: "tab\\there"\n', 2, ["control characters"]),
    ("scenarios:\n  - name: a\n    tags: [skip]\n", 3, ["tag 'skip' is one of pytest's own marks"]),
    ('scenarios:\n  - name: a\n    tags: ["two words"]\n', 3, ["tag 'two words' could not be selected"]),
    ("scenarios:\n  - name: a\n    tags: [ok-tag, and]\n", 3, ["tag 'and' could not be selected"]),
    ("scenarios:\n  - name: a\n    marks: [{usefixtures: db}]\n", 3, ["'usefixtures' means nothing on a suite block"]),
])
def test_names_tags_and_marks_that_would_misbehave(tmp_path, text, line, words):
    path = tmp_path / "s.mcptest.yml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_suite(str(path))
    assert exc.value.line == line
    for word in words:
        assert word in exc.value.message
