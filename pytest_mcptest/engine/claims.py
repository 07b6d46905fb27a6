"""Claims against the trace: what the final answer says the agent did, checked against its calls.

An agent that answers "I have refunded your order" with no successful ``refund`` call, or
"I checked three sources" after one ``search``, tells the user something its own trace
does not show. A claim is a phrase (text or a regular expression, case-insensitive) and
the calls that must back it: each a tool id or a set of ids (a class), optionally an
argument shape and a count. A claim is *made* when its phrase occurs in one of the run's
final responses; a made claim is *supported* when every backing it names is found among
the run's successful calls (a call that returned an error backs nothing). A claim that
is not made is not judged.

Claims a phrase cannot catch are decided by a judge model at record time; their recorded
verdicts (the run's ``judgments``, keyed by the exact criterion text) are read back here,
and one with no verdict is deferred, as a conversation's criteria are.
"""

from __future__ import annotations

import re
from typing import Any, Optional

import attrs

from .toolid import member_matches
from .trace import Run, ToolCall
from .trace_match import ExpectedCall
from .values import show

SENTENCE_MAX = 200  # characters of the matched sentence kept for the report and the failure text


@attrs.frozen
class Backing:
    """Calls that back a claim: at least ``count`` successful calls to any of ``tools``
    (ids as in classes: ``server.tool`` or a bare ``tool``) whose arguments fit the shape."""

    tools: tuple[str, ...]
    count: int = 1
    args_kind: str = "any"  # any | exact | subset | schema, as expected_trace's calls
    args: Any = None
    label: str = ""  # how failures name it: the tool, "a or b", or "class search"

    def describe(self) -> str:
        what = self.label or " or ".join(self.tools)
        shape = "" if self.args_kind in ("any", "ignore") else f" with args {self.args_kind} {show(self.args, 50)}"
        many = "a successful call" if self.count == 1 else f"{self.count} successful calls"
        return f"{many} to {what}{shape}"

    def fits(self, call: ToolCall) -> bool:
        """Whether ``call`` names one of the tools with the declared argument shape (success aside)."""
        if not any(member_matches(tool, call) for tool in self.tools):
            return False
        return ExpectedCall(call.name, self.args_kind, self.args).matches(call)


@attrs.frozen
class Claim:
    """A phrase and what backs it. ``regex`` says whether ``phrase`` is a regular expression."""

    phrase: str
    backed_by: tuple[Backing, ...]
    regex: bool = False
    # Compiled by attrs as the claim is made, never changed after.
    _compiled: Any = attrs.field(init=False, eq=False, repr=False, default=attrs.Factory(
        lambda self: re.compile(self.phrase if self.regex else re.escape(self.phrase), re.IGNORECASE),
        takes_self=True))

    @property
    def shown(self) -> str:
        return f"/{self.phrase}/" if self.regex else repr(self.phrase)

    def find(self, texts: tuple[str, ...]) -> Optional[str]:
        """The sentence of ``texts`` where the phrase first occurs, or None."""
        for text in texts:
            match = self._compiled.search(text)
            if match is not None:
                return sentence_around(text, match.start(), match.end())
        return None


_ENDS = re.compile(r"[.!?](?=\s|$)|\n")


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` that holds ``text[start:end]``: from the end of the previous
    sentence (``.``, ``!`` or ``?`` before a space, or a line break) to the end of its own."""
    begin = 0
    for stop in _ENDS.finditer(text, 0, start):
        begin = stop.end()
    after = _ENDS.search(text, max(start, end - 1))  # a phrase that ends a sentence keeps its own
    finish = len(text) if after is None else (after.end() if after.group() != "\n" else after.start())
    sentence = " ".join(text[begin:finish].split())
    return sentence if len(sentence) <= SENTENCE_MAX else sentence[:SENTENCE_MAX - 3] + "..."


@attrs.frozen
class ClaimCheck:
    """One claim on one run: the sentence that made it (None: not made) and, when made,
    each backing that was missing, in words."""

    claim: Claim
    sentence: Optional[str]
    missing: tuple[str, ...] = ()

    @property
    def made(self) -> bool:
        return self.sentence is not None

    @property
    def supported(self) -> bool:
        return self.made and not self.missing

    def to_dict(self) -> dict:
        out: dict = {"claim": self.claim.phrase, "made": self.made}
        if self.made:
            out.update(sentence=self.sentence, supported=self.supported)
        if self.missing:
            out["missing"] = list(self.missing)
        return out


@attrs.frozen
class JudgedClaim:
    """A claim a judge decides: its criterion and the recorded verdict (``deferred`` when none)."""

    criterion: str
    outcome: str  # passed | failed | deferred
    reason: Optional[str] = None
    model: Optional[str] = None

    def to_dict(self) -> dict:
        out = {"criterion": self.criterion, "outcome": self.outcome}
        out.update({k: v for k, v in (("reason", self.reason), ("model", self.model)) if v is not None})
        return out


@attrs.frozen
class ClaimsResult:
    checks: tuple[ClaimCheck, ...]
    judged: tuple[JudgedClaim, ...] = ()

    @property
    def unsupported(self) -> tuple[ClaimCheck, ...]:
        return tuple(c for c in self.checks if c.made and not c.supported)

    def to_dict(self) -> dict:
        out = {"made": sum(c.made for c in self.checks), "supported": sum(c.supported for c in self.checks),
               "unsupported": [c.to_dict() for c in self.unsupported],
               "results": [c.to_dict() for c in self.checks]}
        if self.judged:
            out["judgments"] = [j.to_dict() for j in self.judged]
            out.update({o: sum(j.outcome == o for j in self.judged) for o in ("passed", "failed", "deferred")})
        return out


def _missing(backing: Backing, calls: tuple[ToolCall, ...]) -> Optional[str]:
    """Why ``backing`` is not found among ``calls`` (None when it is)."""
    fitting = [(i, c) for i, c in enumerate(calls) if backing.fits(c)]
    good = sum(not c.error for _, c in fitting)
    if good >= backing.count:
        return None
    failed = [f"call {i + 1} {c.name}" for i, c in fitting if c.error]
    found = "none" if good == 0 else f"{good}"
    note = f"; {', '.join(failed)} returned an error" if failed else ""
    return f"needs {backing.describe()}, found {found}{note}"


def check_claims(claims: tuple[Claim, ...], run: Run, judged: tuple[str, ...] = ()) -> ClaimsResult:
    """Each claim on ``run``'s final responses, and the recorded verdicts of ``judged`` criteria."""
    finals = run.final_responses
    checks = []
    for claim in claims:
        sentence = claim.find(finals)
        missing: tuple[str, ...] = ()
        if sentence is not None:
            missing = tuple(m for m in (_missing(b, run.tool_calls) for b in claim.backed_by) if m is not None)
        checks.append(ClaimCheck(claim, sentence, missing))
    recorded: dict[str, dict] = {}
    for entry in run.judgments:
        if isinstance(entry, dict) and isinstance(entry.get("criterion"), str):
            recorded.setdefault(entry["criterion"], entry)
    verdicts = []
    for criterion in judged:
        entry = recorded.get(criterion)
        if entry is None:
            verdicts.append(JudgedClaim(criterion, "deferred"))
            continue
        reason, model = entry.get("reason"), entry.get("model")
        verdicts.append(JudgedClaim(criterion, "passed" if entry.get("verdict") == "pass" else "failed",
                                    reason if isinstance(reason, str) else None,
                                    model if isinstance(model, str) else None))
    return ClaimsResult(tuple(checks), tuple(verdicts))
