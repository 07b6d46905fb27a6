"""The wire checks judged by the official mcp SDK's types (engine/wire_types.py): the words and
JSON pointers of a finding, what the SDK's per-version maps gate, how a version older than the
SDK's models is judged, what mcptest adds (null is not absent) and where the SDK's types
differ from the specification's JSON Schema on purpose (docs/conformance.md, "Which types judge")."""

from __future__ import annotations

import json
from pathlib import Path

import mcp.types.version as sdk_versions

from pytest_mcptest.cli import main
from pytest_mcptest.engine.conformance import check_session
from pytest_mcptest.engine.wire_types import sdk_version, wire_types

ROOT = Path(__file__).resolve().parents[2]


def hello(version: str = "2025-11-25", caps: dict | None = None) -> list:
    return [("host", {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": version, "capabilities": {},
                                 "clientInfo": {"name": "h", "version": "1"}}}),
            ("server", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": version,
                                                               "capabilities": caps or {"tools": {}},
                                                               "serverInfo": {"name": "s", "version": "1"}}}),
            ("host", {"jsonrpc": "2.0", "method": "notifications/initialized"})]


def call(result: dict, version: str = "2025-11-25", params: dict | None = None) -> list:
    return hello(version) + [
        ("host", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params or {"name": "t"}}),
        ("server", {"jsonrpc": "2.0", "id": 2, "result": result})]


def judged(messages, version: str = "2025-11-25"):
    result = check_session(messages, {}, wire_types(version), version=version)
    return {c.id: c for c in result.checks}


def first(check) -> tuple[str, str]:
    finding = check.findings[0]
    return finding.pointer, finding.message


def test_the_findings_name_the_member_of_a_union_and_point_into_the_message():
    wire = judged(call({"content": [{"type": "image", "data": 1, "mimeType": "image/png"}]}))["wire-schema-valid"]
    assert wire.status == "FAILURE"
    assert first(wire) == ("/runs/0/messages/4/message/result/content/0/data",
                           "CallToolResult: as ImageContent, input should be a valid string, got 1")
    # a type no content block has: the types allowed, not the first member's complaint
    pointer, words = first(judged(call({"content": [{"type": "video"}]}))["wire-schema-valid"])
    assert pointer.endswith("/result/content/0/type")
    assert words.startswith("CallToolResult: 'video' is none of ") and "'resource_link'" in words
    # a field missing: the object that lacks it, by name
    assert first(judged(call({"content": [{"type": "text"}]}))["wire-schema-valid"]) == (
        "/runs/0/messages/4/message/result/content/0",
        "CallToolResult: as TextContent, required field 'text' is missing")
    # strict: "yes" is no boolean (pydantic's lax mode would read it as True)
    tool = {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "yes"}}
    listed = hello() + [("host", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
                        ("server", {"jsonrpc": "2.0", "id": 2, "result": {"tools": [tool]}})]
    assert first(judged(listed)["wire-schema-valid"]) == (
        "/runs/0/messages/4/message/result/tools/0/annotations/readOnlyHint",
        "ListToolsResult: input should be a valid boolean, got 'yes'")


def test_envelopes():
    messages = hello() + [("host", {"jsonrpc": "2.0", "id": [1], "method": "ping"}),
                          ("server", {"jsonrpc": "1.0", "id": 9, "result": {}})]
    found = judged(messages)
    assert first(found["host-wire-schema-valid"]) == (
        "/runs/0/messages/3/message/id",
        "JSONRPCRequest: input should be a valid integer or a valid string, got an array")
    assert first(found["wire-schema-valid"]) == ("/runs/0/messages/4/message/jsonrpc",
                                                 "JSONRPCResponse: input should be '2.0', got '1.0'")


def test_null_is_not_absent():
    """The SDK's models read null in an optional field as absent; the specification's types
    have no null there, so mcptest fails it (an optional field is left out)."""
    wire = judged(call({"content": [], "isError": None}))["wire-schema-valid"]
    assert wire.status == "FAILURE"
    words = ("CallToolResult: 'isError' is null: an optional field is left out, not null (the SDK reads null as "
             "absent; the specification's type has no null)")
    assert first(wire) == ("/runs/0/messages/4/message/result/isError", words)
    # a field whose type takes null is not one: an error's id of null (JSON-RPC 2.0), an error's data
    messages = hello() + [("host", {"jsonrpc": "2.0", "id": 2, "method": "ping"}),
                          ("server", {"jsonrpc": "2.0", "id": 2, "result": {}}),
                          ("server", {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse",
                                                                              "data": None}})]
    assert judged(messages)["wire-schema-valid"].status == "SUCCESS"


def test_an_error_response_carries_an_id():
    """JSON-RPC 2.0 and the SDK's JSONRPCError want an id (null when unknown); the 2025-11-25
    JSON Schema lets it be left out. The SDK's type decides."""
    messages = hello() + [("server", {"jsonrpc": "2.0", "error": {"code": -32600, "message": "bad"}})]
    assert first(judged(messages)["wire-schema-valid"]) == ("/runs/0/messages/3/message",
                                                            "JSONRPCError: required field 'id' is missing")


def test_the_sdk_maps_gate_methods_by_version():
    assert wire_types("2025-06-18").defines("server", "request", "elicitation/create")
    assert not wire_types("2025-03-26").defines("server", "request", "elicitation/create")
    assert not wire_types("2026-07-28").defines("host", "request", "initialize")
    assert wire_types("2026-07-28").defines("host", "request", "server/discover")
    # a method the version does not define is left to the error-code checks, not failed here
    elicit = {"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create", "params": {"nonsense": 1}}
    assert judged(hello("2025-03-26") + [("server", elicit)], "2025-03-26")["wire-schema-valid"].status == "SUCCESS"
    assert judged(hello("2025-06-18") + [("server", elicit)], "2025-06-18")["wire-schema-valid"].status == "FAILURE"


def test_an_older_version_is_judged_by_the_sdks_2025_11_25_models():
    wire = wire_types("2024-11-05")
    assert wire.era == "2025-11-25"
    assert wire.judged_by == (f"judged by the official mcp SDK's types (mcp {sdk_version()}, latest protocol "
                          f"{sdk_versions.LATEST_PROTOCOL_VERSION}); this 2024-11-05 session by the SDK's 2025-11-25 "
                          "models")
    assert wire_types("2025-11-25").judged_by.endswith("this 2025-11-25 session by its own models")
    # what a later version added is accepted in an older session: audio content came in 2025-03-26
    audio = {"content": [{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}]}
    assert judged(call(audio, "2024-11-05"), "2024-11-05")["wire-schema-valid"].status == "SUCCESS"
    # a capability the version did not have needs no declaration (completions came in 2025-03-26)
    complete = {"jsonrpc": "2.0", "id": 2, "method": "completion/complete",
                "params": {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "b"}}}
    answer = {"jsonrpc": "2.0", "id": 2, "result": {"completion": {"values": []}}}
    for version, status in (("2024-11-05", "SKIPPED"), ("2025-03-26", "FAILURE")):
        found = judged(hello(version) + [("host", complete), ("server", answer)], version)
        assert found["capability-server-declared"].status == status, version


def test_2026_07_28():
    wire = wire_types("2026-07-28")
    assert not wire.has_ping and not wire.output_schema_object()
    assert wire_types("2025-11-25").output_schema_object()
    run = json.loads((ROOT / "tests" / "data" / "conformance" / "time-2026-ordinary.json").read_text())["runs"][0]
    messages = [(m["from"], m["message"]) for m in run["messages"]]
    assert judged(messages, "2026-07-28")["wire-schema-valid"].status == "SUCCESS"
    # every 2026-07-28 request carries the client's capabilities under _meta
    bare = {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {}}
    assert first(judged(messages[:2] + [("host", bare)], "2026-07-28")["host-wire-schema-valid"]) == (
        "/runs/0/messages/2/message/params", "ListToolsRequest: required field '_meta' is missing")


def test_a_task_augmented_result_is_not_judged():
    """The SDK leaves tasks out of its maps: a CreateTaskResult has no model there."""
    task = {"task": {"taskId": "t1", "status": "working", "createdAt": "2025-11-25T00:00:00Z", "ttl": None}}
    params = {"name": "t", "task": {"ttl": 1000}}
    assert judged(call(task, params=params))["wire-schema-valid"].status == "SUCCESS"
    assert judged(call(task))["wire-schema-valid"].status == "FAILURE"  # the same result, no task asked for


def test_a_version_the_sdk_does_not_know():
    assert wire_types("2031-01-01") is None and wire_types(None) is None
    result = check_session(hello("2031-01-01"), {}, None)
    found = {c.id: c for c in result.checks}
    assert found["wire-schema-valid"].status == "SKIPPED"
    assert found["wire-schema-valid"].reason.startswith("the installed mcp SDK has no types of the session's protocol "
                                                        "version '2031-01-01' (mcp ")
    assert "not one the installed mcp SDK knows" in found["lifecycle-initialize"].findings[-1].message


def test_judged_by_is_shown_and_kept(tmp_path, capsys):
    messages = hello() + [("host", {"jsonrpc": "2.0", "id": 2, "method": "ping"}),
                          ("server", {"jsonrpc": "2.0", "id": 2, "result": {}})]
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"mcptest_cassette": 1, "runs": [
        {"tool_calls": [], "meta": {}, "messages": [{"from": s, "message": m} for s, m in messages]}]}))
    assert main(["conformance", str(path)]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("SUCCESS  wire-schema-valid"))
    assert "judged by the official mcp SDK's types (mcp " in line
    assert main(["conformance", str(path), "--json"]) == 0
    checks = {c["id"]: c for c in json.loads(capsys.readouterr().out)["runs"][0]["checks"]}
    assert checks["wire-schema-valid"]["judged_by"] == wire_types("2025-11-25").judged_by
    invalid = checks["error-code-invalid-params"]
    assert invalid["status"] == "SKIPPED" and "judged_by" not in invalid
    assert "judged_by" not in checks["ping-answered"]


def test_nothing_reads_a_schema_folder():
    """The wire types come from the installed SDK: no code or packaging names pytest_mcptest/schema/mcp/."""
    sources = [p for p in (ROOT / "pytest_mcptest").rglob("*.py")] + [ROOT / "pyproject.toml"]
    assert not [str(p) for p in sources if "schema/mcp" in p.read_text(encoding="utf-8")]
