"""A suite's ``servers:`` entries: resolved against the suite's folder (:func:`resolve_server`),
named by a block for its live recording (:func:`named_servers`), and asked for their tools
(:func:`server_catalog`: a saved snapshot read, or a live server started once a session).
Opening a block's recording (its cassette, a saved catalog) is ``sources.py``'s."""

from __future__ import annotations

import os
from typing import Any, Optional

from ..errors import InputError
from .sources import display, read_catalog


def resolve_server(spec: dict, suite_dir: str) -> dict:
    """A ``servers:`` entry with its paths made absolute against the suite's folder: the
    snapshot file, or the folder a live server starts in (so `servers/shop.yml` means
    what it says), and its ``lock:`` file. A ``cassette:`` entry becomes the command that serves it."""
    spec = dict(spec)
    if isinstance(spec.get("lock"), str) and spec["lock"]:
        spec["lock"] = os.path.normpath(os.path.join(suite_dir, spec["lock"]))
    if "world" in spec:  # a scenario's world, served: "FILE.mcptest.yml::SCENARIO", the file beside the suite
        file, _, scenario = spec.pop("world").rpartition("::")
        return {**spec, **world_command(os.path.normpath(os.path.join(suite_dir, file)), scenario)}
    if "cassette" in spec:  # a recording served as the server (mcptest serve), wherever a server goes
        import sys

        recording = os.path.normpath(os.path.join(suite_dir, spec.pop("cassette")))
        spec["command"] = [sys.executable, "-m", "pytest_mcptest.cli", "serve", recording]
    if "catalog" in spec:
        spec["catalog"] = os.path.normpath(os.path.join(suite_dir, spec["catalog"]))
    else:
        spec["cwd"] = os.path.normpath(os.path.join(suite_dir, spec.get("cwd", ".")))
    return spec


def world_command(suite: str, scenario: str) -> dict:
    """The ``servers:`` entry that serves a scenario's world (``mcptest serve``) over stdio."""
    return {"command": ["mcptest", "serve", f"{suite}::{scenario}"], "cwd": os.path.dirname(suite)}


def server_catalog(name: str, source: dict, root: Optional[str], asked: Optional[dict] = None) -> tuple[str, Any]:
    """(how to show it, its tools/list answer) for a resolved ``servers:`` entry: a saved
    snapshot, or a live server over stdio. A failure is an :class:`InputError`. ``asked``
    (the session's :attr:`Context.live_catalogs`) keeps each live server's answer, or its
    failure, so a server several items judge is started once (about 1.5 s each time: the
    ``mcp`` SDK's import) and one that does not start is not waited for again."""
    if "catalog" in source:
        shown = display(source["catalog"], root)
        return shown, read_catalog(source["catalog"], shown)
    env = source.get("env")
    key = (tuple(source["command"]), tuple(sorted(env.items())) if env else (), source.get("cwd"),
           source.get("timeout", 30.0))
    asked = {} if asked is None else asked
    answer = asked.get(key)
    if answer is None:
        answer = asked[key] = _ask(source)
    if isinstance(answer, str):
        raise InputError(f"server {name!r}", answer)
    return answer


def _ask(source: dict) -> Any:
    """A live server's (shown, tools/list answer), or what kept it from answering."""
    from ..mcp.client import ServerError, list_tools

    try:
        return " ".join(source["command"]), list_tools(list(source["command"]), env=source.get("env"),
                                                       cwd=source.get("cwd"), timeout=source.get("timeout", 30.0))
    except ServerError as exc:
        return str(exc)


def named_servers(doc: Any, parts: list, names: Any) -> dict:
    """The resolved ``servers:`` entries of the document that a conversation or scenario
    names for its live recording; a name the document does not define is a collection
    error at its line (a standalone MCProbe document defines none: such a scenario
    belongs in a suite's ``conversations:`` list)."""
    if not names:
        return {}
    from ..suite.doc import near, plain

    defined = doc.root.get("servers") if isinstance(doc.root.get("servers"), dict) else {}
    for i, name in enumerate(names):
        if name not in defined:
            raise doc.error(parts + ["servers", i], f"server {name!r} is not under servers: in this document "
                            f"({', '.join(sorted(defined)) or 'none defined'}){near(name, defined)}")
    suite_dir = os.path.dirname(os.path.abspath(doc.path))
    return {name: resolve_server(plain(defined[name]), suite_dir) for name in names}


def startable(block: Any) -> bool:
    """Whether a live run could drive this block: a model, and every server it names one
    that can be started (a saved ``catalog:`` cannot run a tool)."""
    return bool(block.model) and all("command" in block.server_entries.get(n, {}) for n in block.servers)
