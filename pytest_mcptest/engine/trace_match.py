"""Offline trajectory validation: do the recorded calls fit an expected plan?

An expected trace is a match mode and a list of expected calls, each a tool name and an
argument shape (``any``, ``ignore``, ``exact``, ``subset``, ``schema``). Side by side,
"expected" is the reference the user wrote and "recorded" is what the cassette holds.

Modes:
- ``strict`` (alias ``exact_sequence``): one for one, same length, same order.
- ``subsequence``: every expected call, in order, among the recorded calls.
- ``unordered`` / ``superset``: every expected call matched to a distinct recorded call,
  any order, extras allowed.
- ``subset``: every recorded call matched to a distinct expected call (no call beyond
  the reference); calling fewer is fine.

An empty reference passes under every mode except ``subset``, where it means "no call
at all". One-to-one pairings are maximum bipartite matchings, never greedy first-fit, so
a trace with a valid pairing always passes. A malformed schema raises
:class:`~.matching.MalformedSchema`; a mismatch is a normal result with ``passed`` false.
"""

from __future__ import annotations

import bisect
from typing import Any, Optional, Sequence

import attrs

from .bipartite import group, json_key, match_groups
from .matching import schema_validator, subset
from .trace import ToolCall
from .values import NestingError, json_diff, plural, show

EXPLAINED_MISSES = 100  # misses that get a closest recorded call and its differences
LISTED_MISMATCHES = 1000  # mismatches a result lists; the rest are counted
ARG_KINDS = ("any", "ignore", "exact", "subset", "schema")
MODES = ("strict", "exact_sequence", "exact-sequence", "subsequence", "unordered", "superset", "subset")


def _pointer(parts) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


@attrs.frozen
class ArgDiff:
    """One difference in a call: the JSON pointer into the call, and what was expected and found."""

    pointer: str
    expected: Any
    recorded: Any
    message: str

    def to_dict(self) -> dict:
        return {"pointer": self.pointer, "message": self.message}


@attrs.frozen
class ExpectedCall:
    """A tool name and an argument shape: ``args_kind`` is one of :data:`ARG_KINDS`."""

    name: str
    args_kind: str = "any"
    args: Any = None

    def __attrs_post_init__(self):
        if self.args_kind not in ARG_KINDS:
            raise ValueError(f"unknown argument shape {self.args_kind!r}; expected one of {', '.join(ARG_KINDS)}")

    @classmethod
    def by_name(cls, name: str) -> "ExpectedCall":
        return cls(name)

    def describe(self) -> str:
        if self.args_kind in ("any", "ignore"):
            return self.name
        return f"{self.name} {self.args_kind} {show(self.args, 50)}"

    def diffs(self, call: ToolCall) -> list[ArgDiff]:
        """What keeps the recorded ``call`` from matching; empty when it matches."""
        out = []
        for path, e, a, schema_error in self._misses(call):
            if path is None:
                out.append(ArgDiff("/name", e, a, f"name: expected {e!r}, recorded {a!r}"))
            elif schema_error is not None:
                out.append(ArgDiff(_pointer(("args",) + path), None, a, f"args{_pointer(path)}: {schema_error}"))
            else:
                out.append(ArgDiff(_pointer(("args",) + path), e, a,
                                   f"args{_pointer(path)}: expected {show(e)}, recorded {show(a)}"))
        return out

    def miss_count(self, call: ToolCall) -> int:
        """How many differences :meth:`diffs` would list, without wording them."""
        return len(self._misses(call))

    def matches(self, call: ToolCall) -> bool:
        return not self._misses(call)

    def _misses(self, call: ToolCall) -> list[tuple]:
        """``(path into args or None for the name, expected, recorded, schema message or None)``."""
        name, args = call.name, call.args
        if name != self.name:
            return [(None, self.name, name, None)]
        if self.args_kind in ("any", "ignore"):
            return []
        if self.args_kind == "exact":
            return [(path, e, a, None) for path, e, a in json_diff(self.args, args)]
        if self.args_kind == "subset":
            try:
                if subset(args, self.args):
                    return []
            except NestingError as exc:
                return [((), self.args, args, str(exc))]
            return [(path, e, a, None) for path, e, a in _subset_misses(self.args, args, ())]
        errors = sorted(schema_validator(self.args).iter_errors(args), key=lambda e: list(e.absolute_path))
        return [(tuple(err.absolute_path), None, err.instance, err.message) for err in errors]


def _subset_misses(expected: Any, recorded: Any, path: tuple) -> list:
    """The places an object subset fails: missing keys, differing values (arrays as a whole)."""
    from .values import ABSENT

    out = []
    pending = [(expected, recorded, path)]
    while pending:
        expected, recorded, path = pending.pop()
        if isinstance(expected, dict) and isinstance(recorded, dict):
            for key in reversed(list(expected)):  # a stack: reversed keeps the keys in order
                if key not in recorded:
                    pending.append((expected[key], ABSENT, path + (key,)))
                elif not subset(recorded[key], expected[key]):
                    pending.append((expected[key], recorded[key], path + (key,)))
        else:
            out.append((path, expected, recorded))
    return out


@attrs.frozen
class ExpectedTrace:
    """A match mode and the expected calls, in order."""

    mode: str
    calls: tuple[ExpectedCall, ...] = attrs.field(converter=tuple)

    def __attrs_post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"unknown trace mode {self.mode!r}; expected one of {', '.join(MODES)}")

    @classmethod
    def strict(cls, calls) -> "ExpectedTrace":
        return cls("strict", calls)

    @classmethod
    def subsequence(cls, calls) -> "ExpectedTrace":
        return cls("subsequence", calls)


@attrs.frozen
class TraceMismatch:
    """Why one expected call (or one recorded call, under ``subset``) found no partner."""

    expected_index: Optional[int]
    recorded_index: Optional[int]
    diffs: tuple[ArgDiff, ...]
    reason: str

    def to_dict(self) -> dict:
        return {"expected_index": self.expected_index, "recorded_index": self.recorded_index,
                "diffs": [d.to_dict() for d in self.diffs], "reason": self.reason}


@attrs.frozen
class TraceValidation:
    """The outcome: ``mismatches`` lists the first :data:`LISTED_MISMATCHES`; ``unlisted``
    counts the rest (a trace of 200,000 calls that all miss would otherwise carry them all
    into every failure text and report)."""

    passed: bool
    mode: str
    mismatches: tuple[TraceMismatch, ...] = ()
    pairs: tuple[tuple[int, int], ...] = ()  # (expected index, recorded index) that matched
    unlisted: int = 0

    def to_dict(self) -> dict:
        out = {"passed": self.passed, "mode": self.mode, "mismatches": [m.to_dict() for m in self.mismatches],
               "pairs": [list(p) for p in self.pairs]}
        if self.unlisted:
            out["unlisted_mismatches"] = self.unlisted
        return out


def _shown_name(call: ToolCall) -> str:
    """A recorded name fit for a one-line reason (quoted when it holds odd characters)."""
    return call.name if call.name.isprintable() else show(call.name)


class _Calls:
    """The recorded calls grouped for matching: calls with one name and equal arguments
    fit the same expected calls, so each shape comparison is made once per group."""

    def __init__(self, ref: Sequence[ExpectedCall], calls: Sequence[ToolCall]):
        self.ref, self.calls = ref, calls
        keys = [(json_key(c.name), json_key(c.args)) for c in calls]
        self.call_group, self.call_members = group(keys)
        self.ref_group, self.ref_members = group(_shape_key(e) for e in ref)
        self.ref_first = [m[0] for m in self.ref_members]
        self.by_name: dict[Any, list[int]] = {}  # name key -> call groups, in order
        self.by_args: dict[Any, int] = {}  # (name key, args key) -> call group
        for g, members in enumerate(self.call_members):
            name_key, args_key = keys[members[0]]
            self.by_name.setdefault(name_key, []).append(g)
            self.by_args[(name_key, args_key)] = g
        self._fits: dict[tuple[int, int], bool] = {}
        self.explained = 0
        self._positions: dict[int, list[int]] = {}
        self._misses: dict[tuple[int, int], tuple[ArgDiff, ...]] = {}

    def fits(self, i: int, k: int) -> bool:
        """Does expected call ``i`` fit recorded call ``k``?"""
        key = (self.ref_group[i], self.call_group[k])
        hit = self._fits.get(key)
        if hit is None:
            hit = self._fits[key] = self.ref[i].matches(self.calls[k])
        return hit

    def diffs(self, i: int, k: int) -> tuple[ArgDiff, ...]:
        key = (self.ref_group[i], self.call_group[k])
        hit = self._misses.get(key)
        if hit is None:
            hit = self._misses[key] = tuple(self.ref[i].diffs(self.calls[k]))
        return hit

    def edges(self) -> list[list[int]]:
        """For each group of expected calls, the groups of recorded calls it fits."""
        return [self._fitting_groups(g) for g in range(len(self.ref_first))]

    def _fitting_groups(self, g: int) -> list[int]:
        first = self.ref_first[g]
        exp = self.ref[first]
        name_key = json_key(exp.name)
        if exp.args_kind == "exact":
            hit = self.by_args.get((name_key, json_key(exp.args)))
            return [] if hit is None else [hit]
        return [h for h in self.by_name.get(name_key, ()) if self.fits(first, self.call_members[h][0])]

    def first_fit(self, i: int, start: int) -> Optional[int]:
        """The first recorded call at or after ``start`` that expected call ``i`` fits."""
        g = self.ref_group[i]
        positions = self._positions.get(g)
        if positions is None:
            positions = self._positions[g] = sorted(k for h in self._fitting_groups(g) for k in self.call_members[h])
        at = bisect.bisect_left(positions, start)
        return positions[at] if at < len(positions) else None

    def best_partner(self, i: int, start: int = 0) -> tuple[Optional[int], tuple[ArgDiff, ...]]:
        """The recorded call from ``start`` on closest to expected call ``i`` (same name
        first, fewest differences, earliest), to explain a miss.

        Only the first :data:`EXPLAINED_MISSES` misses are explained: each search compares
        every distinct recorded call of that tool, and a trace where thousands of calls
        miss would spend its time on explanations nobody reads.
        """
        self.explained += 1
        if self.explained > EXPLAINED_MISSES:
            return None, ()
        best: Optional[tuple[int, int]] = None
        for g in self.by_name.get(json_key(self.ref[i].name), ()):
            members = self.call_members[g]
            at = bisect.bisect_left(members, start)
            if at == len(members):
                continue
            k = members[at]
            score = (self.ref[i].miss_count(self.calls[k]), k)
            if best is None or score < best:
                best = score
        if best is None:
            return None, ()
        return best[1], self.diffs(i, best[1])


def _shape_key(expected: ExpectedCall) -> Any:
    if expected.args_kind in ("any", "ignore"):
        return (json_key(expected.name), "any")
    return (json_key(expected.name), expected.args_kind, json_key(expected.args))


def _transpose(edges: list[list[int]], width: int) -> list:
    out: list = [()] * width  # most recorded groups fit no expected call: share one empty tuple
    for g, targets in enumerate(edges):
        for t in targets:
            if not out[t]:
                out[t] = []
            out[t].append(g)
    return out


def validate_trace(calls: Sequence[ToolCall], expected: ExpectedTrace) -> TraceValidation:
    """Match the recorded ``calls`` against ``expected``."""
    ref = expected.calls
    mode = "strict" if expected.mode in ("exact_sequence", "exact-sequence") else expected.mode
    for exp in ref:  # a malformed schema is an error whatever the trace holds
        if exp.args_kind == "schema":
            schema_validator(exp.args)
    mismatches: list[TraceMismatch] = []
    unlisted = 0

    def miss(make) -> None:
        nonlocal unlisted
        if len(mismatches) < LISTED_MISMATCHES:
            mismatches.append(make())
        else:
            unlisted += 1

    if not ref:
        if mode == "subset" and calls:
            for i, c in enumerate(calls):
                miss(lambda: TraceMismatch(None, i, (), f"recorded call {i + 1} {_shown_name(c)}: "
                                           "the reference allows no call"))
            return TraceValidation(False, expected.mode, tuple(mismatches), unlisted=unlisted)
        return TraceValidation(True, expected.mode)
    grouped = _Calls(ref, calls)
    pairs: list[tuple[int, int]] = []
    if mode == "strict":
        for i in range(max(len(ref), len(calls))):
            if i >= len(ref):
                miss(lambda: TraceMismatch(None, i, (), f"recorded call {i + 1} {_shown_name(calls[i])}: "
                                                f"beyond the {plural(len(ref), 'expected call')}"))
            elif i >= len(calls):
                miss(lambda: TraceMismatch(i, None, (), f"expected call {i + 1} {ref[i].describe()}: "
                                                f"the trace ran out after {plural(len(calls), 'call')}"))
            elif grouped.fits(i, i):
                pairs.append((i, i))
            else:
                miss(lambda: TraceMismatch(i, i, grouped.diffs(i, i),
                                                f"call {i + 1}: {ref[i].describe()} does not match"))
    elif mode == "subsequence":
        at = 0
        for i, exp in enumerate(ref):
            j = grouped.first_fit(i, at)
            if j is None:
                partner, diffs = grouped.best_partner(i, at)  # only what is left to look at
                where = f"after recorded call {at}" if at else "in the trace"
                miss(lambda: TraceMismatch(i, partner, diffs, f"expected call {i + 1} {exp.describe()}: "
                                                f"not found {where}"))
            else:
                pairs.append((i, j))
                at = j + 1
    elif mode in ("unordered", "superset"):
        match = match_groups(grouped.ref_group, grouped.call_members, grouped.edges())
        for i, exp in enumerate(ref):
            if i in match:
                pairs.append((i, match[i]))
            else:
                partner, diffs = grouped.best_partner(i)
                miss(lambda: TraceMismatch(i, partner, diffs, f"expected call {i + 1} {exp.describe()}: "
                                                "no distinct recorded call matches it"))
    else:  # subset: every recorded call needs a distinct reference call
        edges = _transpose(grouped.edges(), len(grouped.call_members))
        match = match_groups(grouped.call_group, grouped.ref_members, edges)
        for j, call in enumerate(calls):
            if j in match:
                pairs.append((match[j], j))
            else:
                miss(lambda: TraceMismatch(None, j, (), f"recorded call {j + 1} {_shown_name(call)} "
                                                f"{show(call.args, 50)}: not allowed by the reference"))
    return TraceValidation(not mismatches, expected.mode, tuple(mismatches), tuple(sorted(pairs)), unlisted)
