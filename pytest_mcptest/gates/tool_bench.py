"""Tool-bench: does each description carry the selection signal? Intents are
matched to tools by their descriptions, then each mutation (a description stripped,
truncated, swapped) must drop selection accuracy by at least ``min_drop``.

``mcptest tool-bench run SPEC`` judges a spec file through this same gate.
Schema part: ``$defs/toolBench``.
"""

from __future__ import annotations

from typing import Optional

import msgspec

from .context import Context
from ..errors import InputError
from ..suite.doc import Doc, common, plain, suite_path
from ..suite.model import Block
from ..text import findings
from ..engine.verdict import Failure, GateResult
from .protocol import Gate
from .sources import Evidence, RecordingUnavailable, catalog_source, display, read_catalog

KIND = "tool_bench"
SECTIONS = ("tool_bench",)


class ToolBenchBlock(Block, frozen=True):
    """A ``tool_bench:`` entry."""

    catalog: object = None  # inline tools/list, or None with catalog_path
    catalog_path: Optional[str] = None
    intents: tuple = ()
    mutations: tuple = ()
    min_drop: Optional[float] = None


def build(doc: Doc, parts, raw: dict) -> ToolBenchBlock:
    from ..engine.toolbench import Intent, Mutation

    checked = {}
    for key, cls in (("intents", Intent), ("mutations", Mutation)):
        for i, entry in enumerate(raw.get(key) or ()):
            try:
                cls.from_dict(entry)
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                raise doc.error(parts + [key, i], f"{key}[{i}]: {exc}") from None
        checked[key] = tuple(plain(raw.get(key) or ()))
    path = raw.get("catalog_path")
    return ToolBenchBlock(catalog=plain(raw.get("catalog")), catalog_path=suite_path(doc, path) if path else None,
                          min_drop=raw.get("min_drop"), **checked, **common(doc, parts, raw, KIND))


def from_spec_file(path: str) -> ToolBenchBlock:
    """The block ``mcptest tool-bench run SPEC`` judges: the spec file read as one
    ``tool_bench:`` entry (its ``name`` defaults to the file's), checked by the same schema
    part and built by the same :func:`build` as an entry of a suite."""
    import os

    from ..suite.loader import LineDict, LineList, load_documents, read_text
    from ..suite.validate import validate_document

    text = read_text(path)
    docs = [d for d in load_documents(path, text) if d[0] is not None]
    if not docs or not isinstance(docs[0][0], LineDict):
        raise InputError(path, "a tool-bench spec is an object with one of catalog: or catalog_path:, "
                         "and intents:, mutations:", line=docs[0][1] if docs else None, source=text)
    raw, first_line = docs[0]
    if "name" not in raw:
        raw["name"] = f"tool-bench {os.path.basename(path)}"
    entries = LineList([raw])
    entries.line, entries.item_lines = raw.line, [raw.line]
    root = LineDict(tool_bench=entries)
    root.line, root.key_lines = raw.line, {"tool_bench": raw.line}
    validate_document(root, path, text, first_line)
    return build(Doc(path, text, root), ["tool_bench", 0], raw)


def open(block: ToolBenchBlock, ctx: Context) -> Evidence:
    if block.catalog_path is None:
        return catalog_source("inline catalog", block.catalog)
    from ..engine.catalog import CatalogError, catalog_tools

    shown = display(block.catalog_path, ctx.root)
    try:
        catalog = read_catalog(block.catalog_path, shown)
        catalog_tools(catalog)  # its shape, checked where the file's name is known
    except InputError as exc:
        raise RecordingUnavailable("catalog", None, exc.render()) from None
    except CatalogError as exc:
        raise RecordingUnavailable("catalog", None, f"{shown}: {exc}") from None
    return catalog_source(shown, catalog)


def judge_run(block: ToolBenchBlock, catalog, number: int, total: int, ctx: Context) -> GateResult:
    from ..engine.toolbench import run_bench

    try:
        bench = run_bench(catalog, block.intents, block.mutations, block.min_drop)
    except ValueError as exc:  # the spec and the catalog disagree: name the spec's block, as the CLI prints only this
        raise RecordingUnavailable("catalog", None, f"{block.file}:{block.line}: {exc}") from None
    failures = ()
    if bench.passed is False and bench.max_drop is None:
        failures = (Failure("min_drop", f"no mutation ran, so there is no selection drop to hold against min_drop "
                            f"{_num(block.min_drop)}; add mutations: to the spec"),)
    elif bench.passed is False:
        failures = (Failure("min_drop", f"the largest selection drop {_num(bench.max_drop)} is below min_drop "
                            f"{_num(block.min_drop)}: the descriptions do not carry the selection signal"),)
    return GateResult(bench.to_dict(), failures, tuple(findings(failures)))


def _num(value) -> str:
    """A drop or a fraction as people read it: three decimals at most (``0.333``, ``0.5``)."""
    return "none" if value is None else f"{round(value, 3):g}"


def _smells(counts: dict) -> str:
    """``underspecified +1, vague +2``, or ``none``."""
    return ", ".join(f"{name} +{n}" for name, n in sorted(counts.items()) if n) or "none"


def summary_lines(envelope: dict) -> list[str]:
    """Selection accuracy and what each mutation did to it, as ``mcptest tool-bench run`` prints it."""
    ci = f" (95% Wilson {envelope['ci_low']:.2f}-{envelope['ci_high']:.2f})" if "ci_low" in envelope else ""
    lines = [f"selection accuracy {envelope['correct']}/{envelope['intents']}{ci}, TDQS mean "
             f"{envelope.get('tdqs_mean')} min {envelope.get('tdqs_min')}, catalog {envelope['catalog_tokens']} "
             f"whitespace tokens"]
    for m in envelope["mutations"]:
        lines.append(f"  {m['tool']} {m['kind']}: drop {_num(m['drop'])}, smells introduced {_smells(m['smells_introduced'])}, "
                     f"tokens removed {m['tokens_removed']}")
    if not envelope["mutations"]:
        lines.append("  no mutation in the spec: selection accuracy only, no drop to measure")
    if envelope.get("min_drop") is not None and envelope.get("max_drop") is None:
        lines.append(f"{'PASS' if envelope.get('passed') else 'FAIL'}: no mutation ran, so no drop to hold "
                     f"against min-drop {_num(envelope['min_drop'])}")
    elif envelope.get("min_drop") is not None:
        verdict = "PASS" if envelope.get("passed") else "FAIL"
        lines.append(f"{verdict}: largest drop {_num(envelope['max_drop'])} against min-drop {_num(envelope['min_drop'])}")
    return lines


GATE = Gate(KIND, build, SECTIONS, open=open, judge_run=judge_run)
