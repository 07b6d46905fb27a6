"""The runtest protocol of a block item, without the setup and teardown hooks that would do nothing.

pytest runs every item through ``pytest_runtest_protocol``: a setup, a call and a teardown
phase, each a hook call that every plugin's wrappers surround (output capture, log capture,
unraisable and thread exceptions, skip marks), each followed by ``pytest_runtest_makereport``
and ``pytest_runtest_logreport``. For a block item, setup and teardown have nothing to do:
its node's ``setup`` and ``teardown`` are pytest's empty ones, it has no fixtures, and when
the items before and after it are of the same suite file, no collector is set up or torn
down either. Those two hook calls were a third of what a replayed item cost the session.

So, for a block item, this plugin takes the protocol over (the hook's documented use: it
stops at the first implementation that returns a value) and does what pytest's own does,
minus the wrappers around the two phases where nothing runs:

- ``pytest_runtest_logstart``; three reports, each made by the real
  ``pytest_runtest_makereport`` (every plugin's wrapper sees it) and sent to the real
  ``pytest_runtest_logreport``, a failure then to ``pytest_exception_interact``, as pytest's
  own does; then ``pytest_runtest_logfinish``;
- setup and teardown move the item on and off pytest's setup stack directly, timed as
  pytest times a phase (``CallInfo``), with ``PYTEST_CURRENT_TEST`` set as pytest sets it;
  ``--durations`` and JUnit XML see the same phases;
- the call phase is the real ``pytest_runtest_call`` hook: output and log records are
  captured and reported as on any item (the log capture's per-item state, which its setup
  wrapper makes and its teardown wrapper removes, is made and removed around it).

It steps aside (pytest's protocol runs the item) whenever any of that could differ from
pytest's own: another plugin or a ``conftest.py`` implements ``pytest_runtest_setup`` or
``pytest_runtest_teardown`` (it would not see the item) or a protocol of its own (pytest-
rerunfailures); the item carries a skip or xfail mark; ``--pdb``, ``--trace`` or a
``--setup-*`` option is on; the item is the first or last of its file, or of the session
(collectors are set up or torn down around it). When the session is about to stop after
the item (``-x``, ``--maxfail``), its teardown is pytest's, which then tears everything down.
"""

from __future__ import annotations

import os
import types
from typing import Optional

import pytest

try:  # pytest's own names for what its protocol does; a pytest without them runs its own protocol
    from _pytest.logging import caplog_handler_key, caplog_records_key
    from _pytest.runner import call_and_report, check_interactive_exception
except ImportError:  # pragma: no cover (pytest 8.0 to 9.x have them)
    call_and_report = None

_OURS = ("_pytest.", "pytest_mcptest.")  # pytest's built-in plugins and this package's
_PHASE_HOOKS = ("pytest_runtest_setup", "pytest_runtest_teardown")
_OPTIONS = ("usepdb", "trace", "setupshow", "setuponly", "setupplan")
_SHORT = pytest.StashKey[bool]()
# What a phase lets through rather than reports (pytest's own choice without --pdb, which
# takes pytest's protocol): pytest.exit() and Ctrl-C.
_RERAISE = (pytest.exit.Exception, KeyboardInterrupt)


def run(item: pytest.Item, nextitem: Optional[pytest.Item]) -> Optional[bool]:
    """Run ``item`` (a block item) through the shorter protocol and return True, or return
    None when pytest's own must run it (see the module's docstring)."""
    if nextitem is None or nextitem.parent is not item.parent or not _may_shorten(item.config):
        return None
    state = item.session._setupstate
    stack = getattr(state, "stack", None)
    chain = item.listchain()
    if type(stack) is not dict or len(stack) != len(chain) - 1 or any(
            stack.get(node, (None, True))[1] is not None for node in chain[:-1]):
        return None  # a collector above it is to be set up, or failed to be
    if any(mark.name in ("skip", "skipif", "xfail") for mark in item.iter_markers()):
        return None
    ihook = item.ihook
    reraise = _RERAISE
    ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    os.environ["PYTEST_CURRENT_TEST"] = _current(item, "setup")
    report = _reported(ihook, item, pytest.CallInfo.from_call(lambda: state.setup(item), when="setup", reraise=reraise))
    if report.passed:
        _reported(ihook, item, _called(ihook, item, reraise))
    if item.session.shouldfail or item.session.shouldstop:
        # pytest tears everything down after this item (session fixtures included): its
        # teardown hook runs, with the log capture's per-item state it expects.
        item.stash[caplog_records_key] = {}
        call_and_report(item, "teardown", nextitem=None)
        if caplog_records_key in item.stash:  # left when the logging plugin is off
            del item.stash[caplog_records_key]
    else:
        os.environ["PYTEST_CURRENT_TEST"] = _current(item, "teardown")
        _reported(ihook, item, pytest.CallInfo.from_call(lambda: state.teardown_exact(nextitem), when="teardown",
                                                  reraise=reraise))
        os.environ.pop("PYTEST_CURRENT_TEST", None)
    ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def _called(ihook, item: pytest.Item, reraise: tuple) -> pytest.CallInfo:
    """The call phase: the real hook, as pytest's protocol calls it, with the log capture's
    per-item state that its setup wrapper would have made and its teardown wrapper removed."""
    item.stash[caplog_records_key] = {}
    try:
        return pytest.CallInfo.from_call(lambda: ihook.pytest_runtest_call(item=item), when="call", reraise=reraise)
    finally:
        del item.stash[caplog_records_key]
        if caplog_handler_key in item.stash:
            del item.stash[caplog_handler_key]


def _reported(ihook, item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
    report = ihook.pytest_runtest_makereport(item=item, call=call)
    ihook.pytest_runtest_logreport(report=report)
    if check_interactive_exception(call, report):
        ihook.pytest_exception_interact(node=item, call=call, report=report)
    return report


def _current(item: pytest.Item, when: str) -> str:
    """``PYTEST_CURRENT_TEST`` as pytest sets it for a phase."""
    return f"{item.nodeid} ({when})".replace("\x00", "(null)")


def _may_shorten(config: pytest.Config) -> bool:
    """Whether the session's plugins and options leave the shorter protocol equal to pytest's
    (worked out at the first item: every ``conftest.py`` is loaded by then)."""
    known = config.stash.get(_SHORT, None)
    if known is None:
        known = config.stash[_SHORT] = call_and_report is not None and not any(getattr(config.option, name, False) for name in _OPTIONS) and all(
            _ours(impl) for name in _PHASE_HOOKS for impl in getattr(config.hook, name).get_hookimpls()) and all(
            _ours(impl) or impl.hookwrapper or impl.wrapper for impl in config.hook.pytest_runtest_protocol.get_hookimpls())
    return known


def _ours(impl) -> bool:
    """Whether a hook implementation is pytest's own or this package's."""
    plugin = impl.plugin
    module = plugin.__name__ if isinstance(plugin, types.ModuleType) else type(plugin).__module__
    return (module or "").startswith(_OURS)

