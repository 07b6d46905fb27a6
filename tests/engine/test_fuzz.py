"""A bounded fuzz of every reader and matcher a hostile document reaches (issue 9).

Generated JSON documents (cassette-shaped, report-shaped and arbitrary, with NaN,
infinities, odd types and deep nesting mixed in) drive the cassette reader,
``load_report`` and ``mcptest report``, the report writer and the engine's matchers. The
only exceptions allowed out are the project's own: :class:`InputError` from readers,
``ValueError`` kinds (``MalformedSchema``, ``NestingError``) from the engine; the CLI
answers with exit status 0, 1 or 2, never a traceback. The writers (issue 33) are fuzzed
against what may stand at their output path, with secrets in what they write.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.formats.cassette import parse_cassette
from pytest_mcptest.cli import main
from pytest_mcptest.engine.matching import contains, subset
from pytest_mcptest.engine.trace import Run, ToolCall
from pytest_mcptest.engine.trace_match import ARG_KINDS, MODES, ExpectedCall, ExpectedTrace, validate_trace
from pytest_mcptest.engine.values import json_diff, json_equal
from pytest_mcptest.errors import InputError
from pytest_mcptest.report.document import dumps, load_report

FUZZ = settings(max_examples=budget(100), deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)), max_leaves=25)
names = st.one_of(st.sampled_from(["a", "b", "get_weather"]), json_values)


def nested(depth: int, leaf=1):
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


deep_values = st.integers(min_value=100, max_value=1500).map(nested)
any_value = st.one_of(json_values, deep_values)

calls = st.fixed_dictionaries({"name": names}, optional={
    "args": any_value, "error": st.one_of(st.booleans(), json_values), "server": names,
    "turn": st.one_of(st.integers(), json_values), "result": json_values})
runs = st.fixed_dictionaries({}, optional={
    "tool_calls": st.one_of(st.lists(calls, max_size=4), json_values),
    "conversation": st.one_of(st.fixed_dictionaries({}, optional={
        "turns": st.one_of(st.lists(st.dictionaries(st.sampled_from(["role", "content"]), json_values)), json_values),
        "tokens": st.one_of(st.dictionaries(st.sampled_from(["input", "output", "total"]), json_values), json_values)}),
        json_values),
    "cost_micros": json_values,
    "judgments": st.one_of(st.lists(st.dictionaries(st.sampled_from(["criterion", "verdict"]), json_values)),
                           json_values)})
cassettes = st.one_of(
    st.fixed_dictionaries({"runs": st.one_of(st.lists(runs, max_size=3), json_values)}, optional={
        "mcptest_cassette": st.one_of(st.just(1), json_values), "meta": json_values, "catalog": json_values}),
    runs, st.fixed_dictionaries({"trace": runs}), json_values)

items = st.fixed_dictionaries({"id": st.one_of(st.text(max_size=8), json_values)}, optional={
    "outcome": st.one_of(st.sampled_from(["passed", "failed", "error"]), json_values),
    "envelope": st.one_of(st.dictionaries(st.text(max_size=4), any_value, max_size=3), json_values),
    "failures": st.one_of(st.lists(st.dictionaries(st.sampled_from(["gate", "message"]), json_values)), json_values),
    "line": json_values, "name": json_values, "kind": json_values, "runs": json_values})
reports = st.one_of(
    st.fixed_dictionaries({"mcptest_report": st.one_of(st.just(1), json_values),
                           "items": st.one_of(st.lists(items, max_size=3), json_values)},
                          optional={"errors": json_values}),
    json_values)


def as_text(document) -> str:
    """The document as the JSON text a careless tool could write (NaN and Infinity included)."""
    return json.dumps(document, allow_nan=True)


@FUZZ
@given(cassettes)
def test_cassette_reader_raises_only_input_errors(document):
    try:
        cassette = parse_cassette("c.json", as_text(document))
    except InputError as exc:
        assert exc.path == "c.json" and exc.source is None  # never quotes the file
        return
    assert all(isinstance(c.name, str) and c.name for r in cassette.runs for c in r.tool_calls)


@FUZZ
@given(reports, reports)
def test_report_reader_and_cli_answer_without_a_traceback(tmp_path_factory, current, baseline):
    folder = tmp_path_factory.mktemp("reports")
    (folder / "cur.json").write_text(as_text(current))
    (folder / "base.json").write_text(as_text(baseline))
    try:
        load_report(str(folder / "cur.json"))
    except ValueError as exc:
        assert "cur.json" in str(exc)
    assert main(["report", str(folder / "cur.json")]) in (0, 2)
    assert main(["report", str(folder / "cur.json"), "--compare", str(folder / "base.json"), "--json"]) in (0, 1, 2)


@FUZZ
@given(reports)
def test_report_writer_always_writes_strict_json_that_reads_back(tmp_path_factory, report):
    if not isinstance(report, dict):
        report = {"mcptest_report": 1, "items": [], "extra": report}
    text = dumps(report)
    json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(AssertionError(name)))
    if isinstance(report.get("items"), list) and report.get("mcptest_report") == 1 \
            and all(isinstance(i, dict) and isinstance(i.get("id"), str) for i in report["items"]):
        path = tmp_path_factory.mktemp("written") / "r.json"
        path.write_text(text)
        try:
            load_report(str(path))
        except ValueError as exc:  # a field of the wrong type may be refused, never the depth or a number
            assert "nested" not in str(exc) and "JSON number" not in str(exc)


@FUZZ
@given(any_value, any_value)
def test_value_matchers_raise_only_value_errors(actual, expected):
    for check in (subset, contains, json_equal, json_diff):
        try:
            check(actual, expected)
        except ValueError:
            pass


expected_calls = st.builds(
    lambda name, kind, args: ExpectedCall(name, kind, args),
    st.sampled_from(["a", "b", "get_weather"]), st.sampled_from([k for k in ARG_KINDS if k != "schema"]),
    any_value) | st.builds(lambda schema: ExpectedCall("a", "schema", schema), json_values)


# what a cassette's reader makes: a name is a non-empty string; the arguments are anything
recorded_calls = st.builds(ToolCall, st.sampled_from(["a", "b", "get_weather"]) | st.text(min_size=1, max_size=6),
                           any_value)


@FUZZ
@given(st.lists(recorded_calls, max_size=8), st.lists(expected_calls, max_size=6), st.sampled_from(MODES))
def test_trace_matching_raises_only_value_errors(recorded, expected, mode):
    try:
        result = validate_trace(recorded, ExpectedTrace(mode, expected))
    except ValueError:  # a malformed schema
        return
    assert result.passed is (not result.mismatches)


# --------------------------------------------------------------------------- the writers (issue 33)

_STANDING = ("nothing", "file 0600", "file 0644", "link to a file", "dangling link", "link to /dev/null",
             "directory", "file under a file")
_SECRETS = ("ghp_" + "a1B2" * 9, "AKIAIOSFODNN7EXAMPLE", "sk-proj-" + "Zx9_" * 8, "postgres://u:pw55word@db/x")


@FUZZ
@given(st.sampled_from(_STANDING), st.sampled_from(["new", "append", "replace", "first"]),
       st.lists(st.tuples(names, json_values), min_size=1, max_size=3), st.sampled_from(_SECRETS))
def test_every_writer_keeps_what_stands_at_its_path_and_leaks_nothing(tmp_path_factory, standing, how, calls,
                                                                       secret):
    """Whatever stands at the output path, a write either lands (a link stays a link and
    its target is written; a device stays a device; a file keeps its mode) or fails with
    an ``OSError`` or ``InputError``; no temporary or lock file is left, a run appended is
    never lost, and a secret of a well-known shape never reaches the bytes written."""
    import os
    import stat

    from pytest_mcptest.record import store
    from pytest_mcptest.redact import Redactor

    folder = tmp_path_factory.mktemp("w")
    path = folder / "c.json"
    old = {"mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "old"}]}]}
    target = folder / "real.json"
    if standing in ("file 0600", "file 0644"):
        path.write_text(json.dumps(old))
        os.chmod(path, int(standing[-4:], 8))
    elif standing == "link to a file":
        target.write_text(json.dumps(old))
        path.symlink_to(target)
    elif standing == "dangling link":
        path.symlink_to(target)
    elif standing == "link to /dev/null":
        path.symlink_to("/dev/null")
    elif standing == "directory":
        path.mkdir()
    elif standing == "file under a file":
        (folder / "plain").write_text("x")
        path = folder / "plain" / "c.json"
    before = os.lstat(path) if os.path.lexists(path) else None
    tool_calls = tuple(ToolCall(name if isinstance(name, str) and name else "t", {"q": secret, "v": args})
                       for name, args in calls)
    try:
        data = store.save(str(path), [Run(tool_calls=tool_calls)], {}, {"note": secret}, how, Redactor())
    except (OSError, InputError):
        data = None
    leftovers = [n for n in os.listdir(folder) if ".tmp-" in n or n.endswith(".mcptest-lock")]
    assert leftovers == []
    if before is not None:
        assert stat.S_IFMT(os.lstat(path).st_mode) == stat.S_IFMT(before.st_mode)  # a link stays a link
    if data is None:
        return
    written = path.read_bytes() if standing != "link to /dev/null" else b""
    assert secret.encode() not in written and b"pw55word" not in written
    if standing in ("file 0600", "file 0644"):
        assert stat.S_IMODE(os.stat(path).st_mode) == int(standing[-4:], 8)
    if written:
        runs = json.loads(written)["runs"]
        kept_old = how in ("append", "first") and standing in ("file 0600", "file 0644", "link to a file")
        assert len(runs) == 1 + kept_old
