"""tau-bench's published gpt-4o airline runs (50 tasks x 4 trials) as mcptest reports, for
the comparison, Markdown and HTML tests."""

from __future__ import annotations

import json
from pathlib import Path

TAU = json.loads((Path(__file__).parent / "data" / "tau-bench-gpt-4o-airline-rewards.json").read_text())
ID = "airline.mcptest.yml::airline"


def tau_report(rows) -> dict:
    """A report of one agent item whose runs are ``rows`` (task, trial, reward), as the
    plugin writes it: each run's verdict in ``runs``, its task, trial and meta in the envelope."""
    return {"mcptest_report": 1, "items": [{
        "id": ID, "name": "airline", "kind": "agent", "file": "airline.mcptest.yml", "line": 2, "outcome": "passed",
        "failures": [], "runs": [{"name": f"airline #{i}", "passed": r == 1} for i, (_, _, r) in enumerate(rows, 1)],
        "envelope": {"runs": [{"task": t, "trial": tr, "meta": {"reward": r}, "actions": 1} for t, tr, r in rows]}}]}


def ten_tasks_fail(rows) -> list:
    """The same runs with the first ten tasks that ever passed turned to failures."""
    passing = sorted({t for t, _, r in rows if r == 1})[:10]
    return [(t, tr, 0.0 if t in passing else r) for t, tr, r in rows]
