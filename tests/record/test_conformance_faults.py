"""The conformance checks on a server of known faults (issue 45, item 5): the clean
``tests/data/conformance/broken_server.py`` passes every check, and each fault it is started
with fails (or, for a SHOULD, warns) exactly the check it breaks, through a real
``mcptest probe`` session over stdio."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_mcptest.engine.conformance import CHECK_IDS, check_session, session_version
from pytest_mcptest.engine.wire_types import wire_types
from pytest_mcptest.record.probe import probe_session

# wire-schema-valid and error-code-invalid-params are judged by the mcp SDK's types (engine/wire_types.py).

SERVER = Path(__file__).resolve().parents[1] / "data" / "conformance" / "broken_server.py"
CALLS = (("add", {"a": 1, "b": 2}), ("echo", {"text": "hi"}))

# fault -> (the check it breaks, the status it gets: FAILURE for a MUST, WARNING for a SHOULD)
FAULTS = {
    "initialize-error": ("lifecycle-initialize", "FAILURE"),
    "bad-wire": ("wire-schema-valid", "FAILURE"),
    "wrong-id": ("jsonrpc-id-pairing", "FAILURE"),
    "unknown-method-result": ("error-code-unknown-method", "FAILURE"),
    "invalid-params-internal": ("error-code-invalid-params", "FAILURE"),
    "unknown-tool-result": ("error-code-unknown-tool", "WARNING"),
    "answer-notification": ("notification-not-answered", "FAILURE"),
    "undeclared-result": ("capability-server-declared", "FAILURE"),
    "sampling": ("capability-client-declared", "FAILURE"),
    "bogus-cursor-result": ("pagination-cursor", "WARNING"),
    "bad-tool-name": ("tool-name-form", "WARNING"),
    "bad-input-schema": ("tool-input-schema", "FAILURE"),
    "bad-output-schema": ("tool-output-schema", "FAILURE"),
    "wrong-structured": ("structured-content-matches-output-schema", "FAILURE"),
    "list-changed": ("list-changed-declared", "FAILURE"),
    "log-undeclared": ("logging-declared", "FAILURE"),
    "stray-progress": ("progress-token-live", "FAILURE"),
    "answer-cancelled": ("cancellation-respected", "WARNING"),
    "ping-not-empty": ("ping-answered", "FAILURE"),
    "crash-oversized": ("jsonrpc-id-pairing", "FAILURE"),  # the session ends: "server exited with code 3"
}
# Checks no fault of the stdio server can break: the host's side, the HTTP transport (judged below), an INFO.
NOT_A_SERVER_FAULT = {"host-wire-schema-valid", "host-capability-respected", "http-transport", "server-info"}


def probed(fault: str):
    cassette = probe_session([sys.executable, str(SERVER), fault], timeout=2.0, settle=0.2, oversize_kb=4,
                             calls=CALLS if fault != "bad-tool-name" else CALLS[:1], errlog=subprocess.DEVNULL)
    run = cassette.runs[0]
    messages = [(m.sender, m.message) for m in run.messages]
    version = session_version(messages, run.meta)
    return check_session(messages, run.meta, wire_types(version), version=version)


def test_every_server_check_has_a_fault():
    assert set(CHECK_IDS) - NOT_A_SERVER_FAULT == {check for check, _ in FAULTS.values()}
    listed = subprocess.run([sys.executable, str(SERVER), "no-such-fault"], capture_output=True, text=True)
    assert listed.returncode != 0 and all(fault in listed.stderr for fault in FAULTS)


def test_the_clean_server_passes_every_check():
    result = probed("none")
    statuses = {c.id: c.status for c in result.checks}
    assert [c.id for c in result.checks if c.status in ("FAILURE", "WARNING")] == []
    assert statuses["server-info"] == "INFO"
    skipped = {c for c, s in statuses.items() if s == "SKIPPED"}
    # Only what the clean server never does (it sends no request, notification or progress of its own)
    assert skipped == {"capability-client-declared", "list-changed-declared", "logging-declared",
                       "progress-token-live", "http-transport"}, json.dumps(result.to_dict(), indent=1)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_fault_fails_exactly_its_check(fault):
    check, status = FAULTS[fault]
    result = probed(fault)
    bad = {c.id: c.status for c in result.checks if c.status in ("FAILURE", "WARNING")}
    assert bad == {check: status}, json.dumps([c.to_dict() for c in result.checks if c.id in bad], indent=1)
    found = result.check(check)
    assert found.findings and found.findings[0].pointer.startswith("/runs/0/messages/")
    if fault == "crash-oversized":
        assert "never answered: server exited with code 3" in found.findings[0].message
    assert found.spec.startswith("https://modelcontextprotocol.io/specification/2025-11-25/")


class HttpServer:
    """The broken server over Streamable HTTP on 127.0.0.1 (a free port it prints), ended by its id."""

    def __init__(self, fault: str):
        self.proc = subprocess.Popen([sys.executable, str(SERVER), "--http", fault], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.url = f"http://127.0.0.1:{int(self.proc.stdout.readline())}/mcp"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(10)
        self.proc.stdout.close()


def probed_http(fault: str):
    from pytest_mcptest.record.probe import probe_http

    with HttpServer(fault) as server:
        cassette = probe_http(server.url, timeout=5.0, settle=0.1, oversize_kb=4, calls=CALLS,
                              errlog=subprocess.DEVNULL)
    run = cassette.runs[0]
    messages = [(m.sender, m.message) for m in run.messages]
    version = session_version(messages, run.meta)
    return check_session(messages, run.meta, wire_types(version), version=version), run


def test_over_http_the_clean_server_passes_and_each_post_is_kept():
    result, run = probed_http("none")
    assert [c.id for c in result.checks if c.status in ("FAILURE", "WARNING")] == []
    assert result.check("http-transport").status == "SUCCESS"
    exchanges = run.meta["http"]
    assert exchanges[0]["kind"] == "request" and exchanges[0]["status"] == 200 and len(exchanges[0]["session_id"]) == 32
    assert {e["status"] for e in exchanges if e["kind"] == "notification"} == {202}
    assert exchanges[-1] == {"kind": "delete", "status": 200}


def test_over_http_a_notification_answered_200_fails_http_transport():
    result, _ = probed_http("http-notification-200")
    bad = {c.id: c.status for c in result.checks if c.status in ("FAILURE", "WARNING")}
    assert bad == {"http-transport": "FAILURE"}
    assert result.check("http-transport").findings[0].pointer.startswith("/runs/0/meta/http/")
