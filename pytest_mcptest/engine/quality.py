"""Tool-description quality scores (TDQS) and the ``tool_quality:`` envelope.

Each tool gets a deterministic score in 0..1, the weighted sum of six heuristics, each
itself in 0..1. The weights sum to 1 and favour what decides whether an agent can pick
the tool at all (the description) over what helps it call the tool well:

=================  ======  ==========================================================
heuristic          weight  how it is scored
=================  ======  ==========================================================
description        0.30    0 when empty or equal to the name (DESC-001/003's "no
                           signal"); 0.25 under 20 chars; else 0.6 at 20 chars rising
                           linearly to 1.0 at 60; then x0.75 without a common verb
                           (DESC-004) and x0.8 with a positional phrase (DESC-005)
parameters         0.20    mean over the top-level properties: 1 when described, else
                           0 if required (DESC-006) or 0.5 if optional; minus 0.25 for
                           an enum/description mismatch (DESC-007, DESC-013), floor 0.
                           1 when there are no properties
conciseness        0.15    1 up to 500 chars, then linearly to 0 at 1500 (DESC-002);
                           x0.5 when an argument's description is longer than the
                           tool's (DESC-008)
return_format      0.15    1 with an outputSchema or a return/output/result word, else 0
annotations        0.10    0 without an annotations object (DESC-012); else 0.5 plus
                           0.125 per hint of the four holding a boolean, minus 0.125 per
                           hint holding anything else (DESC-011), clamped to 0..1
examples           0.10    1 when the schema is trivial or the tool has examples, else
                           0 (DESC-009)
=================  ======  ==========================================================

A tool's score is rounded to 4 decimals; the catalog's mean is taken over the unrounded
scores, then rounded. Rules and scores read the same fields through the same helpers, so
fixing a finding never lowers a score; adding a good description to a tool never does
either (tested as a property).

Smells: every DESC finding maps to exactly one smell category, and a smell's count is
its number of findings (argument rules count once per argument):

=======================  ===================================================
smell                    rules
=======================  ===================================================
underspecified           DESC-001 (too short), DESC-006 (required arg undocumented)
verbose                  DESC-002 (over 500 chars), DESC-008 (arg text longer than tool's)
uninformative            DESC-003 (repeats the name), DESC-004 (no verb)
brittle                  DESC-005 (positional phrases break when the catalog is
                         reordered), DESC-007 and DESC-013 (allowed values live in
                         only one of prose and schema, so the two drift)
missing_examples         DESC-009
missing_return_format    DESC-010
missing_annotations      DESC-012
invalid_annotation       DESC-011
=======================  ===================================================

The envelope (``CatalogQuality.to_dict()``) is what ``tool_quality:``'s ``expect:`` reads:
``min_score``, ``mean_score``, ``tool["<name>"].score``, ``critical_count``,
``warning_count``, ``schema_criticals``, ``schema_warnings``, ``smells.<category>``,
``smell_total``. An empty catalog has no scores: ``min_score`` and ``mean_score`` are
absent (an undefined figure resolves to absent, as everywhere in mcptest). When two tools
share a name, ``tool[name]`` is the first; ``tools`` lists every tool in order.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Optional

import attrs

from .catalog import (
    catalog_tools,
    has_output_schema,
    input_schema,
    prop_description,
    properties,
    required_names,
    tool_description,
    tool_name,
)
from .description_rules import (
    ANNOTATION_HINTS,
    CRITICAL,
    MAX_CHARS,
    MIN_CHARS,
    WARNING,
    Finding,
    has_examples,
    is_non_trivial,
    lint_tool,
)
from .schema_rules import lint_tool_schema

WEIGHTS: dict[str, float] = {
    "description": 0.30,
    "parameters": 0.20,
    "conciseness": 0.15,
    "return_format": 0.15,
    "annotations": 0.10,
    "examples": 0.10,
}

SMELL_OF_RULE: dict[str, str] = {
    "DESC-001": "underspecified",
    "DESC-006": "underspecified",
    "DESC-002": "verbose",
    "DESC-008": "verbose",
    "DESC-003": "uninformative",
    "DESC-004": "uninformative",
    "DESC-005": "brittle",
    "DESC-007": "brittle",
    "DESC-013": "brittle",
    "DESC-009": "missing_examples",
    "DESC-010": "missing_return_format",
    "DESC-012": "missing_annotations",
    "DESC-011": "invalid_annotation",
}
SMELLS = ("underspecified", "verbose", "uninformative", "brittle", "missing_examples", "missing_return_format",
          "missing_annotations", "invalid_annotation")

#: What ``tool_quality:`` checks when ``expect:`` is omitted, as ``expect:`` entries.
DEFAULT_GATES: tuple[dict, ...] = (
    {"target": "min_score", "matcher": {"schema": {"minimum": 0.50}}},
    {"target": "mean_score", "matcher": {"schema": {"minimum": 0.70}}},
    {"target": "critical_count", "matcher": {"schema": {"maximum": 0}}},
)

FULL_CHARS = 60
ZERO_CHARS = 1500


def _clamp(x: float) -> float:
    return 0.0 if x < 0 else 1.0 if x > 1 else x


def smell_counts(findings) -> dict[str, int]:
    """Findings grouped into the eight smell categories (every category present)."""
    counts = dict.fromkeys(SMELLS, 0)
    for f in findings:
        smell = SMELL_OF_RULE.get(f.rule)
        if smell:
            counts[smell] += 1
    return counts


@attrs.frozen
class ToolQuality:
    """One tool's score, its six components, and its DESC and SCH findings."""

    name: str
    score: float
    components: dict
    findings: tuple[Finding, ...]
    schema_findings: tuple[Finding, ...]

    def count(self, severity: str, schema: bool = False) -> int:
        return sum(1 for f in (self.schema_findings if schema else self.findings) if f.severity == severity)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "score": self.score,
            "components": dict(self.components),
            "critical_count": self.count(CRITICAL),
            "warning_count": self.count(WARNING),
            "findings": [f.to_dict() for f in self.findings],
            "schema_findings": [f.to_dict() for f in self.schema_findings],
        }


def _fired(findings, rule: str, argument: Optional[str] = None) -> bool:
    return any(f.rule == rule and (argument is None or f.argument == argument) for f in findings)


def score_components(tool: Mapping, findings: Optional[tuple] = None) -> dict[str, float]:
    """The six heuristics of one tool, each in 0..1 (see the module docstring).

    ``findings`` are the tool's DESC findings when already computed (saves a re-lint).
    """
    if findings is None:
        findings = lint_tool(tool)
    desc = tool_description(tool).strip()
    n = len(desc)
    schema = input_schema(tool)
    props = properties(schema)
    required = set(required_names(schema))

    if n == 0 or _fired(findings, "DESC-003"):
        description = 0.0
    elif n < MIN_CHARS:
        description = 0.25
    else:
        description = min(1.0, 0.6 + 0.4 * (n - MIN_CHARS) / (FULL_CHARS - MIN_CHARS))
    if n and _fired(findings, "DESC-004"):
        description *= 0.75
    if _fired(findings, "DESC-005"):
        description *= 0.8

    if props:
        parts = []
        for arg, prop in props.items():
            part = 1.0 if prop_description(prop) else (0.0 if arg in required else 0.5)
            if _fired(findings, "DESC-007", arg) or _fired(findings, "DESC-013", arg):
                part -= 0.25
            parts.append(max(0.0, part))
        parameters = math.fsum(parts) / len(parts)
    else:
        parameters = 1.0

    conciseness = 1.0 if n <= MAX_CHARS else _clamp(1.0 - (n - MAX_CHARS) / (ZERO_CHARS - MAX_CHARS))
    if _fired(findings, "DESC-008"):
        conciseness *= 0.5

    return_format = 1.0 if has_output_schema(tool) or (n and not _fired(findings, "DESC-010")) else 0.0

    annotations = tool.get("annotations")
    if isinstance(annotations, dict):
        good = sum(1 for h in ANNOTATION_HINTS if isinstance(annotations.get(h), bool))
        bad = sum(1 for h in ANNOTATION_HINTS if h in annotations and not isinstance(annotations[h], bool))
        annotation_score = _clamp(0.5 + 0.125 * good - 0.125 * bad)
    else:
        annotation_score = 0.0

    examples = 1.0 if not is_non_trivial(schema) or has_examples(tool) else 0.0
    return {
        "description": description,
        "parameters": parameters,
        "conciseness": conciseness,
        "return_format": return_format,
        "annotations": annotation_score,
        "examples": examples,
    }


def score_tool(tool: Mapping) -> ToolQuality:
    """One tool's TDQS score (0..1), its components and its DESC and SCH findings."""
    findings = lint_tool(tool)
    components = score_components(tool, findings)
    total = math.fsum(WEIGHTS[k] * v for k, v in components.items())
    return ToolQuality(
        name=tool_name(tool),
        score=round(_clamp(total), 4),
        components={k: round(v, 4) for k, v in components.items()},
        findings=findings,
        schema_findings=lint_tool_schema(tool),
    )


@attrs.frozen
class CatalogQuality:
    """The ``tool_quality:`` result over a whole catalog."""

    tools: tuple[ToolQuality, ...]

    @property
    def scores(self) -> list[float]:
        return [t.score for t in self.tools]

    @property
    def min_score(self) -> Optional[float]:
        return min(self.scores) if self.tools else None

    @property
    def mean_score(self) -> Optional[float]:
        return round(math.fsum(self.scores) / len(self.tools), 4) if self.tools else None

    @property
    def findings(self) -> list[Finding]:
        return [f for t in self.tools for f in t.findings]

    @property
    def schema_findings(self) -> list[Finding]:
        return [f for t in self.tools for f in t.schema_findings]

    @property
    def critical_count(self) -> int:
        return sum(t.count(CRITICAL) for t in self.tools)

    @property
    def warning_count(self) -> int:
        return sum(t.count(WARNING) for t in self.tools)

    @property
    def smells(self) -> dict[str, int]:
        return smell_counts(self.findings)

    def rule_counts(self) -> dict[str, int]:
        """How many findings each fired rule produced (DESC and SCH), sorted by rule id."""
        counts: dict[str, int] = {}
        for f in self.findings + self.schema_findings:
            if f.severity != "Pass":
                counts[f.rule] = counts.get(f.rule, 0) + 1
        return dict(sorted(counts.items()))

    def to_dict(self) -> dict:
        smells = self.smells
        by_name: dict[str, dict] = {}
        for t in self.tools:
            by_name.setdefault(t.name, {"score": t.score})
        out: dict[str, Any] = {
            "tool_count": len(self.tools),
            "critical_count": self.critical_count,
            "warning_count": self.warning_count,
            "schema_criticals": sum(t.count(CRITICAL, schema=True) for t in self.tools),
            "schema_warnings": sum(t.count(WARNING, schema=True) for t in self.tools),
            "smells": smells,
            "smell_total": sum(smells.values()),
            "rules": self.rule_counts(),
            "tool": by_name,
            "tools": [t.to_dict() for t in self.tools],
        }
        if self.tools:
            out["min_score"] = self.min_score
            out["mean_score"] = self.mean_score
        return out


def score_catalog(catalog: Any) -> CatalogQuality:
    """Score every tool of a ``{"tools": [...]}`` object or a bare list (see :func:`score_tool`)."""
    return CatalogQuality(tools=tuple(score_tool(t) for t in catalog_tools(catalog)))
