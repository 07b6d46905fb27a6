"""A scenario's N runs: N episodes, each from the seed, judged one by one by the world and
together by ``stability:``; on replay from a cassette of N runs, and recorded live inside
the served world against the loopback fake model. And the served world and the replay
count a refused call the same way, even one whose guard held but whose effects could not
be applied."""

from __future__ import annotations

import json
import sys

from forkserver import forked
from live_fake import live_env  # noqa: F401 - a fixture
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget
from suites import SERVED_WIDGETS

from pytest_mcptest.errors import InputError
from pytest_mcptest.cli import main
from pytest_mcptest.gates.context import Context
from pytest_mcptest.gates.evaluate import evaluate
from pytest_mcptest.gates.suite_build import load_suite

WORLD = """\
scenarios:
  - name: restock
    cassette: episodes.json
    runs: 3
""" + SERVED_WIDGETS + """\
    expect_state: {inventory.widgets: 5, shelf_full: true}
    stability:
      expect:
        - FLOOR
"""

GOOD = ["add_widget", "add_widget", "mark_full", "check_stock"]
SHORT = ["add_widget", "check_stock"]  # one widget short: the world's state misses expect_state


def _cassette(*plans) -> dict:
    return {"mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": n, "args": {}} for n in plan]}
                                            for plan in plans]}


@pytest.mark.parametrize("floor, outcome", [
    ('stability.pass_rate: {">=": 60}', "passed"),  # 2 of 3 episodes right: 66.67%
    ('stability.pass_hat_k."3": {">=": 50}', "failed"),  # never 3 out of 3
])
def test_a_cassette_of_n_runs_is_judged_run_by_run_by_the_world_and_together_by_stability(pytester, floor, outcome):
    pytester.makefile(".mcptest.yml", s=WORLD.replace("FLOOR", floor))
    (pytester.path / "episodes.json").write_text(json.dumps(_cassette(GOOD, SHORT, GOOD)))
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=r.json")
    result.assert_outcomes(**{outcome: 1})
    result.stdout.fnmatch_lines(["*s.mcptest.yml::restock: 2 of 3 runs passed, 66.67% *pass^1 66.67, pass^2 33.33, "
                                 "pass^3 0; 1 flaky task*"])
    item = json.loads((pytester.path / "r.json").read_text())["items"][0]
    assert [r["passed"] for r in item["runs"]] == [True, False, True]
    envelope = item["envelope"]
    assert [r["state"]["inventory"]["widgets"] for r in envelope["runs"]] == [5, 4, 5]
    assert [r["state_matched"] for r in envelope["runs"]] == [True, False, True]
    assert envelope["stability"]["pass_hat_k"] == {"1": 66.67, "2": 33.33, "3": 0.0}
    assert (envelope["stability"]["runs"], envelope["stability"]["passed_runs"]) == (3, 2)
    if outcome == "failed":
        result.stdout.fnmatch_lines(["*restock #2 (run 2 of 3): expect_state: inventory.widgets: expected 5, got 4*",
                                     '*expect: stability.pass_hat_k."3": expected >= 50, got 0.0*'])


def test_without_stability_every_run_must_pass(pytester):
    suite = WORLD.split("    stability:")[0]
    pytester.makefile(".mcptest.yml", s=suite)
    (pytester.path / "episodes.json").write_text(json.dumps(_cassette(GOOD, SHORT, GOOD)))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.no_fnmatch_line("*mcptest: stability*")


def test_a_matrix_scenario_reads_stability_and_its_pair_figures_together(tmp_path):
    from pytest_mcptest.gates.evaluate import evaluate

    suite = WORLD.replace("FLOOR", 'stability.pass_rate: {">=": 60}').replace(
        "    runs: 3\n", "    runs: 3\n    model: [openai:gpt-4o-mini]\n    prompt: Restock.\n    world: true\n")
    path = tmp_path / "m.mcptest.yml"
    path.write_text(suite)
    (block,) = load_suite(str(path)).blocks
    (tmp_path / block.cassette).write_text(json.dumps(_cassette(GOOD, SHORT, GOOD)))
    verdict = evaluate(block)
    assert verdict.passed
    assert verdict.envelope["stability"]["passed_runs"] == 2
    assert verdict.envelope["model_matrix"]["passed_runs"] == 2


LIVE = """\
scenarios:
  - name: episodes
    model: openai:gpt-4o-mini
    prompt: Restock the widget shelf, then check the stock.
    world: true
    runs: 3
    cassette: live-episodes.json
""" + SERVED_WIDGETS + """\
    expect_state: {inventory.widgets: 5, shelf_full: true}
    stability:
      expect:
        - stability.pass_rate: {">=": 60}
"""


def test_a_live_recording_with_runs_3_makes_3_episodes_each_from_the_seed(pytester, live_env,  # noqa: F811
                                                                          servers_forked):
    """The model acts differently in each episode (the second stops one widget short); had an
    episode started where the one before ended, its first add_widget would not answer 4."""
    from live_fake import FakeProvider, reply

    plans = [GOOD, SHORT, GOOD]
    episode = [-1]

    def script(seen):
        if not seen.results:  # an episode's first request (the runs are recorded one at a time)
            episode[0] += 1
        plan, done = plans[episode[0]], len(seen.results)
        if done < len(plan):
            return reply(seen, calls=((plan[done], {}),))
        return reply(seen, text=f"Done: {seen.results[-1]}")

    pytester.makefile(".mcptest.yml", s=LIVE)
    with FakeProvider(script) as fake:
        live_env(fake)
        live = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once",
                                             "--mcptest-live-concurrency=1", "--mcptest-report=live.json")
    live.assert_outcomes(passed=1)  # 2 of 3 episodes right, and the floor is 60%
    runs = json.loads((pytester.path / "live-episodes.json").read_text())["runs"]
    assert [[c["name"] for c in r["tool_calls"]] for r in runs] == plans
    answers = [[json.loads(c["result"]["content"][0]["text"]) for c in r["tool_calls"] if c["name"] != "mark_full"]
               for r in runs]
    assert [a[0] for a in answers] == [{"widgets": 4}] * 3  # every episode's first call sees the seed's 3
    assert [a[-1] for a in answers] == [{"widgets": 5, "full": True}, {"widgets": 4, "full": False},
                                        {"widgets": 5, "full": True}]  # episode 2 carries none of episode 1
    replay = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=replay.json")
    replay.assert_outcomes(passed=1)
    assert (pytester.path / "live.json").read_bytes() == (pytester.path / "replay.json").read_bytes()
    envelope = json.loads((pytester.path / "replay.json").read_text())["items"][0]["envelope"]
    assert [r["state"]["inventory"]["widgets"] for r in envelope["runs"]] == [5, 4, 5]
    assert envelope["stability"]["passed_runs"] == 2


# --------------------------------------------------------------------------- live and replay agree

STRICT = """\
scenarios:
  - name: orders
    seed: {count: 0, box: 7, open: true}
    transitions:
      - tool: place
        when: {open: true}
        effect: {last: {from_arg: order.id}, count: {inc: {from_arg: qty}}}
      - tool: pack
        effect: {box.label: {from_arg: label}}
      - tool: close
        effect: {open: false}
      - {tool: peek, result: {count: {from_state: count}, last: {from_state: last}}}
"""

ARGS = st.one_of(st.just({}), st.just({"qty": 1}), st.just({"order": {"id": "A"}, "qty": 2}),
                 st.just({"order": {"id": "B"}, "qty": "two"}), st.just({"label": "L"}))


@settings(max_examples=budget(80), deadline=None, database=None)
@given(st.lists(st.tuples(st.sampled_from(["place", "pack", "close", "nope"]), ARGS), max_size=10))
def test_the_served_world_and_the_replay_count_every_refused_call_alike(tmp_path_factory, calls):
    """Guards that hold over effects that cannot be applied (an argument missing or not a
    number, a path through a number): the served world answers a tool error and changes
    nothing; the replay of that error counts the same invalid action and reaches the same state."""
    from pytest_mcptest.engine.trace import Run, ToolCall
    from pytest_mcptest.engine.values import copy_json
    from pytest_mcptest.engine.world import replay_world
    from pytest_mcptest.engine.world_tools import answer

    path = tmp_path_factory.getbasetemp() / "strict.yml"
    path.write_text(STRICT)
    world = load_suite(str(path)).blocks[0].world
    state = copy_json(world.seed)
    answered = [answer(world, state, name, args) for name, args in calls]
    replay = replay_world(world, Run(tool_calls=tuple(
        ToolCall(name=n, args=a, error=r["isError"]) for (n, a), (_, r) in zip(calls, answered))))
    assert replay.final_state == state
    assert [i.index for i in replay.invalid] == [i for i, (kind, _) in enumerate(answered) if kind == "invalid"]
    assert [f"refused: {calls[i.index][0]}: {i.reason}" for i in replay.invalid] == [
        r["content"][0]["text"] for kind, r in answered if kind == "invalid"]


def test_an_errored_call_whose_effects_could_not_apply_is_invalid_and_one_that_could_is_not(tmp_path):
    from pytest_mcptest.engine.trace import Run, ToolCall
    from pytest_mcptest.engine.world import replay_world

    path = tmp_path / "strict.yml"
    path.write_text(STRICT)
    world = load_suite(str(path)).blocks[0].world
    result = replay_world(world, Run(tool_calls=(
        ToolCall(name="place", args={"qty": 1}, error=True),  # the world could not have applied it
        ToolCall(name="place", args={"order": {"id": "A"}, "qty": 2}, error=True),  # it could: the server refused
        ToolCall(name="pack", args={"label": "L"}, error=True),  # box is 7: box.label goes through a number
    )))
    assert [(i.index, i.reason) for i in result.invalid] == [
        (0, "effect last from_arg order.id: the call has no argument order.id"),
        (2, "box is not an object, so box.label cannot be set")]
    assert result.final_state == world.seed


def test_a_served_session_and_the_replay_of_its_recording_count_the_same_invalid_calls(tmp_path):
    """Over a real ``mcp.ClientSession`` against ``mcptest serve --record``: the calls the
    world refused, even those whose guard held, are the replay's invalid actions, and the
    state the read tool answered is the replay's final state."""
    import sys

    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from pytest_mcptest.formats.cassette import load_cassette
    from pytest_mcptest.engine.world import replay_world

    (tmp_path / "orders.mcptest.yml").write_text(STRICT.replace("  - name: orders\n",
                                                                "  - name: orders\n    cassette: served.json\n"))
    calls = [("place", {"qty": 1}), ("place", {"order": {"id": "A"}, "qty": 2}), ("pack", {"label": "L"}),
             ("place", {"order": {"id": "B"}, "qty": "two"}), ("close", {}),
             ("place", {"order": {"id": "C"}, "qty": 1}), ("peek", {})]

    async def body():
        command = forked([sys.executable, "-m", "pytest_mcptest.cli", "serve", "orders.mcptest.yml::orders", "--record",
                          "served.json"])
        params = StdioServerParameters(command=command[0], cwd=str(tmp_path), args=command[1:])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            return [await client.call_tool(name, args) for name, args in calls]

    answers = anyio.run(body)
    refused = [i for i, a in enumerate(answers) if a.is_error]
    assert refused == [0, 2, 3, 5]
    world = load_suite(str(tmp_path / "orders.mcptest.yml")).blocks[0].world
    result = replay_world(world, load_cassette(str(tmp_path / "served.json")).runs[0])
    assert [i.index for i in result.invalid] == refused
    assert [f"refused: {calls[i.index][0]}: {i.reason}" for i in result.invalid] == [
        answers[i].content[0].text for i in refused]
    assert json.loads(answers[-1].content[0].text) == {"count": 2, "last": "A"}
    assert result.final_state == {"count": 2, "box": 7, "open": False, "last": "A"}

    # `mcptest init` on the served cassette starts from the world it was served from (it wrote
    # `seed: {}` and transitions without effects), and expects the state the run reached.
    import os

    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(["init", "served.json", "--kind", "scenario", "-o", "again.mcptest.yml"]) == 0
    finally:
        os.chdir(here)
    written = (tmp_path / "again.mcptest.yml").read_text()
    block = load_suite(str(tmp_path / "again.mcptest.yml")).blocks[0]
    assert block.world.seed == world.seed and len(block.world.transitions) == len(world.transitions)
    assert "expect_state:" in written
    assert replay_world(block.world, load_cassette(str(tmp_path / "served.json")).runs[0]).final_state == \
        result.final_state
    verdict = evaluate(block, Context(root=str(tmp_path)))
    # judged as its world judged it: the calls the world refused, and nothing else (its state is expected)
    assert sorted({f.gate for f in verdict.failures}) == ["invalid_action"]
    assert len(verdict.failures) == len(refused)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("edit, words, line", [
    ("    world: true\n", "world: true: a live recording acts in the scenario's own world, which needs an agent: "
     "add model: and prompt:", 4),
    ("    servers: [world]\n    model: openai:gpt-4o-mini\n", "servers: [world]: a live recording acts in the "
     "scenario's own world, which needs an agent: add prompt:", 4),
    ("    runs: 0\n", "scenarios[0].runs must be >= 1, found 0", 4),
    ("    runs: two\n", "scenarios[0].runs must be integer, found string \"two\"", 4),
    ("    stability: {}\n", "stability: needs an expect: list", 4),
    ("    stability: {expects: []}\n", "unknown key 'expects' in scenarios[0].stability; did you mean 'expect'?", 4),
])
def test_bad_runs_world_or_stability_keys_are_one_error_at_their_line(tmp_path, edit, words, line):
    suite = WORLD.split("    stability:")[0].replace("    runs: 3\n", "")
    suite = suite.replace("    cassette: episodes.json\n", "    cassette: episodes.json\n" + edit)
    path = tmp_path / "bad.mcptest.yml"
    path.write_text(suite)
    with pytest.raises(InputError) as caught:
        load_suite(str(path))
    assert words in caught.value.render() and caught.value.line == line
    assert caught.value.path == str(path)
