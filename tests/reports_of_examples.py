"""The reports of ``examples/``, written once per test session by a real pytest run (in a
subprocess, as a user runs it), for the tests of the HTML report, its browser tests and
the JUnit properties to read."""

from __future__ import annotations

import fcntl
import json
import os
import pathlib
import subprocess
import sys

import attrs
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@attrs.frozen
class ExampleReports:
    json_path: pathlib.Path
    html_path: pathlib.Path
    junit_path: pathlib.Path
    output: str

    @property
    def report(self) -> dict:
        return json.loads(self.json_path.read_text(encoding="utf-8"))


def _command(folder: pathlib.Path, *extra: str) -> list[str]:
    """``pytest examples --mcptest-report --mcptest-html --junitxml`` into ``folder``."""
    return [sys.executable, "-m", "pytest", "examples", "-p", "no:cacheprovider", "-q", "--color=no",
            f"--mcptest-report={folder / 'report.json'}", f"--mcptest-html={folder / 'report.html'}",
            f"--junitxml={folder / 'junit.xml'}", *extra]


def _reports(folder: pathlib.Path, code: int, output: str, errors: str) -> ExampleReports:
    if code != 0:
        raise AssertionError(f"pytest examples exited {code}:\n{output}\n{errors}")
    return ExampleReports(folder / "report.json", folder / "report.html", folder / "junit.xml", output)


def run_examples(folder: pathlib.Path, *extra: str) -> ExampleReports:
    """Run the examples into ``folder`` and wait for them."""
    folder.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(_command(folder, *extra), cwd=ROOT, capture_output=True, text=True, timeout=600)
    return _reports(folder, proc.returncode, proc.stdout, proc.stderr)


def _shared(tmp_path_factory) -> pathlib.Path:
    """The folder every worker of this run sees (above each xdist worker's own), or this
    session's own without xdist."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return tmp_path_factory.getbasetemp().parent
    return tmp_path_factory.getbasetemp()


@pytest.fixture(scope="session", autouse=True)
def _examples_started(request, tmp_path_factory):
    """Start the examples' run in the background at a session's first test when some test of
    the session reads their reports: it then runs beside the other tests instead of leaving a
    core idle while a test waits for it. Under xdist the first worker starts it; the run holds
    the lock (its inherited descriptor) until it ends, and :func:`example_reports` waits on it."""
    if not any("example_reports" in getattr(item, "fixturenames", ()) for item in request.session.items):
        yield
        return
    shared = _shared(tmp_path_factory)
    folder = shared / "examples-reports"
    run = None
    with open(shared / "examples-reports.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another worker holds it: started, or reading what was written
            pass
        else:
            if not folder.exists():
                folder.mkdir()
                with open(folder / "stdout.txt", "w") as out, open(folder / "stderr.txt", "w") as err:
                    # sh keeps the lock until pytest has ended and its exit code is written
                    run = subprocess.Popen(["sh", "-c", '"$@"; echo $? > "$0"', str(folder / "exit-code"),
                                            *_command(folder)], cwd=ROOT, stdout=out, stderr=err,
                                           stdin=subprocess.DEVNULL, pass_fds=(lock.fileno(),))
    yield
    if run is not None:
        run.wait()  # a session that needed none of it still lets it end before its own end


@pytest.fixture(scope="session")
def example_reports(tmp_path_factory, _examples_started) -> ExampleReports:
    """Written once per session (under xdist, once for all workers): waits for the run
    :func:`_examples_started` began, or runs the examples now if it did not."""
    shared = _shared(tmp_path_factory)
    folder = shared / "examples-reports"
    with open(shared / "examples-reports.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (folder / "exit-code").is_file():
            return _reports(folder, int((folder / "exit-code").read_text()), (folder / "stdout.txt").read_text(),
                            (folder / "stderr.txt").read_text())
        return run_examples(folder)
