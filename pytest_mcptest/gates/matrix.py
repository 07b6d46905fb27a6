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

import msgspec

from ..suite.doc import Doc
from ..suite.model import slugify
from ..text import plural


def number(value: float) -> str:
    """A figure as few characters as it needs: ``3`` rather than ``3.0``."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def percent(rate: float) -> str:
    """A rate from 0 to 1 as a percentage, in :func:`number`'s style."""
    return f"{number(round(rate * 100, 6))}%"


def pair_line(p: dict) -> str:
    """``selection 9/10 (90%), pass^k 90%, tokens 1520 median / 1840 max, cost $0.012600``:
    the cost-vs-accuracy line, for one (test, model) pair."""
    parts = []
    if "selection_rate" in p:
        parts.append(f"selection {p['selected']}/{p['runs']} ({percent(p['selection_rate'])})")
    else:
        parts.append(f"runs passed {p['passed_runs']}/{p['runs']}")
    parts.append(f"pass^k {percent(p['pass_k'])}")
    parts.append(f"tokens {number(p['tokens_median'])} median / {number(p['tokens_max'])} max"
                 if "tokens_median" in p else "tokens not recorded")
    if "cost_micros" in p:
        partial = "" if p["costed_runs"] == p["runs"] else f" ({p['costed_runs']} of {plural(p['runs'], 'run')} priced)"
        parts.append(f"cost ${p['cost_micros'] / 1e6:.6f}{partial}")
    else:
        parts.append("cost not recorded")
    return ", ".join(parts)


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
    return [msgspec.structs.replace(block, name=f"{block.name} [{model}]", model=model,
                                    matrix=block.name, cassette=cassette_for(block.cassette, block.name, model)) for model in models]


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
