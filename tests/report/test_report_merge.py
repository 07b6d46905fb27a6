"""`mcptest report merge`: three shards of examples/ (one under -n 2) merge into the very bytes
of one unsharded run; overlapping and conflicting shards are refused."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from forkserver import forked

from pytest_mcptest.cli import main
from pytest_mcptest.report.merge import MergeError, merge_reports
from reports_of_examples import ROOT


def _pytest(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(forked([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--color=no", *args]),
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def _inline(pytester, *args: str) -> tuple[int, str]:
    """The same run as :func:`_pytest`, in this process (pytester's in-process run, from the root)."""
    result = pytester.runpytest("-p", "no:cacheprovider", "-q", "--color=no", *args)
    return result.ret, result.stdout.str() + result.stderr.str()


def test_three_shards_of_the_examples_merge_into_the_unsharded_report(example_reports, tmp_path, capsys, pytester,
                                                                      monkeypatch, servers_forked):
    monkeypatch.chdir(ROOT)
    code, listed = _inline(pytester, "examples", "--collect-only")
    ids = [line for line in listed.splitlines() if "::" in line]
    assert len(ids) == len(example_reports.report["items"]) > 3
    shards = []
    for group in range(3):
        path = tmp_path / f"shard-{group}.json"
        if group == 1:  # under xdist, which starts its own worker processes
            proc = _pytest(*ids[group::3], "-n", "2", f"--mcptest-report={path}")
            code, out = proc.returncode, proc.stdout + proc.stderr
        else:
            code, out = _inline(pytester, *ids[group::3], f"--mcptest-report={path}")
        assert code == 0, out
        shards.append(str(path))
    out = tmp_path / "all.json"
    assert main(["report", "merge", *shards, "-o", str(out)]) == 0
    assert f"merged 3 shards: {len(ids)} items -> {out}" in capsys.readouterr().out
    assert out.read_bytes() == example_reports.json_path.read_bytes()
    # and the merged file reads like any report
    assert main(["report", str(out), "--compare", str(example_reports.json_path)]) == 0
    assert capsys.readouterr().out.startswith("verdict: WITHIN NOISE")


def _report(*ids, errors=()):
    return {"mcptest_report": 1, "items": [{"id": i, "outcome": "passed", "envelope": {}, "failures": []} for i in ids],
            "errors": [{"file": f, "message": m} for f, m in errors]}


def test_overlapping_shards_are_refused_with_both_files_named():
    with pytest.raises(MergeError, match=r"item 's::b' is in both a.json and b.json \(the same result\)"):
        merge_reports([("a.json", _report("s::a", "s::b")), ("b.json", _report("s::b", "s::c"))])


def test_a_bad_suite_file_seen_by_every_shard_is_kept_once_unless_they_disagree():
    merged = merge_reports([("a.json", _report("s::a", errors=[("bad.yml", "bad.yml:3: oops")])),
                            ("b.json", _report("s::b", errors=[("bad.yml", "bad.yml:3: oops")]))])
    assert [i["id"] for i in merged["items"]] == ["s::a", "s::b"]
    assert merged["errors"] == [{"file": "bad.yml", "message": "bad.yml:3: oops"}]
    with pytest.raises(MergeError, match="bad suite file 'bad.yml' failed differently in a.json and b.json"):
        merge_reports([("a.json", _report(errors=[("bad.yml", "one")])), ("b.json", _report(errors=[("bad.yml", "two")]))])


def test_the_command_exits_2_with_the_reason(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_report("s::a")))
    b.write_text(json.dumps(_report("s::a")))
    assert main(["report", "merge", str(a), str(b), "-o", str(tmp_path / "o.json")]) == 2
    assert "shards must not overlap" in capsys.readouterr().err and not (tmp_path / "o.json").exists()
    assert main(["report", "merge", str(a), "-o", str(a)]) == 2
    assert "is one of the shards" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("[]")
    assert main(["report", "merge", str(a), str(tmp_path / "bad.json"), "-o", str(tmp_path / "o.json")]) == 2
    assert "bad.json" in capsys.readouterr().err


def test_the_output_is_checked_before_anything_is_written(tmp_path, capsys):
    """A folder as -o once ended in a traceback; a symbolic link to a shard overwrote that shard."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_report("s::a")))
    b.write_text(json.dumps(_report("s::b")))
    before = a.read_bytes()
    assert main(["report", "merge", str(a), str(b), "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is a directory" in err and "Traceback" not in err
    link = tmp_path / "merged.json"
    link.symlink_to(a)
    assert main(["report", "merge", str(a), str(b), "-o", str(link)]) == 2
    assert "is one of the shards" in capsys.readouterr().err
    assert a.read_bytes() == before


def test_the_documented_github_actions_recipe_is_a_workflow_that_uses_real_options():
    import yaml

    text = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    block = text.split("A GitHub Actions workflow, end to end", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    workflow = yaml.safe_load(block)
    shard, report = workflow["jobs"]["shard"], workflow["jobs"]["report"]
    assert shard["strategy"]["matrix"]["group"] == [1, 2, 3] and report["needs"] == "shard"
    commands = [step["run"] for step in report["steps"] if "run" in step]
    assert "mcptest report merge shard-*.json -o report.json" in commands
    final = " ".join(commands[-1].split())
    assert final.startswith("mcptest report report.json --compare baseline/report.json --html report.html")
    from pytest_mcptest.cli import build_parser

    args = build_parser().parse_args(final.replace('"$GITHUB_STEP_SUMMARY"', "summary.md").split()[1:])
    assert args.fail_on == ["failed", "regression"] and args.markdown == "summary.md"
