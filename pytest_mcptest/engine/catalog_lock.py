"""Pinning a catalog (a lock) and what changed since: the rug-pull check.

A user approves a server's tools once; a "rug pull" is the server changing a tool's
description or schema afterwards, so the model reads instructions nobody reviewed. A lock
pins each tool by the SHA-256 of its description and schemas, and keeps their text too, so
a change can be shown as a diff and the lock reads well in review. This module builds the
lock's data, checks a lock read from a file, and compares a lock with a catalog; reading
and writing the file is :mod:`pytest_mcptest.formats.lockfile`'s job.

The lock (version 1) is ``{"mcptest_lock": 1, "tools": [...]}``, one entry per tool, sorted
by name; each entry holds ``name``, ``description`` and ``description_sha256``,
``input_schema`` and ``input_schema_sha256``, and, when the tool declares one,
``output_schema`` and ``output_schema_sha256``. A hash is the SHA-256 of the field's
canonical JSON (keys sorted, no spaces, UTF-8), so reordering a schema's keys is no change.
The hashes decide; the text only explains.

:func:`catalog_changes` is what every caller reports with: the ``tool_quality`` gate and
``mcptest doctor --lock``; :func:`compare_catalogs` does the same for two catalogs (a
cassette's recorded catalog against what a server answers now), so every report of a
changed catalog reads in the same words.
"""

from __future__ import annotations

import difflib
import unicodedata
import hashlib
import json
from typing import Any, Mapping, Optional

import attrs

from .catalog import catalog_tools, tool_name
from .values import type_name

LOCK_VERSION = 1
LOCK_KEY = "mcptest_lock"
#: (entry field, tool fields it is read from), in the order a change is reported.
PINNED = (("description", ("description",)), ("input_schema", ("inputSchema", "input_schema")),
          ("output_schema", ("outputSchema", "output_schema")))


class LockError(ValueError):
    """A lock that is not ours, malformed, or from a newer version; ``pointer`` is where."""

    def __init__(self, message: str, pointer: str = ""):
        super().__init__(message)
        self.pointer = pointer


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode("utf-8")).hexdigest()


def _field(tool: Mapping, names: tuple) -> Any:
    for name in names:
        if name in tool:
            return tool[name]
    return None


def lock_entry(tool: Mapping) -> dict:
    """One tool pinned: its name, and each pinned field with its hash (absent fields left out,
    but a description is always pinned, ``null`` when the tool has none)."""
    entry: dict = {"name": tool_name(tool)}
    for field, names in PINNED:
        value = _field(tool, names)
        if value is None and field != "description":
            continue
        entry[field] = value
        entry[f"{field}_sha256"] = sha256(value)
    return entry


def build_lock(catalog: Any) -> dict:
    """The lock of a catalog: one entry per tool, sorted by name. Two tools of one name
    cannot be pinned apart: a :class:`LockError` names it."""
    entries = {}
    for i, tool in enumerate(catalog_tools(catalog)):
        name = tool_name(tool)
        if not name:
            raise LockError(f"tool {i} has no name: a tool is pinned by its name", f"/tools/{i}/name")
        if name in entries:
            raise LockError(f"two tools are named {name!r}: a tool is pinned by its name", f"/tools/{i}/name")
        entries[name] = lock_entry(tool)
    return {LOCK_KEY: LOCK_VERSION, "tools": [entries[n] for n in sorted(entries)]}


def dump_lock(lock: Mapping) -> str:
    """The lock file's text: keys sorted, two-space indent, one tool per entry, a final newline."""
    return json.dumps(lock, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def check_lock(data: Any) -> dict[str, dict]:
    """The entries of a lock read from a file, by name; what is wrong is a :class:`LockError`
    (not a lock, a newer version, a malformed entry, a hash that does not match its text)."""
    if not isinstance(data, Mapping) or LOCK_KEY not in data:
        found = f"an object with keys {', '.join(sorted(map(str, data))[:5]) or 'none'}" \
            if isinstance(data, Mapping) else type_name(data)
        raise LockError(f"not an mcptest lock file: expected an object with \"{LOCK_KEY}\": {LOCK_VERSION}, "
                        f"found {found}")
    version = data[LOCK_KEY]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise LockError(f"\"{LOCK_KEY}\" must be a positive integer version, found {version!r}", f"/{LOCK_KEY}")
    if version > LOCK_VERSION:
        raise LockError(f"lock file version {version} is newer than this mcptest reads ({LOCK_VERSION}); "
                        "upgrade mcptest", f"/{LOCK_KEY}")
    tools = data.get("tools")
    if not isinstance(tools, list):
        raise LockError(f"\"tools\" must be an array, found {type_name(tools)}", "/tools")
    unknown = sorted(set(data) - {LOCK_KEY, "tools"})
    if unknown:
        raise LockError(f"unknown key {unknown[0]!r} in the lock file", f"/{unknown[0]}")
    entries: dict[str, dict] = {}
    allowed = {"name"} | {k for field, _ in PINNED for k in (field, f"{field}_sha256")}
    for i, entry in enumerate(tools):
        where = f"/tools/{i}"
        if not isinstance(entry, Mapping):
            raise LockError(f"a tool entry must be an object, found {type_name(entry)}", where)
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise LockError("a tool entry needs a non-empty string \"name\"", where + "/name")
        if name in entries:
            raise LockError(f"tool {name!r} is pinned twice", where + "/name")
        extra = sorted(set(entry) - allowed)
        if extra:
            raise LockError(f"unknown key {extra[0]!r} in the entry of tool {name!r}", f"{where}/{extra[0]}")
        if "description_sha256" not in entry:
            raise LockError(f"the entry of tool {name!r} has no \"description_sha256\"", where)
        for field, _ in PINNED:
            digest = entry.get(f"{field}_sha256")
            if digest is None:
                if field in entry:
                    raise LockError(f"the entry of tool {name!r} has {field!r} but no {field + '_sha256'!r}",
                                    f"{where}/{field}")
                continue
            if not isinstance(digest, str) or len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
                raise LockError(f"{field}_sha256 of tool {name!r} must be 64 lowercase hex digits, found {digest!r}",
                                f"{where}/{field}_sha256")
            if field in entry and sha256(entry[field]) != digest:
                raise LockError(f"the {field} of tool {name!r} does not match its {field}_sha256 (edited by hand?); "
                                "write the lock again with mcptest doctor --lock", f"{where}/{field}")
        entries[name] = dict(entry)
    return entries


@attrs.frozen
class ToolChange:
    """One pinned tool whose description or schema changed: which fields, and a diff."""

    name: str
    fields: tuple[str, ...]
    diff: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"name": self.name, "fields": list(self.fields), "diff": list(self.diff)}


@attrs.frozen
class CatalogChanges:
    """A catalog against its lock: ``changed`` fails a lock check; ``added`` and ``removed``
    are reported only (a new tool was never approved, but it is not a pinned tool changing)."""

    changed: tuple[ToolChange, ...] = ()
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.changed

    def to_dict(self) -> dict:
        return {"changed_count": len(self.changed), "added_count": len(self.added),
                "removed_count": len(self.removed), "changed": [c.to_dict() for c in self.changed],
                "added": list(self.added), "removed": list(self.removed)}

    def lines(self, since: str = "it was locked") -> list[str]:
        """What changed, in words: each changed tool with its diff, then the added and removed
        (``since``: "the cassette was recorded", for a recorded catalog)."""
        out = []
        for change in self.changed:
            out.append(f"tool {change.name!r} changed since {since}: {', '.join(change.fields)}")
            out += [f"  {line}" for line in change.diff]
        locked = since == "it was locked"
        if self.added:
            out.append(f"new tools, not in the lock (not failed; review and lock them): {', '.join(self.added)}"
                       if locked else f"new tools since {since}: {', '.join(self.added)}")
        if self.removed:
            out.append(f"locked tools no longer served: {', '.join(self.removed)}"
                       if locked else f"tools no longer served since {since}: {', '.join(self.removed)}")
        return out


def _text(field: str, value: Any) -> list[str]:
    if field == "description" and isinstance(value, str):
        return [_visible(line) for line in value.splitlines()] or [""]
    return [_visible(line) for line in json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False).splitlines()]


def _visible(line: str) -> str:
    """``line`` with each character that shows nothing written as its escape (``\\u200b``), and
    trailing blanks marked: a change of those alone (a zero-width space slipped into a pinned
    description, the classic rug pull) would otherwise be a diff of two identical lines."""
    if line.isascii() and line.isprintable() and not line.endswith((" ", "\t")):
        return line
    shown = "".join(ch if ch.isprintable() and unicodedata.category(ch) not in _INVISIBLE
                    and not 0xFE00 <= ord(ch) <= 0xFE0F and not 0xE0000 <= ord(ch) <= 0xE01EF
                    else f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}" for ch in line)
    stripped = shown.rstrip(" \t")
    return stripped + "".join("\\s" if ch == " " else "\\t" for ch in shown[len(stripped):])


_INVISIBLE = {"Cf", "Cc", "Co", "Cs", "Zl", "Zp"}  # format, control, private, surrogate, separators


MAX_DIFF_LINES = 40


def _diff(name: str, field: str, old: Optional[Any], new: Any, known: bool) -> list[str]:
    if not known:
        return [f"{field}: its text is not in the lock (hash only); now {canonical(new)[:200]}"]
    lines = list(difflib.unified_diff(_text(field, old), _text(field, new), f"locked {name} {field}",
                                      f"current {name} {field}", n=1, lineterm=""))
    if len(lines) > MAX_DIFF_LINES:
        lines = lines[:MAX_DIFF_LINES] + [f"... {len(lines) - MAX_DIFF_LINES} more diff lines"]
    return lines


def catalog_changes(locked: Mapping[str, Mapping], current: Any) -> CatalogChanges:
    """What changed in ``current`` (a catalog) since ``locked`` (the entries of a lock by name,
    as :func:`check_lock` returns them, or :func:`build_lock`'s ``tools`` keyed by name).

    A pinned tool changed when the hash of its description, input schema or output schema
    differs (a schema that appears or disappears is a change too); tools are matched by name."""
    now = lock_entries(current)
    changed = []
    for name in sorted(set(locked) & set(now)):
        old, new = locked[name], now[name]
        fields, diff = [], []
        for field, _ in PINNED:
            key = f"{field}_sha256"
            if old.get(key) != new.get(key):
                fields.append(field)
                diff += _diff(name, field, old.get(field), new.get(field), field in old or key not in old)
        if fields:
            changed.append(ToolChange(name, tuple(fields), tuple(diff)))
    return CatalogChanges(tuple(changed), tuple(sorted(set(now) - set(locked))), tuple(sorted(set(locked) - set(now))))


def lock_entries(catalog: Any) -> dict[str, dict]:
    """A catalog's tools pinned as a lock would pin them, by name (the first of a repeated name)."""
    entries: dict[str, dict] = {}
    for tool in catalog_tools(catalog):
        entries.setdefault(tool_name(tool), lock_entry(tool))
    return entries


def compare_catalogs(before: Any, after: Any) -> CatalogChanges:
    """What changed from catalog ``before`` to catalog ``after`` (each ``{"tools": [...]}`` or a
    list of tools), as :func:`catalog_changes` reports it against a lock."""
    return catalog_changes(lock_entries(before), after)
