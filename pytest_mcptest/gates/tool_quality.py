"""Catalog quality (spec 001): a server's tool descriptions and schemas scored and linted
(DESC-001..013, SCH-001..004, the six-heuristic score), from a saved ``tools/list``
snapshot or a live server. With no ``expect:``, spec 001's default gates apply.

``mcptest doctor --lint-descriptions`` judges a catalog through this same gate.
Schema part: ``$defs/toolQuality`` (and ``$defs/server`` for the server it names).
"""

from __future__ import annotations

import os
from typing import Any

import attrs

from ..context import Context
from ..errors import InputError
from ..suite.doc import Doc, common, defaults, near, plain
from ..suite.model import Block
from ..text import INDENT, table
from ..verdict import GateResult
from .sources import SourceError, catalog_source, resolve_server, server_catalog

KIND = "tool_quality"
SECTIONS = ("tool_quality",)


@attrs.frozen
class ToolQualityBlock(Block):
    """A ``tool_quality:`` entry: a server's catalog scored and linted."""

    server: str = ""
    source: dict = attrs.field(factory=dict)  # {"catalog": path} or {"command": [...], ...}


def _with_defaults(fields: dict) -> dict:
    """Spec 001's defaults when ``expect:`` is omitted: min_score >= 0.50, mean_score >= 0.70, no critical."""
    if not fields["expect"]:
        from ..engine.quality import DEFAULT_GATES

        fields["expect"] = defaults(DEFAULT_GATES, fields["line"])
    return fields


def build(doc: Doc, parts, raw: dict) -> ToolQualityBlock:
    servers = doc.root.get("servers") or {}
    name = raw["server"]
    if name not in servers:
        raise doc.error(parts + ["server"], f"no server named {name!r} under servers: in this document"
                        f"{near(name, servers)}")
    spec = resolve_server(plain(servers[name]), os.path.dirname(os.path.abspath(doc.path)))
    return ToolQualityBlock(server=name, source=spec, **_with_defaults(common(doc, parts, raw, KIND)))


def for_server(name: str, server: dict, file: str) -> ToolQualityBlock:
    """The block ``mcptest doctor`` judges: one resolved server (a snapshot or a live
    command) with spec 001's default gates, exactly as a ``tool_quality:`` entry would be."""
    return ToolQualityBlock(server=name, source=server,
                            **_with_defaults(dict(kind=KIND, name=f"lint {name}", file=file, line=1, expect=())))


def open(block: ToolQualityBlock, ctx: Context):
    from ..engine.catalog import CatalogError, catalog_tools

    try:
        shown, catalog = server_catalog(block.server, block.source, ctx.root)
    except InputError as exc:
        raise SourceError("catalog", None, exc.render()) from None
    try:
        tools = catalog_tools(catalog)  # its shape, checked where the file's name is known
    except CatalogError as exc:
        raise SourceError("catalog", None, f"{shown}: {exc}") from None
    if not tools:  # nothing to score: bad input (exit 2 in `mcptest doctor`), as a catalog that is not one
        raise SourceError("catalog", None, f"{shown}: the catalog holds no tools; there is nothing to judge")
    return catalog_source(shown, catalog)


def judge_run(block: ToolQualityBlock, catalog, number: int, total: int, ctx: Context) -> GateResult:
    from ..engine.quality import score_catalog

    try:
        quality = score_catalog(catalog)
    except ValueError as exc:
        raise SourceError("catalog", None, str(exc)) from None
    envelope = quality.to_dict()
    scores = {key: envelope.get(key) for key in ("tool_count", "min_score", "mean_score", "critical_count",
                                                 "warning_count")}
    return GateResult(envelope, lines=tuple(_quality_lines(quality)), summary=((SCORES, scores),))


def _quality_lines(quality) -> list[str]:
    """The weakest tools and every critical finding, so a failed gate says which tool to fix."""
    worst = sorted(quality.tools, key=lambda t: (t.score, t.name))[:5]
    lines = ["", f"{INDENT}lowest scores: " + ", ".join(f"{t.name} {t.score:.2f}" for t in worst)]
    critical = [f for t in quality.tools for f in t.findings + t.schema_findings if f.severity == "Critical"]
    if critical:
        lines.append(f"{INDENT}critical findings: {len(critical)}")
        lines += table([(f.tool, f.rule, f.message) for f in critical[:12]])
    return lines


def summary_lines(envelope: dict) -> list[str]:
    """Every finding, tool by tool, then the totals: what ``mcptest doctor`` prints before
    the verdict, for an interactive read of which rule each tool tripped."""
    lines = []
    for tool in envelope.get("tools", ()):
        lines.append(f"{tool['name']}  score {tool['score']:.2f}")
        for f in tool["findings"] + tool["schema_findings"]:
            where = f" [{f['argument']}]" if f.get("argument") else ""
            hint = f"  -> {f['suggestion']}" if f.get("suggestion") else ""
            lines.append(f"  {f['rule']:8} {f['severity']:8} {f['message']}{where}{hint}")
    lines.append(f"{envelope['tool_count']} tools: min score {envelope.get('min_score')}, mean "
                 f"{envelope.get('mean_score')}, {envelope['critical_count']} critical, {envelope['warning_count']} "
                 f"warnings, {envelope['schema_criticals']} schema critical, {envelope['schema_warnings']} schema warnings")
    return lines


# --------------------------------------------------------------------------- terminal summary

SCORES = "catalog scores"


def _scores_section(entries: list[tuple[str, Any]]) -> tuple[str, list[str]]:
    """Each catalog's scores in one line: tools, min and mean score, critical findings."""
    lines = [f"{s['tool_count']} tools: min score {s['min_score']}, mean {s['mean_score']}, "
             f"{s['critical_count']} critical, {s['warning_count']} warnings   {nodeid}"
             for nodeid, s in sorted(entries, key=lambda e: e[0])]
    return f"mcptest: {SCORES}", lines


SUMMARY_SECTIONS = {SCORES: _scores_section}
