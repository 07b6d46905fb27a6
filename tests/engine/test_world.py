"""The scenario-world engine, driven directly through its rule types."""

from __future__ import annotations

import copy
import json

import pytest
from forkserver import through_forkserver

from pytest_mcptest.engine.golden import GoldenOracle, GoldenPath
from pytest_mcptest.engine.paths import parse_path
from pytest_mcptest.engine.trace import Run, Tokens, ToolCall
from pytest_mcptest.engine.world import (
    Effect,
    ForbiddenRule,
    Guard,
    Transition,
    WorldSpec,
    replay_world,
)

P = parse_path


def run_of(*calls, turns=(), tokens=None, cost_micros=None) -> Run:
    """A run from tool names (str), (name, args) pairs, or ready ToolCalls."""
    out = []
    for c in calls:
        if isinstance(c, ToolCall):
            out.append(c)
        elif isinstance(c, tuple):
            out.append(ToolCall(name=c[0], args=c[1]))
        else:
            out.append(ToolCall(name=c))
    return Run(tool_calls=tuple(out), turns=tuple(turns), tokens=tokens, cost_micros=cost_micros)


def t(tool, *effects, when=()):
    return Transition(tool=tool, effects=tuple(effects), when=tuple(when))


def eff(path, op, value):
    return Effect(P(path), op, value)


def guard(path, op, value):
    return Guard(P(path), op, value)


def world(seed=None, transitions=(), forbidden=(), **kw) -> WorldSpec:
    return WorldSpec(seed={} if seed is None else seed, transitions=tuple(transitions),
                     forbidden=tuple(forbidden), **kw)


def assistant(text, **extra):
    return {"role": "assistant", "content": text, **extra}


def user(text):
    return {"role": "user", "content": text}


# --------------------------------------------------------------------------- the widget shop example


def widget_world() -> WorldSpec:
    """The `restock the widget shelf` scenario of the widget shop example, as the builder would make it."""
    return WorldSpec(
        seed={"inventory": {"widgets": 3}, "shelf_full": False},
        transitions=(
            t("add_widget", eff("inventory.widgets", "inc", 1)),
            t("remove_widget", eff("inventory.widgets", "dec", 1), when=[guard("inventory.widgets", "min", 1)]),
            t("mark_full", eff("shelf_full", "set", True)),
        ),
        forbidden=(ForbiddenRule("drop_inventory", "destructive bulk delete is never allowed"),),
        golden=GoldenOracle(GoldenPath(("add_widget", "add_widget", "mark_full"))),
        expect_state=((P("inventory.widgets"), 5), (P("shelf_full"), True)),
    )


def test_widget_example_golden_run():
    result = replay_world(widget_world(), run_of("add_widget", "add_widget", "mark_full"))
    env = result.to_dict()
    assert env["state"] == {"inventory": {"widgets": 5}, "shelf_full": True}
    assert env["state"]["inventory"]["widgets"] == 5
    assert env["state"]["shelf_full"] is True
    assert env["invalid_actions"] == 0
    assert env["forbidden_transitions"] == 0
    assert env["state_matched"] is True
    assert env["golden"]["matched"] is True
    assert env["golden"]["exact"] is True
    assert env["golden"]["alternate"] is False
    # add_widget, add_widget is a consecutive repeat: w = 1 under the strictest policy.
    assert env["golden"]["penalty"] == pytest.approx(1 / (1 + 0.5 * 1))
    assert env["golden"]["repeated_tools"] == 1
    assert env["golden"]["backtracks"] == 0
    assert env["golden"]["extra_steps"] == 0
    assert env["actions"] == 3
    assert env["tool_names"] == ["add_widget", "add_widget", "mark_full"]
    assert result.passed


def test_widget_example_forbidden_and_guard_failure():
    spec = widget_world()
    result = replay_world(spec, run_of("drop_inventory", "remove_widget", "remove_widget", "remove_widget",
                                       "remove_widget"))
    env = result.to_dict()
    assert env["forbidden_transitions"] == 1
    assert env["forbidden"][0]["reason"] == "destructive bulk delete is never allowed"
    assert env["forbidden"][0]["index"] == 0
    # 3 -> 2 -> 1 -> 0, then the min-1 guard fails.
    assert env["state"]["inventory"]["widgets"] == 0
    assert env["invalid_actions"] == 1
    assert env["invalid"][0]["index"] == 4
    assert "inventory.widgets" in env["invalid"][0]["reason"]
    assert env["state_matched"] is False
    assert env["golden"]["matched"] is False
    assert not result.passed


# --------------------------------------------------------------------------- guards


@pytest.mark.parametrize(
    "when, seed, ok",
    [
        (("level", "eq", 2), {"level": 2}, True),
        (("level", "eq", 2), {"level": 3}, False),
        (("level", "eq", 2), {"level": 2.0}, True),  # 1 and 1.0 are one JSON number
        (("level", "eq", 1), {"level": True}, False),  # a boolean is never a number
        (("level", "eq", "on"), {"level": "on"}, True),
        (("level", "eq", {"a": [1]}), {"level": {"a": [1]}}, True),
        (("level", "min", 2), {"level": 2}, True),
        (("level", "min", 2), {"level": 1}, False),
        (("level", "min", 2), {"level": 2.5}, True),
        (("level", "max", 2), {"level": 2}, True),
        (("level", "max", 2), {"level": 3}, False),
        (("level", "max", 2), {"level": -7}, True),
        (("level", "min", 0), {"level": "5"}, False),  # not a number
        (("level", "max", 10), {"level": True}, False),  # a boolean is not a number
        (("level", "min", 0), {"level": None}, False),
        (("level", "eq", 2), {}, False),  # absent fails
        (("level", "min", 0), {}, False),
        (("deep.level", "eq", None), {"deep": {}}, False),  # absent is not null
        (("deep.level", "eq", None), {"deep": {"level": None}}, True),
    ],
)
def test_guard_kinds(when, seed, ok):
    spec = world(seed=copy.deepcopy(seed), transitions=[t("go", eff("done", "set", True), when=[guard(*when)])])
    result = replay_world(spec, run_of("go"))
    if ok:
        assert result.invalid == ()
        assert result.final_state["done"] is True
    else:
        assert len(result.invalid) == 1
        assert "done" not in result.final_state
        assert result.final_state == seed


def test_guard_failure_reasons_name_the_condition():
    spec = world(seed={"n": "x"}, transitions=[t("a", eff("done", "set", 1), when=[guard("n", "min", 1)]),
                                               t("b", eff("done", "set", 1), when=[guard("missing.path", "eq", 1)])])
    result = replay_world(spec, run_of("a", "b"))
    reasons = [i.reason for i in result.invalid]
    assert "n min 1" in reasons[0] and "not a number" in reasons[0]
    assert "missing.path" in reasons[1] and "absent" in reasons[1]


def test_several_guards_must_all_hold():
    spec = world(seed={"a": 1, "b": 5},
                 transitions=[t("go", eff("done", "set", True), when=[guard("a", "eq", 1), guard("b", "max", 4)])])
    result = replay_world(spec, run_of("go"))
    assert len(result.invalid) == 1 and "b max 4" in result.invalid[0].reason
    assert "done" not in result.final_state


# --------------------------------------------------------------------------- effects


def test_effect_set_literal_and_object_copy():
    value = {"items": [1, 2]}
    spec = world(seed={}, transitions=[t("go", eff("box", "set", value), eff("flag", "set", "yes"))])
    result = replay_world(spec, run_of("go"))
    assert result.final_state == {"box": {"items": [1, 2]}, "flag": "yes"}
    result.final_state["box"]["items"].append(3)
    assert value == {"items": [1, 2]}, "the declared value must not be aliased into the state"


def test_effect_set_creates_missing_objects_on_the_way():
    spec = world(seed={"a": {"x": 1}}, transitions=[t("go", eff("a.b.c", "set", 7))])
    result = replay_world(spec, run_of("go"))
    assert result.final_state == {"a": {"x": 1, "b": {"c": 7}}}
    assert result.invalid == ()


def test_effect_inc_counts_absent_as_zero():
    spec = world(seed={}, transitions=[t("go", eff("counter.n", "inc", 2))])
    result = replay_world(spec, run_of("go", "go", "go"))
    assert result.final_state == {"counter": {"n": 6}}


def test_effect_inc_and_dec():
    spec = world(seed={"n": 10, "f": 1.5},
                 transitions=[t("up", eff("n", "inc", 3)), t("down", eff("n", "dec", 4)),
                              t("fl", eff("f", "inc", 0.25))])
    result = replay_world(spec, run_of("up", "down", "down", "fl"))
    assert result.final_state == {"n": 5, "f": 1.75}


def test_effect_dec_may_go_negative_and_from_absent():
    spec = world(seed={}, transitions=[t("down", eff("n", "dec", 2))])
    assert replay_world(spec, run_of("down")).final_state == {"n": -2}


def test_effect_from_arg_with_dotted_path():
    spec = world(seed={"order": {}},
                 transitions=[t("ship", eff("order.city", "from_arg", P("address.city")),
                                eff("order.lines", "from_arg", P("lines")),
                                eff("order.first", "from_arg", P("lines[0].sku")))])
    args = {"address": {"city": "Sacramento", "zip": "95814"}, "lines": [{"sku": "W1"}, {"sku": "W2"}]}
    result = replay_world(spec, run_of(("ship", args)))
    assert result.invalid == ()
    assert result.final_state == {"order": {"city": "Sacramento", "lines": [{"sku": "W1"}, {"sku": "W2"}],
                                            "first": "W1"}}
    result.final_state["order"]["lines"].append("x")
    assert args["lines"] == [{"sku": "W1"}, {"sku": "W2"}], "the call's args must not be aliased into the state"


@pytest.mark.parametrize("args", [{"address": {"zip": "1"}}, {}, None, {"address": "flat"}])
def test_effect_from_arg_missing_argument_is_invalid(args):
    spec = world(seed={"order": {"city": "old"}},
                 transitions=[t("ship", eff("order.city", "from_arg", P("address.city")))])
    result = replay_world(spec, run_of(("ship", args)))
    assert len(result.invalid) == 1
    assert "address.city" in result.invalid[0].reason
    assert result.final_state == {"order": {"city": "old"}}


@pytest.mark.parametrize("op", ["inc", "dec"])
@pytest.mark.parametrize("held", ["three", True, [1], {"a": 1}])
def test_effect_inc_dec_on_non_number_is_invalid_without_mutating(op, held):
    seed = {"n": held, "other": 1}
    spec = world(seed=copy.deepcopy(seed), transitions=[t("go", eff("n", op, 1))])
    result = replay_world(spec, run_of("go"))
    assert len(result.invalid) == 1
    assert "not a number" in result.invalid[0].reason
    assert result.final_state == seed


def test_effect_set_through_a_scalar_is_invalid_without_mutating():
    spec = world(seed={"a": 5}, transitions=[t("go", eff("a.b", "set", 1))])
    result = replay_world(spec, run_of("go"))
    assert len(result.invalid) == 1
    assert result.final_state == {"a": 5}


def test_single_effect_failing_half_way_does_not_mutate():
    spec = world(seed={}, transitions=[t("go", eff("a.b[0]", "set", 1))])
    result = replay_world(spec, run_of("go"))
    assert len(result.invalid) == 1
    assert result.final_state == {}


def test_multi_effect_failing_half_way_does_not_mutate():
    spec = world(seed={}, transitions=[t("go", eff("x", "set", 1), eff("a.b[0]", "set", 1))])
    result = replay_world(spec, run_of("go"))
    assert len(result.invalid) == 1
    assert result.final_state == {}


def test_multi_effect_transition_is_all_or_nothing():
    seed = {"count": 1, "label": "bad", "log": {}}
    spec = world(seed=copy.deepcopy(seed),
                 transitions=[t("go", eff("count", "inc", 1), eff("log.last", "set", "go"), eff("label", "inc", 1))])
    result = replay_world(spec, run_of("go"))
    assert len(result.invalid) == 1
    assert result.final_state == seed  # neither the inc nor the set happened

    ok = world(seed=copy.deepcopy(seed),
               transitions=[t("go", eff("count", "inc", 1), eff("log.last", "set", "go"), eff("label", "set", "ok"))])
    result = replay_world(ok, run_of("go"))
    assert result.invalid == ()
    assert result.final_state == {"count": 2, "label": "ok", "log": {"last": "go"}}


def test_a_multi_effect_write_through_a_null_list_item_is_journaled_and_undone():
    """A path through a list item that is null creates an object there; with several effects
    the write is journaled (the list's old item, not a dict's), and undone when another fails."""
    spec = world(seed={"items": [None], "label": "x"},
                 transitions=[t("go", eff("items[0].done", "set", True), eff("n", "set", 1))])
    result = replay_world(spec, run_of("go"))
    assert result.invalid == ()
    assert result.final_state == {"items": [{"done": True}], "label": "x", "n": 1}

    failing = world(seed={"items": [None], "label": "x"},
                    transitions=[t("go", eff("items[0].done", "set", True), eff("label.deep", "set", 1))])
    result = replay_world(failing, run_of("go"))
    assert len(result.invalid) == 1
    assert result.final_state == {"items": [None], "label": "x"}


def test_multi_effect_from_arg_missing_is_all_or_nothing():
    spec = world(seed={"a": 0},
                 transitions=[t("go", eff("a", "inc", 1), eff("b", "from_arg", P("missing")))])
    result = replay_world(spec, run_of(("go", {"present": 1})))
    assert len(result.invalid) == 1
    assert result.final_state == {"a": 0}


def test_effects_read_the_state_before_the_transition():
    # Every value is computed before anything is written.
    spec = world(seed={"n": 1}, transitions=[t("go", eff("n", "inc", 1), eff("m", "from_arg", P("v")))])
    result = replay_world(spec, run_of(("go", {"v": 9})))
    assert result.final_state == {"n": 2, "m": 9}


def test_transition_without_effects_is_a_legal_no_op():
    spec = world(seed={"n": 1}, transitions=[t("read")])
    result = replay_world(spec, run_of("read", "read"))
    assert result.invalid == () and result.forbidden == ()
    assert result.final_state == {"n": 1}


def test_effect_inc_dec_by_an_argument():
    spec = world(seed={"n": 10}, transitions=[
        t("add", Effect(P("n"), "inc", None, amount_arg=P("qty.count"))),
        t("take", Effect(P("n"), "dec", None, amount_arg=P("qty"))),
    ])
    result = replay_world(spec, run_of(("add", {"qty": {"count": 5}}), ("take", {"qty": 2})))
    assert result.invalid == ()
    assert result.final_state == {"n": 13}
    bad = replay_world(spec, run_of(("take", {"qty": "two"}), ("add", {}), ("take", {"qty": True})))
    assert len(bad.invalid) == 3
    assert "not a number" in bad.invalid[0].reason
    assert "qty.count" in bad.invalid[1].reason
    assert bad.final_state == {"n": 10}


# --------------------------------------------------------------------------- forbidden


def test_forbidden_checked_before_transitions():
    spec = world(seed={"n": 0}, transitions=[t("wipe", eff("n", "set", -1))],
                 forbidden=[ForbiddenRule("wipe", "never wipe")])
    result = replay_world(spec, run_of("wipe"))
    assert len(result.forbidden) == 1 and result.forbidden[0].reason == "never wipe"
    assert result.invalid == ()
    assert result.final_state == {"n": 0}
    env = result.to_dict()
    assert env["forbidden_transitions"] == 1
    assert env["invalid_actions"] == 0
    assert env["forbidden"] == [{"index": 0, "tool": "wipe", "args": None, "reason": "never wipe"}]


def test_forbidden_without_transition_is_not_also_invalid():
    spec = world(seed={}, forbidden=[ForbiddenRule("drop", "no")])
    result = replay_world(spec, run_of("drop", "drop"))
    assert len(result.forbidden) == 2
    assert result.invalid == ()
    assert [f.index for f in result.forbidden] == [0, 1]


def test_forbidden_with_when_only_while_it_holds():
    spec = world(
        seed={"locked": False, "n": 0},
        transitions=[t("write", eff("n", "inc", 1)), t("lock", eff("locked", "set", True))],
        forbidden=[ForbiddenRule("write", "the store is locked", when=(guard("locked", "eq", True),))],
    )
    result = replay_world(spec, run_of("write", "lock", "write", "write"))
    assert [f.index for f in result.forbidden] == [2, 3]
    assert result.forbidden[0].reason == "the store is locked"
    assert result.invalid == ()
    assert result.final_state == {"locked": True, "n": 1}


def test_forbidden_with_when_on_absent_path_does_not_hold():
    spec = world(seed={}, transitions=[t("write", eff("n", "inc", 1))],
                 forbidden=[ForbiddenRule("write", "locked", when=(guard("locked", "eq", True),))])
    result = replay_world(spec, run_of("write"))
    assert result.forbidden == ()
    assert result.final_state == {"n": 1}


def test_forbidden_and_invalid_never_mutate():
    seed = {"n": 3, "nested": {"k": [1, 2]}}
    spec = world(seed=copy.deepcopy(seed),
                 transitions=[t("guarded", eff("n", "set", 99), when=[guard("n", "max", 0)]),
                              t("badinc", eff("nested", "inc", 1))],
                 forbidden=[ForbiddenRule("nuke", "no", ())])
    result = replay_world(spec, run_of("nuke", "guarded", "badinc", "invented"))
    assert result.final_state == seed
    assert len(result.forbidden) == 1
    assert len(result.invalid) == 3


# --------------------------------------------------------------------------- invalid actions, escalation


def test_unknown_tool_is_invalid():
    spec = world(seed={}, transitions=[t("known", eff("x", "set", 1))])
    result = replay_world(spec, run_of(("made_up", {"q": 1}), "known"))
    assert len(result.invalid) == 1
    issue = result.invalid[0]
    assert (issue.index, issue.tool, issue.args) == (0, "made_up", {"q": 1})
    assert "no transition" in issue.reason
    assert result.final_state == {"x": 1}


def test_escalation_tool_without_transition_is_legal_and_counted():
    spec = world(seed={"n": 0}, escalation_tools=("page_human",))
    result = replay_world(spec, run_of("page_human", "page_human"))
    assert result.invalid == ()
    assert result.escalations == 2
    assert result.final_state == {"n": 0}
    assert result.to_dict()["escalations"] == 2


def test_escalation_tool_with_transition_applies_and_counts():
    spec = world(seed={}, transitions=[t("page_human", eff("paged", "set", True))],
                 escalation_tools=("page_human",))
    result = replay_world(spec, run_of("page_human"))
    assert result.escalations == 1
    assert result.final_state == {"paged": True}


def test_escalation_markers_case_insensitive_in_final_responses_only():
    turns = [
        user("please help"),
        assistant("Let me ESCALATE that", tool_calls=[{"name": "x"}]),  # asks for tools: not final
        {"role": "tool", "content": "done"},
        assistant("I will escalate to a Human Agent."),  # followed by user: final
        user("ok"),
        assistant("escalate, escalate"),  # followed by assistant: not final
        assistant("All done."),  # last: final
    ]
    spec = world(seed={}, escalation_markers=("human agent", "ESCALATE"))
    result = replay_world(spec, run_of(turns=turns))
    assert result.turns == 2
    assert result.escalations == 1  # one per final response containing a marker, not per marker


def test_escalation_tool_and_markers_add_up():
    spec = world(seed={}, escalation_tools=("page",), escalation_markers=("paged",))
    result = replay_world(spec, run_of("page", turns=[user("hi"), assistant("I PAGED someone")]))
    assert result.escalations == 2


def test_refusal_markers_case_insensitive_in_final_responses_only():
    turns = [
        user("delete prod"),
        assistant("I can't do that", tool_calls=[{"name": "t"}]),
        {"role": "tool", "content": "I cannot"},
        assistant("Sorry, I CANNOT help with that."),
        user("really?"),
        assistant([{"type": "text", "text": "i won't"}, {"type": "text", "text": "do it"}]),
    ]
    spec = world(seed={}, refusal_markers=("cannot", "I WON'T"))
    result = replay_world(spec, run_of(turns=turns))
    assert result.turns == 2
    assert result.refusals == 2
    assert result.to_dict()["refusals"] == 2


def test_markers_in_user_or_tool_messages_never_count():
    turns = [user("I cannot and will escalate"), {"role": "tool", "content": "cannot escalate"},
             assistant("fine")]
    spec = world(seed={}, refusal_markers=("cannot",), escalation_markers=("escalate",))
    result = replay_world(spec, run_of(turns=turns))
    assert (result.turns, result.refusals, result.escalations) == (1, 0, 0)


def test_no_markers_declared_counts_nothing():
    turns = [user("x"), assistant("I cannot, escalate")]
    result = replay_world(world(seed={}), run_of(turns=turns))
    assert (result.turns, result.refusals, result.escalations) == (1, 0, 0)


# --------------------------------------------------------------------------- errors and recovery


def test_recovery_attempts_follow_errored_calls():
    spec = world(seed={}, transitions=[t("a", eff("n", "inc", 1))])
    calls = [ToolCall("a", error=True), ToolCall("a"), ToolCall("a", error=True), ToolCall("a", error=True),
             ToolCall("a"), ToolCall("a")]
    result = replay_world(spec, run_of(*calls))
    assert result.recovery_indexes == (1, 3, 4)
    assert result.to_dict()["recovery_attempts"] == 3
    assert result.final_state == {"n": 3}  # only the three successful calls applied


def test_errored_call_applies_no_effect_and_is_legal():
    spec = world(seed={"n": 0}, transitions=[t("a", eff("n", "inc", 1), eff("touched", "set", True))])
    result = replay_world(spec, run_of(ToolCall("a", error=True)))
    assert result.final_state == {"n": 0}
    assert result.invalid == ()
    assert result.forbidden == ()
    assert result.recovery_indexes == ()


def test_first_call_errored_last_call_is_not_recovery():
    spec = world(seed={}, transitions=[t("a", eff("n", "inc", 1))])
    result = replay_world(spec, run_of("a", ToolCall("a", error=True)))
    assert result.recovery_indexes == ()


# --------------------------------------------------------------------------- transition choice


def test_several_transitions_first_whose_guard_holds():
    spec = world(
        seed={"stock": 0},
        transitions=[
            t("order", eff("stock", "dec", 1), eff("last", "set", "shipped"), when=[guard("stock", "min", 1)]),
            t("order", eff("backorders", "inc", 1), eff("last", "set", "backordered")),
            t("order", eff("never", "set", True)),
        ],
    )
    result = replay_world(spec, run_of("order"))
    assert result.final_state == {"stock": 0, "backorders": 1, "last": "backordered"}
    spec2 = with_seed(spec, {"stock": 2})
    result = replay_world(spec2, run_of("order", "order", "order"))
    assert result.final_state == {"stock": 0, "backorders": 1, "last": "backordered"}
    assert result.invalid == ()


def with_seed(spec: WorldSpec, seed: dict) -> WorldSpec:
    import msgspec

    return msgspec.structs.replace(spec, seed=seed)


def test_several_transitions_all_guards_fail_names_first_failure():
    spec = world(seed={"a": 0, "b": 0},
                 transitions=[t("go", eff("x", "set", 1), when=[guard("a", "min", 1)]),
                              t("go", eff("x", "set", 2), when=[guard("b", "min", 1)])])
    result = replay_world(spec, run_of("go"))
    assert len(result.invalid) == 1
    assert "a min 1" in result.invalid[0].reason
    assert result.final_state == {"a": 0, "b": 0}


# --------------------------------------------------------------------------- seed, expect_state


def test_seed_never_mutated():
    seed = {"inventory": {"widgets": 3, "bins": [1, 2]}, "shelf_full": False}
    before = copy.deepcopy(seed)
    spec = world(seed=seed,
                 transitions=[t("add", eff("inventory.widgets", "inc", 1)),
                              t("bin", eff("inventory.bins[0]", "set", 9)),
                              t("full", eff("shelf_full", "set", True)),
                              t("new", eff("inventory.new.deep", "set", {"a": 1}))])
    result = replay_world(spec, run_of("add", "bin", "full", "new"))
    assert spec.seed == before
    assert seed == before
    assert result.final_state["inventory"]["widgets"] == 4
    assert result.final_state["inventory"]["bins"] == [9, 2]
    # and a second replay starts from the same seed
    again = replay_world(spec, run_of("add", "bin", "full", "new"))
    assert again.final_state == result.final_state
    # mutating the envelope's state does not reach the result or the seed
    env = result.to_dict()
    env["state"]["inventory"]["widgets"] = -1
    assert result.final_state["inventory"]["widgets"] == 4
    assert spec.seed == before


def test_expect_state_diffs():
    spec = world(
        seed={"a": 1, "b": "x", "c": 1, "d": True, "e": {"f": [1, 2]}},
        expect_state=(
            (P("missing.deep"), 3),  # absent path
            (P("b"), "y"),  # wrong value
            (P("c"), 1.0),  # 1 vs 1.0: equal
            (P("d"), 1),  # true vs 1: not equal
            (P("a"), 1),  # equal
            (P("e.f[-1]"), 2),  # equal, negative index
        ),
    )
    result = replay_world(spec, run_of())
    diffs = {d.path: d for d in result.state_diff}
    assert set(diffs) == {"missing.deep", "b", "d"}
    assert diffs["missing.deep"].present is False
    assert diffs["missing.deep"].to_dict() == {"path": "missing.deep", "expected": 3, "present": False}
    assert diffs["b"].to_dict() == {"path": "b", "expected": "y", "present": True, "actual": "x"}
    assert diffs["d"].actual is True and diffs["d"].expected == 1
    assert result.state_matched is False
    env = result.to_dict()
    assert env["state_matched"] is False
    assert [d["path"] for d in env["state_diff"]] == ["missing.deep", "b", "d"]
    assert not result.passed


def test_expect_state_true_vs_one_other_way_round():
    spec = world(seed={"n": 1}, expect_state=((P("n"), True),))
    assert replay_world(spec, run_of()).state_matched is False


def test_expect_state_all_match():
    spec = world(seed={"c": 2}, expect_state=((P("c"), 2.0),))
    result = replay_world(spec, run_of())
    assert result.state_matched is True and result.state_diff == ()
    assert result.to_dict()["state_matched"] is True


def test_no_expect_state_is_matched():
    assert replay_world(world(seed={"a": 1}), run_of()).to_dict()["state_matched"] is True


# --------------------------------------------------------------------------- the envelope


ENVELOPE_KEYS = {"turns", "actions", "invalid_actions", "forbidden_transitions", "recovery_attempts",
                 "escalations", "refusals", "state_matched", "golden", "tool_names", "state"}


def test_the_envelope_holds_every_documented_key():
    spec = widget_world()
    spec = attrs_evolve(spec, escalation_tools=("page",), refusal_markers=("cannot",))
    run = run_of("add_widget", ToolCall("add_widget", error=True), "mark_full", "page",
                 turns=[user("restock"), assistant("done, but I cannot mark it")], cost_micros=4200,
                 tokens=Tokens(10, 5, 15))
    env = replay_world(spec, run).to_dict()
    assert ENVELOPE_KEYS | {"cost_micros"} <= set(env)
    assert env["turns"] == 1
    assert env["actions"] == 4
    assert env["invalid_actions"] == 0
    assert env["forbidden_transitions"] == 0
    assert env["recovery_attempts"] == 1
    assert env["escalations"] == 1
    assert env["refusals"] == 1
    assert env["state_matched"] is False  # the errored add_widget applied nothing: 4 widgets
    assert env["state"] == {"inventory": {"widgets": 4}, "shelf_full": True}
    assert env["tool_names"] == ["add_widget", "add_widget", "mark_full", "page"]
    assert {"matched", "exact", "alternate", "penalty"} <= set(env["golden"])
    assert env["golden"]["matched"] is False
    assert env["golden"]["exact"] is False
    assert env["golden"]["alternate"] is False
    assert 0 < env["golden"]["penalty"] < 1
    assert env["cost_micros"] == 4200
    assert isinstance(env["turns"], int) and isinstance(env["actions"], int)
    json.dumps(env)  # JSON-serializable


def attrs_evolve(spec, **changes):
    import msgspec

    return msgspec.structs.replace(spec, **changes)


def test_envelope_cost_micros_only_when_recorded():
    env = replay_world(widget_world(), run_of("add_widget")).to_dict()
    assert "cost_micros" not in env
    assert ENVELOPE_KEYS <= set(env)
    env = replay_world(widget_world(), run_of("add_widget", cost_micros=0)).to_dict()
    assert env["cost_micros"] == 0  # recorded zero is kept, not dropped


def test_envelope_golden_alternate():
    spec = attrs_evolve(widget_world(), golden=GoldenOracle(
        GoldenPath(("add_widget", "add_widget", "mark_full")),
        alternates=(("mark_full",), ("add_widget", "mark_full"))))
    env = replay_world(spec, run_of("add_widget", "mark_full")).to_dict()
    assert env["golden"]["matched"] is True
    assert env["golden"]["exact"] is False
    assert env["golden"]["alternate"] is True
    assert env["golden"]["penalty"] == 1.0  # scored against the alternate that matched


def test_envelope_empty_run():
    env = replay_world(widget_world(), run_of()).to_dict()
    assert env["actions"] == 0 and env["turns"] == 0 and env["tool_names"] == []
    assert env["state"] == {"inventory": {"widgets": 3}, "shelf_full": False}
    assert env["golden"]["matched"] is False


def test_another_tools_operator_word_is_a_literal_with_a_warning_at_its_line(pytester):
    suite = ("scenarios:\n  - name: double\n    cassette: c.json\n    seed: {a: 1}\n    transitions:\n"
             "      - tool: double\n        effect: {a: {mul: 2}}\n    expect_state: {a: {mul: 2}}\n")
    pytester.makefile(".mcptest.yml", s=suite)
    (pytester.path / "c.json").write_text('{"runs": [{"tool_calls": [{"name": "double"}]}]}')
    for _ in range(2):  # the second collection (another process) comes from the suite cache, and still warns
        result = through_forkserver(pytester).runpytest_subprocess("-W", "always")
        result.assert_outcomes(passed=1)  # a `set:` of an object sets it as it is
        result.stdout.fnmatch_lines(["*s.mcptest.yml:7: SuiteWarning: 'a': {mul: ...} is not an operator here "
                                     "(operators: set, inc, dec, from_arg)*"])
    assert list((pytester.path / ".pytest_cache" / "d" / "mcptest-suites").glob("*-s.mcptest.yml.pickle"))


@pytest.mark.parametrize("op,value", [("eq", 3), ("eq", {"a": [1]}), ("min", 2), ("max", 2), ("min", 2.5)])
@pytest.mark.parametrize("state", [{}, {"x": 3}, {"x": 2}, {"x": "3"}, {"x": True}, {"x": {"a": [1]}}, {"x": None}])
def test_a_guard_holds_exactly_when_it_has_no_failure(op, value, state):
    """The replay asks ``holds`` (no wording); the failure text comes from ``failure``: they agree."""
    from pytest_mcptest.engine.world import Guard

    guard = Guard(("x",), op, value)
    assert guard.holds(state) is (guard.failure(state) is None)


@pytest.mark.parametrize("server, result, turn, flagged", [
    (s, r, t, f) for s in (None, "shop") for r in (None, {"ok": True}) for t in (None, 0) for f in (False, True)])
def test_a_calls_envelope_entry_names_what_was_recorded_in_one_order(server, result, turn, flagged):
    """A call's envelope entry: name, server, args, error, result, turn, args_invalid_json, in
    this order, each optional one only when recorded (a full call takes a shortcut)."""
    call = ToolCall("add", {"n": 1}, server, True, result, turn, flagged)
    expected = [("name", "add")] + ([("server", server)] if server is not None else []) + [
        ("args", {"n": 1}), ("error", True)] + ([("result", result)] if result is not None else []) + (
        [("turn", turn)] if turn is not None else []) + ([("args_invalid_json", True)] if flagged else [])
    assert list(call.to_dict().items()) == expected


def test_a_spec_leaves_the_rules_handed_to_it_as_they_were():
    """No hidden state: building specs from shared rules changes nothing in the rules, and
    what a rule works out from its fields is there from its making."""
    import msgspec

    from pytest_mcptest.engine.world import Effect, ForbiddenRule, Guard, Transition, WorldSpec

    guard = Guard(("stock", "widgets"), "min", 1)
    rule = Transition("buy", effects=(Effect(("stock", "widgets"), "dec", 1),), when=(guard,))
    never = ForbiddenRule("wipe", "never", when=(guard,))
    def state(rule):  # its fields and what it worked out from them
        return msgspec.structs.asdict(rule), dict(getattr(rule, "__dict__", {}))

    before = [state(r) for r in (guard, rule, never)]
    assert guard._head == ("stock",) and guard._key == "widgets" and rule._direct
    specs = [WorldSpec(seed={"stock": {"widgets": n}}, transitions=(rule,), forbidden=(never,)) for n in range(6)]
    assert [state(r) for r in (guard, rule, never)] == before
    assert all(spec.transitions_by_tool == {"buy": (rule,)} for spec in specs)
