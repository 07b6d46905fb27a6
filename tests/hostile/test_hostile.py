"""Hostile and careless input (issue 9): each class gives one clear message, never a
traceback, a hang, a leak or unbounded memory. The inputs are the small files under
``tests/hostile/``; see its README for what each one is."""

from __future__ import annotations

import json
import math
import os
import resource
import shutil
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from forkserver import through_forkserver
from hypothesis_budget import budget

from pytest_mcptest.formats.cassette import load_cassette
from pytest_mcptest.cli import main
from pytest_mcptest.engine.trace import ToolCall
from pytest_mcptest.engine.trace_match import ExpectedCall, ExpectedTrace, validate_trace
from pytest_mcptest.errors import InputError
from pytest_mcptest.formats.files import MAX_JSON_DEPTH, read_json, read_text
from pytest_mcptest.mcp import ServerError, list_tools
from pytest_mcptest.report import document as report_module
from pytest_mcptest.report.document import bounded_lists, dumps, load_report

HOSTILE = Path(__file__).parent
OK_CASSETTE = '{"mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "ping"}]}]}'


def suite(pytester, name: str, *extra: str) -> None:
    """Copy ``hostile/<name>.suite.yml`` into the pytester folder as a collected suite."""
    shutil.copy(HOSTILE / f"{name}.suite.yml", pytester.path / f"{name}.mcptest.yml")
    (pytester.path / "ok.json").write_text(OK_CASSETTE)
    for other in extra:
        shutil.copy(HOSTILE / other, pytester.path / other)


def no_traceback(result) -> str:
    text = "\n".join(result.outlines + result.errlines)
    assert "Traceback" not in text and "INTERNALERROR" not in text and "RecursionError" not in text
    return text


# --------------------------------------------------------------------------- marks: a suite is data


def test_a_string_condition_is_refused_and_never_run(pytester):
    suite(pytester, "string_condition")
    result = pytester.runpytest("-p", "no:cacheprovider")
    text = no_traceback(result)
    assert result.ret != 0
    assert ("string_condition.mcptest.yml:5: skipif: a string condition (\"open('PWNED', 'w').write('x')\") "
            "would be run as Python by pytest, and a suite is data; use true or false, or a named condition: "
            "{platform: linux}, {env: NAME}, {python: \">=3.12\"} or {not: <condition>}") in text
    assert not (pytester.path / "PWNED").exists()


def test_skip_with_a_number_is_refused(pytester):
    suite(pytester, "skip_number")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert "skip_number.mcptest.yml:5: skip takes a reason (a string) or {reason: ...}, found number 5" \
        in no_traceback(result)


def test_an_unknown_warning_category_fails_its_file_not_the_session(pytester):
    suite(pytester, "no_such_warning")
    pytester.makefile(".mcptest.yml", other="scenarios:\n  - name: fine\n    cassette: ok.json\n"
                                            "    transitions: [{tool: ping}]\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--continue-on-collection-errors")
    text = no_traceback(result)
    assert "no_such_warning.mcptest.yml:5: filterwarnings 'error::NoSuchWarning': unknown warning category " \
           "'NoSuchWarning'; a suite may name Python's built-in categories" in text
    result.assert_outcomes(passed=1, errors=1)


def test_named_conditions_are_evaluated_as_the_item_runs(pytester, monkeypatch):
    (pytester.path / "ok.json").write_text(OK_CASSETTE)
    pytester.makefile(".mcptest.yml", conds="""\
        scenarios:
          - name: on this platform
            cassette: ok.json
            transitions: [{tool: ping}]
            marks: [{skipif: {platform: %s}}]
          - name: unless the variable is set
            cassette: ok.json
            transitions: [{tool: ping}]
            marks: [{skipif: {not: {env: MCPTEST_HOSTILE_GO}}}]
          - name: never
            cassette: ok.json
            transitions: [{tool: ping}]
            marks: [{skipif: [false, {python: "<3.0"}]}, {xfail: {condition: {python: ">=3.0"}, reason: known}}]
        """.replace("        ", "") % sys.platform)
    monkeypatch.delenv("MCPTEST_HOSTILE_GO", raising=False)
    result = pytester.runpytest("-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(skipped=2, xpassed=1)
    result.stdout.fnmatch_lines([f"*platform is {sys.platform}*", "*not ($MCPTEST_HOSTILE_GO is set)*"])
    monkeypatch.setenv("MCPTEST_HOSTILE_GO", "1")  # the built suite is cached; the condition is not
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(skipped=1, passed=1, xpassed=1)


# --------------------------------------------------------------------------- deep and overflowing values


def test_state_nested_400_deep_is_replayed_and_compared(pytester):
    suite(pytester, "deep_state")
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report", "r.json")
    no_traceback(result)
    result.assert_outcomes(passed=1)
    report = json.loads((pytester.path / "r.json").read_text())
    (item,) = report["items"]
    assert item["notes"] == [f"/envelope/state/s/a/a/a/a/a/a/a/a/a/...: nested more than {MAX_JSON_DEPTH} "
                             "levels deep; written as a string"]
    load_report(str(pytester.path / "r.json"))  # what was written reads back


def test_infinity_from_finite_numbers_is_written_as_null_with_a_note(pytester):
    suite(pytester, "overflow", "overflow.json")
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report", "r.json")
    no_traceback(result)
    text = (pytester.path / "r.json").read_text()
    report = json.loads(text)  # strict JSON: no Infinity in it
    assert "Infinity" not in text
    (item,) = report["items"]
    assert item["envelope"]["state"]["total"] is None
    assert item["notes"] == ["/envelope/state/total: inf is not a JSON number; written as null"]


def test_the_report_writer_never_raises():
    class Odd:
        def __str__(self):
            return "odd"

    deep: dict = {}
    node = deep
    for _ in range(2000):
        node["a"] = {}
        node = node["a"]
    text = dumps({"mcptest_report": 1, "items": [{"id": "x", "envelope": {
        "nan": float("nan"), "ninf": -math.inf, "odd": Odd(), (1, 2): 3, 4: "four", "deep": deep}}]})
    item = json.loads(text)["items"][0]
    assert item["envelope"]["nan"] is None and item["envelope"]["odd"] == "odd" and item["envelope"]["4"] == "four"
    assert "/envelope/nan: nan is not a JSON number; written as null" in item["notes"]
    assert "/envelope/odd: a Odd is not JSON; written as text" in item["notes"]


def test_a_huge_run_is_judged_whole_and_its_report_copies_a_bounded_part(pytester, monkeypatch):
    """The report copies at most MAX_LIST_ENTRIES entries of a list (200,000 calls made a
    90 MB report and a gigabyte); the gates judge them all, and the item's notes say so."""
    monkeypatch.setattr(report_module, "MAX_LIST_ENTRIES", 5)
    calls = [{"name": f"t{i % 3}", "args": {"i": i}} for i in range(12)]
    (pytester.path / "big.json").write_text(json.dumps({"mcptest_cassette": 1, "runs": [{"tool_calls": calls}]}))
    pytester.makefile(".mcptest.yml", big="""\
        agents:
          - name: big
            cassette: big.json
            expected_trace: {mode: subsequence, calls: [t0, t2]}
            expect:
              - tool_calls[11].args.i: {exact: 11}
              - actions: {exact: 12}
        """)
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report", "r.json")
    no_traceback(result)
    result.assert_outcomes(passed=1)
    (item,) = load_report(str(pytester.path / "r.json"))["items"]
    assert [c["args"]["i"] for c in item["envelope"]["tool_calls"]] == [0, 1, 2, 3, 4]
    assert item["envelope"]["tool_names"] == ["t0", "t1", "t2", "t0", "t1"]
    assert item["envelope"]["actions"] == 12
    assert item["notes"] == [
        "/envelope/tool_calls: 12 entries; the first 5 are written here (the gates judged all 12; the cassette holds them)",
        "/envelope/tool_names: 12 entries; the first 5 are written here (the gates judged all 12; the cassette holds them)"]


def test_bounded_lists_copies_only_the_way_to_a_cut_and_leaves_small_values_alone():
    small = {"a": [1, 2], "b": {"c": [[1], [2]]}}
    assert bounded_lists(small, 2) == (small, []) and bounded_lists(small, 2)[0] is small
    big = {"keep": {"x": [1]}, "runs": [{"calls": list(range(5))}, {"calls": [1]}, {"calls": list(range(9))}]}
    cut, notes = bounded_lists(big, 2)
    assert cut == {"keep": {"x": [1]}, "runs": [{"calls": [0, 1]}, {"calls": [1]}]}
    assert cut["keep"] is big["keep"]  # untouched parts are shared, not copied
    assert big["runs"][0]["calls"] == [0, 1, 2, 3, 4] and len(big["runs"]) == 3  # the verdict's envelope is intact
    assert [n.split(":")[0] for n in notes] == ["/envelope/runs", "/envelope/runs/0/calls"]


# --------------------------------------------------------------------------- bounded reads


def test_special_files_as_cassettes_fail_at_once_with_what_they_are(pytester):
    suite(pytester, "special_cassette")
    os.mkfifo(pytester.path / "pipe.json")
    (pytester.path / "folder.json").mkdir()
    started = time.monotonic()
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert time.monotonic() - started < 30  # a FIFO never blocks, /dev/zero is never read
    text = no_traceback(result)
    result.assert_outcomes(failed=3)
    assert "pipe.json: is a FIFO (named pipe), not a regular file; mcptest reads only regular files" in text
    assert "folder.json: is a directory, not a regular file; mcptest reads only regular files" in text
    assert "/dev/zero: is a character device, not a regular file; mcptest reads only regular files" in text


def test_size_limit_and_byte_order_mark(tmp_path):
    big = tmp_path / "big.json"
    big.write_text("[" + "0," * 600 + "0]")
    with pytest.raises(InputError) as info:
        read_text(str(big), limit=1000)
    assert str(info.value) == f"{big}: is 1203 bytes, over the 1000 bytes limit for one file"
    cassette = load_cassette(str(HOSTILE / "bom.json"))
    assert [c.name for c in cassette.runs[0].tool_calls] == ["ping"]


def test_a_file_that_is_not_a_cassette_is_never_quoted(pytester):
    suite(pytester, "not_a_cassette", "secret.txt")
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report", "r.json")
    text = no_traceback(result)
    assert "secret.txt:1: invalid JSON: Expecting value (column 1)" in text
    assert "TOP-SECRET" not in text
    assert "TOP-SECRET" not in (pytester.path / "r.json").read_text()


def test_catalog_reader_refuses_latin1_and_deep_nesting(tmp_path):
    with pytest.raises(InputError) as info:
        read_json(str(HOSTILE / "catalog_latin1.json"), "catalog_latin1.json")
    assert str(info.value) == "catalog_latin1.json: not UTF-8 text: invalid continuation byte at byte 24"
    deep = tmp_path / "deep.json"
    deep.write_text('{"tools": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(InputError) as info:
        read_json(str(deep), "deep.json")
    assert str(info.value) == f"deep.json: invalid JSON: nested more than {MAX_JSON_DEPTH} levels deep"
    deep.write_text('{"tools": ' + "[" * 200 + "]" * 200 + "}")
    with pytest.raises(InputError) as info:
        read_json(str(deep), "deep.json")
    assert str(info.value) == (f"deep.json (at /tools/0/0/0/0/0/0/0/0/0/0/0): invalid JSON: nested more than "
                               f"{MAX_JSON_DEPTH} levels deep (below this point)")


@pytest.mark.parametrize("name, message", [
    ("report_wrong_types.json", "report_wrong_types.json (at /items/1/envelope): not an mcptest report: "
                                "items[1].envelope must be object, found array [1, 2]"),
    ("report_nan.json", "report_nan.json: invalid JSON: NaN is not a JSON number"),
    ("report_odd_fields.json", "report_odd_fields.json (at /errors/0/file): not an mcptest report: "
                               "errors[0].file must be string, found number 5"),
])
def test_mcptest_report_refuses_a_report_that_is_not_one(capsys, monkeypatch, name, message):
    monkeypatch.chdir(HOSTILE)
    assert main(["report", name]) == 2
    out, err = capsys.readouterr()
    assert err.strip() == message and not out
    assert main(["report", "report_nan.json", "--compare", name]) == 2


def test_import_refuses_a_fifo(tmp_path, capsys):
    os.mkfifo(tmp_path / "log.jsonl")
    assert main(["import", "openai-chat", str(tmp_path / "log.jsonl"), "-o", str(tmp_path / "c.json")]) == 2
    assert capsys.readouterr().err.strip() == (f"{tmp_path / 'log.jsonl'}: is a FIFO (named pipe), not a regular "
                                               "file; mcptest reads only regular files")


# --------------------------------------------------------------------------- huge traces


@pytest.mark.parametrize("mode", ["unordered", "superset", "subset", "subsequence", "strict"])
def test_a_trace_of_3000_calls_has_no_recursion(mode):
    calls = [ToolCall("t", {"i": i % 7}) for i in range(3000)]
    order = range(3000) if mode in ("subsequence", "strict") else reversed(range(3000))
    expected = [ExpectedCall("t", "subset", {"i": i % 7}) for i in order]
    result = validate_trace(calls, ExpectedTrace(mode, expected))
    assert result.passed and len(result.pairs) == 3000


# --------------------------------------------------------------------------- live servers


def run_server(script: str, *args: str, timeout: float = 1) -> tuple[str, float]:
    started = time.monotonic()
    with pytest.raises(ServerError) as info:
        list_tools([sys.executable, str(HOSTILE / script), *args], timeout=timeout)
    return str(info.value), time.monotonic() - started


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is dead, awaiting its reaper
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_background_child_is_ended_with_its_server(tmp_path):
    pid_file = tmp_path / "child.pid"
    text, _ = run_server("server_background_child.py", str(pid_file), timeout=2)
    assert "no complete answer within 2 s" in text
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid)


def test_a_stderr_flood_costs_bounded_time_and_memory():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    text, seconds = run_server("server_stderr_flood.py")
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert seconds < 10 and grown_mb < 100
    assert "no complete answer within 1 s" in text
    lines = text.split("--- server stderr (tail) ---\n", 1)[1].splitlines()
    assert lines[0].endswith("bytes in all; the end follows)") and len(lines) <= 42
    assert len(text) < 5000


def test_stdout_noise_is_one_message_and_no_sdk_tracebacks(caplog):
    text, _ = run_server("server_noise.py")
    assert text == (f"MCP server `{sys.executable} {HOSTILE / 'server_noise.py'}`: no complete answer within 1 s "
                    "(initialize and tools/list); the server wrote 50 line(s) to stdout that are not JSON-RPC, "
                    "the first: 'DEBUG 0: loading plugins...'\n(the server wrote nothing to stderr)")
    assert not [r for r in caplog.records if r.name.startswith("mcp")]


def test_a_crash_shows_the_end_of_its_traceback():
    text, _ = run_server("server_crash.py", timeout=10)
    assert "the server exited with code 1 before answering" in text
    assert text.rstrip().endswith("KeyError: 'SHOP_API_KEY'")


def test_a_hang_that_ignores_sigterm_is_killed():
    text, seconds = run_server("server_hang.py")
    assert "no complete answer within 1 s" in text
    assert seconds < 10


class _Refused(Exception):
    pass


def _fail(parts, message):
    return _Refused(parts, message)


@pytest.mark.parametrize("marks, parts, message", [
    ([{"skipif": "sys.platform == 'linux'"}], ["marks", 0, "skipif"], "skipif: a string condition"),
    ([{"xfail": {"condition": "1 == 1"}}], ["marks", 0, "xfail", "condition"], "xfail: a string condition"),
    ([{"skipif": ["x", True]}], ["marks", 0, "skipif", 0], "skipif: a string condition"),
    ([{"skipif": {"python": "3.12"}}], ["marks", 0, "skipif", "python"], "must be an operator and a version"),
    ([{"skipif": {"platform": 5}}], ["marks", 0, "skipif", "platform"], "takes a non-empty string, found number 5"),
    ([{"skipif": {"not": "x"}}], ["marks", 0, "skipif", "not"], "skipif: a string condition"),
    ([{"skipif": {"condition": True, "raises": "X"}}], ["marks", 0, "skipif", "raises"], "unknown key 'raises'"),
    ([{"xfail": {"reason": 5}}], ["marks", 0, "xfail", "reason"], "'reason' must be a string"),
    ([{"xfail": {"strict": "yes"}}], ["marks", 0, "xfail", "strict"], "'strict' must be true or false"),
    ([{"skipif": 5}], ["marks", 0, "skipif"], "a condition must be true, false or a named condition"),
    ([{"skip": True}], ["marks", 0, "skip"], "skip takes a reason"),
    ([{"filterwarnings": ["ignore", 5]}], ["marks", 0, "filterwarnings", 1], "a filter is a string"),
    ([{"filterwarnings": "shout::UserWarning"}], ["marks", 0, "filterwarnings"], "unknown action 'shout'"),
    ([{"filterwarnings": "error:(:UserWarning"}], ["marks", 0, "filterwarnings"], "not a valid regular expression"),
    ([{"filterwarnings": "error::os.PathLike"}], ["marks", 0, "filterwarnings"], "unknown warning category"),
    ([{"filterwarnings": "error::UserWarning:m:x"}], ["marks", 0, "filterwarnings"], "must be a whole number"),
    ([5], ["marks", 0], "a mark is a name or a one-key object"),
    ([{"parametrize": ["a", [1]]}], ["marks", 0], "means nothing on a suite block"),
])
def test_marks_refused_with_where_and_why(marks, parts, message):
    from pytest_mcptest.suite.marks import build_marks

    with pytest.raises(_Refused) as info:
        build_marks({"marks": marks}, _fail)
    assert info.value.args[0] == parts and message in info.value.args[1]


def test_marks_accepted_and_built():
    from pytest_mcptest.suite.marks import Condition, build_marks

    marks, _ = build_marks({"marks": [
        "slow", {"xfail": "flaky upstream"}, {"skipif": {"condition": {"env": "CI"}, "reason": "not on CI"}},
        {"filterwarnings": ["ignore::DeprecationWarning", "error:boom:UserWarning:mod:12"]}, {"timeout": 5},
        {"skip": {"reason": "later"}}]}, _fail)
    assert [(m.name, m.args, m.kwargs) for m in marks] == [
        ("slow", (), {}), ("xfail", (), {"reason": "flaky upstream"}),
        ("skipif", (Condition("env", "CI"),), {"reason": "not on CI"}),
        ("filterwarnings", ("ignore::DeprecationWarning", "error:boom:UserWarning:mod:12"), {}),
        ("timeout", (5,), {}), ("skip", (), {"reason": "later"})]
    assert bool(Condition("python", ">=3.0")) and not bool(Condition("python", "<3.0"))
    assert bool(Condition("not", Condition("platform", "no-such-os")))


def test_a_huge_failing_trace_lists_a_thousand_mismatches_and_counts_the_rest():
    from pytest_mcptest.engine.trace_match import LISTED_MISMATCHES

    calls = [ToolCall(f"t{i % 9}", {"i": i}) for i in range(5000)]
    result = validate_trace(calls, ExpectedTrace("subset", [ExpectedCall("t0")]))
    assert not result.passed
    assert len(result.mismatches) == LISTED_MISMATCHES and result.unlisted == 5000 - 1 - LISTED_MISMATCHES
    assert result.to_dict()["unlisted_mismatches"] == result.unlisted


# --------------------------------------------------------------------------- wrong words, re-checked (harden2)


def test_user_turns_without_text_are_not_read_as_the_same_empty_message(pytester):
    suite(pytester, "conversation_no_text", "conversation_no_text.json")
    result = pytester.runpytest("-p", "no:cacheprovider")
    text = no_traceback(result)
    assert "loop" not in text
    result.assert_outcomes(passed=1)


def test_a_catalog_tool_named_by_a_list_fails_its_item_with_the_pointer(pytester):
    suite(pytester, "distractors_list_name", "distractors_list_name.json")
    result = pytester.runpytest("-p", "no:cacheprovider")
    text = no_traceback(result)
    assert "TypeError" not in text
    assert ("distractors: cassette distractors_list_name.json (at /catalog/catalog/tools/0/name): "
            "a tool's name must be a string, found array") in text
    result.assert_outcomes(passed=1, failed=1)  # the agent's own gates pass; its distractors item fails


def test_a_bench_mutation_on_a_tool_the_catalog_lacks_names_the_spec(capsys):
    assert main(["tool-bench", "run", str(HOSTILE / "bench_unknown_tool.yml")]) == 2
    _, err = capsys.readouterr()
    assert err == (f"{HOSTILE / 'bench_unknown_tool.yml'}:2: mutations[0]: tool 'lookup_b' is not in the catalog "
                   "(its tools: lookup_a)\n")


def test_import_output_under_a_file_is_a_usage_error_without_a_force_hint(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    out = tmp_path / "afile" / "c.json"
    assert main(["import", "auto", str(HOSTILE / "import_log.json"), "-o", str(out)]) == 2
    _, err = capsys.readouterr()
    assert err == f"{out}: cannot be written, {tmp_path / 'afile'} is a file, not a folder\n"
    assert (tmp_path / "afile").read_text() == "x"


def test_import_never_replaces_a_dangling_link_without_force(tmp_path, capsys):
    link = tmp_path / "c.json"
    link.symlink_to(tmp_path / "nowhere.json")
    assert main(["import", "auto", str(HOSTILE / "import_log.json"), "-o", str(link)]) == 2
    _, err = capsys.readouterr()
    assert err == f"{link}: already exists (a symbolic link to nothing); pass --force to overwrite it\n"
    assert link.is_symlink()
    assert main(["import", "auto", str(HOSTILE / "import_log.json"), "-o", str(link), "--force"]) == 0
    # a link is followed, as by every writer: the file it names is written, the link kept (issue 33)
    assert link.is_symlink() and json.loads((tmp_path / "nowhere.json").read_text())["mcptest_cassette"] == 1


def test_record_output_under_a_file_or_a_dangling_link(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    assert main(["record", "--out", str(tmp_path / "afile" / "c.json"), "--", "true"]) == 2
    link = tmp_path / "c.json"
    link.symlink_to(tmp_path / "nowhere.json")
    assert main(["record", "--out", str(link), "--", "true"]) == 2
    _, err = capsys.readouterr()
    assert err.splitlines() == [
        f"{tmp_path / 'afile' / 'c.json'}: cannot be written, {tmp_path / 'afile'} is a file, not a folder",
        f"{link}: already exists; pass --append to add this session as a new run, or --force to replace it"]


@pytest.mark.parametrize("command", [
    ["tool-bench", "run", "{}"], ["mock", "--tools-from", "{}"], ["scenario", "run", "{}"], ["run", "{}"],
    ["doctor", "--lint-descriptions", "--server", "s", "--config", "{}"], ["import", "auto", "{}", "-o", "out.json"]])
def test_cli_commands_refuse_a_fifo_and_a_device_at_once(tmp_path, capsys, command):
    fifo = tmp_path / "fifo.yml"
    os.mkfifo(fifo)
    for path, what in ((str(fifo), "a FIFO (named pipe)"), ("/dev/zero", "a character device")):
        argv = [part.replace("{}", path) if part == "{}" else str(tmp_path / part) if part == "out.json" else part
                for part in command]
        assert main(argv) == 2
        _, err = capsys.readouterr()
        assert f"{path}: is {what}, not a regular file; mcptest reads only regular files" in err


def test_scenario_run_on_a_folder_says_so(tmp_path, capsys):
    assert main(["scenario", "run", str(tmp_path)]) == 2
    _, err = capsys.readouterr()
    assert err == f"{tmp_path}: is a directory, not a regular file; mcptest reads only regular files\n"


def test_every_bad_block_of_a_file_is_reported_in_one_run(pytester):
    suite(pytester, "three_bad_blocks")
    result = pytester.runpytest("-p", "no:cacheprovider")
    text = no_traceback(result)
    assert "three_bad_blocks.mcptest.yml:7: 3 problems in this document:" in text
    shown = text.split("short test summary info")[0]  # on CI, pytest repeats the whole message below
    lines = [line.strip() for line in shown.splitlines() if line.strip().startswith("line ")]
    assert [line.split(":")[0] for line in lines] == ["line 7", "line 11", "line 15"]
    assert "invalid regular expression '('" in lines[0] and "inc takes a number" in lines[2]


def test_an_integer_of_thousands_of_digits_is_refused_in_a_users_words(pytester):
    with pytest.raises(InputError) as info:
        load_cassette(str(HOSTILE / "long_number.json"))
    assert info.value.message == "invalid JSON: a number of 5001 digits; mcptest reads numbers of at most 4300 digits"
    pytester.makefile(".mcptest.yml", long=f"scenarios:\n  - name: long\n    seed: {{n: 1{'0' * 5000}}}\n"
                                           "    transitions: [{tool: ping}]\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    text = no_traceback(result)
    assert "as a number: a number of 5001 digits; mcptest reads numbers of at most 4300 digits" in text
    assert "set_int_max_str_digits" not in text


@pytest.mark.parametrize("item, pointer, message", [
    ({"id": "x", "text": 7}, "/items/0/text", "items[0].text must be string, found number 7"),
    ({"id": "x", "tags": "a"}, "/items/0/tags", 'items[0].tags must be array, found string "a"'),
    ({"id": "x", "failures": [{"gate": 5}]}, "/items/0/failures/0/gate", "items[0].failures[0].gate must be string, found number 5"),
])
def test_report_fields_the_pages_show_are_checked(tmp_path, item, pointer, message):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"mcptest_report": 1, "items": [item]}))
    with pytest.raises(ValueError) as info:
        load_report(str(path))
    assert str(info.value) == f"{path} (at {pointer}): not an mcptest report: {message}"


def test_a_mock_tool_schema_must_be_of_type_object(capsys):
    assert main(["mock", "--tools-from", str(HOSTILE / "manifest_schema_type.yml")]) == 2
    _, err = capsys.readouterr()
    assert err.startswith(f"{HOSTILE / 'manifest_schema_type.yml'}:3: mock_server.tools[0].input_schema.type "
                          "must be one of \"object\", found 5")


def test_a_catalog_entry_that_is_not_a_tool_names_the_catalog(capsys, tmp_path):
    shutil.copy(HOSTILE / "catalog_not_tools.json", tmp_path / "cat.json")
    assert main(["doctor", "--lint-descriptions", "--catalog", str(tmp_path / "cat.json")]) == 2
    _, err = capsys.readouterr()
    assert err == f"{tmp_path / 'cat.json'}: tools[3] must be an object, found number\n"
    (tmp_path / "spec.yml").write_text("catalog_path: cat.json\nintents: [{query: q, gold: [a]}]\n"
                                       "mutations: [{tool: a, kind: blank}]\n")
    assert main(["tool-bench", "run", str(tmp_path / "spec.yml")]) == 2
    _, err = capsys.readouterr()
    assert err.endswith("cat.json: tools[3] must be an object, found number\n")


def test_a_suite_whose_file_name_is_not_utf8_gets_a_report_that_reads_back(pytester):
    (pytester.path / "ok.json").write_text(OK_CASSETTE)
    name = os.fsdecode(b"caf\xe9.mcptest.yml")
    (pytester.path / name).write_text("scenarios:\n  - name: s\n    cassette: ok.json\n    transitions: [{tool: ping}]\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report", "r.json", "--mcptest-html", "r.html")
    no_traceback(result)
    result.assert_outcomes(passed=1)
    text = (pytester.path / "r.json").read_bytes().decode("utf-8")  # strict UTF-8
    assert '"id": "caf\\udce9.mcptest.yml::s"' in text
    (item,) = load_report(str(pytester.path / "r.json"))["items"]
    assert item["id"] == f"{name}::s"
    assert (pytester.path / "r.html").stat().st_size > 0


def test_yaml_nested_100000_brackets_deep_is_an_error_not_a_crash(pytester, tmp_path, capsys):
    """libyaml recursed in C on deep flow collections: the interpreter died (SIGSEGV)."""
    deep = "[" * 100_000 + "]" * 100_000
    pytester.makefile(".mcptest.yml", deep=f"scenarios:\n  - name: s\n    seed: {{a: {deep}}}\n"
                                           "    transitions: [{tool: ping}]\n")
    result = through_forkserver(pytester).runpytest_subprocess("-p", "no:cacheprovider")  # a crash ends that process
    text = no_traceback(result)
    assert "deep.mcptest.yml: the YAML nests too deeply to read (more than 1000 levels of [ or {)" in text
    assert result.ret == 1  # one bad file is one error, the rest still run (a crash was -11)
    (tmp_path / "m.json").write_text('{"tools": [{"name": "a", "inputSchema": {"x": ' + deep + "}}]}")
    assert main(["mock", "--tools-from", str(tmp_path / "m.json")]) == 2
    _, err = capsys.readouterr()
    assert "m.json: the YAML nests too deeply to read" in err


def test_brackets_in_strings_are_not_read_as_nesting():
    from pytest_mcptest.formats.files import brackets_within as flow_depth_within

    assert flow_depth_within("a: '" + "]" * 5000 + "'\nb: [[1]]\n", 10)  # closing ones never add depth
    assert not flow_depth_within("a: " + "[" * 11 + "]" * 11, 10)
    assert flow_depth_within("a: " + "[" * 10 + "]" * 10, 10)


@settings(max_examples=budget(300), deadline=None)
@given(st.text(alphabet="[]{}a'é", max_size=80), st.integers(0, 12))
def test_brackets_are_proven_alike_in_text_and_in_its_bytes(text, limit):
    """A cassette's bytes are proven without making a text of them: the same answer either way."""
    from pytest_mcptest.formats.files import brackets_within

    assert brackets_within(text.encode("utf-8"), limit) == brackets_within(text, limit)
