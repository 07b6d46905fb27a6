"""``judge_calibration:``: a replayed verdict counts only when it came from the judge people checked.

A suite names a labels file (people's verdicts on recorded criteria: ``gates/labels.py``) and
floors on how well the judge agreed with them::

    judge_calibration:
      labels: labels.yml
      kappa: {">=": 0.6}
      agreement: {">=": 0.8}

at the top of a suite (every judged item of the document), or as ``config.judge.calibration``
of a conversation or a scenario (that item; a string is the labels file with no floor). The
calibrated judge is the one whose recorded judgments the labels point at: its ``model`` (the
id the API answered with) and ``prompt_sha256`` (its instructions, ``live/judge.py``). An item
whose verdicts come from a judge (a conversation's criteria, ``claims:`` with ``judge:``, a
scenario's ``rubric:``) then fails, in one line saying which judge recorded, which was
calibrated and the figures against their floors, when:

- its verdicts were recorded by another judge (another model, or the same model asked with
  other instructions);
- its verdicts, or the labelled ones, do not say which judge gave them (recorded before
  judgments carried ``prompt_sha256``): unknown is said, never passed;
- the calibration misses a floor (``kappa``, ``kappa_low``: the lower end of its 95% interval,
  ``agreement``, ``n``: how many labels, ``flip_rate``).

An item whose criteria no judge decided (all deferred) is not judged by this gate: it has no
verdict to trust. The labels file is read once per process (again when it changes).
"""

from __future__ import annotations

import os
from typing import Any, Optional

import attrs

from ..engine.expect import Expectation, ExpectSyntaxError, check, compile_expectation
from ..engine.verdict import AggregateVerdict, Failure
from ..errors import InputError
from ..text import plural

GATE = "judge_calibration"
FLOORS = ("kappa", "kappa_low", "agreement", "n", "flip_rate")
SHOWN = 12  # hex digits of a prompt hash shown in failure text


@attrs.frozen
class Calibration:
    """A labels file and the floors its figures must meet."""

    labels: str  # the file, absolute
    shown: str  # as the suite wrote it
    floors: tuple[Expectation, ...] = ()
    line: Optional[int] = None  # where the suite says it

    def describe(self) -> dict:
        """What the report's basis pins of it: the file as written and each floor."""
        return {"labels": self.shown, **{f.target: f"{f.kind} {f.value}" for f in self.floors}}


def build(doc, parts: list, raw: Any) -> Optional[Calibration]:
    """``raw`` (a labels file, or ``{labels, <floor>: <matcher>...}``, validated by the schema) at
    ``parts`` of the document ``doc``; a floor that is not a matcher is an error at its line."""
    from ..suite.doc import suite_path

    if raw is None:
        return None
    if isinstance(raw, str):
        return Calibration(suite_path(doc, raw), raw, (), doc.line(parts))
    floors = []
    for key in FLOORS:
        if key in raw:
            try:
                floors.append(compile_expectation({key: dict(raw[key])}, line=doc.line(parts + [key])))
            except ExpectSyntaxError as exc:
                raise doc.error(parts + [key], f"{key}: {exc}") from None
    return Calibration(suite_path(doc, raw["labels"]), raw["labels"], tuple(floors), doc.line(parts))


def for_block(doc, parts: list, judge: Any) -> Optional[Calibration]:
    """A judged block's calibration: its own ``config.judge.calibration`` (``judge`` is the
    block's ``config.judge`` at ``parts``), else its document's ``judge_calibration:``."""
    if isinstance(judge, dict) and judge.get("calibration") is not None:
        return build(doc, parts + ["calibration"], judge["calibration"])
    root = doc.root
    if isinstance(root, dict) and root.get("judge_calibration") is not None and "synthetic_user" not in root:
        return doc.built_once(build, ["judge_calibration"], root["judge_calibration"])
    return None


# --------------------------------------------------------------------------- what the labels say


@attrs.frozen
class Calibrated:
    """What a labels file says of its judge: which judge it is (``judge``: model and prompt
    hash), or why that cannot be told (``problem``), and the figures (``figures``)."""

    judge: Optional[tuple[str, str]]
    figures: dict
    problem: Optional[str] = None


_READ: dict[str, tuple[tuple, Calibrated]] = {}


def calibrated(path: str, shown: str) -> Calibrated:
    """The labels file at ``path`` read and measured (once per process while it is unchanged)."""
    try:
        st = os.stat(path)
    except OSError:
        return Calibrated(None, {}, f"the labels file {shown} cannot be read (no such file)")
    stamp = (st.st_mtime_ns, st.st_size)
    hit = _READ.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    found = _measure(path, shown)
    _READ[path] = (stamp, found)
    return found


def _measure(path: str, shown: str) -> Calibrated:
    from ..engine.agreement import agreement
    from .labels import read_labels

    try:
        labels = read_labels(path)
    except InputError as exc:
        return Calibrated(None, {}, f"the labels file cannot be read: {exc.render().splitlines()[0]}")
    figures = agreement([x.human for x in labels], [x.judge for x in labels], [x.swapped for x in labels]).to_dict()
    figures["kappa_low"] = figures["kappa_ci"][0] if figures["kappa_ci"] else None
    judges = sorted({j for x in labels for j in x.judges}, key=lambda j: (j[0] or "", j[1] or ""))
    if not judges:
        return Calibrated(None, figures, f"the labels in {shown} point at no recorded judgment (every record "
                                         f"gives judge: inline), so which judge they calibrate is unknown")
    if any(model is None or digest is None for model, digest in judges):
        return Calibrated(None, figures, f"the judgments the labels in {shown} point at do not say which judge "
                                         f"gave them (no model or prompt_sha256: recorded before judges were "
                                         f"pinned), so which judge they calibrate is unknown")
    if len(judges) > 1:
        return Calibrated(None, figures, f"the labels in {shown} point at {len(judges)} judges "
                                         f"({', '.join(judge_text(j) for j in judges)}); calibrate one judge per "
                                         f"labels file")
    return Calibrated(judges[0], figures)


# --------------------------------------------------------------------------- judging an item


def judge_text(judge: tuple[Optional[str], Optional[str]]) -> str:
    """``gpt-4o-2024-08-06 (prompt 3f9a1c2e5b7d)``, or what is unknown of it."""
    model, digest = judge
    return f"{model or 'an unnamed model'} ({'prompt ' + digest[:SHOWN] if digest else 'no prompt_sha256'})"


def _runs_text(runs: list[int], total: int) -> str:
    if len(runs) == total:
        return "every run" if total > 1 else "the run"
    if len(runs) > 1 and runs == list(range(runs[0], runs[-1] + 1)):
        return f"runs {runs[0]}-{runs[-1]}"
    return f"run{'s' if len(runs) > 1 else ''} {', '.join(map(str, runs))}"


def _figure(key: str, value: Any) -> str:
    if value is None:
        return f"{key} undefined"
    if key in ("agreement", "flip_rate"):
        return f"{key} {100 * value:.1f}%"
    return f"{key} {value:.3f}" if isinstance(value, float) else f"{key} {value}"


def recorded_judges(runs: tuple, criteria: tuple[str, ...]) -> dict[tuple, list[int]]:
    """Which judge (model, prompt hash) gave the verdicts on ``criteria``, and in which runs."""
    wanted = set(criteria)
    found: dict[tuple, list[int]] = {}
    for number, run in enumerate(runs, start=1):
        for j in run.judgments:
            if j.get("criterion") in wanted:
                model, digest = j.get("model"), j.get("prompt_sha256")
                key = (model if isinstance(model, str) and model else None,
                       digest if isinstance(digest, str) and digest else None)
                seen = found.setdefault(key, [])
                if not seen or seen[-1] != number:
                    seen.append(number)
    return found


def judge_calibration(spec: Calibration, runs: tuple, criteria: tuple[str, ...]) -> Optional[tuple[dict, tuple]]:
    """(envelope, failures) of an item whose ``runs`` were judged on ``criteria``; None when
    no recorded verdict decided any of them (nothing came from a judge)."""
    recorded = recorded_judges(runs, criteria)
    if not recorded:
        return None
    said = calibrated(spec.labels, spec.shown)
    figures = said.figures
    floors = [(f, check(f, figures)) for f in spec.floors]
    problems = []
    if said.problem is not None:
        problems.append(f"cannot tell whether the verdicts' judge was calibrated: {said.problem}")
    unknown = [runs_ for judge, runs_ in recorded.items() if None in judge]
    if unknown:
        numbers = sorted(n for r in unknown for n in r)
        problems.append(f"the verdicts of {_runs_text(numbers, len(runs))} do not say which judge gave them (no "
                        f"model or prompt_sha256: recorded before judges were pinned; record them again)")
    if said.judge is not None and any(judge != said.judge for judge in recorded if None not in judge):
        problems.append("the verdicts come from another judge than the calibrated one")
    missed = [f for f, result in floors if not result.passed]
    if missed and figures:
        problems.append("the calibration misses its floor")
    by = "; ".join(f"{judge_text(judge)} in {_runs_text(numbers, len(runs))}"
                   for judge, numbers in sorted(recorded.items(), key=lambda item: item[1][0]))
    shown = [_figure(f.target, figures.get(f.target)) + f" (floor {f.kind} {f.value}: "
             f"{'held' if result.passed else 'missed'})" for f, result in floors]
    if not floors and figures:
        shown = [_figure("kappa", figures.get("kappa")), _figure("agreement", figures.get("agreement")) + " (no floor)"]
    count = f", {plural(figures['n'], 'label')}" if figures else ""
    cal = judge_text(said.judge) if said.judge is not None else "unknown"
    line = (f"recorded by {by}; calibrated: {cal} ({spec.shown}{count})" + (f"; {', '.join(shown)}" if shown else ""))
    envelope = {
        "labels": spec.shown,
        "calibrated": None if said.judge is None else {"model": said.judge[0], "prompt_sha256": said.judge[1]},
        "recorded": [{"model": m, "prompt_sha256": d, "runs": numbers} for (m, d), numbers in
                     sorted(recorded.items(), key=lambda item: item[1][0])],
        **{k: figures.get(k) for k in ("n", "agreement", "kappa", "kappa_ci", "kappa_low", "flip_rate")},
        "floors": {f.target: {f.kind: f.value} for f in spec.floors},
        "passed": not problems,
    }
    failures = (Failure(GATE, f"{'; and '.join(problems)}: {line}", None, spec.line),) if problems else ()
    return envelope, failures


def fold(aggregate: Optional[AggregateVerdict], envelope: dict, failures: tuple, runs: int) -> AggregateVerdict:
    """``aggregate`` (the gates over all runs, or None) with the calibration's envelope and failures added."""
    import msgspec

    if aggregate is None:
        return AggregateVerdict({GATE: envelope}, failures, (), runs)
    return msgspec.structs.replace(aggregate, envelope={**aggregate.envelope, GATE: envelope},
                                   failures=aggregate.failures + failures)
