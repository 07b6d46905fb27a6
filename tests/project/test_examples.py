"""The shipped examples stay green: every suite's items pass (or are the expected failures
and skips they declare) in the session's one run of them, ``mcptest run examples``
(``reports_of_examples.py``), which fails unless the command exits 0."""

from __future__ import annotations

import pathlib

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
SUITES = sorted(EXAMPLES.rglob("*.mcptest.yml"))


def test_there_are_example_suites():
    assert len(SUITES) >= 3


def test_every_example_suite_passes_through_the_command(example_reports):
    items = example_reports.report["items"]
    files = {item["file"] for item in items}
    assert files == {str(suite.relative_to(EXAMPLES.parent)) for suite in SUITES}
    assert {item["outcome"] for item in items} <= {"passed", "xfailed", "skipped"}
