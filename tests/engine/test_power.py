"""`mcptest power` and engine/power.py: statsmodels' power classes on a grid, and exact
binomial computations done here with scipy's binomial distribution."""

from __future__ import annotations

import json
import math

import pytest

from pytest_mcptest.cli import main
from pytest_mcptest.engine import power as pw
from pytest_mcptest.engine.paired import mcnemar_exact

GRID = [(p, d, alpha, target) for p in (0.3, 0.5, 0.9) for d in (0.05, 0.1, 0.2) for alpha in (0.01, 0.05, 0.1)
        for target in (0.8, 0.9) if d < p]


@pytest.mark.parametrize("rate, drop, alpha, target", GRID)
def test_runs_needed_and_detectable_effect_match_statsmodels(rate, drop, alpha, target):
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import proportion_effectsize

    h = proportion_effectsize(rate, rate - drop)
    assert pw.cohen_h(rate, rate - drop) == pytest.approx(h, rel=1e-12)
    for ratio in (0.0, 1.0):  # one sample; two equal samples
        expected = NormalIndPower().solve_power(effect_size=h, alpha=alpha, power=target, ratio=ratio)
        assert pw.runs_needed(h, alpha, target, ratio) == pytest.approx(expected, rel=1e-6)
        effect = NormalIndPower().solve_power(nobs1=100, alpha=alpha, power=target, ratio=ratio)
        ours = pw.detectable_h(100, alpha, target, ratio)
        assert ours == pytest.approx(effect, rel=1e-4)  # statsmodels' root finder stops near 1e-5 here
        assert NormalIndPower().power(ours, 100, alpha, ratio=ratio) == pytest.approx(target, abs=1e-10)
        assert pw.normal_power(h, 77, alpha, ratio) == pytest.approx(
            NormalIndPower().power(h, 77, alpha, ratio=ratio), rel=1e-9)


def _exact_power_by_scipy(n, rate, drop, alpha):
    from scipy import stats

    rejected = [x for x in range(n + 1) if stats.binomtest(x, n, rate, alternative="less").pvalue <= alpha / 2]
    return sum(stats.binom.pmf(x, n, rate - drop) for x in rejected)


@pytest.mark.parametrize("n, rate, drop, alpha", [(20, 0.9, 0.2, 0.05), (50, 0.42, 0.15, 0.05), (94, 0.9, 0.1, 0.05),
                                                  (93, 0.9, 0.1, 0.05), (200, 0.5, 0.1, 0.01), (1, 0.5, 0.4, 0.05)])
def test_exact_power_is_the_binomial_sum_over_the_rejection_region(n, rate, drop, alpha):
    assert pw.exact_power(n, rate, drop, alpha) == pytest.approx(_exact_power_by_scipy(n, rate, drop, alpha), abs=1e-9)


def test_exact_runs_needed_is_the_first_n_that_reaches_the_power():
    n = pw.exact_runs_needed(0.9, 0.1, 0.05, 0.8)
    assert _exact_power_by_scipy(n, 0.9, 0.1, 0.05) >= 0.8
    assert all(_exact_power_by_scipy(m, 0.9, 0.1, 0.05) < 0.8 for m in range(n - 5, n))


def _mcnemar_exact_power(pairs, worse, better, alpha):
    """The power of McNemar's exact test, summed exactly over the discordant counts."""
    from scipy import stats

    psi = worse + better
    total = 0.0
    for m in range(pairs + 1):
        pm = stats.binom.pmf(m, pairs, psi)
        if pm < 1e-15:
            continue
        total += pm * sum(stats.binom.pmf(b, m, worse / psi) for b in range(m + 1) if mcnemar_exact(b, m - b) <= alpha)
    return total


@pytest.mark.parametrize("drop, psi", [(0.1, 0.3), (0.2, 0.4), (0.15, 0.25)])
def test_connors_paired_size_reaches_the_power_of_the_exact_mcnemar_test(drop, psi):
    pairs = math.ceil(pw.paired_runs_needed(drop, psi, 0.05, 0.8))
    worse, better = (psi + drop) / 2, (psi - drop) / 2
    assert 0.75 <= _mcnemar_exact_power(pairs, worse, better, 0.05) <= 0.9  # the exact test is a little conservative


def test_design_effect_discounts_trials():
    assert pw.design_effect(4, 0.5) == 2.5 and pw.design_effect(4, -0.2) == 1.0 and pw.design_effect(1, 0.9) == 1.0


def test_the_command_names_tasks_trials_and_the_formula(capsys):
    assert main(["power", "--rate", "0.42", "--drop", "0.1", "--trials", "4", "--icc", "0.4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("201 tasks x 4 trials = 804 runs per side (802 needed) to detect a drop from 42% to 32% (10 points) "
                      "at alpha 0.05 (two-sided) with power 0.8")
    assert "Cohen's h" in out[2] and "Kish's design effect 1 + (4 - 1) x 0.4 = 2.2" in out[2]
    assert main(["power", "--rate", "0.42", "--tasks", "50", "--trials", "4", "--icc", "0.4046", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"] == 200 and round(100 * data["drop"], 1) == 19.3  # what stability.mde says of tau-bench's runs
    assert main(["power", "--rate", "0.9", "--drop", "0.1", "--design", "one-sample", "--exact"]) == 0
    assert capsys.readouterr().out.startswith(f"{pw.exact_runs_needed(0.9, 0.1, 0.05, 0.8)} tasks x 1 trial = ")
    assert main(["power", "--rate", "0.5", "--drop", "0.05", "--design", "one-sample", "--exact", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert runs == pw.exact_runs_needed(0.5, 0.05, 0.05, 0.8, start=600)  # the search starts near the answer
    assert main(["power", "--rate", "0.42", "--drop", "0.1", "--design", "paired"]) == 0
    assert "pairs of runs to detect" in capsys.readouterr().out


@pytest.mark.parametrize("args, needle", [
    (["--rate", "0.4"], "either --drop D"), (["--rate", "0.4", "--drop", "0.5"], "at most --rate"),
    (["--rate", "0.4", "--drop", "0.1", "--exact"], "--design one-sample"),
    (["--rate", "0.4", "--drop", "0.1", "--discordant", "0.3"], "--design paired"),
    (["--rate", "0.4", "--drop", "0.1", "--alpha", "0"], "--alpha must be strictly between 0 and 1"),
    (["--rate", "0.4", "--drop", "0.1", "--design", "paired", "--discordant", "0.05"], "drop <= discordant share"),
    # a power at or below alpha: once answered "0 tasks"
    (["--rate", "0.8", "--drop", "0.1", "--power", "0.01"], "--power must be above --alpha (0.05)"),
    # a drop so small that the normal answer is past the exact search's limit: once an OverflowError
    (["--rate", "0.8", "--drop", "1e-6", "--exact", "--design", "one-sample"], "more than 1,000,000 runs needed"),
])
def test_options_that_do_not_fit_exit_2(capsys, args, needle):
    assert main(["power"] + args) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert "Traceback" not in err


def test_a_drop_as_large_as_the_rate_still_needs_a_run(capsys):
    """The normal approximation can round a huge effect to under half a run: at least one run."""
    assert main(["power", "--rate", "0.8", "--drop", "0.8", "--power", "0.06", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["runs"] >= 1 and result["tasks"] >= 1
