"""Messages in a user's words (issue 33, item 28): a tool-bench spec with no mutation says so
instead of "drop none"; ``mcptest doctor`` treats an empty catalog as bad input (exit 2), as
it does a catalog holding NaN."""

from __future__ import annotations

import shutil
from pathlib import Path

from pytest_mcptest.cli import main

EXAMPLE = Path(__file__).parents[2] / "examples" / "tool-bench"


def test_a_spec_with_no_mutation_says_so(tmp_path, capsys):
    shutil.copy(EXAMPLE / "catalog.json", tmp_path / "catalog.json")
    spec = (EXAMPLE / "spec.yml").read_text()
    (tmp_path / "spec.yml").write_text(spec[:spec.index("mutations:")] + "mutations: []\n")
    assert main(["tool-bench", "run", str(tmp_path / "spec.yml"), "--min-drop", "0.3"]) == 1
    out = capsys.readouterr()
    text = out.out + out.err
    assert "drop none" not in text
    assert "no mutation in the spec: selection accuracy only, no drop to measure" in text
    assert "no mutation ran, so there is no selection drop to hold against min_drop 0.3" in text


def test_doctor_says_an_empty_catalog_holds_nothing_to_judge(tmp_path, capsys):
    (tmp_path / "empty.json").write_text('{"tools": []}')
    (tmp_path / "nan.json").write_text('{"tools": [{"name": "a", "inputSchema": {"maximum": NaN}}]}')
    assert main(["doctor", "--lint-descriptions", "--catalog", str(tmp_path / "empty.json")]) == 2
    assert "empty.json: the catalog holds no tools; there is nothing to judge" in capsys.readouterr().err
    assert main(["doctor", "--lint-descriptions", "--catalog", str(tmp_path / "nan.json")]) == 2


def test_a_tool_quality_item_on_an_empty_catalog_says_the_same(pytester):
    (pytester.path / "c.json").write_text('{"tools": []}')
    pytester.makefile(".mcptest.yml", s="servers:\n  docs: {catalog: c.json}\ntool_quality:\n  - {name: q, server: docs}\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*c.json: the catalog holds no tools; there is nothing to judge*"])


# -- a server that exits at once says so, with its status and its stderr (item 28) ----------------

import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import anyio  # noqa: E402
import pytest  # noqa: E402

EXITS = [sys.executable, "-c", "import sys; sys.stderr.write('cat: /data/x: No such file or directory\\n'); "
                               "sys.exit(3)"]
LEAVES_A_CHILD = ["sh", "-c", "sleep 30 & echo 'sh: 1: node: not found' >&2; exit 127"]
# the same, exiting only once it has read the request: the exchange can end by the timeout alone
LEAVES_A_CHILD_LATE = ["sh", "-c", "sleep 30 & read -r request; echo 'sh: 1: node: not found' >&2; exit 127"]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def test_the_catalog_client_says_the_server_exited_with_its_code_and_stderr():
    from pytest_mcptest.mcp.client import ServerError, list_tools

    with pytest.raises(ServerError) as caught:
        list_tools(EXITS, timeout=60)
    assert caught.value.reason == "the server exited with code 3 before answering initialize and tools/list"
    assert "--- server stderr (tail) ---\ncat: /data/x: No such file or directory" in str(caught.value)
    assert "no complete answer" not in str(caught.value)


def test_a_server_whose_child_keeps_its_output_open_is_said_to_have_exited():
    from pytest_mcptest.mcp.client import ServerError, list_tools

    with pytest.raises(ServerError) as caught:
        # ended by the exit (a request written after it meets a closed pipe), or by the timeout (a
        # request written before it waits for an answer): either way the error says it exited
        list_tools(LEAVES_A_CHILD, timeout=1)  # a shell, no interpreter: it has exited well within 1 s
    assert caught.value.reason.startswith("the server exited with code 127 "), caught.value.reason
    assert "sh: 1: node: not found" in str(caught.value)


def test_a_server_that_exits_after_taking_the_request_is_said_to_have_exited_at_the_timeout():
    """The shell reads the request, then exits; its child keeps its output open,
    so only the timeout ends the exchange (a TimeoutError, which Python counts as an OSError:
    it is still not a start failure)."""
    from pytest_mcptest.mcp.client import ServerError, list_tools

    with pytest.raises(ServerError) as caught:
        list_tools(LEAVES_A_CHILD_LATE, timeout=1)  # a shell, no interpreter: it reads the request at once
    assert caught.value.reason == ("the server exited with code 127 at start-up and gave no complete answer "
                                   "within 1 s (a process it started kept its output open)")
    assert "sh: 1: node: not found" in str(caught.value)


def test_the_live_runners_servers_say_the_same():
    from pytest_mcptest.live.provider import LiveError
    from pytest_mcptest.live.servers import ServerSpec, open_servers

    async def start():
        async with open_servers([ServerSpec("files", tuple(EXITS), timeout=60)]):
            pass

    from pytest_mcptest.mcp.client import innermost

    with pytest.raises(BaseException) as caught:  # in a task group's exception group, as the runner finds it
        anyio.run(start)
    assert isinstance(innermost(caught.value), LiveError)
    text = str(innermost(caught.value))
    assert "server 'files': MCP server" in text and "the server exited with code 3 before answering" in text
    assert "cat: /data/x: No such file or directory" in text


def test_doctor_on_a_suites_server_that_exits_at_once(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.mcptest.yml").write_text(f"servers:\n  files:\n    command: {json.dumps(EXITS)}\n")
    assert main(["doctor", "--config", "s.mcptest.yml", "--server", "files"]) == 2
    err = capsys.readouterr().err
    assert "exited with code 3 before answering initialize and tools/list" in err
    assert "cat: /data/x: No such file or directory" in err


def _recording(path):
    path.write_text(json.dumps({"mcptest_cassette": 1, "runs": [{"tool_calls": [], "messages": [
        {"from": "host", "message": INIT},
        {"from": "server", "message": {"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}}},
        {"from": "host", "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}},
        {"from": "server", "message": {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}}]}]}))


def test_verify_says_the_server_exited_with_its_code_and_stderr(tmp_path, capsys):
    _recording(tmp_path / "c.json")
    assert main(["verify", str(tmp_path / "c.json"), "--timeout", "60", "--", *EXITS]) == 2
    err = capsys.readouterr().err
    assert "` exited with code 3 before answering initialize" in err and "could not be started" not in err
    assert "its stderr ended with:\n    cat: /data/x: No such file or directory" in err


def test_record_tells_the_host_and_the_user_the_servers_exit_code(tmp_path):
    out = tmp_path / "c.json"
    proc = subprocess.Popen([sys.executable, "-m", "pytest_mcptest.cli", "record", "--out", str(out), "--", *EXITS],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # the request goes in before the server is gone or after: either way its answer says how it ended
    proc.stdin.write(json.dumps(INIT).encode() + b"\n")
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    proc.stdin.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 2 and "error" in answer and not out.exists()
    assert "` exited with code 3\n" in err and "cat: /data/x: No such file or directory" in err
