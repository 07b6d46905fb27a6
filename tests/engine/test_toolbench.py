"""tool-bench: the lexical selector, the mutations, Wilson intervals and the min_drop gate."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.engine.toolbench import (
    GENERIC_DESCRIPTION,
    Mutation,
    mutate_tool,
    run_bench,
    select,
    tokens,
    tool_cost,
    wilson_interval,
)

CATALOG = {"tools": [
    {"name": "lookup_a", "description": "Return the current weather forecast for a city, as JSON."},
    {"name": "lookup_b", "description": "Search the news archive for articles about a topic."},
    {"name": "lookup_c", "description": "Convert an amount of money between currencies at today's rate."},
]}
INTENTS = [
    {"query": "what is the weather forecast in Paris", "gold": ["lookup_a"]},
    {"query": "find news articles about elections", "gold": ["lookup_b"]},
    {"query": "convert 100 dollars to euros", "gold": "lookup_c"},
    {"query": "how much money is 5 pounds in currencies", "gold": ["lookup_c"]},
]


# --------------------------------------------------------------------------- tokenization and selection


def test_tokens_split_lower_stop_and_fold():
    assert tokens("readFile the Files, queries; boxes get-user_id") == [
        "read", "file", "file", "query", "box", "get", "user", "id"]
    assert tokens("status class bus") == ["status", "class", "bus"]
    assert tokens(GENERIC_DESCRIPTION) == []


def test_select_picks_the_largest_overlap():
    tools = CATALOG["tools"]
    assert select("weather forecast", tools) == "lookup_a"
    assert select("news archive", tools) == "lookup_b"


def test_select_ties_go_to_the_earlier_tool():
    tools = [{"name": "x", "description": "Read the file."}, {"name": "y", "description": "Read the file."}]
    assert select("read a file", tools) == "x"
    assert select("read a file", tools[::-1]) == "y"


def test_select_without_any_shared_token_picks_nothing():
    assert select("zebra", CATALOG["tools"]) is None
    assert select("", CATALOG["tools"]) is None
    assert select("weather", []) is None


def test_select_uses_name_tokens():
    tools = [{"name": "a"}, {"name": "get_weather"}]
    assert select("weather please", tools) == "get_weather"


@settings(max_examples=budget(50), deadline=None)
@given(st.text(max_size=60), st.permutations(CATALOG["tools"]))
def test_selector_is_deterministic(request, tools):
    first = select(request, tools)
    assert all(select(request, copy.deepcopy(tools)) == first for _ in range(3))
    assert first is None or first in {t["name"] for t in tools}


# --------------------------------------------------------------------------- mutations


TOOL = {"name": "t", "description": "Return the Weather forecast; weather maps too.", "annotations": {}}


def test_blank_removes_the_description_and_keeps_the_rest():
    out = mutate_tool(TOOL, Mutation("t", "blank"))
    assert "description" not in out and out["annotations"] == {}
    assert TOOL["description"].startswith("Return")  # input untouched


def test_genericize():
    assert mutate_tool(TOOL, Mutation("t", "genericize"))["description"] == GENERIC_DESCRIPTION


@pytest.mark.parametrize("chars, expected", [(0, ""), (6, "Return"), (1000, TOOL["description"])])
def test_truncate(chars, expected):
    assert mutate_tool(TOOL, Mutation("t", "truncate", chars=chars))["description"] == expected


def test_drop_keyword_removes_whole_words_case_insensitively():
    out = mutate_tool(TOOL, Mutation("t", "drop_keyword", word="weather"))
    assert out["description"] == "Return the forecast; maps too."
    partial = mutate_tool({"name": "t", "description": "weathers weather"}, Mutation("t", "drop_keyword",
                                                                                       word="weather"))
    assert partial["description"] == "weathers"


@pytest.mark.parametrize("kwargs", [{"kind": "shuffle"}, {"kind": "truncate"}, {"kind": "truncate", "chars": -1},
                                    {"kind": "truncate", "chars": True}, {"kind": "drop_keyword"},
                                    {"kind": "drop_keyword", "word": "  "}])
def test_bad_mutations_raise(kwargs):
    with pytest.raises(ValueError):
        Mutation("t", **kwargs)


def test_mutation_on_unknown_tool_raises():
    with pytest.raises(ValueError, match="tool .nope. is not in the catalog"):
        run_bench(CATALOG, INTENTS, [{"tool": "nope", "kind": "blank"}])


# --------------------------------------------------------------------------- the report


def test_baseline_report():
    report = run_bench(CATALOG, INTENTS)
    env = report.to_dict()
    assert env["intents"] == 4 and env["correct"] == 4 and env["accuracy"] == 1.0 == env["f1"]
    assert env["ci_low"] == pytest.approx(wilson_interval(4, 4)[0]) and env["ci_high"] == pytest.approx(1.0)
    assert env["tdqs_min"] <= env["tdqs_mean"] <= 1.0
    assert env["smell_total"] == sum(env["smells"].values())
    assert env["catalog_tokens"] == sum(tool_cost(t) for t in CATALOG["tools"])
    assert env["mutations"] == [] and env["max_drop"] is None
    assert "passed" not in env
    assert [p["pick"] for p in env["picks"]] == ["lookup_a", "lookup_b", "lookup_c", "lookup_c"]


def test_mutation_figures():
    muts = [
        {"tool": "lookup_a", "kind": "blank"},
        {"tool": "lookup_c", "kind": "drop_keyword", "word": "money"},
        {"tool": "lookup_b", "kind": "truncate", "chars": 10},
        {"tool": "lookup_c", "kind": "genericize"},
    ]
    report = run_bench(CATALOG, INTENTS, muts)
    blank, drop_money, trunc, generic = report.to_dict()["mutations"]
    assert (blank["accuracy"], blank["drop"]) == (0.75, 0.25)
    assert blank["smells_introduced"] == {"underspecified": 1}
    assert blank["tokens_removed"] == len(CATALOG["tools"][0]["description"].split())
    assert blank["score_after"] < blank["score_before"]
    # "money" was one of two matching words for intent 4: still picked via "currencies"
    assert drop_money["drop"] == 0.0 and drop_money["tokens_removed"] == 1
    assert trunc["drop"] == 0.25 and trunc["chars"] == 10
    assert generic["drop"] == 0.5
    assert report.max_drop == 0.5


def test_mutations_are_independent_one_at_a_time():
    one = run_bench(CATALOG, INTENTS, [{"tool": "lookup_a", "kind": "blank"}]).mutations[0]
    both = run_bench(CATALOG, INTENTS, [{"tool": "lookup_b", "kind": "blank"},
                                        {"tool": "lookup_a", "kind": "blank"}]).mutations[1]
    assert one == both


@pytest.mark.parametrize("min_drop, passed", [(0.25, True), (0.5, False), (0.0, True)])
def test_min_drop_gate(min_drop, passed):
    report = run_bench(CATALOG, INTENTS, [{"tool": "lookup_a", "kind": "blank"}], min_drop=min_drop)
    assert report.passed is passed
    assert report.to_dict()["passed"] is passed and report.to_dict()["min_drop"] == min_drop


def test_min_drop_fails_without_mutations():
    assert run_bench(CATALOG, INTENTS, [], min_drop=0.0).passed is False


def test_no_intents():
    env = run_bench(CATALOG, []).to_dict()
    assert env["intents"] == 0 and "accuracy" not in env and "ci_low" not in env


def test_bench_is_deterministic():
    muts = [{"tool": "lookup_a", "kind": "truncate", "chars": 12}]
    assert run_bench(CATALOG, INTENTS, muts).to_dict() == run_bench(copy.deepcopy(CATALOG), INTENTS, muts).to_dict()


# --------------------------------------------------------------------------- Wilson against statsmodels


@pytest.mark.parametrize("count, nobs, low, high", [
    (0, 10, 0.0, 0.27753279986884244),
    (5, 10, 0.2365930905972614, 0.7634069094027386),
    (10, 10, 0.7224672001311576, 1.0),
])
def test_wilson_known_values(count, nobs, low, high):
    assert wilson_interval(count, nobs) == pytest.approx((low, high), abs=1e-9)


@settings(max_examples=budget(30), deadline=None)
@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_matches_statsmodels_and_the_formula(pair):
    statsmodels = pytest.importorskip("statsmodels.stats.proportion")
    count, nobs = pair
    expected = statsmodels.proportion_confint(count, nobs, alpha=0.05, method="wilson")
    low, high = wilson_interval(count, nobs)
    assert (low, high) == pytest.approx(expected, abs=1e-12)
    # the closed form, independently of statsmodels
    z, p = 1.959963984540054, count / nobs
    centre = (p + z * z / (2 * nobs)) / (1 + z * z / nobs)
    half = z / (1 + z * z / nobs) * (p * (1 - p) / nobs + z * z / (4 * nobs * nobs)) ** 0.5
    assert low == pytest.approx(max(0.0, centre - half), abs=1e-9)
    assert high == pytest.approx(min(1.0, centre + half), abs=1e-9)
    # statsmodels' rounding may leave 1e-17 either way (0 of 7 gives a lower end of 2.8e-17)
    assert -1e-12 <= low <= p + 1e-12 and p - 1e-12 <= high <= 1.0 + 1e-12


def test_wilson_without_observations():
    assert wilson_interval(0, 0) is None
