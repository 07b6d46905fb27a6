"""How many tasks and trials a comparison of pass rates needs, or what drop it can detect.

The formulas, each named where it is printed:

- one and two independent samples: the normal approximation on Cohen's h, the
  difference of arcsine-transformed rates ``2 asin(sqrt p1) - 2 asin(sqrt p2)``, with both
  tails of the two-sided test counted (statsmodels' ``NormalIndPower``, which the tests
  use as the reference; ``ratio`` 0 is one sample against a known rate, 1 two equal ones);
- paired runs (the same tasks before and after): McNemar's test, Connor's (1987) sample
  size ``n = (z_a sqrt(psi) + z_b sqrt(psi - D^2))^2 / D^2`` with ``psi`` the share of
  discordant pairs;
- trials of one task are not independent: ``n`` runs of ``t`` trials per task with
  intraclass correlation ``icc`` count as ``n / (1 + (t - 1) icc)`` (Kish's design effect);
- one sample, exactly: the smallest number of runs at which the exact binomial test (its
  lower tail at ``alpha / 2``, the side a drop falls on) reaches the power.

Pure functions over floats, with :class:`statistics.NormalDist` as the only distribution.
"""

from __future__ import annotations

import math
from statistics import NormalDist

from .beta import regularized_beta

_Z = NormalDist()
MAX_RUNS = 10_000_000  # searches stop here: a drop that needs more is not worth the machine time


def cohen_h(p1: float, p2: float) -> float:
    """Cohen's h between two rates: ``2 asin(sqrt p1) - 2 asin(sqrt p2)``."""
    return 2 * math.asin(math.sqrt(p1)) - 2 * math.asin(math.sqrt(p2))


def normal_power(h: float, nobs1: float, alpha: float, ratio: float = 1.0) -> float:
    """Power of the two-sided z test of effect ``h`` (both tails), as ``NormalIndPower``:
    ``nobs1`` in the first sample, ``ratio * nobs1`` in the second (``ratio`` 0: one sample)."""
    nobs = nobs1 if ratio == 0 else nobs1 * ratio / (1 + ratio)
    crit = _Z.inv_cdf(1 - alpha / 2)
    shift = abs(h) * math.sqrt(nobs)
    return _Z.cdf(shift - crit) + _Z.cdf(-shift - crit)


def _bisect(function, low: float, high: float, steps: int = 200) -> float:
    """The root of an increasing ``function`` between ``low`` and ``high``."""
    for _ in range(steps):
        middle = (low + high) / 2
        if function(middle) < 0:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def runs_needed(h: float, alpha: float, power: float, ratio: float = 1.0) -> float:
    """``nobs1`` (a real number; round it up) at which :func:`normal_power` reaches ``power``."""
    if h == 0:
        return math.inf
    high = 1.0
    while normal_power(h, high, alpha, ratio) < power:
        high *= 2
        if high > MAX_RUNS:
            return math.inf
    return _bisect(lambda n: normal_power(h, n, alpha, ratio) - power, 0.0, high)


def detectable_h(nobs1: float, alpha: float, power: float, ratio: float = 1.0) -> float:
    """The smallest ``h`` that ``nobs1`` runs detect with ``power``."""
    return _bisect(lambda h: normal_power(h, nobs1, alpha, ratio) - power, 0.0, 2 * math.pi)


def drop_for_h(rate: float, h: float) -> float:
    """The drop ``D`` from ``rate`` whose Cohen's h is ``h`` (at most ``rate`` itself)."""
    angle = math.asin(math.sqrt(rate)) - h / 2
    return rate if angle <= 0 else rate - math.sin(angle) ** 2


def design_effect(trials: int, icc: float) -> float:
    """How many runs count as one independent run when tasks repeat: ``1 + (t - 1) icc``
    (a negative ``icc`` is taken as 0: trials are never worth more than new tasks)."""
    return 1 + (trials - 1) * max(0.0, icc)


def paired_runs_needed(drop: float, discordant: float, alpha: float, power: float) -> float:
    """Connor's McNemar sample size: pairs needed to detect ``drop`` when ``discordant``
    of the pairs differ."""
    if not 0 < drop <= discordant <= 1:
        raise ValueError(f"need 0 < drop <= discordant share <= 1, got drop {drop}, discordant {discordant}")
    za, zb = _Z.inv_cdf(1 - alpha / 2), _Z.inv_cdf(power)
    return (za * math.sqrt(discordant) + zb * math.sqrt(discordant - drop ** 2)) ** 2 / drop ** 2


def binomial_cdf(x: int, n: int, p: float) -> float:
    """``P(X <= x)`` for ``X ~ Binomial(n, p)``, as the beta CDF ``I_{1-p}(n - x, x + 1)``:
    a continued fraction of about ``sqrt(n)`` terms instead of a sum of ``x`` terms."""
    if x < 0:
        return 0.0
    if x >= n:
        return 1.0
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    return regularized_beta(1.0 - p, n - x, x + 1)


def exact_power(n: int, rate: float, drop: float, alpha: float) -> float:
    """Power of the exact binomial test of ``rate`` with ``n`` runs when the true rate is
    ``rate - drop``: the chance of a count in the lower tail of probability ``alpha / 2``
    (the largest count whose tail is at most that, found by bisection)."""
    if binomial_cdf(0, n, rate) > alpha / 2:
        return 0.0
    low, high = 0, n  # cdf(low) <= alpha/2 < cdf(high) (cdf(n) is 1)
    while high - low > 1:
        middle = (low + high) // 2
        if binomial_cdf(middle, n, rate) <= alpha / 2:
            low = middle
        else:
            high = middle
    return binomial_cdf(low, n, rate - drop)


def exact_runs_needed(rate: float, drop: float, alpha: float, power: float, start: int = 1,
                      limit: int = 1_000_000) -> int:
    """The smallest number of runs at which :func:`exact_power` reaches ``power`` (searched
    from ``start``; exact power is not monotone in ``n``, so every ``n`` is tried)."""
    for n in range(max(1, start), limit + 1):
        if exact_power(n, rate, drop, alpha) >= power:
            return n
    raise ValueError(f"more than {limit} runs needed for an exact test of a drop of {drop} from {rate}")
