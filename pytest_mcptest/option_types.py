"""The types of the numbers options take, shared by the pytest options (``plugin/``) and the
``mcptest`` command (``cli/``): each refuses what is not the number it names (NaN and infinity
included) with argparse's error, which both print as a usage error naming the option.
"""

from __future__ import annotations

import argparse


def fraction(text: str) -> float:
    """``--min-drop``: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, found {text!r}") from None
    if not 0 <= value <= 1:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, found {text!r}")
    return value


def seconds(text: str) -> float:
    """``--timeout``: a number of seconds above 0 (not infinite, not NaN)."""
    return positive(text, "a number of seconds above 0")


def positive(text: str, expected: str = "a number above 0") -> float:
    """An option's number above 0, not infinite, not NaN (``--max-cost-usd``, ``--timeout``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, found {text!r}") from None
    if not 0 < value < float("inf"):  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected {expected}, found {text!r}")
    return value


def whole_number(text: str) -> int:
    """An option's whole number of at least 1 (``--sample``, ``--max-tokens``, ``--concurrency``,
    ``--mcptest-budget-tokens``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, found {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, found {text!r}")
    return value


def dollars(text: str) -> float:
    """A sum of money above 0 (``--mcptest-budget-usd``)."""
    return positive(text, "an amount of dollars above 0")
