"""The MCP side: the live ``tools/list`` client and the mock server, on the official ``mcp`` SDK.

Nothing here imports ``mcp`` at module import time: the SDK is loaded inside the
functions that talk MCP, so importing the plugin stays cheap.

- :func:`pytest_mcptest.mcp.client.list_tools` fetches a live server's catalog.
- :mod:`pytest_mcptest.mcp.mock_server` is ``mcptest mock``: a real stdio MCP server
  from a YAML manifest or a ``tools/list`` snapshot, with injectable faults.
- :mod:`pytest_mcptest.mcp.replay_server` is ``mcptest serve``: a recorded session (read by
  :mod:`.recording`) played back as a server; :mod:`.serve_fixture` hands it to a user's
  own test; :mod:`.json_diff` compares answers for it and for ``mcptest verify``.
"""

from __future__ import annotations

__all__ = ["ServerError", "list_tools"]


def __getattr__(name: str):
    # The client is loaded when first named: the plugin registers the serve fixture from this
    # package in every session, and most sessions never list a live server's tools.
    if name in __all__:
        import pytest_mcptest.mcp.client as client

        return getattr(client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
