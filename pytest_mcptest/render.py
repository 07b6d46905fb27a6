"""Failure text: where (file:line), what differs (expected vs got, aligned), and why.

Plain strings only, so the text survives pytest-xdist unchanged and reads the same
under ``-v``, ``-q`` and ``-n``. No traceback and no repr of internal objects.
"""

from __future__ import annotations

import os

from .engine.values import show
from .engine.world import WorldResult
from .engine.trace_match import TraceValidation
from .evaluate import AgentRunResult, RunVerdict, Verdict

INDENT = "  "


def _table(rows: list[tuple[str, ...]], indent: str = INDENT * 2) -> list[str]:
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    out = []
    for row in rows:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + [row[-1]]
        out.append((indent + "   ".join(cells)).rstrip())
    return out


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


def _world_sections(result: WorldResult) -> list[str]:
    lines: list[str] = []
    if result.state_diff:
        lines += ["", f"{INDENT}final state: {len(result.state_diff)} of {result.state_checked} expected paths differ"]
        lines += _table([(path, f"expected {show(e)}", f"got {show(a)}")
                         for d in result.state_diff for path, e, a in d.leaves()])
    for title, issues in (("invalid actions", result.invalid), ("forbidden transitions", result.forbidden)):
        if issues:
            lines += ["", f"{INDENT}{title}: {len(issues)}"]
            lines += _table([(f"call {i.index}", i.tool, show(i.args if i.args is not None else {}, 60), i.reason)
                             for i in issues])
    return lines


def _trace_section(trace: TraceValidation, calls: list) -> list[str]:
    """Expected and recorded calls side by side, with each mismatch's reason and pointers."""
    if trace.passed:
        return []
    total = len(trace.mismatches) + trace.unlisted
    lines = ["", f"{INDENT}expected_trace ({trace.mode}): {_plural(total, 'mismatch', 'mismatches')}"]
    rows = []
    for m in trace.mismatches:
        expected = f"expected {m.expected_index}" if m.expected_index is not None else "(no expected call)"
        if m.recorded_index is not None and m.recorded_index < len(calls):
            call = calls[m.recorded_index]
            recorded = f"recorded {m.recorded_index} {call.get('name')} {show(call.get('args') or {}, 50)}"
        else:
            recorded = "(no recorded call)"
        rows.append((expected, recorded, m.reason))
        rows += [("", "", f"  {d.message}") for d in m.diffs]
    more = [f"{INDENT}... and {trace.unlisted} more, not listed"] if trace.unlisted else []
    return lines + _table(rows) + more


def _quality_section(quality) -> list[str]:
    """The weakest tools and every critical finding, so a failed gate says which tool to fix."""
    worst = sorted(quality.tools, key=lambda t: (t.score, t.name))[:5]
    lines = ["", f"{INDENT}lowest scores: " + ", ".join(f"{t.name} {t.score:.2f}" for t in worst)]
    critical = [f for t in quality.tools for f in t.findings + t.schema_findings if f.severity == "Critical"]
    if critical:
        lines.append(f"{INDENT}critical findings: {len(critical)}")
        lines += _table([(f.tool, f.rule, f.message) for f in critical[:12]])
    return lines


def _expect_section(run: RunVerdict, suite_file: str) -> list[str]:
    failed = [r for r in run.expect_results if not r.passed]
    if not failed:
        return []
    base = os.path.basename(suite_file)
    lines = ["", f"{INDENT}expect: {len(failed)} of {len(run.expect_results)} failed"]
    rows = []
    for r in failed:
        exp = r.expectation
        got = f"got {show(r.actual)}" if r.found else "resolves to nothing"
        where = f"({base}:{exp.line})" if exp.line else ""
        rows.append((exp.target, exp.describe(), got, where))
    lines += _table(rows)
    for r in failed:
        if not r.found or r.expectation.kind in ("schema", "contains-all"):
            lines.append(f"{INDENT * 3}{r.message}")
    return lines


def _counts(verdict: Verdict) -> str:
    """``1 forbidden_transition, 2 expect``: what failed, by gate, in first-seen order."""
    counts: dict[str, int] = {}
    for f in verdict.failures:
        counts[f.gate] = counts.get(f.gate, 0) + 1
    return ", ".join(f"{n} {gate}" for gate, n in counts.items())


def render_verdict(verdict: Verdict, file: str | None = None) -> str:
    """The whole failure report of one block; ``file`` is how to show its path."""
    block = verdict.block
    where = f"{file or block.file}:{block.line}"
    if verdict.problems:
        head = f"{where}: {block.kind} failed: {_counts(verdict)}"
        body = []
        for p in verdict.problems:
            body += [f"{INDENT}{line}" for line in p.message.splitlines()]
        return "\n".join([head, ""] + body)
    runs = verdict.runs
    calls = sum(len(r.envelope.get("tool_calls", ())) for r in runs)
    failing = [r for r in runs if not r.passed]
    if verdict.source_kind == "catalog":
        head = f"{where}: {block.kind} failed: {_counts(verdict)} (catalog {verdict.cassette})"
    elif not runs and verdict.aggregate is not None:  # judged only over all runs (distractors)
        head = (f"{where}: {block.kind} failed: {_counts(verdict)} (cassette {verdict.cassette}, "
                f"{_plural(verdict.aggregate.runs, 'run')})")
    else:
        head = (f"{where}: {block.kind} failed: {_counts(verdict)} (cassette {verdict.cassette}, "
                f"{_plural(len(runs), 'run')}, {_plural(calls, 'call')})")
    lines = [head]
    for run in failing:
        if len(runs) > 1:
            lines += ["", f"{INDENT}{block.name} #{run.index} (run {run.index} of {len(runs)}): "
                      f"{_plural(len(run.failures), 'failure')}"]
        if isinstance(run.detail, WorldResult):
            lines += _world_sections(run.detail)
        else:
            if isinstance(run.detail, AgentRunResult) and run.detail.trace is not None:
                lines += _trace_section(run.detail.trace, run.envelope.get("tool_calls", []))
            if type(run.detail).__name__ == "CatalogQuality":
                lines += _quality_section(run.detail)
            shown = ("expect", "expected_trace") if isinstance(run.detail, AgentRunResult) else ("expect",)
            gate_failures = [f for f in run.failures if f.gate not in shown]
            if gate_failures:
                lines.append("")
                lines += [f"{INDENT}{f.gate}: {f.message}" for f in gate_failures]
        lines += _expect_section(run, block.file)
    lines += _aggregate_section(verdict, block.file)
    if len(runs) > 1:
        tail = ("; the gates over all runs failed" if verdict.aggregate is not None and verdict.aggregate.failures
                else "")
        lines += ["", f"{INDENT}{len(runs) - len(failing)} of {len(runs)} runs passed on their own{tail}"]
    return "\n".join(lines)


def _aggregate_section(verdict: Verdict, suite_file: str) -> list[str]:
    """The gates judged over every run (spec 001): FLOOR lines, failed expects with their line."""
    agg = verdict.aggregate
    if agg is None or not agg.failures:
        return []
    base = os.path.basename(suite_file)
    n = len(verdict.runs) or agg.runs
    lines = ["", f"{INDENT}over all {_plural(n, 'run')}: {_plural(len(agg.failures), 'failure')}"]
    for f in agg.failures:
        first, *rest = f.message.splitlines() or [""]
        where = f" ({base}:{f.line})" if f.line else ""
        lines.append(f"{INDENT * 2}{f.gate}: {first}{where}")
        lines += [f"{INDENT * 3}{line}" for line in rest]
    return lines


def _flatten(value, prefix: str = "") -> dict:
    if isinstance(value, dict) and value:
        out = {}
        for k, v in value.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(value, list) and value:
        out = {}
        for i, v in enumerate(value):
            out.update(_flatten(v, f"{prefix}[{i}]"))
        return out
    return {prefix or "(root)": value}


def _as_envelope(obj):
    if isinstance(obj, dict):
        return obj
    if type(obj).__module__.startswith("pytest_mcptest.") and callable(getattr(obj, "to_dict", None)):
        return obj.to_dict()
    return None


def compare_results(op: str, left, right):
    """``assert a == b`` on engine results (or a result and an envelope): differing paths."""
    if op != "==":
        return None
    ours = [o for o in (left, right) if not isinstance(o, dict)]
    if not ours or any(_as_envelope(o) is None for o in ours):
        return None
    a, b = _flatten(_as_envelope(left)), _flatten(_as_envelope(right))
    if a == b:
        return None
    keys = sorted(set(a) | set(b))
    rows = [(k, f"left {show(a[k]) if k in a else 'absent'}", f"right {show(b[k]) if k in b else 'absent'}")
            for k in keys if k not in a or k not in b or a[k] != b[k]]
    head = f"{type(left).__name__} == {type(right).__name__}: {len(rows)} paths differ"
    return [head] + [line.strip() for line in _table(rows[:40], indent="")] + (
        [f"... and {len(rows) - 40} more"] if len(rows) > 40 else [])
