"""Verdicts kept between runs, in pytest's cache folder: an item nothing of which changed is
not judged again.

The engine is pure: a block's verdict follows from the block, the files its evaluation
reads (its cassette, saved catalogs, a judge's labels), the session's settings and the code
that judges. So what a run made of an item is kept under all of them, by content (Bazel's
action cache; pytest-testmon's idea):

- in the key of the suite file's entry: the file's bytes (its SHA-1: every block, and the
  document-level ``servers:`` and ``models:`` they read), the settings a verdict reads (the
  session's :class:`~pytest_mcptest.gates.context.Context`: cassette folder, root, drift,
  judgments, redaction; and where report ids are counted from), mcptest's code and version
  (``suite_cache.code_stamp``: its sources, schema, Python; and its data files, which judging
  reads) and the installed packages (the ``site-packages`` folders, whose entries change at
  every install or upgrade);
- beside each item's record: every file its evaluation read with the SHA-1 of the bytes it
  read, or that it was absent (``formats.files.watch_reads``), each read and hashed again
  before the record is reused.

Anything changed, and the item is judged again. What is kept is not the verdict itself (a
verdict holds its block, its runs' envelopes and traces: loading one costs as much as
judging) but what the session makes of it: whether the block passed, its failure text, and
the plain data the reports and the terminal summary take from it (``session_report.py``).
A record that lacks what this session asks for (a report entry for ``--mcptest-report``,
properties for ``--junitxml``) is judged again and kept with it.

Only what replays is kept: mcptest's own kinds whose gate reads a cassette (not one that
opens its own source, a catalog or a server: ``tool_quality``, ``verify``), in record mode ``none``, not a dry run, not
under ``--mcptest-update-expect``; a block that could not be judged (no cassette) is not
kept. The folder is ``config.cache``'s (``.pytest_cache``), so ``--cache-clear`` empties it,
``-p no:cacheprovider`` turns it off, and so does ``--mcptest-no-verdict-cache``. One file
per suite file (a pickle: trust it as ``.pytest_cache`` itself), written whole as the suite
cache writes its entries (``suite_cache.store_entry``) when the run leaves the suite file;
pytest-xdist workers that judged parts of one file merge theirs into what is there.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from typing import Any, Optional

import msgspec
import pytest

from ..errors import InputError
from ..formats.files import digest, read_bytes
from ..gates import built_in, gate
from ..gates.suite_cache import cache_path, code_stamp, load_entry, store_entry
from ..record.modes import RecordMode
from .stash import CONTEXT_KEY

FORMAT = 2  # the records' shape: part of every key, so records of another shape are never read


class Kept(msgspec.Struct, frozen=True):
    """What a run made of an item's verdict, as plain data (see the module's docstring). A
    msgspec Struct: made for every item a session judges, and pickled with its file's records,
    both in C."""

    failed: bool
    text: Optional[str] = None  # the failure text, when it failed
    summary: Optional[list] = None  # the terminal summary's (section, payload) pairs
    failure_modes: Optional[dict] = None
    metrics: Optional[str] = None  # the line a pass shows under -v
    entry: Optional[dict] = None  # the JSON report's entry, when a report was asked for
    junit: Optional[tuple] = None  # the --junitxml properties, when asked for


_KEY = pytest.StashKey[Optional["VerdictCache"]]()


def verdict_cache(config: pytest.Config) -> Optional["VerdictCache"]:
    """The session's verdict cache, or None when it is off (no pytest cache, the option, a
    record mode that may record, a dry run, ``--mcptest-update-expect``)."""
    if _KEY not in config.stash:
        config.stash[_KEY] = _make(config)
    return config.stash[_KEY]


def _make(config: pytest.Config) -> Optional["VerdictCache"]:
    cache = getattr(config, "cache", None)
    ctx = config.stash[CONTEXT_KEY]
    if (cache is None or config.getoption("mcptest_no_verdict_cache") or ctx.record_mode is not RecordMode.NONE
            or ctx.dry_run or config.getoption("mcptest_update_expect")):
        return None
    try:
        directory = str(cache.mkdir("mcptest-verdicts"))
    except OSError:
        return None
    from .. import __version__

    settings = (FORMAT, __version__, code_stamp(), _data_stamp(), _packages_stamp(), ctx.cassette_dir, ctx.root,
                ctx.require_judgments, ctx.redact, ctx.drift, str(config.inipath), str(config.invocation_params.dir))
    return VerdictCache(directory, hashlib.sha1(repr(settings).encode("utf-8", "surrogatepass")).hexdigest())


def _data_stamp() -> tuple:
    """The package's data files (the distractor pool, the token ranks, ...) by name, size and
    time: judging reads some of them, and ``code_stamp`` counts only the sources and schema."""
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
    stamp = []
    with contextlib.suppress(OSError):
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            st = entry.stat()
            stamp.append((entry.name, st.st_size, st.st_mtime_ns))
    return tuple(stamp)


def _packages_stamp() -> tuple:
    """The installed packages, by the folders they are installed in: installing, upgrading or
    removing one adds or removes an entry there, which changes the folder's time."""
    stamp = []
    for entry in sys.path:
        if os.path.basename(entry) in ("site-packages", "dist-packages"):
            with contextlib.suppress(OSError):
                stamp.append((entry, os.stat(entry).st_mtime_ns))
    return tuple(stamp)


def keeps(kind: str) -> bool:
    """Whether an item of ``kind`` may be kept: one of mcptest's kinds that replays a cassette
    (worked out once per kind: a built-in gate's way of opening its source does not change)."""
    known = _KEEPS.get(kind)
    if known is None:
        known = _KEEPS[kind] = built_in(kind) and gate(kind).open is None
    return known


_KEEPS: dict[str, bool] = {}


class VerdictCache:
    """The kept records of the session's suite files, read at each file's first item."""

    def __init__(self, directory: str, settings: str):
        self.directory, self.settings = directory, settings
        self._files: dict[str, _FileRecords] = {}

    def _records(self, suite) -> "_FileRecords":
        records = self._files.get(suite.path)
        if records is None:
            real = os.path.realpath(suite.path)
            key = hashlib.sha1(f"{self.settings}:{real}:{suite.digest}".encode("utf-8", "surrogatepass")).hexdigest()
            records = self._files[suite.path] = _FileRecords(cache_path(suite.path, self.directory, real), key)
        return records

    def lookup(self, item: Any, wants_entry: bool) -> Optional[Kept]:
        """The kept record of ``item``'s block, when every file it read is as it was and it
        holds what this session asks for (``wants_entry``: the reports' entry of each item)."""
        found = self._records(item._suite).entries().get(item.head.name)
        if found is None:
            return None
        reads, kept = found
        config = item.config
        if ((kept.entry is None and wants_entry) or (kept.junit is None and _wants_junit(config))
                or (kept.metrics is None and not kept.failed and config.get_verbosity() > 0)):
            return None
        return kept if all(_content(path) == known for path, known in reads) else None

    def store(self, item: Any, verdict: Any, report: Any) -> None:
        """Keep what the session made of ``item``'s ``verdict`` (on its call phase's ``report``),
        with the files its evaluation read."""
        reads = tuple(dict.fromkeys(item.reads))  # each file once, in the order read
        self._records(item._suite).put(item.head.name, reads, _record_of(item, verdict, report))

    def flush(self, suite) -> None:
        """Write what was kept of ``suite``'s items (the run leaves the file)."""
        records = self._files.get(suite.path)
        if records is not None:
            records.write()


def _content(path: str) -> Optional[str]:
    """The digest of the file at ``path`` now, or None when nothing readable is there."""
    try:
        return digest(read_bytes(path))
    except (OSError, ValueError, InputError):  # absent, a NUL in the path, or no longer a file mcptest reads
        return None


class _FileRecords:
    """One suite file's records: ``{block name: (reads, Kept)}`` under the file's key."""

    def __init__(self, where: str, key: str):
        self.where, self.key = where, key
        self._entries: Optional[dict] = None
        self._new: dict = {}

    def entries(self) -> dict:
        if self._entries is None:
            self._entries = self._read()
        return self._entries

    def _read(self) -> dict:
        return load_entry(self.where, self.key) or {}

    def put(self, name: str, reads: tuple, kept: Kept) -> None:
        self.entries()[name] = self._new[name] = (reads, kept)

    def write(self) -> None:
        """The file's records, merged with what another process wrote meanwhile, written whole
        (one that cannot be written is not kept); then let go (the run has left the file:
        should it come back, they are read again) so the session does not hold them all."""
        if self._new:
            merged = {**self._read(), **self._new}
            self._new = {}
            store_entry(self.where, self.key, merged)
        self._entries = None


def _wants_junit(config: pytest.Config) -> bool:
    return bool(getattr(config.option, "xmlpath", None))


def _record_of(item: Any, verdict: Any, report: Any) -> Kept:
    """What the session made of ``verdict`` on ``report`` (the item's call phase), to keep:
    what this session computed, no more (a later session that asks for more judges again)."""
    failed = not verdict.passed
    text = None
    if failed:
        from ..report.render import render_verdict

        text = render_verdict(verdict, file=item.nodeid.split("::", 1)[0])  # as repr_failure shows it
    return Kept(failed=failed, text=text, summary=getattr(report, "mcptest_summary", None),
                failure_modes=getattr(report, "mcptest_failure_modes", None),
                metrics=getattr(report, "mcptest_metrics", None), entry=getattr(report, "mcptest", None),
                junit=tuple(item.user_properties) if _wants_junit(config=item.config) else None)
