"""Hypothesis properties of the scenario-world engine."""

from __future__ import annotations

import copy
import json

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.engine.golden import GoldenOracle, GoldenPath
from pytest_mcptest.engine.paths import parse_path
from pytest_mcptest.engine.trace import Run, Tokens, ToolCall
from pytest_mcptest.engine.world import Effect, ForbiddenRule, Guard, Transition, WorldSpec, replay_world

SETTINGS = settings(max_examples=budget(100), deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

KEYS = ["a", "b", "c"]
TOOLS = ["t1", "t2", "t3", "t4"]
FORBIDDEN_TOOL = "boom"
ESCALATION_TOOL = "page"
UNKNOWN_TOOL = "invented"
CALL_NAMES = TOOLS + [FORBIDDEN_TOOL, ESCALATION_TOOL, UNKNOWN_TOOL]
MARKERS = ["cannot", "escalate"]

scalars = st.one_of(
    st.integers(min_value=-5, max_value=5),
    st.floats(min_value=-5, max_value=5, allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
    st.none(),
    st.sampled_from(["", "x", "on", "off"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)),
    max_leaves=6,
)
# State paths: keys, with list indexes among them (writes through an index that is absent must
# be refused without leaving anything behind).
state_paths = st.lists(st.one_of(st.sampled_from(KEYS), st.sampled_from(["[0]", "[-1]", "[2]"])), min_size=1,
                       max_size=3).map(lambda parts: parse_path(".".join(parts).replace(".[", "[").lstrip(".")))
arg_paths = st.lists(st.sampled_from(["x", "y"]), min_size=1, max_size=2).map(lambda p: parse_path(".".join(p)))
numbers = st.one_of(st.integers(min_value=-3, max_value=3), st.sampled_from([0.5, 1.5]))

effects = st.one_of(
    st.builds(Effect, state_paths, st.just("set"), values),
    st.builds(Effect, state_paths, st.sampled_from(["inc", "dec"]), numbers),
    st.builds(Effect, state_paths, st.just("from_arg"), arg_paths),
    st.builds(Effect, state_paths, st.sampled_from(["inc", "dec"]), st.none(), amount_arg=arg_paths),
)
guards = st.one_of(
    st.builds(Guard, state_paths, st.just("eq"), values),
    st.builds(Guard, state_paths, st.sampled_from(["min", "max"]), numbers),
)
transitions = st.builds(
    Transition,
    tool=st.sampled_from(TOOLS),
    effects=st.lists(effects, min_size=1, max_size=3).map(tuple),
    when=st.lists(guards, max_size=2).map(tuple),
)
seeds = st.dictionaries(st.sampled_from(KEYS), values, max_size=3)


# The parts of a spec and a run, each strategy built once (hypothesis checks a strategy when it
# is first drawn from: built anew inside every draw, that cost more than the replay tested).
_scoped = st.lists(st.builds(ForbiddenRule, st.sampled_from(TOOLS), st.just("scoped"),
                             st.lists(guards, min_size=1, max_size=1).map(tuple)), max_size=2)
_golden = st.one_of(st.none(), st.builds(
    GoldenOracle,
    st.builds(GoldenPath, st.lists(st.sampled_from(TOOLS), max_size=4)),
    st.lists(st.lists(st.sampled_from(TOOLS), max_size=3).map(tuple), max_size=2).map(tuple),
))
_transitions = st.lists(transitions, max_size=6)
_markers = st.lists(st.sampled_from(MARKERS), max_size=1)
_expect_state = st.lists(st.tuples(state_paths, values), max_size=2)


@st.composite
def specs(draw) -> WorldSpec:
    forbidden = [ForbiddenRule(FORBIDDEN_TOOL, "never", ())]
    forbidden += draw(_scoped)
    golden = draw(_golden)
    return WorldSpec(
        seed=draw(seeds),
        transitions=tuple(draw(_transitions)),
        forbidden=tuple(forbidden),
        refusal_markers=tuple(draw(_markers)),
        escalation_tools=(ESCALATION_TOOL,),
        escalation_markers=tuple(draw(_markers)),
        golden=golden,
        expect_state=tuple(draw(_expect_state)),
    )


args = st.one_of(st.none(), st.dictionaries(st.sampled_from(["x", "y"]), values, max_size=2))
calls = st.builds(ToolCall, name=st.sampled_from(CALL_NAMES), args=args, error=st.booleans())
messages = st.builds(
    dict,
    role=st.sampled_from(["user", "assistant", "tool"]),
    content=st.sampled_from(["ok", "I CANNOT", "will Escalate", "done"]),
)


_calls = st.lists(calls, max_size=8)
_turns = st.lists(messages, max_size=5)
_tokens = st.one_of(st.none(), st.just(Tokens(3, 4, 7)))
_cost = st.one_of(st.none(), st.integers(min_value=0, max_value=10_000))


@st.composite
def runs(draw) -> Run:
    return Run(
        tool_calls=tuple(draw(_calls)),
        turns=tuple(draw(_turns)),
        tokens=draw(_tokens),
        cost_micros=draw(_cost),
    )


def with_call(run: Run, index: int, call: ToolCall) -> Run:
    tool_calls = list(run.tool_calls)
    tool_calls.insert(index, call)
    return Run(tool_calls=tuple(tool_calls), turns=run.turns, tokens=run.tokens, cost_micros=run.cost_micros)


# Properties that hold of any spec and run share one test, each example checking all of them:
# drawing a spec and a run is most of an example's cost (the replay itself is a tenth of it).

@SETTINGS
@given(specs(), runs(), st.data())
def test_a_replay_is_deterministic_keeps_the_seed_serializes_pickles_and_ignores_refused_calls(spec, run, data):
    replay_is_deterministic(spec, run)
    seed_is_never_mutated(spec, run)
    envelope_is_json_serializable(spec, run)
    a_pickled_world_replays_the_same(spec, run)
    a_forbidden_call_and_an_unknown_call_never_change_state(spec, run, data)
    any_call_found_invalid_or_forbidden_never_changes_state(spec, run, data)


def replay_is_deterministic(spec, run):
    first = replay_world(spec, run).to_dict()
    second = replay_world(spec, run).to_dict()
    assert first == second
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def seed_is_never_mutated(spec, run):
    before = copy.deepcopy(spec.seed)
    result = replay_world(spec, run)
    assert spec.seed == before
    # nor through the result: the envelope and the final state are the engine's own copies
    env = result.to_dict()
    if isinstance(env["state"], dict):
        env["state"].clear()
    assert spec.seed == before
    assert replay_world(spec, run).to_dict() == replay_world(spec, run).to_dict()


def a_forbidden_call_and_an_unknown_call_never_change_state(spec, run, data):
    """Each inserted at its own drawn place, with its own drawn arguments, in the same run."""
    without = replay_world(spec, run)
    for tool in (FORBIDDEN_TOOL, UNKNOWN_TOOL):
        index = data.draw(st.integers(min_value=0, max_value=len(run.tool_calls)), label=f"{tool} index")
        call = ToolCall(tool, args=data.draw(args, label=f"{tool} args"), error=data.draw(st.booleans(), label="err"))
        inserted = replay_world(spec, with_call(run, index, call))
        assert inserted.final_state == without.final_state
        if tool == FORBIDDEN_TOOL:
            assert index in [f.index for f in inserted.forbidden]
            assert len(inserted.forbidden) == len(without.forbidden) + 1
            assert len(inserted.invalid) == len(without.invalid)
        else:
            assert index in [i.index for i in inserted.invalid]
            assert len(inserted.invalid) == len(without.invalid) + 1


def any_call_found_invalid_or_forbidden_never_changes_state(spec, run, data):
    index = data.draw(st.integers(min_value=0, max_value=len(run.tool_calls)), label="index")
    call = data.draw(calls, label="call")
    inserted = replay_world(spec, with_call(run, index, call))
    rejected = index in [i.index for i in inserted.invalid] + [f.index for f in inserted.forbidden]
    if rejected or call.error:
        # an errored call is legal but applies nothing either
        assert inserted.final_state == replay_world(spec, run).final_state


def envelope_is_json_serializable(spec, run):
    env = replay_world(spec, run).to_dict()
    text = json.dumps(env, sort_keys=True, allow_nan=False)
    assert json.loads(text) == env
    assert env["actions"] == len(run.tool_calls)
    assert env["tool_names"] == [c.name for c in run.tool_calls]
    assert env["invalid_actions"] + env["forbidden_transitions"] <= env["actions"]
    assert ("cost_micros" in env) is (run.cost_micros is not None)
    assert ("golden" in env) is (spec.golden is not None)
    assert env["state_matched"] is (env["state_diff"] == [])


# --------------------------------------------------------------------------- shortcuts against the careful forms

any_paths = st.lists(st.one_of(st.sampled_from(KEYS + ["0", "-1"]), st.sampled_from([0, -1, 2])), min_size=1,
                     max_size=3).map(tuple)
roots = st.one_of(seeds, values)


@SETTINGS
@given(guards, roots)
def test_a_guard_holds_exactly_when_it_has_no_failure_whatever_the_state(guard, state):
    """``holds`` takes shortcuts (one lookup for a one-key path) that ``failure`` does not."""
    assert guard.holds(state) is (guard.failure(state) is None)


@SETTINGS
@given(roots, any_paths)
def test_an_effect_reads_the_state_as_resolve_does(state, path):
    from pytest_mcptest.engine.paths import Missing, resolve
    from pytest_mcptest.engine.world import _NOTHING, _read

    found = resolve(state, path)
    assert _read(state, path) is (_NOTHING if isinstance(found, Missing) else found)


@SETTINGS
@given(roots, any_paths)
def test_resolve_in_one_pass_finds_what_the_careful_walk_finds(value, path):
    from pytest_mcptest.engine.paths import Missing, _resolve, resolve

    fast, careful = resolve(value, path), _resolve(value, path)
    if isinstance(careful, Missing):
        assert isinstance(fast, Missing)
        assert (fast.found, fast.reason, fast.keys, fast.at is careful.at) == (careful.found, careful.reason,
                                                                                careful.keys, True)
    else:
        assert fast is careful


@SETTINGS
@given(seeds, any_paths, values)
@example({"b": [None]}, ("b", 0, "a"), None)  # through a null list item: journaled as the list's item
def test_assign_in_one_pass_writes_what_the_careful_walk_writes(root, path, value):
    from pytest_mcptest.engine.paths import PathError, _assign, assign, rollback

    def outcome(write) -> tuple:
        state, journal = copy.deepcopy(root), []
        try:
            write(state, path, value, journal)
            error = None
        except PathError as exc:
            error = str(exc)
        written = repr(state)
        entries = repr([(key, old) for _, key, old in journal])
        rollback(journal)
        assert state == root
        return error, written, entries

    assert outcome(assign) == outcome(_assign)


def careful_replay(spec: WorldSpec, run: Run) -> tuple:
    """The world's rules for each call written the plain way: rules found by scanning the
    spec's lists, every guard asked for its ``failure``, every value worked out by
    ``new_value`` before the careful ``_assign`` writes it with a journal. What the
    replay's shortcuts (rule maps, ``holds``, planned writes) must agree with."""
    from pytest_mcptest.engine.paths import PathError, _assign, rollback

    def holding(rules):
        return next((r for r in rules if all(g.failure(state) is None for g in r.when)), None)

    state, invalid, forbidden = copy.deepcopy(spec.seed), [], []
    for index, call in enumerate(run.tool_calls):
        rule = holding([r for r in spec.forbidden if r.tool == call.name])
        if rule is not None:
            forbidden.append((index, rule.reason))
            continue
        candidates = [t for t in spec.transitions if t.tool == call.name]
        if not candidates:
            if call.name not in spec.escalation_tools:
                invalid.append((index, "no transition is declared for this tool"))
            continue
        chosen = holding(candidates)
        if chosen is None:
            reasons = [g.failure(state) for g in candidates[0].when]
            invalid.append((index, next(r for r in reasons if r is not None)))
            continue
        journal: list = []
        try:
            writes = [(e.path, e.new_value(state, call.args)) for e in chosen.effects]
            for path, value in writes:
                _assign(state, path, value, journal)
        except (ValueError, PathError) as exc:
            rollback(journal)
            invalid.append((index, str(exc)))
            continue
        if call.error:  # refused: nothing changes, though effects it could not have had make it invalid
            rollback(journal)
    return repr(state), invalid, forbidden


# Worlds and runs where most calls apply a transition (the general ones above mostly end in an
# invalid, forbidden or failed call): paths of keys, nested objects of numbers, at most one
# guard, calls to the tools that have transitions, succeeding, with numeric arguments.
key_paths = st.lists(st.sampled_from(KEYS), min_size=1, max_size=3).map(tuple)
number_trees = st.recursive(st.one_of(numbers, st.none()),
                            lambda inner: st.dictionaries(st.sampled_from(KEYS), inner, max_size=3), max_leaves=8)
key_effects = st.one_of(
    st.builds(Effect, key_paths, st.just("set"), values),
    st.builds(Effect, key_paths, st.sampled_from(["inc", "dec"]), numbers),
    st.builds(Effect, key_paths, st.sampled_from(["inc", "dec"]), st.none(), amount_arg=arg_paths),
    effects,
)


@st.composite
def busy_worlds(draw) -> tuple[WorldSpec, Run]:
    spec = WorldSpec(
        seed=draw(st.dictionaries(st.sampled_from(KEYS), st.one_of(number_trees, values), max_size=3)),
        transitions=tuple(draw(st.lists(st.builds(
            Transition, tool=st.sampled_from(TOOLS), effects=st.lists(key_effects, min_size=1, max_size=3).map(tuple),
            when=st.lists(guards, max_size=1).map(tuple)), min_size=1, max_size=6))),
        forbidden=tuple(draw(st.lists(st.builds(ForbiddenRule, st.sampled_from(TOOLS), st.just("scoped"),
                                                st.lists(guards, min_size=1, max_size=1).map(tuple)), max_size=1))),
    )
    applied = st.builds(ToolCall, name=st.sampled_from([t.tool for t in spec.transitions]), error=st.just(False),
                        args=st.one_of(st.none(), st.dictionaries(st.sampled_from(["x", "y"]),
                                                                  st.one_of(numbers, number_trees, values), max_size=2)))
    made = draw(st.lists(st.one_of(applied, applied, applied, calls), min_size=1, max_size=8))
    return spec, Run(tool_calls=tuple(made))


def _agree(spec: WorldSpec, run: Run) -> None:
    """The rules, asked themselves, give what the careful rules give (and so does a copy of
    the spec the suite cache loaded: its rules' worked-out fields made again)."""
    import pickle

    expected = careful_replay(spec, run)
    for each in (spec, pickle.loads(pickle.dumps(spec))):
        result = replay_world(each, run)
        got = (repr(result.final_state), [(i.index, i.reason) for i in result.invalid],
               [(f.index, f.reason) for f in result.forbidden])
        assert got == expected


@SETTINGS
@given(busy_worlds())
def test_the_replay_agrees_with_the_careful_rules_when_calls_apply(world):
    _agree(*world)


@SETTINGS
@given(specs(), runs())
@example(WorldSpec(seed={"a": {"b": 1}}, transitions=(Transition("t1", (
    Effect(("a",), "set", {"b": 5}), Effect(("a", "b"), "inc", 1))),)), Run(tool_calls=(ToolCall("t1"),)))
def test_the_replay_agrees_with_the_careful_rules(spec, run):
    """Same final state (``repr``: ``1`` and ``1.0``, ``true`` and ``1`` apart), same invalid
    and forbidden calls with the same reasons, whatever the spec and the calls."""
    _agree(spec, run)


def a_pickled_world_replays_the_same(spec, run):
    import pickle

    again = pickle.loads(pickle.dumps(spec))
    assert again == spec
    assert replay_world(again, run).to_dict() == replay_world(spec, run).to_dict()
