"""Binomial confidence bounds, in one place, with statsmodels as the reference.

``statsmodels.stats.proportion`` costs about a second to import, so it is imported
inside each function: a suite whose gates never ask for a bound never pays for it.

Conventions:
- ``clopper_pearson_lower`` is the exact *one-sided* lower bound at ``confidence``;
  a one-sided 95% bound is the lower end of the two-sided interval with
  ``alpha = 2 * (1 - 0.95) = 0.10``. That is why one perfect run certifies 5 percent
  (the bound for n of n successes is ``0.05 ** (1/n)``).
- ``wilson_interval`` is the usual *two-sided* interval (``alpha = 1 - confidence``),
  as benchmarks report it.
- No trials is no evidence: the lower bound is 0.0 and the interval ``(0.0, 1.0)``,
  where statsmodels would return NaN.
"""

from __future__ import annotations

import math


def _check(successes: int, trials: int, confidence: float) -> None:
    if isinstance(successes, bool) or isinstance(trials, bool) or not (
            isinstance(successes, int) and isinstance(trials, int)):
        raise TypeError("successes and trials must be integers")
    if trials < 0 or not 0 <= successes <= max(trials, 0):
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")


def clopper_pearson_lower(successes: int, trials: int, confidence: float = 0.95) -> float:
    """The Clopper-Pearson exact one-sided lower bound on a success rate, as a fraction.

    Zero successes (or zero trials) certify nothing: 0.0. Computed with
    ``proportion_confint(successes, trials, alpha=2 * (1 - confidence), method="beta")``.
    """
    _check(successes, trials, confidence)
    if successes == 0 or trials == 0:
        return 0.0
    from statsmodels.stats.proportion import proportion_confint

    lower, _ = proportion_confint(successes, trials, alpha=2 * (1 - confidence), method="beta")
    return float(lower)


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The two-sided Wilson score interval on a success rate, as fractions, clipped to
    ``[0, 1]`` (statsmodels can return ``0.9999999999999999`` for a perfect score)."""
    _check(successes, trials, confidence)
    if trials == 0:
        return (0.0, 1.0)
    from statsmodels.stats.proportion import proportion_confint

    lower, upper = proportion_confint(successes, trials, alpha=1 - confidence, method="wilson")
    lower, upper = max(0.0, float(lower)), min(1.0, float(upper))
    if successes == trials:
        upper = 1.0
    if successes == 0:
        lower = 0.0
    return (lower, upper)


def lower_bound_percent(fraction: float) -> float:
    """A lower bound as a percent with two decimals, rounded *down* so the reported floor
    never claims more than was certified. Float noise below 1e-9 is ignored first, so the
    bound 0.05 (which is 5.000000000000001 after ``* 100``) reports 5.0, not 4.99."""
    pct = round(fraction * 100, 9)
    return math.floor(pct * 100 + 1e-9) / 100
