"""The runtest protocol of a block item, without the output and log capture of the phases in
which nothing that could print or log runs.

pytest runs every item through ``pytest_runtest_protocol``: a setup, a call and a teardown
phase, each a hook call; around each, the capture plugin's wrapper resumes, suspends and
reads the captured output, and the logging plugin's wrapper installs and removes its log
handlers. For a block item, setup and teardown run nothing that could print or log: its
node's ``setup`` and ``teardown`` are pytest's empty ones, it has no fixtures, and when the
items before and after it are of the same suite file, no collector is set up or torn down
either. Nor does the call phase of an item that replays: one of mcptest's own kinds that
judges a cassette (``verdict_cache.keeps``), in record mode ``none``, runs only this
package's evaluation, which neither prints nor logs (nothing in it calls ``print`` or
``logging``; no model, no server, no user code). Those wrappers were much of what a replayed
item cost the session (``benchmarks/README.md`` has the figures).

So, for a block item, this plugin takes the protocol over (the hook's documented use: it
stops at the first implementation that returns a value) and does what pytest's own does:

- ``pytest_runtest_logstart``; for each phase, the real phase hook, the real
  ``pytest_runtest_makereport`` and ``pytest_runtest_logreport``, and for a failure
  ``pytest_exception_interact``; then ``pytest_runtest_logfinish``. Every hook and every
  other plugin's implementation runs as under pytest's protocol (pytest's own setup and
  teardown, ``PYTEST_CURRENT_TEST``, the skip marks, unraisable and thread exceptions) with
  one difference: the setup and teardown hooks, and a replaying item's call hook, are called
  without the capture and logging plugins' implementations
  (``PluginManager.subset_hook_caller``, pluggy's own way to call a hook without some
  plugins), as nothing in them prints or logs;
- any other item's call phase is the real ``pytest_runtest_call`` hook, capture and logging
  included (the logging plugin's per-item state, which its setup wrapper makes and its
  teardown wrapper removes, is made and removed around it).

It steps aside (pytest's protocol runs the item) whenever something could print or log in
those phases, or what a plugin sees could differ from pytest's own protocol: another plugin or
a ``conftest.py`` implements ``pytest_runtest_setup`` or ``pytest_runtest_teardown`` (it could
print), or a protocol of its own (pytest-rerunfailures); live logging is on (its section
headers name the phases); the warnings plugin is off (a warning would then print); the item
carries a skip or xfail mark; ``--pdb``, ``--trace`` or a ``--setup-*`` option is on; the item
is the first or last of its file, or of the session (collectors are set up or torn down around
it). The call phase is pytest's whole hook when another plugin or a ``conftest.py`` implements
``pytest_runtest_call`` (apart from hypothesis's wrapper, which does nothing for an item that
is not a Python function), or the session may record. The teardown is the whole hook when
something added a finalizer to the item, or the session is about to stop after it (``-x``,
``--maxfail``: pytest then tears everything down). What it decided of the session's plugins
is decided again whenever a plugin is registered.
"""

from __future__ import annotations

from typing import Optional

import pytest

try:  # pytest's own names for what its protocol does; a pytest without them runs its own protocol
    from _pytest.logging import caplog_handler_key, caplog_records_key
    from _pytest.runner import call_and_report, check_interactive_exception
except ImportError:  # pragma: no cover (pytest 8.0 to 9.x have them)
    check_interactive_exception = None

from ..record.modes import RecordMode
from .session_report import is_block_item
from .stash import CONTEXT_KEY

_OURS = ("_pytest.", "pytest_mcptest.")  # pytest's built-in plugins and this package's
_PHASES = ("pytest_runtest_setup", "pytest_runtest_teardown")
_OPTIONS = ("usepdb", "trace", "setupshow", "setuponly", "setupplan")
_QUIET = ("capturemanager", "logging-plugin")  # the phase wrappers left out where nothing runs
# Plugins whose pytest_runtest_call implementation does nothing for a block item: hypothesis's
# wrapper returns at once for an item without a Python function (``obj``).
_SILENT_CALL = ("_hypothesis_pytestplugin",)
# What a phase lets through rather than reports (pytest's own choice without --pdb, which
# takes pytest's protocol): pytest.exit() and Ctrl-C.
_RERAISE = (pytest.exit.Exception, KeyboardInterrupt)


class ShortProtocol:
    """The plugin (``mcptest-protocol``) that runs block items through the shorter protocol."""

    def __init__(self, config: pytest.Config):
        self.config = config
        # (setup, teardown, call or None) callers, or () when it steps aside
        self._hooks: Optional[tuple] = None
        self._replays = None  # whether a kind replays (verdict_cache.keeps), once a call phase may be short

    def pytest_plugin_registered(self) -> None:
        self._hooks = None  # a plugin came: what the session's plugins allow is decided again

    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: Optional[pytest.Item]) -> Optional[bool]:
        if not is_block_item(item) or nextitem is None or nextitem.parent is not item.parent:
            return None
        hooks = self._hooks if self._hooks is not None else self._decide()
        if not hooks or not _settled(item) or any(
                mark.name in ("skip", "skipif", "xfail") for mark in item.iter_markers()):
            return None
        setup, teardown, call = hooks
        ihook = item.ihook
        ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        report = _reported(ihook, item, pytest.CallInfo.from_call(lambda: setup(item=item), when="setup",
                                                                  reraise=_RERAISE))
        if report.passed and call is not None and self._replays(item.head.kind):
            _reported(ihook, item, pytest.CallInfo.from_call(lambda: call(item=item), when="call", reraise=_RERAISE))
        elif report.passed:
            # pytest's own call phase; the logging plugin's per-item state, which its setup
            # wrapper makes (and its teardown wrapper removes), made here.
            item.stash[caplog_records_key] = {}
            call_and_report(item, "call")
        stack = item.session._setupstate.stack
        if item.session.shouldfail or item.session.shouldstop or len(stack.get(item, ((),))[0]) > 1:
            # Everything is torn down after this item, or something added a finalizer to it:
            # pytest's own teardown phase, with the logging plugin's per-item state it expects.
            item.stash[caplog_records_key] = {}
            call_and_report(item, "teardown", nextitem=None if item.session.shouldfail or item.session.shouldstop
                            else nextitem)
        else:
            _reported(ihook, item, pytest.CallInfo.from_call(lambda: teardown(item=item, nextitem=nextitem),
                                                             when="teardown", reraise=_RERAISE))
        for key in (caplog_records_key, caplog_handler_key):
            if key in item.stash:  # what pytest's teardown hook removes, when it did not run
                del item.stash[key]
        ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    def _decide(self) -> tuple:
        """The setup, teardown and call hook callers without the capture and logging plugins,
        when the session's plugins and options leave the shorter protocol equal to pytest's
        (the call's None when only the other two are); else ()."""
        config, manager = self.config, self.config.pluginmanager
        hooks: tuple = ()
        logging_plugin = manager.get_plugin("logging-plugin")
        if (check_interactive_exception is not None and manager.get_plugin("warnings") is not None
                and (logging_plugin is None or (config.getoption("log_cli_level") is None
                                                and not config.getini("log_cli")))
                and not any(getattr(config.option, name, False) for name in _OPTIONS)
                and all(_ours(impl) for name in _PHASES for impl in getattr(config.hook, name).get_hookimpls())
                and all(_ours(impl) or impl.hookwrapper or impl.wrapper
                        for impl in config.hook.pytest_runtest_protocol.get_hookimpls())):
            quiet = [plugin for plugin in map(manager.get_plugin, _QUIET) if plugin is not None]
            call = None
            if (config.stash[CONTEXT_KEY].record_mode is RecordMode.NONE
                    and all(_ours(impl) or _plugin_module(impl).startswith(_SILENT_CALL)
                            for impl in config.hook.pytest_runtest_call.get_hookimpls())):
                call = manager.subset_hook_caller("pytest_runtest_call", quiet)
                from .verdict_cache import keeps  # a session with no block item never imports it

                self._replays = keeps
            hooks = (*(manager.subset_hook_caller(name, quiet) for name in _PHASES), call)
        self._hooks = hooks
        return hooks


def _settled(item: pytest.Item) -> bool:
    """Whether every collector above ``item`` is set up, none in error (pytest's setup stack):
    its setup then only puts the item on the stack."""
    stack = getattr(item.session._setupstate, "stack", None)
    chain = item.listchain()
    return type(stack) is dict and len(stack) == len(chain) - 1 and all(
        stack.get(node, (None, True))[1] is None for node in chain[:-1])


def _reported(ihook, item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
    report = ihook.pytest_runtest_makereport(item=item, call=call)
    ihook.pytest_runtest_logreport(report=report)
    if check_interactive_exception(call, report):
        ihook.pytest_exception_interact(node=item, call=call, report=report)
    return report


def _ours(impl) -> bool:
    """Whether a hook implementation is pytest's own or this package's."""
    return _plugin_module(impl).startswith(_OURS)


def _plugin_module(impl) -> str:
    """The module a hook implementation's plugin is (or whose class it is an instance of)."""
    plugin = impl.plugin
    return (plugin.__name__ if isinstance(plugin, type(pytest)) else type(plugin).__module__) or ""
