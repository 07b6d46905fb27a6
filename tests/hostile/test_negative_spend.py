"""A cassette that claims a negative cost or token count (issue 33, item 24): refused
naming the place, never a budget gate passed on it."""

from __future__ import annotations

import json

import pytest

from pytest_mcptest.formats.cassette import parse_cassette
from pytest_mcptest.errors import InputError


@pytest.mark.parametrize("run, pointer, what", [
    ({"cost_micros": -5}, "/runs/0/cost_micros", "expected a number 0 or more, or null, found -5"),
    ({"conversation": {"tokens": {"input": -1.5}}}, "/runs/0/conversation/tokens/input",
     "expected a number 0 or more, or null, found -1.5"),
    ({"conversation": {"tokens": {"total": -100}}}, "/runs/0/conversation/tokens/total",
     "expected a number 0 or more, or null, found -100"),
])
def test_a_negative_spend_is_refused(run, pointer, what):
    text = json.dumps({"mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "ping"}], **run}]})
    with pytest.raises(InputError) as info:
        parse_cassette("c.json", text)
    assert info.value.pointer == pointer and what in info.value.message


def test_a_budget_gate_fails_the_item_rather_than_passing(pytester):
    (pytester.path / "c.json").write_text(json.dumps(
        {"mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "ping"}], "cost_micros": -10 ** 9}]}))
    pytester.makefile(".mcptest.yml", s="agents:\n  - name: a\n    cassette: c.json\n"
                                        "    expect:\n      - cost_micros: {\"<=\": 100}\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*/runs/0/cost_micros*expected a number 0 or more, or null, found -1000000000*"])
