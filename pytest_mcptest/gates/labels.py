"""People's verdicts on recorded judge criteria (a labels file), and the judge's verdicts they
are held against: what ``mcptest judge agreement`` reads.

A labels file is YAML (a list of records) or JSONL (one record a line). A record names one
criterion of one recorded run and what a person said of it::

    - {cassette: cassettes/refund.json, run: 2, criterion: "offers a refund", human: pass}
    - {criterion: "is polite", human: fail, judge: [pass, fail, pass]}   # judged three times
    - {criterion: "answer A is better", human: pass, judge: pass, judge_swapped: fail}

The judge's verdicts come from the cassette's recorded ``judgments`` for that criterion (every
entry for it: a criterion judged several times on the same input), or from ``judge:`` written
in the record (one verdict or a list). ``judge_swapped:`` is the verdict the judge gave with
the order of what it compared swapped (for the position bias). ``cassette:`` is relative to
the labels file; ``run`` counts from 1 and may be left out when the cassette holds one run.
Every problem is an :class:`~pytest_mcptest.errors.InputError` at the record's line.
"""

from __future__ import annotations

import os
from typing import Any, Optional

import attrs

from ..errors import InputError

VERDICTS = {"pass": True, "fail": False}
_KEYS = {"cassette", "run", "criterion", "human", "judge", "judge_swapped", "note"}


@attrs.frozen
class Label:
    """One criterion of one recorded run: a person's verdict and the judge's."""

    where: str  # file:line of the record
    criterion: str
    human: bool
    judge: tuple[bool, ...]
    swapped: Optional[tuple[bool, bool]]  # (original, swapped order), when both were judged
    # Which judge gave each recorded verdict read (``cassette:`` records): (model, prompt_sha256),
    # None where the judgment does not say (recorded before judges were pinned). Empty for ``judge:``.
    judges: tuple[tuple[Optional[str], Optional[str]], ...] = ()


def read_labels(path: str) -> list[Label]:
    """The records of the labels file at ``path``, each with the judge's verdicts resolved."""
    records = _records(path)
    if not records:
        raise InputError(path, "no records: nothing to measure the judge against")
    folder = os.path.dirname(os.path.abspath(path))
    return [_label(record, path, line, folder) for record, line in records]


def jsonl(path: str) -> bool:
    """Whether a labels file is JSONL (one record a line) rather than YAML."""
    return path.endswith((".jsonl", ".ndjson"))


def _records(path: str) -> list[tuple[Any, Optional[int]]]:
    """The records of a labels file as written, each with its line (an empty file has none)."""
    from ..formats.files import loads_json
    from ..suite.loader import load_documents, read_text

    text = read_text(path)
    if jsonl(path):
        return [(loads_json(line, f"{path}:{n}"), n) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    docs = load_documents(path, text)
    data = docs[0][0] if docs else None
    if data is None and not docs:
        return []
    if not isinstance(data, list):
        raise InputError(path, "a labels file holds a list of records ({criterion, human, ...})",
                         line=docs[0][1] if docs else None)
    lines = getattr(data, "item_lines", None) or [None] * len(data)
    return list(zip(data, lines))


def _verdict(value: Any, path: str, line: Optional[int], key: str) -> bool:
    if value in VERDICTS:
        return VERDICTS[value]
    raise InputError(path, f"{key}: expected pass or fail, found {value!r}", line=line)


def _label(record: Any, path: str, line: Optional[int], folder: str) -> Label:
    if not isinstance(record, dict):
        raise InputError(path, f"a record is a mapping ({{criterion, human, ...}}), found {type(record).__name__}",
                         line=line)
    unknown = sorted(set(record) - _KEYS)
    if unknown:
        raise InputError(path, f"unknown key {unknown[0]!r} (a record takes {', '.join(sorted(_KEYS))})", line=line)
    criterion = record.get("criterion")
    if not isinstance(criterion, str) or not criterion.strip():
        raise InputError(path, "criterion: expected the criterion's text", line=line)
    human = _verdict(record.get("human"), path, line, "human")
    judges: tuple = ()
    if "judge" in record:
        said = record["judge"] if isinstance(record["judge"], list) else [record["judge"]]
        if not said:
            raise InputError(path, "judge: an empty list (give one verdict or several)", line=line)
        judged = tuple(_verdict(v, path, line, "judge") for v in said)
    elif "cassette" in record:
        judged, judges = _recorded(record, path, line, folder, criterion)
    else:
        raise InputError(path, "give the judge's verdict: cassette: (its recorded judgments) or judge:", line=line)
    swapped = None
    if "judge_swapped" in record:
        swapped = (judged[0], _verdict(record["judge_swapped"], path, line, "judge_swapped"))
    return Label(f"{path}:{line}" if line else path, criterion, human, judged, swapped, judges)


def _text(value: Any) -> Optional[str]:
    return value if isinstance(value, str) and value else None


def _recorded(record: dict, path: str, line: Optional[int], folder: str,
              criterion: str) -> tuple[tuple[bool, ...], tuple[tuple[Optional[str], Optional[str]], ...]]:
    """Every verdict the cassette's run recorded on ``criterion``, and which judge gave each
    (its ``model`` and ``prompt_sha256``, None where the judgment does not say)."""
    from ..formats.cassette import load_cassette

    name = record["cassette"]
    if not isinstance(name, str):
        raise InputError(path, f"cassette: expected a path, found {name!r}", line=line)
    full = name if os.path.isabs(name) else os.path.join(folder, name)
    try:
        cassette = load_cassette(full, name)
    except FileNotFoundError:
        raise InputError(path, f"cassette {name}: no such file", line=line) from None
    run = record.get("run")
    if run is None and len(cassette.runs) != 1:
        raise InputError(path, f"run: cassette {name} holds {len(cassette.runs)} runs; say which (from 1)", line=line)
    index = 1 if run is None else run
    if not isinstance(index, int) or isinstance(index, bool) or not 1 <= index <= len(cassette.runs):
        raise InputError(path, f"run: expected a run of {name} (1 to {len(cassette.runs)}), found {run!r}", line=line)
    judgments = cassette.runs[index - 1].judgments
    found = [j for j in judgments if isinstance(j, dict) and j.get("criterion") == criterion]
    said = [j.get("verdict") for j in found]
    if not said:
        from ..suite.doc import near

        known = sorted({j.get("criterion") for j in judgments if isinstance(j, dict)} - {None})
        raise InputError(path, f"run {index} of {name} recorded no verdict on {criterion!r}"
                               f"{near(criterion, known)}", line=line)
    return (tuple(_verdict(v, path, line, f"the recorded verdict in {name}") for v in said),
            tuple((_text(j.get("model")), _text(j.get("prompt_sha256"))) for j in found))


# --------------------------------------------------------------------------- labelling: mcptest judge record-labels


@attrs.frozen
class Pending:
    """One recorded criterion to label: where it is (the cassette's path, the run from 1),
    the judge's verdicts and reasons on it, and what the run asked and answered."""

    cassette: str  # as given
    run: int
    criterion: str
    verdicts: tuple[str, ...]
    reasons: tuple[str, ...]
    asked: str  # the run's first user message ("" when none)
    answer: str  # the run's final answer ("" when none)

    def key(self) -> tuple[str, int, str]:
        return (os.path.realpath(self.cassette), self.run, self.criterion)


def recorded_criteria(path: str) -> list[Pending]:
    """Every criterion a judge decided in the cassette at ``path``, run by run, in recorded order
    (a criterion judged several times in one run is one entry, with all its verdicts)."""
    from ..formats.cassette import load_cassette

    try:
        cassette = load_cassette(path, path)
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    out = []
    for number, run in enumerate(cassette.runs, start=1):
        by_criterion: dict[str, list[dict]] = {}
        for judgment in run.judgments:
            by_criterion.setdefault(judgment["criterion"], []).append(judgment)
        if not by_criterion:
            continue
        users = [t.get("content") for t in run.turns if isinstance(t, dict) and t.get("role") == "user"]
        answers = run.final_responses
        for criterion, found in by_criterion.items():
            out.append(Pending(path, number, criterion, tuple(j["verdict"] for j in found),
                               tuple(str(j.get("reason") or "") for j in found),
                               users[0] if users and isinstance(users[0], str) else "",
                               answers[-1] if answers else ""))
    return out


def labelled(path: str) -> set[tuple[str, int, str]]:
    """The (cassette's real path, run, criterion) of every record already in the labels file at
    ``path`` that points at a recorded run (none when the file does not exist yet)."""
    if not os.path.exists(path):
        return set()
    folder = os.path.dirname(os.path.abspath(path))
    keys = set()
    for record, line in _records(path):
        if not isinstance(record, dict) or not isinstance(record.get("cassette"), str):
            continue
        name = record["cassette"]
        full = name if os.path.isabs(name) else os.path.join(folder, name)
        run = record.get("run", 1)
        if isinstance(run, int) and not isinstance(run, bool) and isinstance(record.get("criterion"), str):
            keys.add((os.path.realpath(full), run, record["criterion"]))
    return keys


def append_label(path: str, pending: Pending, human: str) -> None:
    """Add one record (``human``: pass or fail) at the end of the labels file at ``path``
    (created when missing): a JSON line, or a YAML list entry in flow style. The file is
    written to disk before this returns, so a labelling stopped half-way keeps every answer."""
    import json

    folder = os.path.dirname(os.path.abspath(path))
    cassette = os.path.relpath(os.path.abspath(pending.cassette), folder).replace(os.sep, "/")
    record = {"cassette": cassette, "run": pending.run, "criterion": pending.criterion, "human": human}
    text = json.dumps(record, ensure_ascii=False)
    line = text if jsonl(path) else f"- {text}"
    with open(path, "a+", encoding="utf-8") as out:
        out.seek(0, os.SEEK_END)
        if out.tell():
            out.seek(out.tell() - 1)
            if out.read(1) != "\n":
                out.write("\n")
        out.write(line + "\n")
        out.flush()
        os.fsync(out.fileno())


def check_appendable(path: str) -> None:
    """Refuse (:class:`InputError`) a labels file that answers could not be added to: one that
    cannot be read as labels, or a YAML file whose list is not written one entry a line."""
    if not os.path.exists(path):
        return
    _records(path)
    if jsonl(path):
        return
    from ..suite.loader import read_text

    written = [line for line in read_text(path).splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if written and not written[0].lstrip().startswith("-"):
        raise InputError(path, "the list is written in flow style ([...]); write it one '- ' entry a line, or use a "
                               ".jsonl file, so that labels can be added at its end")
