"""The real MCP servers a live run talks to, and the tool list the model is shown.

:func:`open_servers` starts every server of a run over stdio with the official ``mcp``
SDK (the same way :mod:`pytest_mcptest.mcp.client` lists a catalog: ``mcptest ...``
commands run under this interpreter, ``tools/list`` is followed through every page and
kept exactly as sent) and keeps the sessions open for the run's tool calls.

:class:`ToolBoard` is what the model sees: every real tool under a name the provider
accepts (``[A-Za-z0-9_-]``, at most 64 characters: the MCP name, other characters made
``_``; ``server__name`` when two servers share a name; a counter if it still collides), then the injected distractors. It maps a name the model calls back to a
server and tool, or says it is a distractor or unknown.
"""

from __future__ import annotations

import re
import sys
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, Mapping, Optional, Sequence

import attrs

from ..mcp.client import (ServerError, StderrTail, all_pages, describe_failure, innermost, quiet_sdk_logging, open_session,
                          startup_reason, with_faults)
from .provider import InfraError, LiveError, ToolDef


@attrs.frozen
class ServerSpec:
    """One stdio server of a run: its suite name, argv, extra environment and folder."""

    name: str
    command: tuple[str, ...]
    env: Optional[Mapping[str, str]] = None
    cwd: Optional[str] = None
    timeout: float = 30.0  # seconds for start-up, initialize and tools/list


def server_specs(servers: Mapping[str, Mapping], names: Sequence[str]) -> tuple[ServerSpec, ...]:
    """The specs of an item's ``servers: [names]``, from the suite's resolved ``servers:``
    entries (``command``, ``env``, ``cwd``, ``timeout``). An unknown name, or a server that
    is only a saved ``catalog:`` (nothing could execute its tools), is a :class:`LiveError`."""
    specs = []
    for name in names:
        entry = servers.get(name)
        if entry is None:
            raise LiveError(f"server {name!r} is not in the suite's servers: ({', '.join(sorted(servers)) or 'none'})")
        if not entry.get("command"):
            raise LiveError(f"server {name!r} is a saved catalog with no command; a live run needs a server "
                            f"it can start (servers: {name}: command: [...])")
        specs.append(ServerSpec(name, tuple(entry["command"]), entry.get("env"), entry.get("cwd"),
                                float(entry.get("timeout", 30.0))))
    return tuple(specs)


def server_environment(extra: Optional[Mapping[str, str]]) -> dict[str, str]:
    """What a live run's server is started with: the SDK's default environment (``PATH``,
    ``HOME``, ``USER``, ...: what ``mcp``'s own stdio client passes) and the suite's ``env:``
    over it; never this process's whole environment, which holds the model providers' keys."""
    from mcp.client.stdio import get_default_environment

    return {**get_default_environment(), **{str(k): str(v) for k, v in (extra or {}).items()}}


def _argv(command: Sequence[str]) -> list[str]:
    if command and command[0] == "mcptest":
        return [sys.executable, "-m", "pytest_mcptest.cli", *command[1:]]
    return list(command)


class ServerHub:
    """Open sessions, by server name, and each server's ``tools/list`` answer."""

    def __init__(self):
        self.sessions: dict[str, Any] = {}
        self.catalog: dict[str, dict] = {}
        # What each server said of itself in ``initialize``: {name, version, protocol_version}
        self.info: dict[str, dict] = {}
        self.call_timeout: float = 60.0

    async def call(self, server: str, tool: str, args: dict) -> tuple[dict, bool]:
        """Call a tool; return ``(result as MCP JSON, error flag)``. A JSON-RPC error or a
        server that stopped answering is a failed call the agent sees, not a crash."""
        try:
            result = await self.sessions[server].call_tool(tool, args, read_timeout_seconds=self.call_timeout)
        except Exception as exc:  # noqa: BLE001 - the agent sees the failure as its tool's answer
            reason = describe_failure(innermost(exc), self.call_timeout)
            return {"content": [{"type": "text", "text": f"tools/call failed: {reason}"}], "isError": True}, True
        data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return data, bool(data.get("isError"))


@asynccontextmanager
async def open_servers(specs: Sequence[ServerSpec], call_timeout: float = 60.0):
    """Start ``specs``, initialize each session and list its tools; yield a :class:`ServerHub`.
    A server that cannot be started or listed is a :class:`LiveError` with its stderr tail."""
    import anyio

    hub = ServerHub()
    hub.call_timeout = call_timeout
    async with AsyncExitStack() as stack:
        stack.enter_context(quiet_sdk_logging())
        for spec in specs:
            argv = _argv(spec.command)
            tail, faults, raw_pages = StderrTail(), [], []
            env = server_environment(spec.env)
            try:
                session = await stack.enter_async_context(
                    open_session(argv, env, spec.cwd, tail, faults, raw_pages, inherit=False))
                with anyio.fail_after(spec.timeout):  # scoped to the exchange: the session outlives it
                    hello = await session.initialize()
                    tools = await all_pages(session, raw_pages)
            except Exception as exc:  # noqa: BLE001 - one clear line with the server's stderr
                await tail.settle()  # a server that exited on its own is said to have exited, with its status
                leaf = with_faults(exc, faults, spec.timeout, tail) or innermost(exc)
                reason = startup_reason(leaf, tail, spec.timeout)
                raise InfraError(f"server {spec.name!r}: {ServerError(argv, reason, tail.text())}",
                                 "server_start") from None
            hub.sessions[spec.name] = session
            hub.catalog[spec.name] = {"tools": tools}
            hub.info[spec.name] = server_info(hello)
        yield hub


def server_info(hello: Any) -> dict:
    """What a server's ``initialize`` answer says of it: ``name`` and ``version`` (its
    ``serverInfo``) and the ``protocol_version`` the session speaks; what it left out is absent."""
    data = hello.model_dump(mode="json", by_alias=True) if hasattr(hello, "model_dump") else {}
    info = data.get("serverInfo") if isinstance(data.get("serverInfo"), dict) else {}
    out = {"name": info.get("name"), "version": info.get("version"), "protocol_version": data.get("protocolVersion")}
    return {k: str(v) for k, v in out.items() if v is not None}


# --------------------------------------------------------------------------- what the model sees


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "tool"


@attrs.frozen
class Target:
    """Where a presented name leads: a real ``(server, tool)``, or a distractor."""

    name: str
    server: Optional[str] = None
    distractor: bool = False


class ToolBoard:
    """The tools presented to the model, real ones first (server by server, in catalog
    order), then distractors; and the way back from a presented name."""

    def __init__(self, catalog: Mapping[str, Mapping], distractors: Sequence[Mapping] = ()):
        real = [(server, tool) for server, entry in catalog.items()
                for tool in entry.get("tools", []) if isinstance(tool, Mapping) and isinstance(tool.get("name"), str)]
        counts: dict[str, int] = {}
        for _, tool in real:
            counts[tool["name"]] = counts.get(tool["name"], 0) + 1
        self.tools: list[ToolDef] = []
        self._targets: dict[str, Target] = {}
        for server, tool in real:
            name = tool["name"]
            wanted = _safe(name) if counts[name] == 1 else _safe(f"{server}__{name}")
            self._add(wanted, tool, Target(name, server))
        self.distractors: list[str] = []
        for tool in distractors:
            if tool["name"] in counts:
                continue  # a real tool already has that name; the real one wins
            self._add(_safe(tool["name"]), tool, Target(tool["name"], distractor=True))
            self.distractors.append(tool["name"])

    def _add(self, wanted: str, tool: Mapping, target: Target) -> None:
        shown, n = wanted, 2
        while shown in self._targets:
            suffix = f"_{n}"
            shown, n = wanted[:64 - len(suffix)] + suffix, n + 1
        schema = tool.get("inputSchema")
        schema = dict(schema) if isinstance(schema, Mapping) else {"type": "object", "properties": {}}
        schema.setdefault("type", "object")
        description = tool.get("description") if isinstance(tool.get("description"), str) else ""
        self.tools.append(ToolDef(shown, description, schema))
        self._targets[shown] = target

    def target(self, shown: str) -> Optional[Target]:
        return self._targets.get(shown)
