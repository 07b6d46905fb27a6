"""One module per kind of item: everything about a gate in one file.

Each ``gates/<kind>.py`` declares ``KIND`` and the top-level ``SECTIONS`` of a suite
whose entries it builds, its block class, ``build(doc, parts, raw)``, and how a block is
judged: ``open(block, ctx)`` (default: the block's cassette), ``judge_run(block, item,
number, total, ctx)`` for each recorded run (or the one catalog) and ``judge_all(block,
source, ctx)`` over all of them, each returning a :class:`~pytest_mcptest.verdict.GateResult`.
A gate that prints a terminal summary section names it in ``SUMMARY_SECTIONS``. Adding a
kind is adding one module here, its part of ``schema/v1.json`` and its tests.
"""

from __future__ import annotations

from typing import Any, Callable

from . import agent, conversation, distractors, scenario, sources, stability, tool_bench, tool_quality, verify
from .sources import open_cassette

GATES = {m.KIND: m for m in (scenario, agent, distractors, conversation, tool_quality, tool_bench, verify)}
# Which top-level list of a suite holds which kind's blocks.
SECTIONS = {section: m for m in GATES.values() for section in m.SECTIONS}


def gate(kind: str):
    return GATES[kind]


def hook(module, name: str) -> Any:
    """A gate's optional function ``name`` (``open``, ``judge_run``, ``judge_all``), or None:
    read from the module's namespace, since a ``getattr`` that misses costs 0.75 us (it
    raises and catches an AttributeError), and every item asks for two it lacks."""
    return module.__dict__.get(name)


def open_source(module, block: Any, ctx: Any) -> Any:
    """A block's recording, as its gate ``module`` gets it: the gate's own ``open``, else the
    block's cassette (which the gate may record live, when it can and the record mode asks)."""
    own = hook(module, "open")
    return own(block, ctx) if own is not None else open_cassette(block, ctx, module)


def replays_only(kind: str, record_mode: str) -> bool:
    """Whether judging a block of ``kind`` runs the engine over files and nothing else: its
    recording is a cassette (a gate with an ``open`` of its own may start a server) and the
    record mode never records (``none``: no model, no server, no process)."""
    return record_mode == "none" and hook(GATES[kind], "open") is None


def document_gate(root: Any):
    """The gate that claims a whole document (the scenario file), if any."""
    for module in GATES.values():
        claims = getattr(module, "claims_document", None)
        if claims is not None and claims(root):
            return module
    return None


def summary_sections() -> list[tuple[str, Callable]]:
    """Every terminal summary section a gate can ask for, with its renderer, in the gates' order."""
    modules = (sources, *GATES.values(), stability)  # stability: declared by agents and conversations
    return [item for module in modules for item in getattr(module, "SUMMARY_SECTIONS", {}).items()]
