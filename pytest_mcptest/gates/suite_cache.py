"""Built suites cached in pytest's own cache folder (``.pytest_cache``), keyed by content.

Parsing YAML costs more per item than pytest's own bookkeeping; a suite that has not
changed need not be parsed, validated and built again. The cache entry is keyed by
the suite's real path and a hash of its bytes (times can lie: ``cp -p``, archives),
and by a stamp of the code that built it (this package's sources and schema, PyYAML
and Python), so an edit to either rebuilds it. The pytest layer hands in the folder
(under ``config.cache``), so the cache is on exactly when pytest's own is: shared by
xdist workers, off under ``-p no:cacheprovider``, and written whether or not Python
writes bytecode (``PYTHONDONTWRITEBYTECODE`` is common in CI images, where every run
would otherwise be a cold one). Entries are written whole (a temporary file renamed
into place), so concurrent writers never leave a torn one; one that cannot be read or
written is simply not used. A cache file is a pickle: trust it as you trust
``.pytest_cache`` and ``__pycache__``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import operator
import os
import pickle
import sys
from functools import lru_cache
from typing import Any, Optional

import msgspec

from ..errors import InputError
from ..suite.model import Block, Suite

CACHE_FORMAT = 8


@lru_cache(maxsize=1)
def code_stamp() -> str:
    """What built a cached suite: this package's files (names, sizes, times) and Python.

    Worked out at every session's start, by ``os.scandir`` (whose entries carry what ``stat``
    says): a ``Path.rglob`` of the package's two hundred files cost a session of one item
    more than the rest of this stamp."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    digest = hashlib.sha1(f"{CACHE_FORMAT}:{sys.version}".encode())
    for name, st in _files(package, ".py") + _files(os.path.join(package, "schema"), ".json", walk=False):
        digest.update(f"{name}:{st.st_size}:{st.st_mtime_ns};".encode())
    # PyYAML by its files (its version, and whether its libyaml extension is there), found
    # rather than imported: a run whose suites are all cached never loads the YAML readers.
    spec = importlib.util.find_spec("yaml")
    if spec is not None and spec.origin:
        for name, st in _files(os.path.dirname(spec.origin), "", walk=False):
            digest.update(f"yaml/{name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return digest.hexdigest()


def _files(folder: str, suffix: str, walk: bool = True, prefix: str = "") -> list:
    """``(relative name, stat)`` of the files under ``folder`` whose names end with ``suffix``
    (below it too, when ``walk``), sorted by name."""
    found = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return found
    for entry in entries:
        name = prefix + entry.name
        if entry.is_dir(follow_symlinks=False):
            if walk:
                found += _files(entry.path, suffix, walk, name + "/")
        elif entry.name.endswith(suffix):
            found.append((name, entry.stat()))
    return sorted(found, key=lambda pair: pair[0])


def cache_path(path: str, directory: str, real: Optional[str] = None) -> str:
    """The entry of the suite at ``path`` in ``directory``: named by a hash of its real path
    (two suites of one name in different folders do not collide) and by its name."""
    real = real or os.path.realpath(path)
    digest = hashlib.sha1(real.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return os.path.join(directory, f"{digest}-{os.path.basename(real)}.pickle")


class CollectedSuite(msgspec.Struct, dict=True):
    """A suite file as collection needs it: each block's head at once, the built blocks on demand.

    A head is a plain :class:`Block` (kind, name, file, line, marks, tags, cassette): all an
    item needs to be collected, selected, reported and to name its cassette. The built blocks
    (their worlds, rules and expectations: many objects a block) are kept as one pickle of
    the whole file (a fraction of their size in memory), built when the file's first item runs and let go when the run moves on to another file
    (:meth:`let_go`, called as pytest tears the file's node down), so that a session of
    10,000 items does not hold 10,000 worlds. Without a cache folder the built blocks are
    kept as built.

    One pickle for the file, not one per block: pickled together, the blocks share what they
    hold alike (the rules a file's scenarios repeat are built once, shared by their value
    whichever reader read the file, see ``Doc.built_once``, and pickled once; each word and
    class once), several times cheaper to pickle and to build again than one pickle per
    block (the figures: ``benchmarks/README.md``, "One pickle per suite file"). A file whose
    items do not run one after another (a random order, or pytest-xdist sending them to a
    worker apart) would be built again at each return: the second time it is built, it is
    kept for the rest of the session (``_builds``). Not frozen: what is built and how often
    are kept here (in its ``__dict__``, outside its fields: not compared or pickled), which is
    a change, said as one.
    """

    path: str
    heads: tuple[Block, ...]
    warnings: tuple[tuple[int, str], ...]
    servers: dict
    data: Optional[bytes] = None  # the pickle of the built blocks, or None: they are in ``built``
    built: Optional[tuple[Block, ...]] = None
    digest: Optional[str] = None  # the SHA-1 of the file's bytes: what its blocks were built from

    def __post_init__(self):
        self._held: Optional[tuple[Block, ...]] = None  # the built blocks, loaded from ``data``
        self._builds = 0  # times the pickle was loaded

    def block(self, index: int) -> Block:
        """The built block at ``index``: from the file's pickle (loaded at the first ask), or
        the one kept."""
        if self.data is None:
            return self.built[index]
        held = self._held
        if held is None:
            held = self._held = pickle.loads(self.data)
            self._builds += 1
        return held[index]

    def let_go(self) -> None:
        """Drop the built blocks (the run has left this file): they are built again if asked
        for, and then kept."""
        if self._builds < 2:
            self._held = None

    def suite(self) -> Suite:
        blocks = self.built if self.data is None else tuple(map(self.block, range(len(self.heads))))
        return Suite(path=self.path, blocks=blocks, servers=self.servers, warnings=self.warnings)

    @classmethod
    def of(cls, suite: Suite, pickled: bool, digest: Optional[str] = None) -> "CollectedSuite":
        """``suite``'s heads, with its blocks pickled or kept as built (``digest``: of the
        file's bytes)."""
        blocks, heads = suite.blocks, tuple(map(head, suite.blocks))
        if not pickled:
            return cls(suite.path, heads, suite.warnings, suite.servers, built=blocks, digest=digest)
        return cls(suite.path, heads, suite.warnings, suite.servers, data=_dumps(blocks), digest=digest)


def head(block: Block) -> Block:
    """What collection needs of a block (see :class:`CollectedSuite`)."""
    return Block(kind=block.kind, name=block.name, file=block.file, line=block.line, marks=block.marks,
                 tags=block.tags, cassette=block.cassette)


def load_suite_cached(path: str, directory: Optional[str] = None) -> Suite:
    """:func:`load_suite`, from the cache in ``directory`` when the file's bytes and the code
    are unchanged; with no ``directory``, no cache is read or written."""
    return collect_suite(path, directory).suite()


def collect_suite(path: str, directory: Optional[str] = None) -> CollectedSuite:
    """The suite at ``path`` as a :class:`CollectedSuite`, from the cache in ``directory`` when
    the file's bytes and the code are unchanged (else built and written there); with no
    ``directory``, built and not cached."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise InputError(path, f"cannot read the file: {exc.strerror or exc}") from None
    known = hashlib.sha1(data).hexdigest()
    if directory is None:
        return CollectedSuite.of(_build(path, data), pickled=False, digest=known)
    real = os.path.realpath(path)
    key = (real, known, code_stamp())
    where = cache_path(path, directory, real)
    cached = load_entry(where, key)
    if cached is not None:
        return cached
    suite = _build(path, data)
    from . import built_in

    if not all(built_in(block.kind) for block in suite.blocks):
        # A plugin's gate built some blocks: its code is not in the stamp, so they are not cached.
        return CollectedSuite.of(suite, pickled=False, digest=known)
    collected = CollectedSuite.of(suite, pickled=True, digest=known)
    store_entry(where, key, collected)
    return collected


def _build(path: str, data: bytes) -> Suite:
    """The suite read from ``data`` and built: the YAML readers and the gates' builders are
    imported here, at the first suite the cache does not hold."""
    from .suite_build import load_suite
    from ..suite.loader import read_text

    return load_suite(path, read_text(path, data))


def _fields_of(obj):
    """The getter of ``obj``'s ``__init__`` fields (see :class:`_Pickler`), made once per class."""
    cls = type(obj)
    fields = _INIT_FIELDS.get(cls)
    if fields is None:
        fields = _INIT_FIELDS[cls] = _init_fields(cls) if hasattr(cls, "__attrs_attrs__") else False
    return fields


def _dumps(obj) -> bytes:
    """``obj`` pickled by :class:`_Pickler`."""
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return out.getvalue()


class _Pickler(pickle.Pickler):
    """Pickles an attrs object as a call of its class on its fields' values (a msgspec Struct,
    as most of a suite's classes are, pickles so by itself).

    Loading then runs the class's generated ``__init__`` rather than attrs' ``__setstate__``
    for slotted classes, which sets each field through a Python-level loop, and works out
    again the fields ``__init__`` does not take (a compiled pattern, which does not pickle).
    Every class a suite holds can be built again from its fields (their checks and converters
    accept what they once produced).
    """

    def reducer_override(self, obj):
        fields = _fields_of(obj)
        return (type(obj), fields(obj)) if fields else NotImplemented


def _init_fields(cls):
    """A function of an attrs object giving the tuple of its ``__init__`` fields' values, in C.
    (Only called for an attrs class, so attrs is loaded already.)"""
    import attrs

    names = [field.name for field in attrs.fields(cls) if field.init]
    if len(names) == 1:
        single = operator.attrgetter(names[0])
        return lambda obj: (single(obj),)
    return operator.attrgetter(*names) if names else lambda obj: ()


_INIT_FIELDS: dict = {}  # class -> its fields getter, or False for a class attrs did not make


def load_entry(where: str, key: Any) -> Any:
    """The value of the cache entry at ``where`` when it was stored under ``key``; None when
    it is absent, stale, truncated or from other code."""
    try:
        with open(where, "rb") as fh:
            if pickle.load(fh) == key:
                return pickle.load(fh)
    except Exception:  # absent, stale, truncated or from other code: not used
        pass
    return None


def store_entry(where: str, key: Any, value: Any) -> None:
    """Write a cache entry (its key, then its value) whole or not at all: to a temporary
    file of this process, renamed into place, so that xdist workers writing the same entry
    at once never leave a torn one. Not synced to disk: an entry a crash damaged fails to
    load or to match its key, and is made again. One that cannot be written is not used."""
    tmp = f"{where}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as fh:
            pickle.dump(key, fh, protocol=pickle.HIGHEST_PROTOCOL)
            _Pickler(fh, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
        os.replace(tmp, where)
    except (OSError, pickle.PicklingError):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
