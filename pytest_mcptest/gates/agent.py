"""Agent tests (tool selection and trajectories): a recorded agent run gated on its calls and path.

Per run: ``expected_trace:`` (five match modes, five argument shapes), ``golden:`` (the
path penalty) and ``expect:``. Over all runs of the cassette, once: ``equal_function_sets:``
(selection F1, micro-averaged), the ``tool_selection:`` pass^k floor, ``orchestration:``
and ``token_efficiency:`` from the recorded catalog. An agent's ``distractors:`` block is
its own item (:mod:`.distractors`). Schema part: ``$defs/agent`` and ``$defs/agent_test``.
"""

from __future__ import annotations

import os
from typing import Any, Optional

import msgspec

from .context import Context
from ..engine.golden import GoldenOracle, judge_golden
from ..engine.matching import MalformedSchema, schema_validator
from ..engine.trace_match import ExpectedCall, ExpectedTrace, TraceValidation, validate_trace
from ..engine.values import show
from ..suite.doc import Doc, common, defaults, expectations, golden, near, plain
from ..suite.model import Block
from ..text import INDENT, findings, plural, table
from ..engine.verdict import Failure, GateResult
import pytest_mcptest.gates.calibration as calibration_gate
import pytest_mcptest.gates.claims as claims_gate
import pytest_mcptest.gates.distractors as distractors
import pytest_mcptest.gates.matrix as matrix
import pytest_mcptest.gates.stability as stability
from .protocol import AGENT_NEEDS, Gate, LiveRecording, agent_can_record, agent_runner
from .server_entries import resolve_server

KIND = "agent"
SECTIONS = ("agents", "tests")


class ClassGate(msgspec.Struct, frozen=True):
    """``equal_function_sets:`` or ``token_efficiency:``: the classes and the gate's own
    ``expect:`` (the default already applied when it was empty or omitted)."""

    classes: tuple = ()  # engine FunctionClass values
    expect: tuple = ()


class SelectionFloor(msgspec.Struct, frozen=True):
    """``tool_selection:``: the pass^k floor over every run of the cassette."""

    expected_tool: str
    min_selection_rate: float
    max_total_tokens: Optional[int] = None
    expect: tuple = ()  # its own gates on tool_selection.*, judged over every run


class AgentBlock(Block, frozen=True):
    """An agent test: a recorded agent run gated on its calls and path."""

    model: Optional[str] = None
    prompt: Optional[str] = None
    system_prompt: Optional[str] = None
    servers: tuple[str, ...] = ()
    runs: Optional[int] = None  # how many recorded runs the item judges (and a recording makes)
    # The suite's resolved `servers:` entries this agent names, and its `models:` block:
    # what a live recording starts and talks to, and what drift compares.
    server_entries: dict = msgspec.field(default_factory=dict)
    models: dict = msgspec.field(default_factory=dict)
    distractor_plan: Optional[tuple] = None  # (count, source, of) presented on a live recording
    trace: Optional[ExpectedTrace] = None
    golden: Optional[GoldenOracle] = None
    # Gates over all runs of the cassette, evaluated once per item (None: not declared).
    equal_function_sets: Optional[ClassGate] = None
    tool_selection: Optional[SelectionFloor] = None
    orchestration: Optional[tuple] = None  # its expect: entries
    token_efficiency: Optional[ClassGate] = None
    discovery: dict = msgspec.field(default_factory=dict)  # {name_free: bool}: metadata, judged via the classes
    stability: Optional[stability.StabilityGate] = None
    claims: Optional[claims_gate.ClaimsSpec] = None  # what the final answer says, against the calls
    matrix: Optional[str] = None  # the test's name as written, when `model:` lists several (gates/matrix.py)
    calibration: Optional[calibration_gate.Calibration] = None  # judge_calibration: of its document

    @property
    def judged(self) -> tuple[str, ...]:
        """The criteria a judge decides (its ``claims:`` with ``judge:``)."""
        return claims_gate.statements(self.claims)

    @property
    def has_selection_gates(self) -> bool:
        """Any of the gates over all runs: selection F1, the floor, orchestration, tokens."""
        return any(g is not None for g in (self.equal_function_sets, self.tool_selection,
                                            self.orchestration, self.token_efficiency))

    @property
    def has_aggregates(self) -> bool:
        return self.has_selection_gates or self.stability is not None

    @property
    def classes(self) -> tuple:
        """The declared equal-function classes (orchestration's discovery and efficiency read them)."""
        for gate in (self.equal_function_sets, self.token_efficiency):
            if gate is not None:
                return gate.classes
        return ()


# --------------------------------------------------------------------------- building

# the default gate of a class gate whose `expect:` is empty or omitted.
CLASS_GATE_DEFAULTS = {"equal_function_sets": {"tool_selection.f1": {">=": 50}},
                       "token_efficiency": {"token_efficiency.f1": {">=": 50}}}

# What a `tests:` entry takes from the `agents:` entry it names: the agent, not its gates.
AGENT_DEFINITION = ("model", "prompt", "system_prompt", "servers", "runs")


def _expected_trace(doc: Doc, parts, raw: Any) -> ExpectedTrace | None:
    if raw is None:
        return None
    calls = []
    for i, entry in enumerate(raw["calls"]):
        here = parts + ["calls", i]
        if isinstance(entry, str):
            calls.append(ExpectedCall(entry))
            continue
        args = entry.get("args", "any")
        if isinstance(args, str) and args in ("any", "ignore"):
            calls.append(ExpectedCall(entry["name"], args))
            continue
        if not (isinstance(args, dict) and len(args) == 1 and next(iter(args)) in ("exact", "subset", "schema")):
            raise doc.error(here + ["args"], "args must be any, ignore, {exact: ...}, {subset: ...} or "
                            f"{{schema: ...}}, found {show(args)}")
        (kind, value), = args.items()
        if kind == "schema":
            try:
                schema_validator(value)
            except MalformedSchema as exc:
                raise doc.error(here + ["args", "schema"], str(exc)) from None
        calls.append(ExpectedCall(entry["name"], kind, plain(value)))
    return ExpectedTrace(raw.get("mode", "strict"), calls)


# Envelope keys judged once over every run, and the block whose `expect:` gates them.
OVER_ALL_RUNS = {"tool_selection": "tool_selection", "orchestration": "orchestration",
                 "token_efficiency": "token_efficiency", "stability": "stability"}


def _over_all_runs_in_per_run_expect(doc: Doc, parts, agent: AgentBlock) -> None:
    """The agent's own ``expect:`` reads each run's envelope, where ``tool_selection.*`` and
    the other keys over all runs do not exist: such an entry would fail once per run with no
    hint. It is refused here, saying where it belongs (one way to gate each thing)."""
    for i, exp in enumerate(agent.expect):
        head = exp.path[0] if exp.path else None
        if head in OVER_ALL_RUNS:
            raise doc.error(parts + ["expect", i], f"{exp.target} is judged over all runs, not per run: "
                            f"put it under {OVER_ALL_RUNS[head]}: expect: (the agent's own expect: reads each "
                            f"run's envelope)")


def _plan(raw: dict) -> tuple:
    """(count, source, of) of a ``distractors:`` block, for a live recording to present."""
    source = raw.get("source", {"from": "catalog"})
    source = {"from": source} if isinstance(source, str) else source
    return (raw.get("count", 0), source.get("from", "catalog"), tuple(source.get("of") or ()))


def _class_gate(doc: Doc, parts, raw: dict, key: str) -> ClassGate | None:
    from ..engine.selection import FunctionClass

    gate = raw.get(key)
    if gate is None:
        return None
    here = parts + [key]
    classes = tuple(FunctionClass(str(c["name"]), tuple(c["members"])) for c in gate["classes"])
    expect = expectations(doc, here + ["expect"], gate.get("expect")) or defaults([CLASS_GATE_DEFAULTS[key]], doc.line(here))
    return ClassGate(classes, expect)


def build(doc: Doc, parts, raw: dict) -> AgentBlock | tuple[Block, ...]:
    """An agent test; with ``distractors:``, the agent and its ``[distractors]`` item."""
    base: dict = {}
    if raw.get("type") == "agent":  # `tests:` spelling: inherit from the named `agents:` entry
        agents = {a.get("name"): a for a in (doc.root.get("agents") or []) if isinstance(a, dict)}
        base = agents.get(raw["agent"])
        if base is None:
            raise doc.error(parts + ["agent"], f"no agent named {raw['agent']!r} under agents: in this "
                            f"document{near(raw['agent'], agents)}")
    merged = {**{k: v for k, v in base.items() if k in AGENT_DEFINITION}, **raw}
    floor, orchestration = raw.get("tool_selection"), raw.get("orchestration")
    servers = tuple(merged.get("servers") or ())
    suite_servers = doc.root.get("servers") or {}
    suite_dir = os.path.dirname(os.path.abspath(doc.path))
    plan = raw.get("distractors")
    efs = _class_gate(doc, parts, raw, "equal_function_sets")
    efficiency = _class_gate(doc, parts, raw, "token_efficiency")
    classes = next((g.classes for g in (efs, efficiency) if g is not None), ())
    agent = AgentBlock(
        model=merged.get("model"), prompt=merged.get("prompt"), system_prompt=merged.get("system_prompt"),
        servers=servers, runs=merged.get("runs"),
        server_entries={n: resolve_server(plain(suite_servers[n]), suite_dir) for n in servers if n in suite_servers},
        models=plain(doc.root.get("models") or {}),
        distractor_plan=None if not isinstance(plan, dict) else _plan(plan),
        trace=_expected_trace(doc, parts + ["expected_trace"], merged.get("expected_trace")),
        golden=golden(merged.get("golden")),
        equal_function_sets=efs, token_efficiency=efficiency,
        claims=claims_gate.build(doc, parts + ["claims"], raw.get("claims"), classes),
        tool_selection=None if floor is None else SelectionFloor(
            floor["expected_tool"], floor["min_selection_rate"], floor.get("max_total_tokens"),
            expectations(doc, parts + ["tool_selection", "expect"], floor.get("expect"))),
        orchestration=None if orchestration is None else expectations(
            doc, parts + ["orchestration", "expect"], orchestration.get("expect")),
        discovery=plain(raw.get("discovery") or {}),
        stability=stability.build(doc, parts, raw),
        calibration=calibration_gate.for_block(doc, parts, None) if claims_gate.judged_in(raw.get("claims")) else None,
        **common(doc, parts, raw, KIND))
    _over_all_runs_in_per_run_expect(doc, parts, agent)
    models = matrix.models_of(doc, parts + ["model"] if "model" in raw else parts + ["agent"], merged.get("model"))
    agents = (agent,) if models is None else tuple(matrix.expand(agent, models))
    if raw.get("distractors") is None:
        return agents[0] if models is None else agents
    return tuple(b for a in agents for b in (a, distractors.build_for_agent(doc, parts, raw, a)))


# --------------------------------------------------------------------------- judging one run


def judge_run(block: AgentBlock, run, number: int, total: int, ctx: Context) -> GateResult:
    """The run's envelope (calls, names, turns, tokens, cost) and its per-run gates."""
    envelope = run.envelope()
    failures: list[Failure] = []
    lines: list[str] = []
    if block.trace is not None:
        trace = validate_trace(run.tool_calls, block.trace)
        envelope["trace"] = trace.to_dict()
        failures += [Failure("expected_trace", m.reason, number) for m in trace.mismatches]
        lines += _trace_lines(trace, run.tool_calls)
    if block.golden is not None:
        outcome = judge_golden(run.names, block.golden)
        envelope["golden"] = outcome.to_dict()
        if not outcome.score.passed:
            sc = outcome.score
            failure = Failure("golden", f"penalty {sc.penalty:.3g}: {plural(sc.extra_steps, 'extra step')}, "
                              f"{plural(sc.backtracks, 'backtrack')}, {plural(sc.repeated_tools, 'repeated tool')}",
                              number)
            failures.append(failure)
            lines += findings([failure])
    summary: tuple = ()
    if block.claims is not None:
        envelope["claims"], found, more, summary = claims_gate.judge(block.claims, run, number, total, block.name, ctx)
        failures += found
        lines += more
    return GateResult(envelope, tuple(failures), tuple(lines), summary=summary)


def _trace_lines(trace: TraceValidation, calls) -> list[str]:
    """Expected and recorded calls side by side, with each mismatch's reason and pointers."""
    if trace.passed:
        return []
    total = len(trace.mismatches) + trace.unlisted
    lines = ["", f"{INDENT}expected_trace ({trace.mode}): {plural(total, 'mismatch', 'mismatches')}"]
    rows = []
    for m in trace.mismatches:
        expected = f"expected {m.expected_index + 1}" if m.expected_index is not None else "(no expected call)"
        if m.recorded_index is not None and m.recorded_index < len(calls):
            call = calls[m.recorded_index]
            recorded = f"recorded {m.recorded_index + 1} {call.name} {show(call.args or {}, 50)}"
        else:
            recorded = "(no recorded call)"
        rows.append((expected, recorded, m.reason))
        rows += [("", "", f"  {d.message}") for d in m.diffs]
    more = [f"{INDENT}... and {trace.unlisted} more, not listed"] if trace.unlisted else []
    return lines + table(rows) + more


# --------------------------------------------------------------------------- judging all runs


def judge_all(block: AgentBlock, source, ctx: Context, verdicts: tuple = ()) -> GateResult | None:
    """the gates over every run: selection F1 (micro-averaged), the pass^k floor,
    the orchestration diagnostics (pooled) and token efficiency (from the cassette's catalog);
    and ``stability:`` over the runs' own verdicts."""
    result = _gates_over_all_runs(block, source, verdicts)
    if block.matrix is None:
        return result
    selection = result.envelope.get("tool_selection", {}) if result is not None else {}
    pair = matrix.pair(block, source.items, verdicts, selection if "selection_rate" in selection else None)
    if result is None:
        return GateResult({"model_matrix": pair}, expect=(), summary=((matrix.MATRIX, pair),))
    return GateResult({**result.envelope, "model_matrix": pair}, result.failures, result.lines, result.expect,
                      result.summary + ((matrix.MATRIX, pair),), result.replaces_runs)


def _gates_over_all_runs(block: AgentBlock, source, verdicts: tuple) -> GateResult | None:
    if not block.has_aggregates:
        return None
    selection = _selection_gates(block, source)
    if block.stability is None:
        return selection
    steady = stability.judge(block.stability, source.items, verdicts)
    if selection is None:
        return steady
    return GateResult({**selection.envelope, **steady.envelope}, selection.failures, expect=selection.expect + steady.expect,
                      summary=selection.summary + steady.summary, replaces_runs=True)


def _selection_gates(block: AgentBlock, source) -> GateResult | None:
    """Selection F1, the floor, orchestration and token efficiency, when any is declared."""
    if not block.has_selection_gates:
        return None
    from ..engine.orchestration import orchestration
    from ..engine.selection import selection_f1, tool_selection_floor

    runs = list(source.items)
    envelope: dict = {}
    failures: list[Failure] = []
    summary: list[tuple[str, Any]] = []
    checks: list[tuple[Any, tuple[str, ...]]] = []  # (expectation, hints when it fails), in declaration order
    scores = {gate: selection_f1(runs, spec.classes) for gate, spec in
              (("equal_function_sets", block.equal_function_sets), ("token_efficiency", block.token_efficiency))
              if spec is not None}
    if block.equal_function_sets is not None or block.tool_selection is not None:
        selection: dict = {}
        if block.equal_function_sets is not None:
            score = scores["equal_function_sets"]
            selection.update(precision=score.precision, recall=score.recall, f1=score.f1,
                             true_positives=score.true_positives, false_positives=score.false_positives,
                             false_negatives=score.false_negatives, missed=list(score.missed),
                             unexpected=list(score.unexpected), per_run=[r.to_dict() for r in score.per_run])
            checks += [(e, tuple(score.miss_lines())) for e in block.equal_function_sets.expect]
        if block.tool_selection is not None:
            spec = block.tool_selection
            floor = tool_selection_floor(runs, spec.expected_tool, spec.min_selection_rate, spec.max_total_tokens)
            selection.update(expected_tool=spec.expected_tool, runs=len(floor.runs), selected=floor.selected,
                             selection_rate=floor.selection_rate, pass_k=floor.pass_k,
                             pass_hat_k={str(k): v for k, v in floor.pass_hat_k.items()})
            if floor.tokens_median is not None:
                selection.update(tokens_median=floor.tokens_median, tokens_max=floor.tokens_max)
            selection["floor"] = floor.to_dict()
            checks += [(e, ()) for e in spec.expect]
            if not floor.passed:
                message = "\n".join(floor_lines(floor, block.name))
                failures.append(Failure("tool_selection", message))
                summary.append((FLOORS, floor_summary(floor, block.name) + "\n" + message))
            else:
                summary.append((FLOORS, floor_summary(floor, block.name)))
        envelope["tool_selection"] = selection
    if block.orchestration is not None:
        envelope["orchestration"] = orchestration(runs, block.classes).to_dict()
        checks += [(e, ()) for e in block.orchestration]
    if block.token_efficiency is not None:
        failure = _token_efficiency(source.cassette, scores["token_efficiency"], envelope)
        if failure is not None:
            failures.append(failure)
        else:
            summary.append((TOKENS, envelope["token_efficiency"]))
        checks += [(e, tuple(scores["token_efficiency"].miss_lines())) for e in block.token_efficiency.expect]
    return GateResult(envelope, tuple(failures), expect=tuple(checks), summary=tuple(summary))


def _token_efficiency(cassette, score, envelope: dict) -> Optional[Failure]:
    """``token_efficiency.*`` into ``envelope``; a Failure when the surface cannot be counted."""
    from ..engine.tokens import TokenizerError, count_surface_tokens, merged_catalog_tools, runs_cost, token_efficiency

    tools = merged_catalog_tools(cassette.catalog or {})
    if not tools:
        return Failure("token_efficiency", "the cassette records no tool catalog (`catalog`), so the tool "
                       "surface cannot be counted; record one with the runs")
    try:
        surface = count_surface_tokens(tools)
    except TokenizerError as exc:
        return Failure("token_efficiency", str(exc))
    envelope["token_efficiency"] = token_efficiency(score.f1, score.true_positives, surface,
                                                    runs_cost(cassette.runs)).to_dict()
    return None


# --------------------------------------------------------------------------- the floor in words


def _show_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _show_rate(rate: float) -> str:
    """A fraction as the percent the failure text prints: 0.8 -> ``80%``, 0.333 -> ``33.3%``."""
    pct = round(rate * 100, 6)
    return f"{_show_number(pct)}%"


def floor_summary(floor, name: str) -> str:
    """``tool-selection floor [PASS] weather selection: selection 9/10 (90%), pass^k 90%,
    tokens 1520 median / 1840 max``."""
    verdict = "PASS" if floor.passed else "FAIL"
    n = len(floor.runs)
    if floor.tokens_median is None:
        tokens = "tokens not recorded"
    else:
        tokens = f"tokens {_show_number(floor.tokens_median)} median / {_show_number(floor.tokens_max)} max"
    return (f"tool-selection floor [{verdict}] {name}: selection {floor.selected}/{n} "
            f"({_show_rate(floor.selection_rate)}), pass^k {_show_rate(floor.pass_k)}, {tokens}")


def floor_run_lines(floor) -> list[str]:
    """One line per run that missed: ``run 7: did not select `get_weather`, called search``
    and ``run 4: 2400 tokens, over budget``; a run that missed twice says both."""
    lines = []
    for r in floor.runs:
        reasons = []
        if not r.selected:
            called = ", ".join(r.called) if r.called else "no tool"
            reasons.append(f"did not select `{floor.expected_tool}`, called {called}")
        if r.over_budget:
            reasons.append(f"{_show_number(r.tokens)} tokens, over budget")
        if r.unmetered:
            reasons.append("no token count recorded, budget unverifiable")
        if reasons:
            which = "" if r.task is None else f" (task {r.task}" + ("" if r.trial is None else f", trial {r.trial}") + ")"
            lines.append(f"run {r.index}{which}: " + "; ".join(reasons))
    return lines


def floor_lines(floor, name: str) -> list[str]:
    """The FLOOR lines for each condition that failed, then the runs that
    missed (indented); empty when the floor passed."""
    if floor.passed:
        return []
    n = len(floor.runs)
    lines = []
    if not floor.runs:
        lines.append(f"FLOOR {name}: no runs recorded")
    elif not floor.rate_ok:
        lines.append(
            f"FLOOR {name}: selection rate {_show_rate(floor.selection_rate)} is below the "
            f"{_show_rate(floor.min_selection_rate)} floor ({floor.selected} of {n} runs selected "
            f"`{floor.expected_tool}`)")
    over = [r for r in floor.runs if r.over_budget]
    if over:
        worst = max(r.tokens for r in over)
        lines.append(
            f"FLOOR {name}: {len(over)} of {n} runs exceeded the "
            f"{_show_number(floor.max_total_tokens)}-token budget (worst run {_show_number(worst)} tokens)")
    unmetered = [r for r in floor.runs if r.unmetered]
    if unmetered:
        lines.append(
            f"FLOOR {name}: {len(unmetered)} of {n} runs recorded no token count; the "
            f"{_show_number(floor.max_total_tokens)}-token budget cannot be checked")
    lines.extend("  " + line for line in floor_run_lines(floor))
    return lines


# --------------------------------------------------------------------------- terminal summary

FLOORS = "tool-selection floors"


def _floor_section(entries: list[tuple[str, Any]]) -> tuple[str, list[str]]:
    """Every agent item's tool-selection floor: the ``[PASS]``/``[FAIL]`` line, and
    the FLOOR lines of each floor that failed."""
    lines = []
    for nodeid, message in sorted(entries):
        lines.append(nodeid)
        lines += [f"    {line}" for line in message.splitlines()]
    return f"mcptest: {FLOORS}", lines


TOKENS = "token efficiency"


def _token_section(entries: list[tuple[str, Any]]) -> tuple[str, list[str]]:
    """Each ``token_efficiency:`` item's grade, F1 and what a correct selection cost."""
    lines = []
    for nodeid, te in sorted(entries, key=lambda e: e[0]):
        per = te.get("tokens_per_correct")
        cost = te.get("cost_per_correct")
        lines.append(f"grade {te.get('grade', '?')}  F1 {_show_number(te.get('f1', 0))}, "
                     f"{'no correct selection' if per is None else f'{per:.1f} surface tokens per correct selection'}"
                     f"{'' if cost is None else f', ${cost:.6f} per correct selection'}   {nodeid}")
    return f"mcptest: {TOKENS}", lines


SUMMARY_SECTIONS = {FLOORS: _floor_section, TOKENS: _token_section, **matrix.SUMMARY_SECTIONS}


# --------------------------------------------------------------------------- recording live


def _task(block: AgentBlock, runs: int):
    from ..live.runner import AgentTask, DistractorPlan
    from ..live.servers import server_specs

    plan = block.distractor_plan
    return AgentTask(model=block.model, prompt=block.prompt, servers=server_specs(block.server_entries, block.servers),
                     system_prompt=block.system_prompt, runs=runs, name=block.name,
                     rubric=claims_gate.statements(block.claims),
                     distractors=DistractorPlan(*plan) if plan and plan[0] else None)


def _meta(block: AgentBlock) -> dict:
    from ..record.drift import prompt_sha256

    return {"agent": block.name, "prompt_sha256": prompt_sha256(block.prompt, block.system_prompt)}


LIVE = LiveRecording(AGENT_NEEDS, agent_can_record, _task, agent_runner, _meta)

GATE = Gate(KIND, build, SECTIONS, judge_run=judge_run, judge_all=judge_all, live=LIVE,
            summary_sections=SUMMARY_SECTIONS)
