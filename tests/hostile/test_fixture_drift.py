"""The ``mcptest_recorder`` fixture checks drift (issue 33, item 27): a changed
``describe(prompt=...)`` fails under ``--mcptest-drift=fail``, warns by default, and is quiet
under ``ignore``."""

from __future__ import annotations

import json

from pytest_mcptest.record.drift import prompt_sha256

TEST = '''
def test_weather(mcptest_recorder):
    mcptest_recorder.describe(agent="weather", model="anthropic:claude-sonnet-4-5", prompt="Weather in Rome?")
    assert mcptest_recorder.replaying
'''


def test_a_changed_prompt_is_drift_for_the_fixture(pytester):
    meta = {"model": "anthropic:claude-sonnet-4-5", "prompt_sha256": prompt_sha256("Weather in Paris?")}
    (pytester.path / "test-weather.json").write_text(json.dumps(
        {"mcptest_cassette": 1, "meta": meta, "runs": [{"tool_calls": []}]}))
    pytester.makepyfile(test_agent=TEST)
    failed = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-drift=fail")
    failed.assert_outcomes(passed=1, errors=1)  # the body passed; teardown reports the drift
    failed.stdout.fnmatch_lines(["*mcptest_recorder: *test-weather.json no longer matches the suite:*",
                                 "*prompt: changed since recording*"])
    warned = pytester.runpytest("-p", "no:cacheprovider")
    warned.assert_outcomes(passed=1, warnings=1)
    warned.stdout.fnmatch_lines(["*prompt: changed since recording*"])
    quiet = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-drift=ignore")
    quiet.assert_outcomes(passed=1)
    assert "changed since recording" not in "\n".join(quiet.outlines)
