"""The JSON report has a shipped schema (``schema/report-v1.json``): every report mcptest
writes conforms to it (jsonschema, the reference implementation, is the oracle), and a
file that does not is refused by every reader in one line naming the JSON pointer."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.cli import main
from pytest_mcptest.report.document import load_report
from pytest_mcptest.report.merge import merge_reports

SCHEMA = json.loads(resources.files("pytest_mcptest").joinpath("schema/report-v1.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def test_the_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_the_report_of_the_examples_conforms(example_reports):
    report = example_reports.report
    assert {item["outcome"] for item in report["items"]} >= {"passed", "xfailed", "skipped"}
    assert list(VALIDATOR.iter_errors(report)) == []
    assert load_report(str(example_reports.json_path)) == report


def test_a_merged_report_and_a_plugin_run_report_conform(example_reports, pytester):
    report = example_reports.report
    half = len(report["items"]) // 2
    merged = merge_reports([("a", {**report, "items": report["items"][:half]}),
                            ("b", {**report, "items": report["items"][half:]})])
    assert list(VALIDATOR.iter_errors(merged)) == []
    pytester.makefile(".mcptest.yml", bad="scenarios: [{name: x, nonsense: 1}]\n",
                      good="scenarios:\n  - name: missing\n    transitions: [{tool: ping}]\n")
    pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report", "r.json")
    written = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert written["errors"] and written["items"][0]["outcome"] == "failed"
    assert list(VALIDATOR.iter_errors(written)) == []


@pytest.mark.parametrize("report, pointer, message", [
    ({"mcptest_report": 1, "items": [{"id": "x", "envelope": [1, 2]}]},
     "/items/0/envelope", "items[0].envelope must be object, found array [1, 2]"),
    ({"mcptest_report": 1, "items": [{"id": "x", "outcome": "pased"}]},
     "/items/0/outcome", 'items[0].outcome must be one of "passed", "failed", "skipped", "xfailed", "xpassed", '
                         '"error", found "pased"; did you mean \'passed\'?'),
    ({"mcptest_report": 1, "items": [{"name": "x"}]}, "/items/0", "items[0] is missing the required key 'id'"),
    ({"mcptest_report": 1, "items": [], "errors": [{"file": 3, "message": "m"}]},
     "/errors/0/file", "errors[0].file must be string, found number 3"),
    ({"mcptest_report": 1}, "/", "the document is missing the required key 'items'"),
    ({"mcptest_report": 2, "items": []}, "/mcptest_report", "unsupported version 2 (this mcptest reads 1)"),
])
def test_a_report_that_breaks_the_schema_is_one_error_naming_its_pointer(tmp_path, capsys, report, pointer, message):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    expected = f"r.json (at {pointer}): not an mcptest report: {message}"
    with pytest.raises(ValueError) as info:
        load_report(str(path), "r.json")
    assert str(info.value) == expected
    if report.get("mcptest_report") == 1:
        assert list(VALIDATOR.iter_errors(report))  # the reference agrees it is not a report
    for argv in (["report", str(path)], ["report", "merge", str(path), "-o", str(tmp_path / "out.json")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"(at {pointer}): not an mcptest report: {message}" in err and "Traceback" not in err


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), st.text(max_size=5))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=8)
_FIELDS = st.sampled_from(["id", "name", "kind", "file", "line", "outcome", "envelope", "failures", "runs",
                           "notes", "text", "tags", "failure_modes", "other"])
_OUTCOMES = st.sampled_from(["passed", "failed", "skipped", "xfailed", "xpassed", "error", "pased"])
_ITEMS = st.dictionaries(_FIELDS, st.one_of(_VALUES, _OUTCOMES, st.just({}), st.just([])), max_size=6)


@settings(max_examples=budget(200), deadline=None)
@given(items=st.lists(_ITEMS, max_size=3), errors=st.one_of(st.none(), st.lists(_VALUES, max_size=2)))
def test_the_reader_accepts_exactly_what_the_reference_validator_accepts(tmp_path_factory, items, errors):
    report = {"mcptest_report": 1, "items": items}
    if errors is not None:
        report["errors"] = errors
    path = tmp_path_factory.mktemp("r") / "r.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    try:
        load_report(str(path))
        accepted = True
    except ValueError as exc:
        accepted = False
        assert "not an mcptest report" in str(exc) and "(at /" in str(exc)
    assert accepted == VALIDATOR.is_valid(report)
