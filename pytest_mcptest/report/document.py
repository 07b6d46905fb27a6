"""The JSON report: one entry per item, sorted by id, with no time stamps.

Each item's data rides on its pytest report (plain dicts and strings, so it
crosses pytest-xdist intact); only the controller gathers and writes, so two runs
of the same suite, with or without xdist, write the same bytes.
"""

from __future__ import annotations

import json
import math
import re
import sys
from functools import lru_cache
from typing import Any, Optional

from ..engine.paths import json_pointer
from ..engine.paths import leaves as flatten
from ..engine.values import is_number
from ..errors import InputError
from ..formats.files import MAX_JSON_DEPTH, POINTER_PARTS, atomic_write, brackets_within, read_json, utf8_safe
from ..formats.json_text import compact, dumps_indented
from ..text import plural

REPORT_VERSION = 1


def item_entry(nodeid: str, block, verdict) -> dict:
    """The report entry of one item, before its outcome is known.

    With several recorded runs, ``runs`` lists each as ``name #N`` and whether it passed.
    A failed block carries ``text``, its failure text as the terminal shows it (plain, no
    colour), so a reader of the report or its HTML sees the same diff and FLOOR lines.
    """
    entry = {
        "id": nodeid,
        "name": block.name,
        "kind": block.kind,
        "file": nodeid.rsplit("::", 1)[0],
        "line": block.line,
        "envelope": {},
        "failures": [f.to_dict() for f in verdict.failures] if verdict is not None else [],
    }
    cut: list[str] = []
    if verdict is not None:
        entry["envelope"], cut = bounded_lists(verdict.envelope, MAX_LIST_ENTRIES)
    if (verdict is not None and verdict.notes) or cut:
        entry["notes"] = sorted(set(verdict.notes) | set(cut)) if cut else list(verdict.notes)
    if block.tags:
        entry["tags"] = list(block.tags)
    if verdict is not None and not verdict.passed:
        from .render import render_verdict

        entry["text"] = render_verdict(verdict, file=entry["file"])
        modes = failure_modes(verdict)
        if modes:
            entry["failure_modes"] = modes
    if verdict is not None and len(verdict.runs) > 1:
        entry["runs"] = [{"name": f"{block.name} #{r.index}", "passed": r.passed} for r in verdict.runs]
    if verdict is not None and verdict.basis:
        entry["basis"] = verdict.basis
    if verdict is not None and verdict.infra_errors:
        entry["infra_errors"] = verdict.infra_errors
    return entry


MAX_LIST_ENTRIES = 10_000  # per list in an item's envelope, as the report copies it


def failure_modes(verdict) -> dict:
    """``{mode: failing runs}`` of a failed verdict (``engine/failure_modes.py``); a recording
    that could not be had (a missing cassette) is no failure of the agent's and has none, nor
    has a block that judged no recorded run (a catalog, a server build)."""
    from ..engine.failure_modes import item_modes

    if verdict.problems or not verdict.recorded_runs:
        return {}
    runs = ((r.envelope, [(f.gate, f.message) for f in r.failures]) for r in verdict.runs)
    overall = [(f.gate, f.message) for f in verdict.aggregate.failures] if verdict.aggregate else []
    return item_modes(runs, overall)


def bounded_lists(envelope: dict, limit: int) -> tuple[dict, list[str]]:
    """``envelope`` with every list longer than ``limit`` cut to its first ``limit``
    entries, and one note per cut list (its JSON pointer and its full length).

    A run of 200,000 calls would otherwise be copied whole into the report (about 90 MB
    of indented JSON, most of a minute to write and a gigabyte to hold, then as much again
    for ``mcptest report`` and the HTML page to read back). The gates have judged every
    entry before this; the cassette keeps them all. The walk never goes past an entry it
    would cut, so its cost is bounded by what is written. Lists within the limit are the
    same objects, so a normal run's report is unchanged, byte for byte.
    """
    cuts: list[tuple[tuple, int]] = []
    stack: list[tuple[Any, tuple]] = [(envelope, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, path + (k,)) for k, v in node.items() if isinstance(v, (dict, list, tuple)))
        elif isinstance(node, (list, tuple)):
            if len(node) > limit:
                cuts.append((path, len(node)))
            stack.extend((v, path + (i,)) for i, v in enumerate(node[:limit]) if isinstance(v, (dict, list, tuple)))
    if not cuts:
        return envelope, []
    cuts.sort(key=lambda cut: len(cut[0]))  # outer lists first: inner cuts land in their copies
    root = dict(envelope)
    copies: dict[tuple, Any] = {(): root}
    notes = []
    for path, length in cuts:
        parent = root
        for depth in range(1, len(path)):
            prefix = path[:depth]
            if prefix not in copies:
                original = parent[path[depth - 1]]
                copies[prefix] = parent[path[depth - 1]] = dict(original) if isinstance(original, dict) else list(original)
            parent = copies[prefix]
        parent[path[-1]] = copies[path] = list(parent[path[-1]][:limit])
        shown = json_pointer(path[:POINTER_PARTS]) + ("/..." if len(path) > POINTER_PARTS else "")
        notes.append(f"/envelope{shown}: {length} entries; the first {limit} are written here "
                     f"(the gates judged all {length}; the cassette holds them)")
    return root, notes


# --------------------------------------------------------------------------- JUnit XML properties

MAX_PROPERTIES = 100  # numeric envelope values per item


def junit_properties(kind: str, verdict) -> list[tuple[str, Any]]:
    """An item's metrics for ``--junitxml``'s ``<property>`` elements: its kind and verdict,
    the failures per gate (``mcptest.gate.<gate>``), then every numeric envelope value under
    its dotted path (``mcptest.envelope.tool_selection.pass_k``; a boolean is ``true`` or
    ``false``). Bounded, with names that stay put from run to run, so a CI dashboard can
    chart them: values inside lists (per-run details, tools, calls) are left out, as their
    totals are numbers beside them; at most ``MAX_PROPERTIES`` values are kept (the count of
    the rest goes into ``mcptest.envelope_omitted``)."""
    props: list[tuple[str, Any]] = [("mcptest.kind", kind), ("mcptest.verdict", "passed" if verdict.passed else "failed")]
    gates: dict[str, int] = {}
    for failure in verdict.failures:
        gates[failure.gate] = gates.get(failure.gate, 0) + 1
    props += [(f"mcptest.gate.{gate}", gates[gate]) for gate in sorted(gates)]
    values = []
    stack: list[tuple[str, Any]] = [("", verdict.envelope)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((f"{path}.{k}" if path else str(k), node[k]) for k in sorted(node, key=str, reverse=True))
        elif isinstance(node, bool):
            values.append((path, "true" if node else "false"))
        elif isinstance(node, (int, float)) and node == node:  # not nan
            values.append((path, round(node, 6) if isinstance(node, float) else node))
    props += [(_xml_safe(f"mcptest.envelope.{path}"), value) for path, value in values[:MAX_PROPERTIES]]
    if len(values) > MAX_PROPERTIES:
        props.append(("mcptest.envelope_omitted", len(values) - MAX_PROPERTIES))
    return props


# What XML 1.0 cannot hold (controls but tab, newline and return; surrogates; U+FFFE, U+FFFF),
# and tab, newline and return too, which a property's name should not hold either.
_NOT_XML = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u061c\u200e\u200f\u2028\u2029"
                      "\u202a-\u202e\u2066-\u2069]")


def _xml_safe(name: str) -> str:
    """A property name that XML can hold: pytest escapes a property's value but writes its
    name as it is, so a tool name with ``\\x0b`` once made ``--junitxml`` unparseable."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", name) if _NOT_XML.search(name) else name


def phase_outcome(report) -> Optional[str]:
    """The item outcome one phase's report implies, or None when it says nothing new."""
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if xfail:
            return "xfailed" if report.skipped else "xpassed" if report.passed else "failed"
        return report.outcome
    if report.failed:
        return "error"
    if report.skipped:
        return "xfailed" if xfail else "skipped"
    return None


class ReportBuilder:
    """Gathers item entries from test reports (on the controller) and renders the JSON."""

    def __init__(self):
        self.items: dict[str, dict] = {}
        self.errors: dict[str, str] = {}

    def add(self, report) -> None:
        data = getattr(report, "mcptest", None)
        if data is None:
            return
        entry = self.items.get(report.nodeid)
        if entry is None:
            entry = self.items[report.nodeid] = dict(data, outcome="passed")
        elif report.when == "call":  # the phase that evaluated the block
            entry.update(data)
        outcome = phase_outcome(report)
        if outcome is not None and (entry["outcome"] == "passed" or outcome == "error"):
            entry["outcome"] = outcome

    def add_collect_error(self, nodeid: str, text: str) -> None:
        self.errors[nodeid] = text

    def to_dict(self) -> dict:
        return build_report(self.items.values(), self.errors)


def build_report(items, errors: dict[str, str]) -> dict:
    """The report document: items sorted by id, then bad files (if any) sorted by path."""
    out: dict[str, Any] = {"mcptest_report": REPORT_VERSION, "items": sorted(items, key=lambda e: e["id"])}
    modes = failure_mode_totals(out["items"])
    if modes:
        out["failure_modes"] = modes
    broken = sum(item["infra_errors"] for item in out["items"] if isinstance(item.get("infra_errors"), int))
    if broken:
        out["infra_errors"] = broken
    from ..engine.basis import summary

    basis = summary(out["items"])
    if basis:
        out["basis"] = basis
    if errors:
        out["errors"] = [{"file": k, "message": errors[k]} for k in sorted(errors)]
    return out


def failure_mode_totals(items) -> dict:
    """The failure modes of the failed items, summed: ``{"wrong_tool": 61, ...}``."""
    from ..engine.failure_modes import add_counts

    total: dict = {}
    for item in items:
        if item.get("outcome") == "failed" and isinstance(item.get("failure_modes"), dict):
            total = add_counts(total, item["failure_modes"])
    return total


def dumps(report: dict) -> str:
    """The report as JSON text; never raises, whatever the envelopes hold.

    JSON has no ``NaN`` or ``Infinity`` (``1.7e308 + 1.7e308`` reaches one from finite
    numbers), and :func:`load_report` reads nothing nested more than
    :data:`~pytest_mcptest.formats.files.MAX_JSON_DEPTH` levels deep. Such a value is written as
    ``null`` (a part nested too deeply as a short string), and the item gets a ``notes``
    list saying where and what was replaced, so the report stays valid JSON that this
    version of mcptest can read back.
    """
    text = _clean(report)
    if text is None:
        report = json_safe(report)
    return utf8_safe(dumps_indented(report, sort_keys=True, allow_nan=False, text=text) + "\n")


def _clean(report: dict) -> Optional[str]:
    """The compact text of ``report`` when it is already strict, readable JSON, proven the
    cheap way (the C encoder refuses NaN, infinities and odd types, and its text's brackets
    show the depth), else None."""
    try:
        text = compact(report, sort_keys=True, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        return None
    return text if brackets_within(text, MAX_JSON_DEPTH) else None


def json_safe(report: dict) -> dict:
    """A copy of ``report`` that :func:`json.dumps` writes as strict, readable JSON.

    Each replacement adds a line to the ``notes`` of the item it is in (or of the report).
    """
    notes: dict[Any, list[str]] = {}
    root: list = [None]
    pending = [(report, root, 0, ())]  # (value, container to fill, key in it, path from the root)
    while pending:
        value, into, key, path = pending.pop()
        if isinstance(value, float) and not math.isfinite(value):
            _note(notes, path, f"{value} is not a JSON number; written as null")
            value = None
        elif isinstance(value, (dict, list, tuple)) and len(path) >= MAX_JSON_DEPTH:
            _note(notes, path, f"nested more than {MAX_JSON_DEPTH} levels deep; written as a string")
            value = f"(nested more than {MAX_JSON_DEPTH} levels deep)"
        elif isinstance(value, dict):
            copy: Any = {}
            for k, v in value.items():
                name = k if isinstance(k, str) else json.dumps(k) if isinstance(k, (int, float, bool)) else str(k)
                pending.append((v, copy, name, path + (name,)))
            value = copy
        elif isinstance(value, (list, tuple)):
            copy = [None] * len(value)
            pending.extend((v, copy, i, path + (i,)) for i, v in enumerate(value))
            value = copy
        elif not (value is None or isinstance(value, (str, int, float, bool))):
            _note(notes, path, f"a {type(value).__name__} is not JSON; written as text")
            value = str(value)
        into[key] = value
    safe = root[0]
    for where, lines in notes.items():
        target = safe["items"][where] if where is not None else safe
        if not isinstance(target, dict):  # an item that is itself a bad value: say so at the top
            target, lines = safe, [f"/items/{where}{line[1:] if line.startswith('/:') else line}" for line in lines]
        old = target.get("notes")
        target["notes"] = sorted(set(old if isinstance(old, list) and all(isinstance(n, str) for n in old) else [])
                                 | set(lines))
    return safe


def _note(notes: dict, path: tuple, text: str) -> None:
    item = path[1] if len(path) >= 2 and path[0] == "items" else None
    inner = path[2:] if item is not None else path
    shown = json_pointer(inner[:POINTER_PARTS]) + ("/..." if len(inner) > POINTER_PARTS else "")
    notes.setdefault(item, []).append(f"{shown or '/'}: {text}")


def write_report(path: str, report: dict) -> None:
    atomic_write(path, dumps(report))


# --------------------------------------------------------------------------- comparing two reports

COMPARE_VERSION = 1
_FAILED, _PASSED = "failed", "passed"


def load_report(path: str, name: Optional[str] = None) -> dict:
    """Read a JSON report; ``ValueError`` naming the file (as ``name``, default ``path``)
    and the JSON pointer of the first part that is not what a report holds."""
    shown = name or path
    try:
        data = read_json(path, shown, unique_keys=True)  # a shard edited by hand must not say two things
    except FileNotFoundError:
        raise ValueError(f"{shown}: no such file") from None
    except InputError as exc:
        raise ValueError(exc.render()) from None
    problem = _report_problem(data)
    if problem:
        pointer, message = problem
        raise ValueError(f"{shown} (at {pointer or '/'}): not an mcptest report: {message}")
    return data


REPORT_SCHEMA = "report-v1.json"  # in pytest_mcptest/schema/: the shape of a report, for readers and editors


def _report_problem(data) -> Optional[tuple[str, str]]:
    """(JSON pointer, what is wrong) for the first part of ``data`` that breaks the report
    schema (``schema/report-v1.json``) or holds a number too large to compare, or None."""
    if not isinstance(data, dict) or "mcptest_report" not in data:
        return "", "expected an object with \"mcptest_report\": 1 and \"items\""
    version = data["mcptest_report"]
    if isinstance(version, bool) or version != REPORT_VERSION:
        return "/mcptest_report", f"unsupported version {version!r} (this mcptest reads {REPORT_VERSION})"
    check = _compiled_schema()
    if not check.is_valid(data):  # explained in words by jsonschema, which is slow but only runs now
        from ..suite.validate import schema_problems

        problems = schema_problems(data, REPORT_SCHEMA)
        if problems:
            return json_pointer(problems[0].parts), problems[0].message
        first = next(iter(check.iter_errors(data)))
        return json_pointer(list(first.instance_path)), first.message
    return _huge_integer(data)


@lru_cache(maxsize=1)
def _compiled_schema():
    """The report schema compiled by jsonschema-rs: a 10,000-item report is checked in 40 ms."""
    import jsonschema_rs

    from ..suite.validate import schema

    return jsonschema_rs.validator_for(schema(REPORT_SCHEMA))


_FLOAT_MAX = int(sys.float_info.max)


def _huge_integer(data) -> Optional[tuple[str, str]]:
    """(pointer, message) for the first integer no float can hold (a 400-digit cost once
    ended ``--html`` and ``--compare`` in an ``OverflowError``), or None."""
    path = _huge_path(data)
    if path is None:
        return None
    path.reverse()
    node = data
    for part in path:
        node = node[part]
    return json_pointer(path[:POINTER_PARTS]), f"a number of {len(str(abs(node)))} digits, too large to compare or chart"


def _huge_path(node) -> Optional[list]:
    """The path, last part first, to the first integer in ``node`` no float can hold. It is
    built only once one is found: a 10,000-item report is a million values, and a path made
    for each took longer than the rest of ``mcptest report --html``. Recursive: a report is
    as deep as the reader let it be (``formats/files.py`` bounds nesting)."""
    if type(node) is dict:
        for key, value in node.items():
            if type(value) in _WALKED:
                found = _huge_path(value)
                if found is not None:
                    found.append(key)
                    return found
    elif type(node) is list:
        for index, value in enumerate(node):
            if type(value) in _WALKED:
                found = _huge_path(value)
                if found is not None:
                    found.append(index)
                    return found
    elif not -_FLOAT_MAX <= node <= _FLOAT_MAX:
        return []
    return None


_WALKED = (dict, list, int)


def _is_floor_path(path: str) -> bool:
    return path == "floor.passed" or path.endswith(".floor.passed")


def _delta(before, after):
    if before is None or after is None:
        return None
    delta = after - before
    if isinstance(delta, float) and not math.isfinite(delta):
        return None  # two finite numbers so far apart that their difference is not one
    return round(delta, 10) if isinstance(delta, float) else delta


def _compare_item(item_id: str, before: Optional[dict], after: Optional[dict]) -> dict:
    old = flatten((before or {}).get("envelope") or {})
    new = flatten((after or {}).get("envelope") or {})
    values = []
    for path in sorted(set(old) | set(new)):
        a, b = old.get(path), new.get(path)
        a = a if is_number(a) else None
        b = b if is_number(b) else None
        if a is None and b is None:
            continue
        values.append({"path": path, "before": a, "after": b, "delta": _delta(a, b)})
    entry: dict[str, Any] = {
        "id": item_id,
        "status": "added" if before is None else "removed" if after is None else "common",
        "outcome": {"before": before.get("outcome") if before else None,
                    "after": after.get("outcome") if after else None},
        "values": values,
    }
    flips = []
    if before is not None and after is not None:
        ob, oa = entry["outcome"]["before"], entry["outcome"]["after"]
        if {ob, oa} == {_PASSED, _FAILED}:
            flips.append({"id": item_id, "path": "outcome", "before": ob, "after": oa})
        for path in sorted(set(old) | set(new)):
            if not _is_floor_path(path):
                continue
            a, b = old.get(path), new.get(path)
            if isinstance(a, bool) and isinstance(b, bool) and a != b:
                flips.append({"id": item_id, "path": path,
                              "before": _PASSED if a else _FAILED, "after": _PASSED if b else _FAILED})
    entry["floor_flips"] = flips
    entry["changed"] = bool(
        entry["status"] != "common" or flips or entry["outcome"]["before"] != entry["outcome"]["after"]
        or any(v["delta"] != 0 for v in values))
    return entry


def compare_reports(current: dict, baseline: dict, alpha: float = 0.05, correction: str = "holm",
                    allow_basis_change: bool = False) -> dict:
    """Per item id present in either report: the delta of every numeric envelope value
    (dotted paths; booleans are not numbers), the outcome before and after, and the
    floor flips (an outcome passed<->failed, or a ``...floor.passed`` that changed).

    ``regressions`` counts the flips to failed. Items are sorted by id; values by path.
    ``basis`` lists what differs in the items' bases (``engine/basis.py``): ``differences``,
    ``unpinned`` (a side that pins none), ``graded_apart`` (why the two were graded on a
    different basis, or None) and ``refused``. ``significance`` holds the paired tests of
    :mod:`.significance` and their verdict; it is left out when the grading basis differs,
    unless ``allow_basis_change``.
    """
    from ..engine.basis import differences, refusal
    from .compare import significance

    old = {item["id"]: item for item in baseline.get("items", [])}
    new = {item["id"]: item for item in current.get("items", [])}
    items = [_compare_item(i, old.get(i), new.get(i)) for i in sorted(set(old) | set(new))]
    flips = [flip for item in items for flip in item["floor_flips"]]
    basis = differences(baseline.get("items", []), current.get("items", []))
    basis["graded_apart"] = refusal(basis)
    basis["refused"] = basis["graded_apart"] is not None and not allow_basis_change
    out = {
        "mcptest_compare": COMPARE_VERSION,
        "basis": basis,
        "items": items,
        "added": [i["id"] for i in items if i["status"] == "added"],
        "removed": [i["id"] for i in items if i["status"] == "removed"],
        "outcome_changes": [{"id": i["id"], **i["outcome"]} for i in items
                            if i["status"] == "common" and i["outcome"]["before"] != i["outcome"]["after"]],
        "floor_flips": flips,
        "regressions": sum(1 for f in flips if f["after"] == _FAILED),
        "common": sum(1 for i in items if i["status"] == "common"),
    }
    if not basis["refused"]:
        out["significance"] = significance(current, baseline, alpha, correction)
    return out


BASIS_ITEMS = 3  # item ids named after a basis difference


def _basis_value(value) -> str:
    if isinstance(value, list):
        return "mixed (" + ", ".join(_basis_value(v) for v in value) + ")"
    return "not recorded" if value is None else json.dumps(value) if isinstance(value, bool) else str(value)


def basis_lines(comparison: dict) -> list[str]:
    """Every difference of basis between the two reports (baseline -> current), the grading ones
    marked, and what it means for the verdict: listed first, since it says what a change can be
    read as."""
    basis = comparison.get("basis")
    if not isinstance(basis, dict):
        return []
    if len(basis["unpinned"]) == 1:  # both unpinned: two old reports, nothing to say
        return [f"basis: not checked: the {basis['unpinned'][0]} report pins no basis (written before mcptest "
                f"pinned one)"]
    found = basis["differences"]
    if not found:
        return []
    lines = [f"basis: {plural(len(found), 'difference')} (baseline -> this report)"]
    for d in found:
        ids = d["items"]
        named = ", ".join(ids[:BASIS_ITEMS]) + (f" and {len(ids) - BASIS_ITEMS} more" if len(ids) > BASIS_ITEMS else "")
        mark = "GRADING " if d["refuses"] else ""
        lines.append(f"  {mark}{d['key']}: {_basis_value(d['before'])} -> {_basis_value(d['after'])} "
                     f"({plural(len(ids), 'item')}: {named})")
    if basis["refused"]:
        lines.append(f"no verdict: {basis['graded_apart']}")
    elif basis["graded_apart"]:
        lines.append("the grading basis differs; compared anyway (--allow-basis-change)")
    return lines


def comparison_problem(comparison: dict) -> Optional[str]:
    """Why a comparison says nothing, if it does not: both reports hold items and none of
    them are the same item (ids are suite paths relative to the ini file, plus names)."""
    if comparison["common"] or not comparison["added"] or not comparison["removed"]:
        return None
    return (f"no item in common with the baseline ({plural(len(comparison['removed']), 'item')} there, "
            f"{len(comparison['added'])} here): was it written for another project, or from another folder "
            f"without an ini file? e.g. baseline {comparison['removed'][0]!r}, here {comparison['added'][0]!r}")


def _show(value) -> str:
    if value is None:
        return "absent"
    if isinstance(value, float):
        return repr(round(value, 6))
    return str(value)


def _show_delta(delta) -> str:
    if delta is None:
        return ""
    return f" ({'+' if delta > 0 else ''}{_show(delta)})"


def render_comparison(comparison: dict, every: bool = False, flag: str = "--all") -> str:
    """The verdict of the paired tests and the significant changes first; then added and
    removed items, outcome changes and a ``FLOOR FLIP id: passed -> failed`` line per
    flip; then a one-line tally. ``every`` adds every test and one line per changed item
    with every delta (``id: tool_selection.f1 80 -> 60 (-20), ...``); ``flag`` is the option
    that asks for them (``-v`` under pytest)."""
    from .compare import verdict_lines

    lines = basis_lines(comparison)
    if comparison.get("basis", {}).get("refused"):
        return "\n".join(lines)
    lines += verdict_lines(comparison["significance"], every) if "significance" in comparison else []
    for item in comparison["items"]:
        if item["status"] == "added":
            lines.append(f"added {item['id']} ({item['outcome']['after']})")
            continue
        if item["status"] == "removed":
            lines.append(f"removed {item['id']} (was {item['outcome']['before']})")
            continue
        if not item["changed"]:
            continue
        parts = []
        ob, oa = item["outcome"]["before"], item["outcome"]["after"]
        if ob != oa:
            parts.append(f"outcome {ob} -> {oa}")
        if every:
            parts += [f"{v['path']} {_show(v['before'])} -> {_show(v['after'])}{_show_delta(v['delta'])}"
                      for v in item["values"] if v["delta"] != 0]
        if parts:
            lines.append(f"{item['id']}: {', '.join(parts)}")
    for flip in comparison["floor_flips"]:
        where = "" if flip["path"] == "outcome" else f" ({flip['path']})"
        lines.append(f"FLOOR FLIP {flip['id']}{where}: {flip['before']} -> {flip['after']}")
    common = sum(1 for i in comparison["items"] if i["status"] == "common")
    changed = sum(1 for i in comparison["items"] if i["status"] == "common" and i["changed"])
    lines.append(f"{plural(common, 'item')} compared: {changed} changed, {len(comparison['added'])} added, "
                 f"{len(comparison['removed'])} removed, {plural(len(comparison['floor_flips']), 'floor flip')} "
                 f"({comparison['regressions']} to failed)")
    hidden = sum(1 for i in comparison["items"] for v in i["values"] if v["delta"] not in (0, None))
    if not every and hidden:
        lines.append(f"{hidden} value deltas not shown ({flag} shows every delta and every test)")
    return "\n".join(lines)


def failing(conditions, report: dict, comparison: Optional[dict]) -> list[str]:
    """Which of ``--fail-on``'s conditions hold, each as a reason: ``failed`` (an item
    failed or errored, or a suite file was bad), ``regression`` (the paired tests found a
    significant change for the worse), ``floor`` (a floor flipped to failed against the
    baseline; without one, a floor of this report that did not pass)."""
    reasons = []
    items = report.get("items", [])
    if "failed" in (conditions or ()):
        bad = sum(1 for i in items if i.get("outcome") in ("failed", "error")) + len(report.get("errors") or [])
        if bad:
            reasons.append(f"{bad} failed")
    if "regression" in (conditions or ()) and comparison is not None and "significance" in comparison:
        if comparison["significance"]["regressions"]:
            reasons.append(f"{comparison['significance']['regressions']} significant regressions")
    if "floor" in (conditions or ()):
        if comparison is not None:
            flips = comparison["regressions"]
        else:
            flips = sum(1 for i in items for path, value in flatten(i.get("envelope") or {}).items()
                        if _is_floor_path(path) and value is False)
        if flips:
            reasons.append(f"{flips} floors failed")
    return reasons


def render_summary(report: dict) -> str:
    """A report at a glance: items by outcome, then each failed item with its failures."""
    items = report.get("items", [])
    counts: dict[str, int] = {}
    for item in items:
        counts[item.get("outcome", "unknown")] = counts.get(item.get("outcome", "unknown"), 0) + 1
    lines = [f"{plural(len(items), 'item')}: " + (", ".join(f"{counts[k]} {k}" for k in sorted(counts)) or "none")]
    for item in items:
        if item.get("outcome") in ("failed", "error"):
            lines.append(f"{item['outcome'].upper()} {item['id']}")
            for failure in item.get("failures") or []:
                for n, text in enumerate(str(failure.get("message", "")).splitlines() or [""]):
                    lines.append(f"    {failure.get('gate', '?')}: {text}" if n == 0 else f"    {text}")
    for error in report.get("errors") or []:
        lines.append(f"BAD SUITE {error.get('file')}")
    return "\n".join(lines)
