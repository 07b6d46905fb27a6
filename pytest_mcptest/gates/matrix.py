"""A model matrix: ``model:`` as a list makes one item per model, ``<name> [<model>]``.

Not a kind of item: agent tests and scenarios expand their block here (each model's item
with its own cassette, ``<slug of name>-<slug of model>.json`` by default) and add, over
all runs, the pair's figures under ``model_matrix`` (selection rate, pass^k, tokens,
cost), which the terminal's ``mcptest: model matrix`` section prints one line per
(test, model) pair and the HTML report shows side by side.
"""

from __future__ import annotations

import os
import statistics
from typing import Any, Optional

import attrs

from ..suite.doc import Doc
from ..suite.model import slugify
from ..report.matrix import pair_line

MATRIX = "model matrix"


def models_of(doc: Doc, parts: list, raw: Any) -> Optional[tuple[str, ...]]:
    """The models of a matrix (``model:`` a list), checked: each once, each its own
    cassette; None when ``model:`` is one model or absent."""
    if not isinstance(raw, list):
        return None
    seen: dict[str, str] = {}
    for i, model in enumerate(raw):
        slug = slugify(model)
        if slug in seen:
            twin = seen[slug]
            same = "is listed twice" if twin == model else f"would share its cassette with {twin!r} (both slug to {slug!r})"
            raise doc.error(parts + [i], f"model {model!r} {same}; each model of a matrix is its own item")
        seen[slug] = model
    return tuple(raw)


def cassette_for(cassette: Optional[str], name: str, model: str) -> str:
    """Each model's cassette: ``cassette:`` with ``-<model slug>`` before its extension, or
    ``<slug of name>-<slug of model>.json`` when none is written."""
    if cassette is None:
        return f"{slugify(name)}-{slugify(model)}.json"
    stem, ext = os.path.splitext(cassette)
    return f"{stem}-{slugify(model)}{ext or '.json'}"


def expand(block: Any, models: tuple[str, ...]) -> list:
    """One block per model: named ``<name> [<model>]``, with that model and its own cassette."""
    return [attrs.evolve(block, name=f"{block.name} [{model}]", model=model, matrix=block.name,
                         cassette=cassette_for(block.cassette, block.name, model)) for model in models]


def pair(block: Any, runs: tuple, verdicts: tuple, floor: Optional[dict] = None) -> dict:
    """The pair's figures over its runs: ``selection_rate``, ``selected`` (with a
    ``tool_selection:`` floor), ``pass_k`` (the floor's, else the share of runs that passed
    their own gates), tokens median and max, and the summed cost (each absent when no run
    recorded it)."""
    out: dict = {"test": block.matrix, "model": block.model, "runs": len(runs),
                 "passed_runs": sum(v.passed for v in verdicts)}
    if floor is not None:
        out.update(selection_rate=floor["selection_rate"], selected=floor["selected"], pass_k=floor["pass_k"])
    else:
        out["pass_k"] = out["passed_runs"] / len(runs) if runs else 0.0
    totals = [r.tokens.total for r in runs if r.tokens is not None and r.tokens.total is not None]
    if totals:
        out.update(tokens_median=statistics.median(totals), tokens_max=max(totals))
    costs = [r.cost_micros for r in runs if r.cost_micros is not None]
    if costs:
        out.update(cost_micros=sum(costs), costed_runs=len(costs))
    return out


def _section(entries: list[tuple[str, Any]]) -> tuple[str, list[str]]:
    """Every matrix item's pair line, grouped by its file and test, models by their item's node
    id: the same order whichever worker ran which item (under xdist items finish in any order)."""
    lines = []
    groups: dict[tuple[str, str], list] = {}
    for nodeid, p in entries:
        groups.setdefault((nodeid.split("::", 1)[0], p["test"]), []).append((nodeid, p))
    for (file, test), pairs in sorted(groups.items()):
        pairs.sort(key=lambda pair: pair[0])
        lines.append(f"{file}::{test}")
        width = max(len(p["model"]) for _, p in pairs) + 2
        lines += [f"    {'[' + p['model'] + ']':<{width}}  {pair_line(p)}" for _, p in pairs]
    return f"mcptest: {MATRIX}", lines


SUMMARY_SECTIONS = {MATRIX: _section}
