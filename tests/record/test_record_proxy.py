"""``mcptest record``: a real SDK ClientSession through the proxy, against real servers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import anyio
import pytest
from forkserver import forked

from pytest_mcptest import __version__
from pytest_mcptest.formats.cassette import load_cassette
from pytest_mcptest.cli import main
from pytest_mcptest.record.drift import catalog_sha256
from pytest_mcptest.redact import KEY_VARIABLE, key_id, placeholder_for

from record_helpers import SHOP_MANIFEST, dump, mock_command, proxy_command, time_command, with_session

REDACT_KEY = "proxy-test-redaction-key"


@pytest.fixture
def manifest(tmp_path):
    path = tmp_path / "shop.yml"
    path.write_text(SHOP_MANIFEST)
    return str(path)


def read(path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


# -- the host sees no difference -------------------------------------------------------------


def test_time_server_answers_through_the_proxy_as_directly(tmp_path):
    """mcp-server-time, a real third-party server: every answer compared with a direct session."""
    out = str(tmp_path / "time.json")

    async def body(session, init):
        tools = await session.list_tools()
        convert = await session.call_tool("convert_time", {"source_timezone": "Europe/Paris", "time": "14:30",
                                                           "target_timezone": "Asia/Tokyo"})
        bad = await session.call_tool("get_current_time", {"timezone": "Nowhere/Land"})
        return [dump(init), dump(tools), dump(convert), dump(bad)]

    direct = with_session(time_command(), body)
    proxied = with_session(proxy_command(out, time_command()), body)
    assert json.dumps(proxied, sort_keys=True) == json.dumps(direct, sort_keys=True)
    assert direct[3]["isError"] is True

    data = read(out)
    server = direct[0]["serverInfo"]["name"]
    assert list(data["catalog"]) == [server]
    assert data["catalog"][server]["tools"] == direct[1]["tools"]
    assert data["meta"]["catalog_sha256"] == catalog_sha256(data["catalog"])
    calls = data["runs"][0]["tool_calls"]
    assert [(c["name"], c["server"], c["error"]) for c in calls] == [
        ("convert_time", server, False), ("get_current_time", server, True)]
    assert calls[0]["args"] == {"source_timezone": "Europe/Paris", "time": "14:30", "target_timezone": "Asia/Tokyo"}
    assert calls[0]["result"]["content"] == direct[2]["content"]
    assert all(isinstance(c["duration_ms"], float) and c["duration_ms"] >= 0 for c in calls)
    cassette = load_cassette(out)
    assert [c.name for c in cassette.runs[0].tool_calls] == ["convert_time", "get_current_time"]


def test_mock_server_everything_forwarded_both_ways(tmp_path, manifest):
    """Paginated tools/list, structuredContent, isError, resources and prompts, as directly."""
    out = str(tmp_path / "shop.json")

    async def body(session, init):
        first = await session.list_tools()
        from mcp import types

        rest = await session.list_tools(params=types.PaginatedRequestParams(cursor=first.next_cursor))
        last = await session.list_tools(params=types.PaginatedRequestParams(cursor=rest.next_cursor))
        structured = await session.call_tool("add", {"a": 2, "b": 3})
        error = await session.call_tool("broken", {})
        resources = await session.list_resources()
        readme = await session.read_resource("file:///readme.txt")
        prompts = await session.list_prompts()
        prompt = await session.get_prompt("summarize", {"topic": "widgets"})
        return [dump(x) for x in (init, first, rest, last, structured, error, resources, readme, prompts, prompt)]

    direct = with_session(mock_command(manifest), body)
    proxied = with_session(proxy_command(out, mock_command(manifest), "--server-name", "shop"), body)
    assert proxied == direct
    assert direct[4]["structuredContent"] == {"sum": 2, "note": "a=2, b=3"}

    data = read(out)
    tools = [t["name"] for t in data["catalog"]["shop"]["tools"]]
    assert tools == ["get_weather", "add", "echo", "broken"]  # all three pages, in order
    calls = data["runs"][0]["tool_calls"]
    assert calls[0]["result"]["structuredContent"] == {"sum": 2, "note": "a=2, b=3"}
    assert (calls[1]["name"], calls[1]["error"], calls[1]["result"]["isError"]) == ("broken", True, True)
    assert data["runs"][0]["meta"]["ended"] == "host closed the session"
    # The run pins its basis: mcptest's version, the server's name and version from its handshake.
    info = direct[0]["serverInfo"]
    assert data["runs"][0]["meta"]["basis"] == {
        "mcptest": __version__, "servers": {"shop": {"name": info["name"], "version": info["version"],
                                                     "protocol_version": direct[0]["protocolVersion"]}}}


def test_two_hundred_calls_some_concurrent_are_all_recorded_in_request_order(tmp_path, manifest):
    out = str(tmp_path / "many.json")
    batches: list[list[int]] = []

    async def body(session, init):
        for i in range(100):
            await session.call_tool("echo", {"text": str(i)})
        for start in range(100, 200, 20):
            batch = list(range(start, start + 20))
            batches.append(batch)
            async with anyio.create_task_group() as tg:
                for i in batch:
                    tg.start_soon(session.call_tool, "echo", {"text": str(i)})
        return None

    with_session(proxy_command(out, mock_command(manifest)), body, timeout=120)
    calls = read(out)["runs"][0]["tool_calls"]
    assert len(calls) == 200
    sent = [int(c["args"]["text"]) for c in calls]
    assert sent[:100] == list(range(100))
    for n, batch in enumerate(batches):  # concurrent calls stay inside their batch's window
        assert sorted(sent[100 + 20 * n: 120 + 20 * n]) == batch
    assert all(c["result"]["content"][0]["text"] == f"you said {c['args']['text']}" for c in calls)


# -- failures --------------------------------------------------------------------------------

CRASHING_SERVER = textwrap.dedent('''\
    import json, os, sys
    for line in sys.stdin:
        msg = json.loads(line)
        if "id" not in msg:
            continue
        if msg["method"] == "initialize":
            result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "fragile", "version": "1"}}
        elif msg["method"] == "tools/list":
            result = {"tools": [{"name": "ok", "inputSchema": {"type": "object"}},
                                {"name": "crash", "inputSchema": {"type": "object"}}]}
        elif msg["params"]["name"] == "crash":
            sys.stderr.write("fragile: segfault, sort of\\n")
            os._exit(3)
        else:
            result = {"content": [{"type": "text", "text": "fine"}]}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\\n")
        sys.stdout.flush()
''')


def test_a_server_that_crashes_mid_session_gives_the_calls_before_and_a_clear_error(tmp_path):
    script = tmp_path / "fragile.py"
    script.write_text(CRASHING_SERVER)
    out = str(tmp_path / "fragile.json")
    errors = []

    async def body(session, init):
        from mcp.shared.exceptions import MCPError

        await session.list_tools()
        await session.call_tool("ok", {"n": 1})
        await session.call_tool("ok", {"n": 2})
        for _ in range(2):  # the crashing call, then one after it
            try:
                await session.call_tool("crash", {})
            except MCPError as exc:
                errors.append(str(exc))
        return None

    with_session(proxy_command(out, [sys.executable, str(script)]), body)
    assert len(errors) == 2
    assert all("` exited" in e for e in errors)  # with its code once its exit is seen
    assert str(script) in errors[0]
    data = read(out)
    calls = data["runs"][0]["tool_calls"]
    assert [(c["name"], c["args"], c.get("unanswered")) for c in calls] == [
        ("ok", {"n": 1}, None), ("ok", {"n": 2}, None), ("crash", {}, True), ("crash", {}, True)]
    assert "result" not in calls[2] and "result" not in calls[3]
    assert data["runs"][0]["meta"]["ended"].startswith("server exited")
    assert load_cassette(out).runs[0].tool_calls[2].name == "crash"
    assert [t["name"] for t in data["catalog"]["fragile"]["tools"]] == ["ok", "crash"]


INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def start_proxy(out, manifest, *extra, env=None):
    proc = subprocess.Popen(proxy_command(out, mock_command(manifest), *extra), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    def ask(message):
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    ask(INIT)
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    return proc, ask


def call(n: int, text: str) -> dict:
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": text}}}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_mid_session_appends_the_calls_answered_so_far(tmp_path, manifest, sig):
    out = str(tmp_path / "c.json")
    with_session(proxy_command(out, mock_command(manifest)), lambda s, i: s.call_tool("echo", {"text": "first"}))
    proc, ask = start_proxy(out, manifest, "--append")
    assert ask(call(1, "second"))["result"]["content"][0]["text"] == "you said second"
    proc.send_signal(sig)
    proc.wait(timeout=30)  # stdin stays open: the signal, not the host, ends the session
    err = proc.stderr.read()
    assert proc.returncode == 0, err
    assert "run 2 recorded, 1 tool call(s); interrupted" in err
    runs = read(out)["runs"]
    assert [[c["args"]["text"] for c in r["tool_calls"]] for r in runs] == [["first"], ["second"]]
    assert runs[1]["meta"]["ended"] == "interrupted"


def test_kill_9_mid_session_leaves_the_old_cassette_as_it_was(tmp_path, manifest):
    out = tmp_path / "c.json"
    with_session(proxy_command(str(out), mock_command(manifest)), lambda s, i: s.call_tool("echo", {"text": "a"}))
    before = out.read_bytes()
    proc, ask = start_proxy(str(out), manifest, "--append")
    ask(call(1, "b"))
    proc.kill()
    proc.communicate(timeout=30)
    assert out.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["c.json", "shop.yml"]


def test_redaction_no_planted_secret_reaches_a_written_byte(tmp_path, manifest):
    out = tmp_path / "secret.json"
    key = "sk-planted-0123456789abcdef"
    env = {**os.environ, "SHOP_API_KEY": key, KEY_VARIABLE: REDACT_KEY}

    async def body(session, init):
        await session.call_tool("echo", {"text": f"my key is {key}"})
        await session.call_tool("echo", {"text": "Authorization: Bearer abcdef123456"})
        await session.call_tool("echo", {"text": "account ACCT-99812"})

    with_session(proxy_command(str(out), mock_command(manifest), "--redact", r"ACCT-\d+"), body, env=env)
    raw = out.read_bytes()
    for secret in (key, "abcdef123456", "ACCT-99812"):
        assert secret.encode() not in raw
    run = read(out)["runs"][0]
    calls = run["tool_calls"]
    hidden = placeholder_for(key, REDACT_KEY.encode())
    # the same secret, in the request and in the answer, is the same placeholder: a replay matches it
    assert calls[0]["args"]["text"] == f"my key is {hidden}"
    assert calls[0]["result"]["content"][0]["text"] == f"you said my key is {hidden}"
    account = placeholder_for("ACCT-99812", REDACT_KEY.encode())
    assert calls[2]["result"]["content"][0]["text"] == f"you said account {account}"
    assert run["meta"]["redaction_key_id"] == key_id(REDACT_KEY.encode())
    assert REDACT_KEY.encode() not in raw


def test_the_working_folder_and_progress_tokens_are_recorded_as_they_were(tmp_path, manifest):
    """PWD counted as a secret (every path under the current folder became <redacted>/...),
    and so did a progressToken, in the request and in its notifications."""
    out = tmp_path / "plain.json"
    folder = tmp_path / "project"
    folder.mkdir()
    env = {**os.environ, "PWD": str(folder), KEY_VARIABLE: REDACT_KEY}

    async def body(session, init):
        async def on_progress(done, total, message):
            pass

        await session.call_tool("echo", {"text": f"saved {folder}/notes.txt"}, progress_callback=on_progress)

    with_session(proxy_command(str(out), mock_command(manifest)), body, env=env)
    run = read(out)["runs"][0]
    assert run["tool_calls"][0]["result"]["content"][0]["text"] == f"you said saved {folder}/notes.txt"
    sent = [m["message"] for m in run["messages"] if m["message"].get("method") == "tools/call"][0]
    assert isinstance(sent["params"]["_meta"]["progressToken"], int)
    assert "<redacted" not in out.read_text() and "redaction_key_id" not in run["meta"]


def test_usage_errors_exit_2_and_start_nothing(tmp_path, manifest, capsys):
    out = tmp_path / "c.json"
    assert main(["record", "--out", str(out)]) == 2
    assert "give the server command after -- (mcptest record" in capsys.readouterr().err
    out.write_text("{}")
    assert main(["record", "--out", str(out), "--", "true"]) == 2
    assert "already exists; pass --append" in capsys.readouterr().err
    assert main(["record", "--out", str(out), "--append", "--", "true"]) == 2
    assert "no recorded run found" in capsys.readouterr().err
    assert main(["record", "--out", str(tmp_path / "n.json"), "--redact", "(", "--", "true"]) == 2
    assert "not a valid regular expression" in capsys.readouterr().err
    assert not (tmp_path / "n.json").exists()


def initialize_only(command: list[str]):
    """Send initialize through the proxy, read its one answer, close: (answer, exit status, stderr)."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdin.write(json.dumps(INIT) + "\n")
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    proc.stdin.close()
    proc.wait(timeout=30)
    return answer, proc.returncode, proc.stderr.read()


def test_a_server_that_cannot_be_started_is_an_error_to_the_host_and_exit_2(tmp_path):
    out = tmp_path / "n.json"
    missing = str(tmp_path / "no-such-server")
    answer, code, err = initialize_only(proxy_command(str(out), [missing]))
    assert answer["id"] == 0 and f"`{missing}` could not be started" in answer["error"]["message"]
    assert code == 2
    assert f"mcptest record: the MCP server `{missing}` could not be started" in err
    assert not out.exists()


def test_http_that_cannot_be_reached_is_an_error_to_the_host_and_exit_2(tmp_path):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/mcp"  # nothing listens once the probe closes
    out = tmp_path / "n.json"
    answer, code, err = initialize_only(proxy_command(str(out), [], "--http", url))
    assert f"`{url}` could not be reached" in answer["error"]["message"]
    assert code == 2 and "could not be reached" in err
    assert not out.exists()


ECHO_SERVER = textwrap.dedent('''\
    import json, sys

    def send(obj):
        sys.stdout.write(json.dumps(obj) + "\\n")
        sys.stdout.flush()

    waiting = {}
    for line in sys.stdin:
        msg = json.loads(line)
        method = msg.get("method")
        if method is None:  # the host answering our roots/list: finish the call that asked
            call_id = waiting.pop(msg["id"])
            send({"jsonrpc": "2.0", "id": call_id, "result": {
                "content": [{"type": "text", "text": json.dumps(msg["result"])}], "x-extra": {"kept": True}}})
        elif "id" not in msg:  # a notification: say what arrived
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "data": {"got": method, "params": msg.get("params")}}})
        elif method == "initialize":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {"protocolVersion": "2025-06-18",
                  "capabilities": {"tools": {}, "logging": {}}, "serverInfo": {"name": "echo", "version": "1"}}})
        elif method == "tools/call":
            token = msg["params"]["_meta"]["progressToken"]
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": 1, "total": 2}})
            waiting["s-1"] = msg["id"]
            send({"jsonrpc": "2.0", "id": "s-1", "method": "roots/list"})
''')


def test_progress_cancellation_and_server_requests_pass_both_ways_unchanged(tmp_path):
    """Raw JSON-RPC on both sides: what arrives is what was sent, field for field."""
    script = tmp_path / "echo_server.py"
    script.write_text(ECHO_SERVER)
    out = str(tmp_path / "echo.json")
    proc = subprocess.Popen(proxy_command(out, [sys.executable, str(script)]), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def send(message):
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    def receive():
        return json.loads(proc.stdout.readline())

    send(INIT)
    assert receive()["result"]["serverInfo"] == {"name": "echo", "version": "1"}
    send({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
          "params": {"name": "roots", "arguments": {"x": 1}, "_meta": {"progressToken": "p-1"}}})
    assert receive() == {"jsonrpc": "2.0", "method": "notifications/progress",
                         "params": {"progressToken": "p-1", "progress": 1, "total": 2}}
    assert receive() == {"jsonrpc": "2.0", "id": "s-1", "method": "roots/list"}  # the server asks the host
    send({"jsonrpc": "2.0", "id": "s-1", "result": {"roots": [{"uri": "file:///work", "name": "work"}]}})
    answer = receive()
    assert answer["id"] == 7 and answer["result"]["x-extra"] == {"kept": True}
    assert json.loads(answer["result"]["content"][0]["text"]) == {"roots": [{"uri": "file:///work", "name": "work"}]}
    cancel = {"requestId": 99, "reason": "user pressed stop"}
    send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})
    assert receive()["params"]["data"] == {"got": "notifications/cancelled", "params": cancel}
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    call = read(out)["runs"][0]["tool_calls"][0]
    assert (call["name"], call["args"], call["server"]) == ("roots", {"x": 1}, "echo")
    assert call["result"]["x-extra"] == {"kept": True}


HTTP_SERVER = textwrap.dedent('''\
    import sys
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("weather-http")

    @app.tool()
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return f"Sunny in {city}"

    app.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
''')


def test_http_proxies_a_streamable_http_server_on_localhost(tmp_path):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    script = tmp_path / "http_server.py"
    script.write_text(HTTP_SERVER)
    server = subprocess.Popen(forked([sys.executable, str(script), str(port)]), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):  # until it listens (at most 30 s on a busy machine)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.1)
        out = str(tmp_path / "http.json")

        async def body(session, init):
            tools = await session.list_tools()
            result = await session.call_tool("get_weather", {"city": "Oslo"})
            return [t.name for t in tools.tools], result.content[0].text

        url = f"http://127.0.0.1:{port}/mcp"
        assert with_session(proxy_command(out, [], "--http", url), body) == (["get_weather"], "Sunny in Oslo")
    finally:
        server.terminate()
        server.wait(timeout=30)
    data = read(out)
    assert list(data["catalog"]) == ["weather-http"]
    call = data["runs"][0]["tool_calls"][0]
    assert (call["name"], call["args"], call["server"], call["error"]) == ("get_weather", {"city": "Oslo"},
                                                                            "weather-http", False)
