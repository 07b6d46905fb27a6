"""Where a block's recording comes from: a cassette, a saved catalog, or a live server.

Every gate that replays runs opens its cassette here, so a missing or broken one reads
the same whatever the block's kind; every gate that judges a catalog reads it here.
"""

from __future__ import annotations

import json
import os
from typing import Any, Optional

import attrs

from ..cassette import Cassette, load_cassette
from ..context import Context
from ..errors import InputError
from ..text import plural


class SourceError(Exception):
    """The recording could not be had: the block fails before any gate runs."""

    def __init__(self, gate: str, shown: Optional[str], message: str):
        super().__init__(message)
        self.gate, self.shown, self.message = gate, shown, message


@attrs.frozen
class Source:
    """What a block is judged on: ``items`` are what its gate judges one by one (the
    cassette's runs, or the one catalog); ``head`` says what was read, for failure text."""

    shown: str
    items: tuple
    head: str
    cassette: Optional[Cassette] = None


def display(path: str, root: Optional[str]) -> str:
    """``path`` relative to ``root`` (or the working directory) when it lies inside it."""
    rel = os.path.relpath(path, root or os.getcwd())
    return path if rel == ".." or rel.startswith(".." + os.sep) else rel.replace(os.sep, "/")


def cassette_path(block: Any, ctx: Context) -> str:
    """The cassette a block replays: ``cassette:`` or the slug of its name, under the cassette dir."""
    base = ctx.cassette_dir or os.path.dirname(os.path.abspath(block.file))
    name = block.cassette or block.cassette_slug
    return name if os.path.isabs(name) else os.path.normpath(os.path.join(base, name))


def open_cassette(block: Any, ctx: Context) -> Source:
    """The block's cassette, parsed; a :class:`SourceError` says what is wrong with it."""
    path = cassette_path(block, ctx)
    shown = display(path, ctx.root)
    try:
        cassette = load_cassette(path, shown)
    except FileNotFoundError:
        mode = ("replay only, record mode 'none'" if ctx.record_mode == "none" else
                f"record mode {ctx.record_mode!r}, but {block.kind} blocks only replay: nothing here runs a live agent")
        how = ("save a recorded run of your agent there (cassette v1 JSON, see docs/formats.md), "
               "or point `cassette:` or --cassette-dir at an existing one")
        raise SourceError("cassette", shown, f"cassette not found: {shown} ({mode}); {how}") from None
    except InputError as exc:
        raise SourceError("cassette", shown, exc.render()) from None
    except OSError as exc:
        raise SourceError("cassette", shown, f"cannot read {shown}: {exc.strerror}") from None
    if not cassette.runs:
        raise SourceError("cassette", shown, f"{shown} holds no runs")
    calls = sum(len(run.tool_calls) for run in cassette.runs)
    head = f"cassette {shown}, {plural(len(cassette.runs), 'run')}, {plural(calls, 'call')}"
    return Source(shown, cassette.runs, head, cassette)


def read_catalog(path: str, shown: str) -> Any:
    """A saved ``tools/list`` answer (``{"tools": [...]}`` or a bare list) from a JSON file."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise InputError(shown, f"cannot read the catalog: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(shown, f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno, source=text) from None
    tools = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(tools, list):
        raise InputError(shown, "a catalog is a tools/list answer: {\"tools\": [...]} or a list of tools",
                         pointer="/tools" if isinstance(data, dict) else "")
    return data


def resolve_server(spec: dict, suite_dir: str) -> dict:
    """A ``servers:`` entry with its paths made absolute against the suite's folder: the
    snapshot file, or the folder a live server starts in (so `servers/shop.yml` means
    what it says)."""
    spec = dict(spec)
    if "catalog" in spec:
        spec["catalog"] = os.path.normpath(os.path.join(suite_dir, spec["catalog"]))
    else:
        spec["cwd"] = os.path.normpath(os.path.join(suite_dir, spec.get("cwd", ".")))
    return spec


def server_catalog(name: str, source: dict, root: Optional[str]) -> tuple[str, Any]:
    """(how to show it, its tools/list answer) for a resolved ``servers:`` entry: a saved
    snapshot, or a live server over stdio. A failure is an :class:`InputError`."""
    if "catalog" in source:
        shown = display(source["catalog"], root)
        return shown, read_catalog(source["catalog"], shown)
    from ..mcp.client import ServerError, list_tools

    try:
        return " ".join(source["command"]), list_tools(list(source["command"]), env=source.get("env"),
                                                       cwd=source.get("cwd"), timeout=source.get("timeout", 30.0))
    except ServerError as exc:
        raise InputError(f"server {name!r}", str(exc)) from None


def catalog_source(shown: str, catalog: Any) -> Source:
    """A catalog as the one thing a catalog gate judges."""
    return Source(shown, (catalog,), f"catalog {shown}")
