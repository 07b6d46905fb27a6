"""Fixtures the plugin's tests share."""

import pytest

from suites import GOOD_RUN, PING_RUN, WIDGET_SUITE, simple_scenario


@pytest.fixture
def shop(pytester):
    """The spec's widget suite beside a second scenario, with passing cassettes."""
    pytester.makefile(".mcptest.yml", shop=WIDGET_SUITE + simple_scenario("ping once"))
    pytester.mkdir("cassettes")
    (pytester.path / "cassettes" / "restock.json").write_text(GOOD_RUN)
    (pytester.path / "ping-once.json").write_text(PING_RUN)
    return pytester
