"""``mcptest serve`` on the first deviation, as a user meets it: a session of the real
mcp-server-time recorded through the proxy, played back to the SDK's ``ClientSession`` (over
stdio and Streamable HTTP) that calls with one argument more, one fewer, a tool and a method
never recorded. Each is answered with a JSON-RPC error naming the closest recorded call, and
the next request is still answered. Then the defects of serve's own edges: the ``--http``
address, a suite given without its scenario, a number too long to read, and hosts that go
away (stdout closed; HTTP sessions ended while a message is under way)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import http.client

import anyio
import pytest

from pytest_mcptest.cli import main

from forkserver import forked
from raw_host import RawHost
from record_helpers import proxy_command, time_command, with_session

TIME = ("get_current_time", {"timezone": "Europe/Paris"})
CONVERT = ("convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"})
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw host", "version": "1"}}}


def serve_command(cassette: str, *extra: str) -> list[str]:
    return forked([sys.executable, "-m", "pytest_mcptest.cli", "serve", cassette, *extra])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> str:
    """Two calls to mcp-server-time, recorded through ``mcptest record``."""
    out = str(tmp_path_factory.mktemp("time") / "time.json")

    async def body(session, init):
        for name, args in (TIME, CONVERT):
            assert not (await session.call_tool(name, args)).is_error

    with_session(proxy_command(out, time_command()), body)
    return out


async def deviations(session) -> list:
    """What a host that strays from the recording gets: (code, message, data) per miss, then
    the text of the recorded call, asked last."""
    from mcp import MCPError, types
    from pydantic import TypeAdapter

    out = []
    asks = [lambda: session.call_tool(TIME[0], {**TIME[1], "verbose": True}),
            lambda: session.call_tool(CONVERT[0], {k: v for k, v in CONVERT[1].items() if k != "target_timezone"}),
            lambda: session.call_tool("convert_tim", {"source_timezone": "UTC"}),
            lambda: session.send_request(types.Request(method="time/now", params=None), TypeAdapter(dict))]
    for ask in asks:
        with anyio.fail_after(20), pytest.raises(MCPError) as miss:
            await ask()
        out.append((miss.value.error.code, miss.value.error.message, miss.value.error.data))
    with anyio.fail_after(20):
        out.append(json.loads((await session.call_tool(*TIME)).content[0].text)["timezone"])
    return out


def check_deviations(answers: list) -> None:
    more, fewer, unknown_tool, unknown_method, recorded_call = answers
    assert more[0] == -32602 and more[1] == (
        'mcptest serve: no recorded tools/call matches get_current_time {"timezone": "Europe/Paris", "verbose": true}; '
        'the closest recorded is tools/call #1, get_current_time {"timezone": "Europe/Paris"}: '
        "argument `verbose` was not recorded")
    assert more[2]["differences"] == [{"path": "arguments.verbose", "got": True}]
    assert fewer[0] == -32602 and fewer[1].endswith(
        "the closest recorded is tools/call #2, convert_time "
        '{"source_timezone": "UTC", "target_timezone": "Asia/Tokyo", "time": "12:00"}: '
        "argument `target_timezone` is missing")
    # by likeness of the name, not the first recorded call
    assert unknown_tool[0] == -32602 and "the closest recorded is tools/call #2, convert_time" in unknown_tool[1]
    assert "the tool's name differs: recorded 'convert_time', got 'convert_tim'" in unknown_tool[1]
    assert "argument `time` is missing" in unknown_tool[1]
    assert unknown_method[0] == -32601 and '"time/now" was never asked in the recorded session' in unknown_method[1]
    assert recorded_call == "Europe/Paris"


def test_a_host_that_strays_over_stdio_gets_an_answer_to_each_request(recorded):
    check_deviations(with_session(serve_command(recorded), lambda session, init: deviations(session)))


def test_over_http_on_port_0_serve_says_its_port_and_answers_each_request(recorded):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    proc = subprocess.Popen(serve_command(recorded, "--http", "127.0.0.1:0"), stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        port = int(line.rsplit(":", 1)[1].split("/")[0])
        assert port != 0 and line == f"mcptest serve: mcp-time on http://127.0.0.1:{port}/mcp\n"

        async def host():
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await deviations(session)

        check_deviations(anyio.run(host))
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.parametrize("address, said", [
    ("127.0.0.1:99999", "port 99999 is out of range: a port is 0 to 65535"),
    ("127.0.0.1:" + "9" * 5000, "is out of range"),
    ("127.0.0.1:٣٣", "expected HOST:PORT"),
])
def test_a_port_out_of_range_is_one_usage_line(recorded, capsys, address, said):
    assert main(["serve", recorded, "--http", address]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1 and err.startswith("mcptest serve: error: --http")


def test_a_host_that_cannot_be_listened_on_is_one_line(recorded):
    done = subprocess.run(serve_command(recorded, "--http", "no.such.host.invalid:8765"), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("mcptest serve: cannot listen on no.such.host.invalid:8765: ")
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_suite_without_its_scenario_says_so_and_lists_them(tmp_path, capsys):
    suite = tmp_path / "shop.mcptest.yml"
    suite.write_text("scenarios:\n  - name: restock\n    cassette: r.json\n    seed: {n: 0}\n"
                     "  - name: sell out\n    cassette: s.json\n    seed: {n: 0}\n", encoding="utf-8")
    assert main(["serve", str(suite)]) == 2
    err = capsys.readouterr().err
    assert err == (f"mcptest serve: error: {suite} is a suite, not a cassette: name the scenario to serve as "
                   f"SUITE::SCENARIO, as in mcptest serve '{suite}::restock' (scenarios: 'restock', 'sell out')\n")
    empty = tmp_path / "tools.mcptest.yml"
    empty.write_text("tool_bench: []\n", encoding="utf-8")
    assert main(["serve", str(empty)]) == 2
    assert "is a suite, not a cassette, and holds no scenario to serve" in capsys.readouterr().err


def test_a_request_with_a_5000_digit_number_is_told_so_and_serve_goes_on(recorded):
    with RawHost(serve_command(recorded)) as host:
        host.send(json.dumps(INIT))
        assert host.answer()["id"] == 0
        host.send('{"jsonrpc": "2.0", "id": ' + "7" * 5000 + ', "method": "tools/list"}')
        long_id = host.answer()
        assert long_id["id"] is None and long_id["error"]["code"] == -32600
        assert long_id["error"]["message"] == ("Invalid Request: the id is a number of 5,000 digits, too long to "
                                               "read (at most 4,300)")
        host.send('{"jsonrpc": "2.0", "id": "big", "method": "tools/call", "params": {"name": "get_current_time", '
                  '"arguments": {"n": ' + "7" * 5000 + "}}}")
        in_params = host.answer()
        assert in_params["id"] == "big"
        assert "the request holds a number of 5,000 digits" in in_params["error"]["message"]
        host.send('{"jsonrpc": "2.0", "id": 3, "method": "ping"}')
        assert host.answer() == {"jsonrpc": "2.0", "id": 3, "result": {}}
        code, err = host.close()
    assert code == 0 and "Traceback" not in err


def test_a_host_that_closes_serves_stdout_ends_it_quietly(recorded):
    """The host stops reading but keeps stdin open: serve cannot answer, so it ends (status 0)
    at its next answer, without a traceback, rather than waiting on stdin for ever."""
    with RawHost(serve_command(recorded)) as host:
        host.proc.stdout.close()
        host.send(json.dumps(INIT))
        host.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        try:
            code = host.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            code = "still running 30 s later"
        host.proc.stdin.close()
        host.proc.wait(30)
        err = host.stderr()
    assert code == 0 and "Traceback" not in err and "Exception ignored" not in err, (code, err)


def test_http_sessions_ended_while_a_message_is_under_way_leave_serve_quiet(recorded):
    """The SDK's own host gives up on a call by posting notifications/cancelled and ending its
    session (DELETE), at once: when the session ends first, the transport fails to hand on the
    message and uvicorn logged a traceback. Thirty times over, and serve still answers."""
    port = free_port()
    proc = subprocess.Popen(serve_command(recorded, "--http", f"127.0.0.1:{port}"), stderr=subprocess.PIPE)
    try:
        assert "on http://" in proc.stderr.readline().decode()
        statuses = abort_sessions(port, 30)
        assert statuses <= {200, 202, 404}
        headers = session_headers(port)
        assert post(port, {"jsonrpc": "2.0", "id": 9, "method": "ping"}, headers)[0] == 200
    finally:
        proc.terminate()
        err = proc.communicate(timeout=30)[1].decode()
    assert "Traceback" not in err and "Exception in ASGI application" not in err, err[-3000:]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def post(port: int, body, headers: dict, method: str = "POST") -> tuple:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, "/mcp", json.dumps(body) if body is not None else None, headers)
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("mcp-session-id")
    finally:
        connection.close()


def session_headers(port: int) -> dict:
    _, session = post(port, INIT, HEADERS)
    headers = {**HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"}
    post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
    return headers


def abort_sessions(port: int, rounds: int) -> set:
    statuses: set = set()
    for _ in range(rounds):
        headers = session_headers(port)
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
        both = [threading.Thread(target=lambda: statuses.add(post(port, cancel, headers)[0])),
                threading.Thread(target=lambda: statuses.add(post(port, None, headers, "DELETE")[0]))]
        for thread in both:
            thread.start()
        for thread in both:
            thread.join()
    return statuses


def test_serve_started_with_stdin_closed_ends_at_once(recorded):
    """No stdin at all is the end of the session, as EOF is (it once left serve waiting on a
    stream that never ended)."""
    closed = ["sh", "-c", 'exec "$@" <&-', "sh", sys.executable, "-m", "pytest_mcptest.cli", "serve", recorded]
    done = subprocess.run(closed, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "" and "Traceback" not in done.stderr, done.stderr
