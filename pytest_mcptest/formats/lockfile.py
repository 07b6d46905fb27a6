"""Lock files on disk: ``mcptest doctor --lock FILE`` and ``lock: FILE`` in a suite.

The data and the comparison are pure (:mod:`.engine.catalog_lock`); this module reads a
lock as every user file is read (a regular file, UTF-8, strict JSON), turns what is wrong
with it into one :class:`~.errors.InputError` naming the file and the JSON pointer, and
writes a new lock atomically.
"""

from __future__ import annotations

import os
from typing import Any

from ..engine.catalog_lock import LockError, build_lock, check_lock, dump_lock
from ..errors import InputError
from .files import atomic_write, read_json


def read_lock(path: str, shown: str) -> dict[str, dict]:
    """The pinned tools of the lock file at ``path``, by name; bad input is an InputError."""
    try:
        data = read_json(path, shown, unique_keys=True)
    except FileNotFoundError:
        raise InputError(shown, "cannot read the lock file: no such file (write it with "
                                "mcptest doctor --lock FILE)") from None
    try:
        return check_lock(data)
    except LockError as exc:
        raise InputError(shown, str(exc), pointer=exc.pointer) from None


def write_lock(path: str, shown: str, catalog: Any) -> int:
    """Pin ``catalog`` in a new lock file at ``path``; how many tools it pins."""
    try:
        lock = build_lock(catalog)
    except LockError as exc:
        raise InputError(shown, f"cannot lock this catalog: {exc}", pointer=exc.pointer) from None
    if os.path.isdir(path):
        raise InputError(shown, "is a directory; name the lock file to write")
    try:
        atomic_write(path, dump_lock(lock))
    except OSError as exc:
        raise InputError(shown, f"cannot write: {exc.strerror}") from None
    return len(lock["tools"])
