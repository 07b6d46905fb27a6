"""Golden-path efficiency scoring: score_golden_path and judge_golden."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.engine.golden import GoldenOracle, GoldenPath, judge_golden, score_golden_path

STRICT = GoldenPath(("search", "open", "summarize"))


def lenient(calls, **flags):
    return GoldenPath(tuple(calls), **flags)


# --------------------------------------------------------------------------- the formula


@pytest.mark.parametrize("w, penalty", [(0, 1.0), (1, 2 / 3), (2, 0.5), (3, 0.4)])
def test_penalty_formula(w, penalty):
    # w extra steps with the path otherwise clean: distinct new names past the golden length.
    names = ["search", "open", "summarize"] + [f"extra{i}" for i in range(w)]
    score = score_golden_path(names, STRICT)
    assert score.extra_steps == w
    assert score.backtracks == 0 and score.repeated_tools == 0
    assert score.penalty == pytest.approx(penalty)
    assert score.penalty == pytest.approx(1.0 / (1.0 + 0.5 * w))
    assert score.passed is (w == 0)


def test_penalty_exactly_one_when_clean():
    score = score_golden_path(["search", "open", "summarize"], STRICT)
    assert score.penalty == 1.0
    assert score.passed is True
    assert score.to_dict() == {"passed": True, "extra_steps": 0, "backtracks": 0, "repeated_tools": 0,
                               "penalty": 1.0}


def test_penalty_sums_every_enabled_dimension():
    # a b a a c: one backtrack (third call), one repeat (fourth), extra = 5 - 3 = 2 -> w = 4
    score = score_golden_path(["a", "b", "a", "a", "c"], GoldenPath(("a", "b", "c")))
    assert (score.extra_steps, score.backtracks, score.repeated_tools) == (2, 1, 1)
    assert score.penalty == pytest.approx(1 / (1 + 0.5 * 4))
    assert score.passed is False


# --------------------------------------------------------------------------- the three counts


def test_extra_steps_is_saturating():
    assert score_golden_path(["search"], STRICT).extra_steps == 0
    assert score_golden_path([], STRICT).extra_steps == 0
    assert score_golden_path(["a", "b", "c", "d", "e"], STRICT).extra_steps == 2
    assert score_golden_path(["a"], GoldenPath(())).extra_steps == 1


def test_shorter_path_is_not_penalized():
    # score_golden_path rates waste only; a missing call is judge_golden's `matched`.
    score = score_golden_path(["search"], STRICT)
    assert score.penalty == 1.0 and score.passed


def test_backtrack_is_return_to_earlier_non_preceding_tool():
    score = score_golden_path(["search", "open", "search"], STRICT)
    assert score.backtracks == 1
    assert score.repeated_tools == 0
    assert score.penalty == pytest.approx(1 / 1.5)


def test_consecutive_duplicate_is_a_repeat_not_a_backtrack():
    score = score_golden_path(["search", "search", "open"], STRICT)
    assert score.repeated_tools == 1
    assert score.backtracks == 0


def test_repeat_then_return_counts_each_once():
    # a b b a a: b repeat, a backtrack, a repeat
    score = score_golden_path(["a", "b", "b", "a", "a"], GoldenPath(("a", "b", "b", "a", "a")))
    assert (score.extra_steps, score.backtracks, score.repeated_tools) == (0, 1, 2)


def test_each_return_counts_once():
    # a b a b a: three returns
    score = score_golden_path(["a", "b", "a", "b", "a"], GoldenPath(("a", "b", "a", "b", "a")))
    assert score.backtracks == 3
    assert score.repeated_tools == 0
    assert score.penalty == pytest.approx(1 / 2.5)


def test_triple_repeat():
    score = score_golden_path(["a", "a", "a"], GoldenPath(("a", "a", "a")))
    assert score.repeated_tools == 2 and score.backtracks == 0


# --------------------------------------------------------------------------- flags


def test_allow_extra_steps_turns_off_extra_but_keeps_count():
    names = ["search", "open", "summarize", "x", "y"]
    strict = score_golden_path(names, STRICT)
    relaxed = score_golden_path(names, lenient(STRICT.calls, allow_extra_steps=True))
    assert strict.extra_steps == relaxed.extra_steps == 2
    assert strict.penalty == pytest.approx(0.5)
    assert relaxed.penalty == 1.0 and relaxed.passed


def test_backtracking_flag_off_keeps_count():
    names = ["search", "open", "search"]
    relaxed = score_golden_path(names, lenient(STRICT.calls, penalize_backtracking=False))
    assert relaxed.backtracks == 1
    assert relaxed.penalty == 1.0 and relaxed.passed


def test_repeated_tools_flag_off_keeps_count():
    names = ["search", "search", "open"]
    relaxed = score_golden_path(names, lenient(STRICT.calls, penalize_repeated_tools=False))
    assert relaxed.repeated_tools == 1
    assert relaxed.penalty == 1.0 and relaxed.passed


def test_flags_only_remove_their_own_dimension():
    # extra 2, backtrack 1, repeat 1
    names = ["a", "b", "a", "a", "c"]
    calls = ("a", "b", "c")
    cases = {
        (False, True, True): 4,
        (True, True, True): 2,
        (False, False, True): 3,
        (False, True, False): 3,
        (True, False, False): 0,
        (False, False, False): 2,
    }
    for (allow_extra, back, rep), w in cases.items():
        score = score_golden_path(names, GoldenPath(calls, allow_extra_steps=allow_extra,
                                                    penalize_backtracking=back, penalize_repeated_tools=rep))
        assert (score.extra_steps, score.backtracks, score.repeated_tools) == (2, 1, 1)
        assert score.penalty == pytest.approx(1 / (1 + 0.5 * w)), (allow_extra, back, rep)
        assert score.passed is (w == 0)


def test_golden_path_defaults_are_strictest():
    g = GoldenPath(["a", "b"])
    assert g.calls == ("a", "b")
    assert g.allow_extra_steps is False
    assert g.penalize_backtracking is True
    assert g.penalize_repeated_tools is True


# --------------------------------------------------------------------------- judge_golden


def test_judge_exact_match():
    out = judge_golden(["search", "open", "summarize"], GoldenOracle(STRICT))
    assert (out.matched, out.exact, out.alternate) == (True, True, False)
    assert out.alternate_index is None
    assert out.penalty == 1.0
    d = out.to_dict()
    assert d["matched"] is True and d["exact"] is True and d["alternate"] is False and d["penalty"] == 1.0
    assert "alternate_index" not in d


def test_judge_alternate_match():
    oracle = GoldenOracle(STRICT, alternates=(("search", "summarize"), ("open", "summarize")))
    out = judge_golden(["open", "summarize"], oracle)
    assert (out.matched, out.exact, out.alternate) == (True, False, True)
    assert out.alternate_index == 1
    assert out.to_dict()["alternate_index"] == 1


def test_judge_first_matching_alternate_wins():
    oracle = GoldenOracle(STRICT, alternates=(("x",), ("open",), ("open",)))
    assert judge_golden(["open"], oracle).alternate_index == 1


def test_judge_exact_beats_alternate():
    oracle = GoldenOracle(STRICT, alternates=(STRICT.calls,))
    out = judge_golden(list(STRICT.calls), oracle)
    assert out.exact and not out.alternate and out.alternate_index is None


def test_judge_alternate_scored_against_the_alternate():
    # The alternate is longer than the golden path; against the golden it would be extra steps.
    alt = ("search", "open", "open", "summarize", "cite")
    oracle = GoldenOracle(STRICT, alternates=(alt,))
    out = judge_golden(list(alt), oracle)
    assert out.alternate
    assert out.score.extra_steps == 0
    assert out.score.repeated_tools == 1  # the repeat is still waste under the strict policy
    assert out.penalty == pytest.approx(1 / 1.5)


def test_judge_no_match():
    oracle = GoldenOracle(STRICT, alternates=(("search",),))
    out = judge_golden(["open", "search", "summarize", "search"], oracle)
    assert (out.matched, out.exact, out.alternate) == (False, False, False)
    assert out.score.extra_steps == 1 and out.score.backtracks == 1
    assert out.penalty == pytest.approx(1 / 2)


def test_judge_is_order_sensitive():
    out = judge_golden(["open", "search", "summarize"], GoldenOracle(STRICT))
    assert not out.matched
    assert out.penalty == 1.0  # same length, no waste: matched and penalty are separate questions


def test_judge_keeps_policy_for_alternates():
    g = GoldenPath(("a",), penalize_repeated_tools=False)
    out = judge_golden(["b", "b"], GoldenOracle(g, alternates=(("b", "b"),)))
    assert out.alternate and out.score.repeated_tools == 1 and out.penalty == 1.0


# --------------------------------------------------------------------------- properties

names = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=12)
golden_paths = st.builds(
    GoldenPath,
    calls=st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=6),
    allow_extra_steps=st.booleans(),
    penalize_backtracking=st.booleans(),
    penalize_repeated_tools=st.booleans(),
)


def enabled_waste(score, golden: GoldenPath) -> int:
    return ((0 if golden.allow_extra_steps else score.extra_steps)
            + (score.backtracks if golden.penalize_backtracking else 0)
            + (score.repeated_tools if golden.penalize_repeated_tools else 0))


@settings(max_examples=budget(200), deadline=None, database=None)
@given(names, golden_paths)
def test_prop_penalty_is_one_exactly_when_no_enabled_waste(recorded, golden):
    score = score_golden_path(recorded, golden)
    w = enabled_waste(score, golden)
    assert (score.penalty == 1.0) is (w == 0)
    assert score.passed is (w == 0)
    assert score.penalty == pytest.approx(1.0 / (1.0 + 0.5 * w))


@settings(max_examples=budget(200), deadline=None, database=None)
@given(names, golden_paths)
def test_prop_penalty_in_half_open_unit_interval(recorded, golden):
    score = score_golden_path(recorded, golden)
    assert 0.0 < score.penalty <= 1.0
    assert score.extra_steps == max(0, len(recorded) - len(golden.calls))
    assert score.extra_steps >= 0 and score.backtracks >= 0 and score.repeated_tools >= 0
    # every call after the first is at most one of repeat / backtrack
    assert score.backtracks + score.repeated_tools <= max(0, len(recorded) - 1)


@settings(max_examples=budget(200), deadline=None, database=None)
@given(names, golden_paths, st.data())
def test_prop_adding_a_backtrack_never_raises_the_penalty(recorded, golden, data):
    # Insert a return to an earlier tool that is neither the preceding nor the following call.
    base = ["x", "y"] + recorded
    cut = data.draw(st.integers(min_value=2, max_value=len(base)), label="cut")
    prefix, suffix = base[:cut], base[cut:]
    choices = sorted({n for n in prefix[:-1] if n != prefix[-1] and (not suffix or n != suffix[0])})
    if not choices:
        return
    back = data.draw(st.sampled_from(choices), label="back")
    before = score_golden_path(base, golden)
    after = score_golden_path(prefix + [back] + suffix, golden)
    assert after.backtracks >= before.backtracks + 1
    if golden.penalize_backtracking:
        # Under a policy that penalizes backtracking, a backtrack always costs.
        assert after.penalty < before.penalty
    if not suffix or suffix[0] != prefix[-1]:
        # No consecutive repeat was split by the insertion: nothing got cheaper.
        assert after.repeated_tools == before.repeated_tools
        assert after.penalty <= before.penalty


@settings(max_examples=budget(200), deadline=None, database=None)
@given(names, st.data())
def test_prop_strict_policy_backtrack_always_costs(recorded, data):
    golden = GoldenPath(("a", "b", "c"))
    base = ["x", "y"] + recorded
    cut = data.draw(st.integers(min_value=2, max_value=len(base)), label="cut")
    prefix, suffix = base[:cut], base[cut:]
    choices = sorted({n for n in prefix[:-1] if n != prefix[-1] and (not suffix or n != suffix[0])})
    if not choices:
        return
    back = data.draw(st.sampled_from(choices), label="back")
    assert score_golden_path(prefix + [back] + suffix, golden).penalty < score_golden_path(base, golden).penalty


@settings(max_examples=budget(150), deadline=None, database=None)
@given(names, st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=6))
def test_prop_flags_never_change_counts(recorded, calls):
    scores = [score_golden_path(recorded, GoldenPath(calls, allow_extra_steps=x, penalize_backtracking=b,
                                                     penalize_repeated_tools=r))
              for x in (False, True) for b in (False, True) for r in (False, True)]
    counts = {(s.extra_steps, s.backtracks, s.repeated_tools) for s in scores}
    assert len(counts) == 1
    strictest = score_golden_path(recorded, GoldenPath(calls))
    assert all(s.penalty >= strictest.penalty for s in scores)


@settings(max_examples=budget(150), deadline=None, database=None)
@given(names, golden_paths, st.lists(st.lists(st.sampled_from(["a", "b", "c"]), max_size=4), max_size=3))
def test_prop_judge_matched_iff_exact_or_alternate(recorded, golden, alternates):
    oracle = GoldenOracle(golden, alternates=tuple(tuple(a) for a in alternates))
    out = judge_golden(recorded, oracle)
    assert out.exact is (tuple(recorded) == golden.calls)
    assert out.alternate is (not out.exact and tuple(recorded) in oracle.alternates)
    assert out.matched is (out.exact or out.alternate)
    assert not (out.exact and out.alternate)
    assert 0.0 < out.penalty <= 1.0


@settings(max_examples=budget(300), deadline=None, database=None)
@given(names, golden_paths)
def test_prop_counts_are_the_call_by_call_definition(recorded, golden):
    """Counted in C from the names, the same as walking the calls: a call equal to the one
    before is a repeat; one to a tool used earlier, not the one before, a backtrack."""
    repeats = backtracks = 0
    for i, name in enumerate(recorded):
        if i and name == recorded[i - 1]:
            repeats += 1
        elif name in recorded[:i]:
            backtracks += 1
    score = score_golden_path(recorded, golden)
    assert (score.repeated_tools, score.backtracks) == (repeats, backtracks)
