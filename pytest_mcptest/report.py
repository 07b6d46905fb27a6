"""The JSON report: one entry per item, sorted by id, with no time stamps.

Each item's data rides on its pytest report (plain dicts and strings, so it
crosses pytest-xdist intact); only the controller gathers and writes, so two runs
of the same suite, with or without xdist, write the same bytes.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from .files import atomic_write

REPORT_VERSION = 1


def item_entry(nodeid: str, block, verdict) -> dict:
    """The report entry of one item, before its outcome is known.

    With several recorded runs, ``runs`` lists each as ``name #N`` and whether it passed.
    """
    entry = {
        "id": nodeid,
        "name": block.name,
        "kind": block.kind,
        "file": nodeid.split("::", 1)[0],
        "line": block.line,
        "envelope": verdict.envelope if verdict is not None else {},
        "failures": [f.to_dict() for f in verdict.failures] if verdict is not None else [],
    }
    if verdict is not None and len(verdict.runs) > 1:
        entry["runs"] = [{"name": f"{block.name} #{r.index}", "passed": r.passed} for r in verdict.runs]
    return entry


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
    if errors:
        out["errors"] = [{"file": k, "message": errors[k]} for k in sorted(errors)]
    return out


def dumps(report: dict) -> str:
    return json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def write_report(path: str, report: dict) -> None:
    atomic_write(path, dumps(report))
