"""Putting recorded runs into a cassette file: new, appended, or replacing the old runs.

Both recorders (the proxy and the fixture) end here, so that merging, hashing the
catalog, redaction, checking and the atomic write happen one way. What is written is
read back through the cassette reader first: a recorder never leaves a cassette that
replay would refuse.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Optional

from ..formats.cassette import Cassette, as_json, json_text, parse_cassette, write_cassette
from ..engine.trace import Run
from ..errors import InputError
from ..formats.files import locked, read_bytes
import pytest_mcptest.record.modes as modes
from .drift import catalog_sha256
from ..redact import Redactor, key_id

NEW, APPEND, REPLACE = "new", "append", "replace"
FIRST = "first"  # new, unless another recorder wrote the cassette meanwhile: then appended to it, nothing lost


def utc_now() -> str:
    """The time of a recording, to the second, in UTC."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def read_existing(path: str) -> Optional[Cassette]:
    """The existing cassette at ``path`` (read by the cassette reader), or ``None``.

    Raises :class:`InputError` when it exists but is not a cassette v1 with ``runs`` (or is
    no regular file: a FIFO or a device holds no runs to add to).
    """
    return _read_existing(path)[0]


def _read_existing(path: str) -> tuple[Optional[Cassette], Optional[dict], str]:
    """The existing cassette, typed, its JSON as written (the keys the model has no field
    for, in their order) and its text (the runs kept byte for byte)."""
    try:
        data = read_bytes(path)
    except FileNotFoundError:
        return None, None, ""
    cassette = parse_cassette(path, data)
    if cassette.shape != "v1":
        raise InputError(path, "holds a single run in an older shape (no 'runs'); a recorder adds runs only to "
                               "a cassette v1: move it aside or record with a mode that replaces it")
    text = bytes(data).decode("utf-8-sig")
    return cassette, json.loads(text), text


def how_to_write(action: str) -> str:
    """How a record mode's decision (its ``action``, ``record/modes.py``) writes the cassette:
    its runs after the recorded ones (``append``), a new file in place of the old
    (``rewrite``: ``new``), else in place of the recorded runs (``replace``)."""
    return {modes.APPEND: APPEND, modes.REWRITE: NEW}.get(action, REPLACE)


def redacted(runs: list[Run], catalog: dict, meta: dict, redactor: Redactor) -> dict:
    """This recording's runs, catalog and meta as JSON, every secret replaced by its
    placeholder; each run that holds one names the key in ``meta.redaction_key_id``."""
    plain = as_json(Cassette(runs=tuple(runs), meta=meta, catalog=catalog))
    out = redactor.value(plain)
    if redactor.key is not None:
        for before, after in zip(plain.get("runs", ()), out.get("runs", ())):
            if before != after:
                after.setdefault("meta", {})["redaction_key_id"] = key_id(redactor.key)
    return out


def merged(raw: Optional[dict], new: dict, catalog: dict, existing: Optional[Cassette]) -> dict:
    """The cassette's JSON: ``raw`` (the existing one, ``None`` for a new file) with ``new``'s
    meta and catalog laid over its own, key by key and server by server, and its runs in
    place of the recorded ones; ``catalog_sha256`` recomputed over the whole catalog (as
    stored, and this recording's as the server gave it)."""
    doc = dict(raw) if raw is not None else {"mcptest_cassette": 1}
    doc["meta"] = {**(doc.get("meta") or {}), **(new.get("meta") or {})}
    doc["catalog"] = {**(doc.get("catalog") or {}), **(new.get("catalog") or {})}
    whole = {**(existing.catalog if existing is not None else {}), **catalog}
    if whole:
        doc["meta"]["catalog_sha256"] = catalog_sha256(whole)
    for key in ("meta", "catalog"):
        if not doc[key]:
            del doc[key]
    doc["runs"] = new.get("runs", [])
    return doc


def save(path: str, runs: list[Run], catalog: dict, meta: dict, how: str, redactor: Redactor) -> Cassette:
    """Merge, redact, check and write atomically; returns what was written.

    Only this recording is redacted: what the cassette already holds was redacted when it
    was written, and the runs kept by ``append`` are written back byte for byte (a new rule
    or key never rewrites an old recording, and a diff shows the new run alone). The
    existing cassette is read again here, at the end, under an advisory lock held until the
    new one is in place (:func:`~pytest_mcptest.formats.files.locked`), so runs that other
    recorders append meanwhile, in this process or another, are kept: eight sessions
    appending at once leave eight runs; an appended cassette drops the runs that ended in an
    infrastructure failure (the new runs record them again). What is written is read back by
    the reader first.
    """
    with locked(path):
        existing, raw, old_text = _read_existing(path) if how != NEW else (None, None, "")
        if how == FIRST:
            how = APPEND if existing is not None else NEW
        if how == NEW:
            existing, raw = None, None
        doc = merged(raw, redacted(runs, catalog, meta, redactor), catalog, existing)
        kept = _run_texts(old_text) if how == APPEND and raw is not None else []
        kept = [run for run in kept if not _broken(run)]  # an infrastructure failure's run: replaced
        text = _with_runs_kept(doc, kept)
        cassette = parse_cassette(path, text)
        write_cassette(path, cassette, overwrite=True, text=text)
    return cassette


def _run_texts(text: str) -> list[str]:
    """The text of each run of a cassette, exactly as it stands in the file."""
    decoder, at = json.JSONDecoder(), _skip(text, 0)
    if text[at:at + 1] != "{":
        return []
    at = _skip(text, at + 1)
    while text[at:at + 1] == '"':
        key, at = decoder.raw_decode(text, at)
        at = _skip(text, _skip(text, at) + 1)  # past the colon
        if key != "runs" or text[at:at + 1] != "[":
            at = _skip(text, decoder.raw_decode(text, at)[1])
            at = _skip(text, at + 1) if text[at:at + 1] == "," else at
            continue
        runs, at = [], _skip(text, at + 1)
        while text[at:at + 1] not in ("]", ""):
            end = decoder.raw_decode(text, at)[1]
            runs.append(text[at:end])
            at = _skip(text, end)
            at = _skip(text, at + 1) if text[at:at + 1] == "," else at
        return runs
    return []


def _broken(run_text: str) -> bool:
    """Whether a kept run ended in an infrastructure failure (``engine/infra.py``): appending
    runs records it again, so it is not kept."""
    if '"infra_error"' not in run_text:
        return False
    meta = json.loads(run_text).get("meta")
    return isinstance(meta, dict) and isinstance(meta.get("infra_error"), dict)


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _with_runs_kept(doc: dict, kept: list[str]) -> str:
    """``doc`` as cassette text, the ``kept`` runs (their text from the file) first in its
    runs, each put in as it stood."""
    if not kept:
        return json_text(doc)
    marks = [f"mcptest-kept-run-{i}-{uuid.uuid4().hex}" for i in range(len(kept))]
    text = json_text({**doc, "runs": [*marks, *doc["runs"]]})
    for mark, run in zip(marks, kept):
        text = text.replace(f'"{mark}"', run, 1)
    return text

