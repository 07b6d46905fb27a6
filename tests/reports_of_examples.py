"""The one run of ``examples/`` a test session makes: ``mcptest run examples`` (in a
process of its own, as a user runs it, started through the tests' fork server; the command
is pytest with the plugin, and its report is the very bytes of ``pytest examples``', which
``test_report_merge.py`` holds it to). Its exit status says every example passes through the
command; its reports are read by the tests of the examples, of the docs' commands on them,
of the HTML report, its browser tests and the JUnit properties, none of which runs the
examples again for what this run shows."""

from __future__ import annotations

import fcntl
import json
import os
import pathlib
import subprocess
import sys

import attrs
import pytest
from forkserver import forked

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


def run_examples(folder: pathlib.Path, *extra: str) -> ExampleReports:
    """``mcptest run examples --mcptest-report --mcptest-html --junitxml`` into ``folder``
    (quiet: the command passes ``-q`` to pytest itself)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {name: folder / name for name in ("report.json", "report.html", "junit.xml")}
    proc = subprocess.run(
        forked([sys.executable, "-m", "pytest_mcptest.cli", "run", "examples", "-p", "no:cacheprovider", "--color=no",
                f"--mcptest-report={paths['report.json']}", f"--mcptest-html={paths['report.html']}",
                f"--junitxml={paths['junit.xml']}", *extra]),
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise AssertionError(f"mcptest run examples exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return ExampleReports(paths["report.json"], paths["report.html"], paths["junit.xml"], proc.stdout)


def once_per_session(tmp_path_factory, name: str, run) -> ExampleReports:
    """``run(folder)`` once per test session: under xdist, once for all workers (the first to
    need it runs it, the others wait on a lock and read the same files)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return run(tmp_path_factory.mktemp(name))
    shared = tmp_path_factory.getbasetemp().parent  # the run's folder, above each worker's own
    folder = shared / name
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (folder / "output.txt").is_file():
            reports = ExampleReports(folder / "report.json", folder / "report.html", folder / "junit.xml",
                                     (folder / "output.txt").read_text(encoding="utf-8"))
        else:
            reports = run(folder)
            (folder / "output.txt").write_text(reports.output, encoding="utf-8")  # last: the files are whole
    return reports


@pytest.fixture(scope="session")
def example_reports(tmp_path_factory) -> ExampleReports:
    """The session's one run of ``examples/`` (:func:`run_examples`)."""
    return once_per_session(tmp_path_factory, "examples-reports", run_examples)


def run_docs_examples(folder: pathlib.Path) -> ExampleReports:
    """``pytest docs/examples --mcptest-report``: every complete suite of the README and the
    docs, beside the files it names. Some are shown failing, so 1 (a gate failed) is an exit
    status it may have; anything else (a bad suite, a crash) is not."""
    folder.mkdir(parents=True, exist_ok=True)
    report = folder / "report.json"
    # As from the user's activated environment: the suites start servers by their command
    # (mcptest mock, mcp-server-time), found on PATH beside this Python.
    env = dict(os.environ, PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    proc = subprocess.run(
        forked([sys.executable, "-m", "pytest", "docs/examples", "-p", "no:cacheprovider", "-q", "--color=no",
                f"--mcptest-report={report}"]), cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode not in (0, 1) or not report.is_file():
        raise AssertionError(f"pytest docs/examples exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return ExampleReports(report, folder / "report.html", folder / "junit.xml", proc.stdout)


@pytest.fixture(scope="session")
def docs_example_reports(tmp_path_factory) -> ExampleReports:
    """The session's one run of ``docs/examples/`` (:func:`run_docs_examples`)."""
    return once_per_session(tmp_path_factory, "docs-examples-reports", run_docs_examples)
