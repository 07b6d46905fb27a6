"""Catalog quality: a server's tool descriptions and schemas scored and linted
(DESC-001..013, SCH-001..004, the six-heuristic score), from a saved ``tools/list``
snapshot or a live server. With no ``expect:``, the default gates apply.

The same catalog gets the security lint (SEC-001..015, ``engine/security_rules.py``):
its counts are ``security.*`` in the envelope, and a Critical finding fails the item
whatever ``expect:`` says, unless ``security: {fail_on: warning | never}`` changes that.
With ``lock: FILE`` (on the entry or on its server) the catalog is compared with that
lock (``engine/catalog_lock.py``): a pinned tool whose description or schema changed
fails the item; new and removed tools are only listed (``lock.*`` in the envelope).

``security: {judge: true | FILE, require: both | either | rules, model: MODEL}`` adds the
second tier: a model's recorded verdict on each tool (``engine/security_verdicts.py``),
replayed from the verdicts file (``<catalog>.security-verdicts.json`` by default) and
compared with the rules (``security.judge.*``). ``require`` says which tiers must pass a
tool; a verdict the item needs and does not have fails it, naming why (never judged, its
description changed since); with ``require: rules`` a missing one is deferred
(``--mcptest-require-judgments`` fails it). With ``model:``, a record mode that records
asks that model for the missing verdicts first (``live/security_judge.py``).

``mcptest doctor`` judges a catalog through this same gate.
Schema part: ``$defs/toolQuality`` (and ``$defs/server`` for the server it names).
"""

from __future__ import annotations

import os
from typing import Any, Optional

import msgspec

from .context import Context
from ..errors import InputError
from ..suite.doc import Doc, common, defaults, near, plain
from ..suite.model import Block
from ..text import INDENT, table
from ..engine.verdict import Failure, GateResult
from .protocol import Gate
from .server_entries import resolve_server, server_catalog
from .sources import DryRun, Evidence, RecordingUnavailable, catalog_source, display, read_catalog

KIND = "tool_quality"
SECTIONS = ("tool_quality",)


class ToolQualityBlock(Block, frozen=True):
    """A ``tool_quality:`` entry: a server's catalog scored and linted."""

    server: str = ""
    source: dict = msgspec.field(default_factory=dict)  # {"catalog": path} or {"command": [...], ...}
    lock: Optional[str] = None  # the lock file to compare the catalog with (absolute)
    fail_on: str = "critical"  # which security findings fail the item by themselves: critical, warning, never
    others: tuple = ()  # (server, saved catalog path) of the document's other servers: shadowing, name clashes
    judge: Optional[str] = None  # the security verdicts file (absolute): the second tier, replayed
    require: str = "rules"  # which tiers must pass each tool: both, either, rules
    judge_model: Optional[str] = None  # the model a record mode asks for missing verdicts
    models: dict = msgspec.field(default_factory=dict)  # the suite's models: block (for that recording)


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
    security = raw.get("security") or {}
    judge = security.get("judge", False)
    if judge is False and ("require" in security or "model" in security):
        key = "require" if "require" in security else "model"
        raise doc.error(parts + ["security", key], f"security.{key} goes with security.judge (true, or a verdicts "
                        "file): without a judge there is only the rules' tier")
    verdicts = None
    if judge is True:
        verdicts = default_verdicts(name, spec, folder)
    elif isinstance(judge, str):
        verdicts = os.path.normpath(os.path.join(folder, judge))
    models = plain(doc.root.get("models") or {})
    return ToolQualityBlock(server=name, source=spec, lock=os.path.normpath(os.path.join(folder, lock)) if lock else None,
                            fail_on=security.get("fail_on", "critical"), others=others, judge=verdicts,
                            require=security.get("require", "both") if verdicts else "rules",
                            judge_model=security.get("model"), models=models,
                            **_with_defaults(common(doc, parts, raw, KIND)))


def default_verdicts(name: str, server: dict, folder: str) -> str:
    """Where a server's security verdicts are kept: beside its saved catalog
    (``<catalog>.security-verdicts.json``), or, for a live server, beside the suite
    (``<server>.security-verdicts.json``)."""
    from ..formats.security_verdicts import SUFFIX

    if isinstance(server.get("catalog"), str):
        return server["catalog"] + SUFFIX
    return os.path.join(folder, name + SUFFIX)


def for_server(name: str, server: dict, file: str, security: bool = True, lint: bool = True,
               lock: Optional[str] = None, judge: Optional[str] = None, require: str = "both") -> ToolQualityBlock:
    """The block ``mcptest doctor`` judges: one resolved server (a snapshot or a live
    command) with the default gates and the security gate, exactly as a
    ``tool_quality:`` entry would be. Without ``lint`` the default gates are left out
    (``--security``, ``--lock`` alone); without ``security`` no security finding fails it.
    ``lock`` is the lock to compare with (``--lock``), else the server's own ``lock:``;
    ``judge`` the security verdicts file to replay (``--judge``), with ``require``."""
    fields = dict(kind=KIND, name=f"lint {name}", file=file, line=1, expect=())
    return ToolQualityBlock(server=name, source=server, lock=lock or server.get("lock"),
                            fail_on="critical" if security else "never", judge=judge,
                            require=require if judge else "rules",
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
    source = catalog_source(shown, catalog)
    if block.judge and block.judge_model and ctx.record_mode != "none":
        said = _record_verdicts(block, catalog, ctx)
        source = Evidence(source.shown, source.items, source.head, said=tuple(said))
    return source


def _record_verdicts(block: ToolQualityBlock, catalog, ctx: Context) -> list[str]:
    """A record mode that records, and ``security.model``: ask it for the verdicts the
    verdicts file lacks (``once``, ``new_episodes``) or for every one anew (``all``,
    ``rewrite``), and write them; what to say once. ``--mcptest-dry-run`` says what it
    would ask instead."""
    from ..engine.security_verdicts import distinct, find, tool_subjects
    from ..formats.files import locked
    from ..live.provider import LiveError
    from ..formats.security_verdicts import read_verdicts, save_verdicts
    from ..live.security_judge import JudgeTask, judge_subjects, spend_lines

    shown = display(block.judge, ctx.root)
    subjects = tool_subjects(catalog, label=block.server)
    anew = ctx.record_mode in ("all", "rewrite")
    try:
        # Items that share a verdicts file (pytest -n 2) ask once: the second finds the verdicts written.
        with locked(block.judge):
            entries = read_verdicts(block.judge, shown)
            asked = distinct([s for s in subjects if anew or find(s, entries)[0] is None])
            if not asked:
                return []
            task = JudgeTask(block.judge_model, tuple(asked), shown, len(distinct(subjects)) - len(asked))
            if ctx.dry_run:
                raise DryRun(task.dry_run())
            recording = judge_subjects(task, block.models, concurrency=ctx.live_concurrency, rate_dir=ctx.rate_dir)
            save_verdicts(block.judge, shown, subjects, recording.entries)
    except LiveError as exc:
        raise RecordingUnavailable("security_judge", shown, f"recording security verdicts failed: {exc}") from None
    except InputError as exc:
        raise RecordingUnavailable("security_judge", shown, exc.render()) from None
    if recording.stopped:
        spent = "; ".join(spend_lines(recording))
        raise RecordingUnavailable("security_judge", shown, f"recording security verdicts stopped: {recording.stopped}"
                                   f" (the {len(recording.entries)} had are written to {shown}"
                                   + (f"; spent: {spent})" if spent else ")"))
    return ([f"recorded {len(recording.entries)} security verdict(s) of {block.judge_model} into {shown}"]
            + list(recording.notes) + spend_lines(recording))


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
    lines = _quality_lines(quality) + _security_lines(findings)
    summary: tuple = ((SCORES, scores),)
    if block.judge:
        from ..engine.security_verdicts import tool_subjects

        judged = judge_tier(tool_subjects(catalog, label=block.server), _verdicts(block, ctx), findings,
                            display(block.judge, ctx.root), block.fail_on, block.require, ctx.require_judgments,
                            _how_to_record(block, ctx))
        envelope["security"]["judge"] = judged.envelope
        failures += judged.failures
        lines += judged.lines
        summary += judged.summary
        if block.require == "either":  # the rules fail a tool only with the judge: judge_tier's failures say so
            failing = []
    if failing and block.fail_on != "never":
        first = failing[0]
        failures.insert(0, Failure("security", f"{len(failing)} security finding{'s' if len(failing) != 1 else ''} "
                                   f"fail the item (security fail_on: {block.fail_on}); first: {first.rule} "
                                   f"{first.tool} {first.pointer}: {first.message}"))
    if block.lock:
        changes, shown = _lock_changes(block, catalog, ctx)
        envelope["lock"] = {"file": shown, **changes.to_dict()}
        if changes.changed:
            names = ", ".join(repr(c.name) for c in changes.changed)
            failures.append(Failure("lock", f"{len(changes.changed)} locked tool{'s' if len(changes.changed) != 1 else ''}"
                                    f" changed since {shown}: {names}"))
        lines += [""] + [f"{INDENT}{line}" for line in changes.lines()]
    return GateResult(envelope, failures=tuple(failures), lines=tuple(lines), summary=summary)


# --------------------------------------------------------------------------- the judge's tier


def _verdicts(block: ToolQualityBlock, ctx: Context) -> list:
    from ..formats.security_verdicts import read_verdicts

    try:
        return read_verdicts(block.judge, display(block.judge, ctx.root))
    except InputError as exc:
        raise RecordingUnavailable("security_judge", display(block.judge, ctx.root), exc.render()) from None


def _how_to_record(block: ToolQualityBlock, ctx: Context) -> str:
    """The command that records the missing verdicts of this block's catalog."""
    import shlex

    if block.judge_model:
        return "run with --mcptest-record-mode=once (mcptest run --record) to ask " + block.judge_model
    where = (f"--catalog {shlex.quote(display(block.source['catalog'], ctx.root))}" if "catalog" in block.source
             else f"--server {shlex.quote(block.server)} --config {shlex.quote(display(block.file, ctx.root))}")
    verdicts = display(block.judge, ctx.root)
    default = block.judge == default_verdicts(block.server, block.source, os.path.dirname(os.path.abspath(block.file)))
    suite = block.file.endswith((".yml", ".yaml"))
    return (f"record with mcptest doctor --security --judge MODEL {where}"
            + ("" if default else f" --verdicts {shlex.quote(verdicts)}")
            + (" (or give the item security.model: MODEL and run mcptest run --record)" if suite else ""))


class JudgeTier(msgspec.Struct, frozen=True):
    """The second tier's part of an item: its envelope (``security.judge``), failures,
    failure text and terminal summary entries."""

    envelope: dict
    failures: tuple = ()
    lines: tuple = ()
    summary: tuple = ()


def judge_tier(subjects, entries, findings, shown: str, fail_on: str, require: str, required: bool,
               how: str) -> JudgeTier:
    """The recorded verdicts of ``subjects`` against the rules' ``findings``: the
    agreement, and what ``require`` fails (``engine/security_verdicts.decide``). A
    ``fail_on: never`` item fails on neither tier; missing verdicts with ``require: rules``
    are deferred unless ``required`` (``--mcptest-require-judgments``). ``how`` says how to
    record what is missing. ``mcptest doctor --cassette --judge`` reads a cassette with it too."""
    from ..engine.security_verdicts import PROMPT_SHA256, agreement, decide, rows

    level = "warning" if fail_on == "warning" else "critical"
    found = rows(subjects, entries, findings, level)
    agree = agreement(found)
    decision = decide(found, require)
    missing = [r for r in found if r.verdict is None]
    judged = len(found) - len(missing)
    status = "judged" if not missing else "deferred" if not judged else "partial"
    models = sorted({r.verdict["model"] for r in found if r.verdict is not None})
    envelope = {"verdicts": shown, "require": require, "level": level, "status": status,
                "prompt_sha256": PROMPT_SHA256, "models": models, "judged_count": judged,
                "missing_count": len(missing), "flagged_count": sum(1 for r in found if r.model_flag),
                "agreement": agree.to_dict(), "tools": [r.to_dict() for r in found]}
    failures, summary = [], []
    lines = ["", f"{INDENT}security judge ({shown}, require: {require}): {agree.line()}"]
    if fail_on != "never":
        for row, line in decision.failing:
            failures.append(Failure("security_judge", line))
        if decision.missing:
            first = decision.missing[0]
            failures.append(Failure("security_judge", f"no recorded security verdict for {len(decision.missing)} of "
                                    f"{len(found)} (require: {require}); first: {first.subject.shown}: {first.missing}; "
                                    f"{how}"))
    if missing and not decision.missing:
        if required:
            failures.append(Failure("security_judge", f"no recorded security verdict for {len(missing)} of "
                                    f"{len(found)} (judgments are required); first: {missing[0].subject.shown}: "
                                    f"{missing[0].missing}; {how}"))
        else:
            summary.append((DEFERRED, [f"{r.subject.shown}: {r.missing}" for r in missing] + [how]))
    if decision.failing and fail_on != "never":
        heading = "flagged by both tiers" if require == "either" else "flagged by the judge"
        lines.append(f"{INDENT}{heading}: {len(decision.failing)} (the judge's verdict; the rules' findings)")
        lines += table([(r.subject.name if r.subject.kind == "tool" else r.subject.pointer, _said(r),
                         ", ".join(r.rules) or "rules: nothing") for r, _ in decision.failing])
    if missing:
        fails = fail_on != "never" and (decision.missing or required)
        lines.append(f"{INDENT}without a verdict: {len(missing)}" + (" (they fail the item)" if fails else
                                                                       " (deferred)"))
        lines += table([(r.subject.name if r.subject.kind == "tool" else r.subject.pointer, r.missing)
                        for r in missing[:12]])
        if len(missing) > 12:
            lines.append(f"{INDENT * 2}... and {len(missing) - 12} more")
        lines.append(f"{INDENT * 2}{how}")
    if decision.overruled:
        lines.append(f"{INDENT}flagged by the rules, cleared by the judge (require: either): "
                     + ", ".join(r.subject.name for r in decision.overruled))
    return JudgeTier(envelope, tuple(failures), tuple(lines), tuple(summary))


def _said(row) -> str:
    from ..engine.security_verdicts import verdict_words

    return verdict_words(row)[:200]


def judge_summary_lines(envelope: dict) -> list[str]:
    """The judge's part of ``mcptest doctor --security --judge``: each tool as both tiers
    see it, then the agreement."""
    judge = (envelope.get("security") or {}).get("judge")
    if not judge:
        return []
    return judge_lines(judge)


def judge_lines(judge: dict) -> list[str]:
    """Each subject's row (rules, judge, agreement), then the agreement figures."""
    from ..engine.security_verdicts import LABELS, Agreement

    out = [f"security judge: verdicts {judge['verdicts']} (require: {judge['require']}, a flag is a "
           f"{'finding or a suspicious verdict' if judge['level'] == 'warning' else 'Critical finding or a poisoned verdict'})"]
    cells = {"both": "both flag", "only_rules": "only rules", "only_model": "only model", "neither": "neither"}
    rows = []
    for t in judge["tools"]:
        where = t["name"] if t["kind"] == "tool" else f"{t['name']} {t['pointer']}"
        rules = (", ".join(t["rules"]) + f" ({', '.join(LABELS[c] for c in t['rule_categories'])})"
                 if t["rules"] else "-")
        if "verdict" in t:
            cats = ", ".join(LABELS.get(c, c) for c in t["categories"])
            said = f"{t['verdict']}{f' ({cats})' if cats else ''}: {t['reason']}"
            if len(said) > 110:
                said = said[:107] + "..."
            rows.append((where, rules, said, cells[t["agreement"]]))
        else:
            rows.append((where, rules, f"no verdict: {t['missing']}", "-"))
    out += table([("tool", "rules", "judge", "")] + rows)
    a = judge["agreement"]
    out.append(Agreement(a["both"], a["only_rules"], a["only_model"], a["neither"], a["missing"]).line())
    return out


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
    the judge's verdicts beside the rules' when there are any, and the lock's changes when
    a lock was read: ``mcptest doctor --security``."""
    security = envelope.get("security") or {}
    lines = []
    for f in security.get("findings", ()):
        lines.append(f"{f['rule']:8} {f['severity']:8} {f['tool']}  {f['pointer']}")
        lines.append(f"  {f['message']}")
        lines.append(f"  why: {f['why']}  -> {f['suggestion']}")
    lines.append(f"security: {security.get('critical_count', 0)} critical, {security.get('warning_count', 0)} "
                 f"warnings in {envelope.get('tool_count', 0)} tools")
    return lines + judge_summary_lines(envelope) + _lock_summary(envelope)


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


DEFERRED = "deferred security verdicts"


def _deferred_section(entries: list[tuple[str, Any]]) -> tuple[str, list[str]]:
    """The tools whose security verdict is missing where the item does not require one."""
    lines = []
    count = 0
    for nodeid, payload in sorted(entries, key=lambda e: e[0]):
        *missing, how = payload
        count += len(missing)
        lines.append(nodeid)
        lines += [f"    {m}" for m in missing]
        lines.append(f"    {how}")
    lines.append("run with --mcptest-require-judgments to fail on them")
    return f"mcptest: {count} security verdict{'s' if count != 1 else ''} deferred (none recorded)", lines


SUMMARY_SECTIONS = {SCORES: _scores_section, DEFERRED: _deferred_section}


GATE = Gate(KIND, build, SECTIONS, open=open, judge_run=judge_run, summary_sections=SUMMARY_SECTIONS)
