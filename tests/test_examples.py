"""The shipped examples stay green, through pytest and through the CLI alike."""

from __future__ import annotations

import pathlib

import pytest

from pytest_mcptest.cli import main

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
SUITES = sorted(EXAMPLES.rglob("*.mcptest.yml"))


def test_there_are_example_suites():
    assert len(SUITES) >= 3


def test_examples_pass_under_pytest(example_reports):
    """``pytest examples`` (the session's run of them, which fails unless pytest exits 0)."""
    assert example_reports.report["items"]
    outcomes = {i["outcome"] for i in example_reports.report["items"]}
    assert outcomes <= {"passed", "xfailed", "skipped"}


@pytest.mark.parametrize("suite", SUITES, ids=lambda p: p.name)
def test_examples_pass_under_the_cli(suite, capsys):
    assert main(["run", str(suite)]) == 0, capsys.readouterr().out
