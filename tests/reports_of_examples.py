"""The reports of ``examples/``, written once per test session by a real pytest run (in a
subprocess, as a user runs it), for the tests of the HTML report, its browser tests and
the JUnit properties to read."""

from __future__ import annotations

import json
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


def run_examples(folder: pathlib.Path, *extra: str) -> ExampleReports:
    """``pytest examples --mcptest-report --mcptest-html --junitxml`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {name: folder / name for name in ("report.json", "report.html", "junit.xml")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "examples", "-p", "no:cacheprovider", "-q", "--color=no",
         f"--mcptest-report={paths['report.json']}", f"--mcptest-html={paths['report.html']}",
         f"--junitxml={paths['junit.xml']}", *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise AssertionError(f"pytest examples exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return ExampleReports(paths["report.json"], paths["report.html"], paths["junit.xml"], proc.stdout)


@pytest.fixture(scope="session")
def example_reports(tmp_path_factory) -> ExampleReports:
    return run_examples(tmp_path_factory.mktemp("examples-reports"))
