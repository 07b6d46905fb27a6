"""Conversations live: a synthetic user, the agent with its servers, a judge.

:func:`record_conversation` plays one MCProbe scenario ``runs`` times. The synthetic user
is a model given the scenario's persona, traits (patience, verbosity, expertise), known
and unknown facts; it opens with ``initial_query`` verbatim, and after each answer of the
agent writes the next message, or ``[DONE]`` when it is satisfied or gives up. The agent
answers every user message with the tool-use loop of :mod:`.runner` (its tools executed
on the real servers). The conversation ends when the user says ``[DONE]``, after
``max_turns`` user messages, or when the agent exhausts its steps on one message.

The judge (:mod:`.judge`) then decides every ``correctness_criteria``,
``failure_criteria`` and ``tool_call_criteria`` assertion from the transcript and the
tool calls, with a short reason each; its verdicts are the run's ``judgments``, keyed by
the exact criterion text, which is what the replayed conversation gate reads.

``config.synthetic_user`` and ``config.judge`` override ``model``, ``temperature`` and
``extra_instructions`` per scenario. The run's tokens and ``cost_micros`` are the
agent's; the user's and the judge's are in the run's ``meta``.
"""

from __future__ import annotations

from typing import Mapping, Optional

import attrs

from ..engine.conversation import ConversationSpec
from ..engine.trace import Run
from ..mcp.client import run_sync
from .basis import role, run_basis
from .judge import judge, statements
from .judge import prompt_sha256 as judge_prompt_sha256
from .provider import LiveError
from .journal import Journal
from .runner import (Ledger, ModelPool, Recording, Tally, agent_steps, finish, item_budget, live_run, notes_for,
                     resumed, side_meta)
from .servers import ServerSpec, ToolBoard, open_servers

DONE = "[DONE]"
RECORDER = "mcptest live conversation"


@attrs.frozen
class ConversationTask:
    """One conversation scenario to record."""

    name: str
    model: str                                   # the agent's provider:name
    synthetic_user: Mapping                      # the synthetic_user block
    evaluation: ConversationSpec
    servers: tuple[ServerSpec, ...] = ()
    config: Mapping = attrs.field(factory=dict)  # the config: {synthetic_user: {...}, judge: {...}}
    user_model: Optional[str] = None             # default: the agent's model
    judge_model: Optional[str] = None            # default: the agent's model
    system_prompt: Optional[str] = None          # the agent's
    agent_max_steps: int = 10                    # agent replies per user message
    runs: int = 1

    def dry_run(self) -> str:
        """What recording this scenario would spend, in one line (for ``--dry-run``)."""
        user = _override(self, "synthetic_user").get("model") or self.user_model or self.model
        judge = _override(self, "judge").get("model") or self.judge_model or self.model
        turns = self.synthetic_user.get("max_turns") or self.evaluation.max_turns
        return (f"{self.name!r}: agent {self.model}, synthetic user {user}, judge {judge}, {self.runs} run(s) "
                f"of up to {turns} user turns, servers: {', '.join(s.name for s in self.servers) or 'none'}")


def _override(task: ConversationTask, role: str) -> Mapping:
    entry = (task.config or {}).get(role)
    return entry if isinstance(entry, Mapping) else {}


def user_system_prompt(task: ConversationTask) -> str:
    """The synthetic user's instructions, from the scenario's persona, traits and facts."""
    user = task.synthetic_user
    behaviour = user.get("clarification_behavior") or {}
    traits = {"patience": "medium", "verbosity": "concise", "expertise": "novice", **(behaviour.get("traits") or {})}
    lines = [
        "You play a human user talking to an AI assistant, to test the assistant. Stay in character; never "
        "reveal that you are simulated and never act as the assistant.",
        f"Your persona: {str(user.get('persona', '')).strip()}",
        f"Your patience is {traits['patience']}, your verbosity {traits['verbosity']}, "
        f"your expertise {traits['expertise']}.",
    ]
    if behaviour.get("known_facts"):
        lines.append("Facts you know and give when asked: " + "; ".join(map(str, behaviour["known_facts"])))
    if behaviour.get("unknown_facts"):
        lines.append("Facts you do not know (say so if asked): " + "; ".join(map(str, behaviour["unknown_facts"])))
    lines.append(f"When your request has been handled, or you give up, answer with exactly {DONE}.")
    extra = _override(task, "synthetic_user").get("extra_instructions")
    if extra:
        lines.append(str(extra).strip())
    return "\n".join(lines)


def _user_view(turns: list) -> list:
    visible = [t for t in turns if t["role"] == "user" or (t["role"] == "assistant" and t.get("content")
                                                             and not t.get("tool_calls"))]
    lines = [f"{'YOU' if t['role'] == 'user' else 'ASSISTANT'}: {t['content']}" for t in visible]
    return [{"role": "user", "content": "The conversation so far:\n\n" + "\n".join(lines) +
             f"\n\nWrite your next message to the assistant, and nothing else; or answer exactly {DONE}."}]


# --------------------------------------------------------------------------- one run


def criteria(spec: ConversationSpec) -> list[dict]:
    """Every statement of the scenario to judge, with its kind (and tool)."""
    items = statements("correctness", spec.correctness) + statements("failure", spec.failure)
    items += [{"criterion": a, "kind": "tool_call", "tool": tool} for tool, assertions in spec.tool_call_criteria
              for a in assertions]
    return items


class _Roles:
    """The agent, the synthetic user and the judge of one recording (one Model per model)."""

    def __init__(self, task: ConversationTask, pool: ModelPool):
        self.agent = pool.get(task.model)
        self.user = pool.get(_override(task, "synthetic_user").get("model") or task.user_model or task.model)
        self.judge = pool.get(_override(task, "judge").get("model") or task.judge_model or task.model)


async def _conversation_run(task: ConversationTask, roles: _Roles, notes: list, catalogs: list, index: int) -> Run:
    user_cfg, judge_cfg = _override(task, "synthetic_user"), _override(task, "judge")
    max_turns = int(task.synthetic_user.get("max_turns") or task.evaluation.max_turns)
    user_system = user_system_prompt(task)
    turns: list = [{"role": "user", "content": str(task.synthetic_user.get("initial_query", ""))}]
    calls: list = []
    agent, user, judged = Tally(), Tally(), Tally()
    async with open_servers(task.servers) as hub:
        catalogs[index] = hub.catalog
        servers = dict(hub.info)
        board = ToolBoard(hub.catalog)
        user_turns = 1
        while True:
            last = await agent_steps(roles.agent, task.system_prompt, board, hub, turns, calls, agent,
                                     task.agent_max_steps)
            if last.calls:
                stopped = "agent_max_steps"
                break
            if user_turns >= max_turns:
                stopped = "max_turns"
                break
            said, cost = await roles.user.ask(user_system, _user_view(turns), [], user_cfg.get("temperature"))
            user.add(said, cost)
            text = said.text.strip()
            if not text or DONE in text:
                stopped = "user_done"
                break
            turns.append({"role": "user", "content": text})
            user_turns += 1
    notes.extend(f"run {index + 1}: {n}" for n in agent.notes)
    items = criteria(task.evaluation)
    judgments: list = []
    if items:
        judgments, missing = await judge(roles.judge, task.name, items, turns, judged, judge_cfg)
        notes.extend(f"run {index + 1}: {n}" for n in missing)
    user_hash = sha256_text(user_system)
    meta = {"model": agent.model or roles.agent.provider.ref.name, "stopped": stopped, "user_turns": user_turns,
            "model_calls": agent.calls, "synthetic_user": {**side_meta(user, roles.user), "prompt_sha256": user_hash}}
    basis = {"agent": role(roles.agent, agent.model),
             "synthetic_user": role(roles.user, user.model, user_hash, user_cfg.get("temperature"))}
    if items:
        hashed = judge_prompt_sha256(judge_cfg.get("extra_instructions"))
        meta["judge"] = {**side_meta(judged, roles.judge), "prompt_sha256": hashed}
        basis["judge"] = role(roles.judge, judged.model, hashed, judge_cfg.get("temperature"))
    meta["basis"] = run_basis([roles.agent, roles.user, roles.judge], basis, servers,
                              {"max_turns": max_turns, "agent_max_steps": task.agent_max_steps})
    return live_run(calls, turns, agent, meta, judgments)


def sha256_text(text: str) -> str:
    """SHA-256 (hex) of ``text`` as UTF-8: the synthetic user's instructions, as its basis pins them."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def record_conversation_async(task: ConversationTask, models: Optional[Mapping] = None,
                                    concurrency: int = 4, rate_dir: Optional[str] = None,
                                    journal: Optional[Journal] = None) -> Recording:
    """:func:`record_conversation` inside a running event loop."""
    if task.runs < 1 or task.agent_max_steps < 1:
        raise LiveError(f"runs and agent_max_steps must be at least 1, found {task.runs} and {task.agent_max_steps}")
    ledger = Ledger()
    pool = ModelPool(models, item_budget(task.model, models), ledger, rate_dir)
    roles = _Roles(task, pool)
    notes: list = []
    catalogs: list = [None] * task.runs
    try:
        runs = await resumed(journal, task.runs, concurrency, catalogs,
                             lambda i: _conversation_run(task, roles, notes, catalogs, i))
    finally:
        await pool.close()
    meta = {"conversation": task.name, "recorder": RECORDER, "model": task.model,
            "synthetic_user_model": str(roles.user.provider.ref), "judge_model": str(roles.judge.provider.ref)}
    return finish(runs, next((c for c in catalogs if c), {}), meta, notes_for(ledger, catalogs, pool.models) + sorted(notes),
                  ledger)


def record_conversation(task: ConversationTask, models: Optional[Mapping] = None, concurrency: int = 4,
                        rate_dir: Optional[str] = None, journal: Optional[Journal] = None) -> Recording:
    """Record ``task.runs`` live conversations; see the module docstring and
    :func:`.runner.record_agent` for the arguments. Raises :class:`LiveError` (one line;
    ``.completed`` holds finished runs) on failure."""
    return run_sync(record_conversation_async, task, models, concurrency, rate_dir, journal)
