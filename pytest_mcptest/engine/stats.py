"""Binomial confidence bounds, in one place, with statsmodels as the reference.

They are computed here with the standard library alone, as statsmodels'
``proportion_confint`` defines them: importing statsmodels (and scipy, numpy, pandas
under it) costs one to two seconds per process, paid again by every xdist worker, for a
few numbers per session. The Wilson interval is closed form given the normal quantile
(``statistics.NormalDist``); the Clopper-Pearson bound is a beta quantile
(:mod:`.beta`). The tests compare both with statsmodels over a grid of counts.

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
from statistics import NormalDist

from .beta import beta_quantile


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

    Zero successes (or zero trials) certify nothing: 0.0. What
    ``proportion_confint(successes, trials, alpha=2 * (1 - confidence), method="beta")``
    returns: the ``1 - confidence`` quantile of ``Beta(successes, trials - successes + 1)``.
    """
    _check(successes, trials, confidence)
    if successes == 0 or trials == 0:
        return 0.0
    alpha = 2 * (1 - confidence)
    return beta_quantile(alpha / 2.0, successes, trials - successes + 1)


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The two-sided Wilson score interval on a success rate, as fractions, clipped to
    ``[0, 1]`` (the formula can give ``0.9999999999999999`` for a perfect score).

    The arithmetic is statsmodels' ``proportion_confint(..., method="wilson")``, step for
    step, so that the floats agree to the last bit or two."""
    _check(successes, trials, confidence)
    if trials == 0:
        return (0.0, 1.0)
    alpha = 1 - confidence
    crit = -NormalDist().inv_cdf(alpha / 2.0)
    crit2 = crit ** 2
    q = successes / trials
    denom = 1 + crit2 / trials
    center = (q + crit2 / (2 * trials)) / denom
    dist = crit * math.sqrt(q * (1.0 - q) / trials + crit2 / (4.0 * trials ** 2)) / denom
    lower, upper = max(0.0, center - dist), min(1.0, center + dist)
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
