"""The distractor ladder's accuracy-vs-count curve in the terminal summary."""

from __future__ import annotations

import pathlib

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "tool-selection"


def test_the_ladder_is_summarized_by_count(pytester):
    result = pytester.runpytest(str(EXAMPLE), "-p", "no:cacheprovider", "-k", "distractors")
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "*mcptest: distractor accuracy by count*",
        "near_duplicate distractors, correct catalog.search_products:",
        "    count   0: accuracy 100%*",
        "    count   2: accuracy  80%*",
        "    count   4: accuracy  67%*",
        "    count   8: accuracy  50%*",
    ])
