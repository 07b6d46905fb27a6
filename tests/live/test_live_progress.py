"""Progress you can watch: a live recording says episodes done of the total, the campaign's
spend against its budget and the time left, through pytest's terminal reporter: plain lines in
a log (no terminal), one line rewritten in place in a terminal (tqdm's meter)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from forkserver import forked
from live_fake import MANIFEST, FakeProvider, forked_mock, live_env, tool_then_answer  # noqa: F401 - fixtures

from pytest_mcptest.live.progress import Progress

SUITE = forked_mock("""\
servers:
  shop: {command: ["mcptest", "mock", "--tools-from", "shop.yml"]}
models:
  openai: {max_tokens: 64}
agents:
  - name: one
    model: openai:gpt-4o-mini
    prompt: What is the weather?
    servers: [shop]
    runs: 2
    cassette: one.json
  - name: two
    model: openai:gpt-4o-mini
    prompt: What is the weather there?
    servers: [shop]
    runs: 3
    cassette: two.json
""")


def _command(tmp_path) -> list:
    return forked([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--mcptest-record-mode=once",
                   "--mcptest-live-concurrency=1", f"--mcptest-shared-limits=sqlite:///{tmp_path / 'l.db'}",
                   "--mcptest-budget-usd=1"])


def _folder(tmp_path) -> None:
    (tmp_path / "shop.yml").write_text(MANIFEST)
    (tmp_path / "s.mcptest.yml").write_text(SUITE)


def test_a_log_gets_plain_lines_of_episodes_spend_and_time_left(tmp_path, live_env):  # noqa: F811
    _folder(tmp_path)
    with FakeProvider(tool_then_answer("get_weather", {"city": "Paris"})) as fake:
        live_env(fake)
        out = subprocess.run(_command(tmp_path), cwd=tmp_path, capture_output=True, text=True, timeout=300).stdout
    lines = [line for line in out.splitlines() if line.startswith("mcptest recording: ")]
    assert [line.split(" episodes")[0] for line in lines] == [f"mcptest recording: {n}/5" for n in
                                                              (1, 2, 3, 4, 5, 5)], out
    assert "about " in lines[0] and " left" in lines[0] and "spent $0.0000 of $1.0000" not in lines[-1]
    assert lines[-1].startswith("mcptest recording: 5/5 episodes (100%)") and " of $1.0000" in lines[-1]
    assert "2 passed" in out
    # Replayed, nothing is recorded and no progress is shown.
    again = subprocess.run(_command(tmp_path), cwd=tmp_path, capture_output=True, text=True, timeout=300).stdout
    assert "mcptest recording" not in again and "2 passed" in again


def test_a_terminal_gets_one_line_rewritten_in_place(tmp_path, live_env):  # noqa: F811
    _folder(tmp_path)
    with FakeProvider(tool_then_answer("get_weather", {"city": "Paris"})) as fake:
        live_env(fake)
        leader, follower = pty.openpty()
        proc = subprocess.Popen(_command(tmp_path), cwd=tmp_path, stdin=follower, stdout=follower, stderr=follower,
                                env={**os.environ, "COLUMNS": "120"})
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the process closed its end
                break
            if not data:
                break
            chunks.append(data)
        proc.wait(timeout=300)
        os.close(leader)
    screen = b"".join(chunks).decode(errors="replace")
    assert "\rmcptest recording:  20%|" in screen and "| 1/5 [" in screen and "episode" in screen, screen
    assert "\rmcptest recording:  60%|" in screen and "| 3/5 [" in screen
    assert "2 passed" in screen


def test_the_total_follows_what_items_really_record_and_the_plain_lines_are_spaced():
    seen, now = [], [0.0]
    progress = Progress(20, lambda line, final: seen.append(line), live=False, spend=lambda: "$0.0100 of $1.0000",
                        now=lambda: now[0])
    for _ in range(3):
        now[0] += 4
        progress.tick()
    # 20 planned: a line at the first episode and at each tenth (every second episode) only.
    assert seen == ["mcptest recording: 1/20 episodes (5%), 00:04 elapsed, about 01:16 left, spent $0.0100 of $1.0000",
                    "mcptest recording: 2/20 episodes (10%), 00:08 elapsed, about 01:12 left, spent $0.0100 of $1.0000"]
    progress.item_over(8)  # an item planned for 8 recorded 3 (the budget stopped it): 15 in all
    assert progress.total == 15
    now[0] += 40
    progress.tick()  # 30 s since the last line: shown though no tenth was passed
    assert seen[-1] == ("mcptest recording: 4/15 episodes (26%), 00:52 elapsed, about 02:23 left, "
                        "5 not recorded, spent $0.0100 of $1.0000")
    progress.item_over(15)  # the next item recorded 1 of its 15 (the tick above): the budget was spent
    progress.show(final=True)
    assert progress.total == 4 and seen[-1].startswith("mcptest recording: 4/4 episodes (100%)")
    assert seen[-1].endswith(", 19 not recorded, spent $0.0100 of $1.0000")
    live = Progress(10, lambda line, final: seen.append(line), live=True, now=lambda: now[0])
    now[0] += 10
    live.tick(4)
    assert seen[-1].startswith("mcptest recording:  40%|") and "4/10 [00:10<00:15" in seen[-1]


def test_under_xdist_the_controller_shows_the_workers_progress_item_by_item(tmp_path, live_env):  # noqa: F811
    _folder(tmp_path)
    with FakeProvider(tool_then_answer("get_weather", {"city": "Paris"})) as fake:
        live_env(fake)
        out = subprocess.run([*_command(tmp_path), "-n", "2"], cwd=tmp_path, capture_output=True, text=True,
                             timeout=300).stdout
    lines = [line.split(" episodes")[0] for line in out.splitlines() if line.startswith("mcptest recording: ")]
    # One line as each item ends (the items of 2 and 3 episodes, in either order), and the last.
    assert lines[0] in ("mcptest recording: 2/5", "mcptest recording: 3/5"), out
    assert lines[1:] == ["mcptest recording: 5/5"] * 2 and "2 passed" in out
