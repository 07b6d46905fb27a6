"""How many examples a property test draws, relative to the hypothesis profile in use.

A property test asks for ``budget(n)``: ``n`` under the default profile (100 examples),
and proportionally fewer under a lighter one, so ``pytest tests/engine
--hypothesis-profile=dev`` (10 examples: a tenth of each budget) answers in seconds while
CI keeps every test's full budget. A test's own ``max_examples=N`` would ignore the profile.
"""

from hypothesis import settings

DEFAULT = 100  # hypothesis' own default max_examples, the profile the budgets were set for


def budget(n: int) -> int:
    return max(1, n * settings.default.max_examples // DEFAULT)
