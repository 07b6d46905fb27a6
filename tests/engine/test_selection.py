"""Selection F1, the tool_selection floor and the unbiased pass^k estimator."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.engine.passk import pass_hat_k, pass_hat_k_curve
from pytest_mcptest.engine.selection import FunctionClass, select_run, selection_f1, tool_selection_floor
from pytest_mcptest.engine.toolid import call_id, member_matches
from pytest_mcptest.engine.values import percent
from pytest_mcptest.engine.trace import Run, Tokens, ToolCall
from pytest_mcptest.gates.agent import floor_lines, floor_run_lines, floor_summary

SPEC_CLASSES = [
    FunctionClass("search", ("brave.web_search", "google.search")),
    FunctionClass("fetch", ("http.get",)),
]


def call(qualified: str, **kw) -> ToolCall:
    server, _, name = qualified.rpartition(".")
    return ToolCall(name=name, server=server or None, **kw)


def run(*calls: ToolCall) -> Run:
    return Run(tool_calls=calls)


# --------------------------------------------------------------------------- percent


@pytest.mark.parametrize("num, den, pct", [
    (2, 3, 67), (1, 3, 33), (1, 2, 50), (1, 8, 13), (3, 8, 38), (199, 200, 100), (1, 200, 1),
    (1, 201, 0), (0, 5, 0), (5, 5, 100), (0, 0, 0), (7, 0, 0),
])
def test_percent_rounds_half_up(num, den, pct):
    assert percent(num, den) == pct


@given(st.integers(0, 10_000), st.integers(1, 10_000))
def test_percent_matches_exact_half_up(num, den):
    num = min(num, den)
    exact = Fraction(100 * num, den)
    assert percent(num, den) == int(exact + Fraction(1, 2))
    assert 0 <= percent(num, den) <= 100


# --------------------------------------------------------------------------- the spec's worked examples


def test_spec_example_perfect_run():
    score = selection_f1([run(call("brave.web_search"), call("http.get"))], SPEC_CLASSES)
    assert (score.true_positives, score.false_positives, score.false_negatives) == (2, 0, 0)
    assert (score.precision, score.recall, score.f1) == (100, 100, 100)
    assert score.missed == () and score.unexpected == ()


def test_spec_example_half_run():
    score = selection_f1([run(call("google.search"), call("shell.exec"))], SPEC_CLASSES)
    assert (score.true_positives, score.false_positives, score.false_negatives) == (1, 1, 1)
    assert (score.precision, score.recall, score.f1) == (50, 50, 50)
    assert score.missed == ("fetch",)
    assert score.unexpected == ("shell.exec",)
    assert score.miss_lines() == ["missed class `fetch`", "unexpected tool `shell.exec`"]
    d = score.to_dict()
    assert d["precision"] == d["recall"] == d["f1"] == 50
    assert d["missed_classes"] == ["fetch"] and d["unexpected_tools"] == ["shell.exec"]


def test_repeats_neither_inflate_nor_penalize():
    base = selection_f1([run(call("brave.web_search"), call("http.get"))], SPEC_CLASSES)
    repeated = selection_f1([run(call("brave.web_search"), call("google.search"), call("brave.web_search"),
                              call("http.get"), call("http.get"))], SPEC_CLASSES)
    assert (repeated.true_positives, repeated.false_positives, repeated.false_negatives) == (2, 0, 0)
    assert repeated.f1 == base.f1 == 100


def test_every_out_of_class_call_is_a_false_positive():
    score = selection_f1([run(call("http.get"), call("shell.exec"), call("shell.exec"))], SPEC_CLASSES)
    assert (score.true_positives, score.false_positives, score.false_negatives) == (1, 2, 1)
    assert score.unexpected == ("shell.exec",)
    assert score.precision == 33 and score.recall == 50 and score.f1 == 40  # 2/5


def test_vacuous_and_zero_denominators():
    assert (lambda s: (s.precision, s.recall, s.f1))(selection_f1([run()], [])) == (100, 100, 100)
    no_calls = selection_f1([run()], SPEC_CLASSES)
    assert (no_calls.precision, no_calls.recall, no_calls.f1) == (0, 0, 0)
    no_classes = selection_f1([run(call("a.b"))], [])
    assert (no_classes.precision, no_classes.recall, no_classes.f1) == (0, 0, 0)


# --------------------------------------------------------------------------- member ids


def test_qualified_member_matches_that_server_only():
    classes = [FunctionClass("read", ("fs1.read_file",))]
    assert select_run([call("fs1.read_file")], classes).true_positives == 1
    other = select_run([call("fs2.read_file")], classes)
    assert other.true_positives == 0 and other.unexpected == ("fs2.read_file",)
    # a serverless call cannot prove its server
    assert select_run([ToolCall("read_file")], classes).true_positives == 0
    # ... unless it recorded the qualified name itself
    assert select_run([ToolCall("fs1.read_file")], classes).true_positives == 1


def test_bare_member_matches_any_server():
    classes = [FunctionClass("read", ("read_file",))]
    for c in (call("fs1.read_file"), call("fs2.read_file"), ToolCall("read_file"), ToolCall("fs9.read_file")):
        assert select_run([c], classes).true_positives == 1
    assert not member_matches("read_file", call("fs1.read_files"))
    assert not member_matches("read_file", ToolCall("xread_file"))


def test_qualified_and_bare_members_in_one_class_and_a_call_id():
    classes = [FunctionClass("s", ("brave.web_search", "search"))]
    assert call_id(call("brave.web_search")) == "brave.web_search"
    assert select_run([call("brave.web_search")], classes).true_positives == 1
    assert select_run([ToolCall("search")], classes).true_positives == 1
    assert selection_f1([run(ToolCall("search"))], [FunctionClass("s", ("search",))]).f1 == 100


def test_overlapping_classes_are_each_reached():
    classes = [FunctionClass("a", ("x", "y")), FunctionClass("b", ("x",))]
    r = select_run([ToolCall("x")], classes)
    assert r.true_positives == 2 and r.false_negatives == 0 and r.false_positives == 0


# --------------------------------------------------------------------------- micro-average


def test_micro_average_sums_counts():
    runs = [
        Run(tool_calls=(call("brave.web_search"), call("http.get"))),        # 2/0/0
        Run(tool_calls=(call("google.search"), call("shell.exec"))),         # 1/1/1
        Run(tool_calls=()),                                                  # 0/0/2
    ]
    score = selection_f1(runs, SPEC_CLASSES)
    assert (score.true_positives, score.false_positives, score.false_negatives) == (3, 1, 3)
    assert score.precision == 75 and score.recall == 50 and score.f1 == 60  # 6/10
    assert score.missed == ("search", "fetch")  # declaration order
    assert score.runs == 3
    assert score.miss_lines() == ["run 2: missed class `fetch`", "run 2: unexpected tool `shell.exec`",
                                  "run 3: missed classes `search`, `fetch`"]


@settings(max_examples=budget(60), deadline=None)
@given(st.lists(st.lists(st.sampled_from(["brave.web_search", "google.search", "http.get", "shell.exec",
                                          "x.y"]), max_size=5), min_size=1, max_size=5),
       st.randoms(use_true_random=False))
def test_micro_average_is_order_independent(traces, rnd):
    runs = [run(*(call(n) for n in t)) for t in traces]
    shuffled = list(runs)
    rnd.shuffle(shuffled)
    a, b = selection_f1(runs, SPEC_CLASSES), selection_f1(shuffled, SPEC_CLASSES)
    assert (a.precision, a.recall, a.f1) == (b.precision, b.recall, b.f1)
    for value in (a.precision, a.recall, a.f1):
        assert 0 <= value <= 100


# --------------------------------------------------------------------------- pass^k estimator


@pytest.mark.parametrize("c, n, k, expected", [
    (10, 10, 1, 1.0), (10, 10, 10, 1.0), (9, 10, 1, 0.9), (9, 10, 2, 0.8),  # C(9,2)/C(10,2) = 36/45
    (9, 10, 10, 0.0), (5, 10, 3, 1 / 12),  # 10/120
    (3, 5, 2, 0.3),  # 3/10
    (0, 4, 1, 0.0), (2, 4, 2, 1 / 6),
])
def test_pass_hat_k_hand_values(c, n, k, expected):
    assert pass_hat_k(c, n, k) == pytest.approx(expected, abs=1e-15)


def test_pass_hat_k_curve_averages_tasks():
    # task A 3/4, task B 1/4 -> k=1: (3/4 + 1/4)/2 = 1/2; k=2: (3/6 + 0)/2 = 1/4; k=3: (1/4 + 0)/2 = 1/8
    assert pass_hat_k_curve([(3, 4), (1, 4)]) == {1: 0.5, 2: 0.25, 3: 0.125, 4: 0.0}
    assert pass_hat_k_curve([(2, 3), (5, 5)]) == {1: pytest.approx(5 / 6), 2: pytest.approx(2 / 3),
                                                  3: pytest.approx(1 / 2)}
    assert pass_hat_k_curve([]) == {}


def test_pass_hat_k_rejects_bad_input():
    with pytest.raises(ValueError):
        pass_hat_k(3, 2, 1)
    with pytest.raises(ValueError):
        pass_hat_k(1, 2, 3)
    with pytest.raises(ValueError):
        pass_hat_k(1, 2, 0)


@given(st.integers(1, 30).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n), st.integers(1, n))))
def test_pass_hat_k_is_the_combinatorial_ratio(args):
    c, n, k = args
    assert pass_hat_k(c, n, k) == float(Fraction(comb(c, k), comb(n, k)))
    if k > 1:
        assert pass_hat_k(c, n, k) <= pass_hat_k(c, n, k - 1)


# --------------------------------------------------------------------------- the tool_selection floor


def weather_run(name="get_weather", total=1500):
    tokens = None if total is None else Tokens(1000, 500, total)
    return Run(tool_calls=(ToolCall(name, server="weather"),), tokens=tokens)


def test_floor_pass_line_matches_spec():
    runs = [weather_run(total=t) for t in (1500, 1520, 1520, 1400, 1840, 1600, 1300, 1520, 1700)]
    runs.append(weather_run("search", 1000))
    floor = tool_selection_floor(runs, "get_weather", 0.8, 2000)
    assert floor.passed
    assert floor.selected == 9 and floor.selection_rate == 0.9 and floor.pass_k == 0.9
    assert floor.tokens_median == 1520 and floor.tokens_max == 1840
    assert floor_summary(floor, "weather selection") == ("tool-selection floor [PASS] weather selection: selection 9/10 (90%), "
                                    "pass^k 90%, tokens 1520 median / 1840 max")
    assert floor_lines(floor, "weather selection") == []
    assert floor_run_lines(floor) == ["run 10: did not select `get_weather`, called weather.search"]


def test_floor_failure_lines_match_spec():
    runs = [weather_run(total=1500) for _ in range(10)]
    runs[3] = weather_run(total=2400)
    runs[6] = Run(tool_calls=(ToolCall("search"),), tokens=Tokens(total=900))
    for i in (0, 1, 2):
        runs[i] = Run(tool_calls=(ToolCall("search"),), tokens=Tokens(total=800))
    runs[8] = weather_run(total=3120)
    runs[9] = weather_run(total=2100)
    floor = tool_selection_floor(runs, "get_weather", 0.8, 2000)
    assert not floor.passed and not floor.rate_ok and not floor.budget_ok
    assert floor.selected == 6 and floor.passed_runs == 3
    lines = floor_lines(floor, "weather selection")
    assert lines[0] == ("FLOOR weather selection: selection rate 60% is below the 80% floor "
                        "(6 of 10 runs selected `get_weather`)")
    assert lines[1] == "FLOOR weather selection: 3 of 10 runs exceeded the 2000-token budget (worst run 3120 tokens)"
    assert "  run 4: 2400 tokens, over budget" in lines
    assert "  run 7: did not select `get_weather`, called search" in lines
    assert floor.pass_k == 0.3


def test_budget_is_all_or_nothing():
    runs = [weather_run(total=1000)] * 9 + [weather_run(total=2001)]
    floor = tool_selection_floor(runs, "get_weather", 0.5, 2000)
    assert floor.selection_rate == 1.0 and not floor.passed
    assert floor_lines(floor, "w") == ["FLOOR w: 1 of 10 runs exceeded the 2000-token budget (worst run 2001 tokens)",
                                   "  run 10: 2001 tokens, over budget"]
    assert tool_selection_floor(runs, "get_weather", 0.5, None).passed


def test_absent_tokens_are_absent_not_zero():
    runs = [weather_run(total=None), weather_run(total=1000), weather_run(total=3000)]
    no_budget = tool_selection_floor(runs, "get_weather", 1.0)
    assert no_budget.passed and no_budget.pass_k == 1.0
    assert no_budget.tokens_median == 2000 and no_budget.tokens_max == 3000
    d = no_budget.to_dict()
    assert "max_total_tokens" not in d and "tokens" not in d["per_run"][0]
    none = tool_selection_floor([weather_run(total=None)], "get_weather", 1.0)
    assert none.tokens_median is None and "tokens_median" not in none.to_dict()
    assert floor_summary(none, "w").endswith("tokens not recorded")
    # with a budget, an unmetered run cannot be shown within it
    budget = tool_selection_floor(runs[:2], "get_weather", 1.0, 5000)
    assert not budget.passed and budget.pass_k == 0.5
    assert floor_lines(budget, "w") == [
        "FLOOR w: 1 of 2 runs recorded no token count; the 5000-token budget cannot be checked",
        "  run 1: no token count recorded, budget unverifiable"]


def test_floor_median_of_even_count_and_qualified_expected_tool():
    runs = [weather_run(total=1000), weather_run(total=1001)]
    floor = tool_selection_floor(runs, "weather.get_weather", 1.0)
    assert floor.selected == 2 and floor.tokens_median == 1000.5
    assert tool_selection_floor(runs, "other.get_weather", 0.5).selected == 0


def test_floor_rate_boundary_and_pass_hat_k():
    runs = [weather_run()] * 8 + [Run()] * 2
    floor = tool_selection_floor(runs, "get_weather", 0.8)
    assert floor.passed
    assert floor_run_lines(floor) == ["run 9: did not select `get_weather`, called no tool",
                                 "run 10: did not select `get_weather`, called no tool"]
    assert floor.pass_hat_k[1] == 0.8 and floor.pass_hat_k[2] == pytest.approx(28 / 45)
    assert floor.to_dict()["pass_hat_k"]["10"] == 0.0
    assert not tool_selection_floor(runs, "get_weather", 0.81).passed


def test_floor_with_no_runs_fails():
    floor = tool_selection_floor([], "get_weather", 0.5)
    assert not floor.passed and floor_lines(floor, "w") == ["FLOOR w: no runs recorded"]


def test_floor_pass_hat_k_is_the_mean_over_tasks_and_lines_name_task_and_trial():
    def trial(task, n, ok):
        return Run(tool_calls=(ToolCall("get_weather" if ok else "search"),), task=task, trial=n)

    runs = [trial("a", 0, True), trial("a", 1, True), trial("b", 0, True), trial("b", 1, False),
            trial("c", 0, False), trial("c", 1, False)]
    floor = tool_selection_floor(runs, "get_weather", 0.9)
    assert floor.pass_hat_k == {1: pytest.approx((1 + 0.5 + 0) / 3), 2: pytest.approx(1 / 3)}
    pooled = tool_selection_floor([Run(r.tool_calls) for r in runs], "get_weather", 0.9)
    assert pooled.pass_hat_k[2] == pytest.approx(3 / 15)  # C(3,2)/C(6,2) when the tasks are not known
    assert "  run 4 (task b, trial 1): did not select `get_weather`, called search" in floor_lines(floor, "w")
