"""Golden-path scoring: how much work a recorded path wasted.

``score_golden_path`` takes the recorded tool names. Three waste counts are always
reported; only the dimensions the policy enables move the penalty
``1 / (1 + 0.5 * w)``.
"""

from __future__ import annotations

from operator import eq
from typing import Optional, Sequence

import msgspec


class GoldenPath(msgspec.Struct, frozen=True):
    """The ideal tool names in order, and which kinds of waste are penalized.

    The defaults are the strictest policy: every penalty on, no extra steps allowed.
    """

    calls: tuple[str, ...]
    allow_extra_steps: bool = False
    penalize_backtracking: bool = True
    penalize_repeated_tools: bool = True

    def __post_init__(self):
        # Any sequence of names is taken, kept as a tuple.
        if type(self.calls) is not tuple:
            msgspec.structs.force_setattr(self, "calls", tuple(self.calls))


class PathScore(msgspec.Struct, frozen=True):
    """A path's waste and penalty (every replay with a golden path makes one)."""

    passed: bool
    extra_steps: int
    backtracks: int
    repeated_tools: int
    penalty: float

    def to_dict(self) -> dict:
        return msgspec.structs.asdict(self)


def score_golden_path(names: Sequence[str], golden: GoldenPath) -> PathScore:
    """Count extra steps, backtracks and consecutive repeats of the recorded tool names (a
    run's ``names``); fold them into a penalty.

    - extra_steps: recorded calls beyond the golden path's length.
    - repeated_tools: a call whose name equals the immediately preceding call's.
    - backtracks: a call to a tool used earlier that is not the preceding tool.
    """
    names = tuple(names)
    extra = max(0, len(names) - len(golden.calls))
    # Each call is a name's first, a repeat of the one before, or a backtrack: counted in C.
    repeats = sum(map(eq, names, names[1:]))
    backtracks = len(names) - repeats - len(set(names))
    waste = (
        (0 if golden.allow_extra_steps else extra)
        + (backtracks if golden.penalize_backtracking else 0)
        + (repeats if golden.penalize_repeated_tools else 0)
    )
    return PathScore(
        passed=waste == 0,
        extra_steps=extra,
        backtracks=backtracks,
        repeated_tools=repeats,
        penalty=1.0 / (1.0 + 0.5 * waste),
    )


class GoldenOracle(msgspec.Struct, frozen=True):
    """A scenario's ``golden:`` block: the ideal path plus acceptable alternates."""

    path: GoldenPath
    alternates: tuple[tuple[str, ...], ...] = ()


class GoldenOutcome(msgspec.Struct, frozen=True):
    """Whether the recorded names matched the golden path or an alternate, and its score.

    The score is taken against the path that matched (an alternate when only an
    alternate matched), else against the golden calls.
    """

    matched: bool
    exact: bool
    alternate: bool
    alternate_index: Optional[int]
    score: PathScore

    @property
    def penalty(self) -> float:
        return self.score.penalty

    def to_dict(self) -> dict:
        out = {
            "matched": self.matched,
            "exact": self.exact,
            "alternate": self.alternate,
            "penalty": self.score.penalty,
            "passed": self.score.passed,
            "extra_steps": self.score.extra_steps,
            "backtracks": self.score.backtracks,
            "repeated_tools": self.score.repeated_tools,
        }
        if self.alternate_index is not None:
            out["alternate_index"] = self.alternate_index
        return out


def judge_golden(names: Sequence[str], oracle: GoldenOracle) -> GoldenOutcome:
    """Compare recorded names with the golden path and its alternates."""
    names = tuple(names)
    exact = names == oracle.path.calls
    alt_index = None
    if not exact:
        for i, alt in enumerate(oracle.alternates):
            if names == alt:
                alt_index = i
                break
    reference = oracle.path
    if alt_index is not None:
        reference = msgspec.structs.replace(oracle.path, calls=oracle.alternates[alt_index])
    return GoldenOutcome(
        matched=exact or alt_index is not None,
        exact=exact,
        alternate=alt_index is not None,
        alternate_index=alt_index,
        score=score_golden_path(names, reference),
    )
