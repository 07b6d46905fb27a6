"""``marks: [{skipif: true}]`` with no reason (issue 33, item 25): refused at collection, as
pytest refuses a boolean condition without a reason, rather than a silent skip."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("mark", ["{skipif: true}", "{skipif: [true, false]}", "{xfail: true}"])
def test_a_boolean_condition_without_a_reason_is_refused(pytester, mark):
    (pytester.path / "c.json").write_text('{"mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "ping"}]}]}')
    pytester.makefile(".mcptest.yml", s=f"agents:\n  - name: a\n    cassette: c.json\n    marks: [{mark}]\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-rs")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*s.mcptest.yml:4*a condition of true or false needs a reason*"])
    result.assert_outcomes(errors=1)


def test_a_named_condition_or_a_reason_is_still_fine(pytester):
    (pytester.path / "c.json").write_text('{"mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "ping"}]}]}')
    pytester.makefile(".mcptest.yml", s="agents:\n  - name: a\n    cassette: c.json\n"
                                        "    marks: [{skipif: {condition: true, reason: not here}}]\n"
                                        "  - name: b\n    cassette: c.json\n"
                                        "    marks: [{skipif: [false, {python: \"<3.0\"}]}]\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*not here*"])
