"""A recording campaign killed at any point (``kill -9`` included) and started again records only
what is missing: each finished run is in the item's journal, the cassette is written whole when
every run is there, and the reservations the dead process held are counted as spent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from forkserver import forked
from live_fake import MANIFEST, FakeProvider, forked_mock, live_env, tool_then_answer  # noqa: F401 - fixtures
from redis_server import redis_url  # noqa: F401 - a fixture

from pytest_mcptest.engine.trace import Run, ToolCall
from pytest_mcptest.live.campaign import Campaign
from pytest_mcptest.live.journal import Journal

RUNS = 6

SUITE = forked_mock(f"""\
servers:
  shop: {{command: ["mcptest", "mock", "--tools-from", "shop.yml"]}}
models:
  openai: {{max_tokens: 64}}
agents:
  - name: weather
    model: openai:gpt-4o-mini
    prompt: What is the weather?
    servers: [shop]
    runs: {RUNS}
    cassette: w.json
""")


class Counted:
    """The fake's script, counting every request it answers and the tokens it bills."""

    def __init__(self, delay: float):
        self.script = tool_then_answer("get_weather", {"city": "Sacramento"}, delay=delay)
        self.lock = threading.Lock()
        self.tokens = 0

    def __call__(self, seen):
        answer = self.script(seen)
        with self.lock:
            self.tokens += answer.body["usage"]["total_tokens"]
        return answer


def _journal_runs(path) -> int:
    try:
        return max(0, len(path.read_bytes().split(b"\n")[:-1]) - 1)
    except FileNotFoundError:
        return 0


@pytest.mark.parametrize("store", ["sqlite", "redis"])
def test_a_campaign_killed_mid_way_records_only_what_is_missing_and_counts_what_was_in_flight(store, tmp_path,
                                                                                              live_env, request):  # noqa: F811
    (tmp_path / "shop.yml").write_text(MANIFEST)
    (tmp_path / "s.mcptest.yml").write_text(SUITE)
    url = f"sqlite:///{tmp_path / 'ledger.db'}" if store == "sqlite" else request.getfixturevalue("redis_url")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--mcptest-record-mode=once",
               "--mcptest-live-concurrency=2", f"--mcptest-shared-limits={url}", "--mcptest-budget-tokens=1000000"]
    journal, cassette = tmp_path / "w.json.journal", tmp_path / "w.json"
    counted = Counted(delay=0.3)
    with FakeProvider(counted) as fake:
        live_env(fake)
        proc = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        deadline = time.monotonic() + 120
        while not (_journal_runs(journal) >= 2 and fake.in_flight >= 1):  # two runs done, more in flight
            assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read().decode()
            time.sleep(0.005)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        time.sleep(0.5)  # the requests in flight are answered to nobody
        kept, before = _journal_runs(journal), len(fake.requests)
        assert 2 <= kept < RUNS and not cassette.exists()
        left = Campaign(url).store  # opening the ledger takes back what the dead process held
        assert left.totals().reserved_tokens == 0 and left.totals().reclaimed >= 1
        # Started again: a process that is not killed needs no fresh interpreter (the fork server's)
        again = subprocess.run(forked(command), cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert "1 passed" in again.stdout, again.stdout + again.stderr
    # The second process ran exactly the runs the journal lacked: two requests each.
    assert len(fake.requests) - before == 2 * (RUNS - kept)
    from pytest_mcptest.formats.cassette import load_cassette

    written = load_cassette(str(cassette))
    assert len(written.runs) == RUNS and not journal.exists()
    assert written.meta["duration_s"] > 0  # what --mcptest-shard balances by
    ledger = Campaign(url).store.totals()
    # Every request the fake answered is in the ledger: settled at its real use or, held by the
    # dead process, at its worst case (never less than what it used).
    assert ledger.reserved_tokens == 0
    assert ledger.spent_tokens >= counted.tokens
    assert ledger.requests + ledger.reclaimed >= len(fake.requests)


def _run(i: int) -> Run:
    return Run(tool_calls=(ToolCall(name="get_weather", args={"city": f"c{i}"}, result={"content": []}),),
               turns=({"role": "user", "content": "hi"},), meta={"i": i})


def test_the_journal_keeps_whole_lines_only_and_belongs_to_one_task(tmp_path):
    path = str(tmp_path / "w.json.journal")
    journal = Journal(path, ("task", 3))
    journal.append(0, _run(0), {"shop": {"tools": []}})
    journal.append(2, _run(2), None)
    with open(path, "ab") as f:  # killed in the middle of writing the next line
        f.write(b'{"index": 1, "run": {"tool_ca')
    kept = journal.load()
    assert sorted(kept) == [0, 2] and kept[0][1] == {"shop": {"tools": []}}
    assert kept[2][0].tool_calls[0].args == {"city": "c2"}
    journal.append(1, _run(1), None)  # the torn line is cut off first
    assert sorted(journal.load()) == [0, 1, 2]
    assert Journal(path, ("another task", 3)).load() == {}
    Journal(path, ("another task", 3)).append(0, _run(9), None)  # a new task starts the file again
    assert Journal(path, ("task", 3)).load() == {}
    journal.remove()
    assert not os.path.exists(path)
