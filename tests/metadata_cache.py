"""What each pytest reads of the installed distributions, parsed once per test process.

Every pytest session reads the metadata of every installed distribution: pluggy loads the
``pytest11`` entry points (``entry_points.txt``), pytest marks those plugins' files for
assertion rewriting (``RECORD``) and its header names them with their versions
(``METADATA``, an e-mail message parser's work). A test process makes hundreds of sessions
(pytester's in-process runs) over the same files (the figures: ``benchmarks/README.md``,
"The project's own test suite, stop 53"). Here ``Distribution.metadata``, ``entry_points``
and ``files`` keep what they parsed per distribution folder, and give it again while the
file it came from is unchanged (same modification time and size); a distribution written or
changed by a test is read anew, and one in a new folder is a new distribution. The distributions found are not cached:
importlib.metadata looks them up on ``sys.path`` as before, at each call.
"""

from __future__ import annotations

import os
from importlib import metadata

_SOURCES = {"metadata": ("METADATA", "PKG-INFO"), "entry_points": ("entry_points.txt",),
            "files": ("RECORD", "installed-files.txt", "SOURCES.txt")}
_KEPT: dict[tuple, object] = {}


def _stamp(folder: str, names: tuple[str, ...]) -> tuple | None:
    """The modification time and size of the files the value is read from (None: not a folder)."""
    stamps = []
    for name in names:
        try:
            found = os.stat(os.path.join(folder, name))
        except FileNotFoundError:
            stamps.append(None)
        except OSError:  # not a folder on disk (a zip file's): read as before
            return None
        else:
            stamps.append((found.st_mtime_ns, found.st_size))
    return tuple(stamps)


def _kept(name: str, plain):
    def read(self):
        folder = getattr(self, "_path", None)
        stamp = _stamp(str(folder), _SOURCES[name]) if folder is not None else None
        if stamp is None:
            return plain(self)
        key = (type(self), str(folder), name, stamp)
        if key not in _KEPT:
            _KEPT[key] = plain(self)
        value = _KEPT[key]
        return list(value) if isinstance(value, list) else value  # ``files``: a list of the caller's own

    read.plain = plain
    return property(read)


def install() -> None:
    """Keep what each distribution's ``metadata``, ``entry_points`` and ``files`` parse (once per process)."""
    for name in _SOURCES:
        current = getattr(metadata.Distribution, name)
        if not hasattr(current.fget, "plain"):
            setattr(metadata.Distribution, name, _kept(name, current.fget))
