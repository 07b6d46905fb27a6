"""One module per kind of item, each declaring its :class:`~.protocol.Gate`; and the registry
that finds a gate by kind, by suite section, or by the whole document it claims.

The built-in gates are fixed. A third party adds one without editing mcptest, in either of
two ways (``docs/gates.md``): a ``pytest_mcptest_gates(config)`` hook in a ``conftest.py`` or
a pytest plugin, returning gates for that session; or an entry point in the group
``mcptest.gates`` naming a gate (or a list of gates), for every session and every
``mcptest`` command. Entry points are read only when a suite holds a top-level key no
known gate takes: reading them costs some 20 ms, which a suite of built-in kinds never pays.
"""

from __future__ import annotations

import copy
import importlib
import itertools
from typing import Any, Callable, Iterable

# What a plugin's gate is written with (docs/gates.md). Imported when first asked for, as the
# registry's own helpers import what they use: ``gates.context`` (the session's settings,
# which the plugin makes at every session's start) is in this package, and a session of
# Python tests alone must not pay for the suite reader, the engine and the cassettes.
# Looked up at each ask, never kept here: pytester's in-process runs drop the modules a run
# imported, and a name kept from one run would be a stale class in the next (see `gate`).
_EXPORTS = {"Block": "..suite.model", "Failure": "..engine.verdict", "GateResult": "..engine.verdict",
            "Gate": ".protocol", "LiveRecording": ".protocol", "common": "..suite.doc"}
__all__ = ["Block", "Failure", "Gate", "GateResult", "LiveRecording", "common", "register"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name], __name__), name)

ENTRY_POINTS = "mcptest.gates"

# The built-in gates, by kind, with the suite sections each takes, in the gates' order. Each
# lives in ``gates/<kind>.py``, imported when its gate is first asked for: a session of
# scenarios never loads the agents' trace matching or the catalog linter.
# tests/gates/test_gate_registry.py holds this table to each module's own ``GATE``.
BUILTIN_SECTIONS: dict[str, tuple[str, ...]] = {
    "scenario": ("scenarios",),
    "agent": ("agents", "tests"),
    "distractors": (),
    "conversation": ("conversations",),
    "tool_quality": ("tool_quality",),
    "tool_bench": ("tool_bench",),
    "verify": ("verify",),
    "conformance": ("conformance",),
}
_BUILTIN_KINDS = frozenset(BUILTIN_SECTIONS)
# The built-in gates that may claim a whole document (``claims_document``), asked about every
# document: only these are imported to ask (the table is held to the modules by the same test).
BUILTIN_DOCUMENT_GATES = ("conversation",)
_GATES: dict[str, Gate] = {}  # the added gates, by kind
_SECTIONS: dict[str, str] = {section: kind for kind, sections in BUILTIN_SECTIONS.items() for section in sections}
_ADDED: list[Gate] = []  # the gates a plugin added, in the order they came
_ENTRY_POINTS_READ = [False]
_CORE_KEYS = frozenset({"servers", "models", "judge_calibration"})  # the suite's own top-level keys that no gate takes
_SCHEMA_NAMES = itertools.count(1)
# (suite/validate.py, the name it knows the suite schema with the added gates' sections by), made when first asked
_SCHEMA: list = [None]


def builtin_gates() -> tuple[Gate, ...]:
    """Every built-in gate, in the gates' order (each module imported now if it was not)."""
    return tuple(map(gate, BUILTIN_SECTIONS))


class GateError(ValueError):
    """A gate a plugin adds cannot be used as it is (one line, naming the gate)."""


def gate(kind: str) -> Gate:
    """The gate of ``kind``."""
    if kind in _BUILTIN_KINDS:
        # Looked up in sys.modules each time (a dictionary look-up), not kept here: a module
        # that is dropped and imported again (pytester's in-process runs do so) is not
        # judged by its stale copy.
        return importlib.import_module(f"{__name__}.{kind}").GATE
    found = _GATES.get(kind)
    if found is None:
        _read_entry_points()
        found = _GATES.get(kind)
        if found is None:
            raise GateError(f"no gate judges items of kind {kind!r}: is the plugin that adds it installed?")
    return found


def built_in(kind: str) -> bool:
    """Whether ``kind`` is one of mcptest's own kinds (not a plugin's)."""
    return kind in _BUILTIN_KINDS


def section_gate(section: str) -> Gate | None:
    """The gate whose blocks a suite's top-level ``section`` lists, if any gate takes it."""
    kind = _SECTIONS.get(section)
    if (kind is None and not _ENTRY_POINTS_READ[0] and isinstance(section, str) and section not in _CORE_KEYS
            and not section.startswith("x-")):
        _read_entry_points()
        kind = _SECTIONS.get(section)
    return None if kind is None else gate(kind)


def open_source(found: Gate, block: Any, ctx: Any) -> Any:
    """A block's recording, as its gate gets it: the gate's own ``open``, else the block's
    cassette (which the gate may record live, when it can and the record mode asks)."""
    from .sources import open_cassette

    return found.open(block, ctx) if found.open is not None else open_cassette(block, ctx, found.live)


def document_gate(root: Any) -> Gate | None:
    """The gate that claims a whole document (an MCProbe scenario file), if any."""
    for found in (*map(gate, BUILTIN_DOCUMENT_GATES), *_ADDED):
        if found.claims_document is not None and found.claims_document(root):
            return found
    return None


def summary_sections() -> list[tuple[str, Callable]]:
    """Every terminal summary section a gate can ask for, with its renderer, in the gates' order."""
    from .sources import SUMMARY_SECTIONS as SOURCES

    sections = [*SOURCES.items()]
    for found in builtin_gates():
        sections += found.summary_sections.items()
    from .stability import SUMMARY_SECTIONS as STABILITY

    sections += STABILITY.items()  # declared by agents and conversations
    for found in _ADDED:
        sections += found.summary_sections.items()
    return sections


def suite_schema(root: Any) -> str:
    """The name of the schema a suite document is checked against (``suite/validate.py``):
    the shipped one, or, when the document holds an added gate's section, the shipped one
    with every added gate's sections in it (each entry checked against the gate's ``schema``)."""
    from ..suite.validate import SUITE

    if not isinstance(root, dict) or not any(_added_section(key) for key in root):
        return SUITE
    import pytest_mcptest.suite.validate as validate

    if _SCHEMA[0] is None or _SCHEMA[0][0] is not validate:  # kept by the reader that knows it (see `gate`)
        merged = copy.deepcopy(validate.schema(SUITE))
        sections = merged["$defs"]["suite"]["properties"]
        for added in _ADDED:
            for section in added.sections:
                sections[section] = {"type": "array", "items": added.schema}
        _SCHEMA[0] = (validate, validate.add_schema(f"{SUITE}+gates-{next(_SCHEMA_NAMES)}", merged))
    return _SCHEMA[0][1]


def _added_section(key: Any) -> bool:
    """Whether ``key`` at the top of a document is the section of a gate a plugin added."""
    if key in _SECTIONS:
        return _SECTIONS[key] not in _BUILTIN_KINDS
    return isinstance(key, str) and section_gate(key) is not None


def register(gates: Iterable[Gate], origin: str = "a plugin") -> Callable[[], None]:
    """Add ``gates`` (from ``origin``, named in errors); returns what removes them again (a
    pytest session adds its conftests' gates at its start and removes them at its end)."""
    gates = list(gates)
    for added in gates:
        _check(added, origin)
    for added in gates:
        _GATES[added.kind] = added
        _SECTIONS.update((section, added.kind) for section in added.sections)
        _ADDED.append(added)
    _SCHEMA[0] = None

    def remove() -> None:
        for added in gates:
            if _GATES.get(added.kind) is added:
                del _GATES[added.kind]
            for section in added.sections:
                if _SECTIONS.get(section) == added.kind:
                    del _SECTIONS[section]
            if added in _ADDED:
                _ADDED.remove(added)
        _SCHEMA[0] = None

    return remove


def _check(added: Any, origin: str) -> None:
    """An added gate is a :class:`Gate` whose kind and sections no other gate has, with a
    schema for its sections (the suite schema is closed: a section it does not know is an error)."""
    from .protocol import Gate

    if not isinstance(added, Gate):
        raise GateError(f"{origin} gave {added!r} where a pytest_mcptest.gates.Gate was expected")
    if added.kind in _GATES or added.kind in _BUILTIN_KINDS:
        raise GateError(f"{origin}: a gate of kind {added.kind!r} already exists")
    for section in added.sections:
        if section in _SECTIONS or section in _CORE_KEYS or section.startswith("x-"):
            raise GateError(f"{origin}: gate {added.kind!r} takes the suite section {section!r}, "
                            f"which is already taken")
    if added.sections and (added.build is None or not isinstance(added.schema, dict)):
        raise GateError(f"{origin}: gate {added.kind!r} lists sections {', '.join(added.sections)}, so it needs "
                        f"`build` and a JSON Schema (`schema`) of one entry")
    if added.judge_run is None and added.judge_all is None:
        raise GateError(f"{origin}: gate {added.kind!r} judges nothing: give it `judge_run` or `judge_all`")


def _read_entry_points() -> None:
    """Add the gates of the ``mcptest.gates`` entry points (once per process)."""
    if _ENTRY_POINTS_READ[0]:
        return
    _ENTRY_POINTS_READ[0] = True
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINTS):
        origin = f"entry point {point.name!r} ({point.value})"
        try:
            loaded = point.load()
        except Exception as exc:  # a broken plugin is named, not a traceback from inside collection
            raise GateError(f"{origin} cannot be loaded: {type(exc).__name__}: {exc}") from None
        register(loaded if isinstance(loaded, (list, tuple)) else [loaded], origin)
