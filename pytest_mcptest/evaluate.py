"""One block, its cassette and its runs -> engine -> envelope -> expect -> verdict.

The pytest items and the CLI both call :func:`evaluate`, so their verdicts cannot
drift. Each gate registers one evaluator in :data:`EVALUATORS`; an evaluator turns
one run into an envelope and the gate's own failures, and this module applies the
block's ``expect:`` to every run's envelope.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional

import attrs

from .cassette import Cassette, load_cassette
from .engine.conversation import evaluate_conversation
from .engine.golden import GoldenOutcome, judge_golden
from .engine.trace import Run
from .engine.trace_match import TraceValidation, validate_trace
from .engine.world import replay_world
from .engine.values import show
from .errors import InputError
from .expect import ExpectResult, check
from .suite.model import AgentBlock, Block, ConversationBlock, DistractorsBlock, ScenarioBlock, ToolBenchBlock, ToolQualityBlock


@attrs.frozen
class Failure:
    """Why a block failed: the gate that said so, one line of text, the run (1-based) and
    the suite line of the ``expect:`` entry that failed, when there is one."""

    gate: str
    message: str
    run: Optional[int] = None
    line: Optional[int] = None

    def to_dict(self) -> dict:
        out: dict = {"gate": self.gate, "message": self.message}
        if self.run is not None:
            out["run"] = self.run
        if self.line is not None:
            out["line"] = self.line
        return out


@attrs.frozen
class RunVerdict:
    """One run's envelope, the gate's findings on it and each expect result."""

    index: int
    envelope: dict
    failures: tuple[Failure, ...]
    expect_results: tuple[ExpectResult, ...]
    detail: Any = attrs.field(default=None, eq=False)

    @property
    def passed(self) -> bool:
        return not self.failures


@attrs.frozen
class Verdict:
    """The outcome of a block: passed or failed, why, and the envelope for the report."""

    block: Block
    cassette: Optional[str]
    runs: tuple[RunVerdict, ...] = ()
    problems: tuple[Failure, ...] = ()
    source_kind: str = "cassette"  # what ``cassette`` names: a cassette, or a catalog
    aggregate: Optional["AggregateVerdict"] = None  # gates judged once over every run

    @property
    def failures(self) -> tuple[Failure, ...]:
        tail = self.aggregate.failures if self.aggregate is not None else ()
        return self.problems + tuple(f for r in self.runs for f in r.failures) + tail

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def deferred(self) -> tuple[str, ...]:
        """Criteria no recorded verdict decides, over all runs (labelled by run when several)."""
        out = []
        for run in self.runs:
            for criterion in run.envelope.get("deferred", ()):
                out.append(criterion if len(self.runs) == 1 else f"{self.block.name} #{run.index}: {criterion}")
        return tuple(out)

    @property
    def envelope(self) -> dict:
        """What ``expect:`` read: the run's envelope; with several runs ``{"runs": [...]}``,
        where ``runs[i]`` is exactly what ``expect:`` read for run ``i + 1``."""
        extra = self.aggregate.envelope if self.aggregate is not None else {}
        if len(self.runs) == 1:
            return {**self.runs[0].envelope, **extra} if extra else self.runs[0].envelope
        if not self.runs:
            return dict(extra)
        return {"runs": [r.envelope for r in self.runs], **extra}


@attrs.frozen
class AggregateVerdict:
    """The gates an agent test judges once over all of its runs (``tool_selection.*``,
    ``orchestration.*``, ``token_efficiency.*``): their envelope, failures and expect results."""

    envelope: dict
    failures: tuple[Failure, ...]
    expect_results: tuple[ExpectResult, ...] = ()
    detail: dict = attrs.field(factory=dict, eq=False)  # gate -> engine result
    runs: int = 0  # how many runs were judged together


@attrs.frozen
class Context:
    """The session's settings: where cassettes are, the record mode, how strict judgments are."""

    cassette_dir: Optional[str] = None
    record_mode: str = "none"
    root: Optional[str] = None  # paths in messages are shown relative to it (pytest's rootdir)
    require_judgments: bool = False  # a criterion with no recorded verdict fails instead of deferring


def cassette_path(block: Block, ctx: Context) -> str:
    """The cassette a block replays: ``cassette:`` or the slug of its name, under the cassette dir."""
    base = ctx.cassette_dir or os.path.dirname(os.path.abspath(block.file))
    name = block.cassette or block.cassette_slug
    return name if os.path.isabs(name) else os.path.normpath(os.path.join(base, name))


def _scenario_run(block: ScenarioBlock, run: Run, number: int, ctx: "Context") -> tuple[dict, list[Failure], Any]:
    result = replay_world(block.world, run)
    failures = []
    for gate, issues in (("invalid_action", result.invalid), ("forbidden_transition", result.forbidden)):
        for issue in issues:
            args = show(issue.args if issue.args is not None else {})
            failures.append(Failure(gate, f"call {issue.index} {issue.tool} {args}: {issue.reason}", number))
    for diff in result.state_diff:
        leaves = "; ".join(f"{path}: expected {show(e)}, got {show(a)}" for path, e, a in diff.leaves())
        failures.append(Failure("expect_state", leaves, number))
    return result.to_dict(), failures, result


@attrs.frozen
class AgentRunResult:
    """What the agent-test gates found in one run (for the failure text)."""

    trace: Optional[TraceValidation]
    golden: Optional[GoldenOutcome]


def _agent_run(block: AgentBlock, run: Run, number: int, ctx: "Context") -> tuple[dict, list[Failure], Any]:
    finals = run.final_responses
    conversation: dict = {"turns": list(run.turns)}
    envelope: dict = {
        "tool_calls": [c.to_dict() for c in run.tool_calls],
        "tool_names": run.tool_names,
        "actions": len(run.tool_calls),
        "turns": len(finals),
        "conversation": conversation,
    }
    if finals:
        envelope["final_response"] = finals[-1]
    if run.tokens is not None:
        conversation["tokens"] = dict(run.tokens)
    if run.cost_micros is not None:
        envelope["cost_micros"] = run.cost_micros
    failures = []
    trace = golden = None
    if block.trace is not None:
        trace = validate_trace(run.tool_calls, block.trace)
        envelope["trace"] = trace.to_dict()
        failures += [Failure("expected_trace", m.reason, number) for m in trace.mismatches]
    if block.golden is not None:
        golden = judge_golden(run.tool_names, block.golden)
        envelope["golden"] = golden.to_dict()
        if not golden.score.passed:
            sc = golden.score
            failures.append(Failure("golden", f"penalty {sc.penalty:.3g}: {sc.extra_steps} extra steps, "
                                    f"{sc.backtracks} backtracks, {sc.repeated_tools} repeated tools", number))
    if number == 1:
        failures += [Failure("unsupported", f"{gate}: not evaluated by this version of mcptest yet")
                     for gate in block.unsupported]
    return envelope, failures, AgentRunResult(trace, golden)


def _conversation_run(block: ConversationBlock, run: Run, number: int, ctx: "Context") -> tuple[dict, list[Failure], Any]:
    result = evaluate_conversation(block.spec, run, ctx.require_judgments)
    envelope = result.to_dict()
    envelope["config"] = block.config
    return envelope, [Failure(gate, message, number) for gate, message in result.problems], result


# kind -> function(block, run, run number, context) -> (envelope, gate failures, engine result)
EVALUATORS: dict[str, Callable] = {
    "scenario": _scenario_run,
    "agent": _agent_run,
    "conversation": _conversation_run,
}


def read_catalog(path: str, shown: str) -> Any:
    """A saved ``tools/list`` answer (``{"tools": [...]}`` or a bare list) from a JSON file."""
    import json

    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise InputError(shown, f"cannot read the catalog: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(shown, f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno, source=text) from None
    tools = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(tools, list):
        raise InputError(shown, "a catalog is a tools/list answer: {\"tools\": [...]} or a list of tools",
                         pointer="/tools" if isinstance(data, dict) else "")
    return data


def server_catalog(name: str, source: dict, root: Optional[str]) -> tuple[str, Any]:
    """(how to show it, its tools/list answer) for a resolved ``servers:`` entry: a saved
    snapshot, or a live server over stdio. A failure is an :class:`InputError`."""
    if "catalog" in source:
        shown = _display(source["catalog"], root)
        return shown, read_catalog(source["catalog"], shown)
    from .mcp.client import ServerError, list_tools

    try:
        return " ".join(source["command"]), list_tools(list(source["command"]), env=source.get("env"),
                                                       cwd=source.get("cwd"), timeout=source.get("timeout", 30.0))
    except ServerError as exc:
        raise InputError(f"server {name!r}", str(exc)) from None


def _tool_quality(block: ToolQualityBlock, ctx: "Context") -> tuple[str, dict, list[Failure], Any]:
    from .engine.quality import score_catalog

    shown, catalog = server_catalog(block.server, block.source, ctx.root)
    try:
        quality = score_catalog(catalog)
    except ValueError as exc:
        raise InputError(shown, str(exc)) from None
    return shown, quality.to_dict(), [], quality


def _tool_bench(block: ToolBenchBlock, ctx: "Context") -> tuple[str, dict, list[Failure], Any]:
    from .engine.toolbench import run_bench

    if block.catalog_path is not None:
        shown = _display(block.catalog_path, ctx.root)
        catalog = read_catalog(block.catalog_path, shown)
    else:
        shown, catalog = "inline catalog", block.catalog
    try:
        bench = run_bench(catalog, block.intents, block.mutations, block.min_drop)
    except ValueError as exc:
        raise InputError(shown, str(exc)) from None
    failures = []
    if bench.passed is False:
        failures.append(Failure("min_drop", f"the largest selection drop {bench.max_drop} is below min_drop "
                                f"{block.min_drop}: the descriptions do not carry the selection signal"))
    return shown, bench.to_dict(), failures, bench


# Blocks judged from a catalog, not a cassette: kind -> function(block, context) ->
# (what was read, envelope, gate failures, engine result)
CATALOG_EVALUATORS: dict[str, Callable] = {"tool_quality": _tool_quality, "tool_bench": _tool_bench}


def _evaluate_catalog(block: Block, ctx: "Context") -> "Verdict":
    try:
        shown, envelope, failures, detail = CATALOG_EVALUATORS[block.kind](block, ctx)
    except InputError as exc:
        return Verdict(block, None, problems=(Failure("catalog", exc.render()),), source_kind="catalog")
    results = tuple(check(exp, envelope) for exp in block.expect)
    failures += [Failure("expect", r.message, None, r.expectation.line) for r in results if not r.passed]
    return Verdict(block, shown, (RunVerdict(1, envelope, tuple(failures), results, detail),), source_kind="catalog")


def _display(path: str, root: Optional[str]) -> str:
    """``path`` relative to ``root`` (or the working directory) when it lies inside it."""
    rel = os.path.relpath(path, root or os.getcwd())
    return path if rel == ".." or rel.startswith(".." + os.sep) else rel.replace(os.sep, "/")


def evaluate(block: Block, ctx: Context = Context()) -> Verdict:
    """Evaluate ``block`` against its cassette (or catalog). Never raises for a user's bad data."""
    if block.kind in CATALOG_EVALUATORS:
        return _evaluate_catalog(block, ctx)
    evaluator = EVALUATORS.get(block.kind)
    if evaluator is None and block.kind not in AGGREGATE_EVALUATORS:
        return Verdict(block, None, problems=(Failure(
            "unsupported", f"{block.kind} blocks are not evaluated by this version of mcptest yet"),))
    path = cassette_path(block, ctx)
    shown = _display(path, ctx.root)
    try:
        cassette: Cassette = load_cassette(path, shown)
    except FileNotFoundError:
        mode = ("replay only, record mode 'none'" if ctx.record_mode == "none" else
                f"record mode {ctx.record_mode!r}, but {block.kind} blocks only replay: nothing here runs a live agent")
        how = ("save a recorded run of your agent there (cassette v1 JSON, see docs/formats.md), "
               "or point `cassette:` or --cassette-dir at an existing one")
        return Verdict(block, shown, problems=(Failure("cassette", f"cassette not found: {shown} ({mode}); {how}"),))
    except InputError as exc:
        return Verdict(block, shown, problems=(Failure("cassette", exc.render()),))
    except OSError as exc:
        return Verdict(block, shown, problems=(Failure("cassette", f"cannot read {shown}: {exc.strerror}"),))
    if not cassette.runs:
        return Verdict(block, shown, problems=(Failure("cassette", f"{shown} holds no runs"),))
    if evaluator is None:  # judged once over every run, with no per-run envelope
        return Verdict(block, shown, aggregate=AGGREGATE_EVALUATORS[block.kind](block, cassette))
    runs = []
    for number, run in enumerate(cassette.runs, start=1):
        envelope, failures, detail = evaluator(block, run, number, ctx)
        results = tuple(check(exp, envelope) for exp in block.expect)
        failures = list(failures)
        for res in results:
            if not res.passed:
                failures.append(Failure("expect", res.message, number, res.expectation.line))
        runs.append(RunVerdict(number, envelope, tuple(failures), results, detail))
    aggregate = None
    if isinstance(block, AgentBlock) and block.has_aggregates:
        aggregate = _agent_aggregate(block, cassette)
    return Verdict(block, shown, tuple(runs), aggregate=aggregate)


def _agent_aggregate(block: AgentBlock, cassette: Cassette) -> AggregateVerdict:
    """Spec 001's gates over every run: selection F1 (micro-averaged), the pass^k floor,
    the orchestration diagnostics (pooled) and token efficiency (from the cassette's catalog)."""
    from .engine.orchestration import orchestration
    from .engine.selection import selection_f1, tool_selection_floor

    runs = list(cassette.runs)
    envelope: dict = {}
    detail: dict = {}
    failures: list[Failure] = []
    checks: list[tuple[Any, str]] = []  # (expectation, gate) in declaration order
    scores = {gate: selection_f1(runs, spec.classes) for gate, spec in
              (("equal_function_sets", block.equal_function_sets), ("token_efficiency", block.token_efficiency))
              if spec is not None}
    detail.update(scores)
    if block.equal_function_sets is not None or block.tool_selection is not None:
        selection: dict = {}
        if block.equal_function_sets is not None:
            score = scores["equal_function_sets"]
            selection.update(precision=score.precision, recall=score.recall, f1=score.f1,
                             true_positives=score.true_positives, false_positives=score.false_positives,
                             false_negatives=score.false_negatives, missed=list(score.missed),
                             unexpected=list(score.unexpected), per_run=[r.to_dict() for r in score.per_run])
            checks += [(e, "equal_function_sets") for e in block.equal_function_sets.expect]
        if block.tool_selection is not None:
            spec = block.tool_selection
            floor = tool_selection_floor(runs, spec.expected_tool, spec.min_selection_rate,
                                         spec.max_total_tokens, name=block.name)
            detail["floor"] = floor
            selection.update(expected_tool=spec.expected_tool, runs=len(floor.runs), selected=floor.selected,
                             selection_rate=floor.selection_rate, pass_k=floor.pass_k,
                             pass_hat_k={str(k): v for k, v in floor.pass_hat_k.items()})
            if floor.tokens_median is not None:
                selection.update(tokens_median=floor.tokens_median, tokens_max=floor.tokens_max)
            selection["floor"] = floor.to_dict()
            if not floor.passed:
                failures.append(Failure("tool_selection", "\n".join(floor.floor_lines())))
        envelope["tool_selection"] = selection
    if block.orchestration is not None:
        result = orchestration(runs, block.classes)
        detail["orchestration"] = result
        envelope["orchestration"] = result.to_dict()
        checks += [(e, "orchestration") for e in block.orchestration.expect]
    if block.token_efficiency is not None:
        failure = _token_efficiency(cassette, scores["token_efficiency"], envelope)
        if failure is not None:
            failures.append(failure)
        checks += [(e, "token_efficiency") for e in block.token_efficiency.expect]
    results = []
    for exp, gate in checks:
        res = check(exp, envelope)
        results.append(res)
        if not res.passed:
            message = f"{exp.target}: {res.message}"
            misses = scores[gate].miss_lines() if gate in scores else []
            if misses:
                message += "; " + "; ".join(misses)
            failures.append(Failure("expect", message, None, exp.line))
    return AggregateVerdict(envelope, tuple(failures), tuple(results), detail, runs=len(runs))


def _distractor_tools(block: DistractorsBlock, cassette: Cassette) -> list:
    """The real tools the agent saw: the cassette's ``catalog`` tools of the agent's declared
    servers when the catalog has any of them, else every server's tools in it."""
    from .engine.tokens import merged_catalog_tools

    catalog = cassette.catalog or {}
    mine = {s: catalog[s] for s in block.servers if s in catalog}
    return merged_catalog_tools(mine or catalog)


def _distractors_aggregate(block: DistractorsBlock, cassette: Cassette) -> AggregateVerdict:
    """Spec 001's distractor accuracy over every run: inject ``count`` look-alikes into the
    real tool list, then score each run's choices against the correct and injected ids."""
    from .engine.distractors import inject_distractors, score_distractors

    runs = list(cassette.runs)
    try:
        injection = inject_distractors(_distractor_tools(block, cassette), block.count, block.source, block.of)
    except ValueError as exc:
        return AggregateVerdict({}, (Failure("distractors", str(exc)),), runs=len(runs))
    score = score_distractors(runs, block.correct, injection.distractors, complexity=block.complexity)
    data = score.to_dict()
    data["source"] = block.source
    if block.of:
        data["of"] = list(block.of)
    envelope = {"distractors": data}
    failures, results = [], []
    for exp in block.expect:
        res = check(exp, envelope)
        results.append(res)
        if not res.passed:
            message = f"{exp.target}: {res.message}"
            chosen = [f"run {i}: chose distractor {', '.join(f'`{d}`' for d in r.distractor)}"
                      for i, r in enumerate(score.per_run, start=1) if r.distractor]
            if chosen:
                message += "; " + "; ".join(chosen)
            failures.append(Failure("expect", message, None, exp.line))
    return AggregateVerdict(envelope, tuple(failures), tuple(results), {"distractors": score}, runs=len(runs))


# Blocks judged once over all of a cassette's runs, with no per-run check:
# kind -> function(block, cassette) -> AggregateVerdict
AGGREGATE_EVALUATORS: dict[str, Callable] = {"distractors": _distractors_aggregate}


def _token_efficiency(cassette: Cassette, score, envelope: dict) -> Optional[Failure]:
    """``token_efficiency.*`` into ``envelope``; a Failure when the surface cannot be counted."""
    from .engine.tokens import TokenizerError, count_surface_tokens, merged_catalog_tools, runs_cost, token_efficiency

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
