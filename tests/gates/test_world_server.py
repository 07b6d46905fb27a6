"""``mcptest serve SUITE::SCENARIO``: the README's widget world served to a real
``mcp.ClientSession`` over stdio. The state it answers is the engine's, refused calls are
tool errors carrying the rule's words, and the recorded session replays under the same
scenario with the same verdict; faults apply; bad input is one clear message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
from forkserver import forked
from live_fake import live_env  # noqa: F401 - a fixture
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget
from suites import SERVED_WIDGETS

from pytest_mcptest.formats.cassette import load_cassette
from pytest_mcptest.engine.world import replay_world
from pytest_mcptest.errors import InputError
from pytest_mcptest.gates.suite_build import load_suite

ROOT = Path(__file__).resolve().parents[2]
NAME = "restock the widget shelf"


@pytest.fixture
def shop(tmp_path) -> Path:
    """The README's first suite, its cassette pointed at the one the served session writes."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    suite = readme.split("```yaml\n", 1)[1].split("```", 1)[0].replace("cassettes/restock.json", "served.json")
    path = tmp_path / "shop.mcptest.yml"
    path.write_text(suite, encoding="utf-8")
    return path


def session(suite: Path, calls, *extra):
    """Serve the world, make ``calls`` ([(tool, args)]) in one ClientSession; the tool
    names listed and each answer as (is_error, text)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def body():
        command = forked([sys.executable, "-m", "pytest_mcptest.cli", "serve", f"{suite.name}::{NAME}", *extra])
        params = StdioServerParameters(command=command[0], cwd=str(suite.parent), args=command[1:])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                listed = await client.list_tools()
                answers = []
                for tool, args in calls:
                    result = await client.call_tool(tool, args)
                    answers.append((result.is_error, result.content[0].text))
                return [t.name for t in listed.tools], {t.name: t for t in listed.tools}, answers

    return anyio.run(body)


def test_the_served_world_answers_what_the_engine_says_and_its_recording_replays(shop, pytester):
    calls = [("add_widget", {}), ("add_widget", {}), ("mark_full", {}), ("check_stock", {})]
    names, tools, answers = session(shop, calls, "--record", "served.json")
    assert names == ["add_widget", "remove_widget", "mark_full", "check_stock", "drop_inventory"]
    assert tools["add_widget"].description == "Put one widget on the shelf."
    assert answers[:2] == [(False, '{"widgets": 4}'), (False, '{"widgets": 5}')]
    assert answers[2] == (False, "ok")  # no result: declared
    # the state the read tool returns is the state the engine's replay of the recording computes
    block = load_suite(str(shop)).blocks[0]
    run = load_cassette(str(shop.parent / "served.json")).runs[0]
    final = replay_world(block.world, run).final_state
    assert json.loads(answers[3][1]) == {"widgets": final["inventory"]["widgets"], "full": final["shelf_full"]}
    assert final == {"inventory": {"widgets": 5}, "shelf_full": True}

    pytester.makefile(".mcptest.yml", shop=shop.read_text(encoding="utf-8"))
    (pytester.path / "served.json").write_bytes((shop.parent / "served.json").read_bytes())
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_refused_calls_are_tool_errors_with_the_rules_words_and_the_replay_agrees(shop):
    calls = [("remove_widget", {})] * 4 + [("drop_inventory", {}), ("teleport", {})]
    _, _, answers = session(shop, calls, "--record", "served.json")
    assert answers[:3] == [(False, "ok")] * 3
    assert answers[3] == (True, "refused: remove_widget: guard inventory.widgets min 1 failed (was 0)")
    assert answers[4] == (True, "refused: drop_inventory is forbidden: destructive bulk delete is never allowed")
    assert answers[5] == (True, "refused: teleport: no transition is declared for this tool")
    result = replay_world(load_suite(str(shop)).blocks[0].world, load_cassette(str(shop.parent / "served.json")).runs[0])
    assert [(i.index, i.reason) for i in result.invalid] == [
        (3, "guard inventory.widgets min 1 failed (was 0)"), (5, "no transition is declared for this tool")]
    assert [(f.index, f.reason) for f in result.forbidden] == [(4, "destructive bulk delete is never allowed")]
    assert result.final_state["inventory"]["widgets"] == 0


def test_a_fault_of_the_mock_server_applies_and_leaves_the_world_unchanged(shop):
    _, _, answers = session(shop, [("add_widget", {}), ("add_widget", {})], "--fault", "recover-after:1")
    assert answers[0] == (True, "mcptest serve fault recover-after:1: call 1 of the first 1 fails")
    assert answers[1] == (False, '{"widgets": 4}')  # the faulted call changed nothing


def test_each_session_starts_at_the_seed(shop):
    assert session(shop, [("add_widget", {})])[2] == [(False, '{"widgets": 4}')]
    assert session(shop, [("add_widget", {})])[2] == [(False, '{"widgets": 4}')]


WORLD = """\
scenarios:
  - name: orders
    seed: {orders: {}, count: 0}
    tools:
      cancel: {description: Cancel an order., input_schema: {type: object, properties: {id: {type: string}}}}
    transitions:
      - tool: place
        effect: {last: {from_arg: order.id}, count: {inc: {from_arg: qty}}}
        result: [{type: text, text: {from_arg: order.id}}]
      - tool: cancel
        effect: {cancelled: {from_arg: id}}
        result: {cancelled: {from_state: cancelled}, left: {from_state: count}}
"""


def test_results_fill_templates_and_schemas_are_inferred_from_the_arguments_read(tmp_path):
    from pytest_mcptest.engine.world_tools import answer

    path = tmp_path / "w.mcptest.yml"
    path.write_text(WORLD, encoding="utf-8")
    block = load_suite(str(path)).blocks[0]
    from pytest_mcptest.gates.scenario import world_tools

    tools = {t.name: t for t in world_tools(block)}
    assert tools["place"].inferred and not tools["cancel"].inferred
    assert tools["place"].input_schema == {
        "type": "object", "required": ["order", "qty"],
        "properties": {"order": {"type": "object", "required": ["id"], "properties": {"id": {}}},
                       "qty": {"type": "number"}}}
    state = {"orders": {}, "count": 0}
    assert answer(block.world, state, "place", {"order": {"id": "A7"}, "qty": 2}) == (
        "applied", {"content": [{"type": "text", "text": "A7"}], "isError": False})
    kind, result = answer(block.world, state, "cancel", {"id": "A7"})
    assert json.loads(result["content"][0]["text"]) == {"cancelled": "A7", "left": 2}
    kind, result = answer(block.world, state, "place", {"qty": 1})  # the effect cannot read order.id
    assert result["isError"] and "the call has no argument order.id" in result["content"][0]["text"]
    assert state["count"] == 2  # all or nothing


@pytest.mark.parametrize("edit, words, line", [
    (("result: {cancelled: {from_state: cancelled}", "result: {cancelled: {from_state: nowhere.at_all}"),
     "from_state 'nowhere.at_all' names a path that is not in the seed and that no effect writes", 12),
    (("effect: {last: {from_arg: order.id}", "effect: {last: {from_arg: 'order.lines[0]'}"),
     "tool 'place': its input schema cannot be inferred from the argument path 'order.lines[0]'", 7),
    (("effect: {cancelled: {from_arg: id}}", "effect: {cancelled: {from_arg: order_id}}"),
     "tool 'cancel': its transitions read the argument 'order_id', which its input_schema does not declare", 5),
])
def test_a_result_naming_an_absent_path_or_a_schema_that_cannot_be_inferred_or_lacks_an_argument_is_an_error(
        tmp_path, edit, words, line):
    path = tmp_path / "w.mcptest.yml"
    path.write_text(WORLD.replace(*edit), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_suite(str(path))
    assert words in caught.value.message and caught.value.line == line


def test_serve_an_unknown_scenario_or_a_bad_suite_exits_2_with_one_clear_line(shop):
    def serve(target, *extra):
        return subprocess.run(forked([sys.executable, "-m", "pytest_mcptest.cli", "serve", target, *extra]),
                              cwd=shop.parent, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)

    done = serve("shop.mcptest.yml::restock the widget shelves")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("mcptest serve: error: shop.mcptest.yml: no scenario named 'restock the widget "
                                   "shelves' (scenarios: 'restock the widget shelf'); did you mean "
                                   "'restock the widget shelf'?")
    done = serve("shop.mcptest.yml::restock the widget shelf", "--run", "2")
    assert done.returncode == 2 and done.stderr == ("mcptest serve: error: --run applies to a recording, not to a "
                                                    "world (SUITE::SCENARIO)\n")
    (shop.parent / "bad.mcptest.yml").write_text("scenarios:\n  - name: x\n    seeds: {}\n", encoding="utf-8")
    done = serve("bad.mcptest.yml::x")
    assert done.returncode == 2 and "Traceback" not in done.stderr and "bad.mcptest.yml:3" in done.stderr


LIVE = """\
scenarios:
  - name: restock live
    model: openai:gpt-4o-mini
    prompt: Restock the widget shelf, then check the stock.
    world: true
    runs: 2
    cassette: live-world.json
""" + SERVED_WIDGETS + """\
    forbidden: [{tool: drop_inventory, reason: destructive bulk delete is never allowed}]
    expect_state: {inventory.widgets: 5, shelf_full: true}
"""


def test_a_scenario_records_itself_inside_its_world_and_its_replay_reaches_the_same_state(pytester, live_env,  # noqa: F811
                                                                                          servers_forked):
    from live_fake import FakeProvider, reply

    plan = ["add_widget", "add_widget", "drop_inventory", "mark_full", "check_stock"]

    def script(seen):
        done = len(seen.results)
        if done < len(plan):
            return reply(seen, calls=((plan[done], {}),))
        return reply(seen, text=f"Done: {seen.results[-1]}")

    pytester.makefile(".mcptest.yml", s=LIVE)
    with FakeProvider(script) as fake:
        live_env(fake)
        live = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once",
                                             "--mcptest-report=live.json")
    assert {t for r in fake.requests for t in r.tool_names} == {"add_widget", "mark_full", "check_stock",
                                                               "drop_inventory"}
    live.assert_outcomes(failed=1)  # the agent tried the forbidden call, in both episodes
    cassette = json.loads((pytester.path / "live-world.json").read_text())
    assert len(cassette["runs"]) == 2
    for run in cassette["runs"]:  # each episode from the seed: the same answers
        calls = run["tool_calls"]
        assert [c["name"] for c in calls] == plan
        assert calls[2]["error"] and "destructive bulk delete" in calls[2]["result"]["content"][0]["text"]
        assert json.loads(calls[4]["result"]["content"][0]["text"]) == {"widgets": 5, "full": True}
    replay = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=replay.json")
    replay.assert_outcomes(failed=1)
    assert (pytester.path / "live.json").read_bytes() == (pytester.path / "replay.json").read_bytes()
    runs = json.loads((pytester.path / "replay.json").read_text())["items"][0]["envelope"]["runs"]
    assert [r["state"] for r in runs] == [{"inventory": {"widgets": 5}, "shelf_full": True}] * 2
    assert [r["forbidden_transitions"] for r in runs] == [1, 1]


def test_any_suite_can_use_a_world_as_a_server(shop, pytester, servers_forked):
    pytester.makefile(".mcptest.yml", shop=shop.read_text(encoding="utf-8"), quality=f"""\
servers:
  widgets: {{world: "shop.mcptest.yml::{NAME}"}}
tool_quality:
  - name: the world's catalog
    server: widgets
    expect:
      - tool_count: {{exact: 5}}
""")
    result = pytester.runpytest("-p", "no:cacheprovider", "quality.mcptest.yml", "--mcptest-report=r.json")
    result.assert_outcomes(passed=1)
    envelope = json.loads((pytester.path / "r.json").read_text())["items"][0]["envelope"]
    assert envelope["tool_count"] == 5


def test_over_http_each_session_has_its_own_state_and_its_own_run(shop):
    import socket

    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(forked([sys.executable, "-m", "pytest_mcptest.cli", "serve", f"{shop.name}::{NAME}",
                                      "--http", f"127.0.0.1:{port}", "--record", "served.json"]), cwd=shop.parent,
                              stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for line in server.stderr:
            if "on http://" in line:
                break

        async def one(tools):
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write), \
                    ClientSession(read, write) as client:
                await client.initialize()
                return [(await client.call_tool(t, {})).content[0].text for t in tools]

        async def both():
            return await one(["add_widget", "add_widget"]), await one(["add_widget", "check_stock"])

        first, second = anyio.run(both)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert first == ['{"widgets": 4}', '{"widgets": 5}']
    assert second == ['{"widgets": 4}', '{"full": false, "widgets": 4}']
    runs = json.loads((shop.parent / "served.json").read_text())["runs"]
    assert [[c["name"] for c in r["tool_calls"]] for r in runs] == [["add_widget"] * 2, ["add_widget", "check_stock"]]


@settings(max_examples=budget(60), deadline=None, database=None)
@given(st.lists(st.sampled_from(["add_widget", "remove_widget", "mark_full", "check_stock", "drop_inventory",
                                 "teleport"]), max_size=12))
def test_any_live_session_reaches_the_state_its_replay_computes(names):
    """What the server does for each call, then the replay of those calls with the error
    flags the agent saw: the same final state, the same refused calls."""
    from pytest_mcptest.engine.trace import Run, ToolCall
    from pytest_mcptest.engine.values import copy_json
    from pytest_mcptest.engine.world_tools import answer

    block = load_suite(str(ROOT / "tests" / "data" / "world-widgets.yml")).blocks[0]
    state = copy_json(block.world.seed)
    answered = [answer(block.world, state, name, {}) for name in names]
    replay = replay_world(block.world, Run(tool_calls=tuple(
        ToolCall(name=n, args={}, error=r["isError"]) for n, (_, r) in zip(names, answered))))
    assert replay.final_state == state
    assert sorted(i.index for i in (*replay.invalid, *replay.forbidden)) == [
        i for i, (_, r) in enumerate(answered) if r["isError"]]
