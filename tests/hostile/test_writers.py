"""Every writer of mcptest, against what may stand at its output path and against other
writers at the same time (issue 33, items 1-4, 6, 8 and 11): nothing lost, nothing replaced
that is not a file."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import time

import pytest

from forkserver import forked, through_forkserver
from live_fake import MANIFEST, OPENAI_KEY, FakeProvider, reply
from pytest_mcptest.formats.cassette import Cassette, write_cassette
from pytest_mcptest.engine.trace import Run, ToolCall
from pytest_mcptest.cli import main
from pytest_mcptest.formats.files import atomic_write, locked, output_problem
from pytest_mcptest.record import store
from pytest_mcptest.redact import Redactor

RUN = {"tool_calls": [{"name": "ping"}]}


def _save(path, how=store.APPEND, name="ping"):
    return store.save(str(path), [Run(tool_calls=(ToolCall(name),))], {}, {}, how, Redactor())


# --------------------------------------------------------------------------- 1, 6: what stands at the path


def test_a_fifo_is_written_in_place_never_replaced(tmp_path):
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    atomic_write(str(fifo), '{"a": 1}\n')
    reader.join(10)
    assert got == [b'{"a": 1}\n']
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["out.json"]


def test_a_character_device_is_written_in_place(tmp_path):
    link = tmp_path / "null.json"
    link.symlink_to("/dev/null")
    atomic_write(str(link), "x" * 10)  # through a link too: the device, not a file beside the link
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert os.path.islink(link) and os.readlink(link) == "/dev/null"


def test_dev_full_fails_cleanly_and_stays_a_device(capsys):
    log = os.path.join(os.path.dirname(__file__), "import_log.json")
    assert main(["import", "auto", log, "-o", "/dev/full", "--force"]) == 2
    assert "/dev/full: cannot write: No space left on device" in capsys.readouterr().err
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_symlink_is_followed_and_kept_by_every_writer(tmp_path, pytester):
    target = tmp_path / "real" / "c.json"
    target.parent.mkdir()
    write_cassette(str(target), Cassette(runs=(Run(tool_calls=(ToolCall("ping"),)),)))
    link = tmp_path / "link.json"
    link.symlink_to(target)
    _save(link, name="second")  # record --append through the link
    assert os.path.islink(link)
    assert [r["tool_calls"][0]["name"] for r in json.loads(target.read_text())["runs"]] == ["ping", "second"]
    report = pytester.path / "r.json"
    real_report = pytester.path / "reports" / "r.json"
    real_report.parent.mkdir()
    real_report.write_text("old")
    report.symlink_to(real_report)
    pytester.makefile(".mcptest.yml", s=f"agents:\n  - name: a\n    cassette: {target}\n")
    pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=r.json").assert_outcomes(passed=1)
    assert os.path.islink(report) and json.loads(real_report.read_text())["items"]


def test_a_directory_at_the_path_is_refused(tmp_path):
    with pytest.raises(IsADirectoryError):
        atomic_write(str(tmp_path), "x")


# --------------------------------------------------------------------------- 11: permissions


def test_a_rewrite_keeps_the_mode_and_a_new_file_follows_the_umask(tmp_path):
    path = tmp_path / "c.json"
    write_cassette(str(path), Cassette(runs=(Run(tool_calls=(ToolCall("ping"),)),)))
    os.chmod(path, 0o600)
    _save(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    old = os.umask(0o077)
    try:
        _save(tmp_path / "new.json", how=store.NEW)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == 0o600


# --------------------------------------------------------------------------- 2, 3: concurrent writers

APPENDER = """
import os, sys, time
from pytest_mcptest.engine.trace import Run, ToolCall
from pytest_mcptest.record import store
from pytest_mcptest.redact import Redactor
path, go, me = sys.argv[1:]
while not os.path.exists(go):
    time.sleep(0.001)
for k in range(5):
    store.save(path, [Run(tool_calls=(ToolCall(f"p{me}_{k}"),))], {"s": {"tools": []}}, {}, "append", Redactor())
"""


def test_eight_sessions_appending_at_once_leave_every_run(tmp_path):
    path = tmp_path / "c.json"
    write_cassette(str(path), Cassette(runs=()))
    go = tmp_path / "go"
    procs = [subprocess.Popen(forked([sys.executable, "-c", APPENDER, str(path), str(go), str(i)]))  # 8 processes
             for i in range(8)]
    time.sleep(0.5)  # every process waiting at the start line
    go.touch()
    assert [p.wait(120) for p in procs] == [0] * 8
    names = sorted(r["tool_calls"][0]["name"] for r in json.loads(path.read_text())["runs"])
    assert names == sorted(f"p{i}_{k}" for i in range(8) for k in range(5))
    assert sorted(os.listdir(tmp_path)) == ["c.json", "go"]  # no lock file or temporary left behind


def test_a_second_record_session_on_the_same_out_is_refused_at_its_start(tmp_path):
    out = tmp_path / "c.json"
    with locked(str(out), wait=False):  # a first session, still running (what mcptest record holds)
        done = subprocess.run([sys.executable, "-m", "pytest_mcptest.cli", "record", "--out", str(out), "--",
                               sys.executable, "-c", "pass"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "another mcptest record session is writing it" in done.stderr
    assert not out.exists()


def test_a_cassette_created_meanwhile_is_kept_by_a_first_recording(tmp_path):
    path = tmp_path / "c.json"
    _save(path, how=store.NEW, name="other")  # another test recorded it after this one decided
    _save(path, how=store.FIRST, name="mine")
    assert [r["tool_calls"][0]["name"] for r in json.loads(path.read_text())["runs"]] == ["other", "mine"]


def test_the_lock_is_free_in_the_process_that_holds_it(tmp_path):
    with locked(str(tmp_path / "c.json")):
        with locked(str(tmp_path / "c.json")):
            _save(tmp_path / "c.json", how=store.NEW)
    assert json.loads((tmp_path / "c.json").read_text())["runs"]


# --------------------------------------------------------------------------- 4: pytest -n 2, once

LIVE_TWO = """\
servers:
  shop: {{command: ["mcptest", "mock", "--tools-from", "shop.yml"]}}
agents:
  - name: first
    model: openai:gpt-4o-mini
    prompt: What is the weather in Sacramento?
    servers: [shop]
    cassette: weather.json
  - name: second
    model: openai:gpt-4o-mini
    prompt: What is the weather in Sacramento?
    servers: [shop]
    cassette: weather.json
"""


def test_two_workers_sharing_a_cassette_record_it_once(pytester, monkeypatch):
    def script(seen):
        if not seen.results:
            return reply(seen, calls=(("get_weather", {"city": "Sacramento"}),))
        return reply(seen, text=f"It is {seen.results[-1]}.")

    (pytester.path / "shop.yml").write_text(MANIFEST)
    pytester.makefile(".mcptest.yml", s=LIVE_TWO.format())
    with FakeProvider(script) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url + "/v1")
        result = through_forkserver(pytester).runpytest_subprocess("-p", "no:cacheprovider", "-n", "2",
                                                                   "--mcptest-record-mode=once")
        assert len(fake.requests) == 2  # one run recorded (a tool call, then the answer); the other item replays it
    result.assert_outcomes(passed=2)
    assert len(json.loads((pytester.path / "weather.json").read_text())["runs"]) == 1


# --------------------------------------------------------------------------- 8: checked before starting


def test_a_full_disk_is_said_before_the_session(tmp_path, monkeypatch, capsys):
    real = os.statvfs

    class Full:
        def __init__(self, st):
            self.st = st
            self.f_bavail = self.f_bfree = 0

    monkeypatch.setattr(os, "statvfs", lambda p: Full(real(p)))
    out = tmp_path / "c.json"
    started = tmp_path / "started"
    code = main(["record", "--out", str(out), "--", sys.executable, "-c", f"open({str(started)!r}, 'w')"])
    assert code == 2
    assert f"{out}: cannot be written: no space left on the disk of {tmp_path}; nothing was recorded" \
        in capsys.readouterr().err
    assert not started.exists()
    assert output_problem(str(out)).startswith("cannot be written: no space left")


def test_a_report_path_on_a_full_disk_is_a_usage_error_at_once(pytester, monkeypatch):
    real = os.statvfs

    class Full:
        f_bavail = f_bfree = 0

    monkeypatch.setattr(os, "statvfs", lambda p: Full())
    pytester.makefile(".mcptest.yml", s="agents:\n  - name: a\n    cassette: c.json\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=r.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mcptest-report r.json: cannot be written: no space left on the disk of *"])
    assert real  # the real call is restored by monkeypatch


def test_a_report_that_cannot_be_written_at_the_end_fails_the_session_cleanly(pytester, monkeypatch):
    from pytest_mcptest.report import document as report

    def fail(path, report):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report, "write_report", fail)
    (pytester.path / "c.json").write_text(json.dumps({"mcptest_cassette": 1, "runs": [RUN]}))
    pytester.makefile(".mcptest.yml", s="agents:\n  - name: a\n    cassette: c.json\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=r.json")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stderr.fnmatch_lines(["mcptest: --mcptest-report */r.json: not written: No space left on device"])
    assert "Traceback" not in "\n".join(result.outlines + result.errlines)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_report_html_markdown_and_init_to_a_folder_that_takes_no_file_exit_2_without_a_traceback(tmp_path, capsys):
    """Found by hand in the audit: /proc passes every check (root may write there) and the
    temporary file cannot be made; the commands raised FileNotFoundError."""
    from pytest_mcptest.cli import main

    report = tmp_path / "r.json"
    report.write_text(json.dumps({"mcptest_report": 1, "items": []}))
    cassette = tmp_path / "c.json"
    cassette.write_text(json.dumps({"mcptest_cassette": 1, "runs": [RUN]}))
    assert main(["report", str(report), "--html", "/proc/mcptest-report.html"]) == 2
    assert main(["report", str(report), "--markdown", "/proc/mcptest-report.md"]) == 2
    assert main(["init", str(cassette), "-o", "/proc/mcptest-suite.yml"]) == 2
    err = capsys.readouterr().err
    assert err.count(": cannot write: ") == 3 and "Traceback" not in err
