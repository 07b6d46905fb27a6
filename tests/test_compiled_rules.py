"""Rules compiled into functions (``engine/compiled.py``): when, and that they decide as the rules do."""

from __future__ import annotations

import copy
import pickle

import pytest

from pytest_mcptest.engine import compiled as compiled_module
from pytest_mcptest.engine import world
from pytest_mcptest.engine.paths import parse_path
from pytest_mcptest.engine.trace import Run, ToolCall
from pytest_mcptest.engine.world import COMPILE_AT, Effect, ForbiddenRule, Guard, Transition, WorldSpec, replay_world


def outcome(spec: WorldSpec, run: Run) -> tuple:
    result = replay_world(spec, run)
    return (repr(result.final_state), [(i.index, i.reason) for i in result.invalid],
            [(f.index, f.reason) for f in result.forbidden])


def shared_rules():
    add = Transition("add", (Effect(("stock", "n"), "inc", None, amount_arg=("qty",)),),
                     (Guard(("open",), "eq", True), Guard(("stock", "n"), "max", 10)))
    close = Transition("close", (Effect(("open",), "set", False), Effect(("note",), "set", {"by": "x"})))
    rule = ForbiddenRule("add", "closed", (Guard(("open",), "eq", False),))
    return add, close, rule


def test_rules_are_compiled_once_enough_specs_hold_them():
    add, close, rule = shared_rules()
    for held in range(1, COMPILE_AT + 1):
        WorldSpec(seed={}, transitions=(add, close), forbidden=(rule,))
        assert (add._fire is not None) is (held >= COMPILE_AT)
        assert (rule._holds is not None) is (held >= COMPILE_AT)
    lone = Transition("add", add.effects, add.when)
    WorldSpec(seed={}, transitions=(lone,))
    assert lone._fire is None  # one scenario's own rule is asked itself


def test_compiled_and_asked_rules_replay_alike():
    run = Run(tool_calls=(
        ToolCall("add", {"qty": 3}), ToolCall("add", {"qty": "many"}), ToolCall("add", {"qty": 9}),
        ToolCall("add", {}), ToolCall("add", {"qty": 2}, error=True), ToolCall("close"), ToolCall("add", {"qty": 1}),
    ))
    seed = {"open": True, "stock": {"n": 0}}
    add, close, rule = shared_rules()
    asked = WorldSpec(seed=seed, transitions=(add, close), forbidden=(rule,))
    assert add._fire is None
    expected = outcome(asked, run)
    for _ in range(COMPILE_AT):
        spec = WorldSpec(seed=seed, transitions=(add, close), forbidden=(rule,))
    assert add._fire is not None and close._fire is not None and rule._holds is not None
    assert outcome(spec, run) == expected
    state, invalid, forbidden = expected
    assert state == repr({"open": False, "stock": {"n": 12}, "note": {"by": "x"}})
    assert [i for i, _ in invalid] == [1, 3, 4]  # a call that erred is judged by the guards too
    assert "not a number" in invalid[0][1]
    assert invalid[1][1] == invalid[2][1] == "guard stock.n max 10 failed (was 12)"
    assert forbidden == [(6, "closed")]


@pytest.mark.parametrize("key", ["it's", 'say "hi"', "back\\slash", "new\nline", "ünï", "{x}", "p.q"])
def test_any_key_compiles_and_reads_as_itself(key):
    """Keys are written into the function's text: quotes, escapes and braces stay data."""
    path = (key, "n")
    transition = Transition("t", (Effect(path, "inc", 1),), (Guard(path, "min", 1),))
    spec = WorldSpec(seed={key: {"n": 1}}, transitions=(transition,), expect_state=((path, 3),))
    run = Run(tool_calls=(ToolCall("t"), ToolCall("t")))
    expected = outcome(spec, run)
    transition.compile()
    assert outcome(spec, run) == expected
    assert replay_world(spec, run).final_state == {key: {"n": 3}}


def test_a_compiled_rule_copies_and_pickles_as_its_fields():
    add, _, rule = shared_rules()
    add.compile()
    rule.compile()
    for again in (pickle.loads(pickle.dumps(add)), copy.deepcopy(add), copy.copy(add)):
        assert again == add and again._fire is None and again._direct is add._direct
    assert pickle.loads(pickle.dumps(rule)) == rule


def test_rules_of_one_shape_share_their_code():
    one = Transition("t", (Effect(parse_path("a.b"), "inc", 1),), (Guard(("a", "b"), "max", 5),))
    two = Transition("u", (Effect(parse_path("a.b"), "inc", 7),), (Guard(("a", "b"), "max", 50),))
    one.compile()
    two.compile()
    assert one._fire.__code__ is two._fire.__code__
    state = {"a": {"b": 1}}
    assert one._fire(state, None, False) is True and two._fire(state, None, False) is True
    assert state == {"a": {"b": 9}}
    assert two._fire(state, None, False) is True and one._fire(state, None, False) is None  # 16 > 5


def test_paths_the_function_does_not_walk_go_to_the_rules(monkeypatch):
    """An index, a key to create, from_arg: the rule objects decide and word the reason."""
    transition = Transition("t", (Effect(parse_path("items[0]"), "set", 1), Effect(("made", "x"), "from_arg", ("v",))),
                            (Guard(parse_path("items[0]"), "eq", 0),))
    transition.compile()
    state = {"items": [0]}
    assert transition._fire(state, {"v": 5}, False) is True
    assert state == {"items": [1], "made": {"x": 5}}
    assert transition._fire(state, {"v": 5}, False) is None  # items[0] is 1 now
    state = {"items": [0]}
    assert transition._fire(state, {}, False) == "effect made.x from_arg v: the call has no argument v"
    assert state == {"items": [0]}  # nothing written


def test_the_code_kept_per_shape_is_bounded(monkeypatch):
    monkeypatch.setattr(compiled_module, "_MAX_SHAPES", 3)
    monkeypatch.setattr(compiled_module, "_CODE", {})
    for i in range(10):
        Transition("t", (Effect((f"k{i}",), "set", 1),)).compile()
        assert len(compiled_module._CODE) <= 3
    assert world.COMPILE_AT >= 2  # compiling every rule at once would slow one scenario's own


def test_an_int_key_python_will_not_repr_is_bound_by_name():
    """An int key of more than 4300 digits (given through the Python API; YAML keys are
    strings) has no ``repr``: it is bound by name, so the spec that compiles the rule is still
    built, and the rule decides as it does uncompiled."""
    big = 10 ** 5000
    transition = Transition("t", (Effect(("n",), "inc", None, amount_arg=(big,)),))
    specs = [WorldSpec(seed={"n": 0}, transitions=(transition,)) for _ in range(COMPILE_AT + 1)]
    assert transition._held == COMPILE_AT and transition._fire is not None
    for run in (Run(tool_calls=(ToolCall("t", {}),)), Run(tool_calls=(ToolCall("t", {big: 2}),))):
        assert outcome(specs[-1], run) == outcome(specs[0], run)
    assert outcome(specs[-1], Run(tool_calls=(ToolCall("t", {}),)))[1][0][0] == 0  # refused, not applied
    state = {"n": 1}
    assert transition._fire(state, {big: 2}, False) is True and state == {"n": 3}
