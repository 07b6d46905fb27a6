"""Parses of files kept between sessions, by content: what a reader made of a file's bytes,
stored in a form it decodes faster than the file's own.

A cassette is JSON, indented for people to read and diff; decoding it is most of what
opening one costs, and the same record decodes faster from MessagePack, the more so the
larger the file (``benchmarks/README.md``, "Decoded cassettes kept"). A session whose
verdicts cannot be reused (the suite file was edited, an option changed) still replays
cassettes that did not change, so the reader keeps what it decoded, under the hash of the
bytes it decoded it from; only for a large file, as making an entry costs a file's creation
(the reader's ``KEPT_FROM``).

One file per source file, named by a checksum of its absolute path and by its name (so the
folder holds at most one entry per file, however often it changes), starting with a header
line: the stamp of the code that decoded it and the source's digest. An entry is used only
when both match the code and the file as it is read now: the source is still read and hashed
every time, so no change to it is ever missed, whatever its times say. (Two paths whose names
collide only share an entry, each rewriting it for its own bytes: the header decides what an
entry is for, never its name.) An entry that cannot be read, is torn or is from other code
is simply not used (the file is decoded again and the entry rewritten); entries are written
whole (a temporary file renamed into place), so processes sharing the folder (pytest-xdist's
workers) never read a torn one. The folder is the caller's (the plugin hands in one of
pytest's cache, ``.pytest_cache``): trust it as that.

Nothing here knows what is kept: the reader encodes and decodes its own records.
"""

from __future__ import annotations

import contextlib
import os
import zlib
from typing import Optional

from ..errors import InputError
from .files import read_or_map


def _entry(folder: str, path: str) -> str:
    checksum = zlib.crc32(path.encode("utf-8", "surrogatepass"))
    return os.path.join(folder, f"{checksum:08x}-{os.path.basename(path)}.kept")


def _header(stamp: str, known: str) -> bytes:
    return f"mcptest kept parse {stamp} {known}\n".encode("ascii")


def kept(folder: str, path: str, stamp: str, known: str) -> Optional[memoryview]:
    """The payload kept for the file at ``path`` (absolute) whose bytes hash to ``known``,
    decoded by code of ``stamp``; None when there is none that matches."""
    try:
        data = read_or_map(_entry(folder, path), noted=False)  # mcptest's own file: not a read a verdict depends on
    except (OSError, InputError):  # absent, unreadable, or not a regular file: not used
        return None
    header = _header(stamp, known)
    if not data.startswith(header):
        return None
    return memoryview(data)[len(header):]


def keep(folder: str, path: str, stamp: str, known: str, payload: bytes) -> None:
    """Keep ``payload`` for the file at ``path`` whose bytes hash to ``known`` (written whole
    or not at all; a folder that cannot be written to keeps nothing)."""
    where = _entry(folder, path)
    tmp = f"{where}.tmp-{os.getpid()}"
    try:
        os.makedirs(folder, exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(_header(stamp, known))
            fh.write(payload)
        os.replace(tmp, where)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
