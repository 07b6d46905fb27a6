"""``mcptest verify`` dependable on the first deviation (issue 42, item 4): ``--update`` leaves
the old runs byte for byte, a session that used tasks verifies, a long text that changed is
shown where it changed, an answer too long or with a wrong id is said to be so, and a server
whose stdout breaks the stdio framing fails. Recorded through the real proxy, against
mcp-server-time (a real third-party server) and ``hostile/server_verify.py``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from record_helpers import proxy_command, time_command, with_session
from test_sessions import verify

FAKE = [sys.executable, str(Path(__file__).resolve().parents[1] / "hostile" / "server_verify.py")]
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}}
TIME_IGNORES = ["--ignore", "result.content[*].text.datetime", "--ignore", "result.structuredContent.datetime"]


class Host:
    """A host speaking raw JSON-RPC to ``mcptest record`` (the SDK's client has no ``tasks/*``)."""

    def __init__(self, out: str, server: list[str]):
        self.proc = subprocess.Popen(proxy_command(out, server), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.next_id = 1
        self.ask("initialize", INIT["params"])
        self.tell("notifications/initialized")

    def tell(self, method: str) -> None:
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")

    def ask(self, method: str, params: dict) -> dict:
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.next_id += 1
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0, self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()


def record_fake(tmp_path, *calls: str) -> str:
    out = str(tmp_path / "fake.json")
    host = Host(out, FAKE)
    host.ask("tools/list", {})
    for name in calls:
        host.ask("tools/call", {"name": name, "arguments": {}})
    host.close()
    return out


def record_time(tmp_path) -> str:
    out = str(tmp_path / "time.json")

    async def body(session, init):
        await session.list_tools()
        await session.call_tool("get_current_time", {"timezone": "Europe/Paris"})

    with_session(proxy_command(out, time_command()), body)
    return out


def test_update_appends_a_run_and_leaves_every_old_run_byte_for_byte(tmp_path):
    path = Path(record_time(tmp_path))
    # laid out anew, as an editor or another tool would: the old run is no longer as our writer lays it
    path.write_text(json.dumps(json.loads(path.read_text()), indent=4, ensure_ascii=True) + "\n")
    before = path.read_text()
    old_run = before[before.index("[", before.index('"runs"')) + 1:before.rindex("]")].strip()
    done = verify(str(path), *TIME_IGNORES, "--update", "--", *time_command())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the new answers are run 2" in done.stdout
    after = path.read_text()
    assert old_run in after
    runs = json.loads(after)["runs"]
    assert len(runs) == 2 and runs[1]["meta"]["recorder"] == "mcptest verify --update"


def test_a_session_that_used_tasks_verifies_with_the_new_servers_task_ids(tmp_path):
    out = str(tmp_path / "tasks.json")
    host = Host(out, FAKE)
    handle = host.ask("tools/call", {"name": "slow_sum", "arguments": {"a": 2, "b": 3}, "task": {"ttl": 60000}})
    task_id = handle["result"]["task"]["taskId"]
    assert host.ask("tasks/get", {"taskId": task_id})["result"]["status"] == "completed"
    assert host.ask("tasks/result", {"taskId": task_id})["result"]["content"][0]["text"] == "5"
    host.close()
    done = verify(out, "--timeout", "10", "--", *FAKE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 3 recorded answer(s) match" in done.stdout


def test_a_long_text_that_changed_is_shown_where_it_changed(tmp_path):
    out = record_fake(tmp_path, "story")
    done = verify(out, "--", *FAKE, env={"VERIFY_FAULT": "long-change"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "texts part at character 4322 (recorded 6000 characters, got 6000)" in done.stdout
    recorded = next(line for line in done.stdout.splitlines() if line.strip().startswith("recorded"))
    got = next(line for line in done.stdout.splitlines() if line.strip().startswith("got "))
    assert "story. line 0160 of" in recorded and "story. lXne 0160 of" in got  # the text around the change


def test_an_answer_too_long_to_read_is_said_to_be_so_with_its_size(tmp_path):
    out = record_fake(tmp_path, "big")
    done = verify(out, "--timeout", "20", "--", *FAKE, env={"VERIFY_FAULT": "huge"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "#3 tools/call big {}" in done.stdout
    assert "answered with a line of 80.0 MiB, over the 64 MiB a line may hold (MCPTEST_MAX_LINE_MB)" in done.stdout
    assert "no answer within" not in done.stdout


def test_an_answer_with_a_wrong_id_is_said_to_be_so(tmp_path):
    out = record_fake(tmp_path, "big", "story")
    done = verify(out, "--timeout", "20", "--", *FAKE, env={"VERIFY_FAULT": "wrong-id"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 of 3 recorded answer(s) differ" in done.stdout
    assert "#3 tools/call big {}\n      answered with id 999, not the request's 3" in done.stdout


def test_a_banner_on_stdout_fails_verify_even_when_every_answer_matches(tmp_path):
    out = record_time(tmp_path)
    banner = ["sh", "-c", 'echo "time server 1.0 ready"; exec "$0" "$@"', *time_command()]
    done = verify(out, *TIME_IGNORES, "--", *banner)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "all 2 recorded answer(s) match" in done.stdout and "broke the stdio framing at 1 request(s)" in done.stdout
    assert "#1 initialize" in done.stdout
    assert "stdout: a line that is not JSON-RPC: 'time server 1.0 ready'" in done.stdout


def test_an_answer_that_is_not_utf8_fails_verify_saying_so(tmp_path):
    out = record_fake(tmp_path, "big")
    done = verify(out, "--", *FAKE, env={"VERIFY_FAULT": "bad-utf8"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "stdout: a line that is not UTF-8 (byte 0xff at offset" in done.stdout


def test_a_secret_the_server_tells_verifies_against_its_recorded_placeholder(tmp_path, monkeypatch):
    """The recording holds the secret's placeholder; the new answer holds the secret itself,
    redacted the same way before it is compared (it was a difference, or an --ignore)."""
    monkeypatch.setenv("VERIFY_DB_PASSWORD", "pw-0123-Secret")
    monkeypatch.setenv("MCPTEST_REDACT_KEY", "verify-test-redaction-key")
    out = record_fake(tmp_path, "config")
    assert "pw-0123-Secret" not in Path(out).read_text()
    done = verify(out, "--", *FAKE)
    assert done.returncode == 0, done.stdout + done.stderr
