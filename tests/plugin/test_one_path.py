"""One path to every verdict: each ``mcptest`` command that judges something builds the
same block and calls the same evaluate() and render as the pytest item, so the same input
gives the same words and the same pass/fail on every face.

The only difference allowed is where a line points (the suite's line for an item, the
catalog or spec file for a command), so locations are cut before comparing.
"""

from __future__ import annotations

import json
import re

import pytest

from pytest_mcptest.cli import main
from catalog_data import BENCH as SPEC

# Mean score about 0.55 and no Critical finding: fails the default gates of tool_quality
# (mean >= 0.70) although nothing is Critical, which is where doctor and the item used
# to disagree.
MEDIOCRE = {"tools": [
    {"name": "get_data", "description": "Gets the data you might want to use.",
     "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
    {"name": "do_thing", "description": "Does a thing with stuff for the user.",
     "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}},
]}

BENCH = SPEC + "min_drop: 0.9\n"  # the tool-bench spec of the command tests, failing its min_drop

_WHERE = re.compile(r"\s*\([^()\s]*:\d+\)$")


def _failure_text(output: str, kind: str) -> list[str]:
    """The failure text of the one failed block of ``kind`` in ``output``, from its head
    line to the end of the block, with every ``(file:line)`` cut and the head's own
    location dropped."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if f": {kind} failed:" in line)
    body = [lines[start].split(": ", 1)[1]]
    for line in lines[start + 1:]:
        if line.startswith(("____", "====", "FAILED ")) or line.startswith("[gw"):
            break
        body.append(_WHERE.sub("", line))
    while body and not body[-1].strip():
        body.pop()
    return body


def _item(pytester, suite: str, kind: str) -> tuple[list[str], dict]:
    pytester.makefile(".mcptest.yml", s=suite)
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    [entry] = [i for i in report["items"] if i["kind"] == kind]
    text = _failure_text(result.stdout.str(), kind) if entry["outcome"] == "failed" else []
    return text, entry


def _command(capsys, argv: list[str], kind: str) -> tuple[int, list[str], dict]:
    code = main(argv)
    text = capsys.readouterr().out
    assert main(argv + ["--json"]) == code
    [entry] = json.loads(capsys.readouterr().out)["items"]
    return code, _failure_text(text, kind) if code == 1 else [], entry


def _same_verdict(item: dict, command: dict) -> None:
    assert item["outcome"] == command["outcome"]
    assert item["envelope"] == command["envelope"]
    assert [(f["gate"], f["message"]) for f in item["failures"]] == \
           [(f["gate"], f["message"]) for f in command["failures"]]


# An empty catalog is bad input for both (tests/hostile/test_clear_words.py).
@pytest.mark.parametrize("catalog, code", [(MEDIOCRE, 1)])
def test_doctor_and_the_tool_quality_item_agree(pytester, capsys, monkeypatch, catalog, code):
    monkeypatch.chdir(pytester.path)
    (pytester.path / "c.json").write_text(json.dumps(catalog))
    text, entry = _item(pytester, "servers:\n  docs: {catalog: c.json}\ntool_quality:\n  - {name: q, server: docs}\n",
                        "tool_quality")
    got, words, command = _command(capsys, ["doctor", "--lint-descriptions", "--catalog", "c.json"], "tool_quality")
    _same_verdict(entry, command)
    assert got == (1 if entry["outcome"] == "failed" else 0)
    if code == 1:
        assert entry["outcome"] == "failed" and entry["envelope"]["critical_count"] == 0
        assert words == text and "mean_score" in "\n".join(words)


def test_tool_bench_run_and_the_tool_bench_item_agree(pytester, capsys, monkeypatch):
    monkeypatch.chdir(pytester.path)
    (pytester.path / "b.yml").write_text(BENCH)
    entry_yaml = "tool_bench:\n  - name: bench\n" + "".join(f"    {line}\n" for line in BENCH.splitlines())
    text, entry = _item(pytester, entry_yaml, "tool_bench")
    code, words, command = _command(capsys, ["tool-bench", "run", "b.yml"], "tool_bench")
    _same_verdict(entry, command)
    assert code == 1 and entry["outcome"] == "failed"
    assert words == text and any("min_drop: the largest selection drop 0.5 is below min_drop 0.9" in w for w in words)
    # --min-drop replaces the spec's own and is judged the same way
    assert main(["tool-bench", "run", "b.yml", "--min-drop", "0.3"]) == 0


def test_scenario_run_and_the_scenario_item_agree(pytester, capsys, monkeypatch):
    from suites import BAD_RUN, WIDGET_SUITE

    monkeypatch.chdir(pytester.path)
    (pytester.path / "cassettes").mkdir()
    (pytester.path / "cassettes" / "restock.json").write_text(BAD_RUN)
    text, entry = _item(pytester, WIDGET_SUITE, "scenario")
    assert main(["scenario", "run", "s.mcptest.yml"]) == 1
    words = _failure_text(capsys.readouterr().out, "scenario")
    assert entry["outcome"] == "failed" and words == text
    assert any("destructive bulk delete is never allowed" in w for w in words)


@pytest.mark.parametrize("argv", [["tool-bench", "run", "b.yml", "--min-drop", "nan"],
                                  ["tool-bench", "run", "b.yml", "--min-drop", "-1"],
                                  ["tool-bench", "run", "b.yml", "--min-drop", "x"]])
def test_min_drop_must_be_a_fraction(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "b.yml").write_text(BENCH)
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and "expected a number from 0 to 1" in capsys.readouterr().err
