"""A model matrix: ``model:`` as a list is one item per model, ``<name> [<model>]``, each with
its own cassette; recorded live per model (against the loopback fake) and replayed per model,
with the cost-vs-accuracy line for each pair."""

from __future__ import annotations

import json

import pytest

from live_fake import MANIFEST, FakeProvider, forked_mock, live_env, reply  # noqa: F401 - fixtures
from pytest_mcptest.errors import InputError
from pytest_mcptest.gates.evaluate import evaluate
from pytest_mcptest.gates.suite_build import load_suite

SUITE = """\
agents:
  - name: weather selection
    model: [gpt-5, claude-sonnet-4-5]
    runs: 2
    tool_selection: {expected_tool: get_weather, min_selection_rate: 0.5}
  - name: explicit
    model: [a, b]
    cassette: c/plain.json
scenarios:
  - name: world
    model: [x1]
    transitions: [{tool: get_weather}]
"""


def _cassette(path, *runs):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcptest_cassette": 1, "runs": [
        {"tool_calls": [{"name": name}], "cost_micros": cost,
         "conversation": {"turns": [], "tokens": {"input": 1, "output": 1, "total": total}}}
        for name, total, cost in runs]}))


@pytest.fixture
def matrix(tmp_path):
    (tmp_path / "m.mcptest.yml").write_text(SUITE)
    _cassette(tmp_path / "weather-selection-gpt-5.json", ("get_weather", 100, 40), ("search", 300, 60))
    _cassette(tmp_path / "weather-selection-claude-sonnet-4-5.json", ("get_weather", 100, 40), ("get_weather", 200, 60))
    _cassette(tmp_path / "c" / "plain-a.json", ("x", 1, None))
    _cassette(tmp_path / "c" / "plain-b.json", ("x", 1, None))
    _cassette(tmp_path / "world-x1.json", ("get_weather", 5, 1))
    return tmp_path


def test_each_model_is_its_own_item_with_its_own_cassette(matrix):
    blocks = load_suite(str(matrix / "m.mcptest.yml")).blocks
    assert [(b.name, b.model, b.cassette, b.matrix) for b in blocks] == [
        ("weather selection [gpt-5]", "gpt-5", "weather-selection-gpt-5.json", "weather selection"),
        ("weather selection [claude-sonnet-4-5]", "claude-sonnet-4-5", "weather-selection-claude-sonnet-4-5.json",
         "weather selection"),
        ("explicit [a]", "a", "c/plain-a.json", "explicit"),
        ("explicit [b]", "b", "c/plain-b.json", "explicit"),
        ("world [x1]", "x1", "world-x1.json", "world")]
    gpt = evaluate(blocks[0])
    assert gpt.passed
    assert gpt.envelope["model_matrix"] == {
        "test": "weather selection", "model": "gpt-5", "runs": 2, "passed_runs": 2, "selection_rate": 0.5,
        "selected": 1, "pass_k": 0.5, "tokens_median": 200, "tokens_max": 300, "cost_micros": 100, "costed_runs": 2}
    assert "cost_micros" not in evaluate(blocks[2]).envelope["model_matrix"]


def test_k_selects_a_model_and_each_pair_gets_its_line(matrix, pytester):
    for path in matrix.rglob("*"):
        if path.is_file():
            target = pytester.path / path.relative_to(matrix)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    result = pytester.runpytest("-p", "no:cacheprovider", "-k", "gpt-5")
    result.assert_outcomes(passed=1, deselected=4)
    result.stdout.fnmatch_lines([
        "*tool-selection floor [[]PASS[]] weather selection [[]gpt-5[]]: selection 1/2 (50%), pass^k 50%, "
        "tokens 200 median / 300 max",
        "*mcptest: model matrix*",
        "m.mcptest.yml::weather selection",
        "    [[]gpt-5[]]  selection 1/2 (50%), pass^k 50%, tokens 200 median / 300 max, cost $0.000100"])
    everything = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-html=r.html", "--mcptest-report=r.json",
                                    "--mcptest-markdown=r.md")
    everything.assert_outcomes(passed=5)
    markdown = (pytester.path / "r.md").read_text()
    assert "### Models side by side" in markdown and "**m.mcptest.yml::weather selection**" in markdown
    assert ("| gpt-5 | passed | 50% | 50% | 200 / 300 | $0.000100 | selection 1/2 (50%), pass^k 50%, tokens 200 "
            "median / 300 max, cost $0.000100 |") in markdown
    items = json.loads((pytester.path / "r.json").read_text())["items"]
    assert [i["envelope"]["model_matrix"]["model"] for i in items if i["name"].startswith("weather")] == [
        "claude-sonnet-4-5", "gpt-5"]
    gpt = next(i for i in items if i["name"] == "weather selection [gpt-5]")
    assert [r["name"] for r in gpt["runs"]] == ["weather selection [gpt-5] #1", "weather selection [gpt-5] #2"]
    page = (pytester.path / "r.html").read_text()
    assert "<h2>Models side by side</h2>" in page
    assert '<td data-count="m.mcptest.yml::weather selection [gpt-5]/selection">50%</td>' in page
    assert '<td data-count="m.mcptest.yml::weather selection [claude-sonnet-4-5]/cost">$0.000100</td>' in page
    everything.stdout.fnmatch_lines([
        "m.mcptest.yml::explicit", "    [[]a[]]  runs passed 1/1, pass^k 100%, tokens 1 median / 1 max, cost not recorded",
        "    [[]b[]]  *"])


@pytest.mark.parametrize("models, message", [
    ("[gpt-5, gpt-5]", "model 'gpt-5' is listed twice"),
    ("[gpt 5, gpt-5]", "model 'gpt-5' would share its cassette with 'gpt 5' (both slug to 'gpt-5')"),
    ("[]", "agents[0].model must not be empty"),
])
def test_a_matrix_whose_models_collide_is_an_error_at_its_line(tmp_path, models, message):
    (tmp_path / "m.mcptest.yml").write_text(f"agents:\n  - name: a\n    model: {models}\n")
    with pytest.raises(InputError) as info:
        load_suite(str(tmp_path / "m.mcptest.yml"))
    assert message in info.value.message and info.value.line == 3


LIVE = forked_mock("""\
servers:
  shop: {command: ["mcptest", "mock", "--tools-from", "shop.yml"]}
agents:
  - name: weather selection
    model: [openai:gpt-4o-mini, anthropic:claude-haiku-4-5]
    servers: [shop]
    prompt: What is the weather in Sacramento?
    runs: 2
    tool_selection: {expected_tool: get_weather, min_selection_rate: 1.0}
""")


def test_a_matrix_of_two_models_records_two_cassettes_live_and_replays_as_two_items(pytester, live_env):  # noqa: F811
    def script(seen):
        if not seen.results:
            return reply(seen, calls=(("get_weather", {"city": "Sacramento"}),), usage=(100, 20))
        return reply(seen, text=f"It is {seen.results[-1]}.", usage=(150, 30))

    (pytester.path / "shop.yml").write_text(MANIFEST)
    pytester.makefile(".mcptest.yml", s=LIVE)
    with FakeProvider(script) as fake:
        live_env(fake)
        live = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once",
                                             "--mcptest-report=live.json")
    live.assert_outcomes(passed=2)
    assert sorted(r.api for r in fake.requests) == ["anthropic"] * 4 + ["openai"] * 4
    for slug, model in (("openai-gpt-4o-mini", "openai:gpt-4o-mini"), ("anthropic-claude-haiku-4-5",
                                                                         "anthropic:claude-haiku-4-5")):
        cassette = json.loads((pytester.path / f"weather-selection-{slug}.json").read_text())
        assert cassette["meta"]["agent"] == f"weather selection [{model}]" and len(cassette["runs"]) == 2
    replay = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=replay.json")
    replay.assert_outcomes(passed=2)
    assert (pytester.path / "live.json").read_bytes() == (pytester.path / "replay.json").read_bytes()
    items = json.loads((pytester.path / "replay.json").read_text())["items"]
    assert [i["name"] for i in items] == ["weather selection [anthropic:claude-haiku-4-5]",
                                         "weather selection [openai:gpt-4o-mini]"]
    for model in ("openai:gpt-4o-mini", "anthropic:claude-haiku-4-5"):
        replay.stdout.fnmatch_lines([f"*tool-selection floor [[]PASS[]] weather selection [[]{model}[]]: "
                                     "selection 2/2 (100%), pass^k 100%, tokens 300 median / 300 max"])
        replay.stdout.fnmatch_lines([f"    [[]{model}[]]*selection 2/2 (100%), pass^k 100%, "
                                     "tokens 300 median / 300 max, cost $0.*"])


def test_the_docs_matrix_suite_loads_as_two_items(tmp_path):
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "agents.md").read_text(encoding="utf-8")
    (block,) = [b.split("```", 1)[0] for b in text.split("```yaml\n")[1:] if "model: [" in b.split("```", 1)[0]]
    (tmp_path / "m.mcptest.yml").write_text(block)
    assert [(b.name, b.cassette) for b in load_suite(str(tmp_path / "m.mcptest.yml")).blocks] == [
        ("weather selection [openai:gpt-4o-mini]", "weather-selection-openai-gpt-4o-mini.json"),
        ("weather selection [anthropic:claude-haiku-4-5]", "weather-selection-anthropic-claude-haiku-4-5.json")]
