"""The session's settings every evaluation reads (the pytest layer fills them from its
options, each command from its arguments)."""

from __future__ import annotations

from typing import NamedTuple, Optional

from ..record.modes import RecordMode


class Context(NamedTuple):
    """Where cassettes are, the record mode, how paths are shown, how strict judgments are,
    what recordings redact and what drift does.

    A named tuple rather than an attrs class: the plugin builds it at start-up, where
    importing attrs would cost more than the rest of the plugin."""

    cassette_dir: Optional[str] = None
    record_mode: RecordMode = RecordMode.NONE
    root: Optional[str] = None  # paths in messages are shown relative to it (pytest's rootdir)
    require_judgments: bool = False  # a criterion with no recorded verdict fails instead of deferring
    redact: tuple = ()  # --mcptest-redact patterns: what a recording replaces with "<redacted>"
    drift: str = "warn"  # --mcptest-drift: what a cassette that no longer matches its suite does
    live_concurrency: int = 4  # --mcptest-live-concurrency: runs of one item recorded at once
    dry_run: bool = False  # --mcptest-dry-run: say what a recording would spend, record nothing
    rate_dir: Optional[str] = None  # where live recording shares its per-minute limits across workers
    # The cassettes (real paths) that more than one item replays, once collection has found them:
    # only these stay parsed between items. None (no collection to count on) keeps every recent parse.
    shared_cassettes: Optional[frozenset] = None
    # Where cassettes' decoded records are kept between sessions, by content, and the stamp of
    # the code that decodes them: (a folder of pytest's cache, ``suite_cache.code_stamp()``),
    # ``formats/kept_parses.py``; None keeps none.
    kept_parses: Optional[tuple] = None
    # The tools/list answers of the live servers already asked in this session (or why one could
    # not be had), by command, environment, folder and timeout: the items that judge one server's
    # catalog start it once. None asks the server for each item (a command run once).
    live_catalogs: Optional[dict] = None

