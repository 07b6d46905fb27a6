"""Conformance from recordings (issue 45): the checks on sessions written by hand (the host's
side, HTTP exchanges, what no server fault shows), known failures that cannot go stale,
``mcptest conformance`` (its output and exit statuses) and the ``conformance:`` suite block."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from forkserver import forked
from pytest_mcptest.cli import main
from pytest_mcptest.engine.conformance import (CHECK_IDS, ConformanceError, check_session, judge, known_ids,
                                               session_version)
from pytest_mcptest.engine.wire_types import wire_types

TESTS = Path(__file__).resolve().parents[1]
DATA = TESTS / "data" / "conformance"
SERVER = DATA / "broken_server.py"
pytest_plugins = ["pytester"]

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "h", "version": "1"}}}


def hello(caps: dict, version: str = "2025-11-25") -> list:
    return [("host", INIT),
            ("server", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": version, "capabilities": caps,
                                                               "serverInfo": {"name": "s", "version": "1"}}}),
            ("host", {"jsonrpc": "2.0", "method": "notifications/initialized"})]


def checks(messages, meta=None, version="2025-11-25"):
    result = check_session(messages, meta or {}, wire_types(version), version=version)
    return {c.id: c for c in result.checks}, result


def cassette(tmp_path, messages, meta=None, name="c.json") -> str:
    runs = [{"tool_calls": [], "meta": meta or {},
             "messages": [{"from": sender, "message": message} for sender, message in messages]}]
    path = tmp_path / name
    path.write_text(json.dumps({"mcptest_cassette": 1, "runs": runs}))
    return str(path)


# --------------------------------------------------------------------------- the engine


def test_every_check_has_a_stable_id_and_a_spec_link():
    from pytest_mcptest.engine.conformance import CHECKS

    assert len(set(CHECK_IDS)) == len(CHECK_IDS)
    for check in CHECKS:
        assert check.link("2025-06-18").startswith("https://modelcontextprotocol.io/specification/2025-06-18/")
        assert check.link("2026-07-28").startswith("https://modelcontextprotocol.io/specification/2026-07-28/")
        assert check.link("1999-01-01").startswith("https://modelcontextprotocol.io/specification/2025-11-25/")


def test_host_requests_of_an_undeclared_capability_fail_the_host_not_the_server():
    messages = hello({"tools": {}}) + [
        ("host", {"jsonrpc": "2.0", "id": 2, "method": "resources/list"}),
        ("server", {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Method not found"}}),
    ]
    found, _ = checks(messages)
    assert found["host-capability-respected"].status == "FAILURE"
    assert found["host-capability-respected"].findings[0].pointer == "/runs/0/messages/3/message"
    assert found["capability-server-declared"].status == "SUCCESS"
    # the probe's deliberate request is left out of the host's checks
    found, _ = checks(messages, {"probe": {"deliberate": [{"index": 3, "what": "undeclared-capability"}]}})
    assert found["host-capability-respected"].status == "SUCCESS"


def test_a_host_message_against_the_schema():
    messages = hello({"tools": {}}) + [
        ("host", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": 5}}),
        ("server", {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "bad name"}}),
    ]
    found, _ = checks(messages)
    assert found["host-wire-schema-valid"].status == "FAILURE"
    assert found["host-wire-schema-valid"].findings[0].pointer == "/runs/0/messages/3/message/params/name"
    assert found["wire-schema-valid"].status == "SUCCESS"
    assert found["error-code-invalid-params"].status == "SUCCESS"


def test_without_a_schema_the_wire_checks_are_skipped_and_the_rest_still_run():
    messages = hello({"tools": {}}, version="2031-01-01") + [
        ("host", {"jsonrpc": "2.0", "id": 2, "method": "ping"}),
        ("server", {"jsonrpc": "2.0", "id": 2, "result": {"pong": 1}}),
    ]
    result = check_session(messages, {}, None)
    found = {c.id: c for c in result.checks}
    assert result.version == "2031-01-01"
    assert found["wire-schema-valid"].status == "SKIPPED"
    assert found["lifecycle-initialize"].status == "WARNING"  # a version mcptest has no schema of
    assert found["ping-answered"].status == "FAILURE"


def test_ids_paired():
    messages = hello({"tools": {}}) + [
        ("host", {"jsonrpc": "2.0", "id": 2, "method": "ping"}),
        ("server", {"jsonrpc": "2.0", "id": 2, "result": {}}),
        ("server", {"jsonrpc": "2.0", "id": 2, "result": {}}),
        ("server", {"jsonrpc": "2.0", "id": "2", "result": {}}),
        ("host", {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    ]
    found, _ = checks(messages)
    words = [f.message for f in found["jsonrpc-id-pairing"].findings]
    assert any("answers no request" in w for w in words)  # "2" is not 2
    assert any("second answer" in w for w in words)
    assert any("tools/list not answered" in w for w in words)
    # a server that exited leaves its unanswered requests a failure, not a warning
    found, _ = checks(messages[:-4] + messages[-1:], {"ended": "server exited with code 1"})
    assert [f.status for f in found["jsonrpc-id-pairing"].findings] == ["FAILURE", "FAILURE"]  # ping, tools/list


def test_progress_tokens_tied_to_live_requests():
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "slow", "arguments": {}, "_meta": {"progressToken": "t1"}}}
    done = {"jsonrpc": "2.0", "id": 2, "result": {"content": []}}

    def progress(value, token="t1"):
        return ("server", {"jsonrpc": "2.0", "method": "notifications/progress",
                           "params": {"progressToken": token, "progress": value}})

    found, _ = checks(hello({"tools": {}}) + [("host", call), progress(1), progress(2), ("server", done)])
    assert found["progress-token-live"].status == "SUCCESS"
    found, _ = checks(hello({"tools": {}}) + [("host", call), progress(2), progress(2), ("server", done), progress(3)])
    words = " | ".join(f.message for f in found["progress-token-live"].findings)
    assert "does not increase" in words and "after its request was answered" in words


def test_http_exchanges_when_the_cassette_holds_them():
    exchanges = [
        {"kind": "request", "status": 200, "content_type": "application/json", "body_bytes": 120,
         "session_id": "3f2a9c1e7b5d4f60a8e2c9b1d7f3e5a0"},
        {"kind": "notification", "status": 200, "content_type": "application/json", "body_bytes": 0},
        {"kind": "request", "status": 200, "content_type": "text/html", "body_bytes": 10},
        {"kind": "request", "status": 200, "content_type": "application/json", "body_bytes": 10, "session_id": "1"},
        {"kind": "request", "status": 400, "content_type": "application/json", "body_bytes": 80, "jsonrpc_error": True},
        {"kind": "request", "status": 202, "content_type": "", "body_bytes": 0},
        {"kind": "delete", "status": 405},
    ]
    found, _ = checks(hello({"tools": {}}), {"http": exchanges})
    http = found["http-transport"]
    assert http.status == "FAILURE"
    assert [f.pointer for f in http.findings] == [f"/runs/0/meta/http/{i}" for i in (1, 2, 3, 4, 5)]
    assert [f.status for f in http.findings] == ["FAILURE", "FAILURE", "WARNING", "WARNING", "FAILURE"]
    found, _ = checks(hello({"tools": {}}))
    assert found["http-transport"].status == "SKIPPED"
    assert "mcptest record keeps the JSON-RPC messages" in found["http-transport"].reason


def test_known_failures_cannot_go_stale():
    messages = hello({"tools": {}}) + [("host", {"jsonrpc": "2.0", "id": 2, "method": "ping"}),
                                       ("server", {"jsonrpc": "2.0", "id": 2, "result": {"pong": 1}})]
    _, result = checks(messages)
    assert [c.id for c in result.failed] == ["ping-answered"] and not result.passed
    known = judge(result, {"ping-answered": "issue 12"})
    assert known.passed and known.check("ping-answered").known == "issue 12"
    stale = judge(result, {"ping-answered": "", "lifecycle-initialize": ""})
    assert stale.stale == ("lifecycle-initialize",) and not stale.passed  # it ran and passed
    skipped = judge(result, {"progress-token-live": ""})  # it did not run: not stale, not failed
    assert skipped.stale == () and not skipped.passed
    out = judge(result, skip={"ping-answered": "pings are odd here"})
    assert out.passed and out.check("ping-answered").reason == "skipped: pings are odd here"
    with pytest.raises(ConformanceError, match="did you mean 'ping-answered'"):
        known_ids(["ping-answerd"], "known")


# --------------------------------------------------------------------------- the command


def run_cli(*argv) -> tuple[int, str, str]:
    """``mcptest ARGV`` as its own process (exit status, stdout, stderr), started through the
    fork server (tests/forkserver.py): a process of its own without an interpreter start each."""
    proc = subprocess.run(forked([sys.executable, "-m", "pytest_mcptest.cli", *argv]), capture_output=True, text=True,
                          timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def test_cli_exit_statuses_and_json(tmp_path):
    good = cassette(tmp_path, hello({"tools": {}}) + [("host", {"jsonrpc": "2.0", "id": 2, "method": "ping"}),
                                                       ("server", {"jsonrpc": "2.0", "id": 2, "result": {}})])
    bad = cassette(tmp_path, hello({"tools": {}}) + [("host", {"jsonrpc": "2.0", "id": 2, "method": "ping"}),
                                                      ("server", {"jsonrpc": "2.0", "id": 2, "result": {"x": 1}})],
                   name="bad.json")
    code, out, _ = run_cli("conformance", good)
    assert code == 0 and "SUCCESS  ping-answered" in out
    code, out, _ = run_cli("conformance", bad)
    assert code == 1 and "FAILURE ping-answered" in out and "basic/utilities/ping" in out
    code, out, _ = run_cli("conformance", bad, "--json")
    document = json.loads(out)
    assert code == 1 and document["passed"] is False
    (check,) = [c for c in document["runs"][0]["checks"] if c["id"] == "ping-answered"]
    assert check["status"] == "FAILURE" and check["findings"][0]["pointer"] == "/runs/0/messages/4/message/result"
    known = tmp_path / "known.yml"
    known.write_text("known_failures:\n  ping-answered: the pong is on purpose\n")
    assert run_cli("conformance", bad, "--known-failures", str(known))[0] == 0
    code, out, _ = run_cli("conformance", good, "--known-failures", str(known))
    assert code == 1 and "STALE   ping-answered" in out and "no longer fails" in out
    known.write_text("- ping-answerd\n")
    code, _, err = run_cli("conformance", good, "--known-failures", str(known))
    assert code == 2 and "did you mean 'ping-answered'" in err
    assert run_cli("conformance", str(tmp_path / "missing.json"))[0] == 2
    assert run_cli("conformance", good, "--run", "2")[0] == 2
    assert run_cli("conformance", good, "--skip", "no-such-check")[0] == 2
    code, out, _ = run_cli("conformance", bad, "--skip", "ping-answered=odd")
    assert code == 0 and "skipped: odd" in out


def test_cli_refuses_a_cassette_without_messages(tmp_path, capsys):
    path = tmp_path / "imported.json"
    path.write_text(json.dumps({"runs": [{"tool_calls": [{"name": "x"}]}]}))
    assert main(["conformance", str(path)]) == 2
    assert "no run holds the session's messages" in capsys.readouterr().err


def test_list_checks(capsys):
    assert main(["conformance", "x.json", "--list-checks"]) == 0
    out = capsys.readouterr().out
    assert all(check in out for check in CHECK_IDS)


def test_probe_writes_a_cassette_every_command_reads(tmp_path):
    out = tmp_path / "probe.json"
    code, _, err = run_cli("probe", "--out", str(out), "--oversize-kb", "2", "--timeout", "3", "--call",
                           'add={"a": 1, "b": 2}', "--", sys.executable, str(SERVER))
    assert code == 0, err
    data = json.loads(out.read_text())
    run = data["runs"][0]
    assert run["meta"]["recorder"] == "mcptest probe" and run["meta"]["probe"]["deliberate"]
    assert data["catalog"]["broken"]["tools"][0]["name"] == "add"
    code, text, _ = run_cli("conformance", str(out))
    assert code == 0, text
    assert run_cli("probe", "--out", str(out), "--", sys.executable, str(SERVER))[0] == 2  # exists: --force
    code, _, err = run_cli("probe", "--out", str(tmp_path / "x.json"), "--", str(tmp_path / "no-such-server"))
    assert code == 2 and "could not be started" in err and not (tmp_path / "x.json").exists()


# --------------------------------------------------------------------------- the suite block


SUITE = """
servers:
  broken: {command: [PYTHON, SERVER, ping-not-empty], timeout: 3}
conformance:
  - name: recorded clean
    cassette: clean.json
  - name: recorded with a bad ping
    cassette: bad.json
  - name: bad ping known
    cassette: bad.json
    known_failures: [ping-answered]
  - name: bad ping skipped
    cassette: bad.json
    skip: {ping-answered: the pong is on purpose}
  - name: stale
    cassette: clean.json
    known_failures: known.yml
  - name: probed live
    server: broken
    known_failures: {ping-answered: the broken server's fault}
    expect:
      - known_failures: {contains: ping-answered}
      - counts.FAILURE: {"==": 1}
"""


def test_suite_block(pytester, tmp_path):
    clean = hello({"tools": {}}) + [("host", {"jsonrpc": "2.0", "id": 2, "method": "ping"}),
                                    ("server", {"jsonrpc": "2.0", "id": 2, "result": {}})]
    bad = clean[:-1] + [("server", {"jsonrpc": "2.0", "id": 2, "result": {"pong": True}})]
    cassette(pytester.path, clean, name="clean.json")
    cassette(pytester.path, bad, name="bad.json")
    (pytester.path / "known.yml").write_text("[ping-answered]\n")
    text = SUITE.replace("PYTHON", json.dumps(sys.executable)).replace("SERVER", json.dumps(str(SERVER)))
    pytester.makefile(".mcptest.yml", conf=text)
    report = pytester.path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--mcptest-report={report}")
    result.assert_outcomes(passed=4, failed=2)
    out = result.stdout.str()
    assert "conf.mcptest.yml:6: conformance failed: 1 ping-answered (cassette bad.json, 1 session(s))" in out
    assert "conformance failed: 1 stale-known-failure (cassette clean.json" in out
    assert "FAILURE ping-answered: ping answered with an empty result" in out
    assert "ping answered with a result that is not empty" in out and "at /runs/0/messages/4/message/result" in out
    assert "spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping" in out
    assert "STALE   ping-answered: listed in known.yml as a known failure" in out
    items = {i["name"]: i for i in json.loads(report.read_text())["items"]}
    checks_ = {c["id"]: c for c in items["recorded with a bad ping"]["envelope"]["checks"]}
    assert checks_["ping-answered"]["status"] == "FAILURE"
    assert items["bad ping known"]["envelope"]["known_failures"] == ["ping-answered"]
    assert items["probed live"]["outcome"] == "passed"


def test_suite_block_errors_at_their_line(pytester):
    pytester.makefile(".mcptest.yml", conf="""
conformance:
  - name: typo
    cassette: c.json
    known_failures: [ping-answerd]
""")
    result = pytester.runpytest("-p", "no:cacheprovider")
    out = result.stdout.str()
    assert "conf.mcptest.yml:4: conformance[0].known_failures[0] must be one of" in out
    assert "did you mean 'ping-answered'" in out


def test_any_session_is_judged_without_an_exception():
    """Sessions of real servers, bent at random (values of other types, keys dropped), are
    judged: a malformed message is a finding, never a traceback (seeded, deterministic)."""
    import copy
    import random

    rng = random.Random(45)
    values = [None, 1, -1, 1.5, "x", "", [], {}, [1], {"a": 1}, True, {"type": "object"}, {"type": 5}]

    def bend(node, depth=0):
        if isinstance(node, dict) and node:
            key = rng.choice(sorted(node))
            if rng.random() < 0.4 or depth > 6:
                node[key] = copy.deepcopy(rng.choice(values))
            elif rng.random() < 0.1:
                del node[key]
            else:
                bend(node[key], depth + 1)
        elif isinstance(node, list) and node:
            i = rng.randrange(len(node))
            if rng.random() < 0.4 or depth > 6:
                node[i] = copy.deepcopy(rng.choice(values))
            else:
                bend(node[i], depth + 1)

    for name in ("everything-ordinary.json", "time-2026-ordinary.json"):
        run = json.loads((DATA / name).read_text())["runs"][0]
        base = [(m["from"], m["message"]) for m in run["messages"]]
        for _ in range(60):
            messages, meta = copy.deepcopy(base), copy.deepcopy(run["meta"])
            for _ in range(rng.randint(1, 4)):
                bend(rng.choice(messages)[1])
            if rng.random() < 0.2:
                bend(meta)
            version = session_version(messages, meta)
            json.dumps(check_session(messages, meta, wire_types(version), version=version).to_dict())
