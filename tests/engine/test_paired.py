"""Paired tests (engine/paired.py) against scipy and statsmodels, and the verdict of a comparison
on tau-bench's published gpt-4o airline runs (50 tasks x 4 trials)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.cli import main
from pytest_mcptest.engine.paired import (benjamini_hochberg, bootstrap_interval, holm, mcnemar_exact, paired_t,
                                          sign_flip_p)
from pytest_mcptest.report.document import compare_reports, render_comparison
from pytest_mcptest.report.compare import significance
from tau_reports import ID, TAU, tau_report, ten_tasks_fail


# --------------------------------------------------------------------------- the engine, against scipy

@settings(max_examples=budget(80), deadline=None)
@given(st.integers(0, 40), st.integers(0, 40))
def test_mcnemar_exact_is_the_binomial_test_on_discordant_pairs(worse, better):
    from statsmodels.stats.contingency_tables import mcnemar

    expected = mcnemar([[5, worse], [better, 5]], exact=True).pvalue
    assert mcnemar_exact(worse, better) == pytest.approx(expected, rel=1e-12, abs=1e-300)


@settings(max_examples=budget(60), deadline=None)
@given(st.lists(st.floats(-1000, 1000, allow_nan=False), min_size=3, max_size=40))
def test_paired_t_is_scipys_one_sample_t_on_the_differences(diffs):
    from scipy import stats

    result = paired_t(diffs)
    mean = sum(diffs) / len(diffs)
    if max(abs(d - mean) for d in diffs) < 1e-6 * max(1.0, abs(mean)):
        return  # (nearly) constant differences: scipy gives nan where we give a certain shift
    expected = stats.ttest_1samp(diffs, 0.0)
    low, high = expected.confidence_interval()
    assert result[3] == pytest.approx(expected.pvalue, rel=1e-7, abs=1e-12)
    assert result[1] == pytest.approx(low, rel=1e-7, abs=1e-9) and result[2] == pytest.approx(high, rel=1e-7, abs=1e-9)


def test_paired_t_edges():
    assert paired_t([1.0]) is None
    assert paired_t([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0, 0.0)
    assert paired_t([0.0, 0.0])[3] == 1.0


def test_sign_flip_is_exact_for_few_differences_and_seeded_for_many():
    from scipy import stats

    few = [3.0, 1.0, -2.0, 4.0, 0.0, 5.0]
    p, exact = sign_flip_p(few)
    expected = stats.permutation_test((few,), lambda x: x.mean(), permutation_type="samples",
                                      n_resamples=10_000).pvalue
    assert exact and p == pytest.approx(expected)
    many = [1.0] * 15 + [-1.0] * 5 + [0.5] * 10
    first = sign_flip_p(many)
    assert first == sign_flip_p(many) and not first[1]  # the same p twice: a fixed seed
    # scipy's p here is about 0.0016; drawn from 20,000 resamples its sd is about 0.0003, a
    # thirtieth of the tolerance (100,000 cost five times the CPU for no closer reference)
    assert first[0] == pytest.approx(stats.permutation_test((many,), lambda x: x.mean(), permutation_type="samples",
                                                            n_resamples=20_000, rng=1).pvalue, abs=0.01)
    assert sign_flip_p([0.0, 0.0]) == (1.0, True)


def test_bootstrap_interval_is_seeded_and_covers_the_mean():
    diffs = [(-1.0) ** i * (i % 7) / 7 + 0.1 for i in range(50)]
    low, high = bootstrap_interval(diffs)
    assert (low, high) == bootstrap_interval(diffs) and low < sum(diffs) / 50 < high
    assert bootstrap_interval([0.5, 0.5]) == (0.5, 0.5)


def test_holm_and_bh_match_statsmodels():
    from statsmodels.stats.multitest import multipletests

    pvalues = [0.01, 0.04, 0.03, 0.5, 0.001, 0.04]
    assert holm(pvalues) == pytest.approx(list(multipletests(pvalues, method="holm")[1]))
    assert benjamini_hochberg(pvalues) == pytest.approx(list(multipletests(pvalues, method="fdr_bh")[1]))


# --------------------------------------------------------------------------- tau-bench's runs

def test_trials_1_2_against_3_4_of_the_same_runs_are_within_noise():
    first = tau_report([r for r in TAU["runs"] if r[1] in (0, 1)])
    second = tau_report([r for r in TAU["runs"] if r[1] in (2, 3)])
    result = significance(second, first)
    assert result["verdict"] == "within noise" and result["significant"] == 0
    rate = next(t for t in result["tests"] if t["measure"] == "pass rate")
    # trials 2-3 pair with 0-1 task by task; a task's two trials move together: the task is the unit
    assert rate["pairs"] == 100 and rate["test"] == "paired permutation over tasks (sign flip)"
    assert "the 50 tasks are the unit" in rate["detail"]
    assert rate["interval"][0] < 0 < rate["interval"][1] or rate["effect"] == 0


def test_ten_tasks_turned_to_failures_regress_after_correction():
    result = significance(tau_report(ten_tasks_fail(TAU["runs"])), tau_report(TAU["runs"]))
    assert result["verdict"] == "regressed" and result["correction"] == "Holm"
    rate = next(t for t in result["tests"] if t["measure"] == "pass rate")
    assert rate["significant"] and rate["change"] == "worse" and rate["p_adjusted"] < 0.05
    assert (rate["before"], rate["after"]) == (42.0, 34.5) and rate["effect"] == -7.5
    assert rate["interval"][1] < 0  # the whole 95% interval is a drop
    assert "15 pass->fail, 0 fail->pass of 200 paired runs" in rate["detail"]
    assert rate["p"] == pytest.approx(2 * 0.5 ** 10)  # 10 tasks fell, none rose: every sign pattern counted


def test_the_verdict_leads_and_the_output_is_byte_identical(tmp_path, capsys):
    (tmp_path / "base.json").write_text(json.dumps(tau_report(TAU["runs"])))
    (tmp_path / "new.json").write_text(json.dumps(tau_report(ten_tasks_fail(TAU["runs"]))))
    args = ["report", str(tmp_path / "new.json"), "--compare", str(tmp_path / "base.json")]
    assert main(args) == 0  # no floor flipped: a significant regression alone does not fail by default
    first = capsys.readouterr().out
    lines = first.splitlines()
    assert lines[0].startswith("verdict: REGRESSED: 2 of 3 paired tests significant at alpha 0.05, Holm-corrected")
    assert lines[1].startswith(f"  WORSE {ID}  pass rate 42% -> 34.5% (-7.5 points, 95% CI -13 to -3); paired permutation "
                            "over tasks (sign flip)")
    assert not any("noise" in line for line in lines) and not any("runs[1" in line for line in lines)
    assert main(args + ["--fail-on", "regression"]) == 1
    assert capsys.readouterr().out == first  # the same bytes twice (seeded resampling)
    assert main(args + ["--all"]) == 0
    every = capsys.readouterr().out
    assert f"  noise {ID}  pass^4" in every and "runs[102].meta.reward 1.0 -> 0.0 (-1.0)" in every
    assert main(args + ["--json", "--correction", "bh"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["significance"]["correction"] == "Benjamini-Hochberg" and data["significance"]["verdict"] == "regressed"


def test_fail_on_failed_and_floor_without_a_baseline(tmp_path, capsys):
    report = tau_report(TAU["runs"])
    report["items"][0]["envelope"]["tool_selection"] = {"floor": {"passed": False}}
    (tmp_path / "r.json").write_text(json.dumps(report))
    assert main(["report", str(tmp_path / "r.json")]) == 0
    assert main(["report", str(tmp_path / "r.json"), "--fail-on", "failed"]) == 0
    assert main(["report", str(tmp_path / "r.json"), "--fail-on", "floor"]) == 1
    report["items"][0]["outcome"] = "failed"
    (tmp_path / "r.json").write_text(json.dumps(report))
    assert main(["report", str(tmp_path / "r.json"), "--fail-on", "failed"]) == 1
    capsys.readouterr()
    assert main(["report", str(tmp_path / "r.json"), "--fail-on", "regression"]) == 2
    assert "--fail-on regression needs --compare" in capsys.readouterr().err


def test_items_are_paired_by_outcome_over_the_suite():
    def item(i, outcome):
        return {"id": f"s::t{i}", "outcome": outcome, "envelope": {}, "failures": []}

    base = {"mcptest_report": 1, "items": [item(i, "passed") for i in range(30)]}
    new = {"mcptest_report": 1, "items": [item(i, "failed" if i < 12 else "passed") for i in range(30)]}
    comparison = compare_reports(new, base)
    suite = comparison["significance"]["tests"][0]
    assert suite["id"] == "(all items)" and suite["significant"] and suite["change"] == "worse"
    assert suite["p"] == pytest.approx(2 * 0.5 ** 12)
    assert render_comparison(comparison).splitlines()[0].startswith("verdict: REGRESSED: 1 of 1 paired test ")


@settings(max_examples=budget(25), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.booleans(), st.booleans()), min_size=2, max_size=24))
def test_swapping_the_sides_flips_every_effect_and_keeps_every_p(rows):
    """Runs as (task, passed before, passed after), trials numbered within each task."""
    trials: dict = {}
    before, after = [], []
    for task, a, b in rows:
        trial = trials[task] = trials.get(task, -1) + 1
        before.append((task, trial, 1.0 if a else 0.0))
        after.append((task, trial, 1.0 if b else 0.0))
    forward = significance(tau_report(after), tau_report(before))
    backward = significance(tau_report(before), tau_report(after))
    assert [(t["measure"], t["p"], t["p_adjusted"]) for t in forward["tests"]] == \
           [(t["measure"], t["p"], t["p_adjusted"]) for t in backward["tests"]]
    assert [t["effect"] for t in forward["tests"]] == [-t["effect"] for t in backward["tests"]]
    flipped = {"regressed": "improved", "improved": "regressed"}
    assert backward["verdict"] == flipped.get(forward["verdict"], forward["verdict"])
    same = significance(tau_report(before), tau_report(before))
    assert same["tests"] == [] and same["verdict"] == "within noise"


def _item(passed, tasks=None, trials=None):
    runs = [{"name": f"r{i}", "passed": p} for i, p in enumerate(passed)]
    details = [{} if tasks is None else {"task": tasks[i], **({} if trials is None else {"trial": trials[i]})}
               for i in range(len(passed))]
    return {"mcptest_report": 1, "items": [{"id": "s::a", "outcome": "passed", "failures": [], "runs": runs,
                                            "envelope": {"runs": details}}]}


@pytest.mark.parametrize("tasks, trials, test, why", [
    ([f"t{i // 3}" for i in range(12)], [i % 3 for i in range(12)], "paired permutation over tasks (sign flip)",
     "the 4 tasks are the unit, since a task's trials move together"),
    ([f"t{i}" for i in range(12)], [0] * 12, "McNemar exact", "each task has one trial, so runs are the unit"),
    (None, None, "McNemar exact", "the runs carry no task, so each run is taken as independent"),
])
def test_the_pass_rate_test_follows_the_unit_and_says_why(tasks, trials, test, why):
    """Trials of one task move together: with several trials per task, the per-task differences
    are tested (run-level McNemar flagged one pair of pure noise in eight); where each task has
    one trial, or runs carry no task, runs are the unit and McNemar is exact."""
    before = _item([True] * 8 + [False] * 4, tasks, trials)
    after = _item([True] * 2 + [False] * 10, tasks, trials)
    rate = next(t for t in significance(after, before)["tests"] if t["measure"] == "pass rate")
    assert rate["test"] == test and why in rate["detail"]
    if test == "McNemar exact":
        assert rate["p"] == pytest.approx(mcnemar_exact(6, 0))
    else:  # per-task differences -1/3, -1, -2/3 and 0: three tasks fell, every sign pattern counted
        assert rate["p"] == pytest.approx(sign_flip_p([-1 / 3, -1, -2 / 3, 0])[0]) and rate["p"] == 0.25


def test_the_per_task_test_holds_its_size_under_task_drift(monkeypatch):
    """100 simulated pairs with no change on average and each task's chance drifting between
    the runs (30 tasks x 6 trials, logit sd 1.0): the pass rate is flagged at about alpha. The
    run-level McNemar on the same pairs is flagged far more often (the figure the benchmark
    benchmarks/bench_compare_null.py prints over 1,000 pairs). Seeded: the same pairs each time.

    Only the p-values are read here, and a p never depends on the bootstrap interval (each
    resampler seeds its own generator): the intervals, which this test never looks at, are drawn
    from 200 resamples, not 4,000 (half this test's CPU). The p-values, and so both counts
    (8 and 12), are the very ones of the default resampling."""
    import functools
    import random

    from pytest_mcptest.report import compare

    monkeypatch.setattr(compare, "bootstrap_interval", functools.partial(bootstrap_interval, resamples=200))
    rng = random.Random(7)

    def report(chances):
        passed, tasks, trials = [], [], []
        for t, p in enumerate(chances):
            for k in range(6):
                passed.append(rng.random() < p), tasks.append(f"t{t}"), trials.append(k)
        return _item(passed, tasks, trials)

    flagged = mcnemar_flagged = 0
    for _ in range(100):
        logits = [rng.gauss(0.4, 1.0) for _ in range(30)]
        before = report([1 / (1 + math.exp(-x)) for x in logits])
        after = report([1 / (1 + math.exp(-(x + rng.gauss(0, 1.0)))) for x in logits])
        rate = next((t for t in significance(after, before)["tests"] if t["measure"] == "pass rate"), None)
        if rate is None:
            continue
        flagged += rate["p"] < 0.05
        counts = rate["detail"].split(";")[0].split()
        mcnemar_flagged += mcnemar_exact(int(counts[0]), int(counts[2])) < 0.05
    assert flagged <= 9  # 5% of 100 is 5; the bound leaves room for chance, not for one in eight
    assert mcnemar_flagged > flagged
