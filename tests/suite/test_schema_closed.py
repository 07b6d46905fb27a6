"""The suite schema is closed at every depth: a misspelled key fails collection at its line
with a suggestion (it would otherwise be ignored and its gate would silently pass), and every
problem of a document is reported at once."""

from __future__ import annotations

import pytest

from pytest_mcptest.errors import InputError
from pytest_mcptest.suite.validate import problems_error, schema_problems

AGENT = """\
servers:
  shop: {catalog: shop.json}
agents:
  - name: researcher
    servers: [shop]
    prompt: find it
"""

# One misspelling per block kind the issue names; each line is where the key is.
MISSPELLED = [
    pytest.param(AGENT + "    expected_traces: {calls: [search]}\n", 7,
                 "unknown key 'expected_traces' in agents[0]; did you mean 'expected_trace'?", id="agents"),
    pytest.param(AGENT + "tests:\n  - name: t\n    type: agent\n    agent: researcher\n"
                 "    golden_path: {calls: [search]}\n", 11,
                 "unknown key 'golden_path' in tests[0]; did you mean 'golden'?", id="tests"),
    pytest.param(AGENT + "tool_quality:\n  - name: q\n    server: shop\n    expects: []\n", 10,
                 "unknown key 'expects' in tool_quality[0]; did you mean 'expect'?", id="tool_quality"),
    pytest.param("tool_bench:\n  - name: b\n    catalog: {tools: [{name: a}]}\n    min_dorp: 0.3\n", 4,
                 "unknown key 'min_dorp' in tool_bench[0]; did you mean 'min_drop'?", id="tool_bench"),
    pytest.param(AGENT + "    distractors:\n      count: 1\n      corect: [shop.search]\n", 9,
                 "unknown key 'corect' in agents[0].distractors; did you mean 'correct'?", id="distractors"),
    pytest.param(AGENT + "    orchestration:\n      expct: [{orchestration.syntax: {'>=': 100}}]\n", 8,
                 "unknown key 'expct' in agents[0].orchestration; did you mean 'expect'?", id="orchestration"),
]


def _glob(text: str) -> str:
    """``text`` as a literal in an fnmatch pattern (``agents[0]`` is not a character class)."""
    return text.replace("[", "[[]")


@pytest.mark.parametrize("text, line, message", MISSPELLED)
def test_a_misspelled_key_fails_collection_at_its_line(pytester, text, line, message):
    pytester.makefile(".mcptest.yml", suite=text)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([_glob(f"suite.mcptest.yml:{line}: {message}") + "*", "*1 error*"])


FIVE_MISTAKES = """\
servers:
  shop: {catalog: shop.json, command: [mcptest, mock]}
agents:
  - name: a
    expct: []
    tool_selection: {expected_tool: search, min_selection_rate: 1.5}
tool_bench:
  - name: b
    catalog_path: catalog.json
    mutations:
      - {tool: search, kind: truncate}
scenarios:
  - name: c
    golden: {calls: [search], allow_extra_step: true}
"""


def test_five_mistakes_are_reported_together_in_line_order(pytester):
    pytester.makefile(".mcptest.yml", suite=FIVE_MISTAKES)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([_glob(line) for line in [
        "suite.mcptest.yml:2: 5 problems in this document:",
        "  line 2: servers.shop takes either `command` or `catalog`, not both",
        "        2 |   shop: {catalog: shop.json, command: [mcptest, mock]}",
        "  line 5: unknown key 'expct' in agents[0]; did you mean 'expect'?*",
        "*",
        "  line 6: agents[0].tool_selection.min_selection_rate must be <= 1, found 1.5",
        "*",
        "  line 11: tool_bench[0].mutations[0] is missing the required key 'chars' (needed when kind is truncate)",
        "*",
        "  line 14: unknown key 'allow_extra_step' in scenarios[0].golden; did you mean 'allow_extra_steps'?*",
    ]])


def test_a_server_with_neither_catalog_nor_command_says_so():
    problems = schema_problems({"servers": {"shop": {"cwd": "."}}})
    assert [p.message for p in problems] == ["servers.shop needs one of `command`, `catalog`, `world` or `cassette`"]


def test_a_value_close_to_an_allowed_one_gets_a_suggestion():
    doc = {"agents": [{"name": "a", "distractors": {"complexity": "paralel"}}]}
    (problem,) = schema_problems(doc)
    assert problem.message == ('agents[0].distractors.complexity must be one of "serial", "parallel", '
                               'found "paralel"; did you mean \'parallel\'?')


def test_the_word_form_and_the_object_form_of_source():
    """`source:` takes a word or an object: an object is explained as the object form."""
    doc = {"agents": [{"name": "a", "distractors": {"source": {"from": "catalog", "off": ["x"]}}}]}
    (problem,) = schema_problems(doc)
    assert problem.parts == ("agents", 0, "distractors", "source", "off")
    assert problem.message.startswith("unknown key 'off' in agents[0].distractors.source; did you mean 'of'?")
    (problem,) = schema_problems({"agents": [{"name": "a", "distractors": {"source": 3}}]})
    assert problem.message == ('agents[0].distractors.source must be "catalog" or "near_duplicate" or object, '
                               'found number 3')


def test_intents_and_mutations_are_spelled_out():
    doc = {"tool_bench": [{"name": "b", "catalog": [], "intents": [{"query": "q", "gold": "a", "weight": 2}, {}],
                           "mutations": [{"tool": "a", "kind": "drop_keyword", "word": "  "}]}]}
    assert [p.message for p in schema_problems(doc)] == [
        "unknown key 'weight' in tool_bench[0].intents[0]; expected one of: gold, query",
        "tool_bench[0].intents[1] is missing the required key 'gold'",
        "tool_bench[0].intents[1] is missing the required key 'query'",
        'tool_bench[0].mutations[0].word must not be empty or only whitespace, found "  "',
    ]


def test_a_document_without_lines_lists_json_pointers():
    problems = schema_problems({"tool_bench": [{"name": "b"}], "agents": [{"name": 5}]})
    err = problems_error("spec.json", None, problems)
    assert isinstance(err, InputError) and err.line is None and err.pointer == "/agents/0/name"
    assert err.render().splitlines() == [
        "spec.json (at /agents/0/name): 2 problems in this document:",
        "  at /agents/0/name: agents[0].name must be string, found number 5",
        "  at /tool_bench/0: tool_bench[0] needs one of `catalog` or `catalog_path`",
    ]


def test_many_problems_are_counted_past_the_listing():
    doc = {"scenarios": [{"name": "s", f"k{i}": 1} for i in range(60)]}
    err = problems_error("x.yml", None, schema_problems(doc))
    assert err.message.startswith("60 problems in this document:")
    assert err.message.endswith("  ... and 10 more")


def test_stability_and_models_are_spelled_out():
    """The second wave's `stability:` (agents, tests, conversations) and top-level `models:`."""
    good = {"models": {"openai": {"timeout": 30, "price": {"input": 0.15, "output": 0.6}},
                       "openai:gpt-4o-mini": {"base_url": "http://127.0.0.1:8080/v1", "max_retries": 0}},
            "agents": [{"name": "a", "stability": {"expect": [{'stability.pass_hat_k."3"': {">=": 80}}]}}]}
    assert schema_problems(good) == []
    bad = {"models": {"openai": {"timeot": 30, "price": {"input": 1}}},
           "agents": [{"name": "a", "stability": {"expct": []}}]}
    assert [p.message for p in schema_problems(bad)] == [
        "unknown key 'expct' in agents[0].stability; did you mean 'expect'? expected one of: expect",
        "models.openai.price is missing the required key 'output'",
        "unknown key 'timeot' in models.openai; did you mean 'timeout'? expected one of: base_url, item_max_cost_usd, "
        "item_max_tokens, max_retries, max_tokens, price, requests_per_minute, stream, temperature, timeout, "
        "tokens_per_minute",
    ]
