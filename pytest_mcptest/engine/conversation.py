"""Conversation scenarios, decided offline from a recorded run.

An MCProbe scenario is judged by a synthetic user and an LLM judge. Replayed in CI,
there is neither, so this module decides what the recording alone decides (tools
required, prohibited, outside the declared ones; call, token and turn budgets; a user
stuck repeating themselves) and replays the judge's recorded verdicts for the rest. A
criterion with no recorded verdict is *deferred*: it does not fail the run, it is
listed, and ``require_judgments`` turns it into a failure.

Verdicts are the test's outcome on a criterion: ``pass`` or ``fail``. For a failure
criterion ``fail`` means the described failure happened.
"""

from __future__ import annotations

import json
from typing import Optional

import msgspec

from .trace import Run, is_user_turn, message_text

CORRECTNESS, FAILURE, TOOL_CALL = "correctness", "failure", "tool_call"


class ConversationSpec(msgspec.Struct, frozen=True):
    """What a scenario's ``evaluation`` (and ``synthetic_user.max_turns``) asks of a run."""

    correctness: tuple[str, ...] = ()
    failure: tuple[str, ...] = ()
    tool_call_criteria: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (tool, assertions)
    required_tools: tuple[str, ...] = ()
    optional_tools: tuple[str, ...] = ()
    prohibited_tools: tuple[str, ...] = ()
    max_tool_calls: Optional[int] = None
    max_llm_tokens: Optional[int] = None
    max_conversation_turns: Optional[int] = None
    max_turns: int = 10


class Judgment(msgspec.Struct, frozen=True):
    """One criterion and what the recorded judge said of it (``deferred`` when nothing)."""

    criterion: str
    kind: str
    outcome: str  # passed | failed | deferred
    verdict: Optional[str] = None
    reason: Optional[str] = None
    model: Optional[str] = None
    tool: Optional[str] = None

    def to_dict(self) -> dict:
        out = {"criterion": self.criterion, "kind": self.kind, "outcome": self.outcome}
        for key in ("verdict", "reason", "model", "tool"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


class ConversationResult(msgspec.Struct, frozen=True):
    """Everything decided about one run; ``problems`` are the reasons it fails."""

    run: Run
    turns: int
    user_turns: int
    required_missing: tuple[str, ...]
    prohibited_called: tuple[tuple[int, str], ...]
    outside: tuple[str, ...]
    budgets: tuple[tuple[str, int, Optional[int]], ...]  # (name, limit, actual or None when unknown)
    loop: bool
    judgments: tuple[Judgment, ...]
    problems: tuple[tuple[str, str], ...]  # (gate, message)

    @property
    def deferred(self) -> tuple[str, ...]:
        undecided = [j.criterion for j in self.judgments if j.outcome == "deferred"]
        return tuple(undecided + [f"efficiency.{name} (the cassette records no token totals)"
                                  for name, _, actual in self.budgets if actual is None])

    def to_dict(self) -> dict:
        env = self.run.envelope()
        env.update({
            "turns": self.turns,
            "user_turns": self.user_turns,
            "tool_usage": {"required_missing": list(self.required_missing),
                           "prohibited_called": [{"index": i, "tool": t} for i, t in self.prohibited_called],
                           "outside": list(self.outside)},
            "efficiency": {name: {"limit": limit, "actual": actual} for name, limit, actual in self.budgets},
            "loop": self.loop,
            "judgments": [j.to_dict() for j in self.judgments],
            "deferred": list(self.deferred),
        })
        if self.run.tokens is not None:
            env["tokens"] = self.run.tokens.to_dict()
        return env


def _user_texts(run: Run) -> list[str]:
    """Each user turn's text, as the loop check compares them. A turn without text (an image,
    a number, an object) is its whole content as JSON: read as an empty string, three
    different images were "the same message" and judged a loop."""
    texts = []
    for message in run.turns:
        if is_user_turn(message):
            content = message.get("content")
            text = message_text(content).strip().casefold()
            if not text and not isinstance(content, str):
                text = json.dumps(content, sort_keys=True, ensure_ascii=False, default=repr)
            texts.append(text)
    return texts


def _judge(criterion: str, kind: str, recorded: dict, tool: Optional[str] = None) -> Judgment:
    entry = recorded.get(criterion)
    if entry is None:
        return Judgment(criterion, kind, "deferred", tool=tool)
    verdict = entry.get("verdict")
    # A failure criterion "fails" when the failure it describes happened: the run fails then too.
    outcome = "passed" if verdict == "pass" else "failed"
    return Judgment(criterion, kind, outcome, verdict, entry.get("reason"), entry.get("model"), tool)


def evaluate_conversation(spec: ConversationSpec, run: Run, require_judgments: bool = False) -> ConversationResult:
    """Decide a recorded run against a scenario's evaluation. Pure and deterministic."""
    names = run.names
    called = set(names)
    required_missing = tuple(t for t in spec.required_tools if t not in called)
    prohibited = set(spec.prohibited_tools)
    prohibited_called = tuple((i, n) for i, n in enumerate(names) if n in prohibited)
    declared = set(spec.required_tools) | set(spec.optional_tools) | prohibited
    outside = tuple(sorted(called - declared)) if declared else ()

    turns = len(run.final_responses)
    users = _user_texts(run)
    total = None if run.tokens is None else run.tokens.total
    budgets = []
    if spec.max_tool_calls is not None:
        budgets.append(("max_tool_calls", spec.max_tool_calls, len(names)))
    if spec.max_llm_tokens is not None:
        budgets.append(("max_llm_tokens", spec.max_llm_tokens, total))
    if spec.max_conversation_turns is not None:
        budgets.append(("max_conversation_turns", spec.max_conversation_turns, turns))
    budgets.append(("max_turns", spec.max_turns, turns))
    loop = len(users) >= 4 and len(set(users[-3:])) == 1

    recorded: dict[str, dict] = {}
    for entry in run.judgments:
        if isinstance(entry, dict) and isinstance(entry.get("criterion"), str):
            recorded.setdefault(entry["criterion"], entry)
    judgments = [_judge(c, CORRECTNESS, recorded) for c in spec.correctness]
    judgments += [_judge(c, FAILURE, recorded) for c in spec.failure]
    judgments += [_judge(a, TOOL_CALL, recorded, tool) for tool, assertions in spec.tool_call_criteria
                  for a in assertions]

    problems: list[tuple[str, str]] = []
    problems += [("required_tools", f"required tool {t!r} was never called") for t in required_missing]
    problems += [("prohibited_tools", f"call {i + 1} {t}: a prohibited tool was called") for i, t in prohibited_called]
    for name, limit, actual in budgets:
        if actual is not None and actual > limit:
            problems.append(("efficiency", f"{name}: {actual} is over the limit of {limit}"))
    if loop:
        problems.append(("loop", f"the user repeated the same message in the last 3 of {len(users)} turns: "
                                 f"{users[-1][:60]!r}"))
    for j in judgments:
        if j.outcome == "failed":
            what = "the failure happened" if j.kind == FAILURE else "not met"
            reason = f": {j.reason}" if j.reason else ""
            problems.append(("judgment", f"{what}: {j.criterion!r} (judge{' ' + j.model if j.model else ''}{reason})"))
        elif j.outcome == "deferred" and require_judgments:
            problems.append(("judgment", f"no recorded verdict for {j.criterion!r} (judgments are required)"))
    result = ConversationResult(run, turns, len(users), required_missing, prohibited_called, outside,
                                tuple(budgets), loop, tuple(judgments), ())
    if require_judgments:
        problems += [("efficiency", f"cannot decide {d}") for d in result.deferred if d.startswith("efficiency.")]
    return msgspec.structs.replace(result, problems=tuple(problems))
