"""The hooks mcptest adds to pytest (registered by ``pytest_addhooks`` in ``plugin.py``)."""

from __future__ import annotations


def pytest_mcptest_gates(config):
    """Return the gates (``pytest_mcptest.gates.Gate``) this session adds, or None.

    Implement it in a ``conftest.py`` at the root of the tests (pytest reads it before the
    session starts) or in a pytest plugin. The gates are added for the session and removed
    when it ends; see ``docs/gates.md``.
    """
