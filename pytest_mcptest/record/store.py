"""Putting recorded runs into a cassette file: new, appended, or replacing the old runs.

Both recorders (the proxy and the fixture) end here, so that merging, hashing the
catalog, redaction, checking and the atomic write happen one way. What is written is
read back through the cassette reader first: a recorder never leaves a cassette that
replay would refuse.
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Optional

from ..formats.cassette import Cassette, as_json, json_text, keep_unknown, parse_cassette, write_cassette
from ..engine.trace import Run
from ..errors import InputError
from ..formats.files import locked, read_bytes
from . import modes
from .drift import catalog_sha256
from .redact import Redactor

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


def _read_existing(path: str) -> tuple[Optional[Cassette], Optional[dict]]:
    """The existing cassette, typed, and its JSON as written (for the keys the model has no field for)."""
    try:
        data = read_bytes(path)
    except FileNotFoundError:
        return None, None
    cassette = parse_cassette(path, data)
    if cassette.shape != "v1":
        raise InputError(path, "holds a single run in an older shape (no 'runs'); a recorder adds runs only to "
                               "a cassette v1: move it aside or record with a mode that replaces it")
    return cassette, json.loads(data)


def how_to_write(action: str) -> str:
    """How a record mode's decision (its ``action``, ``record/modes.py``) writes the cassette:
    its runs after the recorded ones (``append``), a new file in place of the old
    (``rewrite``: ``new``), else in place of the recorded runs (``replace``)."""
    return {modes.APPEND: APPEND, modes.REWRITE: NEW}.get(action, REPLACE)


def merge(existing: Optional[Cassette], runs: list[Run], catalog: dict, meta: dict, how: str) -> Cassette:
    """The cassette to write: ``existing`` (or nothing) with ``runs`` added or put in place.

    ``how``: ``new`` ignores ``existing``; ``append`` adds ``runs`` after the recorded
    ones; ``replace`` swaps the recorded runs for ``runs`` and keeps the rest. The
    catalog is updated server by server, ``meta`` key by key, and ``catalog_sha256``
    recomputed over the whole catalog.
    """
    base = existing if how != NEW else None
    merged_meta = dict(base.meta) if base is not None else {}
    merged_meta.update(meta)
    merged_catalog = dict(base.catalog) if base is not None else {}
    merged_catalog.update(catalog)
    if merged_catalog:
        merged_meta["catalog_sha256"] = catalog_sha256(merged_catalog)
    old_runs = base.runs if base is not None and how == APPEND else ()
    return Cassette(runs=old_runs + tuple(runs), meta=merged_meta, catalog=merged_catalog)


def save(path: str, runs: list[Run], catalog: dict, meta: dict, how: str, redactor: Redactor) -> Cassette:
    """Merge, redact, check and write atomically; returns what was written.

    The existing cassette is read again here, at the end, under an advisory lock held
    until the new one is in place (:func:`~pytest_mcptest.formats.files.locked`), so runs that
    other recorders append meanwhile, in this process or another, are kept: eight
    sessions appending at once leave eight runs. Secrets are redacted in the JSON the
    writer makes, and what is left is read back by the reader before it is written.
    """
    with locked(path):
        existing, raw = _read_existing(path) if how != NEW else (None, None)
        if how == FIRST:
            how = APPEND if existing is not None else NEW
        merged = merge(existing, runs, catalog, meta, how)
        written = as_json(merged)
        if raw is not None and how != NEW:
            keep_unknown(raw, written, len(existing.runs) if how == APPEND else 0)
        text = json_text(redactor.value(written))
        cassette = parse_cassette(path, text)
        write_cassette(path, cassette, overwrite=True, text=text)
    return cassette


@contextlib.contextmanager
def reserved(path: str):
    """Hold ``path`` for one recording session that will write it anew: a second session
    aimed at the same file is refused at its start (:class:`BlockingIOError`) instead of
    both recording and one overwriting the other. Appending sessions do not reserve: they
    merge under :func:`save`'s lock."""
    with locked(path, wait=False):
        yield
