"""The garbage collector paused around one piece of mcptest's own work, and left as it was.

Parsing a suite, building a file's items, judging one item and importing a log each
allocate many small objects and make no reference cycles: reference counting frees them,
and a collection in the middle would only walk them (a third of a large import's time
went to the collector). The pause covers that work alone, never a user's test, fixture or
hook, and the collector is as it was (enabled or not) when it ends: a plugin is a guest in
the user's process and leaves no global state behind.
"""

from __future__ import annotations

import gc


class paused_collector:
    """``with paused_collector(): ...``: no automatic collection inside; the collector's
    state restored on the way out, whatever happens inside. A class rather than a
    generator-based context manager: it is entered once per judged item."""

    __slots__ = ("_was_enabled",)

    def __enter__(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc) -> None:
        if self._was_enabled:
            gc.enable()
