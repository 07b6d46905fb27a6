"""MCP conformance read from a recorded session: each check of :data:`CHECKS` judged on the
JSON-RPC messages of one cassette run, for the protocol version the session negotiated.

Pure: the caller hands in the messages (``(sender, message)`` pairs, in order), the run's
``meta`` and the wire types of the negotiated version as the official ``mcp`` SDK defines them
(``engine/wire_types.py``, which the schema checks read); nothing here reads a file, a clock or
the network. A check reads only traffic: one that needs a request a host rarely sends (an
unknown method, bad params, a bogus cursor) is SKIPPED when the session holds none, and
``mcptest probe`` records a session that holds them.

Each check has a stable id, a status as the official conformance suite's ``checks.json``
(``SUCCESS``, ``FAILURE``, ``WARNING``, ``SKIPPED``, ``INFO``), the findings that decided it
(each with a JSON pointer into the cassette, ``/runs/<i>/messages/<j>/message/...``) and a link
to the section of the specification, for the version the session spoke. A MUST broken is a
FAILURE; a SHOULD broken is a WARNING. Checks whose id starts with ``host-`` judge the host's
side of the session (a server author may skip them); the requests ``mcptest probe`` sends on
purpose (listed in the run's ``meta.probe.deliberate``) are left out of them.

:func:`judge` then applies a known-failures list and the checks to skip: a listed failure no
longer fails the run, and a listed check that ran and did not fail does (the list cannot go
stale).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional

import attrs

if TYPE_CHECKING:
    from .wire_types import WireTypes

SUCCESS, FAILURE, WARNING, SKIPPED, INFO = "SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO"
STATUSES = (SUCCESS, FAILURE, WARNING, SKIPPED, INFO)
_RANK = {FAILURE: 3, WARNING: 2, INFO: 1}

SPEC = "https://modelcontextprotocol.io/specification"
DEFAULT_VERSION = "2025-11-25"  # the spec version a link names when the session's is unknown
MAX_FINDINGS = 50  # findings kept per check (the rest are counted)

# Every method any released MCP version (2024-11-05 .. 2026-07-28) defines: a request whose
# method is none of these is an unknown method whatever version the session spoke.
MCP_METHODS = frozenset({
    "initialize", "ping", "server/discover", "subscriptions/listen",
    "resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe",
    "prompts/list", "prompts/get", "tools/list", "tools/call", "logging/setLevel", "completion/complete",
    "sampling/createMessage", "elicitation/create", "roots/list",
    "tasks/get", "tasks/result", "tasks/list", "tasks/cancel",
})
LIST_METHODS = ("tools/list", "resources/list", "resources/templates/list", "prompts/list", "tasks/list")

# The server capability a host request needs: (capability, flag under it or None).
SERVER_CAPABILITY = {
    "resources/list": ("resources", None), "resources/templates/list": ("resources", None),
    "resources/read": ("resources", None), "resources/subscribe": ("resources", "subscribe"),
    "resources/unsubscribe": ("resources", "subscribe"), "prompts/list": ("prompts", None),
    "prompts/get": ("prompts", None), "tools/list": ("tools", None), "tools/call": ("tools", None),
    "logging/setLevel": ("logging", None), "completion/complete": ("completions", None),
    "tasks/get": ("tasks", None), "tasks/result": ("tasks", None), "tasks/list": ("tasks", "list"),
    "tasks/cancel": ("tasks", "cancel"),
}
# The host capability a server request needs.
CLIENT_CAPABILITY = {"sampling/createMessage": "sampling", "elicitation/create": "elicitation", "roots/list": "roots"}
LIST_CHANGED = {"notifications/tools/list_changed": "tools", "notifications/resources/list_changed": "resources",
                "notifications/prompts/list_changed": "prompts"}

# The server capabilities each version defines (its ServerCapabilities): a host request of a
# capability its version does not have (completion/complete in 2024-11-05) needs no declaration.
# Written from the specification's schemas; the mcp SDK judges every version before 2026-07-28
# by its 2025-11-25 models, so it cannot tell.
VERSION_CAPABILITIES = {
    "2024-11-05": frozenset({"experimental", "logging", "prompts", "resources", "tools"}),
    "2025-03-26": frozenset({"completions", "experimental", "logging", "prompts", "resources", "tools"}),
    "2025-06-18": frozenset({"completions", "experimental", "logging", "prompts", "resources", "tools"}),
    "2025-11-25": frozenset({"completions", "experimental", "logging", "prompts", "resources", "tasks", "tools"}),
    "2026-07-28": frozenset({"completions", "experimental", "extensions", "logging", "prompts", "resources", "tools"}),
}
WIRE_CHECKS = ("wire-schema-valid", "host-wire-schema-valid", "error-code-invalid-params")  # judged by the SDK's types

TOOL_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602


@attrs.frozen
class CheckInfo:
    """What a check is: its id, a one-line title, what of the session it reads, and the
    section of the specification (a path under ``/specification/<version>/``, per version
    where the page moved)."""

    id: str
    title: str
    reads: str
    section: str
    section_2026: Optional[str] = None  # where the 2026-07-28 specification has it, if elsewhere

    def link(self, version: Optional[str]) -> str:
        version = version if version in _LINKED_VERSIONS else DEFAULT_VERSION
        section = self.section_2026 if version >= "2026" and self.section_2026 else self.section
        return f"{SPEC}/{version}/{section}"


_LINKED_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")

CHECKS: tuple[CheckInfo, ...] = (
    CheckInfo("server-info", "the server's name, version and the protocol version it spoke",
              "the initialize (or server/discover) result", "basic/lifecycle#initialization", "server/discover"),
    CheckInfo("lifecycle-initialize", "the handshake answered with a result of a version mcptest knows; no "
              "request of the server's before the host said initialized",
              "initialize / server/discover and what the server sent before notifications/initialized",
              "basic/lifecycle#initialization", "server/discover"),
    CheckInfo("wire-schema-valid", "every message of the server valid against the wire types of the negotiated "
              "version, as the official mcp SDK defines them", "every server message; a result against the result "
              "type of its request", "schema", "schema"),
    CheckInfo("host-wire-schema-valid", "every message of the host valid against the same types (the probe's "
              "deliberate requests left out)", "every host message", "schema", "schema"),
    CheckInfo("jsonrpc-id-pairing", "each response answers one request of the other side, once; each host "
              "request answered; the server's request ids never reused",
              "ids of requests and responses", "basic/index#responses", "basic/index#responses"),
    CheckInfo("error-code-unknown-method", "a request of a method no MCP version defines answered with error "
              "-32601", "requests of unknown methods and their answers", "basic/index#responses",
              "basic/index#error-codes"),
    CheckInfo("error-code-invalid-params", "a request whose params break its type answered with error -32602",
              "requests invalid against their type (the mcp SDK's) and their answers", "basic/index#responses",
              "basic/index#error-codes"),
    CheckInfo("error-code-unknown-tool", "tools/call of a tool the server never listed answered with a JSON-RPC "
              "error (-32602), not a tool result", "tools/call of unlisted names", "server/tools#error-handling",
              "server/tools#error-handling"),
    CheckInfo("notification-not-answered", "no response to a notification", "responses with a null id after "
              "host notifications", "basic/index#notifications", "basic/index#notifications"),
    CheckInfo("capability-server-declared", "no result for a request of a capability the server did not declare",
              "capabilities of the handshake, host requests and their answers",
              "basic/lifecycle#capability-negotiation", "server/discover"),
    CheckInfo("capability-client-declared", "no server request of a capability the host did not declare "
              "(sampling, elicitation, roots)", "client capabilities, server requests",
              "basic/lifecycle#capability-negotiation", "server/discover"),
    CheckInfo("host-capability-respected", "no host request of a capability the server did not declare (the "
              "probe's deliberate ones left out)", "server capabilities, host requests",
              "basic/lifecycle#capability-negotiation", "server/discover"),
    CheckInfo("pagination-cursor", "a cursor the server never issued answered with error -32602; a page never "
              "hands back the cursor it was asked for", "list requests with a cursor, their nextCursor",
              "server/utilities/pagination#error-handling", "server/utilities/pagination#error-handling"),
    CheckInfo("tool-name-form", "tool names of 1 to 128 characters of A-Z a-z 0-9 _ - . and unique",
              "every tools/list result", "server/tools#tool-names", "server/tools#tool-names"),
    CheckInfo("tool-input-schema", "each inputSchema a valid JSON Schema (its dialect, default 2020-12) with "
              "type: object", "every tools/list result", "server/tools#tool", "server/tools#tool"),
    CheckInfo("tool-output-schema", "each outputSchema a valid JSON Schema, of type: object where the version "
              "requires it", "every tools/list result", "server/tools#output-schema", "server/tools#output-schema"),
    CheckInfo("structured-content-matches-output-schema", "a tool with an outputSchema returns structuredContent "
              "valid against it", "tools/call results of tools listed with an outputSchema",
              "server/tools#output-schema", "server/tools#output-schema"),
    CheckInfo("list-changed-declared", "list_changed notifications only for a capability declared with "
              "listChanged: true", "server notifications, server capabilities",
              "server/tools#list-changed-notification", "server/tools#list-changed-notification"),
    CheckInfo("logging-declared", "log message notifications only from a server that declared logging",
              "notifications/message, server capabilities", "server/utilities/logging#capabilities",
              "server/utilities/logging#capabilities"),
    CheckInfo("progress-token-live", "progress notifications name a token of a request still in flight, with "
              "progress increasing", "progressToken in host requests, notifications/progress",
              "basic/utilities/progress", "basic/patterns/progress"),
    CheckInfo("cancellation-respected", "no error answer caused by a cancellation (a result that crossed it is INFO)",
              "notifications/cancelled and the answers after it", "basic/utilities/cancellation",
              "basic/patterns/cancellation"),
    CheckInfo("ping-answered", "ping answered with an empty result", "ping requests and their answers",
              "basic/utilities/ping", "basic/index#requests"),
    CheckInfo("http-transport", "over Streamable HTTP: status codes, content types and session ids",
              "the HTTP exchanges, when the cassette holds them", "basic/transports#streamable-http",
              "basic/transports/streamable-http"),
)
CHECK_IDS = tuple(c.id for c in CHECKS)
_INFO = {c.id: c for c in CHECKS}


@attrs.frozen
class Finding:
    """One thing a check found: how bad (FAILURE, WARNING or INFO), where (a JSON pointer into
    the cassette) and what, in one line."""

    status: str
    pointer: str
    message: str

    def to_dict(self) -> dict:
        return {"status": self.status, "pointer": self.pointer, "message": self.message}


@attrs.frozen
class Check:
    """One check judged on one session: its status, the findings that decided it, why it was
    skipped (``reason``), and whether a known-failures list names it (``known``)."""

    id: str
    status: str
    spec: str
    description: str
    findings: tuple[Finding, ...] = ()
    reason: str = ""
    more: int = 0  # findings past MAX_FINDINGS, counted
    known: str = ""  # the reason a known-failures list gives, when it lists this failure
    judged_by: str = ""  # what judged it, when not mcptest alone (the mcp SDK's types, its version)

    @property
    def failed(self) -> bool:
        return self.status == FAILURE and not self.known

    def first(self) -> str:
        """The first finding of the check's status, in one line (or the reason)."""
        for f in self.findings:
            if f.status == self.status:
                return f"{f.message} (at {f.pointer})" if f.pointer else f.message
        return self.reason

    def to_dict(self) -> dict:
        out = {"id": self.id, "status": self.status, "description": self.description, "spec": self.spec}
        if self.findings:
            out["findings"] = [f.to_dict() for f in self.findings]
        if self.more:
            out["more_findings"] = self.more
        if self.reason:
            out["reason"] = self.reason
        if self.known:
            out["known_failure"] = self.known
        if self.judged_by:
            out["judged_by"] = self.judged_by
        return out


@attrs.frozen
class Conformance:
    """A session's checks, in :data:`CHECKS` order, and what was found about the session.
    ``stale`` names the known failures that no longer fail (each fails the run)."""

    version: Optional[str]
    server: dict
    checks: tuple[Check, ...]
    stale: tuple[str, ...] = ()

    @property
    def failed(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.failed)

    @property
    def passed(self) -> bool:
        return not self.failed and not self.stale

    def check(self, check_id: str) -> Check:
        return next(c for c in self.checks if c.id == check_id)

    def counts(self) -> dict:
        counts = dict.fromkeys(STATUSES, 0)
        for c in self.checks:
            counts[c.status] += 1
        return counts

    def to_dict(self) -> dict:
        return {
            "protocol_version": self.version,
            "server": dict(self.server),
            "passed": self.passed,
            "counts": self.counts(),
            "failed": [c.id for c in self.failed],
            "known_failures": [c.id for c in self.checks if c.known],
            "stale_known_failures": list(self.stale),
            "checks": [c.to_dict() for c in self.checks],
        }


class ConformanceError(ValueError):
    """A known-failures list or a skip list that names no check (one line)."""


def _escape(part: Any) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


# --------------------------------------------------------------------------- the session


def _id_key(value: Any) -> Optional[tuple]:
    """A request id as a key: strings and numbers kept apart (``1`` is not ``"1"``), ``1.0``
    the same as ``1``; None for what cannot be an id."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, (int, float)):
        return ("n", value)
    return None


def _kind(message: Any) -> str:
    """request, notification, result, error or invalid."""
    if not isinstance(message, dict):
        return "invalid"
    if isinstance(message.get("method"), str):
        return "request" if "id" in message else "notification"
    if "result" in message:
        return "result"
    if "error" in message:
        return "error"
    return "invalid"


@attrs.define
class _Request:
    index: int
    sender: str
    method: str
    params: Any
    answer: Optional[int] = None  # the index of its answer
    answers: int = 0
    cancelled_at: Optional[int] = None


class _Session:
    """One pass over the messages: requests paired with their answers, the handshake, the
    lists the server gave."""

    def __init__(self, messages: list, base: str, meta: Mapping):
        self.messages = messages  # [(sender, message)]
        self.base = base
        self.meta = meta
        probe = meta.get("probe") if isinstance(meta.get("probe"), dict) else {}
        deliberate = probe.get("deliberate") if isinstance(probe.get("deliberate"), list) else []
        self.deliberate = {e["index"]: e.get("what", "") for e in deliberate
                           if isinstance(e, dict) and isinstance(e.get("index"), int)}
        self.requests: dict = {"host": {}, "server": {}}  # sender -> id key -> _Request (the latest)
        self.order: list[_Request] = []
        self.reused: list[tuple[int, str]] = []  # (index, sender) of a request id used before
        self.stray: list[int] = []  # responses that answer no request
        self.twice: list[int] = []  # second answers
        self.null_answers: list[int] = []  # responses with no usable id
        self.answer_of: dict = {}  # response index -> _Request
        self.init_request: Optional[_Request] = None
        self.discover: Optional[_Request] = None
        self.initialized_at: Optional[int] = None
        for index, (sender, message) in enumerate(messages):
            self._see(index, sender, message)
        self.init_result = self._result(self.init_request)
        discovered = self._result(self.discover)
        hello = self.init_result if isinstance(self.init_result, dict) else discovered
        self.hello = hello if isinstance(hello, dict) else {}
        info = self.hello.get("serverInfo")
        if not isinstance(info, dict):  # 2026-07-28: under the discover result's _meta
            meta_ = self.hello.get("_meta")
            info = meta_.get("io.modelcontextprotocol/serverInfo") if isinstance(meta_, dict) else None
        self.server_info = info if isinstance(info, dict) else {}
        caps = self.hello.get("capabilities")
        self.server_caps = caps if isinstance(caps, dict) else {}
        params = self.init_request.params if self.init_request is not None else None
        client = params.get("capabilities") if isinstance(params, dict) else None
        self.client_caps = client if isinstance(client, dict) else None
        if self.client_caps is None and self.discover is not None:
            meta_ = self.discover.params.get("_meta") if isinstance(self.discover.params, dict) else None
            found = meta_.get("io.modelcontextprotocol/clientCapabilities") if isinstance(meta_, dict) else None
            self.client_caps = found if isinstance(found, dict) else None

    def pointer(self, index: int, path: str = "") -> str:
        return f"{self.base}/{index}/message{path}"

    def _see(self, index: int, sender: str, message: Any) -> None:
        kind = _kind(message)
        other = "server" if sender == "host" else "host"
        if kind == "request":
            key = _id_key(message.get("id"))
            request = _Request(index, sender, message["method"], message.get("params"))
            if key is not None:
                if key in self.requests[sender]:
                    self.reused.append((index, sender))
                self.requests[sender][key] = request
            self.order.append(request)
            if sender == "host" and message["method"] == "initialize" and self.init_request is None:
                self.init_request = request
            if sender == "host" and message["method"] == "server/discover" and self.discover is None:
                self.discover = request
        elif kind == "notification":
            if sender == "host" and message["method"] == "notifications/initialized" and self.initialized_at is None:
                self.initialized_at = index
            if sender == "host" and message["method"] == "notifications/cancelled":
                params = message.get("params") if isinstance(message.get("params"), dict) else {}
                target = self.requests["host"].get(_id_key(params.get("requestId")))
                if target is not None and target.answer is None and target.cancelled_at is None:
                    target.cancelled_at = index
        elif kind in ("result", "error"):
            key = _id_key(message.get("id"))
            if key is None:
                self.null_answers.append(index)
                return
            request = self.requests[other].get(key)
            if request is None:
                self.stray.append(index)
                return
            request.answers += 1
            if request.answers > 1:
                self.twice.append(index)
                return
            request.answer = index
            self.answer_of[index] = request

    def _result(self, request: Optional[_Request]) -> Any:
        if request is None or request.answer is None:
            return None
        return self.messages[request.answer][1].get("result")

    def answer(self, request: _Request) -> Optional[dict]:
        return None if request.answer is None else self.messages[request.answer][1]

    def host_requests(self) -> Iterable[_Request]:
        return (r for r in self.order if r.sender == "host")

    def declared(self, capability: str, flag: Optional[str] = None) -> bool:
        value = self.server_caps.get(capability)
        if not isinstance(value, dict):
            return False
        return flag is None or value.get(flag) is True

    def tools_lists(self) -> Iterable[tuple[int, list]]:
        """(index of the answer, its tools) of every tools/list answer, in order."""
        for request in self.host_requests():
            if request.method == "tools/list" and request.answer is not None:
                result = self.messages[request.answer][1].get("result")
                tools = result.get("tools") if isinstance(result, dict) else None
                if isinstance(tools, list):
                    yield request.answer, tools


# --------------------------------------------------------------------------- the checks


class _Found:
    """The findings of one check as they are made."""

    def __init__(self):
        self.items: list[Finding] = []
        self.more = 0
        self.skip_reason = ""
        self.examined = 0  # messages or items the check looked at

    def add(self, status: str, pointer: str, message: str) -> None:
        if len(self.items) < MAX_FINDINGS:
            self.items.append(Finding(status, pointer, _short(message, 400)))
        else:
            self.more += 1

    def skip(self, reason: str) -> None:
        self.skip_reason = reason


def check_session(messages: Iterable[tuple[str, Any]], meta: Optional[Mapping] = None,
                  wire: Optional[WireTypes] = None, base: str = "/runs/0/messages",
                  version: Optional[str] = None) -> Conformance:
    """Every check of :data:`CHECKS` on one session: ``messages`` as ``(sender, message)``
    (sender ``host`` or ``server``), ``meta`` the run's meta (``protocol_version``, ``ended``,
    ``probe``), ``wire`` the mcp SDK's wire types of the session's version
    (``wire_types.wire_types(version)``; None: the wire checks are SKIPPED), ``base`` the JSON
    pointer of the run's messages in the cassette."""
    meta = meta or {}
    session = _Session(list(messages), base, meta)
    version = version or session_version(session.messages, meta)
    found = {c.id: _Found() for c in CHECKS}
    _handshake(session, wire, version, found)
    _wire(session, wire, version, found)
    _pairing(session, found)
    _error_codes(session, wire, found)
    _notifications(session, found)
    _capabilities(session, version, found)
    _pagination(session, found)
    _tools(session, wire, version, found)
    _progress(session, found)
    _cancellation(session, found)
    _ping(session, wire, found)
    _http(session, found)
    server = session.server_info
    judged_by = wire.judged_by if wire is not None else ""
    checks = tuple(_conclude(info, found[info.id], version, judged_by if info.id in WIRE_CHECKS else "")
                   for info in CHECKS)
    return Conformance(version, {k: v for k, v in server.items() if k in ("name", "version", "title")}, checks)


def session_version(messages: list, meta: Mapping) -> Optional[str]:
    """The protocol version a session spoke: the run's ``meta.protocol_version`` (the
    recorder's), else the initialize result's ``protocolVersion``."""
    version = meta.get("protocol_version")
    if isinstance(version, str) and version:
        return version
    requests = {}
    for sender, message in messages:
        if _kind(message) == "request" and sender == "host" and message["method"] == "initialize":
            requests[_id_key(message.get("id"))] = True
        elif sender == "server" and _kind(message) == "result" and _id_key(message.get("id")) in requests:
            result = message.get("result")
            found = result.get("protocolVersion") if isinstance(result, dict) else None
            return found if isinstance(found, str) else None
    return None


def _conclude(info: CheckInfo, found: _Found, version: Optional[str], judged_by: str = "") -> Check:
    worst = max((f.status for f in found.items), key=_RANK.__getitem__, default=None)
    if worst is None:
        status = SKIPPED if found.skip_reason else SUCCESS
    else:
        status = worst
    return Check(info.id, status, info.link(version), info.title, tuple(found.items),
                 found.skip_reason if status in (SKIPPED, INFO) or not found.items else "", found.more,
                 judged_by=judged_by if status != SKIPPED else "")


def _handshake(s: _Session, wire: Optional[WireTypes], version: Optional[str], found: dict) -> None:
    info, life = found["server-info"], found["lifecycle-initialize"]
    hello = s.init_request or s.discover
    if hello is None:
        info.skip("the session holds no initialize or server/discover")
        life.skip("the session holds no initialize or server/discover")
        return
    answer = s.answer(hello)
    where = s.pointer(hello.index)
    if answer is None:
        life.add(FAILURE, where, f"{hello.method} was never answered")
    elif "error" in answer:
        error = answer.get("error") if isinstance(answer.get("error"), dict) else {}
        life.add(FAILURE, s.pointer(hello.answer), f"{hello.method} answered with error {error.get('code')!r}: "
                 f"{_short(str(error.get('message')), 120)}")
    server = s.server_info
    words = f"server {server.get('name', '?')} {server.get('version', '?')}, protocol version {version or '?'}"
    info.add(INFO, s.pointer(hello.answer) if hello.answer is not None else where, words)
    if version is not None and wire is None:
        life.add(WARNING, s.pointer(hello.answer) if hello.answer is not None else where,
                 f"protocol version {version!r} is not one the installed mcp SDK knows ({_sdk_knows()}): the "
                 "wire checks are skipped")
    if s.init_request is not None and s.init_request.answer is not None and s.initialized_at is not None:
        for index in range(s.init_request.answer + 1, s.initialized_at):
            sender, message = s.messages[index]
            if sender == "server" and _kind(message) == "request" and message["method"] != "ping":
                life.add(WARNING, s.pointer(index), f"the server sent {message['method']} before the host's "
                         "notifications/initialized (SHOULD NOT: only ping and logging)")


def _sdk_knows() -> str:
    from .wire_types import known_versions, sdk_version

    known = known_versions()
    return f"mcp {sdk_version()} knows {known[0]} to {known[-1]}" if known else f"mcp {sdk_version()}"


def _wire(s: _Session, wire: Optional[WireTypes], version: Optional[str], found: dict) -> None:
    server, host = found["wire-schema-valid"], found["host-wire-schema-valid"]
    if wire is None:
        why = (f"the installed mcp SDK has no types of the session's protocol version {version!r} ({_sdk_knows()})"
               if version else "the session's protocol version is unknown")
        server.skip(why)
        host.skip(why)
        return
    if not s.messages:
        server.skip("the run holds no messages (recorded before mcptest kept them, or imported)")
        host.skip("the run holds no messages")
        return
    for index, (sender, message) in enumerate(s.messages):
        if sender == "host" and index in s.deliberate:
            continue
        problem = _wire_problem(s, wire, index, sender, message)
        target = server if sender == "server" else host
        target.examined += 1
        if problem is not None:
            path, words = problem
            target.add(FAILURE, s.pointer(index, path), words)
    if not server.examined:
        server.skip("the server sent no message")
    if not host.examined:
        host.skip("every host message was a deliberate probe request")


def _wire_problem(s: _Session, wire: WireTypes, index: int, sender: str, message: Any) -> Optional[tuple]:
    kind = _kind(message)
    if kind == "invalid":
        return "", "not a JSON-RPC request, notification or response"
    problem = wire.envelope_problem(kind, message)
    if problem is not None:
        return problem
    if kind in ("request", "notification"):
        return wire.message_problem(sender, kind, message)  # None too for a method this version does not define
    if kind == "result":
        request = s.answer_of.get(index)
        if request is None:
            return None
        return wire.result_problem(request.sender, request.method, request.params, message.get("result"))
    return None


def _pairing(s: _Session, found: dict) -> None:
    f = found["jsonrpc-id-pairing"]
    ended = str(s.meta.get("ended") or "")
    exited = ended.startswith("server")
    for index in s.stray:
        f.add(FAILURE, s.pointer(index, "/id"), f"a response with id {s.messages[index][1].get('id')!r} answers no "
              f"request of the {'host' if s.messages[index][0] == 'server' else 'server'}")
    for index in s.twice:
        f.add(FAILURE, s.pointer(index, "/id"), f"a second answer to request id {s.messages[index][1].get('id')!r}")
    for index, sender in s.reused:
        if sender == "server":
            f.add(FAILURE, s.pointer(index, "/id"), "the server reused a request id of its own session (MUST NOT)")
    for request in s.host_requests():
        if request.answer is not None or request.cancelled_at is not None:
            continue
        where = s.pointer(request.index)
        if exited:
            f.add(FAILURE, where, f"{request.method} never answered: {ended}")
        else:
            f.add(WARNING, where, f"{request.method} not answered before the session ended ({ended or 'no reason kept'})")
    if not any(True for _ in s.host_requests()):
        f.skip("the host sent no request")


def _code(message: Optional[dict]) -> Any:
    error = message.get("error") if isinstance(message, dict) else None
    return error.get("code") if isinstance(error, dict) else None


def _answer_words(message: dict) -> str:
    if "error" in message:
        error = message["error"] if isinstance(message["error"], dict) else {}
        return f"error {error.get('code')!r} ({_short(str(error.get('message')), 100)})"
    return "a result"


def _error_codes(s: _Session, wire: Optional[WireTypes], found: dict) -> None:
    unknown, invalid, tool = (found["error-code-unknown-method"], found["error-code-invalid-params"],
                              found["error-code-unknown-tool"])
    listed: Optional[set] = None
    for request in s.host_requests():
        answer = s.answer(request)
        if request.method == "tools/list" and answer is not None and isinstance(answer.get("result"), dict):
            tools = answer["result"].get("tools")
            if isinstance(tools, list):
                listed = (listed or set()) | {t.get("name") for t in tools
                                              if isinstance(t, dict) and isinstance(t.get("name"), str)}
        if answer is None:
            continue
        where = s.pointer(request.answer)
        if request.method not in MCP_METHODS:
            unknown.examined += 1
            code = _code(answer)
            on_purpose = s.deliberate.get(request.index) == "unknown-method" or request.method.startswith("mcptest/")
            if code == METHOD_NOT_FOUND:
                continue
            if "result" in answer and not on_purpose:
                unknown.add(INFO, where, f"{request.method!r} (no MCP method) answered with a result: an extension "
                            "this server implements")
            elif code != INVALID_PARAMS or on_purpose:
                unknown.add(FAILURE, where, f"{request.method!r} is no MCP method; answered with "
                            f"{_answer_words(answer)}, where -32601 (method not found) belongs")
            continue
        message = s.messages[request.index][1]
        problem = wire.message_problem("host", "request", message) if wire is not None else None
        if problem is not None:
            invalid.examined += 1
            if _code(answer) != INVALID_PARAMS:
                words = problem[1]
                invalid.add(FAILURE, where, f"{request.method} with invalid params ({words}) answered with "
                            f"{_answer_words(answer)}, where -32602 (invalid params) belongs")
            continue
        if request.method == "tools/call" and listed is not None and isinstance(request.params, dict):
            name = request.params.get("name")
            if isinstance(name, str) and name not in listed:
                tool.examined += 1
                if "result" in answer:
                    tool.add(WARNING, where, f"tools/call of {name!r}, a tool the server never listed, answered with a "
                             "tool result; the spec lists unknown tools among protocol errors (JSON-RPC error "
                             "-32602 in its example)")
                elif _code(answer) != INVALID_PARAMS:
                    tool.add(WARNING, where, f"tools/call of the unlisted tool {name!r} answered with "
                             f"{_answer_words(answer)}; the spec's example answers -32602")
    if not unknown.examined:
        unknown.skip("no request of an unknown method in this session (mcptest probe sends one)")
    if not invalid.examined:
        invalid.skip("no request with invalid params in this session (mcptest probe sends one)"
                     if wire is not None else "the installed mcp SDK has no types of the session's version")
    if not tool.examined:
        tool.skip("no tools/call of an unlisted tool after a tools/list (mcptest probe makes one)")


def _notifications(s: _Session, found: dict) -> None:
    f = found["notification-not-answered"]
    told = [i for i, (sender, m) in enumerate(s.messages) if sender == "host" and _kind(m) == "notification"]
    broken = [i for i, (sender, m) in enumerate(s.messages)
              if sender == "host" and (_kind(m) == "invalid" or (isinstance(m, dict) and m.get("jsonrpc") != "2.0")
                                       or (_kind(m) == "request" and _id_key(m.get("id")) is None))]
    for index in s.null_answers:
        sender, message = s.messages[index]
        if sender != "server":
            continue
        earlier_broken = [i for i in broken if i < index]
        if earlier_broken and _code(message) in (PARSE_ERROR, INVALID_REQUEST):
            broken.remove(earlier_broken[0])
            continue
        earlier = [i for i in told if i < index]
        if earlier:
            last = earlier[-1]
            f.add(FAILURE, s.pointer(index), f"the server answered ({_answer_words(message)}) what can only be the "
                  f"notification {s.messages[last][1]['method']} (at {s.pointer(last)}): a notification gets no "
                  "response")
        else:
            found["jsonrpc-id-pairing"].add(FAILURE, s.pointer(index, "/id"),
                                            "a response with no usable id answers nothing the host sent")
    if not told:
        f.skip("the host sent no notification")


def _capabilities(s: _Session, version: Optional[str], found: dict) -> None:
    srv, cli, host = (found["capability-server-declared"], found["capability-client-declared"],
                      found["host-capability-respected"])
    if not (s.init_request or s.discover) or not s.hello:
        for f in (srv, cli, host):
            f.skip("the session holds no answered handshake: the capabilities are unknown")
        return
    for request in s.order:
        if request.sender == "host":
            need = SERVER_CAPABILITY.get(request.method)
            if need is None or need[0] not in VERSION_CAPABILITIES.get(version, {need[0]}):
                continue
            if s.declared(*need):
                continue
            what = need[0] + (f".{need[1]}" if need[1] else "")
            answer = s.answer(request)
            srv.examined += 1
            if answer is not None and "result" in answer:
                srv.add(FAILURE, s.pointer(request.answer), f"{request.method} answered with a result though the "
                        f"server did not declare the {what} capability (-32601 belongs)")
            if request.index not in s.deliberate:
                host.add(FAILURE, s.pointer(request.index), f"the host sent {request.method}, a request of the "
                         f"{what} capability the server did not declare")
        else:
            need_client = CLIENT_CAPABILITY.get(request.method)
            if need_client is None:
                continue
            cli.examined += 1
            caps = s.client_caps or {}
            if not isinstance(caps.get(need_client), dict):
                cli.add(FAILURE, s.pointer(request.index), f"the server sent {request.method} though the host did "
                        f"not declare the {need_client} capability")
    if not srv.examined:
        srv.skip("no host request of a capability the server did not declare (mcptest probe sends one when the server "
                 "leaves resources or prompts undeclared)")
    if not cli.examined:
        cli.skip("the server sent no sampling, elicitation or roots request")


def _pagination(s: _Session, found: dict) -> None:
    f = found["pagination-cursor"]
    issued: dict = {}  # method -> cursors the server handed out
    for request in s.host_requests():
        if request.method not in LIST_METHODS:
            continue
        answer = s.answer(request)
        cursor = request.params.get("cursor") if isinstance(request.params, dict) else None
        result = answer.get("result") if isinstance(answer, dict) else None
        if isinstance(cursor, str):
            f.examined += 1
            if cursor not in issued.get(request.method, ()):
                if answer is not None and "result" in answer:
                    f.add(WARNING, s.pointer(request.answer), f"{request.method} with the cursor {cursor[:40]!r}, "
                          "which the server never issued, answered with a result (SHOULD be error -32602)")
                elif answer is not None and _code(answer) != INVALID_PARAMS:
                    f.add(WARNING, s.pointer(request.answer), f"{request.method} with a cursor the server never "
                          f"issued answered with {_answer_words(answer)} (SHOULD be -32602)")
            elif isinstance(result, dict) and result.get("nextCursor") == cursor:
                f.add(WARNING, s.pointer(request.answer, "/result/nextCursor"), f"{request.method}: the page asked "
                      "for with a cursor hands back the same cursor: a host following nextCursor never ends")
        if isinstance(result, dict) and isinstance(result.get("nextCursor"), str):
            f.examined += 1
            issued.setdefault(request.method, set()).add(result["nextCursor"])
    if not f.examined:
        f.skip("no list request with a cursor and no nextCursor in this session (mcptest probe sends a bogus cursor)")


def _tools(s: _Session, wire: Optional[WireTypes], version: Optional[str], found: dict) -> None:
    names, inputs, outputs, structured = (found["tool-name-form"], found["tool-input-schema"],
                                          found["tool-output-schema"], found["structured-content-matches-output-schema"])
    name_rule = WARNING if (version or DEFAULT_VERSION) >= "2025-11-25" else INFO
    default_dialect = "https://json-schema.org/draft/2020-12/schema"
    out_object = wire.output_schema_object() if wire is not None else True
    lists = list(s.tools_lists())
    if not lists:
        for f in (names, inputs, outputs, structured):
            f.skip("the session holds no tools/list answer")
        return
    output_schemas = 0
    for answer, tools in lists:
        seen: dict = {}
        for i, tool in enumerate(tools):
            here = f"/result/tools/{i}"
            if not isinstance(tool, dict):
                continue
            name = tool.get("name")
            names.examined += 1
            if isinstance(name, str):
                if not TOOL_NAME.fullmatch(name):
                    names.add(name_rule, s.pointer(answer, here + "/name"), f"tool name {name[:60]!r} is not 1 to 128 "
                              "characters of A-Z a-z 0-9 _ - .")
                if name in seen:
                    names.add(name_rule, s.pointer(answer, here + "/name"), f"tool name {name!r} listed twice "
                              f"(first at {s.pointer(answer, f'/result/tools/{seen[name]}/name')})")
                seen.setdefault(name, i)
            inputs.examined += 1
            _schema_problems(inputs, s.pointer(answer, here + "/inputSchema"), tool.get("inputSchema"), "inputSchema",
                             True, default_dialect, required=True)
            if "outputSchema" in tool:
                output_schemas += 1
                _schema_problems(outputs, s.pointer(answer, here + "/outputSchema"), tool.get("outputSchema"),
                                 "outputSchema", out_object, default_dialect, required=False)
    if not output_schemas:
        outputs.skip("no tool was listed with an outputSchema")
    _structured(s, structured, default_dialect)


def _schema_problems(f: _Found, where: str, value: Any, field: str, need_object: bool, dialect: str,
                     required: bool) -> None:
    if value is None and not required:
        return
    if not isinstance(value, dict):
        f.add(FAILURE, where, f"{field} is {type(value).__name__ if value is not None else 'missing'}, not a JSON "
              "Schema object")
        return
    if need_object and value.get("type") != "object":
        f.add(FAILURE, where + "/type", f"{field} has type {value.get('type')!r}; its root must be type: \"object\"")
    problem = schema_problem(value, dialect)
    if problem is not None:
        status, path, words = problem
        f.add(status, where + path, f"{field} is not a valid JSON Schema: {words}")


def schema_problem(value: dict, default_dialect: str) -> Optional[tuple[str, str, str]]:
    """Why ``value`` is not a valid JSON Schema of its declared dialect (``$schema``, else
    ``default_dialect``): ``(status, pointer, words)``, or None. An unknown dialect is a WARNING."""
    from jsonschema.exceptions import best_match
    from jsonschema.validators import validator_for

    declared = value.get("$schema")
    cls = validator_for(value, default=None) if isinstance(declared, str) else None
    if isinstance(declared, str) and cls is None:
        return WARNING, "/$schema", f"dialect {declared[:80]!r} is not one mcptest knows; not checked"
    if cls is None:
        cls = validator_for({"$schema": default_dialect})
    try:
        error = best_match(_meta_validator(cls).iter_errors(value))
    except Exception as exc:  # noqa: BLE001 - a schema the metaschema cannot even walk
        return FAILURE, "", _short(f"{type(exc).__name__}: {exc}", 200)
    if error is None:
        return None
    return FAILURE, "".join(f"/{_escape(p)}" for p in error.absolute_path), _short(error.message, 200)


@lru_cache(maxsize=None)
def _meta_validator(cls):
    """The validator of a dialect's metaschema (made once per dialect)."""
    return cls(cls.META_SCHEMA)


def _structured(s: _Session, f: _Found, dialect: str) -> None:
    from jsonschema.validators import validator_for

    schemas: dict = {}  # tool name -> (outputSchema, pointer), from the latest tools/list before the call
    for request in s.host_requests():
        answer = s.answer(request)
        if request.method == "tools/list" and answer is not None and isinstance(answer.get("result"), dict):
            tools = answer["result"].get("tools")
            for i, tool in enumerate(tools if isinstance(tools, list) else ()):
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    schemas[tool["name"]] = (tool.get("outputSchema"), s.pointer(request.answer, f"/result/tools/{i}"))
            continue
        if request.method != "tools/call" or answer is None or not isinstance(request.params, dict):
            continue
        name = request.params.get("name")
        entry = schemas.get(name) if isinstance(name, str) else None
        result = answer.get("result")
        if entry is None or not isinstance(entry[0], dict) or not isinstance(result, dict):
            continue
        if result.get("isError") is True or "task" in result or result.get("resultType") not in (None, "complete"):
            continue
        output, listed = entry
        f.examined += 1
        where = s.pointer(request.answer, "/result")
        if "structuredContent" not in result:
            f.add(FAILURE, where, f"{request.params['name']!r} has an outputSchema ({listed}) but its result has no "
                  "structuredContent")
            continue
        if schema_problem(output, dialect) is not None:
            continue  # reported by tool-output-schema
        try:
            cls = validator_for(output, default=validator_for({"$schema": dialect}))
            error = _best(cls(output).iter_errors(result["structuredContent"]))
        except Exception as exc:  # noqa: BLE001 - an unresolvable $ref in the server's schema
            f.add(WARNING, where + "/structuredContent", f"could not validate against the outputSchema: "
                  f"{type(exc).__name__}: {_short(str(exc), 120)}")
            continue
        if error is not None:
            path, words = error
            f.add(FAILURE, where + "/structuredContent" + path, f"{request.params['name']!r}: structuredContent does "
                  f"not match the outputSchema ({listed}): {words}")
    if not f.examined:
        f.skip("no successful tools/call of a tool listed with an outputSchema")


def _best(errors) -> Optional[tuple[str, str]]:
    from jsonschema.exceptions import best_match

    error = best_match(errors)
    if error is None:
        return None
    return "".join(f"/{_escape(p)}" for p in error.absolute_path), _short(error.message, 200)


def _server_notifications(s: _Session) -> Iterable[tuple[int, dict]]:
    for index, (sender, message) in enumerate(s.messages):
        if sender == "server" and _kind(message) == "notification":
            yield index, message


def _progress(s: _Session, found: dict) -> None:
    f = found["progress-token-live"]
    lists, logs = found["list-changed-declared"], found["logging-declared"]
    tokens: dict = {}  # token key -> request
    last: dict = {}
    have_hello = bool(s.hello)
    for index, (sender, message) in enumerate(s.messages):
        kind = _kind(message)
        if sender == "host" and kind == "request":
            params = message.get("params")
            meta = params.get("_meta") if isinstance(params, dict) else None
            token = meta.get("progressToken") if isinstance(meta, dict) else None
            key = _id_key(token)
            if key is not None:
                tokens[key] = s.requests["host"].get(_id_key(message.get("id")))
            continue
        if sender != "server" or kind != "notification":
            continue
        method = message["method"]
        if method in LIST_CHANGED and have_hello:
            lists.examined += 1
            capability = LIST_CHANGED[method]
            if not s.declared(capability, "listChanged"):
                lists.add(FAILURE, s.pointer(index), f"{method} though the server did not declare "
                          f"{capability}.listChanged: true")
        elif method == "notifications/message" and have_hello:
            logs.examined += 1
            if not s.declared("logging"):
                logs.add(FAILURE, s.pointer(index), "a log message notification from a server that did not declare "
                         "the logging capability")
        elif method == "notifications/progress":
            f.examined += 1
            params = message.get("params") if isinstance(message.get("params"), dict) else {}
            key = _id_key(params.get("progressToken"))
            request = tokens.get(key)
            if request is None:
                f.add(FAILURE, s.pointer(index, "/params/progressToken"), f"progress for the token "
                      f"{params.get('progressToken')!r}, which no host request gave")
                continue
            if request.answer is not None and request.answer < index:
                f.add(FAILURE, s.pointer(index), f"progress for the token {params.get('progressToken')!r} after its "
                      f"request was answered (at {s.pointer(request.answer)})")
            progress = params.get("progress")
            if isinstance(progress, (int, float)) and not isinstance(progress, bool):
                if key in last and progress <= last[key]:
                    f.add(FAILURE, s.pointer(index, "/params/progress"), f"progress {progress} does not increase "
                          f"(was {last[key]}): it MUST increase with each notification")
                last[key] = progress
    if not f.examined:
        f.skip("the server sent no progress notification")
    if not lists.examined:
        lists.skip("the server sent no list_changed notification")
    if not logs.examined:
        logs.skip("the server sent no log message notification")


def _cancellation(s: _Session, found: dict) -> None:
    f = found["cancellation-respected"]
    for request in s.host_requests():
        if request.cancelled_at is None:
            continue
        f.examined += 1
        answer = s.answer(request)
        if answer is None or request.answer < request.cancelled_at:
            continue
        if "error" in answer:
            f.add(WARNING, s.pointer(request.answer), f"{request.method} answered with {_answer_words(answer)} after "
                  f"the host cancelled it (at {s.pointer(request.cancelled_at)}): the receiver SHOULD NOT send a "
                  "response for a cancelled request")
        else:
            f.add(INFO, s.pointer(request.answer), f"{request.method} answered with a result after the host's "
                  f"cancellation (at {s.pointer(request.cancelled_at)}): allowed when the answer crossed it")
    if not f.examined:
        f.skip("the host cancelled no request still in flight (mcptest probe cancels one)")


def _ping(s: _Session, wire: Optional[WireTypes], found: dict) -> None:
    f = found["ping-answered"]
    if wire is not None and not wire.has_ping:
        f.skip(f"protocol version {wire.version} has no ping")
        return
    for request in s.host_requests():
        if request.method != "ping":
            continue
        answer = s.answer(request)
        if answer is None:
            continue  # jsonrpc-id-pairing says so
        f.examined += 1
        if "error" in answer:
            f.add(FAILURE, s.pointer(request.answer), f"ping answered with {_answer_words(answer)}")
        elif not isinstance(answer.get("result"), dict) or set(answer["result"]) - {"_meta", "resultType"}:
            f.add(FAILURE, s.pointer(request.answer, "/result"), "ping answered with a result that is not empty")
    if not f.examined:
        f.skip("the host sent no ping that was answered (mcptest probe sends one)")


def _http(s: _Session, found: dict) -> None:
    f = found["http-transport"]
    exchanges = s.meta.get("http")
    if not isinstance(exchanges, list) or not exchanges:
        f.skip("the cassette holds no HTTP exchange: mcptest record keeps the JSON-RPC messages, not the status "
               "codes, content types or headers they came with")
        return
    session_id = None
    for i, exchange in enumerate(exchanges):
        if not isinstance(exchange, dict):
            continue
        where = f"{s.base.rsplit('/', 1)[0]}/meta/http/{i}"
        f.examined += 1
        kind, status = exchange.get("kind"), exchange.get("status")
        ctype = str(exchange.get("content_type") or "").split(";")[0].strip().lower()
        sid = exchange.get("session_id")
        if kind in ("notification", "response"):
            if status != 202:
                f.add(FAILURE, where, f"a POST of a {kind} answered with HTTP {status}; 202 Accepted with no body "
                      "belongs")
            elif exchange.get("body_bytes"):
                f.add(FAILURE, where, f"a POST of a {kind} answered 202 with a body of {exchange['body_bytes']} bytes")
        elif kind == "request" and isinstance(status, int):
            if status == 200 and ctype not in ("application/json", "text/event-stream"):
                f.add(FAILURE, where, f"a POST of a request answered 200 with Content-Type {ctype or 'none'!r}; "
                      "application/json or text/event-stream belongs")
            elif status == 200 and not exchange.get("body_bytes"):
                f.add(FAILURE, where, "a POST of a request answered 200 with an empty body")
            elif status >= 400 and exchange.get("jsonrpc_error"):
                f.add(WARNING, where, f"a JSON-RPC error came with HTTP {status}: a request is answered with a "
                      "JSON-RPC response (application/json or an event stream), an error one included")
            elif status != 200 and status not in (401, 403):  # authorization is its own matter
                f.add(FAILURE, where, f"a POST of a request answered HTTP {status} with no JSON-RPC answer; the "
                      "server MUST answer a request with text/event-stream or application/json")
        if isinstance(sid, str):
            if not sid or any(not 0x21 <= ord(c) <= 0x7E for c in sid):
                f.add(FAILURE, where, "Mcp-Session-Id holds characters outside visible ASCII (0x21 to 0x7E)")
            elif len(sid) < 16:
                f.add(WARNING, where, f"Mcp-Session-Id of {len(sid)} characters: the session id SHOULD be globally "
                      "unique and cryptographically secure")
            session_id = session_id or sid
    if not f.examined:
        f.skip("the cassette's HTTP exchanges are empty")


# --------------------------------------------------------------------------- known failures, skips


def known_ids(entries: Any, what: str) -> dict:
    """A known-failures or skip list (a list of check ids, or a mapping of id to reason) as
    ``{id: reason}``; an id no check has is a :class:`ConformanceError` naming the closest."""
    if isinstance(entries, Mapping):
        pairs = [(str(k), "" if v is None else str(v)) for k, v in entries.items()]
    elif isinstance(entries, (list, tuple)):
        pairs = [(str(k), "") for k in entries]
    else:
        raise ConformanceError(f"{what}: expected a list of check ids or a mapping of check id to reason")
    for check_id, _ in pairs:
        if check_id not in _INFO:
            import difflib

            close = difflib.get_close_matches(check_id, CHECK_IDS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConformanceError(f"{what}: no check has the id {check_id!r}{hint}")
    return dict(pairs)


def judge(result: Conformance, known: Optional[Mapping[str, str]] = None,
          skip: Optional[Mapping[str, str]] = None) -> Conformance:
    """``result`` with the checks of ``skip`` SKIPPED (with their reason) and the failures of
    ``known`` marked known; a known check that ran and did not fail is stale: named in
    ``stale``, it fails the run."""
    known, skip = dict(known or {}), dict(skip or {})
    checks, stale = [], []
    for check in result.checks:
        if check.id in skip:
            check = attrs.evolve(check, status=SKIPPED, findings=(), more=0,
                                 reason=f"skipped: {skip[check.id] or 'listed under skip'}")
        elif check.id in known:
            if check.status == FAILURE:
                check = attrs.evolve(check, known=known[check.id] or "listed as a known failure")
            elif check.status != SKIPPED:
                stale.append(check.id)
        checks.append(check)
    return attrs.evolve(result, checks=tuple(checks), stale=tuple(stale))


@lru_cache(maxsize=None)
def check_table() -> tuple[tuple[str, str, str, str], ...]:
    """(id, what it checks, what it reads, spec link for 2025-11-25) of every check: the docs' table."""
    return tuple((c.id, c.title, c.reads, c.link(DEFAULT_VERSION)) for c in CHECKS)
