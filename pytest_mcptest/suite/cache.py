"""Built suites cached beside their files, as Python caches bytecode in ``__pycache__``.

Parsing YAML costs more per item than pytest's own bookkeeping; a suite that has not
changed need not be parsed, validated and built again. The cache entry is keyed by
the suite's real path and a hash of its bytes (times can lie: ``cp -p``, archives),
and by a stamp of the code that built it (this package's sources and schema, PyYAML
and Python), so an edit to either rebuilds it. Like bytecode, nothing is written when ``PYTHONDONTWRITEBYTECODE`` is set
(or ``sys.dont_write_bytecode``), and a cache that cannot be read or written is
simply not used. A cache file is a pickle: trust it as you trust ``__pycache__``.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from functools import lru_cache
from pathlib import Path

import yaml

from ..errors import InputError
from ..files import atomic_write
from .build import load_suite
from .loader import read_text
from .model import Suite

CACHE_FORMAT = 1


@lru_cache(maxsize=1)
def code_stamp() -> str:
    """What built a cached suite: this package's files (names, sizes, times) and Python."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha1(f"{CACHE_FORMAT}:{sys.version}:{yaml.__version__}:{yaml.__with_libyaml__}".encode())
    for path in sorted(package.rglob("*.py")) + sorted((package / "schema").glob("*.json")):
        st = path.stat()
        digest.update(f"{path.relative_to(package)}:{st.st_size}:{st.st_mtime_ns};".encode())
    return digest.hexdigest()


def cache_path(path: str) -> str:
    directory, name = os.path.split(path)
    return os.path.join(directory, "__pycache__", f"{name}.mcptest.pickle")


def load_suite_cached(path: str) -> Suite:
    """:func:`load_suite`, from the cache when the file's bytes and the code are unchanged."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise InputError(path, f"cannot read the file: {exc.strerror or exc}") from None
    key = (os.path.realpath(path), hashlib.sha1(data).hexdigest(), code_stamp())
    where = cache_path(path)
    try:
        with open(where, "rb") as fh:
            if pickle.load(fh) == key:
                return pickle.load(fh)
    except Exception:  # absent, stale, truncated or from other code: rebuild
        pass
    suite = load_suite(path, read_text(path, data))
    if not sys.dont_write_bytecode:
        _store(where, key, suite)
    return suite


def _store(where: str, key: tuple, suite: Suite) -> None:
    """Write the cache entry (its key, then the suite) whole or not at all; a cache that
    cannot be written is simply not used."""
    try:
        atomic_write(where, pickle.dumps(key, protocol=pickle.HIGHEST_PROTOCOL)
                     + pickle.dumps(suite, protocol=pickle.HIGHEST_PROTOCOL))
    except (OSError, pickle.PicklingError):
        pass
