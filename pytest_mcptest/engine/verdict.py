"""What a block's evaluation says, as plain data: the render, the report and the plugin
read these and nothing else, so none of them needs to know how a verdict was reached.

A gate (``gates/<kind>.py``) turns each recorded run, or all runs together, or a
catalog, into a :class:`GateResult`; :mod:`pytest_mcptest.gates.evaluate` applies the
``expect:`` entries to it and assembles the :class:`Verdict`.

These are frozen msgspec Structs, not attrs classes like the suite's model: every item
makes several (a verdict, a result and a verdict per run, one result per expectation),
and a Struct is built in C, several times faster than a frozen attrs object (0.1 against
0.6 to 1 us). Immutable, compared and hashed by their fields, pickled, as before.
"""

from __future__ import annotations

from typing import Any, Optional

import msgspec

from .basis import item_basis
from .expect import Expectation, ExpectResult


class Failure(msgspec.Struct, frozen=True):
    """Why a block failed: the gate that said so, one line of text, the run (1-based) and
    the suite line of the ``expect:`` entry that failed, when there is one."""

    gate: str
    message: str
    run: Optional[int] = None
    line: Optional[int] = None

    def to_dict(self) -> dict:
        out: dict = {"gate": self.gate, "message": self.message}
        if self.run is not None:
            out["run"] = self.run
        if self.line is not None:
            out["line"] = self.line
        return out


class GateResult(msgspec.Struct, frozen=True):
    """What a gate found, before ``expect:`` is applied: in one run, over all runs of a
    cassette, or in a catalog.

    ``lines`` is the failure text of the gate's own findings (already worded by the gate);
    ``expect`` pairs each expectation to check against ``envelope`` with hints to add when
    it fails (``None``: the block's own ``expect:``, with no hints); ``summary`` holds
    ``(section, payload)`` pairs of plain data for the terminal summary, which the gate
    that emitted them also renders (see ``gates.summary_sections``). A result over all
    runs with ``replaces_runs`` (``stability:``) decides the item alone: a run's own
    failures are still reported, but no longer fail the item.
    """

    envelope: dict
    failures: tuple[Failure, ...] = ()
    lines: tuple[str, ...] = ()
    expect: Optional[tuple[tuple[Expectation, tuple[str, ...]], ...]] = None
    summary: tuple[tuple[str, Any], ...] = ()
    replaces_runs: bool = False  # over all runs: its gates decide instead of "every run must pass"


class RunVerdict(msgspec.Struct, frozen=True):
    """One run (or one catalog) judged: its envelope, every failure, each expect result and
    the gate's failure text."""

    index: int
    envelope: dict
    failures: tuple[Failure, ...]
    expect_results: tuple[ExpectResult, ...]
    lines: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.failures


class AggregateVerdict(msgspec.Struct, frozen=True):
    """The gates judged once over every run of a cassette (selection, floors,
    orchestration, token efficiency, distractors)."""

    envelope: dict
    failures: tuple[Failure, ...]
    expect_results: tuple[ExpectResult, ...] = ()
    runs: int = 0  # how many runs were judged together
    replaces_runs: bool = False  # see GateResult.replaces_runs


class Verdict(msgspec.Struct, frozen=True):
    """The outcome of a block: passed or failed, why, and the envelope for the report.

    ``source`` says what was read, for the failure text's head (``cassette x.json, 2 runs,
    5 calls`` or ``catalog tools.json``); ``problems`` are failures that stopped the block
    before any gate ran (a missing cassette, a server that would not start).
    """

    block: Any
    cassette: Optional[str]
    runs: tuple[RunVerdict, ...] = ()
    problems: tuple[Failure, ...] = ()
    source: str = ""
    aggregate: Optional[AggregateVerdict] = None
    summary: tuple[tuple[str, Any], ...] = ()
    notes: tuple[str, ...] = ()  # what the record mode did or found: first N runs judged, drift
    skipped: Optional[str] = None  # judged nothing on purpose (a dry run): why
    # Whether what was judged is a cassette's recorded runs: only an agent's runs have failure
    # modes (a catalog's or a server build's failures are not a run that went wrong).
    recorded_runs: bool = False
    # What :attr:`basis` is worked out from: (the cassette's meta, the runs judged, the grading's
    # flat keys); None for an item that has no basis (nothing recorded was judged).
    basis_of: Optional[tuple] = None
    infra_errors: int = 0  # recorded runs its infrastructure ended (engine/infra.py): counted, not judged

    @property
    def basis(self) -> Optional[dict]:
        """What the figures depend on besides the agent (``engine/basis.py``): flat keys, for the
        report. Worked out when a report asks (most sessions write none), not with the verdict."""
        return None if self.basis_of is None else item_basis(*self.basis_of)

    @property
    def failures(self) -> tuple[Failure, ...]:
        """What fails the block: the problems, each run's failures, the gates over all runs;
        when those replace the per-run verdict (``stability:``), not the runs' own."""
        if self.aggregate is None:
            return self.problems + tuple(f for r in self.runs for f in r.failures)
        if self.aggregate.replaces_runs:
            return self.problems + self.aggregate.failures
        return self.problems + tuple(f for r in self.runs for f in r.failures) + self.aggregate.failures

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def deferred(self) -> tuple[str, ...]:
        """Criteria no recorded verdict decides, over all runs (labelled by run when several)."""
        out = []
        for run in self.runs:
            for criterion in run.envelope.get("deferred", ()):
                out.append(criterion if len(self.runs) == 1 else f"{self.block.name} #{run.index}: {criterion}")
        return tuple(out)

    @property
    def envelope(self) -> dict:
        """What ``expect:`` read: the run's envelope; with several runs ``{"runs": [...]}``,
        where ``runs[i]`` is exactly what ``expect:`` read for run ``i + 1``; the gates over
        all runs add their keys beside it."""
        extra = self.aggregate.envelope if self.aggregate is not None else {}
        if len(self.runs) == 1:
            return {**self.runs[0].envelope, **extra} if extra else self.runs[0].envelope
        if not self.runs:
            return dict(extra)
        return {"runs": [r.envelope for r in self.runs], **extra}
