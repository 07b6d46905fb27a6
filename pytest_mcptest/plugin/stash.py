"""Where the pytest layer keeps the session's :class:`~pytest_mcptest.gates.context.Context`:
its own module so that the plugin (which fills it) and the collector (which reads it)
share the key without importing each other."""

from __future__ import annotations

import pytest

from ..gates.context import Context

CONTEXT_KEY = pytest.StashKey[Context]()
