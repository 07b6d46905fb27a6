"""Failure text: where (file:line), what differs (expected vs got, aligned), and why; and
the one line a passing item gets under ``-v``.

Plain strings only, so the text survives pytest-xdist unchanged and reads the same
under ``-v``, ``-q`` and ``-n``. No traceback and no repr of internal objects.
"""

from __future__ import annotations

import os

from ..engine.paths import leaves
from ..engine.values import show
from ..text import INDENT, plural, printable, table
from ..engine.verdict import RunVerdict, Verdict


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
    lines += table(rows)
    for r in failed:  # why, where the row cannot say it: named by its target, without the value the row shows
        if not r.found or r.expectation.kind in ("schema", "contains-all"):
            lines.append(f"{INDENT * 3}{r.expectation.target}: {r.why}")
    return lines


def _counts(verdict: Verdict) -> str:
    """``1 forbidden_transition, 2 expect``: what failed, by gate, in first-seen order."""
    counts: dict[str, int] = {}
    for f in verdict.failures:
        counts[f.gate] = counts.get(f.gate, 0) + 1
    return ", ".join(f"{n} {gate}" for gate, n in counts.items())


def render_verdict(verdict: Verdict, file: str | None = None) -> str:
    """The whole failure report of one block; ``file`` is how to show its path. Control and
    bidi characters that a cassette or a server put in a name are shown escaped
    (:func:`~pytest_mcptest.text.printable`): this text reaches terminals and JUnit XML."""
    return printable(_verdict_text(verdict, file))


def _verdict_text(verdict: Verdict, file: str | None) -> str:
    block = verdict.block
    where = f"{file or block.file}:{block.line}"
    if verdict.problems:
        head = f"{where}: {block.kind} failed: {_counts(verdict)}"
        body = []
        for p in verdict.problems:
            body += [f"{INDENT}{line}" for line in p.message.splitlines()]
        return "\n".join([head, ""] + body)
    runs = verdict.runs
    lines = [f"{where}: {block.kind} failed: {_counts(verdict)} ({verdict.source})"]
    for note in verdict.notes:
        lines += [f"{INDENT}note: {line}" if i == 0 else f"{INDENT}      {line}" for i, line in enumerate(note.splitlines())]
    failing = [r for r in runs if not r.passed]
    if verdict.aggregate is not None and verdict.aggregate.replaces_runs:
        lines += _runs_in_brief(verdict, failing)  # the gates over all runs decide: one line a run
        failing_shown = []
    else:
        failing_shown = failing
    for run in failing_shown:
        if len(runs) > 1:
            lines += ["", f"{INDENT}{block.name} #{run.index} ({_which(run, len(runs))}): "
                      f"{plural(len(run.failures), 'failure')}"]
        lines += run.lines
        lines += _expect_section(run, block.file)
    lines += _aggregate_section(verdict, block.file)
    if len(runs) > 1:
        tail = ("; the gates over all runs failed" if verdict.aggregate is not None and verdict.aggregate.failures
                else "")
        lines += ["", f"{INDENT}{len(runs) - len(failing)} of {len(runs)} runs passed on their own{tail}"]
    return "\n".join(lines)


def _which(run: RunVerdict, total: int) -> str:
    """``task 3, trial 2`` when the run says which task it tried, else ``run 4 of 10``."""
    task, trial = run.envelope.get("task"), run.envelope.get("trial")
    if task is not None:
        return f"task {task}" + (f", trial {trial}" if trial is not None else "")
    return f"run {run.index} of {total}"


BRIEF_RUNS = 20  # failing runs listed one line each under a stability floor


def _runs_in_brief(verdict: Verdict, failing: list) -> list[str]:
    """Under ``stability:``, the failing runs one line each (their first failure), so that a
    cassette of 200 runs still reads at a glance."""
    if not failing:
        return []
    name = verdict.block.name
    lines = ["", f"{INDENT}runs that failed their own gates: {len(failing)} of {len(verdict.runs)}"]
    for run in failing[:BRIEF_RUNS]:
        first = run.failures[0]
        lines.append(f"{INDENT * 2}{name} #{run.index} ({_which(run, len(verdict.runs))}): "
                     f"{first.gate}: {first.message.splitlines()[0] if first.message else ''}")
    if len(failing) > BRIEF_RUNS:
        lines.append(f"{INDENT * 2}... and {len(failing) - BRIEF_RUNS} more")
    return lines


def _aggregate_section(verdict: Verdict, suite_file: str) -> list[str]:
    """The gates judged over every run: FLOOR lines, failed expects with their line."""
    agg = verdict.aggregate
    if agg is None or not agg.failures:
        return []
    base = os.path.basename(suite_file)
    n = len(verdict.runs) or agg.runs
    lines = ["", f"{INDENT}over all {plural(n, 'run')}: {plural(len(agg.failures), 'failure')}"]
    for f in agg.failures:
        first, *rest = f.message.splitlines() or [""]
        where = f" ({base}:{f.line})" if f.line else ""
        lines.append(f"{INDENT * 2}{f.gate}: {first}{where}")
        lines += [f"{INDENT * 3}{line}" for line in rest]
    return lines


# --------------------------------------------------------------------------- a passing item under -v

#: Envelope values worth seeing for a passing item, by the path ``expect:`` reads them at,
#: so that a figure shown is a figure the user can gate on. Absent ones are left out.
HEADLINES = ("trace.mode", "tool_selection.f1", "tool_selection.floor.selection_rate", "tool_selection.floor.pass_k",
             "token_efficiency.f1", "token_efficiency.grade", "orchestration.efficiency",
             "stability.pass_rate", "distractors.accuracy", "distractors.certified_lower",
             "accuracy", "ci_low", "min_score", "mean_score",
             "invalid_actions", "forbidden_transitions", "golden.penalty")


def passing_metrics(verdict: Verdict) -> str:
    """One line for a passing item under ``-v``: how many runs, its headline figures and
    every declared expectation with the value that met it (per-run ones: in how many runs),
    so a pass says by how much it passed without opening the report."""
    agg = verdict.aggregate
    recorded = verdict.source.startswith("cassette ")  # a catalog item has no runs to count
    runs = len(verdict.runs) or (agg.runs if agg is not None else 0)  # a distractors item judges all at once
    parts = [plural(runs, "run")] if recorded else []
    declared: dict[str, str] = {}
    for r in agg.expect_results if agg is not None else ():
        declared.setdefault(r.expectation.target, f"{r.expectation.target} {_figure(r.actual)} "
                                                  f"({_matcher(r.expectation)})")
    per_run: dict[str, tuple] = {}
    for run in verdict.runs:
        for r in run.expect_results:
            exp = r.expectation
            per_run.setdefault(exp.target, (exp, []))[1].append(r)
    for target, (exp, results) in per_run.items():
        if len(results) == 1:
            declared.setdefault(target, f"{target} {_figure(results[0].actual)} ({_matcher(exp)})")
        else:  # under stability: some runs may miss it and the item still pass
            held = sum(r.passed for r in results)
            declared.setdefault(target, f"{target} {_matcher(exp)} in {held} of {len(results)} runs")
    envelope = agg.envelope if agg is not None and agg.envelope else (
        verdict.runs[0].envelope if len(verdict.runs) == 1 else {})
    for path in HEADLINES:
        if path in declared:
            continue
        value = _lookup(envelope, path)
        if value is not None:
            parts.append(f"{path} {_figure(value)}")
    return ", ".join(parts + list(declared.values()))


def _lookup(envelope: dict, path: str):
    value = envelope
    for key in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value if isinstance(value, (int, float, str)) else None


def _matcher(exp) -> str:
    text = exp.describe()
    return text if len(text) <= 40 else text[:37] + "..."


def _figure(value) -> str:
    """A number at four significant digits at most (``0.6667``, ``21.33``); anything else shown."""
    if isinstance(value, float) and not isinstance(value, bool):
        return f"{value:.4g}"
    return show(value, 40)


# --------------------------------------------------------------------------- colour on a terminal

_FAILED_WORDS = ("[FAIL]", "FLOOR", "expected", "got ", "does not match", "over budget", "did not", "failed",
                 "forbidden", "mismatch", "missing", "critical", "beyond the", "no transition", "error")


def line_style(line: str, first: bool = False) -> dict:
    """pytest's markup for one line of failure text: red for what failed, green for what
    held, dim (``light``) for context; the head line red and bold."""
    if first:
        return {"red": True, "bold": True}
    if not line.strip():
        return {}
    if "[PASS]" in line:
        return {"green": True}
    if line.strip().endswith("runs passed on their own"):
        passed, _, total = line.strip().partition(" of ")
        if total.split(" ", 1)[0] == passed:
            return {"green": True}
    if any(word in line for word in _FAILED_WORDS):
        return {"red": True}
    return {"light": True}


class FailureText(str):
    """A block's failure text that colours itself when pytest writes it to a terminal with
    markup (none under ``NO_COLOR``, ``--color=no`` or a pipe): still a plain ``str`` to
    everything else (JUnit XML, the JSON and HTML reports, ``--tb=line``)."""

    def toterminal(self, tw) -> None:
        for n, line in enumerate(self.splitlines()):
            tw.line(line, **line_style(line, first=n == 0))


def _as_envelope(obj):
    """What a result is compared by: its envelope, or for a result with none (a verdict, a
    gate's result: msgspec Structs, which pytest's own diff does not take apart) its fields."""
    if isinstance(obj, dict):
        return obj
    if type(obj).__module__.startswith("pytest_mcptest."):
        if callable(getattr(obj, "to_dict", None)):
            return obj.to_dict()
        import msgspec

        if isinstance(obj, msgspec.Struct):
            return msgspec.structs.asdict(obj)
    return None


def compare_results(op: str, left, right):
    """``assert a == b`` on engine results (or a result and an envelope): differing paths."""
    if op != "==":
        return None
    ours = [o for o in (left, right) if not isinstance(o, dict)]
    if not ours or any(_as_envelope(o) is None for o in ours):
        return None
    a, b = leaves(_as_envelope(left), keep_empty=True), leaves(_as_envelope(right), keep_empty=True)
    if a == b:
        return None
    keys = sorted(set(a) | set(b))
    rows = [(k, f"left {show(a[k]) if k in a else 'absent'}", f"right {show(b[k]) if k in b else 'absent'}")
            for k in keys if k not in a or k not in b or a[k] != b[k]]
    head = f"{type(left).__name__} == {type(right).__name__}: {len(rows)} paths differ"
    return [head] + [line.strip() for line in table(rows[:40], indent="")] + (
        [f"... and {len(rows) - 40} more"] if len(rows) > 40 else [])
