"""The judge: a model that decides numbered statements about one recorded run.

Used for a conversation's criteria and for a scenario's ``rubric:``.
The judge reads the transcript (messages, and every tool call with its arguments and
shortened result, in order) and is asked whether each statement *holds*, with a one
sentence reason, as one JSON object. The recorded ``verdict`` is the test's outcome: a
statement that holds is ``pass``, except a failure criterion, where holding means the
described failure happened (``fail``). Verdicts are written as ``judgments`` keyed by the
exact statement text, which is what the replaying gates read; a statement the judge
left out is not written (it stays deferred on replay) and a note says so. An answer
that is not the JSON asked for is a :class:`LiveError`: nothing half-judged is recorded.

Each judgment also records which judge gave it: ``model`` (the id the API answered with)
and ``prompt_sha256``, the hash of the judge's instructions (:data:`SYSTEM` with the
scenario's ``extra_instructions``) and of the template its question is asked in
(:data:`TEMPLATE`), so a calibration of the judge against people (``judge_calibration:``)
can tell whether replayed verdicts came from the judge that was calibrated.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Mapping, Optional, Sequence

from .provider import LiveError

RESULT_CHARS = 2000
SYSTEM = ("You are a strict, fair evaluator of an AI assistant's conversation with a user. For each numbered "
          "statement, decide from the transcript alone whether it is true of the conversation. Answer with "
          'one JSON object and nothing else: {"results": [{"id": <number>, "holds": true|false, '
          '"reason": "<one short sentence>"}]}, one entry per statement.')
# The judge's question: the run's transcript and the numbered statements, filled in per run.
TEMPLATE = "Scenario: {subject}\n\nTranscript:\n{transcript}\n\nStatements:\n{statements}"


def instructions(extra_instructions: Optional[str] = None) -> str:
    """The judge's system message: :data:`SYSTEM`, then the scenario's extra instructions."""
    return SYSTEM + ("\n" + str(extra_instructions).strip() if extra_instructions else "")


def prompt_sha256(extra_instructions: Optional[str] = None) -> str:
    """Which instructions a judge was given: the SHA-256 (hex) of the canonical JSON of
    ``{"system": <its system message>, "template": <its question's template>}`` (keys sorted,
    no spaces, UTF-8 as is). The same judge model asked another way is another judge."""
    text = json.dumps({"system": instructions(extra_instructions), "template": TEMPLATE}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def transcript(turns: list) -> str:
    """The run as the judge reads it: messages, and tool calls with their arguments and
    (shortened) results in the order they happened."""
    out = []
    for turn in turns:
        role = turn["role"]
        if role == "user":
            out.append(f"USER: {turn['content']}")
        elif role == "assistant":
            for call in turn.get("tool_calls") or ():
                out.append(f"ASSISTANT CALLS TOOL {call['function']['name']} WITH {call['function']['arguments']}")
            if turn.get("content"):
                out.append(f"ASSISTANT: {turn['content']}")
        elif role == "tool":
            text = turn.get("content", "")
            if len(text) > RESULT_CHARS:
                text = text[:RESULT_CHARS] + " [...]"
            status = "ERROR" if turn.get("is_error") else "RESULT"
            out.append(f"TOOL {status} ({turn.get('name')}): {text}")
    return "\n".join(out)


def statements(kind: str, texts: Sequence[str]) -> list[dict]:
    """Statements of one ``kind`` (``correctness``, ``failure``, ``rubric``) to judge."""
    return [{"criterion": text, "kind": kind} for text in texts]


def judge_prompt(subject: str, items: list, turns: list, extra_instructions: Optional[str] = None) -> tuple[str, str]:
    """(system, user) messages asking the judge about ``items`` (numbered from 1)."""
    system = instructions(extra_instructions)
    lines = []
    for n, item in enumerate(items, start=1):
        about = f" (about calls of the tool {item['tool']})" if item["kind"] == "tool_call" else ""
        lines.append(f"{n}. {item['criterion']}{about}")
    user = TEMPLATE.format(subject=subject, transcript=transcript(turns), statements="\n".join(lines))
    return system, user


def _json_object(text: str) -> Any:
    text = re.sub(r"^```(?:json)?\s*|\s*```$", "", text.strip())
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object")
    return json.loads(text[start:end + 1])


def parse_judgment(text: str, items: list, model: str, prompt_hash: Optional[str] = None) -> tuple[list, list]:
    """The judge's answer -> (judgments keyed by criterion text, each with the judge's
    ``model`` and, when given, ``prompt_sha256``; notes). Raises :class:`LiveError` when the
    answer is not the JSON that was asked for."""
    try:
        data = _json_object(text)
        results = data["results"]
        if not isinstance(results, list):
            raise ValueError("'results' is not a list")
    except (ValueError, KeyError, TypeError) as exc:
        raise LiveError(f"judge {model}: the answer is not the JSON asked for ({exc}): {text[:200]!r}") from None
    found: dict[int, dict] = {}
    for entry in results:
        if (isinstance(entry, dict) and isinstance(entry.get("id"), int) and isinstance(entry.get("holds"), bool)
                and 1 <= entry["id"] <= len(items)):
            found.setdefault(entry["id"], entry)
    judgments, missing = [], []
    for n, item in enumerate(items, start=1):
        entry = found.get(n)
        if entry is None:
            missing.append(item["criterion"])
            continue
        holds = entry["holds"]
        verdict = ("fail" if holds else "pass") if item["kind"] == "failure" else ("pass" if holds else "fail")
        judgment = {"criterion": item["criterion"], "verdict": verdict,
                    "reason": str(entry.get("reason") or "").strip(), "model": model}
        if prompt_hash is not None:
            judgment["prompt_sha256"] = prompt_hash
        if item["kind"] == "tool_call":
            judgment["tool"] = item["tool"]
        judgments.append(judgment)
    notes = [f"judge {model} gave no verdict for {c!r}; it stays deferred on replay" for c in missing]
    return judgments, notes


async def judge(model, subject: str, items: list, turns: list, tally, config: Mapping) -> tuple[list, list]:
    """Ask ``model`` (a :class:`.runner.Model`) about ``items``; count its reply in
    ``tally``. ``config`` is the judge's override (``temperature``, ``extra_instructions``).
    Returns (judgments, notes) as :func:`parse_judgment`."""
    system, prompt = judge_prompt(subject, items, turns, config.get("extra_instructions"))
    verdict, cost = await model.ask(system, [{"role": "user", "content": prompt}], [], config.get("temperature"))
    tally.add(verdict, cost)
    return parse_judgment(verdict.text, items, verdict.model or model.provider.ref.name,
                          prompt_sha256(config.get("extra_instructions")))
