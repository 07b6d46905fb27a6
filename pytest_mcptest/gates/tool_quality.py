"""Catalog quality: a server's tool descriptions and schemas scored and linted
(DESC-001..013, SCH-001..004, the six-heuristic score), from a saved ``tools/list``
snapshot or a live server. With no ``expect:``, the default gates apply.

The same catalog gets the security lint (SEC-001..015, ``engine/security_rules.py``):
its counts are ``security.*`` in the envelope, and a Critical finding fails the item
whatever ``expect:`` says, unless ``security: {fail_on: warning | never}`` changes that.
With ``lock: FILE`` (on the entry or on its server) the catalog is compared with that
lock (``engine/catalog_lock.py``): a pinned tool whose description or schema changed
fails the item; new and removed tools are only listed (``lock.*`` in the envelope).

``mcptest doctor`` judges a catalog through this same gate.
Schema part: ``$defs/toolQuality`` (and ``$defs/server`` for the server it names).
"""

from __future__ import annotations

import os
from typing import Any, Optional

import attrs

from .context import Context
from ..errors import InputError
from ..suite.doc import Doc, common, defaults, near, plain
from ..suite.model import Block
from ..text import INDENT, table
from ..engine.verdict import Failure, GateResult
from .protocol import Gate
from .server_entries import resolve_server, server_catalog
from .sources import RecordingUnavailable, catalog_source, display, read_catalog

KIND = "tool_quality"
SECTIONS = ("tool_quality",)


@attrs.frozen
class ToolQualityBlock(Block):
    """A ``tool_quality:`` entry: a server's catalog scored and linted."""

    server: str = ""
    source: dict = attrs.field(factory=dict)  # {"catalog": path} or {"command": [...], ...}
    lock: Optional[str] = None  # the lock file to compare the catalog with (absolute)
    fail_on: str = "critical"  # which security findings fail the item by themselves: critical, warning, never
    others: tuple = ()  # (server, saved catalog path) of the document's other servers: shadowing, name clashes


def _with_defaults(fields: dict) -> dict:
    """the defaults when ``expect:`` is omitted: min_score >= 0.50, mean_score >= 0.70, no critical."""
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
    folder = os.path.dirname(os.path.abspath(doc.path))
    spec = resolve_server(plain(servers[name]), folder)
    lock = raw.get("lock") or spec.get("lock")
    others = tuple((other, os.path.normpath(os.path.join(folder, entry["catalog"])))
                   for other, entry in sorted(servers.items())
                   if other != name and isinstance(entry, dict) and isinstance(entry.get("catalog"), str))
    return ToolQualityBlock(server=name, source=spec, lock=os.path.normpath(os.path.join(folder, lock)) if lock else None,
                            fail_on=(raw.get("security") or {}).get("fail_on", "critical"), others=others,
                            **_with_defaults(common(doc, parts, raw, KIND)))


def for_server(name: str, server: dict, file: str, security: bool = True, lint: bool = True,
               lock: Optional[str] = None) -> ToolQualityBlock:
    """The block ``mcptest doctor`` judges: one resolved server (a snapshot or a live
    command) with the default gates and the security gate, exactly as a
    ``tool_quality:`` entry would be. Without ``lint`` the default gates are left out
    (``--security``, ``--lock`` alone); without ``security`` no security finding fails it.
    ``lock`` is the lock to compare with (``--lock``), else the server's own ``lock:``."""
    fields = dict(kind=KIND, name=f"lint {name}", file=file, line=1, expect=())
    return ToolQualityBlock(server=name, source=server, lock=lock or server.get("lock"),
                            fail_on="critical" if security else "never",
                            **(_with_defaults(fields) if lint else fields))


def open(block: ToolQualityBlock, ctx: Context):
    from ..engine.catalog import CatalogError, catalog_tools

    try:
        shown, catalog = server_catalog(block.server, block.source, ctx.root, ctx.live_catalogs)
    except InputError as exc:
        raise RecordingUnavailable("catalog", None, exc.render()) from None
    try:
        tools = catalog_tools(catalog)  # its shape, checked where the file's name is known
    except CatalogError as exc:
        raise RecordingUnavailable("catalog", None, f"{shown}: {exc}") from None
    if not tools:  # nothing to score: bad input (exit 2 in `mcptest doctor`), as a catalog that is not one
        raise RecordingUnavailable("catalog", None, f"{shown}: the catalog holds no tools; there is nothing to judge")
    return catalog_source(shown, catalog)


def judge_run(block: ToolQualityBlock, catalog, number: int, total: int, ctx: Context) -> GateResult:
    from ..engine.quality import score_catalog
    from ..engine.security_rules import security_counts

    try:
        quality = score_catalog(catalog)
    except ValueError as exc:
        raise RecordingUnavailable("catalog", None, str(exc)) from None
    envelope = quality.to_dict()
    scores = {key: envelope.get(key) for key in ("tool_count", "min_score", "mean_score", "critical_count",
                                                 "warning_count")}
    findings = _security(block, catalog, ctx)
    envelope["security"] = {**security_counts(findings), "findings": [f.to_dict() for f in findings]}
    failures = []
    failing = [f for f in findings if f.severity == "Critical" or (block.fail_on == "warning" and f.severity == "Warning")]
    if failing and block.fail_on != "never":
        first = failing[0]
        failures.append(Failure("security", f"{len(failing)} security finding{'s' if len(failing) != 1 else ''} "
                                f"fail the item (security fail_on: {block.fail_on}); first: {first.rule} "
                                f"{first.tool} {first.pointer}: {first.message}"))
    lines = _quality_lines(quality) + _security_lines(findings)
    if block.lock:
        changes, shown = _lock_changes(block, catalog, ctx)
        envelope["lock"] = {"file": shown, **changes.to_dict()}
        if changes.changed:
            names = ", ".join(repr(c.name) for c in changes.changed)
            failures.append(Failure("lock", f"{len(changes.changed)} locked tool{'s' if len(changes.changed) != 1 else ''}"
                                    f" changed since {shown}: {names}"))
        lines += [""] + [f"{INDENT}{line}" for line in changes.lines()]
    return GateResult(envelope, failures=tuple(failures), lines=tuple(lines), summary=((SCORES, scores),))


def _security(block: ToolQualityBlock, catalog, ctx: Context) -> tuple:
    """The catalog's SEC findings; the document's other saved catalogs, when they can be
    read, make a description that names one of their tools shadowing, and a repeated name a
    clash (a live server is not started for that)."""
    from ..engine.security_rules import lint_servers_security

    catalogs = {}
    for other, path in block.others:
        try:
            catalogs[other] = read_catalog(path, display(path, ctx.root))
        except (InputError, OSError, ValueError):
            continue
    catalogs[block.server] = catalog
    if len(catalogs) == 1:
        from ..engine.security_rules import lint_catalog_security

        return lint_catalog_security(catalog, server=block.server)
    return lint_servers_security(catalogs)[block.server]


def _lock_changes(block: ToolQualityBlock, catalog, ctx: Context):
    from ..engine.catalog_lock import catalog_changes
    from ..formats.lockfile import read_lock

    shown = display(block.lock, ctx.root)
    try:
        return catalog_changes(read_lock(block.lock, shown), catalog), shown
    except InputError as exc:
        raise RecordingUnavailable("lock", None, exc.render()) from None


def _security_lines(findings) -> list[str]:
    """Every Critical security finding, with where it is, so a failed item says what to remove."""
    critical = [f for f in findings if f.severity == "Critical"]
    if not critical:
        return []
    lines = [f"{INDENT}critical security findings: {len(critical)}"]
    lines += table([(f.tool, f.rule, f.pointer, f.message[:160]) for f in critical[:12]])
    return lines


def _quality_lines(quality) -> list[str]:
    """The weakest tools and every critical finding, so a failed gate says which tool to fix:
    the description findings (``critical_count``) and the schema ones (``schema_criticals``)
    counted apart, as those two figures are."""
    worst = sorted(quality.tools, key=lambda t: (t.score, t.name))[:5]
    lines = ["", f"{INDENT}lowest scores: " + ", ".join(f"{t.name} {t.score:.2f}" for t in worst)]
    for title, found in (("critical findings", lambda t: t.findings), ("schema criticals", lambda t: t.schema_findings)):
        critical = [f for t in quality.tools for f in found(t) if f.severity == "Critical"]
        if critical:
            lines.append(f"{INDENT}{title}: {len(critical)}")
            lines += table([(f.tool, f.rule, f.message) for f in critical[:12]])
    return lines


def security_summary_lines(envelope: dict) -> list[str]:
    """Every security finding (rule, severity, tool, pointer, what, why), then the totals,
    and the lock's changes when a lock was read: ``mcptest doctor --security``."""
    security = envelope.get("security") or {}
    lines = []
    for f in security.get("findings", ()):
        lines.append(f"{f['rule']:8} {f['severity']:8} {f['tool']}  {f['pointer']}")
        lines.append(f"  {f['message']}")
        lines.append(f"  why: {f['why']}  -> {f['suggestion']}")
    lines.append(f"security: {security.get('critical_count', 0)} critical, {security.get('warning_count', 0)} "
                 f"warnings in {envelope.get('tool_count', 0)} tools")
    return lines + _lock_summary(envelope)


def _lock_summary(envelope: dict) -> list[str]:
    lock = envelope.get("lock")
    if lock is None:
        return []
    return [f"lock {lock['file']}: {lock['changed_count']} changed, {lock['added_count']} new, "
            f"{lock['removed_count']} removed"]


def summary_lines(envelope: dict) -> list[str]:
    """Every finding, tool by tool, then the totals: what ``mcptest doctor`` prints before
    the verdict, for an interactive read of which rule each tool tripped (the security
    findings after the description and schema ones)."""
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
    if "security" in envelope:
        lines += security_summary_lines(envelope)
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


GATE = Gate(KIND, build, SECTIONS, open=open, judge_run=judge_run, summary_sections=SUMMARY_SECTIONS)
