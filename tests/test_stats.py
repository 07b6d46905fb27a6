"""Clopper-Pearson and Wilson bounds against statsmodels reference values (DESIGN: Statistics)."""

from __future__ import annotations

import subprocess
import sys

import pytest

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


def test_statsmodels_is_imported_lazily():
    code = ("import sys; import pytest_mcptest.engine.stats, pytest_mcptest.engine.distractors, "
            "pytest_mcptest.engine.selection, pytest_mcptest.engine.orchestration, pytest_mcptest.engine.tokens; "
            "print(any(m.startswith('statsmodels') or m.startswith('tiktoken') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
