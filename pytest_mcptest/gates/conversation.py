"""Conversation scenarios in MCProbe's format: a synthetic user, an agent and
a judge. On replay, tool usage, budgets, turns and loops are decided from the cassette;
recorded judge verdicts are replayed by exact criterion text and the rest deferred.

MCProbe's format leaves the agent to the harness; here a scenario names it with ``model:`` (and
optionally ``system_prompt:``, ``servers:`` from the suite, ``runs:``), and a record
mode that asks for it plays the scenario live (``live/conversation.py``): the synthetic
user and the judge default to the agent's model, ``config`` overrides them.

A suite's ``conversations:`` list, or a whole document with ``synthetic_user`` and
``evaluation`` at the top. Schema part: ``$defs/conversation``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import msgspec

from .context import Context
from ..engine.conversation import ConversationSpec, evaluate_conversation
from ..suite.doc import Doc, common, plain
from ..suite.model import Block
from ..text import findings
from ..engine.verdict import Failure, GateResult
import pytest_mcptest.gates.stability as stability
from .protocol import Gate, LiveRecording
from .server_entries import named_servers, startable

if TYPE_CHECKING:  # imported when a conversation is built (see _calibration), not to read a suite
    import pytest_mcptest.gates.calibration as calibration_gate

KIND = "conversation"
SECTIONS = ("conversations",)


class ConversationBlock(Block, frozen=True):
    """An MCProbe-shaped conversation scenario, with the defaults applied."""

    description: str = ""
    spec: ConversationSpec = msgspec.field(default_factory=ConversationSpec)
    synthetic_user: dict = msgspec.field(default_factory=dict)
    config: dict = msgspec.field(default_factory=dict)
    stability: Optional[stability.StabilityGate] = None
    # The agent of a live recording (None: the scenario can only be replayed).
    model: Optional[str] = None
    system_prompt: Optional[str] = None
    servers: tuple[str, ...] = ()
    runs: Optional[int] = None  # how many recorded runs the item judges (and a recording makes)
    server_entries: dict = msgspec.field(default_factory=dict)
    models: dict = msgspec.field(default_factory=dict)
    calibration: Optional[calibration_gate.Calibration] = None  # the judge's calibration (gates/calibration.py)

    @property
    def judged(self) -> tuple[str, ...]:
        """Every criterion the judge decides: correctness, failure, tool-call assertions."""
        spec = self.spec
        return spec.correctness + spec.failure + tuple(a for _, found in spec.tool_call_criteria for a in found)


def claims_document(root: Any) -> bool:
    """A document whose top level has ``synthetic_user`` and ``evaluation`` is one scenario."""
    return isinstance(root, dict) and "synthetic_user" in root and "evaluation" in root


TRAIT_DEFAULTS = {"patience": "medium", "verbosity": "concise", "expertise": "novice"}


def build(doc: Doc, parts, raw: dict) -> ConversationBlock:
    """the scenario: strings trimmed, defaults applied (max_turns 10, medium/concise/novice)."""
    user = plain(raw["synthetic_user"])
    behaviour = user.setdefault("clarification_behavior", {})
    behaviour.setdefault("known_facts", [])
    behaviour.setdefault("unknown_facts", [])
    behaviour["traits"] = {**TRAIT_DEFAULTS, **behaviour.get("traits", {})}
    user.setdefault("max_turns", 10)
    for key in ("persona", "initial_query"):
        user[key] = user[key].strip()
    evaluation = raw["evaluation"]
    usage = evaluation.get("tool_usage") or {}
    efficiency = evaluation.get("efficiency") or {}
    spec = ConversationSpec(
        correctness=tuple(c.strip() for c in evaluation["correctness_criteria"]),
        failure=tuple(c.strip() for c in evaluation.get("failure_criteria") or ()),
        tool_call_criteria=tuple((c["tool"].strip(), tuple(c.get("assertions") or ()))
                                 for c in usage.get("tool_call_criteria") or ()),
        required_tools=tuple(usage.get("required_tools") or ()),
        optional_tools=tuple(usage.get("optional_tools") or ()),
        prohibited_tools=tuple(usage.get("prohibited_tools") or ()),
        max_tool_calls=efficiency.get("max_tool_calls"),
        max_llm_tokens=efficiency.get("max_llm_tokens"),
        max_conversation_turns=efficiency.get("max_conversation_turns"),
        max_turns=user["max_turns"],
    )
    servers = tuple(raw.get("servers") or ())
    return ConversationBlock(description=raw["description"].strip(), spec=spec, synthetic_user=user,
                             config=plain(raw.get("config") or {}), stability=stability.build(doc, parts, raw),
                             model=raw.get("model"), system_prompt=raw.get("system_prompt"), servers=servers,
                             runs=raw.get("runs"), server_entries=named_servers(doc, parts, servers),
                             models=plain(doc.root.get("models") or {}),
                             calibration=_calibration(doc, parts, raw),
                             **common(doc, parts, raw, KIND, name=raw["name"].strip()))


def _calibration(doc: Doc, parts, raw: dict) -> Optional[calibration_gate.Calibration]:
    """The judge's calibration (``config.judge``): its module imported here, so that reading
    a suite (which asks this gate whether a document is a conversation) does not load it."""
    import pytest_mcptest.gates.calibration as calibration_gate

    return calibration_gate.for_block(doc, parts + ["config", "judge"], (raw.get("config") or {}).get("judge"))


def judge_run(block: ConversationBlock, run, number: int, total: int, ctx: Context) -> GateResult:
    result = evaluate_conversation(block.spec, run, ctx.require_judgments)
    envelope = result.to_dict()
    envelope["config"] = block.config
    failures = tuple(Failure(gate, message, number) for gate, message in result.problems)
    summary: tuple = ()
    if result.deferred and not ctx.require_judgments:  # required, they already failed the item
        label = (lambda c: c) if total == 1 else (lambda c: f"{block.name} #{number}: {c}")
        summary = ((DEFERRED, [label(c) for c in result.deferred]),)
    return GateResult(envelope, failures, tuple(findings(failures)), summary=summary)


def judge_all(block: ConversationBlock, source, ctx: Context, verdicts: tuple = ()) -> Optional[GateResult]:
    """Only ``stability:``, over the runs' own verdicts, when the scenario was run repeatedly."""
    return None if block.stability is None else stability.judge(block.stability, source.items, verdicts)


# --------------------------------------------------------------------------- recording live


def can_record(block: ConversationBlock) -> bool:
    """Whether a live run can play this scenario: an agent ``model:`` and servers it can start."""
    return startable(block)


def _task(block: ConversationBlock, runs: int):
    from ..live.conversation import ConversationTask
    from ..live.servers import server_specs

    return ConversationTask(name=block.name, model=block.model, synthetic_user=block.synthetic_user,
                            evaluation=block.spec, servers=server_specs(block.server_entries, block.servers),
                            config=block.config, system_prompt=block.system_prompt, runs=runs)


def _play(task, **kwargs):
    """Play live conversations (``live/conversation.py``), imported only when something records."""
    from ..live.conversation import record_conversation

    return record_conversation(task, **kwargs)


LIVE = LiveRecording(
    needs="the agent's `model:` (and, for tools, `servers:` it can start (a `command:`, not only a saved `catalog:`))",
    can_record=can_record, task=_task, run=_play, meta=lambda block: {"conversation": block.name},
    recorder="the live conversation runner")


# --------------------------------------------------------------------------- terminal summary

DEFERRED = "deferred criteria"


def _deferred_section(entries: list[tuple[str, Any]]) -> Optional[tuple[str, list[str]]]:
    """List the criteria that still need a judge: they neither passed nor failed."""
    by_node: dict[str, list] = {}
    for nodeid, criteria in entries:
        by_node.setdefault(nodeid, []).extend(criteria)
    count = sum(len(v) for v in by_node.values())
    noun = "criterion" if count == 1 else "criteria"
    lines = []
    for nodeid in sorted(by_node):
        lines.append(nodeid)
        lines += [f"    {criterion}" for criterion in by_node[nodeid]]
    lines.append("record verdicts in the cassette's `judgments`, or run with "
                 "--mcptest-require-judgments to fail on them")
    return f"mcptest: {count} {noun} deferred (no recorded judge verdict)", lines


SUMMARY_SECTIONS = {DEFERRED: _deferred_section}


GATE = Gate(KIND, build, SECTIONS, judge_run=judge_run, judge_all=judge_all, claims_document=claims_document,
            live=LIVE, summary_sections=SUMMARY_SECTIONS)
