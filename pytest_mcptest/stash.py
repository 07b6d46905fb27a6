"""Where the pytest layer keeps the session's :class:`~pytest_mcptest.context.Context`:
its own module so that the plugin (which fills it) and the collector (which reads it)
share the key without importing each other."""

from __future__ import annotations

import pytest

from .context import Context

CONTEXT_KEY = pytest.StashKey[Context]()

# Set once a suite file's collection has frozen what it built (see ``SuiteFile.collect``):
# the session then unfreezes at its end, as it does after ``gc.freeze()`` at collection finish.
FROZEN_KEY = pytest.StashKey[bool]()
