"""``stability:``: pass^k per task mean (tau-bench's convention), flaky tasks, the pass rate
with its Wilson interval, and a floor that replaces "every run must pass"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.engine.stability import ALL_RUNS, stability
from pytest_mcptest.engine.stats import wilson_interval
from pytest_mcptest.errors import InputError
from pytest_mcptest.gates.evaluate import evaluate
from pytest_mcptest.report.render import render_verdict
from pytest_mcptest.gates.suite_build import load_suite

TAU = json.loads((Path(__file__).parents[1] / "data" / "tau-bench-gpt-4o-airline-rewards.json").read_text())


def test_tau_bench_published_pass_k_of_gpt_4o_airline():
    """tau-bench's README: gpt-4o on airline, 50 tasks x 4 trials: 0.420 / 0.273 / 0.220 / 0.200."""
    result = stability([(task, reward == 1) for task, _trial, reward in TAU["runs"]])
    assert len(result.tasks) == 50 and result.runs == 200
    assert result.to_dict()["pass_hat_k"] == {"1": 42.0, "2": 27.33, "3": 22.0, "4": 20.0}


def _hand_icc1(groups):
    """ICC(1) written out for equal group sizes: (MSB - MSW) / (MSB + (k - 1) MSW)."""
    n, k = len(groups), len(groups[0])
    grand = sum(map(sum, groups)) / (n * k)
    msb = k * sum((sum(g) / k - grand) ** 2 for g in groups) / (n - 1)
    msw = sum((x - sum(g) / k) ** 2 for g in groups for x in g) / (n * (k - 1))
    return (msb - msw) / (msb + (k - 1) * msw)


@pytest.mark.filterwarnings("ignore:The inplace keyword")  # pingouin's own pandas call, not ours
def test_tau_bench_flip_rate_icc_and_detectable_drop():
    """tau-bench #57 reports flip rates of 43-64% and ICC(1) of 0.41-0.53 on such runs."""
    result = stability([(task, reward == 1) for task, _trial, reward in TAU["runs"]])
    data = result.to_dict()
    assert data["flip_rate"] == 52.0  # 26 of 50 tasks have trials that disagree
    groups = {}
    for task, _trial, reward in TAU["runs"]:
        groups.setdefault(task, []).append(float(reward == 1))
    assert result.icc == pytest.approx(_hand_icc1(list(groups.values())), abs=1e-12)
    assert data["icc"] == 0.4046
    assert data["mde"] == 19.3
    import pandas
    import pingouin

    frame = pandas.DataFrame([(t, tr, float(r == 1)) for t, tr, r in TAU["runs"]], columns=["task", "trial", "passed"])
    table = pingouin.intraclass_corr(frame, targets="task", raters="trial", ratings="passed")
    one = table[table["Type"].isin(["ICC1", "ICC(1,1)"])]  # the name changed between pingouin releases
    assert len(one) == 1 and result.icc == pytest.approx(float(one["ICC"].iloc[0]), abs=1e-9)


def test_detectable_drop_is_statsmodels_two_sample_power_on_the_effective_runs():
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize

    result = stability([(task, reward == 1) for task, _trial, reward in TAU["runs"]])
    effective = 200 / (1 + 3 * result.icc)
    rate = 0.42
    after = rate - result.mde
    assert NormalIndPower().power(proportion_effectsize(rate, after), effective, 0.05, ratio=1) == pytest.approx(0.8)


def test_icc_is_undefined_without_two_tasks_or_variation():
    assert stability([(None, True), (None, False)]).icc is None
    assert stability([("a", True), ("a", True), ("b", True), ("b", True)]).to_dict()["icc"] is None
    assert stability([("a", False), ("b", False)]).to_dict()["mde"] is None


def test_runs_without_tasks_are_trials_of_one_task_and_flaky_means_mixed():
    result = stability([(None, True), (None, False), (None, True)])
    assert [t.task for t in result.tasks] == [ALL_RUNS] and result.flaky_tasks == [ALL_RUNS]
    assert result.pass_hat_k == {1: pytest.approx(2 / 3), 2: pytest.approx(1 / 3), 3: 0.0}
    steady = stability([("a", True), ("a", True), ("b", False), ("b", False)])
    assert steady.flaky_tasks == [] and steady.to_dict()["pass_rate"] == 50.0


def test_k_runs_to_the_fewest_trials_of_any_task():
    result = stability([("a", True), ("a", True), ("a", False), ("b", True)])
    assert list(result.pass_hat_k) == [1]
    assert result.pass_hat_k[1] == pytest.approx((2 / 3 + 1) / 2)


def test_pass_rate_interval_is_wilson_in_percent():
    data = stability([("t", i % 3 != 0) for i in range(30)]).to_dict()
    low, high = wilson_interval(20, 30)
    assert (data["pass_rate_low"], data["pass_rate_high"]) == (round(100 * low, 2), round(100 * high, 2))
    assert data["pass_rate_low"] < data["pass_rate"] < data["pass_rate_high"]


@settings(max_examples=budget(60), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.booleans()), min_size=1, max_size=30))
def test_pass_k_never_rises_with_k_and_starts_at_the_mean_rate(outcomes):
    result = stability(outcomes)
    values = list(result.pass_hat_k.values())
    assert all(a >= b - 1e-12 for a, b in zip(values, values[1:]))
    per_task_rates = [len(t.passed) / len(t.runs) for t in result.tasks]
    assert values[0] == pytest.approx(sum(per_task_rates) / len(per_task_rates))


# --------------------------------------------------------------------------- through a suite

SUITE = """\
agents:
  - name: airline
    cassette: runs.json
    expect:
      - meta.reward: {{exact: 1}}
{stability}"""


def _suite(tmp_path, stability_yaml: str, runs: list) -> object:
    (tmp_path / "runs.json").write_text(json.dumps({"mcptest_cassette": 1, "runs": runs}))
    (tmp_path / "s.mcptest.yml").write_text(SUITE.format(stability=stability_yaml))
    return load_suite(str(tmp_path / "s.mcptest.yml")).blocks[0]


def _runs(rows):
    return [{"task": task, "trial": trial, "meta": {"reward": reward}, "tool_calls": [{"name": "book"}]}
            for task, trial, reward in rows]


def test_a_floor_replaces_every_run_must_pass(tmp_path):
    block = _suite(tmp_path, "    stability:\n      expect:\n        - stability.pass_hat_k.\"1\": {\">=\": 40}\n",
                   _runs(TAU["runs"]))
    verdict = evaluate(block)
    assert verdict.passed  # 116 runs fail their own expect, yet pass^1 = 42 >= 40
    assert sum(not r.passed for r in verdict.runs) == 116
    stab = verdict.envelope["stability"]
    assert stab["pass_hat_k"]["4"] == 20.0 and stab["tasks"] == 50 and len(stab["flaky_tasks"]) == 26
    assert verdict.envelope["runs"][0]["task"] == 0 and verdict.envelope["runs"][0]["meta"] == {"reward": 0.0}


def test_a_missed_floor_names_flaky_tasks_and_runs_by_task_and_trial(tmp_path):
    rows = [(1, 0, 1.0), (1, 1, 0.0), (2, 0, 1.0), (2, 1, 1.0), (3, 0, 0.0), (3, 1, 0.0)]
    block = _suite(tmp_path, "    stability:\n      expect:\n        - stability.pass_hat_k.\"2\": {\">=\": 50}\n",
                   _runs(rows))
    verdict = evaluate(block)
    assert not verdict.passed and [f.gate for f in verdict.failures] == ["expect"]
    text = render_verdict(verdict)
    assert "stability.pass_hat_k.\"2\"" in text or "stability.pass_hat_k" in text
    assert "flaky: task 1 (1/2)" in text and "never passed: task 3" in text
    assert "airline #2 (task 1, trial 1): expect:" in text
    assert "runs that failed their own gates: 3 of 6" in text


def test_stability_needs_a_floor(tmp_path):
    with pytest.raises(InputError) as exc:
        _suite(tmp_path, "    stability: {}\n", _runs([(1, 0, 1.0)]))
    assert exc.value.line == 6 and "stability: needs an expect: list" in exc.value.message


def test_without_stability_every_run_must_pass(tmp_path):
    block = _suite(tmp_path, "", _runs([(1, 0, 1.0), (1, 1, 0.0)]))
    verdict = evaluate(block)
    assert not verdict.passed and "airline #2 (task 1, trial 1): 1 failure" in render_verdict(verdict)


def test_the_terminal_shows_each_stability_item_with_its_curve_rate_and_flaky_tasks(pytester):
    runs = _runs(TAU["runs"])
    (pytester.path / "runs.json").write_text(json.dumps({"mcptest_cassette": 1, "runs": runs}))
    floors = ("    stability:\n      expect:\n        - stability.pass_hat_k.\"1\": {\">=\": 40}\n"
              "    tool_selection: {expected_tool: book, min_selection_rate: 0.5}\n")
    pytester.makefile(".mcptest.yml", s=SUITE.format(stability=floors))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([
        "*mcptest: tool-selection floors*",
        "*mcptest: stability*",
        "s.mcptest.yml::airline: 84 of 200 runs passed, 42% (95% CI 35.37-48.93); "
        "pass^1 42, pass^2 27.33, pass^3 22, pass^4 20 (mean over 50 tasks); 26 flaky tasks; "
        "flip rate 52%, ICC(1) 0.40, detectable drop 19.3 points (alpha 0.05, power 0.8)",
    ])
