"""The agent runner: a real model drives real MCP servers, and the result is cassette runs.

:func:`record_agent` is the whole job for one agent item. For each of its ``runs`` it
starts the item's servers, lists their tools, shows them to the model (with the
runtime distractors, when asked), and runs the tool-use loop: every tool call the model
asks for is executed on its server and the answer fed back, until the model answers
without calling a tool or ``max_turns`` model replies have been spent (the run is then
marked ``stopped: max_turns``). A call to an injected distractor, or to a name that was
never shown, is answered with a fixed "not available" error and never reaches a server.

With a ``rubric`` (a scenario's), the judge (:mod:`.judge`) then decides each
rubric statement from the run's transcript; its verdicts are the run's ``judgments``
and its spend is in ``meta.judge``.

Runs are independent trials (each starts its own server processes, so no state leaks
from one run into the next) and run concurrently, up to ``concurrency`` at once and
within the endpoint's requests and tokens per minute; they are returned in index order,
so the output has the same shape and order as a serial recording.

Each run is a :class:`~pytest_mcptest.engine.trace.Run`, written as a cassette v1 run::

    {"tool_calls": [{"name", "server", "args", "error", "result", "turn"}, ...],
     "conversation": {"turns": [...], "tokens": {"input", "output", "total"}},
     "cost_micros": 4200,
     "meta": {"model": "<id the API returned>", "stopped": "final_response" | "max_turns",
              "stop_reason": "<the provider's own>", "model_calls": 2,
              "distractors": ["<presented distractor names>"]}}

``turns`` is the transcript in Chat Completions shape (user, assistant with
``tool_calls``, ``tool`` results), whatever the provider; ``turn`` of a call is the
index of the model reply that asked for it. Tokens and cost are absent, never zero,
when the API did not report usage or the model has no known price.
"""

from __future__ import annotations

import json
from typing import Mapping, Optional, Sequence, Union

import attrs

from ..formats.cassette import Cassette, as_json, parse_cassette
from ..engine.infra import KEY as INFRA_KEY, infra_error
from ..engine.trace import Run, Tokens, ToolCall
from ..mcp.client import innermost, run_sync
from ..text import plural
from .judge import judge, statements
from .judge import prompt_sha256 as judge_prompt_sha256
from .campaign import BudgetSpent, worst_case
import pytest_mcptest.live.progress as progress
from .journal import Journal
from .campaign import active as active_campaign
from .limits import Budget, limiter_for
from .pricing import cost_micros, price_of
from .provider import InfraError, LiveError, Provider, Reply, key_redactor, parse_model, settings_for
from .providers import make_provider
from .servers import ServerHub, ServerSpec, ToolBoard, open_servers

RECORDER = "mcptest live runner"
NOT_AVAILABLE = "Tool `{name}` is not available."


@attrs.frozen
class DistractorPlan:
    """Runtime distractors, as an agent's ``distractors:`` block asks for them: ``count``
    tools from ``source`` (``catalog`` or ``near_duplicate`` of the names in ``of``),
    drawn exactly as the replayed ``distractors`` item draws them from the catalog."""

    count: int
    source: str = "catalog"
    of: tuple[str, ...] = ()


@attrs.frozen
class AgentTask:
    """One agent item to record."""

    model: str                                  # provider:name
    prompt: str
    servers: tuple[ServerSpec, ...] = ()
    system_prompt: Optional[str] = None
    max_turns: int = 10                         # model replies per run
    runs: int = 1
    distractors: Union[DistractorPlan, tuple, None] = None   # a plan, or tool dicts to inject
    name: Optional[str] = None                  # the item's name, for messages and meta
    rubric: tuple[str, ...] = ()                # statements the judge decides after each run
    judge: Mapping = attrs.field(factory=dict)  # the judge's model (default: the agent's), temperature,
    #                                             extra_instructions

    @property
    def judge_model(self) -> str:
        return self.judge.get("model") or self.model

    def dry_run(self) -> str:
        """What recording this item would spend, in one line (for ``--dry-run``)."""
        judged = f", then judge {self.judge_model} once per run" if self.rubric else ""
        return (f"{self.name or self.prompt[:40]!r}: {self.model}, {self.runs} run(s) of up to {self.max_turns} "
                f"model replies{judged}, servers: {', '.join(s.name for s in self.servers) or 'none'}")


@attrs.frozen
class Spend:
    """What one model cost a recording: its calls, the :class:`Tokens` they used (those the
    API reported; a call without usage adds none) and their price in micro-dollars (those
    with a known price). Spend, not usage: it is what the terminal summary bills."""

    calls: int = 0
    tokens: Tokens = Tokens.of(0, 0)
    cost_micros: int = 0


def spend_lines(spend: Mapping[str, Spend]) -> list[str]:
    """The terminal summary's lines for a ``Recording.spend`` (or several merged):
    ``gpt-4o-mini-2024-07-18: 10 calls, 2500 tokens (2000 in, 500 out), $0.0006``."""
    lines = []
    for model in sorted(spend):
        row = spend[model]
        cost = f"${row.cost_micros / 1e6:.4f}" if row.cost_micros else "cost unknown"
        lines.append(f"{model}: {plural(row.calls, 'call')}, {plural(row.tokens.total, 'token')} "
                     f"({row.tokens.input} in, {row.tokens.output} out), {cost}")
    return lines


class Ledger:
    """What each model id of a recording spent (:class:`Spend`): the terminal summary's figures."""

    def __init__(self):
        self.models: dict[str, Spend] = {}
        self.unpriced: list[str] = []   # models with usage but no known price
        self.unmetered: list[str] = []  # models that answered without usage

    def add(self, model: str, tokens: Optional[Tokens], cost: Optional[int]) -> None:
        row = self.models.get(model, Spend())
        row = attrs.evolve(row, calls=row.calls + 1)
        if tokens is None:
            if model not in self.unmetered:
                self.unmetered.append(model)
        else:
            row = attrs.evolve(row, tokens=row.tokens + tokens)
            if cost is not None:
                row = attrs.evolve(row, cost_micros=row.cost_micros + cost)
            elif model not in self.unpriced:
                self.unpriced.append(model)
        self.models[model] = row

    def spend(self) -> dict[str, Spend]:
        return dict(sorted(self.models.items()))


class Model:
    """A provider behind the item's rate limiter and budget, pricing every reply."""

    def __init__(self, provider: Provider, budget: Budget, ledger: Ledger, rate_dir: Optional[str] = None):
        self.provider = provider
        settings = provider.settings
        self.settings = settings
        endpoint = f"{provider.ref.provider} {provider.base_url}"
        self.campaign = active_campaign()
        if self.campaign is not None and (settings.requests_per_minute or settings.tokens_per_minute):
            self.limiter = self.campaign.limiter(endpoint, settings.requests_per_minute, settings.tokens_per_minute)
        else:
            self.limiter = limiter_for(endpoint, settings.requests_per_minute, settings.tokens_per_minute, rate_dir)
        self.budget = budget
        self.ledger = ledger

    async def ask(self, system: Optional[str], turns: list, tools: list,
                  temperature: Optional[float] = None) -> tuple[Reply, Optional[int]]:
        """One model reply and its cost in micro-dollars (``None`` when unknown)."""
        self.budget.check(str(self.provider.ref))
        hold = worst = None
        asked_price = self.settings.price or price_of(self.provider.ref.name)
        if self.campaign is not None:  # the campaign's budget: this request's worst case, reserved first
            worst = worst_case(system, turns, tools, self.settings.max_tokens)
            hold = self.campaign.reserve(str(self.provider.ref), worst, asked_price)
        try:
            await self.provider.pace()  # the provider said its window is nearly spent: wait for the reset
            await self.limiter.acquire()
            reply = await self.provider.complete(system, turns, tools, temperature)
        except BaseException:
            if self.campaign is not None:
                self.campaign.settle(hold, None, None, None)
            raise
        model = reply.model or self.provider.ref.name
        price = self.settings.price or price_of(model)
        cost = cost_micros(reply.tokens, price) if (price is not None and reply.tokens is not None) else None
        if self.campaign is not None:
            self.campaign.settle(hold, worst, reply.tokens, cost, price or asked_price)
        record = getattr(self.limiter, "record", None)
        if record is not None:
            await record(reply.tokens.total if reply.tokens else 0)
        else:
            self.limiter.spent(reply.tokens.total if reply.tokens else 0)
        self.budget.add(reply.tokens, cost)
        self.ledger.add(model, reply.tokens, cost)
        return reply, cost


class ModelPool:
    """The models of one recording, one :class:`Model` per ``provider:name`` (an agent that
    also judges shares its limiter), all under the item's budget and ledger."""

    def __init__(self, models: Optional[Mapping], budget: Budget, ledger: Ledger, rate_dir: Optional[str] = None):
        self._settings = dict(models=models, budget=budget, ledger=ledger, rate_dir=rate_dir)
        self._open: dict[str, Model] = {}

    def get(self, text: str) -> Model:
        if text not in self._open:
            self._open[text] = open_model(text, **self._settings)
        return self._open[text]

    @property
    def models(self) -> list[Model]:
        return list(self._open.values())

    async def close(self) -> None:
        for model in self._open.values():
            await model.provider.close()


class Tally:
    """What one run's model replies added up to; unknown parts make the sum unknown."""

    def __init__(self):
        self.tokens: Optional[Tokens] = Tokens.of(0, 0)
        self.cost: Optional[int] = 0
        self.calls = 0
        self.model: Optional[str] = None
        self.notes: list[str] = []  # replies cut to the bounds below, said once after the recording

    def add(self, reply: Reply, cost: Optional[int]) -> None:
        self.calls += 1
        self.model = reply.model or self.model
        self.tokens = None if (self.tokens is None or reply.tokens is None) else self.tokens + reply.tokens
        self.cost = None if (self.cost is None or cost is None) else self.cost + cost


# --------------------------------------------------------------------------- the tool-use loop

MAX_CALLS_PER_REPLY = 128  # tool calls of one model reply that are run; the rest are dropped, with a note
MAX_REPLY_CHARS = 1_000_000  # characters of one reply's text that are kept


def bounded(reply: Reply, step: int) -> tuple[Reply, Optional[str]]:
    """``reply`` within :data:`MAX_CALLS_PER_REPLY` calls and :data:`MAX_REPLY_CHARS` of text,
    and a note saying what was cut (None when nothing was): a model that answers with
    5,000 tool calls or 50 MB of text is not run or recorded whole."""
    cut = []
    if len(reply.calls) > MAX_CALLS_PER_REPLY:
        cut.append(f"{len(reply.calls)} tool calls, the first {MAX_CALLS_PER_REPLY} run and recorded")
        reply = attrs.evolve(reply, calls=tuple(reply.calls[:MAX_CALLS_PER_REPLY]))
    if isinstance(reply.text, str) and len(reply.text) > MAX_REPLY_CHARS:
        cut.append(f"{len(reply.text):,} characters of text, the first {MAX_REPLY_CHARS:,} kept")
        reply = attrs.evolve(reply, text=reply.text[:MAX_REPLY_CHARS])
    return reply, (f"model reply {step + 1} was cut: {'; '.join(cut)}" if cut else None)


def result_text(result: Mapping) -> str:
    """What the model is shown of a tool's answer: its text blocks, an image or audio block
    as a one-line description (its base64 data is not text a model can read), other blocks
    as JSON, or the structured content when there is no content."""
    parts = []
    for block in result.get("content") or ():
        if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, Mapping) and isinstance(block.get("data"), str):
            parts.append(f"[{block.get('type')} {block.get('mimeType', '')}, {len(block['data'])} base64 characters]")
        else:
            parts.append(json.dumps(block, ensure_ascii=False, sort_keys=True))
    if not parts and result.get("structuredContent") is not None:
        parts.append(json.dumps(result["structuredContent"], ensure_ascii=False, sort_keys=True))
    return "\n".join(parts)


def _unavailable(name: str) -> dict:
    return {"content": [{"type": "text", "text": NOT_AVAILABLE.format(name=name)}], "isError": True}


async def agent_steps(model: Model, system: Optional[str], board: ToolBoard, hub: ServerHub, turns: list,
                      calls: list, tally: Tally, max_steps: int, temperature: Optional[float] = None) -> Reply:
    """Let the model act on ``turns`` (which end with a user message) until it answers
    without a tool call or has replied ``max_steps`` times. Appends to ``turns`` and
    ``calls``; returns the last reply (its ``calls`` non-empty when the cap stopped it)."""
    reply = None
    for _ in range(max_steps):
        reply, cost = await model.ask(system, turns, board.tools, temperature)
        step = tally.calls
        tally.add(reply, cost)
        reply, note = bounded(reply, step)
        if note is not None:
            tally.notes.append(note)
        message: dict = {"role": "assistant", "content": reply.text}
        if reply.calls:
            message["tool_calls"] = [{"id": c.id, "type": "function",
                                      "function": {"name": c.name,
                                                   "arguments": json.dumps(c.args, ensure_ascii=False)}}
                                     for c in reply.calls]
        turns.append(message)
        if not reply.calls:
            return reply
        for use in reply.calls:
            target = board.target(use.name)
            if use.bad_args is not None:
                result = {"content": [{"type": "text", "text": "The arguments are not a JSON object: "
                                       f"{use.bad_args[:200]}"}], "isError": True}
                error = True
            elif target is None or target.distractor:
                result, error = _unavailable(use.name), True
            else:
                result, error = await hub.call(target.server, target.name, use.args)
            record: dict = {"name": target.name if target else use.name}
            if target is not None and target.server is not None:
                record["server"] = target.server
            record.update({"args": use.args, "error": error, "result": result, "turn": step})
            calls.append(ToolCall(**record))
            tool_message = {"role": "tool", "tool_call_id": use.id, "name": use.name, "content": result_text(result)}
            if error:
                tool_message["is_error"] = True
            turns.append(tool_message)
    return reply


def side_meta(tally: Tally, model: Model) -> dict:
    """A helper role's spend in one run (the synthetic user's, the judge's), for its ``meta``."""
    out: dict = {"model": tally.model or model.provider.ref.name, "model_calls": tally.calls}
    if tally.tokens is not None and tally.calls:
        out["tokens"] = tally.tokens.to_dict()
    if tally.cost is not None and tally.calls:
        out["cost_micros"] = tally.cost
    return out


def live_run(calls: list, turns: list, tally: Tally, meta: dict, judgments: Optional[list] = None) -> Run:
    """One live run: its calls, the transcript, the agent's tokens and cost when the API
    reported usage, the judge's verdicts."""
    metered = tally.calls and tally.tokens is not None
    return Run(tool_calls=tuple(calls), turns=tuple(turns), tokens=tally.tokens if metered else None,
               cost_micros=tally.cost if tally.calls else None, judgments=tuple(judgments or ()), meta=meta)


def _distractor_tools(plan, catalog: dict) -> list:
    if plan is None:
        return []
    if not isinstance(plan, DistractorPlan):
        return [dict(t) for t in plan]
    from ..engine.distractors import inject_distractors
    from ..engine.tokens import merged_catalog_tools

    try:
        injection = inject_distractors(merged_catalog_tools(catalog), plan.count, plan.source, plan.of)
    except ValueError as exc:
        raise LiveError(f"distractors: {exc}") from None
    wanted = set(injection.distractors)
    return [t for t in injection.tools if t["name"] in wanted]


async def _agent_run(task: AgentTask, pool: ModelPool, index: int, catalogs: list, notes: list) -> Run:
    from ..record.drift import prompt_sha256
    from .basis import role, run_basis

    model = pool.get(task.model)
    async with open_servers(task.servers) as hub:
        catalogs[index] = hub.catalog
        servers = dict(hub.info)
        board = ToolBoard(hub.catalog, _distractor_tools(task.distractors, hub.catalog))
        turns: list = [{"role": "user", "content": task.prompt}]
        calls: list = []
        tally = Tally()
        last = await agent_steps(model, task.system_prompt, board, hub, turns, calls, tally, task.max_turns)
    notes.extend(f"run {index + 1}: {n}" for n in tally.notes)
    meta: dict = {"model": tally.model or model.provider.ref.name,
                  "stopped": "max_turns" if last.calls else "final_response",
                  "stop_reason": last.stop_reason, "model_calls": tally.calls}
    if board.distractors:
        meta["distractors"] = list(board.distractors)
    roles = {"agent": role(model, tally.model, prompt_sha256(task.prompt, task.system_prompt))}
    judgments: Optional[list] = None
    if task.rubric:
        judged, referee = Tally(), pool.get(task.judge_model)
        judgments, missing = await judge(referee, task.name or task.prompt[:40], statements("rubric", task.rubric),
                                         turns, judged, task.judge)
        notes.extend(f"run {index + 1}: {n}" for n in missing)
        hashed = judge_prompt_sha256(task.judge.get("extra_instructions"))
        meta["judge"] = {**side_meta(judged, referee), "prompt_sha256": hashed}
        roles["judge"] = role(referee, judged.model, hashed, task.judge.get("temperature"))
    meta["basis"] = run_basis(pool.models, roles, servers, {"max_turns": task.max_turns})
    return live_run(calls, turns, tally, meta, judgments)


# --------------------------------------------------------------------------- many runs


@attrs.frozen
class Recording:
    """What a live recording produced: runs in index order, each server's ``tools/list``
    answer, cassette ``meta``, notes for the user (said once each) and the spend per
    model id (``{model: Spend}``)."""

    runs: tuple[Run, ...]
    catalog: dict
    meta: dict
    notes: tuple[str, ...] = ()
    spend: dict[str, Spend] = attrs.field(factory=dict)

    def cassette(self) -> Cassette:
        """The cassette to write (``recorded_at`` is left to the writer)."""
        return Cassette(runs=self.runs, meta=dict(self.meta), catalog=self.catalog)


def broken_run(exc: InfraError) -> Run:
    """A run its infrastructure ended (``engine/infra.py``): its cause and message, no calls."""
    return Run(meta={INFRA_KEY: {"cause": exc.cause, "message": str(exc)}})


async def run_indexed(runs: int, concurrency: int, one, kept: Optional[Mapping] = None) -> list:
    """``await one(i)`` for every index not in ``kept`` (runs finished before, ``{i: run}``),
    at most ``concurrency`` at once; results in index order. A failure stops the rest and
    raises :class:`LiveError` carrying the runs that completed; but once a run has finished,
    a run that an :class:`InfraError` ends is kept as an ``infra_error`` run (not the agent's
    doing) and the others go on."""
    import anyio

    results: list = [None] * runs
    done: dict = dict(kept or {})
    for i, run in done.items():
        results[i] = run
    failed: list = []
    gate = anyio.CapacityLimiter(max(1, concurrency))

    async def worker(i: int) -> None:
        async with gate:
            if failed:  # a waiting run does not start after another one failed
                return
            try:
                results[i] = await one(i)
            except BaseException as exc:
                leaf = innermost(exc)  # the servers' task group wraps what ended the run
                # Once a run has worked, a run its infrastructure ended is kept, not judged; before
                # that, the provider or the servers are down: the recording stops.
                if not isinstance(leaf, InfraError) or all(infra_error(r) is not None for r in done.values()):
                    failed.append(i)
                    raise
                results[i] = broken_run(leaf)
            done[i] = results[i]
            progress.tick()

    try:
        async with anyio.create_task_group() as group:
            for i in range(runs):
                if i not in done:
                    group.start_soon(worker, i)
    except BaseException as exc:  # noqa: BLE001 - one clear line; Ctrl-C passes through
        leaf = innermost(exc)
        if isinstance(leaf, (KeyboardInterrupt, SystemExit)):
            raise leaf from None
        cancelled = _cancellation_in(exc, anyio.get_cancelled_exc_class())
        if cancelled is None and _cancelled_from_outside():  # a task group drops it beside the runs' errors
            cancelled = anyio.get_cancelled_exc_class()()
        if cancelled is not None:
            # Ctrl-C: the event loop cancelled this task (a model request in flight is dropped
            # at once); passed on, the loop turns it into KeyboardInterrupt and pytest stops
            # as interrupted, rather than "1 failed" on a CancelledError. A task group keeps
            # the cancellations it made itself, so one that comes out came from outside, and it
            # wins over what the runs raised as they were torn down (a server's pipe closed
            # under them): as a LiveError, the item failed and the session went on recording.
            raise cancelled from None
        message = str(leaf) if isinstance(leaf, LiveError) else f"{type(leaf).__name__}: {leaf}"
        completed = len(done)
        error = BudgetSpent if isinstance(leaf, BudgetSpent) else LiveError  # a budget stop stays one
        raise error(f"{message} ({completed} of {runs} run(s) completed)", {i: done[i] for i in sorted(done)}) \
            from (None if isinstance(leaf, LiveError) else leaf)
    return results


def _cancellation_in(exc: BaseException, cancelled: type) -> Optional[BaseException]:
    """The first ``cancelled`` exception in ``exc`` or, at any depth, in its groups; None if none."""
    if isinstance(exc, cancelled):
        return exc
    for inner in getattr(exc, "exceptions", None) or ():
        found = _cancellation_in(inner, cancelled)
        if found is not None:
            return found
    return None


def _cancelled_from_outside() -> bool:
    """Whether the running asyncio task is being cancelled (Ctrl-C cancels the loop's main task)."""
    import asyncio

    try:
        task = asyncio.current_task()
    except RuntimeError:  # not asyncio's loop
        return False
    cancelling = getattr(task, "cancelling", None)  # Python 3.11+
    return bool(cancelling is not None and cancelling())


async def resumed(journal: Optional[Journal], runs: int, concurrency: int, catalogs: list, one) -> list:
    """``run_indexed`` over the runs the journal lacks: each run, once finished, is put in the
    journal (with ``catalogs[i]``, the servers' catalog that run saw); the journaled ones are
    taken from it. Results in index order."""
    if journal is None:
        return await run_indexed(runs, concurrency, one)
    kept = {i: entry for i, entry in journal.load().items() if 0 <= i < runs}
    progress.tick(len(kept))  # done before the process that recorded them stopped
    for i, (_, catalog) in kept.items():
        catalogs[i] = catalog

    async def kept_or_run(i: int) -> Run:
        run = await one(i)
        journal.append(i, run, catalogs[i])
        return run

    return await run_indexed(runs, concurrency, kept_or_run, {i: run for i, (run, _) in kept.items()})


def open_model(model_text: str, models: Optional[Mapping], budget: Budget, ledger: Ledger,
               rate_dir: Optional[str] = None) -> Model:
    ref = parse_model(model_text)
    try:
        settings = settings_for(models, ref)
    except ValueError as exc:
        raise LiveError(str(exc)) from None
    return Model(make_provider(ref, settings), budget, ledger, rate_dir)


def item_budget(model_text: str, models: Optional[Mapping]) -> Budget:
    try:
        settings = settings_for(models, parse_model(model_text))
    except ValueError as exc:
        raise LiveError(str(exc)) from None
    cost = settings.item_max_cost_usd
    return Budget(settings.item_max_tokens, None if cost is None else int(round(cost * 1_000_000)))


def notes_for(ledger: Ledger, catalogs: Sequence, models: Sequence[Model]) -> list[str]:
    notes = [f"no price is known for model {m!r}: cost_micros is not recorded (set price: in the "
             f"suite's models: block)" for m in ledger.unpriced]
    notes += [f"model {m!r} answered without token usage: tokens and cost_micros are not recorded for "
              f"those runs" for m in ledger.unmetered]
    notes += [f"{m.provider.ref}: the installed SDK takes no {setting}; it was not sent"
              for m in models for setting in sorted(m.provider.ignored)]
    first = catalogs[0] if catalogs else None
    for number, other in enumerate(catalogs[1:], start=2):
        if other is not None and first is not None and other != first:
            notes.append(f"run {number} saw a different tools/list than run 1; the cassette keeps run 1's catalog")
            break
    return notes


def finish(runs: list, catalog: dict, meta: dict, notes: list, ledger: Ledger) -> Recording:
    """The recording, every API key it holds replaced: in the JSON the writer makes of it,
    read back by the cassette reader."""
    redactor = key_redactor()
    written = redactor.value(as_json(Cassette(runs=tuple(runs), meta=meta, catalog=catalog)))
    cassette = parse_cassette("the live recording", json.dumps(written, ensure_ascii=False))
    return Recording(runs=cassette.runs, catalog=cassette.catalog, meta=cassette.meta,
                     notes=tuple(map(redactor.text, notes)), spend=ledger.spend())


async def record_agent_async(task: AgentTask, models: Optional[Mapping] = None, concurrency: int = 4,
                             rate_dir: Optional[str] = None, journal: Optional[Journal] = None) -> Recording:
    """:func:`record_agent` inside a running event loop."""
    if task.runs < 1:
        raise LiveError(f"runs must be at least 1, found {task.runs}")
    if task.max_turns < 1:
        raise LiveError(f"max_turns must be at least 1, found {task.max_turns}")
    ledger = Ledger()
    pool = ModelPool(models, item_budget(task.model, models), ledger, rate_dir)
    catalogs: list = [None] * task.runs
    notes: list = []
    try:
        pool.get(task.model)
        if task.rubric:
            pool.get(task.judge_model)
        runs = await resumed(journal, task.runs, concurrency, catalogs,
                             lambda i: _agent_run(task, pool, i, catalogs, notes))
    finally:
        await pool.close()
    meta: dict = {"recorder": RECORDER, "model": task.model}
    if task.name is not None:
        meta = {"agent": task.name, **meta}
    meta["prompt"] = task.prompt
    if task.system_prompt is not None:
        meta["system_prompt"] = task.system_prompt
    if task.rubric:
        meta["judge_model"] = task.judge_model
    catalog = next((c for c in catalogs if c), {})  # a run that failed to start its servers saw none
    return finish(runs, catalog, meta, notes_for(ledger, catalogs, pool.models) + sorted(notes), ledger)


def record_agent(task: AgentTask, models: Optional[Mapping] = None, concurrency: int = 4,
                 rate_dir: Optional[str] = None, journal: Optional[Journal] = None) -> Recording:
    """Record ``task.runs`` live runs of one agent item; see the module docstring.

    ``models`` is the suite's ``models:`` block (``base_url``, limits, budget, price per
    provider or model); ``concurrency`` how many runs at once; ``rate_dir`` a folder all
    pytest-xdist workers share, to hold the per-minute limits across them; ``journal`` keeps
    each finished run on disk, so a recording started again runs only the missing ones
    (:mod:`.journal`). Raises
    :class:`LiveError` (one line; ``.completed`` holds the runs that finished) when the
    model, a server or the budget fails.
    """
    return run_sync(record_agent_async, task, models, concurrency, rate_dir, journal)
