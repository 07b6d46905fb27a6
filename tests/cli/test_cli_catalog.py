"""mcptest doctor --lint-descriptions and mcptest tool-bench run."""

from __future__ import annotations

import json

from pytest_mcptest.cli import main
from catalog_data import BAD_TOOL, BENCH, GOOD_TOOL



def test_doctor_lists_findings_tool_by_tool(tmp_path, capsys):
    (tmp_path / "c.json").write_text(json.dumps({"tools": [GOOD_TOOL, BAD_TOOL]}))
    assert main(["doctor", "--lint-descriptions", "--catalog", str(tmp_path / "c.json")]) == 1  # a Critical
    out = capsys.readouterr().out
    assert "get_weather  score" in out and "DESC-000 Pass" in out
    assert "DESC-001 Critical" in out and "SCH-003  Critical" in out
    assert any(line.startswith("2 tools: min score") for line in out.splitlines())
    assert "tool_quality failed: 3 expect" in out  # then the item's own failure text
    (tmp_path / "good.json").write_text(json.dumps({"tools": [GOOD_TOOL]}))
    assert main(["doctor", "--lint-descriptions", "--catalog", str(tmp_path / "good.json"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["items"][0]["kind"] == "tool_quality" and report["items"][0]["envelope"]["critical_count"] == 0


def test_doctor_reads_a_server_of_a_suite(tmp_path, capsys):
    (tmp_path / "c.json").write_text(json.dumps({"tools": [GOOD_TOOL]}))
    (tmp_path / "s.mcptest.yml").write_text("servers:\n  docs: {catalog: c.json}\n")
    assert main(["doctor", "--lint-descriptions", "--server", "docs", "--config", str(tmp_path / "s.mcptest.yml")]) == 0
    assert main(["doctor", "--lint-descriptions", "--server", "nope", "--config", str(tmp_path / "s.mcptest.yml")]) == 2
    assert "no server named 'nope'" in capsys.readouterr().err
    assert main(["doctor", "--lint-descriptions"]) == 2


def test_tool_bench_run_and_min_drop(tmp_path, capsys):
    (tmp_path / "b.yml").write_text(BENCH)
    assert main(["tool-bench", "run", str(tmp_path / "b.yml"), "--min-drop", "0.3"]) == 0
    out = capsys.readouterr().out
    assert "selection accuracy 2/2" in out and "lookup_a blank: drop 0.5" in out and "PASS" in out
    assert main(["tool-bench", "run", str(tmp_path / "b.yml"), "--min-drop", "0.9", "--json"]) == 1
    item = json.loads(capsys.readouterr().out)["items"][0]
    assert item["outcome"] == "failed" and item["envelope"]["max_drop"] == 0.5
    (tmp_path / "bad.yml").write_text(BENCH.replace("kind: blank", "kind: scramble"))
    assert main(["tool-bench", "run", str(tmp_path / "bad.yml")]) == 2
    err = capsys.readouterr().err
    assert "mutations[0].kind" in err and "scramble" in err


def test_mcptest_mock_is_the_mock_server(tmp_path, capsys):
    assert main(["mock", "--tools-from", str(tmp_path / "missing.yml")]) == 2
    assert "missing.yml: cannot read the file" in capsys.readouterr().err
