"""The ``mcptest_cassette_server`` fixture: a recording as the MCP server of a user's own test.

Registered by the plugin at configure time; it imports neither ``mcp`` nor the cassette
reader until a test calls it. The user's agent (their framework, their code) is handed the
``StdioServerParameters`` that start ``mcptest serve`` on the cassette, and talks to the
recording as it would to the real server::

    def test_my_agent(mcptest_cassette_server):
        params = mcptest_cassette_server("cassettes/shop.json")
        assert my_agent.run("weather in Paris?", server=params) == ...

The path is relative to the test file's folder. The cassette is read when the fixture is
called, so a missing or malformed one fails the test at once with the reason, not later as
a server that will not start.
"""

from __future__ import annotations

import os
import sys
from typing import Optional

import pytest


@pytest.fixture
def mcptest_cassette_server(request):
    """``(path, *, run=None, match="args", ignore_args=(), fault="none")`` ->
    ``mcp.StdioServerParameters`` serving that recording (see ``mcptest serve``)."""
    folder = os.path.dirname(str(request.node.path))

    def serve(path: str, *, run: Optional[int] = None, match: str = "args", ignore_args=(), fault: str = "none"):
        from mcp.client.stdio import StdioServerParameters

        from ..errors import InputError
        from .recording import load_recording
        from .replay_server import MATCH_MODES

        where = path if os.path.isabs(path) else os.path.join(folder, path)
        if match not in MATCH_MODES:
            pytest.fail(f"mcptest_cassette_server: match={match!r}; expected one of {', '.join(MATCH_MODES)}",
                        pytrace=False)
        try:
            load_recording(where, run, shown=path)
        except InputError as exc:
            pytest.fail(f"mcptest_cassette_server: {exc.render()}", pytrace=False)
        args = ["-m", "pytest_mcptest.cli", "serve", where, "--match", match, "--fault", fault]
        args += ["--run", str(run)] if run is not None else []
        for ignored in ignore_args:
            args += ["--ignore-arg", ignored]
        return StdioServerParameters(command=sys.executable, args=args)

    return serve
