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


def read_labels(path: str) -> list[Label]:
    """The records of the labels file at ``path``, each with the judge's verdicts resolved."""
    from ..formats.files import loads_json
    from ..suite.loader import load_documents, read_text

    text = read_text(path)
    if path.endswith((".jsonl", ".ndjson")):
        records = [(loads_json(line, f"{path}:{n}"), n) for n, line in enumerate(text.splitlines(), 1)
                   if line.strip()]
    else:
        docs = load_documents(path, text)
        data = docs[0][0] if docs else None
        if not isinstance(data, list):
            raise InputError(path, "a labels file holds a list of records ({criterion, human, ...})",
                             line=docs[0][1] if docs else None)
        lines = getattr(data, "item_lines", None) or [None] * len(data)
        records = list(zip(data, lines))
    if not records:
        raise InputError(path, "no records: nothing to measure the judge against")
    folder = os.path.dirname(os.path.abspath(path))
    return [_label(record, path, line, folder) for record, line in records]


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
    if "judge" in record:
        said = record["judge"] if isinstance(record["judge"], list) else [record["judge"]]
        if not said:
            raise InputError(path, "judge: an empty list (give one verdict or several)", line=line)
        judged = tuple(_verdict(v, path, line, "judge") for v in said)
    elif "cassette" in record:
        judged = _recorded(record, path, line, folder, criterion)
    else:
        raise InputError(path, "give the judge's verdict: cassette: (its recorded judgments) or judge:", line=line)
    swapped = None
    if "judge_swapped" in record:
        swapped = (judged[0], _verdict(record["judge_swapped"], path, line, "judge_swapped"))
    return Label(f"{path}:{line}" if line else path, criterion, human, judged, swapped)


def _recorded(record: dict, path: str, line: Optional[int], folder: str, criterion: str) -> tuple[bool, ...]:
    """Every verdict the cassette's run recorded on ``criterion``."""
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
    said = [j.get("verdict") for j in judgments if isinstance(j, dict) and j.get("criterion") == criterion]
    if not said:
        from ..suite.doc import near

        known = sorted({j.get("criterion") for j in judgments if isinstance(j, dict)} - {None})
        raise InputError(path, f"run {index} of {name} recorded no verdict on {criterion!r}"
                               f"{near(criterion, known)}", line=line)
    return tuple(_verdict(v, path, line, f"the recorded verdict in {name}") for v in said)
