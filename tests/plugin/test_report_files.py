"""The report files a session writes at its end (``report_files.py``): each asked-for file is
written from the same report, and one that cannot be written fails the session in one line."""

from __future__ import annotations

import json

SUITE = "scenarios:\n  - name: w\n    transitions: [{tool: ping}]\n"


def test_every_report_file_asked_for_is_written(pytester):
    pytester.makefile(".mcptest.yml", s=SUITE)
    pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report", "r.json", "--mcptest-markdown", "r.md")
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert [item["id"] for item in report["items"]] == ["s.mcptest.yml::w"]
    assert "1 item: 1 failed" in (pytester.path / "r.md").read_text(encoding="utf-8")


def test_a_report_that_cannot_be_written_at_the_end_fails_the_session_in_one_line(pytester):
    pytester.makefile(".mcptest.yml", s=SUITE)
    (pytester.path / "out").mkdir()
    pytester.makeconftest("import shutil\n\ndef pytest_collection_finish(session):\n"
                          "    shutil.rmtree('out')  # by the time the report is written, a file stands there\n"
                          "    open('out', 'w').close()\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report", "out/r.json")
    assert result.ret == 2
    result.stderr.fnmatch_lines(["mcptest: --mcptest-report */out/r.json: not written: *"])
    assert "Traceback" not in result.stderr.str()
