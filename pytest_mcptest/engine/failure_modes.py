"""Why a run failed, named: one failure mode per failing run, read off its trace and its failures.

A suite of 200 failures reads better as "61 wrong tool, 40 no recovery" than as 200 messages.
The modes follow the spirit of MCP-Atlas's taxonomy of agent failures; each run gets exactly one,
the first of these that fits, so the same run always gets the same mode:

1. ``no_tool_use``: the run's calls are listed and there are none (and it failed on more than its
   answer);
2. ``forbidden_action``: it made a call the scenario forbids, or a prohibited tool's;
3. ``malformed_call``: a call's arguments were not JSON, or the world refused the call as
   invalid;
4. ``error_not_recovered``: a call failed and no later call of the same tool succeeded;
5. ``over_budget``: it spent more than allowed: an ``expect:`` on tokens, cost, calls or turns
   failed, an efficiency limit was passed, or the golden path found extra steps;
6. ``wrong_arguments``: the expected tool was called, with other arguments (a call of another
   tool in its place is ``wrong_tool``);
7. ``early_stop``: the run ended before an expected call, or left the world short of the
   expected state;
8. ``wrong_tool``: it called a tool the reference does not allow, or not the expected (or a
   required) one;
9. ``wrong_answer``: what it said failed: an ``expect:`` on the final response, a judge's verdict,
   a claim its calls do not back;
10. ``other``: any other failure.

Pure: reads plain data (a run's envelope, its failures as ``(gate, message)``) and returns names.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping, Optional, Sequence

MODES = ("no_tool_use", "forbidden_action", "malformed_call", "error_not_recovered", "over_budget",
         "wrong_arguments", "early_stop", "wrong_tool", "wrong_answer", "other")

# expect: targets that measure what a run spent
_BUDGET_PATHS = ("conversation.tokens", "tokens.", "cost_micros", "actions", "turns", "tool_names.length")
# expect: targets that read what a run said rather than what it did
_ANSWER_PATHS = ("final_response", "conversation.turns", "judgments", "claims", "meta")
_ANSWER_GATES = ("judgment", "rubric", "claims")
# expect: targets that read a gate's verdict, and that gate
_EXPECT_ON_GATE = {"golden.": "golden", "trace.": "expected_trace"}


def run_mode(envelope: Mapping, failures: Sequence[tuple[str, str]]) -> Optional[str]:
    """The failure mode of one run: its ``envelope`` (calls, trace, golden) and its failures as
    ``(gate, message)`` pairs; ``None`` when it did not fail."""
    if not failures:
        return None
    gates = {gate for gate, _ in failures}
    # An expect: on a gate's own figures (golden.matched, trace.passed) fails that gate.
    gates |= {_EXPECT_ON_GATE[path] for gate, message in failures if gate == "expect"
              for path in _EXPECT_ON_GATE if message.startswith(path)}
    calls = [c for c in envelope.get("tool_calls") or () if isinstance(c, Mapping)]
    answer_only = all(_about_answer(gate, message) for gate, message in failures)
    # Only an envelope that lists the calls can say there were none (a third-party gate's may not).
    if "tool_calls" in envelope and not calls and not answer_only:
        return "no_tool_use"
    if gates & {"forbidden_transition", "prohibited_tools"}:
        return "forbidden_action"
    if "invalid_action" in gates or any(c.get("args_invalid_json") for c in calls):
        return "malformed_call"
    if _unrecovered(calls):
        return "error_not_recovered"
    expects = [message for gate, message in failures if gate == "expect"]
    if (any(message.startswith(_BUDGET_PATHS) for message in expects) or _extra_steps(envelope, gates)
            or "efficiency" in gates):
        return "over_budget"
    trace = _trace_mode(envelope, len(calls)) if "expected_trace" in gates else None
    if trace is not None:
        return trace
    if "expect_state" in gates:
        return "early_stop"
    if gates & {"golden", "tool_selection", "distractors", "required_tools"}:
        return "wrong_tool"
    if any(_about_answer(gate, message) for gate, message in failures):
        return "wrong_answer"
    return "other"


def _about_answer(gate: str, message: str) -> bool:
    """A failure about what the run said: a judge's verdict, or an ``expect:`` on its answer."""
    return gate in _ANSWER_GATES or (gate == "expect" and message.startswith(_ANSWER_PATHS))


def _unrecovered(calls: list) -> bool:
    """A failed call with no later successful call of the same tool."""
    for i, call in enumerate(calls):
        if call.get("error") is True and not any(
                later.get("name") == call.get("name") and later.get("error") is not True for later in calls[i + 1:]):
            return True
    return False


def _extra_steps(envelope: Mapping, gates: set) -> bool:
    golden = envelope.get("golden")
    return "golden" in gates and isinstance(golden, Mapping) and bool(golden.get("extra_steps"))


def _trace_mode(envelope: Mapping, made: int) -> Optional[str]:
    """What the expected-trace mismatches say: a partner with other arguments, an expected call
    after the run's last one, or a call the reference does not have."""
    trace = envelope.get("trace")
    mismatches = [m for m in (trace.get("mismatches") or ()) if isinstance(m, Mapping)] \
        if isinstance(trace, Mapping) else []
    if any(m.get("diffs") and not _other_tool(m) for m in mismatches):
        return "wrong_arguments"
    if any(m.get("recorded_index") is None and isinstance(m.get("expected_index"), int)
           and "ran out" in str(m.get("reason", "")) for m in mismatches):
        return "early_stop"
    return "wrong_tool" if mismatches else None


def _other_tool(mismatch: Mapping) -> bool:
    """The mismatch's partner is another tool: its diffs include the name's."""
    return any(isinstance(d, Mapping) and d.get("pointer") == "/name" for d in mismatch.get("diffs") or ())


def item_modes(runs: Iterable[tuple[Mapping, Sequence[tuple[str, str]]]],
               overall: Sequence[tuple[str, str]] = ()) -> dict[str, int]:
    """How many of an item's failing runs fall in each mode, ``{mode: count}`` in the order of
    :data:`MODES`. An item that failed only on a gate over all runs (a selection floor, token
    efficiency) counts once, under that gate's mode."""
    counts: Counter = Counter()
    for envelope, failures in runs:
        mode = run_mode(envelope, failures)
        if mode is not None:
            counts[mode] += 1
    if not counts and overall:
        counts[_overall_mode(overall)] += 1
    return {mode: counts[mode] for mode in MODES if counts[mode]}


def _overall_mode(failures: Sequence[tuple[str, str]]) -> str:
    gates = {gate for gate, _ in failures}
    if gates & {"tool_selection", "distractors"}:
        return "wrong_tool"
    if "token_efficiency" in gates or any(m.startswith(("token_efficiency", "cost")) for g, m in failures
                                          if g == "expect"):
        return "over_budget"
    return "other"


def add_counts(total: dict, counts: Mapping[str, Any]) -> dict:
    """``total`` with ``counts`` added, in the order of :data:`MODES` (for summing over items)."""
    merged = Counter({k: v for k, v in total.items()})
    for mode, n in counts.items():
        if isinstance(n, int) and mode in MODES:
            merged[mode] += n
    return {mode: merged[mode] for mode in MODES if merged[mode]}


def describe(counts: Mapping[str, int]) -> str:
    """``61 wrong_tool, 40 error_not_recovered``: most first, ties in the order of :data:`MODES`."""
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], MODES.index(kv[0]) if kv[0] in MODES else len(MODES)))
    return ", ".join(f"{n} {mode}" for mode, n in ordered)
