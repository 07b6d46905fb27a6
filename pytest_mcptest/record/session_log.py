"""What one host session through ``mcptest record`` did: the messages in order, the tool calls
derived from them, the catalog, and the errors a host gets when the server is gone.

Both relays feed it, the stdio one (:mod:`.relay`, plain dicts) and the Streamable HTTP one
(:mod:`.http_relay`, the SDK's typed messages); ``mcptest probe`` and ``mcptest verify`` use it
to read sessions they drive themselves.
"""

from __future__ import annotations

import os
import shlex
import time
from typing import Optional

from ..text import printable

SERVER_GONE = -32000  # JSON-RPC implementation-defined server error

ENDED_HOST = "host closed the session"
ENDED_SIGNAL = "interrupted"


SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"  # the 2026-07-28 handshake: serverInfo under _meta
PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion"


def as_wire(message) -> dict:
    """A JSON-RPC message as the plain JSON it is on the wire (a typed SDK message or a dict)."""
    if isinstance(message, dict):
        return message
    return message.model_dump(by_alias=True, mode="json", exclude_unset=True)


class SessionLog:
    """What one host session did, built from the messages as they pass.

    Every message is kept in order with its direction (``from``: ``host`` or ``server``)
    and the milliseconds since the session began (``at_ms``); this is what ``mcptest
    serve`` and ``mcptest verify`` play back. The calls the gates read (``tool_calls``) are
    derived from them: in the order the host sent them (so concurrent calls keep their
    request order). A call made as a task (its answer a task handle) takes the result of
    its ``tasks/result``; a call never answered is kept and flagged ``unanswered``. A
    ``tools/call`` whose name is not a string is forwarded and kept among the messages,
    flagged ``malformed``, but is no tool call: one bad request does not cost the session.

    Each side is fed plain JSON-RPC dicts or the SDK's typed messages (:func:`as_wire`).
    """

    def __init__(self, server: Optional[str] = None, clock=time.perf_counter):
        self.server = server
        self.clock = clock
        self.started = clock()
        self.messages: list = []
        self.seq = 0
        self.calls: dict = {}       # seq -> call, answered or not
        self.pending: dict = {}     # request id -> (seq, start) of a tools/call not yet answered
        self.tasks: dict = {}       # task id -> seq of the call made as that task
        self.task_results: dict = {}  # tasks/result request id -> task id
        self.discovering: dict = {}   # server/discover request id -> the version it proposed
        self.listing: dict = {}     # tools/list request id -> the page is a first page
        self.pages: Optional[list] = None
        self.tools: Optional[list] = None
        self.server_info: dict = {}
        self.protocol_version: Optional[str] = None
        self.ended = ENDED_HOST
        self.unanswered = 0         # requests the server went away without answering

    def _keep(self, side: str, raw: dict) -> dict:
        entry = {"from": side, "at_ms": round((self.clock() - self.started) * 1000, 3), "message": raw}
        self.messages.append(entry)
        return entry

    # -- what the host sent --------------------------------------------------------------

    def from_host(self, message) -> None:
        raw = as_wire(message)
        entry = self._keep("host", raw)
        method, request_id = raw.get("method"), raw.get("id")
        if not isinstance(method, str) or request_id is None:
            return  # a notification, or the host answering a request of the server's
        params = raw.get("params")
        params = params if isinstance(params, dict) else {}
        if method == "tools/call":
            name, args = params.get("name"), params.get("arguments")
            if not isinstance(name, str) or not name:
                entry["malformed"] = f"a tools/call whose name is not a non-empty string ({type(name).__name__})"
                return
            self.calls[self.seq] = {"name": name, "args": {} if args is None else args, "unanswered": True}
            self.pending[request_id] = (self.seq, self.clock())
            self.seq += 1
        elif method == "tools/list":
            self.listing[request_id] = not params.get("cursor")
        elif method == "server/discover":
            meta = params.get("_meta")
            self.discovering[request_id] = meta.get(PROTOCOL_VERSION_META) if isinstance(meta, dict) else None
        elif method == "tasks/result" and params.get("taskId") in self.tasks:
            self.task_results[request_id] = params["taskId"]

    # -- what the server sent ------------------------------------------------------------

    def from_server(self, message) -> None:
        raw = as_wire(message)
        self._keep("server", raw)
        if raw.get("method") is not None:
            return  # a request or notification of the server's own
        request_id = raw.get("id")
        result = raw.get("result")
        if request_id in self.pending:
            seq, start = self.pending.pop(request_id)
            call = self.calls[seq]
            del call["unanswered"]
            self._settle(call, raw)
            call["duration_ms"] = round((self.clock() - start) * 1000, 3)
            task = result.get("task") if isinstance(result, dict) and "content" not in result else None
            if isinstance(task, dict) and isinstance(task.get("taskId"), (str, int)):
                call["task_id"] = task["taskId"]  # a task handle: the result comes with tasks/result
                call["unanswered"] = True
                self.tasks[task["taskId"]] = seq
        elif request_id in self.task_results:
            call = self.calls[self.tasks.pop(self.task_results.pop(request_id))]
            call.pop("unanswered", None)
            self._settle(call, raw)
        elif request_id in self.listing:
            self._tools_page(self.listing.pop(request_id), result)
        elif request_id in self.discovering:
            proposed = self.discovering.pop(request_id)
            meta = result.get("_meta") if isinstance(result, dict) else None
            info = meta.get(SERVER_INFO_META) if isinstance(meta, dict) else None
            if isinstance(info, dict) and not self.server_info:
                self.server_info = info
            if isinstance(result, dict) and isinstance(proposed, str):
                self.protocol_version = proposed
        elif isinstance(result, dict) and isinstance(result.get("serverInfo"), dict) and not self.server_info:
            self.server_info = result["serverInfo"]
            version = result.get("protocolVersion")
            self.protocol_version = version if isinstance(version, str) else None

    @staticmethod
    def _settle(call: dict, raw: dict) -> None:
        result = raw.get("result")
        if isinstance(result, dict):
            call["error"] = result.get("isError") is True
            call["result"] = result
            call.pop("rpc_error", None)
        else:
            call["error"] = True
            call["rpc_error"] = raw.get("error") if isinstance(raw.get("error"), dict) else {"message": str(raw)}

    def _tools_page(self, first: bool, result) -> None:
        """One page of a ``tools/list`` answer; a page that is not one (``{"tools": 5}``) is
        kept among the messages and read as no tools."""
        if not isinstance(result, dict):
            return
        if first or self.pages is None:
            self.pages = []
        tools = result.get("tools")
        if isinstance(tools, list):
            self.pages.extend(t for t in tools if isinstance(t, dict))
        if not result.get("nextCursor"):
            self.tools, self.pages = self.pages, None

    # -- the run -------------------------------------------------------------------------

    def server_name(self, command: list[str]) -> str:
        """``--server-name``, else the server's own name from its handshake (``initialize`` or
        ``server/discover``), else the command's file name (or the URL's host)."""
        name = self.server or self.server_info.get("name")
        if isinstance(name, str) and name:
            return name
        if "://" in command[0]:
            from urllib.parse import urlsplit

            return urlsplit(command[0]).hostname or command[0]
        return os.path.basename(command[0])

    def run(self, command: list[str], recorder: str = "mcptest record", recorded_at: Optional[str] = None):
        """The session as a cassette run (a :class:`~pytest_mcptest.engine.trace.Run`)."""
        from ..engine.trace import Message, Run, ToolCall

        server = self.server_name(command)
        calls = tuple([ToolCall(server=server, **self.calls[seq]) for seq in sorted(self.calls)])
        meta = {"recorder": recorder, "server": server, "ended": self.ended}
        if self.protocol_version:
            meta["protocol_version"] = self.protocol_version
        if recorded_at is not None:
            meta["recorded_at"] = recorded_at
        meta["basis"] = self.basis(server)
        messages = tuple([Message(sender=e["from"], at_ms=e["at_ms"], message=e["message"],
                                  malformed=e.get("malformed")) for e in self.messages])
        return Run(tool_calls=calls, meta=meta, messages=messages)

    def basis(self, server: str) -> dict:
        """What the run's numbers depend on, as far as the proxy sees (``live/basis.py`` for
        the rest): mcptest's version, and the server's name and version from its handshake
        with the protocol version the session spoke."""
        from .. import __version__

        info = self.server_info if isinstance(self.server_info, dict) else {}
        said = {"name": info.get("name"), "version": info.get("version"), "protocol_version": self.protocol_version}
        return {"mcptest": __version__, "servers": {server: {k: v for k, v in said.items() if isinstance(v, str)}}}

    def catalog(self, command: list[str]) -> dict:
        """The last complete ``tools/list`` answer; else the pages the host did read (a host
        that stops after the first page was shown only those tools)."""
        tools = self.tools if self.tools is not None else self.pages
        return {} if tools is None else {self.server_name(command): {"tools": tools}}

    def give_up_waiting(self, other: set) -> list:
        """The server is gone: the ids of every request still waiting for it, to be answered
        with an error (the tools/call ones counted unanswered, then ``other``, the host's
        other requests, in a stable order); nothing is left waiting afterwards."""
        ids = list(self.pending)
        self.unanswered += len(ids)
        self.pending.clear()
        self.listing.clear()  # tools/list requests are among the others
        ids += sorted(other, key=str)
        other.clear()
        return ids


def gone_error(request_id, command: list[str], reason: str = "") -> dict:
    """The answer a host gets to a request the server can no longer answer."""
    what = command[0] if "://" in command[0] else shlex.join(command)
    message = (f"mcptest record: the MCP server `{what}` " + (reason or "exited or closed its output before answering")
               + "; the calls answered so far are recorded")
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": SERVER_GONE, "message": message}}


def late_error(request_id, command: list[str], method, timeout: float) -> dict:
    """The answer a host gets to a request the endpoint has not answered in ``timeout`` seconds."""
    message = (f"mcptest record: the MCP server `{command[0]}` gave no answer within {timeout:g} s to "
               f"{printable(str(method))} (mcptest record --timeout SECONDS); a later answer is recorded, "
               "not passed on")
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": SERVER_GONE, "message": message}}
