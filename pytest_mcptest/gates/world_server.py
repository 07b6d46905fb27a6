"""``mcptest serve SUITE.mcptest.yml::SCENARIO``: a scenario's world served as an MCP server.

The world that judges a recorded run is the environment the agent acts in: ``tools/list``
shows the world's tools (``engine/world_tools.py``), and each ``tools/call`` takes the
engine's own step (``engine/world.py``: forbidden first, unknown tool, guards, all-or-
nothing effects) against the session's live state and answers the declared result; a
forbidden or invalid call answers an MCP tool error carrying the rule's words, so the
agent can recover. Since the replay takes the same step, the state a session reached is
the state the replay of its recording computes, and the calls it refused are the replay's
invalid and forbidden calls.

Each session starts at the seed (over HTTP, every MCP session has its own state). With
``--record CASSETTE`` each session is a run of that cassette, written after every call.
The transports and ``--fault`` are those of the recording server (``serving``).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Optional

from ..errors import InputError, start_failure
from .scenario import world_tools
from ..mcp.serving import tool_fault

SERVER_NAME = "world"  # the server's name in the handshake and in a recorded cassette


class WorldError(Exception):
    """The target names no scenario the suite holds."""


def find_scenario(target: str):
    """The scenario block ``FILE::NAME`` names; InputError for a bad suite, WorldError else."""
    from .suite_build import load_suite

    file, sep, name = target.rpartition("::")
    if not sep or not file or not name:
        raise WorldError(f"{target!r}: expected SUITE.mcptest.yml::SCENARIO")
    suite = load_suite(file)
    scenarios = [b for b in suite.blocks if b.kind == "scenario"]
    for block in scenarios:
        if block.name == name:
            return block
    from ..suite.doc import near

    raise WorldError(f"{file}: no scenario named {name!r} (scenarios: "
                     f"{', '.join(repr(b.name) for b in scenarios) or 'none'}){near(name, [b.name for b in scenarios])}")


def name_a_scenario(file: str) -> WorldError:
    """The error for a suite given where a cassette goes (``mcptest serve suite.mcptest.yml``):
    it is a suite, a scenario is named as ``SUITE::SCENARIO``, and these are its scenarios.
    A file that is no suite either raises its own InputError."""
    from .suite_build import load_suite

    names = [b.name for b in load_suite(file).blocks if b.kind == "scenario"]
    if not names:
        return WorldError(f"{file} is a suite, not a cassette, and holds no scenario to serve: mcptest serve plays "
                          f"a cassette (JSON) or a suite's scenario, named as SUITE::SCENARIO")
    return WorldError(f"{file} is a suite, not a cassette: name the scenario to serve as SUITE::SCENARIO, as in "
                      f"mcptest serve '{file}::{names[0]}' (scenarios: {', '.join(repr(n) for n in names)})")


class Sessions:
    """Each MCP session's live state, and (with ``--record``) its run, written as it goes."""

    def __init__(self, block, record: Optional[str]):
        self.block = block
        self.record = record
        self.states: dict = {}
        self.runs: dict = {}
        self.calls = 0

    def state(self, key: Any) -> dict:
        from ..engine.values import copy_json

        if key not in self.states:
            self.states[key] = copy_json(self.block.world.seed)
            self.runs[key] = []
        return self.states[key]

    def kept(self, key: Any, name: str, args: dict, result: dict, started: float) -> None:
        if self.record is None:
            return
        from ..engine.trace import ToolCall

        self.runs[key].append(ToolCall(name, args, SERVER_NAME, bool(result.get("isError")), result,
                                       duration_ms=round((time.perf_counter() - started) * 1000, 3)))
        try:
            self.save()
        except InputError as exc:  # the session goes on; the host is not the one to tell
            print(f"mcptest serve: --record: not written: {exc.render()}", file=sys.stderr, flush=True)
        except OSError as exc:
            print(f"mcptest serve: --record {self.record}: cannot write: {exc.strerror or exc}", file=sys.stderr,
                  flush=True)

    def save(self) -> None:
        from ..engine.trace import Run
        import pytest_mcptest.record.store as store
        from ..redact import redactor

        # The suite that holds the world, relative to the cassette: `mcptest init --kind scenario`
        # starts from its seed, rules and tools rather than from an empty world.
        suite = os.path.relpath(os.path.abspath(self.block.file), os.path.dirname(os.path.abspath(self.record)))
        meta = {"recorder": "mcptest serve", "scenario": self.block.name, "suite": suite.replace(os.sep, "/"),
                "recorded_at": store.utc_now()}
        runs = [Run(tool_calls=tuple(calls), meta={"recorder": "mcptest serve", "server": SERVER_NAME})
                for calls in self.runs.values() if calls]
        catalog = {SERVER_NAME: {"tools": [t.to_dict() for t in world_tools(self.block)]}}
        store.save(self.record, runs, catalog, meta, store.NEW, redactor(()))


def _session_key(ctx) -> Optional[str]:
    """Which session a request belongs to: over Streamable HTTP its ``Mcp-Session-Id``;
    over stdio (one session a process) None. The SDK makes its session object anew for
    each request, so it cannot be the key."""
    headers = getattr(getattr(ctx, "request", None), "headers", None)
    return headers.get("mcp-session-id") if headers is not None else None


def build_server(block, fault=None, record: Optional[str] = None):
    """The SDK ``Server`` that serves ``block``'s world."""
    from mcp.server.lowlevel import Server

    from .. import __version__
    from ..engine.world_tools import answer

    sessions = Sessions(block, record)
    tools = [t.to_dict() for t in world_tools(block)]

    async def on_list_tools(ctx, params) -> dict:
        return {"tools": tools}

    async def on_call_tool(ctx, params) -> dict:
        started = time.perf_counter()
        name, args = params.name, dict(params.arguments or {})
        key = _session_key(ctx)
        state = sessions.state(key)
        sessions.calls += 1
        result = await tool_fault(fault, sessions.calls)
        if result is None:
            _, result = answer(block.world, state, name, args)
        sessions.kept(key, name, args, result, started)
        return result

    return Server(SERVER_NAME, version=__version__, instructions=f"The world of the scenario {block.name!r}.",
                  on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def run(target: str, http: Optional[str] = None, fault_spec: str = "none", record: Optional[str] = None) -> int:
    """Serve the world until the host closes stdin (or Ctrl-C with ``--http``). Returns 0,
    or 2 for bad input (the reason on stderr: the suite's line, or the scenarios it holds)."""
    from ..mcp.mock_server import MockError, parse_fault
    from ..mcp.serving import address, serve_until_closed

    try:
        fault = parse_fault(fault_spec)
        host, port = address(http) if http else (None, None)
        block = find_scenario(target)
    except (MockError, ValueError, WorldError, InputError, OSError) as exc:
        print(start_failure("mcptest serve", target, exc), file=sys.stderr)
        return 2
    if record and not os.path.isdir(os.path.dirname(os.path.abspath(record))):
        print(f"mcptest serve: --record {record}: its folder does not exist", file=sys.stderr)
        return 2
    inferred = [t.name for t in world_tools(block) if t.inferred]
    if inferred:
        print(f"mcptest serve: {block.name!r}: input schema inferred from the arguments its transitions read "
              f"(no tools: entry) for {', '.join(inferred)}", file=sys.stderr, flush=True)
    return serve_until_closed(build_server(block, fault, record), host, port)
