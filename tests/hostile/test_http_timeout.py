"""``mcptest record --http`` to an endpoint that accepts the connection and never answers
(issue 33, item 22): the host gets a JSON-RPC error after ``--timeout`` seconds, not a wait
of minutes, and the proxy says so on stderr."""

from __future__ import annotations

import json
import select
import socket
import subprocess
import sys
import threading

from pytest_mcptest.cli import main

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def _silent_endpoint():
    """A loopback socket that accepts every connection and never writes a byte."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list = []

    def accept():
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    return server, held


def test_an_endpoint_that_never_answers_gets_the_host_an_error_in_time(tmp_path):
    server, held = _silent_endpoint()
    url = f"http://127.0.0.1:{server.getsockname()[1]}/mcp"
    out = tmp_path / "c.json"
    proc = subprocess.Popen([sys.executable, "-m", "pytest_mcptest.cli", "record", "--out", str(out), "--http", url,
                             "--timeout", "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 30)  # generous under load; the timeout is 1 s
        assert ready, "no answer to the host"
        answer = json.loads(proc.stdout.readline())
        proc.stdin.close()
        err = proc.stderr.read().decode()
        proc.wait(timeout=30)
    finally:
        proc.kill()
        server.close()
        for conn in held:
            conn.close()
    assert answer["id"] == 0 and answer["error"]["code"] == -32000
    assert f"the MCP server `{url}` gave no answer within 1 s to initialize (mcptest record --timeout SECONDS)" \
        in answer["error"]["message"]
    assert "gave no answer within 1 s to initialize; the host got an error instead" in err
    assert proc.returncode == 2 and not out.exists()  # nothing was answered: nothing to record


def test_timeout_is_a_positive_number_and_goes_with_http(tmp_path, capsys):
    for bad in ("0", "-1", "nan", "inf", "soon"):
        try:
            main(["record", "--out", str(tmp_path / "c.json"), "--http", "http://127.0.0.1:9/mcp", "--timeout", bad])
        except SystemExit as exc:
            assert exc.code == 2
        assert "expected a number of seconds above 0" in capsys.readouterr().err
    assert main(["record", "--out", str(tmp_path / "c.json"), "--timeout", "5", "--", "true"]) == 2
    assert "--timeout goes with --http" in capsys.readouterr().err
