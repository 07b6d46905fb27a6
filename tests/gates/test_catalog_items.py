"""tool_quality: and tool_bench: entries as items: catalogs from snapshots, default gates, min_drop."""

from __future__ import annotations

import json

import pytest
from forkserver import forked

from pytest_mcptest.errors import InputError
from pytest_mcptest.gates.evaluate import Context, evaluate
from catalog_data import BAD_TOOL, GOOD_TOOL
from pytest_mcptest.gates.suite_build import load_suite


def _write(tmp_path, suite: str, tools) -> str:
    (tmp_path / "catalog.json").write_text(json.dumps({"tools": tools}))
    path = tmp_path / "s.mcptest.yml"
    path.write_text(suite)
    return str(path)


QUALITY = """\
servers:
  docs: {catalog: catalog.json}
tool_quality:
  - name: descriptions meet the bar
    server: docs
"""


def test_default_gates_pass_a_good_catalog(tmp_path):
    [block] = load_suite(_write(tmp_path, QUALITY, [GOOD_TOOL])).blocks
    assert [e.target for e in block.expect] == ["min_score", "mean_score", "critical_count"]
    verdict = evaluate(block, Context(root=str(tmp_path)))
    assert verdict.passed, verdict.failures
    assert verdict.envelope["tool"]["get_weather"]["score"] >= 0.7 and verdict.cassette == "catalog.json"


def test_default_gates_fail_a_bad_catalog_with_readable_text(tmp_path):
    from pytest_mcptest.report.render import render_verdict

    [block] = load_suite(_write(tmp_path, QUALITY, [GOOD_TOOL, BAD_TOOL])).blocks
    verdict = evaluate(block, Context(root=str(tmp_path)))
    assert not verdict.passed
    assert verdict.envelope["critical_count"] >= 1
    text = render_verdict(verdict, file="s.mcptest.yml")
    assert text.startswith("s.mcptest.yml:4: tool_quality failed:") and "(catalog catalog.json)" in text
    assert "critical_count" in text


def test_expect_can_gate_one_tool(tmp_path):
    suite = QUALITY + "    expect:\n      - tool[\"get_weather\"].score: {\">=\": 0.6}\n      - smell_total: {\"<=\": 6}\n"
    [block] = load_suite(_write(tmp_path, suite, [GOOD_TOOL, BAD_TOOL])).blocks
    assert evaluate(block, Context()).passed  # the explicit expect replaces the defaults


def test_unknown_server_is_a_collection_error(tmp_path):
    with pytest.raises(InputError) as exc:
        load_suite(_write(tmp_path, QUALITY.replace("server: docs", "server: dcos"), [GOOD_TOOL]))
    assert exc.value.line == 5 and "no server named 'dcos'" in exc.value.message and "did you mean 'docs'?" in exc.value.message


def test_a_missing_or_bad_catalog_fails_the_item_plainly(tmp_path):
    [block] = load_suite(_write(tmp_path, QUALITY, [GOOD_TOOL])).blocks
    (tmp_path / "catalog.json").write_text("{\"tools\": 3}")
    [problem] = evaluate(block, Context(root=str(tmp_path))).problems
    assert "catalog.json (at /tools)" in problem.message and "a catalog is a tools/list answer" in problem.message


BENCH = """\
tool_bench:
  - name: forecast description carries the signal
    catalog:
      tools:
        - {name: lookup_a, description: Return the current weather forecast for a city as JSON.}
        - {name: lookup_b, description: Convert an amount of money between two currencies.}
    intents:
      - {query: what is the weather forecast in Paris, gold: [lookup_a]}
      - {query: convert 10 euros to dollars, gold: [lookup_b]}
    mutations:
      - {tool: lookup_a, kind: blank}
    min_drop: 0.3
"""


def test_tool_bench_item_passes_when_a_mutation_drops_selection(tmp_path):
    [block] = load_suite(_write(tmp_path, BENCH, [])).blocks
    verdict = evaluate(block, Context())
    assert verdict.passed, verdict.failures
    assert verdict.envelope["accuracy"] == 1.0 and verdict.envelope["max_drop"] == 0.5


def test_tool_bench_min_drop_gate_fails(tmp_path):
    [block] = load_suite(_write(tmp_path, BENCH.replace("min_drop: 0.3", "min_drop: 0.9"), [])).blocks
    failures = evaluate(block, Context()).failures
    assert [f.gate for f in failures] == ["min_drop"] and "below min_drop 0.9" in failures[0].message


def test_tool_bench_bad_mutation_is_a_collection_error(tmp_path):
    with pytest.raises(InputError) as exc:
        load_suite(_write(tmp_path, BENCH.replace("kind: blank", "kind: scramble"), []))
    assert exc.value.line == 11 and "mutations[0].kind must be one of" in exc.value.message
    assert '"truncate", "drop_keyword", found "scramble"' in exc.value.message


def test_tool_quality_against_a_live_mock_server(tmp_path):
    import sys

    (tmp_path / "servers").mkdir()
    (tmp_path / "servers" / "shop.yml").write_text(
        "mock_server:\n  name: shop\n  tools:\n"
        "    - name: get_weather\n"
        f"      description: {GOOD_TOOL['description']}\n"
        "      input_schema: {type: object, additionalProperties: false, required: [city],\n"
        "                     properties: {city: {type: string, maxLength: 80, description: 'City name, e.g. Paris'}},\n"
        "                     examples: [{city: Paris}]}\n"
        "      response: 'sunny in ${args.city}'\n")
    command = forked([sys.executable, "-m", "pytest_mcptest", "mock", "--tools-from", "servers/shop.yml"])
    suite = ("servers:\n  shop:\n    command: " + json.dumps(command) + "\n    timeout: 30\n"
             "tool_quality:\n  - name: live catalog\n    server: shop\n"
             "    expect:\n      - tool_count: {exact: 1}\n      - tool[\"get_weather\"].score: {\">\": 0.5}\n")
    path = tmp_path / "s.mcptest.yml"
    path.write_text(suite)
    [block] = load_suite(str(path)).blocks
    verdict = evaluate(block, Context())
    assert verdict.passed, verdict.failures


def test_a_server_that_cannot_start_fails_the_item_with_the_reason(tmp_path):
    (tmp_path / "s.mcptest.yml").write_text(
        "servers:\n  gone: {command: [no-such-mcp-server-xyz]}\ntool_quality:\n  - name: q\n    server: gone\n")
    [block] = load_suite(str(tmp_path / "s.mcptest.yml")).blocks
    [problem] = evaluate(block, Context()).problems
    assert "server 'gone'" in problem.message and "no-such-mcp-server-xyz" in problem.message


def test_a_server_command_naming_mcptest_runs_under_this_interpreter(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")  # `mcptest` is not on PATH: still found
    (tmp_path / "snap.json").write_text(json.dumps({"tools": [GOOD_TOOL]}))
    (tmp_path / "s.mcptest.yml").write_text(
        "servers:\n  m: {command: [mcptest, mock, --tools-from, snap.json]}\n"
        "tool_quality:\n  - name: q\n    server: m\n    expect:\n      - tool_count: {exact: 1}\n")
    [block] = load_suite(str(tmp_path / "s.mcptest.yml")).blocks
    assert evaluate(block, Context()).passed


def test_tool_quality_against_a_real_third_party_server(tmp_path):
    """mcp-server-time from PyPI (installed by the test extra), started over stdio."""
    import sys

    (tmp_path / "s.mcptest.yml").write_text(
        "servers:\n  time:\n    command: " + json.dumps(forked([sys.executable, "-m", "mcp_server_time"])) + "\n"
        "tool_quality:\n  - name: time server descriptions\n    server: time\n    expect:\n"
        "      - tool_count: {exact: 2}\n      - tool[\"get_current_time\"].score: {\">\": 0}\n"
        "      - critical_count: {exact: 0}\n")
    [block] = load_suite(str(tmp_path / "s.mcptest.yml")).blocks
    verdict = evaluate(block, Context())
    assert verdict.passed, verdict.failures
    assert set(verdict.envelope["tool"]) == {"get_current_time", "convert_time"}


STARTS_COUNTED = """\
import runpy, sys
with open(sys.argv[1], "a") as starts:
    starts.write("started\\n")
if sys.argv[2] == "fail":
    sys.exit("this server does not start")
sys.argv = ["pytest_mcptest", "mock", "--tools-from", sys.argv[2]]  # then it is the mock server
runpy.run_module("pytest_mcptest", run_name="__main__", alter_sys=True)
"""


def test_a_live_server_several_items_judge_is_started_once_a_session(pytester):
    """Three items on one live server start it once; two on a server that cannot start try
    it once and both fail with its reason; a second session asks again."""
    import sys

    pytester.makefile(".json", snap=json.dumps({"tools": [GOOD_TOOL]}))
    pytester.makepyfile(counted=STARTS_COUNTED)

    def counted(*args):  # started through the fork server: each start is still a process of its own
        return json.dumps(forked([sys.executable, "counted.py", *args]))

    pytester.makefile(".mcptest.yml", s=(
        "servers:\n"
        f"  shop: {{command: {counted('shop.starts', 'snap.json')}}}\n"
        f"  gone: {{command: {counted('gone.starts', 'fail')}, timeout: 10}}\n"
        "tool_quality:\n"
        "  - {name: one, server: shop, expect: [{tool_count: {exact: 1}}]}\n"
        "  - {name: two, server: shop}\n"
        "  - {name: three, server: shop, expect: [{tool_count: {exact: 2}}]}\n"
        "  - {name: four, server: gone}\n"
        "  - {name: five, server: gone}\n"))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=3)
    assert (pytester.path / "shop.starts").read_text() == "started\n"
    assert (pytester.path / "gone.starts").read_text() == "started\n"
    text = result.stdout.str()
    assert "s.mcptest.yml:7: tool_quality failed: 1 expect" in text  # the kept catalog, judged again
    assert text.count("this server does not start") >= 2
    pytester.runpytest("-p", "no:cacheprovider", "-k", "one").assert_outcomes(passed=1)
    assert (pytester.path / "shop.starts").read_text() == "started\n" * 2


def test_failure_text_counts_description_and_schema_criticals_apart_and_says_why_by_target(tmp_path):
    """``critical_count`` counts the description findings and ``schema_criticals`` the schema
    ones: the text counts them the same way (it said "critical findings: 3" beside a
    critical_count of 2), and each explanation under the expect table names its target
    without repeating the value the row shows."""
    from pytest_mcptest.report.render import render_verdict

    tools = [{"name": "do_it", "description": "do_it", "inputSchema": {"type": "object", "properties": {"x": {}}}},
             GOOD_TOOL]
    suite = QUALITY + "    expect:\n      - min_score: {schema: {minimum: 0.5}}\n      - critical_count: {exact: 0}\n"
    [block] = load_suite(_write(tmp_path, suite, tools)).blocks
    verdict = evaluate(block, Context())
    text = render_verdict(verdict, file="s.mcptest.yml")
    assert verdict.runs[0].envelope["critical_count"] == 2 and verdict.runs[0].envelope["schema_criticals"] == 1
    assert "  critical findings: 2\n    do_it   DESC-001" in text
    assert "  schema criticals: 1\n    do_it   SCH-003" in text
    assert "      min_score: does not match the schema: 0.25 is less than the minimum of 0.5\n" in text + "\n"
    assert "; got 0.25" not in text
