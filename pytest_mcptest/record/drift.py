"""Has the suite moved on since its cassette was recorded? Pure functions over plain data.

A recording stores, under ``meta``, ``catalog_sha256`` (the tools the servers offered)
and, for agent items, ``model`` and ``prompt_sha256``. On replay the suite's current
values are hashed the same way and compared; :func:`compare` returns what changed and
the command that records the cassette again. Only what both sides have is compared: a
cassette made before hashes existed shows no drift rather than a false alarm.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from typing import Optional

import attrs

DRIFT_MODES = ("warn", "fail", "ignore")


def canonical_json(value) -> str:
    """One text per JSON value: sorted keys, no spaces, UTF-8 kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def catalog_sha256(catalog: dict) -> str:
    """The hash of a catalog as a cassette stores it: ``{server: {"tools": [...]}}``.

    Key order does not count; tool order does (it is what a model reads).
    """
    return _sha256(canonical_json(catalog))


def prompt_sha256(prompt: str, system_prompt: Optional[str] = None) -> str:
    """The hash of what the agent was told: the prompt, and the system prompt when there is one."""
    value = {"prompt": prompt} if system_prompt is None else {"prompt": prompt, "system_prompt": system_prompt}
    return _sha256(canonical_json(value))


@attrs.frozen
class Change:
    """One thing that differs: ``field`` (model, prompt, catalog), then as recorded and as now."""

    field: str
    recorded: str
    current: str

    def line(self) -> str:
        if self.field == "model":
            return f"model: recorded with {self.recorded}, the suite now says {self.current}"
        return f"{self.field}: changed since recording (sha256 {self.recorded[:12]} recorded, {self.current[:12]} now)"


@attrs.frozen
class Drift:
    """What changed between a cassette and its suite, and how to record it again."""

    path: str
    changes: tuple[Change, ...] = ()
    rerecord: str = ""

    def message(self) -> str:
        """Several lines: the cassette, each change, then the command that re-records."""
        if not self.changes:
            return ""
        lines = [f"{self.path} no longer matches the suite:"]
        lines += [f"  {c.line()}" for c in self.changes]
        lines.append(f"  re-record: {self.rerecord}")
        return "\n".join(lines)


def rerecord_command(item_id: str) -> str:
    """The command that records an item's cassette again, through its record mode."""
    return f"pytest {shlex.quote(item_id)} --mcptest-record-mode=all"


def compare(meta: dict, path: str, item_id: str, model: Optional[str] = None,
            prompt: Optional[str] = None, system_prompt: Optional[str] = None,
            catalog: Optional[dict] = None) -> Drift:
    """Compare a cassette's ``meta`` with the suite's ``model``, prompt and live ``catalog``.

    ``None`` on the suite's side means "not known here" and is not compared; neither is a
    field the cassette did not record.
    """
    meta = meta if isinstance(meta, dict) else {}
    changes = []
    recorded_model = meta.get("model")
    if model is not None and isinstance(recorded_model, str) and recorded_model != model:
        changes.append(Change("model", recorded_model, model))
    recorded_prompt = meta.get("prompt_sha256")
    if prompt is not None and isinstance(recorded_prompt, str):
        now = prompt_sha256(prompt, system_prompt)
        if now != recorded_prompt:
            changes.append(Change("prompt", recorded_prompt, now))
    recorded_catalog = meta.get("catalog_sha256")
    if catalog is not None and isinstance(recorded_catalog, str):
        now = catalog_sha256(catalog)
        if now != recorded_catalog:
            changes.append(Change("catalog", recorded_catalog, now))
    return Drift(path, tuple(changes), rerecord_command(item_id) if changes else "")
