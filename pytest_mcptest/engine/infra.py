"""Runs that ended in an infrastructure failure: not the agent's doing, so not judged.

A live recording whose run could not be finished because of what surrounds the agent (the
provider's retries exhausted on 429 or 5xx, a timeout, a lost connection, an MCP server that
would not start) keeps the run, marked in its ``meta``::

    {"tool_calls": [], "meta": {"infra_error": {"cause": "rate_limited", "message": "..."}}}

Such a run is left out of everything that judges the agent (pass rates, pass^k, flip rate,
per-run verdicts): the report counts it instead, and the next recording records its run again.
Causes: ``rate_limited``, ``server_error``, ``timeout``, ``connection``, ``server_start``.
"""

from __future__ import annotations

from typing import Any, Optional

KEY = "infra_error"
CAUSES = ("rate_limited", "server_error", "timeout", "connection", "server_start")


def infra_error(run: Any) -> Optional[dict]:
    """The run's infrastructure failure (``{"cause", "message"}``), or None for a run of the agent."""
    meta = getattr(run, "meta", None)
    found = meta.get(KEY) if isinstance(meta, dict) else None
    return found if isinstance(found, dict) else None


def split(runs) -> tuple[tuple, tuple]:
    """``(agent runs, infrastructure failures)`` of ``runs``, each in recorded order."""
    kept, broken = [], []
    for run in runs:
        (broken if infra_error(run) is not None else kept).append(run)
    return tuple(kept), tuple(broken)


def summary(broken) -> str:
    """One line: how many runs failed on infrastructure, and their causes."""
    causes: dict[str, int] = {}
    for run in broken:
        cause = str(infra_error(run).get("cause") or "unknown")
        causes[cause] = causes.get(cause, 0) + 1
    said = ", ".join(f"{n} {c}" for c, n in sorted(causes.items()))
    return (f"{len(broken)} recorded run(s) ended in an infrastructure failure ({said}): left out of the verdict, "
            f"pass rates and pass^k; recording again (--mcptest-record-mode=once or new_episodes) replaces them")
