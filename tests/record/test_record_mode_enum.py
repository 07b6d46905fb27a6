"""The record modes are one enum with one validator: the option, the ini key, the recorder
and the decision all refuse a bad mode with the same sentence."""

from __future__ import annotations

import pytest

from pytest_mcptest.record.modes import RecordMode, decide
from pytest_mcptest.record.recorder import Recorder

EXPECTED = "must be one of none, once, new_episodes, all, rewrite, found 'sometimes'"


def test_the_modes_are_vcrpys_and_pytest_recordings():
    assert [mode.value for mode in RecordMode] == ["none", "once", "new_episodes", "all", "rewrite"]
    assert RecordMode.parse("new_episodes") is RecordMode.NEW_EPISODES
    assert RecordMode.ONCE == "once" and f"{RecordMode.ALL}" == "all" and str(RecordMode.NONE) == "none"


@pytest.mark.parametrize("refuse", [
    lambda: RecordMode.parse("sometimes"),
    lambda: decide("sometimes", "c.json", cassette_exists=False),
    lambda: Recorder("c.json", mode="sometimes"),
])
def test_every_user_of_a_mode_refuses_a_bad_one_in_the_same_words(refuse):
    with pytest.raises(ValueError, match=EXPECTED):
        refuse()


def test_a_bad_mode_from_the_option_or_the_ini_key_is_a_usage_error_naming_where(pytester):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode", "sometimes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--mcptest-record-mode {EXPECTED}*"])
    pytester.makeini("[pytest]\nmcptest_record_mode = sometimes\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*mcptest_record_mode {EXPECTED}*"])
    pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once").assert_outcomes(passed=1)
