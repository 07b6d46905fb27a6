"""``mcptest report merge``: the reports of CI shards made into the report of one run.

A suite split across jobs (pytest-split's ``--splits N --group i``, ``-k`` partitions,
explicit node ids) writes one report per shard. Items are keyed by id, and ids do not
depend on which shard or xdist worker ran an item, so the union of the shards, sorted
and written the way the plugin writes it, is byte for byte the report one unsharded run
of the same items writes.

Shards must not overlap: an item in two shards means the split ran it twice, and one of
the two results would be dropped silently; the merge refuses and names both files. A bad
suite file fails collection in every shard that collects it, so the same file's error
may appear in several shards; the same text is kept once, different texts conflict.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

from ..formats.files import output_problem
from ..text import plural
from .document import build_report, load_report, write_report


class MergeError(ValueError):
    """Shards that cannot be one report; the message names the files and the item."""


def merge_reports(shards: Sequence[tuple[str, dict]]) -> dict:
    """One report from ``(name, report)`` pairs; :class:`MergeError` when two shards hold
    the same item or disagree about a bad suite file."""
    if not shards:
        raise MergeError("no shards to merge")
    items: dict[str, tuple[str, dict]] = {}
    errors: dict[str, tuple[str, str]] = {}
    notes: set[str] = set()
    for name, report in shards:
        for item in report.get("items", []):
            seen = items.get(item["id"])
            if seen is not None:
                same = "the same result" if seen[1] == item else "different results"
                raise MergeError(f"item {item['id']!r} is in both {seen[0]} and {name} ({same}): shards must not "
                                 f"overlap (was one group run twice, or two splits mixed?)")
            items[item["id"]] = (name, item)
        for error in report.get("errors") or ():
            seen_error = errors.get(error["file"])
            if seen_error is not None and seen_error[1] != error["message"]:
                raise MergeError(f"bad suite file {error['file']!r} failed differently in {seen_error[0]} and {name}: "
                                 f"were the shards run on different versions of it?")
            errors.setdefault(error["file"], (name, error["message"]))
        extra = report.get("notes")
        if isinstance(extra, list):
            notes.update(n for n in extra if isinstance(n, str))
    merged = build_report([item for _, item in items.values()], {f: m for f, (_, m) in errors.items()})
    if notes:
        merged["notes"] = sorted(notes)
    return merged


def run(paths: Sequence[str], output: str) -> int:
    """The command: 0 with the merged report written, 2 (the reason on stderr) otherwise."""
    # By the file reached, not the name: a symbolic link to a shard would overwrite that shard.
    if os.path.realpath(output) in {os.path.realpath(p) for p in paths}:
        print(f"mcptest report merge: -o {output} is one of the shards; write the merge to a new file",
              file=sys.stderr)
        return 2
    problem = output_problem(output)  # a folder, a read-only place: said before the shards are read
    if problem:
        print(f"mcptest report merge: -o {output}: {problem}", file=sys.stderr)
        return 2
    try:
        shards = [(path, load_report(path)) for path in paths]
        merged = merge_reports(shards)
    except ValueError as exc:
        print(f"mcptest report merge: {exc}", file=sys.stderr)
        return 2
    try:
        write_report(output, merged)
    except OSError as exc:  # the place changed since it was checked: a full disk, a folder removed
        print(f"mcptest report merge: -o {output}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 2
    counts = len(merged["items"])
    print(f"merged {plural(len(shards), 'shard')}: {plural(counts, 'item')} -> {output}")
    return 0
