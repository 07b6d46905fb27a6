"""The tool-description benchmark (``mcptest tool-bench``): do descriptions carry
the selection signal?

A deterministic lexical selector picks one tool per intent; each mutation edits one
tool's description, and the benchmark reports how far selection dropped. It is a
reproducible, model-free lower bound: it keys on the same lexical signal a retriever
or a model's router does, so removing the words that matched an intent moves the pick.

Tokenization (:func:`tokens`): camelCase boundaries are split (``readFile`` -> read
file), the text is lowercased and cut into ``[a-z0-9]+`` runs (so ``_``, ``-``, ``.`` and
punctuation separate words), stopwords (:data:`STOPWORDS`, common English function words
plus the words of :data:`GENERIC_DESCRIPTION`) are dropped, and a light plural fold
applies: ``-ies`` -> ``-y``, ``-sses``/``-xes``/``-ches``/``-shes``/``-zes`` lose ``es``,
and another trailing ``s`` is dropped (not after ``s``, ``u`` or ``i``; words of 3
letters or fewer are kept as is). A tool's tokens are the set of its name's and its
description's tokens.

Scoring and tie-break (:func:`select`): a tool's score for a request is the number of
distinct request tokens found in the tool's token set. The pick is the highest score;
ties go to the tool earlier in the catalog. When no tool shares a token with the
request (score 0) there is no pick, and the intent counts as missed: an empty signal
must not be rewarded by catalog order.

Mutations (:func:`mutate_tool`), each on one named tool, description only:
``blank`` removes the description; ``genericize`` replaces it with
:data:`GENERIC_DESCRIPTION`; ``truncate`` keeps the first ``chars`` characters;
``drop_keyword`` removes every whole-word, case-insensitive occurrence of ``word`` and
collapses the whitespace left behind.

Figures: accuracy = correct picks / intents (one pick per intent, so it equals
selection F1) with a 95 % Wilson interval (:func:`.stats.wilson_interval`); TDQS mean and min
and the smells come from :mod:`.quality`; the catalog cost is whitespace-separated tokens
of each tool's name, description and ``inputSchema`` as ``json.dumps(sort_keys=True)``. Per mutation: ``drop`` = baseline accuracy - mutated
accuracy (negative when the edit helped), ``smells_introduced`` = per-smell increases
of the mutated tool's findings (categories that did not grow are left out), and
``tokens_removed`` = catalog cost before - after.

Gate: with ``min_drop`` set, the run passes when the largest drop is at least
``min_drop``; with no mutation there is no drop and the gate fails (nothing shows that
the descriptions carry signal).
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping, Optional, Sequence

import attrs

from .catalog import catalog_tools, tool_description, tool_name
from .quality import score_catalog, score_tool, smell_counts

MUTATION_KINDS = ("blank", "genericize", "truncate", "drop_keyword")

GENERIC_DESCRIPTION = "A tool that does something useful."

STOPWORDS = frozenset("""
    a about an and any are as at be been but by can could do does for from has have how i if in into is it its
    me my of on or our should so than that the their them then there these this those to too us was we were
    what when where which who whom why will with would you your
""".split()) | frozenset(re.findall(r"[a-z0-9]+", GENERIC_DESCRIPTION.lower()))

_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_TOKEN = re.compile(r"[a-z0-9]+")


def _fold(word: str) -> str:
    if len(word) <= 3:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokens(text: str) -> list[str]:
    """The selector's tokens of a text, in order (see the module docstring)."""
    text = _CAMEL.sub(r"\1 \2", text)
    return [_fold(w) for w in _TOKEN.findall(text.lower()) if w not in STOPWORDS]


def tool_tokens(tool: Mapping) -> frozenset[str]:
    return frozenset(tokens(tool_name(tool))) | frozenset(tokens(tool_description(tool)))


def select(request: str, tools: Sequence[Mapping], _index: Optional[Sequence[frozenset]] = None) -> Optional[str]:
    """The name of the tool the lexical selector picks for ``request``, or None.

    Highest count of distinct shared tokens wins; ties go to the earlier tool; no
    shared token at all means no pick.
    """
    index = _index if _index is not None else [tool_tokens(t) for t in tools]
    wanted = frozenset(tokens(request))
    best, best_score = None, 0
    for tool, toks in zip(tools, index):
        score = len(wanted & toks)
        if score > best_score:
            best, best_score = tool, score
    return tool_name(best) if best is not None else None


# --------------------------------------------------------------------------- mutations

@attrs.frozen
class Mutation:
    """One declared edit: ``kind`` in :data:`MUTATION_KINDS`; ``chars`` for truncate, ``word`` for drop_keyword."""

    tool: str
    kind: str
    chars: Optional[int] = None
    word: Optional[str] = None

    def __attrs_post_init__(self):
        if self.kind not in MUTATION_KINDS:
            raise ValueError(f"unknown mutation kind {self.kind!r}; expected one of {', '.join(MUTATION_KINDS)}")
        if self.kind == "truncate" and (not isinstance(self.chars, int) or isinstance(self.chars, bool)
                                        or self.chars < 0):
            raise ValueError("truncate needs 'chars', a non-negative integer")
        if self.kind == "drop_keyword" and (not isinstance(self.word, str) or not self.word.strip()):
            raise ValueError("drop_keyword needs 'word', a non-empty string")

    @classmethod
    def from_dict(cls, data: Mapping) -> "Mutation":
        return cls(tool=str(data.get("tool", "")), kind=str(data.get("kind", "")), chars=data.get("chars"),
                   word=data.get("word"))

    def to_dict(self) -> dict:
        out: dict = {"tool": self.tool, "kind": self.kind}
        if self.chars is not None:
            out["chars"] = self.chars
        if self.word is not None:
            out["word"] = self.word
        return out


def mutate_tool(tool: Mapping, mutation: Mutation) -> dict:
    """A copy of ``tool`` with its description edited; the input is not changed."""
    out = dict(tool)
    desc = tool_description(tool)
    if mutation.kind == "blank":
        out.pop("description", None)
    elif mutation.kind == "genericize":
        out["description"] = GENERIC_DESCRIPTION
    elif mutation.kind == "truncate":
        out["description"] = desc[: mutation.chars]
    else:
        pattern = r"(?<![\w])" + re.escape(mutation.word.strip()) + r"(?![\w])"
        text = re.sub(pattern, "", desc, flags=re.IGNORECASE)
        out["description"] = re.sub(r"[ \t]{2,}", " ", text).strip()
    return out


# --------------------------------------------------------------------------- figures

def wilson_interval(count: int, nobs: int) -> Optional[tuple[float, float]]:
    """The 95 % Wilson score interval of ``count`` successes in ``nobs``, from
    :func:`.stats.wilson_interval`; None when there were no intents to pick for."""
    if nobs <= 0:
        return None
    from .stats import wilson_interval as wilson

    return wilson(count, nobs)


def tool_cost(tool: Mapping) -> int:
    """Whitespace tokens of a tool's name, description and inputSchema JSON."""
    schema = tool.get("inputSchema", tool.get("input_schema", {}))
    try:
        schema_text = json.dumps(schema, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        schema_text = str(schema)
    return len(tool_name(tool).split()) + len(tool_description(tool).split()) + len(schema_text.split())


@attrs.frozen
class Intent:
    """A request and the tool names that count as a correct pick."""

    query: str
    gold: tuple[str, ...] = attrs.field(converter=tuple)

    @classmethod
    def from_dict(cls, data: Mapping) -> "Intent":
        gold = data.get("gold", ())
        if isinstance(gold, str):
            gold = (gold,)
        return cls(query=str(data.get("query", "")), gold=tuple(str(g) for g in gold))


@attrs.frozen
class Pick:
    query: str
    pick: Optional[str]
    gold: tuple[str, ...]
    correct: bool

    def to_dict(self) -> dict:
        return {"query": self.query, "pick": self.pick, "gold": list(self.gold), "correct": self.correct}


@attrs.frozen
class MutationResult:
    mutation: Mutation
    correct: int
    accuracy: float
    drop: float
    smells_introduced: dict
    tokens_removed: int
    score_before: float
    score_after: float

    def to_dict(self) -> dict:
        return {**self.mutation.to_dict(), "correct": self.correct, "accuracy": self.accuracy, "drop": self.drop,
                "smells_introduced": dict(self.smells_introduced), "tokens_removed": self.tokens_removed,
                "score_before": self.score_before, "score_after": self.score_after}


@attrs.frozen
class BenchReport:
    """The ``tool-bench`` result; ``passed`` is None when no ``min_drop`` gate was asked for."""

    total: int
    correct: int
    accuracy: Optional[float]
    interval: Optional[tuple[float, float]]
    tdqs_mean: Optional[float]
    tdqs_min: Optional[float]
    smells: dict
    smell_total: int
    catalog_tokens: int
    picks: tuple[Pick, ...]
    mutations: tuple[MutationResult, ...]
    max_drop: Optional[float]
    min_drop: Optional[float]
    passed: Optional[bool]

    def to_dict(self) -> dict:
        out: dict[str, Any] = {
            "intents": self.total,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "f1": self.accuracy,
            "ci_low": self.interval[0] if self.interval else None,
            "ci_high": self.interval[1] if self.interval else None,
            "tdqs_mean": self.tdqs_mean,
            "tdqs_min": self.tdqs_min,
            "smells": dict(self.smells),
            "smell_total": self.smell_total,
            "catalog_tokens": self.catalog_tokens,
            "picks": [p.to_dict() for p in self.picks],
            "mutations": [m.to_dict() for m in self.mutations],
            "max_drop": self.max_drop,
        }
        if self.min_drop is not None:
            out["min_drop"] = self.min_drop
            out["passed"] = self.passed
        return {k: v for k, v in out.items() if v is not None or k in ("max_drop",)}


def _correct(intents: Sequence[Intent], tools: Sequence[Mapping], index: Sequence[frozenset]) -> list[Pick]:
    out = []
    for intent in intents:
        pick = select(intent.query, tools, index)
        out.append(Pick(intent.query, pick, intent.gold, pick is not None and pick in intent.gold))
    return out


def run_bench(catalog: Any, intents: Sequence[Any], mutations: Sequence[Any] = (),
              min_drop: Optional[float] = None) -> BenchReport:
    """Select for every intent on the catalog, then on each mutated catalog (one mutation at a time).

    ``intents`` and ``mutations`` may be :class:`Intent` / :class:`Mutation` or their dicts.
    A mutation naming a tool absent from the catalog raises ``ValueError``.
    """
    tools = catalog_tools(catalog)
    intents = [i if isinstance(i, Intent) else Intent.from_dict(i) for i in intents]
    mutations = [m if isinstance(m, Mutation) else Mutation.from_dict(m) for m in mutations]
    positions = {}
    for i, tool in enumerate(tools):
        positions.setdefault(tool_name(tool), i)
    for i, m in enumerate(mutations):
        if m.tool not in positions:
            known = ", ".join(sorted(positions)[:20]) + (", ..." if len(positions) > 20 else "")
            raise ValueError(f"mutations[{i}]: tool {m.tool!r} is not in the catalog (its tools: {known or 'none'})")

    index = [tool_tokens(t) for t in tools]
    picks = _correct(intents, tools, index)
    correct = sum(p.correct for p in picks)
    total = len(intents)
    accuracy = correct / total if total else None
    quality = score_catalog(tools)
    smells = quality.smells
    costs = [tool_cost(t) for t in tools]

    results = []
    for m in mutations:
        pos = positions[m.tool]
        before = quality.tools[pos]
        mutated = mutate_tool(tools[pos], m)
        m_tools = list(tools)
        m_tools[pos] = mutated
        m_index = list(index)
        m_index[pos] = tool_tokens(mutated)
        m_correct = sum(p.correct for p in _correct(intents, m_tools, m_index))
        m_acc = m_correct / total if total else 0.0
        after = score_tool(mutated)
        old_smells, new_smells = smell_counts(before.findings), smell_counts(after.findings)
        introduced = {k: new_smells[k] - old_smells[k] for k in new_smells if new_smells[k] > old_smells[k]}
        results.append(MutationResult(
            mutation=m,
            correct=m_correct,
            accuracy=m_acc,
            drop=(correct - m_correct) / total if total else 0.0,
            smells_introduced=introduced,
            tokens_removed=costs[pos] - tool_cost(mutated),
            score_before=before.score,
            score_after=after.score,
        ))

    max_drop = max((r.drop for r in results), default=None)
    passed = None
    if min_drop is not None:
        passed = max_drop is not None and max_drop >= min_drop
    return BenchReport(
        total=total,
        correct=correct,
        accuracy=accuracy,
        interval=wilson_interval(correct, total),
        tdqs_mean=quality.mean_score,
        tdqs_min=quality.min_score,
        smells=smells,
        smell_total=sum(smells.values()),
        catalog_tokens=sum(costs),
        picks=tuple(picks),
        mutations=tuple(results),
        max_drop=max_drop,
        min_drop=min_drop,
        passed=passed,
    )
