"""The basis of a number: what an item's figures depend on besides the agent's behaviour.

A report compared with another reads every change as the agent's, unless it can see that the
two were made on another basis: another judge or judge prompt, another simulated user, a dated
model behind the same name, other SDK or server versions, other turn limits, another mcptest or
other grading options. Pure functions over plain data (a cassette's ``meta``, its runs' ``meta``
and ``judgments``), no I/O.

An item's basis is flat: dotted keys to JSON scalars, gathered over the runs it judged::

    {"agent.model": "openai:gpt-4o-mini", "agent.answered": "gpt-4o-mini-2024-07-18",
     "judge.answered": "gpt-4o-2024-08-06", "judge.prompt_sha256": "3f9a...", "sdk.openai": "1.97.0",
     "max_turns": 10, "servers.shop.version": "1.0.0", "mcptest": "0.1.0",
     "grading.mcptest": "0.1.0", "grading.require_judgments": false}

``mcptest`` is the version that recorded, ``grading.*`` what graded (this mcptest, its options, a
judge calibration). A key whose runs disagree (runs appended to a cassette later, on another
model) holds the sorted list of their values, ``null`` for runs that did not record it. Where a
cassette predates ``meta.basis``, what it does say is read: ``meta.model``, ``judge_model``,
``synthetic_user_model``, each run's ``meta.model`` and its judge's, a judgment's ``model`` and
``prompt_sha256``.

Comparing two reports (:func:`differences`) lists each key that differs for some item in both;
a difference of the grading basis (``judge.*`` and ``grading.*``, mcptest by its major version,
or ``0.minor`` before 1.0) refuses a significance verdict (:func:`refusal`): the two sides were
not graded alike. A key one side does not record is listed, and does not refuse: nothing shows
the two differ.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping, Optional

GRADING = ("judge.", "grading.")  # key prefixes whose difference means the two were graded apart
_ROLES = (("synthetic_user_model", "synthetic_user"), ("judge_model", "judge"))


def _flat(value: Any, prefix: str, out: dict) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _flat(inner, f"{prefix}.{key}" if prefix else str(key), out)
    elif value is None or isinstance(value, (str, int, float, bool)):
        out[prefix] = value


def run_basis(cassette_meta: Optional[Mapping], run_meta: Optional[Mapping], judgments: Iterable) -> dict:
    """One run's basis, flat: what the cassette says of the recording, the run's ``meta.basis``
    over it, and the judge its judgments name over both."""
    out: dict = {}
    if not (cassette_meta or run_meta or judgments):  # a hand-written or imported run that says nothing
        return out
    meta = cassette_meta or {}
    model = meta.get("model")
    if isinstance(model, str):
        out["agent.model"] = model
        if ":" in model:
            out["agent.provider"] = model.split(":", 1)[0]
    for key, role in _ROLES:
        if isinstance(meta.get(key), str):
            out[f"{role}.model"] = meta[key]
    own = run_meta or {}
    if isinstance(own.get("model"), str):
        out["agent.answered"] = own["model"]
    for role in ("judge", "synthetic_user"):
        side = own.get(role)
        if isinstance(side, dict):
            for key, name in (("model", "answered"), ("prompt_sha256", "prompt_sha256")):
                if isinstance(side.get(key), str):
                    out[f"{role}.{name}"] = side[key]
    if isinstance(own.get("server"), str) and isinstance(own.get("protocol_version"), str):
        out[f"servers.{own['server']}.protocol_version"] = own["protocol_version"]
    basis = own.get("basis")
    if isinstance(basis, dict):
        _flat(basis, "", out)
    said: dict[str, set] = {"model": set(), "prompt_sha256": set()}
    for judgment in judgments:
        for key, seen in said.items():
            value = judgment.get(key) if isinstance(judgment, dict) else None
            if isinstance(value, str):
                seen.add(value)
    for key, name in (("model", "answered"), ("prompt_sha256", "prompt_sha256")):
        if said[key]:
            values = sorted(said[key])
            out[f"judge.{name}"] = values[0] if len(values) == 1 else values
    return out


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _order(text: str) -> tuple:
    """Values in order, ``null`` (a run that did not record it) first."""
    return (text != "null", text)


def gather(bases: list[dict]) -> dict:
    """An item's basis from its runs' (:func:`run_basis`): a key's one value, or, where the runs
    disagree, the sorted list of their values (``null``, first, for a run without it)."""
    first = bases[0]
    if all(b == first for b in bases[1:]):  # the common case: every run recorded alike
        return dict(sorted(first.items()))
    out: dict = {}
    for key in sorted({k for b in bases for k in b}):
        values: dict[str, Any] = {}
        for basis in bases:
            value = basis.get(key)
            for one in (value if isinstance(value, list) else [value]):
                values.setdefault(_text(one), one)
        out[key] = next(iter(values.values())) if len(values) == 1 else [values[k] for k in sorted(values, key=_order)]
    return out


def item_basis(cassette_meta: Optional[Mapping], runs: Iterable, grading: Mapping) -> dict:
    """The basis of an item judged on ``runs`` (``engine.trace.Run``) of a cassette with
    ``cassette_meta``, graded with ``grading`` (flat ``grading.*`` keys)."""
    bases = [run_basis(cassette_meta, run.meta, run.judgments) for run in runs]
    out = gather(bases) if bases else {}
    out.update(grading)
    return dict(sorted(out.items()))


def summary(items: Iterable[Mapping]) -> dict:
    """A report's basis at a glance: each key with the sorted distinct values its items hold."""
    found: dict[str, dict[str, Any]] = {}
    for item in items:
        basis = item.get("basis")
        if not isinstance(basis, dict):
            continue
        for key, value in basis.items():
            into = found.setdefault(key, {})
            for one in (value if isinstance(value, list) else [value]):
                into.setdefault(_text(one), one)
    return {key: [found[key][t] for t in sorted(found[key], key=_order)] for key in sorted(found)}


# --------------------------------------------------------------------------- comparing


def series(version: Any) -> Optional[str]:
    """Which releases grade alike: the major version (``2``), or ``0.minor`` before 1.0."""
    if not isinstance(version, str):
        return None
    parts = version.split(".")
    return parts[0] if parts[0] != "0" or len(parts) < 2 else f"0.{parts[1]}"


def grading_key(key: str) -> bool:
    return key.startswith(GRADING)


def _refuses(key: str, before: Any, after: Any) -> bool:
    """Whether this difference means the two sides were graded apart (both sides say, and differ)."""
    if not grading_key(key) or before is None or after is None:
        return False
    if key == "grading.mcptest":
        return series(before) != series(after)
    return True


def differences(baseline: Iterable[Mapping], current: Iterable[Mapping]) -> dict:
    """What differs in the basis of the items both reports hold: ``differences`` (each
    ``{key, before, after, items, grading, refuses}``, by key), and ``unpinned``: the sides
    (``baseline``, ``current``) whose items pin no basis at all (reports written before bases were)."""
    old = {i["id"]: i for i in baseline if isinstance(i, Mapping) and "id" in i}
    new = {i["id"]: i for i in current if isinstance(i, Mapping) and "id" in i}
    common = sorted(set(old) & set(new))
    unpinned = [side for side, items in (("baseline", old), ("current", new))
                if common and not any(isinstance(items[i].get("basis"), Mapping) for i in common)]
    groups: dict[tuple, list[str]] = {}
    if not unpinned:
        for item_id in common:
            a, b = old[item_id].get("basis") or {}, new[item_id].get("basis") or {}
            for key in set(a) | set(b):
                before, after = a.get(key), b.get(key)
                if _text(before) != _text(after):
                    groups.setdefault((key, _text(before), _text(after)), []).append(item_id)
    found = []
    for (key, before, after), ids in sorted(groups.items()):
        before, after = json.loads(before), json.loads(after)
        found.append({"key": key, "before": before, "after": after, "items": ids, "grading": grading_key(key),
                      "refuses": _refuses(key, before, after)})
    return {"differences": found, "unpinned": unpinned}


def refusal(compared: Mapping) -> Optional[str]:
    """Why no significance verdict may be drawn across these bases (one line), or None."""
    keys = sorted({d["key"] for d in compared["differences"] if d["refuses"]})
    if not keys:
        return None
    return (f"the two reports were graded on a different basis ({', '.join(keys)}): a change of judge, judge "
            f"prompt, grading options or mcptest version moves the figures by itself, so no significance verdict "
            f"is drawn across it (--allow-basis-change compares anyway)")
