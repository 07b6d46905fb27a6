"""What a gate is: the one protocol every kind of item follows, built in or a plugin's.

A gate is a :class:`Gate` record: its ``kind``, the top-level ``sections`` of a suite whose
entries it builds into blocks, and the functions that judge a block. The optional parts
are fields that are None when a gate lacks them, so the evaluation loop reads each of them
once per item as a plain attribute (no lookup that may miss: a ``getattr`` that misses
costs 0.75 us, and every item would ask for two it lacks). A record of functions rather
than a base class to subclass: a gate is configuration, and building one states in one
place everything it does.

Recording live is the part three gates share (agents, scenarios, conversations): a
:class:`LiveRecording` says what a block needs to be recorded, how to make its live task and
how to run it; ``sources.open_cassette`` asks it when the record mode says to record.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

import msgspec

from .context import Context
from .server_entries import startable
from .sources import record_live


class LiveRecording(msgspec.Struct, frozen=True):
    """How a gate's blocks are recorded live, when a record mode asks (``--mcptest-record-mode``).

    ``needs`` says in words what ``can_record(block)`` looks for (shown when it is missing);
    ``task(block, runs)`` makes the live task, which can say what it would spend
    (``.dry_run()``, for ``--mcptest-dry-run``); ``run(task, models=, concurrency=, rate_dir=)``
    records it (``live/``); ``meta(block)`` is what the cassette's ``meta`` carries beside
    the recording's own; ``recorder`` names what records, in the record mode's notes."""

    needs: str
    can_record: Callable[[Any], bool]
    task: Callable[[Any, int], Any]
    run: Callable[..., Any]
    meta: Callable[[Any], dict]
    recorder: str = "the live agent runner"

    def dry_run(self, block: Any, runs: int) -> str:
        """What recording ``runs`` runs of ``block`` would spend, in one line, calling nothing."""
        return self.task(block, runs).dry_run()

    def record(self, block: Any, ctx: Context, path: str, runs: int, how: str) -> list[str]:
        """Record ``runs`` live runs of ``block`` into ``path`` (``how``: ``new``, ``append`` or
        ``replace``), as :func:`.sources.record_live` says; returns what to say once."""
        from ..live.journal import Journal, journal_path

        task = self.task(block, runs)
        journal = Journal(journal_path(path), (task, how))  # each finished run kept: a restart runs the rest
        settings = dict(models=block.models, concurrency=ctx.live_concurrency, rate_dir=ctx.rate_dir)
        if _takes(self.run, "journal"):  # a plugin's runner may not keep one
            settings["journal"] = journal
        return record_live(ctx, path, how, lambda: self.run(task, **settings), self.meta(block), journal.remove)


def _takes(fn: Callable, name: str) -> bool:
    """Whether ``fn`` accepts the keyword ``name`` (by name or through ``**kwargs``)."""
    import inspect

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == name or p.kind is p.VAR_KEYWORD for p in params)


class Gate(msgspec.Struct, frozen=True):
    """One kind of item: how its blocks are built from a suite and how each is judged.

    - ``kind``: the item kind (the ``kind`` of the JSON report, the ``mcptest(kind=...)`` mark).
    - ``sections``: the top-level keys of a suite that list its blocks (``scenarios``).
    - ``schema``: the JSON Schema of one entry of those lists. A plugin's gate must give one:
      the suite schema is closed, and a plugin's section is checked against it, with
      ``$ref: "#/$defs/..."`` reaching the suite schema's own parts (``blockName``, ``expect``,
      ``marks``, ...). Built-in gates have theirs in ``schema/v1.json``.
    - ``build(doc, parts, raw)``: the block (or a tuple of blocks) of one validated entry ``raw``
      at ``parts`` of the document ``doc`` (``suite.doc.Doc``: its ``error`` names a line).
    - ``open(block, ctx)``: what the block is judged on (a ``sources.Evidence``); None: the
      block's cassette, recorded first through ``live`` when it can be and the mode asks.
    - ``judge_run(block, item, number, total, ctx)``: a ``GateResult`` for each recorded run
      (or the one catalog); ``judge_all(block, source, ctx, run_verdicts)``: one over all of
      them, or None. Either may be None.
    - ``claims_document(root)``: whether a whole document is one block of this gate.
    - ``summary_sections``: terminal summary sections it fills, by name, with their renderers.
    """

    kind: str
    build: Optional[Callable[..., Any]]  # None: built by another gate (an agent builds its distractors)
    sections: tuple[str, ...] = ()  # one section may be given as a string
    schema: Optional[dict] = None
    open: Optional[Callable[[Any, Context], Any]] = None
    judge_run: Optional[Callable[..., Any]] = None
    judge_all: Optional[Callable[..., Any]] = None
    claims_document: Optional[Callable[[Any], bool]] = None
    live: Optional[LiveRecording] = None
    summary_sections: Mapping[str, Callable] = msgspec.field(default_factory=dict)

    def __post_init__(self):
        # One section may be given as a string; any sequence is kept as a tuple.
        if type(self.sections) is not tuple:
            sections = self.sections
            msgspec.structs.force_setattr(self, "sections",
                                          (sections,) if isinstance(sections, str) else tuple(sections))


# What an agent's live recording needs (agent tests and scenarios both drive one agent).
AGENT_NEEDS = "a `model:`, a `prompt:` and `servers:` it can start (a `command:`, not only a saved `catalog:`)"


def agent_can_record(block: Any) -> bool:
    """Whether a live agent run can make this block's cassette: a model, a prompt, and servers
    it can start (a server that is only a saved ``catalog:`` cannot run a tool)."""
    return bool(block.prompt and block.servers) and startable(block)


def agent_runner(task: Any, **kwargs: Any) -> Any:
    """Run a live agent task (``live/runner.py``), imported only when something records."""
    from ..live.runner import record_agent

    return record_agent(task, **kwargs)
