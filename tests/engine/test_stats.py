"""Clopper-Pearson and Wilson bounds against statsmodels (DESIGN: Statistics).

The package computes both without statsmodels; statsmodels stays the reference here: a
few pinned values, a grid of every count up to n = 150 and a spread of counts up to
n = 5000, and hypothesis-drawn counts and confidences. Achieved (statsmodels 0.15.0,
scipy 1.17): Clopper-Pearson within 7e-14 of statsmodels up to n = 5000, Wilson within
4e-16; the percent floors and two-decimal percents the gates print are identical.
"""

from __future__ import annotations

import subprocess
import sys

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget
from statsmodels.stats.proportion import proportion_confint

from pytest_mcptest.engine.beta import beta_quantile
from pytest_mcptest.engine.stats import clopper_pearson_lower, lower_bound_percent, wilson_interval

# proportion_confint(x, n, alpha=0.10, method="beta")[0], statsmodels 0.15.0
CLOPPER_PEARSON_ONE_SIDED_95 = [
    (1, 1, 0.05),
    (5, 5, 0.5492802716530588),
    (10, 10, 0.7411344491069477),
    (20, 20, 0.8608916593317348),
    (4, 5, 0.3425916819988613),
    (8, 10, 0.4930986989367976),
    (3, 10, 0.08726443391415033),
    (1, 2, 0.02532056551910361),
]

# proportion_confint(x, n, alpha=0.05, method="wilson"), statsmodels 0.15.0
WILSON_95 = [
    (1, 1, 0.2065493143772374, 1.0),
    (5, 5, 0.5655175352168252, 1.0),
    (4, 5, 0.3755346297625252, 0.9637758913675698),
    (8, 10, 0.49016247153664183, 0.9433178485456247),
    (3, 10, 0.10779126740630104, 0.6032218525388546),
    (0, 5, 0.0, 0.43448246478317487),
]


@pytest.mark.parametrize("x, n, lower", CLOPPER_PEARSON_ONE_SIDED_95)
def test_clopper_pearson_reference_values(x, n, lower):
    assert clopper_pearson_lower(x, n) == pytest.approx(lower, rel=1e-12, abs=1e-15)


def test_one_perfect_run_certifies_about_five_percent():
    assert clopper_pearson_lower(1, 1) == pytest.approx(0.05)
    assert lower_bound_percent(clopper_pearson_lower(1, 1)) == 5.0


@pytest.mark.parametrize("n", [1, 2, 3, 5, 10, 30])
def test_all_successes_closed_form(n):
    # For n of n successes the exact one-sided 95% bound is 0.05 ** (1 / n).
    assert clopper_pearson_lower(n, n) == pytest.approx(0.05 ** (1 / n), rel=1e-9)


def test_zero_successes_and_zero_trials_certify_nothing():
    assert clopper_pearson_lower(0, 10) == 0.0
    assert clopper_pearson_lower(0, 0) == 0.0


def test_confidence_parameter():
    # one-sided 97.5% is the two-sided alpha=0.05 lower end: 0.025 for one perfect run
    assert clopper_pearson_lower(1, 1, confidence=0.975) == pytest.approx(0.025)


@pytest.mark.parametrize("x, n, lo, hi", WILSON_95)
def test_wilson_reference_values(x, n, lo, hi):
    got = wilson_interval(x, n)
    assert got[0] == pytest.approx(lo, rel=1e-12, abs=1e-15)
    assert got[1] == pytest.approx(hi, rel=1e-12)
    assert 0.0 <= got[0] <= got[1] <= 1.0


def test_wilson_edges():
    assert wilson_interval(20, 20)[1] == 1.0  # statsmodels says 0.9999999999999999
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("bad", [(3, 2), (-1, 2), (1, -1)])
def test_rejects_impossible_counts(bad):
    with pytest.raises(ValueError):
        clopper_pearson_lower(*bad)
    with pytest.raises(ValueError):
        wilson_interval(*bad)


def test_rejects_non_integers_and_bad_confidence():
    with pytest.raises(TypeError):
        clopper_pearson_lower(1.0, 2)
    with pytest.raises(TypeError):
        wilson_interval(True, 2)
    with pytest.raises(ValueError):
        clopper_pearson_lower(1, 2, confidence=1.0)


@pytest.mark.parametrize("fraction, pct", [
    (0.05, 5.0), (0.5492802716530588, 54.92), (0.4930986989367976, 49.3), (0.08726443391415033, 8.72),
    (0.0, 0.0), (1.0, 100.0), (0.123456, 12.34), (0.129999, 12.99),
])
def test_lower_bound_percent_rounds_down(fraction, pct):
    assert lower_bound_percent(fraction) == pct


def test_bounds_import_neither_statsmodels_nor_scipy_nor_numpy():
    code = ("import sys; import pytest_mcptest.engine.distractors, pytest_mcptest.engine.selection, "
            "pytest_mcptest.engine.orchestration, pytest_mcptest.engine.tokens\n"
            "from pytest_mcptest.engine.stats import clopper_pearson_lower, wilson_interval\n"
            "print(clopper_pearson_lower(7, 9), wilson_interval(7, 9))\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'statsmodels', 'scipy', 'numpy', 'tiktoken'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    bounds, heavy = out.stdout.strip().splitlines()
    assert bounds.startswith("0.4") and heavy == "[]"


# --------------------------------------------------------------------------- against statsmodels

def _grid() -> dict[int, list[int]]:
    """Every count up to n = 150, and a spread of counts for larger n up to 5000."""
    grid = {n: list(range(n + 1)) for n in range(1, 151)}
    for n in (151, 200, 333, 500, 1000, 2000, 3001, 5000):
        grid[n] = sorted({0, 1, 2, 3, n // 100, n // 10, n // 3, n // 2, 2 * n // 3, 9 * n // 10,
                          n - n // 100, n - 3, n - 2, n - 1, n})
    return grid


GRID = _grid()


def _reference_lower(xs, n: int, confidence: float) -> list[float]:
    """statsmodels' one-sided lower bounds for the counts ``xs`` of ``n`` (0.0 for no success)."""
    lower, _ = proportion_confint(numpy.asarray(xs), n, alpha=2 * (1 - confidence), method="beta")
    return [0.0 if x == 0 else float(v) for x, v in zip(xs, numpy.atleast_1d(lower))]


def _reference_wilson(xs, n: int, confidence: float) -> list[tuple[float, float]]:
    """statsmodels' Wilson intervals, with the package's clipping of perfect and empty scores."""
    lower, upper = proportion_confint(numpy.asarray(xs), n, alpha=1 - confidence, method="wilson")
    return [(0.0 if x == 0 else max(0.0, float(lo)), 1.0 if x == n else min(1.0, float(hi)))
            for x, lo, hi in zip(xs, numpy.atleast_1d(lower), numpy.atleast_1d(upper))]


@pytest.mark.parametrize("confidence", [0.95, 0.9, 0.99])
def test_clopper_pearson_matches_statsmodels_on_a_grid(confidence):
    worst, floors = 0.0, []
    for n, xs in GRID.items():
        for x, theirs in zip(xs, _reference_lower(xs, n, confidence)):
            ours = clopper_pearson_lower(x, n, confidence)
            worst = max(worst, abs(ours - theirs))
            if lower_bound_percent(ours) != lower_bound_percent(theirs):
                floors.append((x, n, ours, theirs))
    assert worst <= 1e-12 and floors == []


@pytest.mark.parametrize("confidence", [0.95, 0.9, 0.99])
def test_wilson_matches_statsmodels_on_a_grid(confidence):
    worst, printed = 0.0, []
    for n, xs in GRID.items():
        for x, theirs in zip(xs, _reference_wilson(xs, n, confidence)):
            ours = wilson_interval(x, n, confidence)
            worst = max(worst, abs(ours[0] - theirs[0]), abs(ours[1] - theirs[1]))
            if [round(100 * v, 2) for v in ours] != [round(100 * v, 2) for v in theirs]:
                printed.append((x, n, ours, theirs))
    assert worst <= 1e-15 and printed == []


@st.composite
def counts(draw):
    n = draw(st.integers(1, 5000))
    return draw(st.integers(0, n)), n, draw(st.floats(0.5, 0.999))


@settings(max_examples=budget(300), deadline=None)
@given(counts())
def test_both_bounds_match_statsmodels_for_drawn_counts(case):
    x, n, confidence = case
    assert clopper_pearson_lower(x, n, confidence) == pytest.approx(
        _reference_lower([x], n, confidence)[0], rel=0, abs=1e-12)
    assert wilson_interval(x, n, confidence) == pytest.approx(
        _reference_wilson([x], n, confidence)[0], rel=0, abs=1e-15)


# --------------------------------------------------------------------------- the beta quantile


@pytest.mark.parametrize("p, a, b, expected", [
    (0.05, 3, 1, 0.05 ** (1 / 3)),                      # b == 1: p ** (1/a)
    (0.05, 1, 4, 1 - 0.95 ** (1 / 4)),                  # a == 1: 1 - (1-p) ** (1/b)
    (0.5, 2.5, 2.5, 0.5),                               # symmetric: the median is 1/2
    (0.0, 3, 4, 0.0), (1.0, 3, 4, 1.0),
])
def test_beta_quantile_closed_forms(p, a, b, expected):
    assert beta_quantile(p, a, b) == pytest.approx(expected, rel=0, abs=1e-15)


@pytest.mark.parametrize("p, a, b", [
    (3e-8 - 2e-12, 2, 2),          # far tail: I_x(2, 2) = 3x^2 - 2x^3 is that at x = 1e-4
    (1e-12, 5, 7), (1 - 1e-9, 5, 7),
    (0.05, 60_000, 40_001),        # shapes far beyond the grid
    (0.005, 3, 250_000),
    (0.3, 0.5, 0.5), (0.9, 2.5, 0.7),  # shapes other than whole numbers
])
def test_beta_quantile_matches_scipy_in_tails_and_at_large_shapes(p, a, b):
    from scipy.stats import beta

    assert beta_quantile(p, a, b) == pytest.approx(float(beta.ppf(p, a, b)), rel=1e-10, abs=1e-300)


@pytest.mark.parametrize("p, a, b", [(-0.1, 2, 2), (1.5, 2, 2), (0.5, 0, 2), (0.5, 2, -1), (0.5, float("inf"), 2)])
def test_beta_quantile_rejects_bad_arguments(p, a, b):
    with pytest.raises(ValueError):
        beta_quantile(p, a, b)
