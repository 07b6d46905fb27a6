"""How far a judge can be trusted: its verdicts against people's, and against its own.

A replayed verdict is only as good as the judge that gave it. Raw agreement flatters a judge
when most verdicts are "pass" (a judge that always says pass agrees with people as often as
they pass), so Cohen's kappa is given beside it: agreement beyond what the two raters' own
rates of "pass" would give by chance, with its 95% interval (the large-sample standard error
of Fleiss, Cohen and Everitt, as statsmodels' ``cohens_kappa`` computes it). The flip rate is
the share of inputs judged more than once whose verdicts were not all the same; the position
bias, the share of inputs judged in both orders (a pairwise judge shown A then B, and B then
A) whose verdict changed with the order.

Pure: verdicts are booleans (True for pass); nothing here reads a file.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import attrs

Z_95 = 1.959963984540054  # the standard normal's 97.5th percentile


@attrs.frozen
class Agreement:
    """People's verdicts against the judge's, over ``n`` items."""

    n: int
    agreement: float
    kappa: Optional[float]  # None when kappa is undefined (every verdict of both raters the same)
    kappa_ci: Optional[tuple[float, float]]
    flip_rate: Optional[float]  # None when no input was judged twice
    repeated: int  # inputs judged more than once
    position_bias: Optional[float]  # None when no input was judged in both orders
    swapped: int  # inputs judged in both orders
    table: tuple[tuple[int, int], tuple[int, int]]  # [[both fail, human fail judge pass], [human pass judge fail, both pass]]

    def to_dict(self) -> dict:
        return {"n": self.n, "agreement": self.agreement, "kappa": self.kappa,
                "kappa_ci": list(self.kappa_ci) if self.kappa_ci is not None else None,
                "flip_rate": self.flip_rate, "repeated": self.repeated, "position_bias": self.position_bias,
                "swapped": self.swapped, "table": [list(row) for row in self.table]}


def cohens_kappa(table: Sequence[Sequence[int]]) -> tuple[Optional[float], Optional[tuple[float, float]]]:
    """Cohen's kappa of a square table of counts (rows one rater, columns the other) and its
    95% interval from the large-sample standard error (Fleiss, Cohen & Everitt 1969); ``(None,
    None)`` when the chance agreement is 1 (kappa is undefined: nothing to agree beyond chance)."""
    k = len(table)
    n = sum(sum(row) for row in table)
    if n == 0:
        return None, None
    p = [[table[i][j] / n for j in range(k)] for i in range(k)]
    rows = [sum(p[i]) for i in range(k)]
    cols = [sum(p[i][j] for i in range(k)) for j in range(k)]
    observed = sum(p[i][i] for i in range(k))
    chance = sum(rows[i] * cols[i] for i in range(k))
    if chance >= 1 - 1e-15:
        return None, None
    kappa = (observed - chance) / (1 - chance)
    # Fleiss, Cohen and Everitt's variance of kappa (the one not assuming kappa = 0).
    first = sum(p[i][i] * ((1 - (rows[i] + cols[i]) * (1 - kappa)) ** 2) for i in range(k))
    second = (1 - kappa) ** 2 * sum(p[i][j] * (cols[i] + rows[j]) ** 2 for i in range(k) for j in range(k) if i != j)
    third = (kappa - chance * (1 - kappa)) ** 2
    variance = max(0.0, first + second - third) / (n * (1 - chance) ** 2)
    half = Z_95 * math.sqrt(variance)
    return kappa, (kappa - half, kappa + half)


def majority(verdicts: Sequence[bool]) -> bool:
    """The verdict most of ``verdicts`` give; a tie goes to the first (the judge's first word)."""
    passes = sum(verdicts)
    fails = len(verdicts) - passes
    return verdicts[0] if passes == fails else passes > fails


def agreement(human: Sequence[bool], judged: Sequence[Sequence[bool]],
              orders: Sequence[Optional[tuple[bool, bool]]] = ()) -> Agreement:
    """People's verdicts (``human``) against the judge's (``judged``: each item's verdicts, one
    or several on the same input, compared by :func:`majority`), and ``orders``: for an item
    judged in both orders, its two verdicts (original, swapped), else None."""
    if len(human) != len(judged):
        raise ValueError("one list of the judge's verdicts per human verdict")
    table = [[0, 0], [0, 0]]
    for person, said in zip(human, judged):
        table[int(person)][int(majority(said))] += 1
    n = len(human)
    kappa, interval = cohens_kappa(table)
    repeated = [said for said in judged if len(said) > 1]
    flips = sum(1 for said in repeated if len(set(said)) > 1)
    both = [pair for pair in orders if pair is not None]
    return Agreement(
        n=n, agreement=(table[0][0] + table[1][1]) / n if n else 0.0, kappa=kappa, kappa_ci=interval,
        flip_rate=flips / len(repeated) if repeated else None, repeated=len(repeated),
        position_bias=sum(1 for a, b in both if a != b) / len(both) if both else None, swapped=len(both),
        table=((table[0][0], table[0][1]), (table[1][0], table[1][1])))
