"""State mismatches are shown leaf by leaf, not as two truncated blobs."""

from __future__ import annotations

from pytest_mcptest import Run, ToolCall, WorldSpec, replay_world
from pytest_mcptest.engine.paths import parse_path
from pytest_mcptest.engine.values import ABSENT, json_diff, show


def test_json_diff_finds_the_differing_leaves():
    expected = {"pay": [{"id": "c1", "amount": 5}], "cabin": "economy", "gone": 1}
    actual = {"pay": [{"id": "c1", "amount": 55}], "cabin": "economy", "extra": True}
    assert json_diff(expected, actual) == [
        (("pay", 0, "amount"), 5, 55),
        (("gone",), 1, ABSENT),
        (("extra",), ABSENT, True),
    ]


def test_json_diff_stops_at_lists_of_other_lengths_and_types():
    assert json_diff([1, 2], [1, 2, 3]) == [((), [1, 2], [1, 2, 3])]
    assert json_diff({"a": 1}, [1]) == [((), {"a": 1}, [1])]
    assert json_diff(1, 1.0) == [] and json_diff(True, 1) == [((), True, 1)]


def test_json_diff_is_bounded():
    assert len(json_diff({str(i): i for i in range(50)}, {}, limit=8)) == 8


def test_state_diff_leaves_name_full_paths():
    spec = WorldSpec(seed={"booked": {"pay": [{"amount": 55}]}},
                     expect_state=((parse_path("booked.pay"), [{"amount": 5}]), (parse_path("missing"), 1)))
    result = replay_world(spec, Run(tool_calls=()))
    leaves = [leaf for d in result.state_diff for leaf in d.leaves()]
    assert leaves == [("booked.pay[0].amount", 5, 55), ("missing", 1, ABSENT)]
    assert show(ABSENT) == "absent"
    assert replay_world(spec, Run(tool_calls=(ToolCall("x"),))).invalid  # unknown tool still invalid


def test_anthropic_tool_use_turns_are_not_final_responses():
    from pytest_mcptest.engine.trace import final_responses

    turns = (
        {"role": "user", "content": "where is my order?"},
        {"role": "assistant", "content": [{"type": "text", "text": "I cannot see it yet, let me look"},
                                          {"type": "tool_use", "id": "t1", "name": "find", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "shipped"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "It shipped."}]},
        {"role": "user", "content": [{"type": "text", "text": "thanks"}]},
        {"role": "assistant", "content": "Glad to help."},
    )
    assert final_responses(turns) == ("It shipped.", "Glad to help.")
