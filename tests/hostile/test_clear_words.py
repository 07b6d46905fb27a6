"""Messages in a user's words (issue 33, item 28): a tool-bench spec with no mutation says so
instead of "drop none"; ``mcptest doctor`` treats an empty catalog as bad input (exit 2), as
it does a catalog holding NaN."""

from __future__ import annotations

import shutil
from pathlib import Path

from pytest_mcptest.cli import main

EXAMPLE = Path(__file__).parents[2] / "examples" / "tool-bench"


def test_a_spec_with_no_mutation_says_so(tmp_path, capsys):
    shutil.copy(EXAMPLE / "catalog.json", tmp_path / "catalog.json")
    spec = (EXAMPLE / "spec.yml").read_text()
    (tmp_path / "spec.yml").write_text(spec[:spec.index("mutations:")] + "mutations: []\n")
    assert main(["tool-bench", "run", str(tmp_path / "spec.yml"), "--min-drop", "0.3"]) == 1
    out = capsys.readouterr()
    text = out.out + out.err
    assert "drop none" not in text
    assert "no mutation in the spec: selection accuracy only, no drop to measure" in text
    assert "no mutation ran, so there is no selection drop to hold against min_drop 0.3" in text


def test_doctor_says_an_empty_catalog_holds_nothing_to_judge(tmp_path, capsys):
    (tmp_path / "empty.json").write_text('{"tools": []}')
    (tmp_path / "nan.json").write_text('{"tools": [{"name": "a", "inputSchema": {"maximum": NaN}}]}')
    assert main(["doctor", "--lint-descriptions", "--catalog", str(tmp_path / "empty.json")]) == 2
    assert "empty.json: the catalog holds no tools; there is nothing to judge" in capsys.readouterr().err
    assert main(["doctor", "--lint-descriptions", "--catalog", str(tmp_path / "nan.json")]) == 2


def test_a_tool_quality_item_on_an_empty_catalog_says_the_same(pytester):
    (pytester.path / "c.json").write_text('{"tools": []}')
    pytester.makefile(".mcptest.yml", s="servers:\n  docs: {catalog: c.json}\ntool_quality:\n  - {name: q, server: docs}\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*c.json: the catalog holds no tools; there is nothing to judge*"])
