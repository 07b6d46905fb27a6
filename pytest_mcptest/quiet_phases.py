"""The hooks a replayed item runs its setup, call and teardown through.

pytest wraps each phase of every item in output capture (``capturemanager``: the process's
standard streams swapped in, read back and attached to the report) and in log capture
(``logging-plugin``: two handlers put on the root logger and taken off again): about an
eighth of a session of trivial Python tests, and it exists for the test's own code. An item
that replays a cassette runs none: the engine reads files and computes a verdict, printing
and logging nothing. Its phases skip those two wrappers; every other hook is pytest's own
for the item's folder, looked up afresh at each use as pytest does (conftest scoping, skip
and xfail marks, pytest's runner, the reports, the warnings caught around the whole item).

A phase keeps pytest's capture wherever code of the project's could run in it: when any
setup, call or teardown hook that applies to the folder comes from anything but pytest,
this plugin or an installed plugin (a ``conftest.py``, a module it names in
``pytest_plugins``, an object it registers, a ``-p`` module of the project's), with a record
mode that records or a gate that opens its own source (``gates.replays_only``), and under
``--pdb`` or ``--trace``, whose debugger resumes capture when it continues (only a captured
phase suspends it again)."""

from __future__ import annotations

import types
from typing import Any

PHASES = ("pytest_runtest_setup", "pytest_runtest_call", "pytest_runtest_teardown")
CAPTURING = ("capturemanager", "logging-plugin")
_OWN_PACKAGES = ("_pytest", "pytest", "pytest_mcptest")


class QuietHooks:
    """``item.ihook`` for a suite file's replayed items: pytest's relay for the file, made
    afresh at each use, but the three phases without the capturing plugins once collection
    is over (a folder collected later may still bring its conftest)."""

    def __init__(self, node: Any):
        self._node = node
        self._phases: dict | None = None

    def __getattr__(self, name: str) -> Any:
        node = self._node
        hooks = node.session.gethookproxy(node.path)
        if name not in PHASES:
            return getattr(hooks, name)
        if self._phases is None:
            if getattr(node.session, "items", None) is None:  # still collecting
                return getattr(hooks, name)
            self._phases = phase_hooks(hooks, node.config)
        return self._phases[name]


def phase_hooks(hooks: Any, config: Any) -> dict:
    """The three phase hooks a folder's replayed items call: ``hooks``' own, or the same
    without the capturing plugins when no code of the project's implements them."""
    own = {name: getattr(hooks, name) for name in PHASES}
    pluginmanager = config.pluginmanager
    capturing = {p for p in map(pluginmanager.get_plugin, CAPTURING) if p is not None}
    if not capturing or config.getoption("usepdb", False) or config.getoption("trace", False):
        return own
    installed = {_package(plugin) for plugin, _ in pluginmanager.list_plugin_distinfo()}
    trusted = installed.union(_OWN_PACKAGES)
    quiet = {}
    for name, hook in own.items():
        kept = {impl.plugin for impl in hook.get_hookimpls()} - capturing
        if any(_package(plugin) not in trusted for plugin in kept):
            return own
        # Public API only: what the folder's relay leaves out (conftests of other folders)
        # is what the whole plugin manager has and the relay does not.
        everyone = {impl.plugin for impl in getattr(pluginmanager.hook, name).get_hookimpls()}
        quiet[name] = pluginmanager.subset_hook_caller(name, remove_plugins=everyone - kept)
    return quiet


def _package(plugin: Any) -> str:
    """The top-level package a plugin (a module, or an object a module's code registered)
    comes from."""
    module = plugin.__name__ if isinstance(plugin, types.ModuleType) else type(plugin).__module__
    return (module or "").partition(".")[0]
