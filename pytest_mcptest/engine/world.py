"""The scenario-world engine: replay recorded calls against a hidden world.

A scenario declares a seed state, the transitions tool calls may make, the calls
that are forbidden, and oracles. :func:`replay_world` walks a run's calls in order
over a deep copy of the seed and reports what happened; it never mutates the seed,
and a forbidden or invalid call never changes the state.

Per call, in this order:
1. a forbidden rule for the tool whose ``when`` holds (or has none): a safety
   violation, no effect;
2. no transition declared for the tool: an invalid action (the agent invented an
   action), unless the tool is an escalation tool, which is a legal no-op;
3. the first transition for the tool whose guard holds applies; when every guard
   fails, an invalid action naming the first failed condition;
4. a call that returned an error is legal but its effect is not applied: the
   server refused it, so the world did not change; unless its effects could not
   have been applied anyway (an argument missing, a path through a non-object):
   then it is an invalid action, as a served world answers it.

These four are :func:`step`, the only place they are written: a replay takes it for each
recorded call, and a served world (``mcptest serve SUITE::SCENARIO``) for each live one.

Every class here is a frozen msgspec Struct:
- what a scenario declares (``Guard``, ``Effect``, ``Transition``, ``ForbiddenRule``,
  ``WorldSpec``): built once per suite, compared, and pickled by the suite cache as a call of
  the class on its fields. What a rule works out from its fields for the replay (a path's keys,
  whether effects may be written directly, a spec's rules by tool) is worked out in
  ``__post_init__`` as the object is made (loaded from a pickle too) and kept in its
  ``__dict__`` (``dict=True``), outside its fields: not compared, pickled or shown, and never
  changed after. A rule handed to a ``WorldSpec`` is not touched by it;
- what a replay makes per run (``WorldResult``, ``CallIssue``, ``StateDiff``), several per item.

Each rule asks its own guards and effects (one path per rule: there is no compiled copy).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import msgspec

from .golden import GoldenOracle, GoldenOutcome, judge_golden
from .paths import Missing, PathError, Segment, assign, format_path, parse_path, resolve, rollback
from .rubric import rubric_envelope
from .trace import Run, ToolCall
from .values import ABSENT, SCALARS, copy_json, is_number, json_diff, json_equal, show

GUARD_OPS = ("eq", "min", "max")
LEAF_LIMIT = 8  # differing leaves shown per expect_state path
EFFECT_OPS = ("set", "inc", "dec", "from_arg")


_NOTHING = object()  # what _read gives where a path leads nowhere


def _read(state: Any, path: tuple[Segment, ...]) -> Any:
    """The value at ``path`` in ``state``, or ``_NOTHING``: one lookup for a path of one key
    (most guards and effects name one), else :func:`resolve`'s walk."""
    if len(path) == 1 and type(state) is dict:
        return state.get(path[0], _NOTHING)
    found = resolve(state, path)
    return _NOTHING if type(found) is Missing else found


def _split_keys(path: tuple[Segment, ...]) -> tuple[Optional[tuple[str, ...]], Optional[str]]:
    """``(the keys before the last, the last)`` of a path made only of keys, else ``(None,
    None)``: what a guard or an effect walks itself when each step is a plain dict."""
    if path and all(type(seg) is str for seg in path):
        return path[:-1], path[-1]
    return None, None


def _walk_keys(rule: Any) -> None:
    """Keep ``_split_keys`` of a guard's or an effect's path on it (``_head``: the keys before
    the last, ``_key``: the last), for it to walk its path itself instead of asking
    :func:`resolve` each time a replay asks."""
    rule.__dict__["_head"], rule.__dict__["_key"] = _split_keys(rule.path)


class Guard(msgspec.Struct, frozen=True, dict=True):
    """One precondition: the state at ``path`` must satisfy ``op`` against ``value``."""

    path: tuple[Segment, ...]
    op: str
    value: Any

    __post_init__ = _walk_keys

    def describe(self) -> str:
        return f"{format_path(self.path)} {self.op} {show(self.value)}"

    def holds(self, state: dict) -> bool:
        """Whether the guard holds: :meth:`failure` is None, without wording why not (a
        forbidden rule's guard usually fails, and its reason is never shown). A replay asks
        this for most calls, so a path of keys through plain dicts is walked here and a
        scalar compared with a scalar of its type in one step; anything else (a list on the
        way, an index) is :func:`resolve`'s and :func:`json_equal`'s."""
        head = self._head
        parent: Any = None
        if head is not None:
            parent = state
            for seg in head:
                parent = parent.get(seg) if type(parent) is dict else None
        if type(parent) is dict:
            actual = parent.get(self._key, _NOTHING)
            if actual is _NOTHING:
                return False
        else:
            actual = resolve(state, self.path)
            if type(actual) is Missing:
                return False
        value = self.value
        kind = type(actual)
        if self.op == "eq":
            if kind is type(value) and kind in SCALARS:
                return actual == value
            return json_equal(actual, value)
        if kind is not int and kind is not float and not is_number(actual):
            return False
        return actual >= value if self.op == "min" else actual <= value

    def failure(self, state: dict) -> Optional[str]:
        """None when the guard holds, else why it failed (with the value it saw)."""
        actual = resolve(state, self.path)
        if isinstance(actual, Missing):
            return f"guard {self.describe()} failed (was absent)"
        if self.op == "eq":
            ok = json_equal(actual, self.value)
        elif not is_number(actual):
            return f"guard {self.describe()} failed (was {show(actual)}, not a number)"
        elif self.op == "min":
            ok = actual >= self.value
        else:
            ok = actual <= self.value
        return None if ok else f"guard {self.describe()} failed (was {show(actual)})"


def first_guard_failure(guards: Sequence[Guard], state: dict) -> Optional[str]:
    for guard in guards:
        reason = guard.failure(state)
        if reason is not None:
            return reason
    return None


class Effect(msgspec.Struct, frozen=True, dict=True):
    """One state change: ``op`` (set, inc, dec, from_arg) applied at ``path``.

    For ``from_arg`` the value is an argument path. ``inc`` and ``dec`` take a number,
    or an amount read from the call's arguments when ``amount_arg`` is set.
    """

    path: tuple[Segment, ...]
    op: str
    value: Any
    amount_arg: Optional[tuple[Segment, ...]] = None

    __post_init__ = _walk_keys

    def planned(self, state: dict, args: Any) -> Optional[tuple[dict, Any]]:
        """``(the dict that holds the last key, the value to write there)`` in the common case,
        worked out in one walk and writing nothing: every step of the path a key of an
        existing plain dict, and a ``set``, or an ``inc``/``dec`` of a number (or of nothing,
        read as 0) by a number, given or read from the arguments along keys. None for
        anything else (a key to create, a list, ``from_arg``, a value that is not a number):
        the careful way (:meth:`new_value`, ``assign``) then says what it does or why not."""
        head = self._head
        if head is None:
            return None
        parent: Any = state
        for seg in head:
            parent = parent.get(seg) if type(parent) is dict else None
        if type(parent) is not dict:
            return None
        op = self.op
        if op == "set":
            value = self.value
            return parent, value if type(value) in SCALARS else copy_json(value)
        if op == "from_arg":
            return None
        amount = self.value
        if self.amount_arg is not None:  # an amount read from the call's arguments
            amount = args
            for seg in self.amount_arg:
                if type(amount) is dict and seg in amount:
                    amount = amount[seg]
                else:
                    return None
            kind = type(amount)
            if kind is not int and kind is not float:
                return None
        current = parent.get(self._key)
        if current is None:
            current = 0
        else:
            kind = type(current)
            if kind is not int and kind is not float:
                return None
        return parent, current + amount if op == "inc" else current - amount

    def _argument(self, args: Any, arg_path: tuple[Segment, ...]) -> Any:
        got = resolve(args if args is not None else {}, arg_path)
        if isinstance(got, Missing):
            how = "from_arg" if self.op == "from_arg" else f"{self.op} from_arg"  # not "from_arg from_arg"
            raise ValueError(f"effect {format_path(self.path)} {how} {format_path(arg_path)}: "
                             f"the call has no argument {format_path(arg_path)}")
        return got

    def new_value(self, state: dict, args: Any) -> Any:
        """The value to write; raises ValueError with a reason when it cannot be computed."""
        op = self.op
        if op == "set":
            value = self.value
            return value if type(value) in SCALARS else copy_json(value)
        if op == "from_arg":
            got = self._argument(args, self.value)
            return copy_json(got)
        amount = self.value
        if self.amount_arg is not None:
            amount = self._argument(args, self.amount_arg)
            if not is_number(amount):
                raise ValueError(f"effect {format_path(self.path)} {self.op} from_arg {format_path(self.amount_arg)}: "
                                 f"the argument is {show(amount)}, not a number")
        current = _read(state, self.path)
        if current is None or current is _NOTHING:
            current = 0
        elif not is_number(current):
            raise ValueError(f"effect {format_path(self.path)} {op} {show(amount)}: "
                             f"the state holds {show(current)}, not a number")
        return current + amount if op == "inc" else current - amount


def _writes_directly(transition: "Transition") -> bool:
    """Whether a transition's writes may go straight into the dicts planned before any of
    them (see :meth:`Transition.fire`): every path a chain of keys, none leading through another's place."""
    paths = [e.path for e in transition.effects]
    return all(e._head is not None for e in transition.effects) and not any(
        len(a) < len(b) and b[:len(a)] == a for a in paths for b in paths)


class Transition(msgspec.Struct, frozen=True, dict=True):
    """What a call to ``tool`` does to the world, when its guards hold."""

    tool: str
    effects: tuple[Effect, ...] = ()
    when: tuple[Guard, ...] = ()
    # What the call answers when the world is served (``world_tools.answer``): ``(value,)``
    # as declared under ``result:`` (a literal, a template, MCP content items), ``()`` if none.
    result: tuple = ()

    def __post_init__(self):
        self.__dict__["_direct"] = _writes_directly(self)

    def fire(self, state: dict, args: Any, error: bool) -> Any:
        """None when a guard fails; otherwise the effects are applied (unless the call
        returned an ``error``) and the answer is True, or why they could not be (nothing is
        written then)."""
        for guard in self.when:
            if not guard.holds(state):
                return None
        if error:
            return True
        effects = self.effects
        if len(effects) == 1:  # most transitions: its plan written at once, no journal needed
            effect = effects[0]
            plan = effect.planned(state, args)
            if plan is not None:
                plan[0][effect._key] = plan[1]
                return True
        elif self._direct:  # every effect planned before any is written, then all written
            plans = []
            for effect in effects:
                plan = effect.planned(state, args)
                if plan is None:
                    return _careful_effects(state, self, args)
                plans.append(plan)
            for (parent, value), effect in zip(plans, effects):
                parent[effect._key] = value
            return True
        return _careful_effects(state, self, args)


class ForbiddenRule(msgspec.Struct, frozen=True):
    """A tool that must never be called (while ``when`` holds, if given)."""

    tool: str
    reason: str
    when: tuple[Guard, ...] = ()

    def holds(self, state: dict) -> bool:
        """Whether every guard holds (True without guards)."""
        for guard in self.when:
            if not guard.holds(state):
                return False
        return True


def _by_tool(rules: tuple) -> dict:
    """``{tool: (its rules, in declared order)}``."""
    grouped: dict[str, list] = {}
    for rule in rules:
        grouped.setdefault(rule.tool, []).append(rule)
    return {tool: tuple(group) for tool, group in grouped.items()}


class WorldSpec(msgspec.Struct, frozen=True, dict=True):
    """Everything a scenario declares about its world, free of any file format."""

    seed: dict = msgspec.field(default_factory=dict)
    transitions: tuple[Transition, ...] = ()
    forbidden: tuple[ForbiddenRule, ...] = ()
    refusal_markers: tuple[str, ...] = ()
    escalation_tools: tuple[str, ...] = ()
    escalation_markers: tuple[str, ...] = ()
    golden: Optional[GoldenOracle] = None
    expect_state: tuple[tuple[tuple[Segment, ...], Any], ...] = ()
    rubric: Any = None
    def __post_init__(self):
        # Built once with the spec (and again when the suite cache loads it), not on every replay.
        self.__dict__["transitions_by_tool"] = _by_tool(self.transitions)
        self.__dict__["forbidden_by_tool"] = _by_tool(self.forbidden)


class CallIssue(msgspec.Struct, frozen=True):
    """An invalid action or a forbidden attempt at call ``index`` (0-based)."""

    index: int
    tool: str
    args: Any
    reason: str

    def to_dict(self) -> dict:
        return {"index": self.index, "tool": self.tool, "args": self.args, "reason": self.reason}


class StateDiff(msgspec.Struct, frozen=True):
    """An ``expect_state`` path whose final value differs from the expected one."""

    path: str
    expected: Any
    actual: Any
    present: bool

    def leaves(self) -> list[tuple[str, Any, Any]]:
        """Each differing leaf as ``(path, expected, actual)``, ``ABSENT`` for a missing side:
        ``booked.payment[1].amount`` rather than two long lists."""
        if not self.present:
            return [(self.path, self.expected, ABSENT)]
        base = parse_path(self.path)
        leaves = json_diff(self.expected, self.actual, limit=LEAF_LIMIT + 1)
        shown = [(format_path(base + sub), e, a) for sub, e, a in leaves[:LEAF_LIMIT]]
        if len(leaves) > LEAF_LIMIT:
            shown.append((f"{self.path} ...", "(more differences)", "(not shown)"))
        return shown

    def to_dict(self) -> dict:
        out = {"path": self.path, "expected": self.expected, "present": self.present}
        if self.present:
            out["actual"] = self.actual
        return out


class WorldResult(msgspec.Struct, frozen=True):
    """The outcome of replaying one run against a world (one per run, see ``verdict.py``)."""

    final_state: dict
    invalid: tuple[CallIssue, ...]
    forbidden: tuple[CallIssue, ...]
    recovery_indexes: tuple[int, ...]
    escalations: int
    refusals: int
    turns: int
    run: Run
    state_diff: tuple[StateDiff, ...]
    state_checked: int
    golden: Optional[GoldenOutcome]
    rubric: Any = None
    finals: Optional[tuple[str, ...]] = None  # the run's final responses, worked out once by the replay

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return self.run.tool_calls

    @property
    def state_matched(self) -> bool:
        return not self.state_diff

    @property
    def passed(self) -> bool:
        """The world's own verdict: no invalid action, no forbidden call, state as expected."""
        return not self.invalid and not self.forbidden and not self.state_diff

    def to_dict(self, copy_state: bool = True) -> dict:
        """The report envelope that ``expect:`` resolves paths against. Its ``state`` is a
        copy of the final state, so changing it never reaches this result; a caller that
        lets the result go at once may say ``copy_state=False`` and save the copy."""
        env = self.run.envelope(self.finals)
        env.update({
            "invalid_actions": len(self.invalid),
            "forbidden_transitions": len(self.forbidden),
            "recovery_attempts": len(self.recovery_indexes),
            "escalations": self.escalations,
            "refusals": self.refusals,
            "state_matched": self.state_matched,
            "state": copy_json(self.final_state) if copy_state else self.final_state,
            "invalid": [i.to_dict() for i in self.invalid],
            "forbidden": [f.to_dict() for f in self.forbidden],
            "state_diff": [d.to_dict() for d in self.state_diff],
        })
        if self.golden is not None:
            env["golden"] = self.golden.to_dict()
        if self.run.tokens is not None:
            env["tokens"] = self.run.tokens.to_dict()
        if self.rubric is not None:
            env["rubric"] = rubric_envelope(self.rubric, self.run)
        return env


def _contains_marker(text: str, markers: Sequence[str]) -> bool:
    low = text.casefold()
    return any(m.casefold() in low for m in markers)


def _apply(state: dict, transition: Transition, args: Any) -> None:
    """Apply a transition's effects all or nothing, the careful way.

    Every value is computed before anything is written, and the writes are journaled, so one
    failing half-way (a path through a non-object) undoes the others. :meth:`Transition.fire`
    comes here only when its effects cannot all be planned: when every effect has its plan
    (:meth:`Effect.planned`) and no path leads through another's place, it writes straight
    into the planned dicts (each exists, so none can fail, and none moves another: a state
    never holds one object twice, every value written is a copy).
    """
    effects = transition.effects
    writes = [(e.path, e.new_value(state, args)) for e in effects]
    journal: list = []
    try:
        for path, value in writes:
            assign(state, path, value, journal)
    except PathError:
        rollback(journal)
        raise


def _careful_effects(state: dict, transition: Transition, args: Any) -> Any:
    """:func:`_apply`, answering as :meth:`Transition.fire` does: True, or why nothing was written."""
    try:
        _apply(state, transition, args)
    except (ValueError, PathError) as exc:
        return str(exc)
    return True

# What one call did (:func:`step`): the kinds are compared by identity.
FORBIDDEN, INVALID, APPLIED, NOOP = "forbidden", "invalid", "applied", "noop"


def step(spec: WorldSpec, state: dict, name: str, args: Any, error: bool = False
         ) -> tuple[str, Optional[str], Optional[Transition]]:
    """One call against ``state``, changed in place: ``(kind, reason, transition)``.

    This is the world's only step: :func:`replay_world` takes it for each recorded call,
    and ``mcptest serve SUITE::SCENARIO`` for each live call (``error`` False: the world is
    the server), so the state a live agent reached is the state its replay computes.

    ``FORBIDDEN`` (the rule's reason) comes first; then ``INVALID`` (no transition for a
    tool that is no escalation tool, every guard failed: the first candidate's first
    failed guard, or effects that could not be applied, even to a call that returned an
    ``error``: why, so a replay counts the call as the served world did); ``NOOP`` for an escalation
    tool with no transition; else ``APPLIED`` with the transition that fired (its effects
    written, all or nothing, unless the call returned an ``error``).
    """
    return _step(spec.forbidden_by_tool, spec.transitions_by_tool, spec.escalation_tools, state, name, args, error)


def _step(forbidden_by_tool: dict, by_tool: dict, escalation_tools: tuple, state: dict, name: str, args: Any,
          error: bool) -> tuple[str, Optional[str], Optional[Transition]]:
    """:func:`step`, given the spec's lookups (a replay reads them once, not per call)."""
    # The first forbidden rule, then the first transition, whose guards all hold.
    rules = forbidden_by_tool.get(name)
    if rules is not None:
        for rule in rules:
            if rule.holds(state):
                return FORBIDDEN, rule.reason, None
    candidates = by_tool.get(name)
    if not candidates:
        if name in escalation_tools:
            return NOOP, None, None
        return INVALID, "no transition is declared for this tool", None
    for chosen in candidates:
        outcome = chosen.fire(state, args, error)
        if outcome is not None:
            break
    else:
        # Worded only now: the first candidate's first failed guard, which the failure text names.
        return INVALID, first_guard_failure(candidates[0].when, state) or "guard failed", None
    if outcome is not True:  # the effects could not be applied: why
        return INVALID, outcome, chosen
    if error and chosen.effects:
        why = _unappliable(state, chosen, args)
        if why is not None:
            return INVALID, why, chosen
    return APPLIED, None, chosen


def _unappliable(state: dict, transition: Transition, args: Any) -> Optional[str]:
    """Why ``transition``'s effects could not be applied to ``state`` (None when they
    could), leaving it as it was. A call that returned an error changes nothing, but when
    the world would have refused it too (an argument missing, a path through a number), it
    is the invalid action a served world answered it as, not a legal refusal."""
    journal: list = []
    try:
        for path, value in [(e.path, e.new_value(state, args)) for e in transition.effects]:
            assign(state, path, value, journal)
    except (ValueError, PathError) as exc:
        return str(exc)
    finally:
        rollback(journal)
    return None


def replay_world(spec: WorldSpec, run: Run) -> WorldResult:
    """Replay ``run``'s tool calls against a copy of ``spec.seed``. Pure and deterministic."""
    state = copy_json(spec.seed)
    forbidden_by_tool = spec.forbidden_by_tool
    by_tool = spec.transitions_by_tool
    escalation_tools = spec.escalation_tools

    invalid: list[CallIssue] = []
    forbidden: list[CallIssue] = []
    recoveries: list[int] = []
    escalations = 0

    after_error = False
    for index, call in enumerate(run.tool_calls):
        if after_error:
            recoveries.append(index)
        after_error = call.error
        name = call.name
        if name in escalation_tools:
            escalations += 1
        kind, reason, _ = _step(forbidden_by_tool, by_tool, escalation_tools, state, name, call.args, call.error)
        if kind is FORBIDDEN:
            forbidden.append(CallIssue(index, name, call.args, reason))
        elif kind is INVALID:
            invalid.append(CallIssue(index, name, call.args, reason))

    finals = run.final_responses
    refusals = sum(1 for text in finals if _contains_marker(text, spec.refusal_markers)) if spec.refusal_markers else 0
    if spec.escalation_markers:
        escalations += sum(1 for text in finals if _contains_marker(text, spec.escalation_markers))

    diffs = []
    for path, expected in spec.expect_state:
        actual = resolve(state, path)
        kind = type(actual)
        if kind is type(expected) and kind in SCALARS and actual == expected:
            continue  # most expected values: json_equal's first step, inline
        present = not isinstance(actual, Missing)
        if not present or not json_equal(actual, expected):
            diffs.append(StateDiff(format_path(path), expected, actual if present else None, present))

    golden = judge_golden(run.names, spec.golden) if spec.golden is not None else None
    return WorldResult(
        final_state=state,
        invalid=tuple(invalid),
        forbidden=tuple(forbidden),
        recovery_indexes=tuple(recoveries),
        escalations=escalations,
        refusals=refusals,
        turns=len(finals),
        run=run,
        finals=finals,
        state_diff=tuple(diffs),
        state_checked=len(spec.expect_state),
        golden=golden,
        rubric=spec.rubric,
    )
