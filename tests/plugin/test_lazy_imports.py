"""What a session imports: statistics and token counting cost a suite nothing unless it uses them.

Importing statsmodels (with scipy, numpy and pandas) costs one to two seconds per process and
tiktoken's vocabulary a tenth of one, paid again by every xdist worker. A plain suite must
load neither; a suite with Clopper-Pearson or Wilson bounds computes them without statsmodels,
scipy or numpy. Each suite runs in a child pytest process whose conftest lists, at the end
of its session, the modules it holds.
"""

from __future__ import annotations

import json

HEAVY = ["numpy", "pandas", "scipy", "statsmodels", "tiktoken"]

PROBE = """\
import json, sys

def pytest_sessionfinish(session):
    tokens = sys.modules.get("pytest_mcptest.engine.tokens")
    with open("modules.json", "w") as fh:
        json.dump({"modules": sorted(sys.modules),
                   "vocabulary": bool(tokens is not None and tokens._encoding is not None)}, fh)
"""

PLAIN = """\
scenarios:
  - name: ping twice
    cassette: ping.json
    seed: {count: 0}
    transitions:
      - tool: ping
        effect: {count: {inc: 1}}
    expect_state: {count: 2}
agents:
  - name: research
    cassette: agent.json
    equal_function_sets:
      classes:
        - {name: search, members: [search]}
"""

STATISTICS = """\
agents:
  - name: notebook search
    servers: [catalog]
    cassette: runs.json
    distractors:
      count: 2
      source: {from: near_duplicate, of: [search_products]}
      correct: [catalog.search_products]
      expect:
        - distractors.certified_lower: {"==": 54.92}   # 5 perfect runs at one-sided 95 %
  - name: notebook stability
    cassette: runs.json
    stability:
      expect:
        - stability.pass_rate_low: {"==": 56.55}       # Wilson 95 %, 5 of 5
"""

TURNS = {"turns": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "ok"}]}
SEARCH = {"name": "search_products", "server": "catalog", "args": {"query": "notebook"}}
CATALOG = {"catalog": {"tools": [{"name": "search_products", "description": "Search products.",
                                  "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}}]}}


def _session(pytester, suite: str, cassettes: dict, items: int) -> dict:
    pytester.makeconftest(PROBE)
    pytester.makefile(".mcptest.yml", suite=suite)
    for name, data in cassettes.items():
        pytester.path.joinpath(name).write_text(json.dumps({"mcptest_cassette": 1, **data}))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=items)
    return json.loads(pytester.path.joinpath("modules.json").read_text())


def _top_level(modules: list[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_a_plain_suite_imports_no_statistics_and_no_tokenizer(pytester):
    seen = _session(pytester, PLAIN, {
        "ping.json": {"runs": [{"tool_calls": [{"name": "ping", "args": {}}, {"name": "ping", "args": {}}]}]},
        "agent.json": {"runs": [{"tool_calls": [{"name": "search", "args": {"q": "x"}}], "conversation": TURNS}]},
    }, items=2)
    assert "pytest_mcptest.engine.world" in seen["modules"]  # the probe saw the suite run
    assert sorted(_top_level(seen["modules"]) & set(HEAVY)) == []
    assert not seen["vocabulary"]


def test_bounds_are_computed_without_statsmodels_scipy_or_numpy(pytester):
    seen = _session(pytester, STATISTICS, {"runs.json": {"runs": [{"tool_calls": [SEARCH], "conversation": TURNS}] * 5,
                                                         "catalog": CATALOG}}, items=3)
    assert "pytest_mcptest.engine.stats" in seen["modules"]  # both bounds were computed, as expected above
    assert sorted(_top_level(seen["modules"]) & {"numpy", "pandas", "scipy", "statsmodels"}) == []


def test_a_plain_session_loads_no_report_module_and_no_mcp_client(pytester):
    """The JSON report and the live MCP client are for sessions that ask for them."""
    seen = _session(pytester, PLAIN.split("agents:")[0], {
        "ping.json": {"runs": [{"tool_calls": [{"name": "ping", "args": {}}, {"name": "ping", "args": {}}]}]},
    }, items=1)
    assert "pytest_mcptest.engine.world" in seen["modules"]
    assert "pytest_mcptest.report.document" not in seen["modules"]
    assert "pytest_mcptest.mcp.client" not in seen["modules"]
    assert "mcp" not in _top_level(seen["modules"])
    # a scenario's classes are msgspec Structs: attrs (some 25 ms of start-up) is not loaded
    assert sorted(_top_level(seen["modules"]) & {"attr", "attrs"}) == []


def test_the_mock_server_reads_its_manifest_without_the_gates(tmp_path):
    """``mcptest mock`` starts once per server a test or a live run needs: reading its manifest
    loads the YAML reader and the manifest schema, not the suites' gates (0.1 s a start)."""
    import subprocess
    import sys

    (tmp_path / "shop.yml").write_text("mock_server:\n  name: shop\n  tools:\n    - name: ping\n      description: Ping.\n")
    probe = ("import sys; from pytest_mcptest.mcp.mock_server import load_spec; spec = load_spec('shop.yml'); "
             "print(spec.tools[0]['name'], sorted(m for m in sys.modules if m.startswith('pytest_mcptest.gates')))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["ping", "[]"], done.stderr


def test_a_session_of_python_tests_loads_no_suite_reader_no_gate_and_no_cassette(pytester):
    """The plugin is loaded into every session of a project that installs mcptest: one with
    Python tests alone reads no suite, so it loads the options, the session's settings
    (``gates.context``, whose package is the gates' registry) and nothing of the suite reader,
    the gates, the engine's rules, the cassettes or the libraries they use."""
    pytester.makeconftest(PROBE)
    pytester.makepyfile("def test_one():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=1)
    modules = json.loads(pytester.path.joinpath("modules.json").read_text())["modules"]
    ours = {m for m in modules if m.startswith("pytest_mcptest.")}
    assert {m for m in ours if m.startswith("pytest_mcptest.gates")} == {"pytest_mcptest.gates",
                                                                        "pytest_mcptest.gates.context"}
    assert sorted(m for m in ours if m.startswith(("pytest_mcptest.suite", "pytest_mcptest.formats.cassette",
                                                   "pytest_mcptest.report"))) == []
    assert sorted(_top_level(modules) & {"attr", "attrs", "msgspec", "yaml"}) == []


def test_record_and_serve_build_only_their_own_parser(tmp_path):
    """A host starts ``mcptest record`` or ``mcptest serve`` and waits for its first answer:
    the command line builds the parser of the command it runs, not every command's (``doctor``
    alone imports attrs)."""
    import subprocess
    import sys

    probe = ("import sys; from pytest_mcptest.cli import main\n"
             "try:\n    main(['serve', '--help'])\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.startswith('pytest_mcptest.cli.')))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines()[-1] == "['pytest_mcptest.cli.common', 'pytest_mcptest.cli.serve']", done.stderr
