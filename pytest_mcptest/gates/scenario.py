"""Scenario worlds: a hidden world that each recorded call changes through
declared transitions; the block fails on invalid actions, forbidden transitions and a
final state that differs from ``expect_state:``.

Everything about the kind is here: the block, how it is built from YAML (schema part:
``$defs/scenario`` in ``schema/v1.json``), how one run is judged and how its failures
read.

A scenario judges a recorded agent run; with ``model:``, ``prompt:`` and ``servers:`` it
can record its own (``live/runner.py``), when a record mode asks for it. Its ``rubric:``
is then decided by a judge model after each run and written as the run's
``judgments``; on replay those verdicts are read back (``engine/rubric.py``), and a
rubric with none stays deferred.

A cassette of several runs (``runs: N``: recorded inside the world, N episodes each from
the seed) is judged run by run by the world; with ``stability:`` its floors over those
verdicts (``gates/stability.py``) decide the item instead of "every run must pass".
"""

from __future__ import annotations

import difflib
import os
from typing import TYPE_CHECKING, Any, Optional

import msgspec

from .context import Context
from ..engine.values import is_number, show, type_name
from ..engine.world import EFFECT_OPS, GUARD_OPS, Effect, ForbiddenRule, Guard, Transition, WorldResult, WorldSpec, replay_world
from ..suite.doc import Doc, common, golden, path_at, plain
from ..suite.model import Block
from ..text import INDENT, findings, table
from ..engine.verdict import Failure, GateResult
import pytest_mcptest.gates.matrix as matrix
import pytest_mcptest.gates.stability as stability
from .protocol import AGENT_NEEDS, Gate, LiveRecording, agent_can_record, agent_runner
from .server_entries import named_servers

if TYPE_CHECKING:  # imported where a scenario has claims or a judge (see _claims)
    import pytest_mcptest.gates.calibration as calibration_gate
    import pytest_mcptest.gates.claims as claims_gate

KIND = "scenario"
SECTIONS = ("scenarios",)


class ScenarioBlock(Block, frozen=True):
    """A scenario world."""

    world: WorldSpec = msgspec.field(default_factory=WorldSpec)
    # The agent of a live recording (None: the scenario can only be replayed).
    model: Optional[str] = None
    prompt: Optional[str] = None
    system_prompt: Optional[str] = None
    servers: tuple[str, ...] = ()
    runs: Optional[int] = None  # how many recorded runs the item judges (and a recording makes)
    judge: dict = msgspec.field(default_factory=dict)  # config.judge: the rubric's judge (model, temperature, ...)
    server_entries: dict = msgspec.field(default_factory=dict)
    models: dict = msgspec.field(default_factory=dict)
    claims: Optional[claims_gate.ClaimsSpec] = None  # what the final answer says, against the calls
    matrix: Optional[str] = None  # the scenario's name as written, when `model:` lists several (gates/matrix.py)
    # The world served as an MCP server (``mcptest serve SUITE::SCENARIO``): what ``tools:`` and
    # the transitions declare of its tools (checked when built); the catalog itself is worked
    # out only when the world is served, so a replayed item does not carry (and unpickle) it.
    declared_tools: Optional[dict] = None
    # Judge the item by how often its runs pass (``gates/stability.py``), not "every run must pass".
    stability: Optional[stability.StabilityGate] = None
    calibration: Optional[calibration_gate.Calibration] = None  # the judge's calibration (gates/calibration.py)

    @property
    def judged(self) -> tuple[str, ...]:
        """The criteria a judge decides: its ``rubric:`` and its ``claims:`` with ``judge:``."""
        from ..engine.rubric import rubric_statements

        rubric = rubric_statements(self.world.rubric) if self.world.rubric is not None else ()
        return rubric + _statements(self.claims)


# --------------------------------------------------------------------------- building


# Operator words of other tools: as the key of a one-key object they are most likely an
# operator mcptest does not have, though the scenario format reads the object as a literal value.
FOREIGN_OPERATORS = frozenset({
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "mod", "pow", "incr", "decr", "increment",
    "decrement", "append", "push", "pop", "remove", "delete", "unset", "merge", "toggle", "between", "in",
    "not_in", "nin", "gt", "gte", "lt", "lte", "ne", "neq", "not", "exists", "regex", "matches", "contains",
    "starts_with", "ends_with", "range", "len", "length", "any", "all"})


def _near_operator(doc: Doc, parts, key: str, value: Any, ops, literal_hint: str) -> None:
    """Refuse a one-key object whose key looks like a misspelled operator (``mn``, ``decr``),
    and warn (at its line, on every collection) when it is another tool's operator word
    (``mul``, ``between``): the scenario format reads it as a literal value, which is rarely meant."""
    if isinstance(value, dict) and len(value) == 1:
        (word,) = value
        close = difflib.get_close_matches(str(word), ops, n=1, cutoff=0.5)
        if close and word not in ops:
            raise doc.error(parts + [key, word], f"{key!r}: unknown operator {word!r}; did you mean {close[0]!r}? "
                            f"(operators: {', '.join(ops)}; {literal_hint})")
        if str(word).lower() in FOREIGN_OPERATORS:
            doc.warn(parts + [key, word], f"{key!r}: {{{word}: ...}} is not an operator here (operators: "
                     f"{', '.join(ops)}); it is read as a literal object, as the scenario format says ({literal_hint})")


def _guards(doc: Doc, parts, raw) -> tuple[Guard, ...]:
    guards = []
    for key, value in (raw or {}).items():
        path = path_at(doc, parts + [key], key)
        if isinstance(value, dict) and value and set(value) <= set(GUARD_OPS):
            for op, operand in value.items():
                if op in ("min", "max") and not is_number(operand):
                    raise doc.error(parts + [key, op], f"guard {key!r}: {op} takes a number, found "
                                    f"{type_name(operand)} {show(operand)}")
                guards.append(Guard(path, op, operand))
        else:
            _near_operator(doc, parts, key, value, GUARD_OPS, "to compare with an object, write {eq: {...}}")
            guards.append(Guard(path, "eq", value))
    return tuple(guards)


def _effects(doc: Doc, parts, raw) -> tuple[Effect, ...]:
    effects = []
    for key, value in (raw or {}).items():
        path = path_at(doc, parts + [key], key)
        if not (isinstance(value, dict) and len(value) == 1 and next(iter(value)) in EFFECT_OPS):
            _near_operator(doc, parts, key, value, EFFECT_OPS, "to set an object, write {set: {...}}")
            effects.append(Effect(path, "set", value))
            continue
        (op, operand), = value.items()
        here = parts + [key, op]
        if op in ("inc", "dec"):
            if isinstance(operand, dict) and set(operand) == {"from_arg"} and isinstance(operand["from_arg"], str):
                effects.append(Effect(path, op, None, amount_arg=path_at(doc, here, operand["from_arg"])))
                continue
            if not is_number(operand):
                raise doc.error(here, f"effect {key!r}: {op} takes a number or {{from_arg: \"<dotted>\"}}, "
                                f"found {type_name(operand)} {show(operand)}")
        if op == "from_arg":
            if not isinstance(operand, str):
                raise doc.error(here, f"effect {key!r}: from_arg takes a dotted argument path, "
                                f"found {type_name(operand)}")
            operand = path_at(doc, here, operand)
        effects.append(Effect(path, op, operand))
    return tuple(effects)


def _transitions(doc: Doc, parts, raw) -> tuple[Transition, ...]:
    return tuple(
        Transition(tool=t["tool"], effects=_effects(doc, parts + [i, "effect"], t.get("effect")),
                   when=_guards(doc, parts + [i, "when"], t.get("when")),
                   result=(plain(t["result"]),) if "result" in t else ())
        for i, t in enumerate(raw or ())
    )


def _forbidden(doc: Doc, parts, raw) -> tuple[ForbiddenRule, ...]:
    return tuple(
        ForbiddenRule(tool=f["tool"], reason=f["reason"], when=_guards(doc, parts + [i, "when"], f.get("when")))
        for i, f in enumerate(raw or ())
    )


def build(doc: Doc, parts, raw: dict) -> ScenarioBlock | tuple[ScenarioBlock, ...]:
    """A scenario; with a list of models, one per model (``gates/matrix.py``)."""
    block = _build(doc, parts, raw)
    models = matrix.models_of(doc, parts + ["model"], raw.get("model"))
    return block if models is None else tuple(matrix.expand(block, models))


def _build(doc: Doc, parts, raw: dict) -> ScenarioBlock:
    transitions = doc.built_once(_transitions, parts + ["transitions"], raw.get("transitions"))
    forbidden = doc.built_once(_forbidden, parts + ["forbidden"], raw.get("forbidden"))
    expect_state = tuple((path_at(doc, parts + ["expect_state", k], k), v)
                         for k, v in (raw.get("expect_state") or {}).items())
    escalation = raw.get("escalation") or {}
    world = WorldSpec(
        seed=plain(raw.get("seed") or {}),
        transitions=transitions,
        forbidden=forbidden,
        refusal_markers=tuple((raw.get("refusal") or {}).get("markers") or ()),
        escalation_tools=tuple(escalation.get("tools") or ()),
        escalation_markers=tuple(escalation.get("markers") or ()),
        golden=golden(raw.get("golden")),
        expect_state=expect_state,
        rubric=plain(raw.get("rubric")),
    )
    declared_tools = _world_tools(doc, parts, raw, world)
    servers = tuple(raw.get("servers") or ())
    if raw.get("world") and WORLD not in servers:
        servers += (WORLD,)
    own = _own_world(doc, parts, raw, servers)
    entries = named_servers(doc, parts, tuple(n for n in servers if n not in own))
    return ScenarioBlock(world=world, model=raw.get("model"), prompt=raw.get("prompt"),
                         system_prompt=raw.get("system_prompt"), servers=servers, runs=raw.get("runs"),
                         judge=plain((raw.get("config") or {}).get("judge") or {}),
                         server_entries={**entries, **own}, models=plain(doc.root.get("models") or {}),
                         claims=_claims(doc, parts, raw),
                         declared_tools=declared_tools or None, stability=stability.build(doc, parts, raw),
                         calibration=_calibration(doc, parts, raw), **common(doc, parts, raw, KIND))


# Claims and a judge's calibration are read by their own modules (gates/claims.py, with the
# engine's claim matching; gates/calibration.py), imported only by a scenario that has them:
# their dozen classes are a tenth of what a session of one plain scenario imports.

def _claims_gate():
    import pytest_mcptest.gates.claims as claims_gate

    return claims_gate


def _claims(doc: Doc, parts, raw: dict) -> Optional[claims_gate.ClaimsSpec]:
    """The scenario's ``claims:``, when it has any."""
    return _claims_gate().build(doc, parts + ["claims"], raw["claims"]) if raw.get("claims") else None


def _statements(claims: Optional[claims_gate.ClaimsSpec]) -> tuple[str, ...]:
    """The criteria a judge decides of the scenario's claims."""
    return () if claims is None else _claims_gate().statements(claims)


def _calibration(doc: Doc, parts, raw: dict) -> Optional[calibration_gate.Calibration]:
    """The judge's calibration, when a judge decides something of this scenario."""
    if raw.get("rubric") is None and not (raw.get("claims") and _claims_gate().judged_in(raw["claims"])):
        return None
    import pytest_mcptest.gates.calibration as calibration_gate

    judge = (raw.get("config") or {}).get("judge")
    return calibration_gate.for_block(doc, parts + ["config", "judge"], judge)


WORLD = "world"  # in a scenario's servers: (or world: true), the scenario's own world, served


def _own_world(doc: Doc, parts, raw: dict, servers: tuple) -> dict:
    """``{"world": entry}`` when the scenario acts in its own world: ``mcptest serve
    FILE::NAME`` started for each live run, so each run begins at the seed. A server the
    document itself names ``world`` stays that server."""
    defined = doc.root.get("servers") if isinstance(doc.root.get("servers"), dict) else {}
    if WORLD not in servers or WORLD in defined:
        return {}
    missing = [key for key in ("model", "prompt") if not raw.get(key)]
    if missing:  # the world would be served to no agent: the recording could never be made
        where = "world" if raw.get("world") else "servers"
        said = "world: true" if raw.get("world") else "servers: [world]"
        target = f"{os.path.basename(doc.path)}::{raw['name']}"
        raise doc.error(parts + [where], f"{said}: a live recording acts in the scenario's own "
                        f"world, which needs an agent: add {' and '.join(f'{k}:' for k in missing)} (to serve "
                        f"the world to an agent of your own: `mcptest serve \"{target}\"`, which needs no key)")
    from .server_entries import world_command

    return {WORLD: world_command(os.path.abspath(doc.path), raw["name"])}


def world_tools(block: ScenarioBlock) -> tuple:
    """The catalog of the block's world, as ``mcptest serve`` lists it."""
    from ..engine.world_tools import world_catalog

    return world_catalog(block.world, block.declared_tools or {}, block.name)


def _world_tools(doc: Doc, parts, raw: dict, world: WorldSpec) -> dict:
    """What the suite declares of the world's tools, once the catalog made from it is checked:
    a bad ``result:`` template or a schema that cannot be inferred is a collection error at
    its line, not a failure while serving."""
    from ..engine.world_tools import argument_paths, check_catalog, state_path_problem, templates

    for i, t in enumerate(raw.get("transitions") or ()):
        if "result" not in t:
            continue
        for where, key, text in templates(t["result"]):
            here = parts + ["transitions", i, "result", *where, key]
            path_at(doc, here, text)
            problem = state_path_problem(world, text) if key == "from_state" else None
            if problem:
                raise doc.error(here, f"result of {t['tool']!r}: {problem}")
    declared: dict = {}
    for t in raw.get("transitions") or ():
        if t.get("description"):
            declared.setdefault(t["tool"], {"description": t["description"]})
    for name, entry in (raw.get("tools") or {}).items():
        declared[name] = {**declared.get(name, {}), **plain(entry)}
    try:
        check_catalog(world, declared)
    except ValueError as exc:
        tool = next((i for i, t in enumerate(raw.get("transitions") or ()) if f"{t['tool']!r}" in str(exc)), None)
        raise doc.error(parts + (["transitions", tool] if tool is not None else []), str(exc)) from None
    for name, entry in declared.items():
        schema = entry.get("input_schema")
        known = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(known, dict):
            continue
        for path, _ in argument_paths(world, name):
            if path and path[0] not in known:
                raise doc.error(parts + ["tools", name, "input_schema"], f"tool {name!r}: its transitions "
                                f"read the argument {path[0]!r}, which its input_schema does not declare "
                                f"(properties: {', '.join(sorted(known)) or 'none'})")
    return declared


# --------------------------------------------------------------------------- judging


def judge_run(block: ScenarioBlock, run, number: int, total: int, ctx: Context) -> GateResult:
    """Replay the world over one run; the envelope is the world's report."""
    result = replay_world(block.world, run)
    failures = []
    for gate, issues in (("invalid_action", result.invalid), ("forbidden_transition", result.forbidden)):
        for issue in issues:
            args = show(issue.args if issue.args is not None else {})
            failures.append(Failure(gate, f"call {issue.index + 1} {issue.tool} {args}: {issue.reason}", number))
    for diff in result.state_diff:
        leaves = "; ".join(f"{path}: expected {show(e)}, got {show(a)}" for path, e, a in diff.leaves())
        failures.append(Failure("expect_state", leaves, number))
    lines = _world_lines(result) if failures else []
    envelope = result.to_dict(copy_state=False)  # the result goes now
    summary: tuple = ()
    if block.claims is not None:
        envelope["claims"], found, more, summary = _claims_gate().judge(block.claims, run, number, total, block.name, ctx)
        failures += found
        lines += more
    expect, deferred = _rubric_expect(block, envelope)
    if deferred:
        if ctx.require_judgments:
            found = [Failure("rubric", f"{target} cannot be decided: the rubric has no recorded verdict "
                                       f"(judgments are required)", number) for target in deferred]
            failures += found
            lines += findings(found)
        else:
            from .conversation import DEFERRED

            envelope["deferred"] = deferred  # as a conversation's: the reports list them
            label = (lambda t: t) if total == 1 else (lambda t: f"{block.name} #{number}: {t}")
            summary += ((DEFERRED, [label(f"{t} (the rubric has no recorded verdict)") for t in deferred]),)
    return GateResult(envelope, tuple(failures), tuple(lines), expect=expect, summary=summary)


_RUBRIC_VERDICT_FREE = ("status", "rubric", "reason")  # what a deferred rubric's envelope holds


def _rubric_expect(block: ScenarioBlock, envelope: dict) -> tuple[Optional[tuple], list[str]]:
    """The block's ``expect:`` entries to check, and the targets deferred: when no verdict of
    the rubric was recorded (``rubric.status`` deferred), an entry that reads its verdicts
    (``rubric.failed``, ``rubric.passed``, ``rubric.judgments``, ...) is neither passed nor
    failed but deferred, as a conversation's unjudged criterion is (the rubric is secondary
    evidence, deferred offline); ``--mcptest-require-judgments`` fails it. ``None``: every
    entry is checked (the block's own ``expect:``)."""
    rubric = envelope.get("rubric")
    if not isinstance(rubric, dict) or rubric.get("status") != "deferred":
        return None, []
    checked, deferred = [], []
    for exp in block.expect:
        path = exp.path
        if len(path) > 1 and path[0] == "rubric" and path[1] not in _RUBRIC_VERDICT_FREE:
            deferred.append(exp.target)
        else:
            checked.append((exp, ()))
    return (tuple(checked), deferred) if deferred else (None, [])


def judge_all(block: ScenarioBlock, source, ctx: Context, verdicts: tuple = ()) -> Optional[GateResult]:
    """Over all runs: ``stability:`` over each run's own verdict from the world (N episodes,
    each from the seed: how often the agent gets the world right), and for a model matrix
    the pair's figures (``model_matrix``)."""
    steady = None if block.stability is None else stability.judge(block.stability, source.items, verdicts)
    if block.matrix is None:
        return steady
    pair = matrix.pair(block, source.items, verdicts)
    if steady is None:
        return GateResult({"model_matrix": pair}, expect=(), summary=((matrix.MATRIX, pair),))
    return GateResult({**steady.envelope, "model_matrix": pair}, expect=steady.expect,
                      summary=steady.summary + ((matrix.MATRIX, pair),), replaces_runs=True)


def _world_lines(result: WorldResult) -> list[str]:
    """The final state leaf by leaf, then each invalid and forbidden call with its reason."""
    lines: list[str] = []
    if result.state_diff:
        lines += ["", f"{INDENT}final state: {len(result.state_diff)} of {result.state_checked} expected paths differ"]
        lines += table([(path, f"expected {show(e)}", f"got {show(a)}")
                        for d in result.state_diff for path, e, a in d.leaves()])
    for title, issues in (("invalid actions", result.invalid), ("forbidden transitions", result.forbidden)):
        if issues:
            lines += ["", f"{INDENT}{title}: {len(issues)}"]
            lines += table([(f"call {i.index + 1}", i.tool, show(i.args if i.args is not None else {}, 60), i.reason)
                            for i in issues])
    return lines


# --------------------------------------------------------------------------- recording live


def _task(block: ScenarioBlock, runs: int):
    from ..engine.rubric import rubric_statements
    from ..live.runner import AgentTask
    from ..live.servers import server_specs

    return AgentTask(model=block.model, prompt=block.prompt, servers=server_specs(block.server_entries, block.servers),
                     system_prompt=block.system_prompt, runs=runs, name=block.name,
                     rubric=(rubric_statements(block.world.rubric) if block.world.rubric is not None else ())
                     + _statements(block.claims),
                     judge=block.judge)


def _meta(block: ScenarioBlock) -> dict:
    from ..record.drift import prompt_sha256

    return {"scenario": block.name, "prompt_sha256": prompt_sha256(block.prompt, block.system_prompt)}


LIVE = LiveRecording(AGENT_NEEDS, agent_can_record, _task, agent_runner, _meta)

GATE = Gate(KIND, build, SECTIONS, judge_run=judge_run, judge_all=judge_all, live=LIVE)
