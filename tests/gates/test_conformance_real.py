"""Conformance on sessions of real servers (issue 45, item 5): recordings of mcp-server-time,
mcp-server-git, server-everything (stdio and Streamable HTTP), server-memory and server-filesystem (tests/data/conformance,
README there) give the findings docs/conformance.md explains, and no other; mcp-server-time,
installed with the project's test extras, is also probed live."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_mcptest.cli import main
from pytest_mcptest.gates import conformance as gate
from pytest_mcptest.gates.context import Context

DATA = Path(__file__).resolve().parents[1] / "data" / "conformance"

TS_SDK = ({"error-code-invalid-params"}, {"error-code-unknown-tool", "pagination-cursor"})
PY_SDK = (set(), {"pagination-cursor"})
# cassette -> (failed checks, checks with warnings): each explained in docs/conformance.md
EXPECTED = {
    "time-probe.json": PY_SDK,
    "git-probe.json": PY_SDK,
    "everything-probe.json": TS_SDK,
    "everything-http-probe.json": TS_SDK,  # over Streamable HTTP: http-transport SUCCESS
    "memory-probe.json": TS_SDK,
    "filesystem-probe.json": TS_SDK,
    "everything-ordinary.json": (set(), set()),
    "time-2026-ordinary.json": (set(), set()),
}


def judged(name: str):
    block = gate.for_cassette(str(DATA / name))
    evidence = gate.open(block, Context())
    (session,) = evidence.items
    return gate.judge_session(block, session, Context())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_servers_give_the_documented_findings(name):
    result = judged(name)
    failed, warned = EXPECTED[name]
    assert {c.id for c in result.checks if c.status == "FAILURE"} == failed
    assert {c.id for c in result.checks if c.status == "WARNING"} == warned
    assert result.check("wire-schema-valid").status == "SUCCESS"
    assert result.check("jsonrpc-id-pairing").status == "SUCCESS"


def test_the_rich_session_exercises_the_traffic_checks():
    result = judged("everything-ordinary.json")
    for check in ("capability-client-declared", "list-changed-declared", "logging-declared", "progress-token-live",
                  "structured-content-matches-output-schema", "ping-answered", "tool-output-schema"):
        assert result.check(check).status == "SUCCESS", check
    assert judged("time-2026-ordinary.json").version == "2026-07-28"
    assert judged("everything-http-probe.json").check("http-transport").status == "SUCCESS"
    assert judged("everything-probe.json").check("http-transport").status == "SKIPPED"


def test_the_typescript_sdk_known_failures(capsys):
    known = str(DATA / "typescript-sdk-known-failures.yml")
    for name in ("everything-probe.json", "memory-probe.json", "filesystem-probe.json"):
        assert main(["conformance", str(DATA / name), "--known-failures", known]) == 0
    assert main(["conformance", str(DATA / "time-probe.json"), "--known-failures", known]) == 1
    assert "STALE   error-code-invalid-params" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("mcp-server-time") is None and not Path(sys.executable).with_name(
    "mcp-server-time").exists(), reason="mcp-server-time is not installed")
def test_mcp_server_time_probed_live(tmp_path):
    out = tmp_path / "time.json"
    server = str(Path(sys.executable).with_name("mcp-server-time"))
    probe = subprocess.run([sys.executable, "-m", "pytest_mcptest.cli", "probe", "--out", str(out), "--oversize-kb",
                            "64", "--call", 'get_current_time={"timezone": "UTC"}', "--", server, "--local-timezone",
                            "UTC"], capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr
    result = gate.judge_session(gate.for_cassette(str(out)),
                                gate.open(gate.for_cassette(str(out)), Context()).items[0], Context())
    assert {c.id for c in result.checks if c.status in ("FAILURE", "WARNING")} == {"pagination-cursor"}
    assert result.check("structured-content-matches-output-schema").status == "SUCCESS"
