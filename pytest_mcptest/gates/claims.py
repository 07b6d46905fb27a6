"""``claims:`` under agent tests and scenarios: what the final answer says, against the calls.

Not a kind of item: agent tests and scenarios both declare it and judge it on each run
(``gates/agent.py``, ``gates/scenario.py``). Built here from YAML (schema part:
``$defs/claims``), judged by :mod:`..engine.claims`; its envelope key is ``claims``.
A claim decided by a judge model (``judge:``) is asked on a live recording, beside a
scenario's rubric, and its recorded verdict is read back on replay; with none it is
deferred, as a conversation's criteria are (``--mcptest-require-judgments`` fails it).
"""

from __future__ import annotations

import re
from typing import Any, Optional

import attrs

from .context import Context
from ..engine.claims import Backing, Claim, check_claims
from ..engine.matching import MalformedSchema, schema_validator
from ..engine.values import show
from ..suite.doc import Doc, near, plain
from ..text import INDENT, findings, plural, table
from ..engine.verdict import Failure

GATE = "claims"


@attrs.frozen
class ClaimsSpec:
    """The claims a block checks by phrase, and the criteria a judge decides."""

    claims: tuple[Claim, ...] = ()
    judged: tuple[str, ...] = ()


def arg_shape(doc: Doc, here: list, args: Any) -> tuple[str, Any]:
    """An argument shape as expected calls write it: ``any``, ``ignore``, ``{exact: ...}``,
    ``{subset: ...}`` or ``{schema: ...}`` (checked now: a malformed schema is an error)."""
    if isinstance(args, str) and args in ("any", "ignore"):
        return args, None
    if not (isinstance(args, dict) and len(args) == 1 and next(iter(args)) in ("exact", "subset", "schema")):
        raise doc.error(here, f"args must be any, ignore, {{exact: ...}}, {{subset: ...}} or {{schema: ...}}, "
                        f"found {show(args)}")
    (kind, value), = args.items()
    if kind == "schema":
        try:
            schema_validator(value)
        except MalformedSchema as exc:
            raise doc.error(here + ["schema"], str(exc)) from None
    return kind, plain(value)


def _backing(doc: Doc, here: list, raw: Any, classes: tuple) -> Backing:
    if isinstance(raw, str):
        return Backing((raw,))
    count = raw.get("count", 1)
    kind, args = arg_shape(doc, here + ["args"], raw["args"]) if "args" in raw else ("any", None)
    if "class" in raw:
        by_name = {c.name: c for c in classes}
        chosen = by_name.get(raw["class"])
        if chosen is None:
            where = (f"the classes declared under equal_function_sets: or token_efficiency: are "
                     f"{', '.join(sorted(by_name))}{near(raw['class'], by_name)}" if by_name else
                     "this block declares no classes (equal_function_sets: or token_efficiency: on an agent "
                     "test); list the tools instead: tool: [a, b]")
            raise doc.error(here + ["class"], f"no class named {raw['class']!r}: {where}")
        return Backing(tuple(chosen.members), count, kind, args, f"class {chosen.name} ({' or '.join(chosen.members)})")
    tools = raw["tool"]
    return Backing((tools,) if isinstance(tools, str) else tuple(tools), count, kind, args)


def build(doc: Doc, parts: list, raw: Any, classes: tuple = ()) -> Optional[ClaimsSpec]:
    """The block's ``claims:`` list (``raw``; None when it has none). ``classes`` are the
    block's equal-function classes, which a backing may name (``class: search``)."""
    if not raw:
        return None
    claims, judged = [], []
    for i, entry in enumerate(raw):
        here = parts + [i]
        if "judge" in entry:
            if "backed_by" in entry:
                raise doc.error(here + ["backed_by"], "a judge: claim is decided by the judge's recorded verdict; "
                                "backed_by: belongs to a says: claim")
            judged.append(entry["judge"].strip())
            continue
        says = entry["says"]
        regex = isinstance(says, dict)
        phrase = says["regex"] if regex else says
        backed = entry["backed_by"]
        backed = backed if isinstance(backed, list) else [backed]
        backings = tuple(_backing(doc, here + ["backed_by"] + ([j] if isinstance(entry["backed_by"], list) else []),
                                  b, classes) for j, b in enumerate(backed))
        try:
            claims.append(Claim(phrase, backings, regex))
        except re.error as exc:
            raise doc.error(here + ["says", "regex"], f"says.regex is not a valid regular expression: {exc}") from None
    return ClaimsSpec(tuple(claims), tuple(judged))


def judge(spec: ClaimsSpec, run, number: int, total: int, name: str, ctx: Context) -> tuple[dict, list, list, tuple]:
    """One run's claims: (its ``claims`` envelope, failures, failure lines, summary entries)."""
    result = check_claims(spec.claims, run, spec.judged)
    failures = [Failure(GATE, f"{c.claim.shown} in \"{c.sentence}\": " + "; ".join(c.missing), number)
                for c in result.unsupported]
    deferred = []
    for j in result.judged:
        if j.outcome == "failed":
            said = (j.model or "judge") + (f": {j.reason}" if j.reason else "")
            failures.append(Failure(GATE, f"the judge found this claim unsupported: {j.criterion!r} ({said})", number))
        elif j.outcome == "deferred":
            if ctx.require_judgments:
                failures.append(Failure(GATE, f"no recorded verdict for {j.criterion!r} (judgments are required)",
                                        number))
            else:
                deferred.append(j.criterion if total == 1 else f"{name} #{number}: {j.criterion}")
    lines: list[str] = []
    if result.unsupported:
        made = sum(c.made for c in result.checks)
        lines += ["", f"{INDENT}claims: {len(result.unsupported)} of {plural(made, 'claim')} made "
                      f"{'is' if len(result.unsupported) == 1 else 'are'} not backed by the calls"]
        lines += table([(c.claim.shown, f"\"{c.sentence}\"", "; ".join(c.missing)) for c in result.unsupported])
    lines += findings(failures[len(result.unsupported):])  # the judge's verdicts and missing ones
    from .conversation import DEFERRED

    summary = ((DEFERRED, deferred),) if deferred else ()
    return result.to_dict(), failures, lines, summary


def judged_in(raw: Any) -> bool:
    """Whether a ``claims:`` list (as written) has a claim a judge decides."""
    return any(isinstance(entry, dict) and "judge" in entry for entry in raw or ())


def statements(spec: Optional[ClaimsSpec]) -> tuple[str, ...]:
    """The criteria a judge decides on a live recording."""
    return () if spec is None else spec.judged
