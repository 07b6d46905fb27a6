"""The hooks a replayed item runs its setup, call and teardown through.

pytest wraps each phase of every item in output capture (``capturemanager``: the process's
standard streams swapped in, read back and attached to the report) and in log capture
(``logging-plugin``: two handlers put on the root logger and taken off again): about an
eighth of a session of trivial Python tests, and it exists for the test's own code. An item
that replays a cassette runs none: the engine reads files and computes a verdict, printing
and logging nothing. Its phases skip those two wrappers; every other hook is pytest's own
for the item's folder (conftest scoping, skip and xfail marks, pytest's runner, the reports,
the warnings caught around the whole item).

A phase keeps pytest's capture wherever code of the project's could run in it:
- the setup and teardown of a file's first and last replayed items (setting one up may set up
  a package, its ``setup_module``; tearing one down may run the finalizers of other tests'
  session, package and module fixtures). An item between two items of its file, the one
  before having named it as its next, sets up and tears down nothing but itself. If the
  session stops after such an item's quiet setup (``-x``, ``--maxfail``, ``--sw``), pytest
  tears everything down in its teardown: output capture comes back for it, log capture
  cannot (pytest's log capture of a teardown needs its setup's), so those records go only to
  ``log_cli`` and ``--log-file``;
- every phase, when any setup, call or teardown hook that applies to the folder comes from
  anything but pytest, this plugin or a plugin loaded by an installed package's entry point
  (a ``conftest.py``, a module it names in ``pytest_plugins``, an object it registers, a
  ``-p`` module of the project's), with a record mode that records or a gate that opens its
  own source (``gates.replays_only``), and under ``--pdb`` or ``--trace``, whose debugger
  resumes capture when it continues (only a captured phase suspends it again).

What is worked out is kept until a plugin is registered (a conftest found later in
collection, a plugin registered while the session runs): ``REGISTERED`` counts them."""

from __future__ import annotations

import types
from typing import Any, Optional

PHASES = ("pytest_runtest_setup", "pytest_runtest_call", "pytest_runtest_teardown")
SETUP, CALL, TEARDOWN = PHASES
OUTPUT, LOG = "capturemanager", "logging-plugin"
_OWN_PACKAGES = ("_pytest", "pytest", "pytest_mcptest")
REGISTERED = [0]  # plugins registered in this process (the plugin's pytest_plugin_registered counts)

# What each phase leaves out, by (between two items of its file, the session going on).
_BOTH = (OUTPUT, LOG)
_LEFT_OUT = {
    (False, True): {CALL: _BOTH},
    (False, False): {CALL: _BOTH},
    (True, True): {SETUP: _BOTH, CALL: _BOTH, TEARDOWN: _BOTH},
    (True, False): {SETUP: _BOTH, CALL: _BOTH, TEARDOWN: (LOG,)},
}


class QuietHooks:
    """What a suite file's replayed items hook through: a relay per case of ``_LEFT_OUT``,
    dropped with everything worked out when a plugin is registered."""

    def __init__(self, node: Any):
        self._node = node
        self._stamp = -1
        self._relays: dict = {}
        self._callers: dict = {}
        self._allowed: Optional[bool] = None

    def relay(self, between: bool, going_on: bool) -> "_Relay":
        """``item.ihook`` for an item ``between`` two items of its file."""
        if self._stamp != REGISTERED[0]:
            self._stamp, self._relays, self._callers, self._allowed = REGISTERED[0], {}, {}, None
        relay = self._relays.get((between, going_on))
        if relay is None:
            relay = self._relays[between, going_on] = _Relay(self, _LEFT_OUT[between, going_on])
        return relay

    def hooks(self) -> Any:
        """pytest's own relay for the file's folder."""
        return self._node.session.gethookproxy(self._node.path)

    def caller(self, name: str, left_out: tuple) -> Any:
        """The phase hook ``name`` without the plugins named in ``left_out``, or pytest's own
        when no code of the project's may run in it (see ``quiet_allowed``)."""
        key = (name, left_out)
        hook = self._callers.get(key)
        if hook is None:
            hooks, config = self.hooks(), self._node.config
            if self._allowed is None:
                self._allowed = quiet_allowed(hooks, config)
            hook = self._callers[key] = (without(hooks, name, left_out, config.pluginmanager) if self._allowed
                                         else getattr(hooks, name))
        return hook


class _Relay:
    """pytest's relay for the folder, but the phases in ``left_out`` without the plugins it
    names; each hook looked up once (the relay is dropped when a plugin is registered)."""

    def __init__(self, owner: QuietHooks, left_out: dict):
        self._owner = owner
        self._left_out = left_out

    def __getattr__(self, name: str) -> Any:
        left_out = self._left_out.get(name)
        hook = getattr(self._owner.hooks(), name) if left_out is None else self._owner.caller(name, left_out)
        self.__dict__[name] = hook
        return hook


def quiet_allowed(hooks: Any, config: Any) -> bool:
    """Whether a folder's phases may leave capture out: no debugger may run, and every phase
    hook that applies (``hooks`` is pytest's relay for the folder) comes from pytest, this
    plugin or a plugin loaded by an installed package's entry point."""
    if config.getoption("usepdb", False) or config.getoption("trace", False):
        return False
    pluginmanager = config.pluginmanager
    capturing = {pluginmanager.get_plugin(name) for name in _BOTH}
    trusted = {_package(plugin) for plugin, _ in pluginmanager.list_plugin_distinfo()}.union(_OWN_PACKAGES)
    return all(_package(impl.plugin) in trusted for name in PHASES for impl in getattr(hooks, name).get_hookimpls()
               if impl.plugin not in capturing)


def without(hooks: Any, name: str, left_out: tuple, pluginmanager: Any) -> Any:
    """The folder's phase hook ``name`` without the plugins named in ``left_out``."""
    dropped = {p for p in map(pluginmanager.get_plugin, left_out) if p is not None}
    if not dropped:
        return getattr(hooks, name)
    # Public API only: what the folder's relay leaves out (conftests of other folders) is
    # what the whole plugin manager has and the relay does not.
    kept = {impl.plugin for impl in getattr(hooks, name).get_hookimpls()} - dropped
    everyone = {impl.plugin for impl in getattr(pluginmanager.hook, name).get_hookimpls()}
    return pluginmanager.subset_hook_caller(name, remove_plugins=everyone - kept)


def _package(plugin: Any) -> str:
    """The top-level package a plugin (a module, or an object a module's code registered)
    comes from."""
    module = plugin.__name__ if isinstance(plugin, types.ModuleType) else type(plugin).__module__
    return (module or "").partition(".")[0]
