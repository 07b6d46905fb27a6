"""Paired tests for "is this change real or noise?", in pure Python.

Two runs of the same suite are paired: the same item, the same task, the same trial. A
paired test uses that: only the pairs that changed carry evidence, so it sees a real
change with far fewer runs than two unpaired rates would need.

- pass/fail per pair: McNemar's exact test, a two-sided binomial test with p = 1/2 on
  the discordant pairs (pass->fail against fail->pass), computed with integers;
- a mean of per-task differences (pass^k): a sign-flip permutation test (exact when few
  tasks differ, else a fixed number of resamples) and a percentile bootstrap interval;
- per-run numbers (tokens, cost, F1): the paired t-test and its t interval;
- many tests at once: Holm's step-down or Benjamini-Hochberg's adjustment.

Resampling draws from a private generator with a fixed seed (never the global one), so a
comparison prints the same bytes on every run, every machine and every Python version.
The t distribution comes from the beta CDF of :mod:`.beta`; scipy is the tests' oracle.
"""

from __future__ import annotations

import math
from fractions import Fraction
from math import comb
from random import Random
from typing import Callable, Optional, Sequence

from .beta import beta_quantile, regularized_beta

SEED = 20260529  # any fixed number: what matters is that it never changes
RESAMPLES = 10_000  # sign patterns drawn for a permutation p-value
BOOTSTRAP_RESAMPLES = 4_000  # resamples for a percentile interval (Efron: 1,000 or more)
EXACT_UP_TO = 16  # a sign-flip test enumerates all 2**m flips up to this many non-zero differences
_CHUNK = 1 << 52


def _generator(seed: int) -> Callable[[], float]:
    """``random()`` of a private generator seeded with ``seed``: Python promises that
    ``random()`` gives the same sequence for the same integer seed on every version
    (the one part of :mod:`random` it does promise), so only ``random()`` is drawn from."""
    return Random(seed).random


def _bits(draw: Callable[[], float], count: int) -> int:
    """``count`` random bits, 52 per draw (a double's fraction holds 53)."""
    bits = 0
    for shift in range(0, count, 52):
        bits |= int(draw() * _CHUNK) << shift
    return bits


def mcnemar_exact(worse: int, better: int) -> float:
    """Two-sided p of McNemar's exact test: ``worse`` pairs went pass->fail, ``better``
    fail->pass. Twice the smaller binomial tail at 1/2, at most 1 (statsmodels'
    ``mcnemar(exact=True)``). No discordant pair is no evidence: 1.0."""
    n = worse + better
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(worse, better) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2 ** n)))


def sign_flip_p(differences: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, bool]:
    """Two-sided p of the paired permutation test of a mean difference: under "no change"
    each pair's difference is as likely to have the other sign. Returns ``(p, exact)``:
    every sign pattern is counted when at most :data:`EXACT_UP_TO` differences are not
    zero, else ``resamples`` random patterns, with the observed one counted in
    (``(hits + 1) / (resamples + 1)``), so p is never 0."""
    values = [d for d in differences if d != 0]
    if not values:
        return 1.0, True
    observed = abs(sum(values)) - 1e-12 * sum(abs(v) for v in values)  # float sums may differ in the last bit
    m = len(values)
    if m <= EXACT_UP_TO:
        hits = 0
        for pattern in range(1 << m):
            total = sum(-v if pattern >> i & 1 else v for i, v in enumerate(values))
            if abs(total) >= observed:
                hits += 1
        return hits / (1 << m), True
    draw = _generator(seed)
    hits = 0
    for _ in range(resamples):
        bits = _bits(draw, m)  # one random sign per difference
        total = sum(-v if bits >> i & 1 else v for i, v in enumerate(values))
        if abs(total) >= observed:
            hits += 1
    return (hits + 1) / (resamples + 1), False


def bootstrap_interval(differences: Sequence[float], confidence: float = 0.95,
                       resamples: int = BOOTSTRAP_RESAMPLES, seed: int = SEED) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean of ``differences`` (pairs drawn with
    replacement). All equal differences give that value at both ends."""
    n = len(differences)
    if n == 0:
        raise ValueError("no differences to resample")
    if all(d == differences[0] for d in differences):
        return (float(differences[0]), float(differences[0]))
    draw = _generator(seed)
    values = list(differences)
    means = sorted(sum([values[int(draw() * n)] for _ in range(n)]) / n for _ in range(resamples))
    tail = (1 - confidence) / 2
    low = means[max(0, math.floor(tail * resamples))]
    high = means[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]
    return (low, high)


def t_two_sided_p(t: float, df: float) -> float:
    """``P(|T| >= |t|)`` for Student's t with ``df`` degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return regularized_beta(df / (df + t * t), df / 2.0, 0.5)


def t_quantile(p: float, df: float) -> float:
    """The upper ``p`` quantile of Student's t (``t`` with ``P(T >= t) = p``), ``p < 1/2``."""
    x = beta_quantile(2 * p, df / 2.0, 0.5)
    return math.sqrt(df * (1.0 - x) / x)


def paired_t(differences: Sequence[float], confidence: float = 0.95) -> Optional[tuple[float, float, float, float]]:
    """``(mean, low, high, p)`` of the paired t-test on ``differences``; None with fewer
    than two pairs. Differences that are all equal and not zero are a certain shift (p 0)."""
    n = len(differences)
    if n < 2:
        return None
    mean = math.fsum(differences) / n
    var = math.fsum((d - mean) ** 2 for d in differences) / (n - 1)
    if var == 0.0:
        return (mean, mean, mean, 1.0 if mean == 0 else 0.0)
    se = math.sqrt(var / n)
    half = t_quantile((1 - confidence) / 2, n - 1) * se
    return (mean, mean - half, mean + half, t_two_sided_p(mean / se, n - 1))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (controls the family-wise error): the i-th smallest p
    times ``m - i``, made monotone, at most 1."""
    order = sorted(range(len(pvalues)), key=lambda i: (pvalues[i], i))
    adjusted = [1.0] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def benjamini_hochberg(pvalues: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg's step-up adjustment (controls the false discovery rate)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: (pvalues[i], i), reverse=True)
    adjusted = [1.0] * m
    running = 1.0
    for position, i in enumerate(order):
        rank = m - position
        running = min(running, pvalues[i] * m / rank)
        adjusted[i] = min(1.0, running)
    return adjusted


CORRECTIONS = {"holm": holm, "bh": benjamini_hochberg}
CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg"}
