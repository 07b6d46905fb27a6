"""Distractors: an agent's ``distractors:`` block as its own item,
``<agent> [distractors]``. Look-alike tools are injected beside the real ones the agent
saw (from the cassette's ``catalog``); each run is scored on whether it chose the
correct tools or a distractor, and accuracy comes with a certified lower bound.

Built from the agent's YAML by :mod:`.agent`; schema part: ``$defs/distractors``.
"""

from __future__ import annotations

from typing import Any, Optional

import msgspec

from .context import Context
from ..engine.paths import json_pointer
from ..engine.values import show, type_name
from ..suite.doc import Doc, defaults, expectations, marks
from ..suite.model import Block
from ..engine.verdict import Failure, GateResult
from .protocol import Gate

KIND = "distractors"
SECTIONS = ()  # never a list of its own: an agent's `distractors:` block

# the default gate of a `distractors:` block whose `expect:` is empty or omitted.
DEFAULT = {"distractors.accuracy": {">=": 50}}
SUFFIX = " [distractors]"


class DistractorsBlock(Block, frozen=True):
    """An agent's ``distractors:`` block: the agent's cassette scored over every run
    against injected look-alike tools."""

    agent: str = ""
    servers: tuple[str, ...] = ()  # the agent's declared servers (whose catalog tools are the real ones)
    count: int = 0
    source: str = "catalog"  # catalog | near_duplicate
    of: tuple[str, ...] = ()
    correct: tuple[str, ...] = ()
    complexity: Optional[str] = None


def build_for_agent(doc: Doc, parts, raw: dict, agent: Block) -> DistractorsBlock:
    """The ``distractors:`` block of ``agent``, replaying the agent's cassette. The schema part
    checks the block's shape; checked here what it cannot: the count against the source."""
    from ..engine.distractors import bundled_count, near_duplicates

    here = parts + ["distractors"]
    gate = raw["distractors"]
    count = gate.get("count", 0)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise doc.error(here + (["count"] if "count" in gate else []),
                        f"distractors.count: expected an integer >= 0, found {show(count)}")
    source = gate.get("source", {"from": "catalog"})
    if isinstance(source, str):  # `source: catalog` reads as `source: {from: catalog}`
        source = {"from": source}
    kind = source.get("from", "catalog")
    of = source.get("of")
    if kind == "catalog" and count > bundled_count():
        raise doc.error(here + ["count"], f"distractors.count: the bundled catalog has {bundled_count()} "
                        f"distractors; {count} were asked for")
    if kind == "near_duplicate":
        try:
            near_duplicates(of, count)
        except ValueError as exc:
            raise doc.error(here + ["count"], f"distractors.count: {exc}") from None
    correct = gate.get("correct", [])
    complexity = gate.get("complexity")
    marks_, tags = marks(doc, here, gate)
    line = doc.line(here) or agent.line
    expect = expectations(doc, here + ["expect"], gate.get("expect")) or defaults([DEFAULT], line)
    return DistractorsBlock(
        kind=KIND, name=agent.name + SUFFIX, file=doc.path, line=line, marks=marks_,
        tags=tuple(dict.fromkeys(agent.tags + tags)), cassette=agent.cassette or agent.cassette_slug,
        expect=expect, agent=agent.name, servers=agent.servers, count=count, source=kind,
        of=tuple(of or ()), correct=tuple(correct), complexity=complexity)


def _real_tools(block: DistractorsBlock, cassette) -> list:
    """The real tools the agent saw: the cassette's ``catalog`` tools of the agent's declared
    servers when the catalog has any of them, else every server's tools in it."""
    from ..engine.tokens import merged_catalog_tools

    catalog = cassette.catalog or {}
    mine = {s: catalog[s] for s in block.servers if s in catalog}
    for server in sorted(mine or catalog):
        entry = catalog[server]
        tools = entry.get("tools") if isinstance(entry, dict) else entry
        for i, tool in enumerate(tools if isinstance(tools, list) else ()):
            name = tool.get("name") if isinstance(tool, dict) else None
            if isinstance(tool, dict) and not isinstance(name, str):  # it is compared with names and hashed
                where = json_pointer(["catalog", server] + (["tools"] if isinstance(entry, dict) else []) + [i, "name"])
                raise ValueError(f"cassette {cassette.path} (at {where}): a tool's name must be a string, "
                                 f"found {type_name(name)}")
    return merged_catalog_tools(mine or catalog)


def judge_all(block: DistractorsBlock, source, ctx: Context, runs: tuple = ()) -> GateResult:
    """Inject ``count`` look-alikes into the real tool list, then score each run's choices
    against the correct and injected ids."""
    from ..engine.distractors import inject_distractors, score_distractors

    try:
        injection = inject_distractors(_real_tools(block, source.cassette), block.count, block.source, block.of)
    except ValueError as exc:
        return GateResult({}, (Failure("distractors", str(exc)),), expect=())
    score = score_distractors(list(source.items), block.correct, injection.distractors, complexity=block.complexity)
    data = score.to_dict()
    data["source"] = block.source
    if block.of:
        data["of"] = list(block.of)
    chosen = tuple(f"run {i}: chose distractor {', '.join(f'`{d}`' for d in r.distractor)}"
                   for i, r in enumerate(score.per_run, start=1) if r.distractor)
    summary: tuple = ()
    if "accuracy" in data:
        summary = ((LADDER, {"count": block.count, "accuracy": data["accuracy"],
                             "certified_lower": data.get("certified_lower"), "source": block.source,
                             "correct": sorted(block.correct)}),)
    return GateResult({"distractors": data}, expect=tuple((e, chosen) for e in block.expect), summary=summary)


# --------------------------------------------------------------------------- terminal summary

LADDER = "distractor accuracy by count"


def _ladder_section(entries: list[tuple[str, Any]]) -> Optional[tuple[str, list[str]]]:
    """Distractor accuracy against distractor count, one curve per (source, correct set);
    a single count is shown too, as the one point of its curve."""
    curves: dict = {}
    for nodeid, point in entries:
        curves.setdefault((point["source"], tuple(point["correct"])), []).append((point["count"], nodeid, point))
    curves = {key: sorted(points, key=lambda p: p[:2]) for key, points in curves.items()}
    if not curves:
        return None
    lines = []
    for (source, correct), points in sorted(curves.items()):
        lines.append(f"{source} distractors, correct {', '.join(correct)}:")
        for count, nodeid, point in points:
            lower = point["certified_lower"]
            certified = f", certified >= {lower}%" if lower is not None else ""
            lines.append(f"    count {count:>3}: accuracy {point['accuracy']:>3}%{certified}   {nodeid}")
    return f"mcptest: {LADDER}", lines


SUMMARY_SECTIONS = {LADDER: _ladder_section}


# Built by the agent gate from an agent's `distractors:` block: no section of its own.
GATE = Gate(KIND, None, SECTIONS, judge_all=judge_all, summary_sections=SUMMARY_SECTIONS)
