"""Patterns that run in time linear in their input: RE2, for every pattern the security lint runs.

Python's ``re`` backtracks: a pattern such as ``<\\s*/?\\s*(?:important|system)>`` tries every
split of a run of spaces between its two ``\\s*`` from every start position: time quadratic in
a run of blanks, so a hostile server's description could stall ``mcptest doctor`` and every
``tool_quality:`` item (figures in ``benchmarks/README.md``, "The security lint"). RE2
(``google-re2``) compiles a pattern to an automaton and reads each input character a bounded
number of times, whatever the pattern: the time is linear in the text by construction.

RE2 has no look-around and no back-references; the lint's patterns are written without them
(a boundary such as "not after a letter" is a consumed ``(?:^|[^a-z])``). Matching is done
on the lint's folded, lowercased text (``text_fold``), so patterns are case-sensitive and
written in lowercase. The few patterns of the lint that stay on Python's ``re`` are single
character classes with one quantifier (``[A-Za-z0-9+/=_-]{24,}``), which cannot backtrack
more than their minimum length from one start: linear too.
"""

from __future__ import annotations

import re2

_OPTIONS = re2.Options()
_OPTIONS.max_mem = 64 << 20  # the bounded gaps ({0,80}) of the sentence-level patterns unroll
_OPTIONS.log_errors = False


def compile_linear(pattern: str):
    """``pattern`` compiled by RE2 (search, finditer and match as ``re``'s, in linear time).

    A pattern RE2 cannot compile is a bug of the lint, raised at import."""
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as exc:  # pragma: no cover - a programming error, seen at import
        raise ValueError(f"pattern RE2 cannot compile ({exc}): {pattern[:120]}...") from None
