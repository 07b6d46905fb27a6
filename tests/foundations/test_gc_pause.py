"""The collector paused around mcptest's own work is left as it was found."""

import gc

import pytest

from pytest_mcptest.gc_pause import paused_collector


@pytest.fixture
def collector_state():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_inside_and_as_it_was_after(collector_state, enabled):
    (gc.enable if enabled else gc.disable)()
    with paused_collector():
        assert not gc.isenabled()
    assert gc.isenabled() is enabled


def test_an_exception_inside_still_restores_the_collector(collector_state):
    gc.enable()
    with pytest.raises(KeyError):
        with paused_collector():
            raise KeyError("x")
    assert gc.isenabled()
