"""Distractor accuracy: pad the tool list with look-alikes, then score
whether the agent still chose the declared correct tools.

Three parts, all deterministic:

- :func:`bundled_tools`, a bundled, fixed-order catalog (package data, ``data/distractors.json``) of plausible but irrelevant tools
  (weather, currency, calendar and such) with realistic descriptions and input
  schemas, for ``source.from: catalog``;
- :func:`near_duplicates`, name-collision variants of real tools for
  ``source.from: near_duplicate`` (``_v2`` and ``_internal`` suffixes, casing,
  pluralization, a few more suffixes), taken kind by kind across ``of:`` so a small
  ``count`` spreads over every named tool;
- :func:`score_distractors`, the accuracy rule, which runs no model.

Injection never presents two tools with one name: a catalog entry or a variant whose
name equals a real tool's is skipped, and asking for more distractors than can be
drawn is an error rather than a silently shorter list.

The accuracy rule: per run, each distinct chosen id (a call's ``server.name``) is a
correct hit when a declared correct id names it, else a distractor hit when an
injected distractor id names it, else ignored (ids use the selection member rule:
dotted ids are server-qualified, bare ids match any server). Counting distinct ids
per run keeps a model that hammers the right tool from buying accuracy with repeats,
as the selection F1 does. ``accuracy`` is the integer percent
``chose_correct * 100 / chose_in_scope`` (rounded half up, like every percent in the
engine), summed over runs; nothing chosen in scope scores 0, except that zero declared
correct ids scores 100. A run *succeeds* when it chose only correct tools: at least one
call, every call correct (a run with no calls succeeds only in the vacuous case of no
correct ids). ``certified_lower`` is the Clopper-Pearson exact one-sided 95% lower bound
on the per-run success rate, in percent, rounded down to two decimals.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Iterable, Mapping, Optional, Sequence

import attrs

from .stats import clopper_pearson_lower, lower_bound_percent
from .toolid import call_id, member_matches
from .trace import Run
from .values import copy_json, percent

SOURCES = ("catalog", "near_duplicate")


@lru_cache(maxsize=1)
def _catalog() -> tuple[dict, ...]:
    """The bundled catalog, read once from the package's ``data/distractors.json``."""
    from importlib import resources

    text = resources.files("pytest_mcptest").joinpath("data/distractors.json").read_text(encoding="utf-8")
    return tuple(json.loads(text)["tools"])


def bundled_count() -> int:
    """How many distractors the bundled catalog holds."""
    return len(_catalog())


def bundled_tools() -> list[dict]:
    """A fresh copy of the bundled catalog, in its fixed order (callers may mutate it freely)."""
    return [copy_json(t) for t in _catalog()]


# --------------------------------------------------------------------------- near-duplicate synthesis


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[_\-\s]+", name) if w]


def toggle_plural(name: str) -> str:
    """Flip the number of a name's last word: ``search_products`` -> ``search_product``,
    ``get_product`` -> ``get_products``, ``search`` -> ``searches``, ``get_city`` ->
    ``get_cities``."""
    lower = name.lower()
    if lower.endswith("ies") and len(name) > 3:
        return name[:-3] + "y"
    if re.search(r"(ss|sh|ch|x|z)es$", lower):
        return name[:-2]
    if lower.endswith("s") and not lower.endswith("ss"):
        return name[:-1]
    if re.search(r"[^aeiou]y$", lower):
        return name[:-1] + "ies"
    if re.search(r"(s|sh|ch|x|z)$", lower):
        return name + "es"
    return name + "s"


def _camel(name: str) -> str:
    words = _words(name)
    return words[0].lower() + "".join(w[:1].upper() + w[1:].lower() for w in words[1:]) if words else name


def _pascal(name: str) -> str:
    return "".join(w[:1].upper() + w[1:].lower() for w in _words(name)) or name


VARIANT_KINDS: tuple[tuple[str, Any], ...] = (
    ("_v2", lambda n: n + "_v2"),
    ("_internal", lambda n: n + "_internal"),
    ("plural", toggle_plural),
    ("camelCase", _camel),
    ("_legacy", lambda n: n + "_legacy"),
    ("PascalCase", _pascal),
    ("_beta", lambda n: n + "_beta"),
    ("UPPER", str.upper),
    ("_v3", lambda n: n + "_v3"),
    ("_old", lambda n: n + "_old"),
    ("_new", lambda n: n + "_new"),
    ("_batch", lambda n: n + "_batch"),
    ("_async", lambda n: n + "_async"),
    ("_raw", lambda n: n + "_raw"),
)
"""How variants are made, in the order they are drawn."""


def _humanize(name: str) -> str:
    words = _words(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name))
    text = " ".join(w.lower() for w in words)
    return (text[:1].upper() + text[1:] + ".") if text else ""


def near_duplicates(of: Sequence[str], count: int, tools: Iterable[Mapping] = (),
                    taken: Iterable[str] = ()) -> list[dict]:
    """``count`` deterministic name-collision variants of the tools named in ``of``.

    Variants are drawn kind by kind (:data:`VARIANT_KINDS`), each kind across every name
    in ``of`` in order, so ``of: [a, b]`` at count 3 gives ``a_v2, b_v2, a_internal``.
    A variant copies the description and ``inputSchema`` of the real tool of that name
    when ``tools`` has it (a look-alike should look alike); otherwise its description is
    the name in words and its schema an empty object. Variants equal to a real tool
    name, to a name in ``taken``, or to an earlier variant are skipped. Raises
    ``ValueError`` when ``of`` is empty (and count > 0) or too few variants exist.
    """
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    if count == 0:
        return []
    of = list(dict.fromkeys(of))
    if not of:
        raise ValueError("near_duplicate distractors need at least one tool name in 'of'")
    by_name = {t.get("name"): t for t in tools if isinstance(t, Mapping)}
    used = set(by_name) | set(taken) | set(of)
    out: list[dict] = []
    for _, make in VARIANT_KINDS:
        for name in of:
            variant = make(name)
            if variant in used:
                continue
            used.add(variant)
            source = by_name.get(name)
            if source is not None:
                tool = {"name": variant, "description": copy_json(source.get("description", "")),
                        "inputSchema": copy_json(source.get("inputSchema", {"type": "object", "properties": {}}))}
            else:
                tool = {"name": variant, "description": _humanize(name),
                        "inputSchema": {"type": "object", "properties": {}}}
            out.append(tool)
            if len(out) == count:
                return out
    raise ValueError(f"only {len(out)} distinct near-duplicate variants of {', '.join(of)} exist; "
                     f"{count} were asked for")


@attrs.frozen
class Injection:
    """The tool list the model is shown (real tools first, then the distractors in
    draw order) and the injected distractor names."""

    tools: tuple = attrs.field(eq=False)
    distractors: tuple[str, ...]
    source: str

    def to_dict(self) -> dict:
        return {"source": self.source, "count": len(self.distractors), "distractors": list(self.distractors)}


def inject_distractors(tools: Sequence[Mapping], count: int, source: str = "catalog",
                       of: Sequence[str] = ()) -> Injection:
    """Pad ``tools`` (the real tool list, dicts with ``name``) with ``count`` distractors
    from the bundled catalog (in catalog order) or near-duplicates of ``of``.

    Catalog entries whose name a real tool already has are skipped. ``count: 0`` is the
    no-noise baseline. Raises ``ValueError`` on an unknown source, a negative count, or
    more distractors than the source can supply.
    """
    if source not in SOURCES:
        raise ValueError(f"unknown distractor source {source!r}; expected one of {', '.join(SOURCES)}")
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    real = [copy_json(dict(t)) for t in tools]
    names = {t.get("name") for t in real}
    if source == "catalog":
        pool = [t for t in bundled_tools() if t["name"] not in names]
        if count > len(pool):
            raise ValueError(f"the bundled catalog has only {len(pool)} distractors that do not collide "
                             f"with a real tool; {count} were asked for")
        extra = pool[:count]
    else:
        extra = near_duplicates(of, count, real)
    return Injection(tools=tuple(real + extra), distractors=tuple(t["name"] for t in extra), source=source)


# --------------------------------------------------------------------------- scoring


@attrs.frozen
class RunChoices:
    """One run's distinct chosen ids, sorted into correct, distractor and out of scope."""

    correct: tuple[str, ...]
    distractor: tuple[str, ...]
    ignored: tuple[str, ...]
    success: bool

    def to_dict(self) -> dict:
        return {"chose_correct": list(self.correct), "chose_distractor": list(self.distractor),
                "ignored": list(self.ignored), "success": self.success}


def _classify_run(calls: Sequence[Any], correct: Sequence[str], distractors: Sequence[str]) -> RunChoices:
    firsts: dict[str, Any] = {}
    for call in calls:
        firsts.setdefault(call_id(call), call)
    good, bad, other = [], [], []
    for cid, call in firsts.items():
        if any(member_matches(c, call) for c in correct):
            good.append(cid)
        elif any(member_matches(d, call) for d in distractors):
            bad.append(cid)
        else:
            other.append(cid)
    if firsts:
        success = not bad and not other
    else:
        success = not correct
    return RunChoices(tuple(good), tuple(bad), tuple(other), success)


@attrs.frozen
class DistractorScore:
    """The ``distractors.*`` envelope: accuracy, the choice counts, and the certified floor."""

    accuracy: int
    chose_correct: int
    chose_distractor: int
    certified_lower: float
    successful_runs: int
    correct: tuple[str, ...]
    distractors: tuple[str, ...]
    per_run: tuple[RunChoices, ...]
    complexity: Optional[str] = None

    @property
    def chose_in_scope(self) -> int:
        return self.chose_correct + self.chose_distractor

    def to_dict(self) -> dict:
        out: dict = {
            "accuracy": self.accuracy,
            "chose_correct": self.chose_correct,
            "chose_distractor": self.chose_distractor,
            "chose_in_scope": self.chose_in_scope,
            "certified_lower": self.certified_lower,
            "runs": len(self.per_run),
            "successful_runs": self.successful_runs,
            "count": len(self.distractors),
            "correct": list(self.correct),
            "distractors": list(self.distractors),
        }
        if self.complexity is not None:
            out["complexity"] = self.complexity
        out["per_run"] = [r.to_dict() for r in self.per_run]
        return out


def score_distractors(runs: Sequence[Run], correct: Sequence[str], distractors: Sequence[str],
                      complexity: Optional[str] = None, confidence: float = 0.95) -> DistractorScore:
    """Score runs against the declared correct ids and the injected distractor ids. See
    the module docstring for the rule."""
    correct, distractors = tuple(correct), tuple(distractors)
    per_run = tuple(_classify_run(run.tool_calls, correct, distractors) for run in runs)
    good = sum(len(r.correct) for r in per_run)
    bad = sum(len(r.distractor) for r in per_run)
    if good + bad == 0:
        accuracy = 0 if correct else 100
    else:
        accuracy = percent(good, good + bad)
    successes = sum(r.success for r in per_run)
    lower = clopper_pearson_lower(successes, len(per_run), confidence)
    return DistractorScore(
        accuracy=accuracy,
        chose_correct=good,
        chose_distractor=bad,
        certified_lower=lower_bound_percent(lower),
        successful_runs=successes,
        correct=correct,
        distractors=distractors,
        per_run=per_run,
        complexity=complexity,
    )
