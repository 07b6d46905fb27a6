"""The hooks a replayed item runs its setup, call and teardown through.

pytest wraps each phase of every item in output capture (``capturemanager``: the process's
standard streams swapped in, read back and attached to the report) and in log capture
(``logging-plugin``: two handlers put on the root logger and taken off again). That is about
a sixth of what pytest spends on a trivial test, six times per item, and it exists for the
test's own code. An item that replays a cassette runs none: the engine reads files and
computes a verdict, printing and logging nothing. Its phases skip those two wrappers; all
else is as for any item: its folder's conftest hooks, skip and xfail marks, pytest's runner,
every other plugin's hooks, the reports, the warnings caught around the whole item.

A phase stays fully captured wherever user code could run in it: an item under a
``conftest.py`` that implements setup, call or teardown hooks, a record mode that records
or a gate that opens its own source (``gates.replays_only``), and a session under ``--pdb``
or ``--trace``, whose debugger resumes capture when it continues (only a captured phase
suspends it again)."""

from __future__ import annotations

import os
from typing import Any, Optional

PHASES = ("pytest_runtest_setup", "pytest_runtest_call", "pytest_runtest_teardown")
CAPTURING = ("capturemanager", "logging-plugin")


class QuietHooks:
    """A hook relay: ``hooks`` (pytest's relay for the item's folder) for every hook, but the
    three phases without the capturing plugins."""

    def __init__(self, hooks: Any, pluginmanager: Any, capturing: frozenset):
        self._hooks = hooks
        self._pluginmanager = pluginmanager
        self._capturing = capturing

    def __getattr__(self, name: str) -> Any:
        hook = getattr(self._hooks, name)
        if name in PHASES:
            # Public API only: what the folder's relay leaves out (conftests of other
            # folders) is what the whole plugin manager has and the relay does not.
            kept = {impl.plugin for impl in hook.get_hookimpls()} - self._capturing
            everyone = {impl.plugin for impl in getattr(self._pluginmanager.hook, name).get_hookimpls()}
            hook = self._pluginmanager.subset_hook_caller(name, remove_plugins=everyone - kept)
        self.__dict__[name] = hook
        return hook


def quiet_hooks(hooks: Any, config: Any) -> Optional[QuietHooks]:
    """The relay for a folder's replayed items, or None when their phases keep pytest's
    capture (see the module's docstring)."""
    if config.getoption("usepdb", False) or config.getoption("trace", False):
        return None
    pluginmanager = config.pluginmanager
    capturing = frozenset(p for p in map(pluginmanager.get_plugin, CAPTURING) if p is not None)
    if not capturing:
        return None
    for name in PHASES:
        for impl in getattr(hooks, name).get_hookimpls():
            if os.path.basename(getattr(impl.plugin, "__file__", None) or "") == "conftest.py":
                return None
    return QuietHooks(hooks, pluginmanager, capturing)
