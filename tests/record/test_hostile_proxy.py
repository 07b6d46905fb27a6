"""Hostile sessions through ``mcptest record`` and ``mcptest mock`` (issue 33, items 5, 17, 19,
21 and 22): a bad request or a bad answer costs one message, never the session, and every
host request gets an answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from record_helpers import SHOP_MANIFEST, mock_command, proxy_command

ODD = [sys.executable, str(Path(__file__).resolve().parents[1] / "hostile" / "server_line_mode.py")]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def call(n: int, name, args=None) -> dict:
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": name, "arguments": args or {}}}


def session(command: list[str], messages: list, env=None) -> tuple[list, str, int]:
    """Send ``messages`` one line each, read one answer per request; (answers, stderr, exit)."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)
    answers = []
    for message in messages:
        line = message if isinstance(message, str) else json.dumps(message)
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()
        if isinstance(message, str) or "id" in message:
            answers.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    return answers, err, proc.returncode


def test_item5_a_malformed_tools_call_keeps_the_good_calls_and_flags_the_bad_one(tmp_path):
    manifest = tmp_path / "shop.yml"
    manifest.write_text(SHOP_MANIFEST)
    out = tmp_path / "c.json"
    answers, err, code = session(proxy_command(str(out), mock_command(str(manifest))), [
        INIT, call(1, "echo", {"text": "a"}), call(2, 5), call(3, "echo", {"text": "b"})])
    assert code == 0, err
    assert answers[1]["result"]["content"][0]["text"] == "you said a" and "error" in answers[2]
    run = json.loads(out.read_text())["runs"][0]
    assert [c["args"] for c in run["tool_calls"]] == [{"text": "a"}, {"text": "b"}]
    flagged = [m for m in run["messages"] if "malformed" in m]
    assert len(flagged) == 1 and flagged[0]["message"]["params"]["name"] == 5


def test_item17_a_server_line_that_is_not_json_is_one_line_of_ours_and_no_traceback(tmp_path):
    out = tmp_path / "c.json"
    answers, err, code = session(proxy_command(str(out), ODD), [INIT, call(1, "echo")])
    assert code == 0 and answers[1]["result"]["content"][0]["text"] == "echo {}"
    assert "the server sent a line that is not JSON-RPC, not forwarded: starting up... (not JSON)" in err
    assert "Traceback" not in err


def test_item19_a_malformed_tools_list_page_costs_only_that_page(tmp_path):
    out = tmp_path / "c.json"
    answers, err, code = session(proxy_command(str(out), ODD), [
        INIT, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, call(2, "echo", {"n": 1}), call(3, "echo")])
    assert code == 0, err
    assert answers[1]["result"] == {"tools": 5}  # passed on as it was
    assert [a["result"]["content"][0]["text"] for a in answers[2:]] == ["echo {'n': 1}", "echo {}"]
    data = json.loads(out.read_text())
    assert len(data["runs"][0]["tool_calls"]) == 2 and data["catalog"] == {"odd": {"tools": []}}


def test_item21_a_line_over_the_cap_stops_the_server_with_a_clear_error(tmp_path):
    out = tmp_path / "c.json"
    env = {**os.environ, "MCPTEST_MAX_LINE_MB": "1"}
    answers, err, code = session(proxy_command(str(out), ODD), [INIT, call(1, "echo"), call(2, "huge"), call(3, "echo")],
                                 env=env)
    assert "sent a line longer than 1 MiB (MCPTEST_MAX_LINE_MB), not passed on" in answers[2]["error"]["message"]
    assert "error" in answers[3]
    assert code == 1 and "Traceback" not in err
    run = json.loads(out.read_text())["runs"][0]
    assert [(c["name"], c.get("unanswered")) for c in run["tool_calls"]] == [("echo", None), ("huge", True),
                                                                             ("echo", True)]


def test_item21_a_large_line_under_the_cap_is_passed_on_whole(tmp_path):
    out = tmp_path / "c.json"
    answers, err, code = session(proxy_command(str(out), ODD), [INIT, call(1, "huge")])
    assert code == 0 and len(answers[1]["result"]["content"][0]["text"]) == 3 << 20


def test_item22_mock_answers_a_line_that_is_not_json_and_a_request_with_a_bad_id(tmp_path):
    manifest = tmp_path / "shop.yml"
    manifest.write_text(SHOP_MANIFEST)
    answers, err, code = session(mock_command(str(manifest)), [
        "not json", {"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}, INIT])
    assert [a.get("error", {}).get("code") for a in answers] == [-32700, -32600, None]
    assert answers[0]["id"] is None and answers[2]["result"]["serverInfo"]["name"] == "shop"
