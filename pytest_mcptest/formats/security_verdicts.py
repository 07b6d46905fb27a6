"""Security verdicts on disk: a catalog's ``<catalog>.security-verdicts.json`` beside it, or a
cassette's ``meta.security_verdicts``; one reader and one writer for each (the data and its
checks are :mod:`~pytest_mcptest.engine.security_verdicts`). A file that is not one is an
:class:`~pytest_mcptest.errors.InputError` naming it and the JSON pointer; writers merge under
the file's lock and write atomically, so two writers lose nothing.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from ..engine.security_verdicts import Subject, VerdictError, check_entries, dump_verdicts, merged, parse_verdicts
from ..errors import InputError

SUFFIX = ".security-verdicts.json"
CASSETTE_KEY = "security_verdicts"  # under the cassette's meta


def read_verdicts(path: str, shown: str) -> list[dict]:
    """The verdicts in the file at ``path``; none when there is no file. A file that is not
    one is an :class:`InputError` naming it and the JSON pointer."""
    from .files import read_json

    try:
        data = read_json(path, shown, unique_keys=True)
    except FileNotFoundError:
        return []
    try:
        return parse_verdicts(data)
    except VerdictError as exc:
        raise InputError(shown, str(exc), pointer=exc.pointer) from None


def cassette_verdicts(meta: Mapping, shown: str) -> list[dict]:
    """The verdicts a cassette holds under ``meta.security_verdicts``."""
    if not isinstance(meta, Mapping) or meta.get(CASSETTE_KEY) is None:
        return []
    try:
        return check_entries(meta[CASSETTE_KEY], f"/meta/{CASSETTE_KEY}")
    except VerdictError as exc:
        raise InputError(shown, str(exc), pointer=exc.pointer) from None


# --------------------------------------------------------------------------- writing


def save_verdicts(path: str, shown: str, subjects: Sequence[Subject], new: Sequence[Mapping]) -> int:
    """Merge ``new`` verdicts into the file at ``path`` (read again under its lock, so two
    writers lose nothing) and write it atomically; how many verdicts it holds."""
    from .files import atomic_write, locked, output_problem

    problem = output_problem(path)
    if problem:
        raise InputError(shown, problem)
    with locked(path):
        entries = merged(read_verdicts(path, shown), new, subjects)
        try:
            atomic_write(path, dump_verdicts(entries))
        except OSError as exc:
            raise InputError(shown, f"cannot write: {exc.strerror or exc}") from None
    return len(entries)


def save_into_cassette(path: str, shown: str, subjects: Sequence[Subject], new: Sequence[Mapping]) -> int:
    """Merge ``new`` verdicts into the cassette's ``meta.security_verdicts``: the file's own
    JSON is changed there and nowhere else (every run kept as written), and written
    atomically under its lock. Only a cassette v1 (with ``runs``) is written."""
    from .cassette import json_text
    from .files import atomic_write, locked, read_json

    with locked(path):
        data = read_json(path, shown, unique_keys=True)
        if not isinstance(data, dict) or "runs" not in data:
            raise InputError(shown, "only a cassette v1 (with a 'runs' list) can hold verdicts; convert it first "
                             "(mcptest import auto)")
        meta = data.get("meta")
        if meta is not None and not isinstance(meta, dict):
            raise InputError(shown, "meta is not an object", pointer="/meta")
        meta = dict(meta or {})
        meta[CASSETTE_KEY] = merged(cassette_verdicts(meta, shown), new, subjects)
        data["meta"] = meta
        try:
            atomic_write(path, json_text(data))
        except OSError as exc:
            raise InputError(shown, f"cannot write: {exc.strerror or exc}") from None
    return len(meta[CASSETTE_KEY])
