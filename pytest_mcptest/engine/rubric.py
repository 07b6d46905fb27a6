"""A scenario's ``rubric:``: secondary judge evidence beside the world's oracles.

The rubric is one statement or a list of them. A live recording asks a judge model about
each and writes its verdicts into the run's ``judgments`` (keyed by the exact statement
text); the replay reads them back here. With no recorded verdict the rubric is
``deferred``, as in every offline replay of a rubric nobody judged. Verdicts never fail
the scenario by themselves (the deterministic oracles are the primary signal); the
envelope's counts let ``expect:`` gate them (``rubric.failed: {"==": 0}``).
"""

from __future__ import annotations

from typing import Any

from .trace import Run

DEFERRED_REASON = "a rubric needs a live judge; the offline replay records it as deferred"


def rubric_statements(rubric: Any) -> tuple[str, ...]:
    """The statements a judge decides: the rubric itself when it is one string, else each string of its list."""
    if isinstance(rubric, str):
        return (rubric.strip(),)
    return tuple(s.strip() for s in rubric or () if isinstance(s, str))


def rubric_envelope(rubric: Any, run: Run) -> dict:
    """``rubric.*`` of the report envelope: deferred when the run recorded no verdict for
    any statement; else each statement's outcome (passed, failed, or deferred when the
    judge left it out) and the counts."""
    recorded: dict[str, dict] = {}
    for entry in run.judgments:
        if isinstance(entry, dict) and isinstance(entry.get("criterion"), str):
            recorded.setdefault(entry["criterion"], entry)
    texts = rubric_statements(rubric)
    if not any(t in recorded for t in texts):
        return {"status": "deferred", "rubric": rubric, "reason": DEFERRED_REASON}
    judgments = []
    for text in texts:
        entry = recorded.get(text)
        if entry is None:
            judgments.append({"criterion": text, "outcome": "deferred"})
            continue
        judgment = {"criterion": text, "outcome": "passed" if entry.get("verdict") == "pass" else "failed",
                    "verdict": entry.get("verdict")}
        judgment.update({k: entry[k] for k in ("reason", "model") if isinstance(entry.get(k), str)})
        judgments.append(judgment)
    counts = {o: sum(j["outcome"] == o for j in judgments) for o in ("passed", "failed", "deferred")}
    return {"status": "partial" if counts["deferred"] else "judged", "rubric": rubric, **counts,
            "judgments": judgments}
