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
from pathlib import Path
from typing import Optional

import attrs

from ..errors import InputError
from .model import Block, Suite

CACHE_FORMAT = 6


@lru_cache(maxsize=1)
def code_stamp() -> str:
    """What built a cached suite: this package's files (names, sizes, times) and Python."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha1(f"{CACHE_FORMAT}:{sys.version}".encode())
    for path in sorted(package.rglob("*.py")) + sorted((package / "schema").glob("*.json")):
        st = path.stat()
        digest.update(f"{path.relative_to(package)}:{st.st_size}:{st.st_mtime_ns};".encode())
    # PyYAML by its files (its version, and whether its libyaml extension is there), found
    # rather than imported: a run whose suites are all cached never loads the YAML readers.
    spec = importlib.util.find_spec("yaml")
    folder = Path(spec.origin).parent if spec is not None and spec.origin else None
    for path in sorted(folder.iterdir()) if folder is not None else ():
        st = path.stat()
        digest.update(f"yaml/{path.name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return digest.hexdigest()


def cache_path(path: str, directory: str, real: Optional[str] = None) -> str:
    """The entry of the suite at ``path`` in ``directory``: named by a hash of its real path
    (two suites of one name in different folders do not collide) and by its name."""
    real = real or os.path.realpath(path)
    digest = hashlib.sha1(real.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return os.path.join(directory, f"{digest}-{os.path.basename(real)}.pickle")


@attrs.define
class CollectedSuite:
    """A suite file as collection needs it: each block's head at once, the built block on demand.

    A head is a plain :class:`Block` (kind, name, file, line, marks, tags, cassette): all an
    item needs to be collected, selected, reported and to name its cassette. The built block
    (its world, rules and expectations: about 7 kB and a hundred objects for a 40-line
    scenario) is kept as its pickle (about 1 kB) and built again for the moment its item runs,
    so that a session of 10,000 items does not hold 10,000 worlds. Without a cache folder the
    built blocks are kept as built. Not frozen: the shared rule lists are built at the first
    block asked for and kept (``_table``), which is a change, said as one.

    Rule lists that several blocks of the file hold alike (the same transitions and
    forbidden rules, written once per scenario or through a YAML anchor) are pickled once,
    in ``shared``, built at the first block asked for and then held by every block built
    from the file: a block's own pickle refers to them. A realistic scenario whose world's
    rules repeat in its file builds in 20 us instead of 34 (43 instead of 56 inside a
    session), from 825 bytes instead of 1,240. Finding them costs the cold path about 8 us
    a scenario when the rules were copied word for word (the build made one list for all
    copies), about 20 when they came through an anchor (each copy pickled to compare).
    """

    path: str
    heads: tuple[Block, ...]
    warnings: tuple[tuple[int, str], ...]
    servers: dict
    pickles: Optional[tuple[bytes, ...]] = None
    built: Optional[tuple[Block, ...]] = None
    shared: bytes = b""  # the pickle of the rule lists several blocks hold alike (see _shared_parts)
    _table: Optional[tuple] = attrs.field(default=None, init=False, eq=False, repr=False)  # shared, built

    def block(self, index: int) -> Block:
        """The built block at ``index``: a new one from its pickle, or the one kept."""
        if self.pickles is None:
            return self.built[index]
        if not self.shared:
            return pickle.loads(self.pickles[index])
        table = self._table
        if table is None:
            table = self._table = pickle.loads(self.shared)
        unpickler = pickle.Unpickler(io.BytesIO(self.pickles[index]))
        unpickler.persistent_load = table.__getitem__
        return unpickler.load()

    def suite(self) -> Suite:
        blocks = self.built if self.pickles is None else tuple(map(self.block, range(len(self.pickles))))
        return Suite(path=self.path, blocks=blocks, servers=self.servers, warnings=self.warnings)

    @classmethod
    def of(cls, suite: Suite, pickled: bool) -> "CollectedSuite":
        """``suite``'s heads, with its blocks pickled or kept as built."""
        blocks, heads = suite.blocks, tuple(map(head, suite.blocks))
        if not pickled:
            return cls(suite.path, heads, suite.warnings, suite.servers, built=blocks)
        table, ids = _shared_parts(blocks)
        return cls(suite.path, heads, suite.warnings, suite.servers,
                   pickles=tuple(_dumps(block, ids) for block in blocks), shared=_dumps(table) if table else b"")


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
    if directory is None:
        return CollectedSuite.of(_build(path, data), pickled=False)
    real = os.path.realpath(path)
    key = (real, hashlib.sha1(data).hexdigest(), code_stamp())
    where = cache_path(path, directory, real)
    try:
        with open(where, "rb") as fh:
            if pickle.load(fh) == key:
                return pickle.load(fh)
    except Exception:  # absent, stale, truncated or from other code: rebuild
        pass
    suite = _build(path, data)
    from ..gates import built_in

    if not all(built_in(block.kind) for block in suite.blocks):
        # A plugin's gate built some blocks: its code is not in the stamp, so they are not cached.
        return CollectedSuite.of(suite, pickled=False)
    collected = CollectedSuite.of(suite, pickled=True)
    _store(where, key, collected)
    return collected


def _build(path: str, data: bytes) -> Suite:
    """The suite read from ``data`` and built: the YAML readers and the gates' builders are
    imported here, at the first suite the cache does not hold."""
    from .build import load_suite
    from .loader import read_text

    return load_suite(path, read_text(path, data))


def _shared_parts(blocks: tuple[Block, ...]) -> tuple[tuple, dict[int, int]]:
    """The rule lists that more than one of ``blocks`` holds alike, and where each block's
    copy sits in that table (by ``id``, for the pickler's ``persistent_id``).

    A rule list is a tuple of attrs objects held by a block's field or by a field of an
    attrs object the block holds (a scenario's transitions and forbidden rules). Two are
    alike when they pickle to the same bytes, so a block built with the shared one is
    exactly the block that was pickled (``1``, ``1.0`` and ``True`` compare equal but pickle
    apart). Lists of objects that record their own line (``expect:`` entries) differ from
    block to block by construction, so they are not compared. A list the build made once
    for several blocks (rules copied word for word, see ``Doc.built_once``) is pickled once.
    """
    out = io.BytesIO()
    pickler = _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    groups: dict[bytes, list] = {}
    seen: dict[int, list] = {}  # id -> its group: a list the build made once for many blocks is pickled once
    for block in blocks:
        for part in _rule_lists(block):
            group = seen.get(id(part))
            if group is None:
                out.seek(0)
                out.truncate()
                pickler.clear_memo()
                pickler.dump(part)
                group = seen[id(part)] = groups.setdefault(out.getvalue(), [])
            group.append(part)
    table: list = []
    ids: dict[int, int] = {}
    for parts in groups.values():
        if len(parts) > 1:
            ids.update((id(part), len(table)) for part in parts)
            table.append(parts[0])
    return tuple(table), ids


def _rule_lists(block: Block):
    """The non-empty tuples of unlocated attrs objects in ``block``'s fields and one level below."""
    for value in _fields_of(block)(block):
        if _is_rule_list(value):
            yield value
        elif _fields_of(value):
            yield from filter(_is_rule_list, _fields_of(value)(value))


def _is_rule_list(value) -> bool:
    return type(value) is tuple and bool(value) and all(_UNLOCATED[type(item)] for item in value)


class _Unlocated(dict):
    """Class -> whether it is an attrs class whose objects do not record a ``line``."""

    def __missing__(self, cls):
        self[cls] = answer = attrs.has(cls) and "line" not in attrs.fields_dict(cls)
        return answer


_UNLOCATED = _Unlocated()


def _fields_of(obj):
    """The getter of ``obj``'s ``__init__`` fields (see :class:`_Pickler`), made once per class."""
    cls = type(obj)
    fields = _INIT_FIELDS.get(cls)
    if fields is None:
        fields = _INIT_FIELDS[cls] = _init_fields(cls) if attrs.has(cls) else False
    return fields


def _dumps(obj, shared: Optional[dict[int, int]] = None) -> bytes:
    """``obj`` pickled by :class:`_Pickler`; each object whose ``id`` is in ``shared`` is
    written as a reference to its place in the table of shared parts."""
    out = io.BytesIO()
    pickler = _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    if shared:
        pickler.persistent_id = lambda o: shared.get(id(o)) if type(o) is tuple else None
    pickler.dump(obj)
    return out.getvalue()


class _Pickler(pickle.Pickler):
    """Pickles an attrs object as a call of its class on its fields' values.

    Loading then runs the class's generated ``__init__`` rather than attrs' ``__setstate__``
    for slotted classes, which sets each field through a Python-level loop: a built suite of
    100 scenarios (2,500 objects) loads about a third faster, from a smaller file. Every class
    a suite holds can be built again from its fields (their checks and converters accept what
    they once produced); fields not taken by ``__init__`` are worked out again.
    """

    def reducer_override(self, obj):
        fields = _fields_of(obj)
        return (type(obj), fields(obj)) if fields else NotImplemented


def _init_fields(cls):
    """A function of an attrs object giving the tuple of its ``__init__`` fields' values, in C."""
    names = [field.name for field in attrs.fields(cls) if field.init]
    if len(names) == 1:
        single = operator.attrgetter(names[0])
        return lambda obj: (single(obj),)
    return operator.attrgetter(*names) if names else lambda obj: ()


_INIT_FIELDS: dict = {}  # class -> its fields getter, or False for a class attrs did not make


def _store(where: str, key: tuple, suite: CollectedSuite) -> None:
    """Write the cache entry (its key, then the collected suite) whole or not at all: to a temporary
    file of this process, renamed into place, so that xdist workers writing the same entry
    at once never leave a torn one. Not synced to disk: an entry a crash damaged fails to
    load or to match its key, and is rebuilt. One that cannot be written is not used."""
    tmp = f"{where}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as fh:
            pickle.dump(key, fh, protocol=pickle.HIGHEST_PROTOCOL)
            _Pickler(fh, protocol=pickle.HIGHEST_PROTOCOL).dump(suite)
        os.replace(tmp, where)
    except (OSError, pickle.PicklingError):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
