"""The unbiased pass^k estimator (tau-bench's convention): the chance that
k runs drawn from the n recorded are all successes, exact with fractions."""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Sequence


def pass_hat_k(successes: int, trials: int, k: int) -> float:
    """The unbiased estimator of pass^k for one task: ``C(c, k) / C(n, k)``.

    It is the probability that ``k`` runs drawn without replacement from the ``n``
    observed are all successes; unlike ``(c/n) ** k`` it is unbiased for the chance
    that k fresh runs all succeed. ``k`` must be in ``1..n``.
    """
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in 0..{trials}, got {successes}")
    if not 1 <= k <= trials:
        raise ValueError(f"k must be in 1..{trials}, got {k}")
    return float(Fraction(comb(successes, k), comb(trials, k)))


def pass_hat_k_curve(tasks: Sequence[tuple[int, int]]) -> dict[int, float]:
    """``{k: mean over tasks of C(c, k) / C(n, k)}`` for ``k = 1..min(n)``.

    ``tasks`` is a sequence of ``(successes, runs)`` pairs; the mean is exact (fractions)
    and rounded once to a float, so the curve is byte-stable. No tasks gives ``{}``.
    """
    if not tasks:
        return {}
    top = min(n for _, n in tasks)
    curve = {}
    for k in range(1, top + 1):
        total = sum((Fraction(comb(c, k), comb(n, k)) for c, n in tasks), Fraction(0))
        curve[k] = float(total / len(tasks))
    return curve
