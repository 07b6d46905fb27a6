"""The YAML loader reads JSON values by the YAML 1.2 core schema and refuses the rest at its line."""

from __future__ import annotations

import pytest

from pytest_mcptest.errors import InputError
from pytest_mcptest.suite.loader import load_documents


def test_core_schema_values():
    text = "a: [010, 0x1F, 0o17, 1e3, .5, -3, ~, null, '', yes, On, TRUE, 2026-01-01, 1:30, '12', \"true\"]\n"
    [(doc, line)] = load_documents("t.yml", text)
    assert line == 1
    assert doc["a"] == [10, 31, 15, 1000.0, 0.5, -3, None, None, "", "yes", "On", True, "2026-01-01", "1:30",
                        "12", "true"]


def test_merge_keys_and_lists_of_merges():
    text = "b: &b {x: 1, y: 2}\no: &o {y: 3, z: 4}\nd:\n  <<: [*b, *o]\n  x: 9\n"
    [(doc, _)] = load_documents("t.yml", text)
    assert doc["d"] == {"x": 9, "y": 2, "z": 4}
    assert doc["d"].key_lines["x"] == 5


@pytest.mark.parametrize("text, line, words", [
    ("a: .inf\n", 1, ["'.inf'", "JSON has no infinity or NaN"]),
    ("a:\n  b: .nan\n", 2, ["'.nan'", "no infinity or NaN"]),
    ("a: 1e999\n", 1, ["'1e999'", "no infinity"]),
    ("a: 1" + "9" * 5000 + "\n", 1, ["as a number", "digits"]),
    ("a: !!binary aGVsbG8=\n", 1, ["tag:yaml.org,2002:binary", "JSON value"]),
    ("a: !!set {x}\n", 1, ["tag:yaml.org,2002:set", "JSON value"]),
    ("a:\n  - !custom x\n", 2, ["'!custom'", "JSON value"]),
    ("seed:\n  1: x\n", 2, ["a key must be a string", "quote it: '1'"]),
    ("? [1]\n: x\n", 1, ["a key must be a string", "a collection"]),
    ("d:\n  <<: [1]\n", 2, ["merge key (<<) takes a mapping"]),
])
def test_values_json_cannot_hold_are_refused(text, line, words):
    with pytest.raises(InputError) as exc:
        load_documents("t.yml", text)
    assert exc.value.line == line
    for word in words:
        assert word in exc.value.message


def test_a_fresh_import_after_pytester_dropped_the_modules_builds_its_own_line_dicts(monkeypatch):
    """pytester's in-process runs drop the modules a run imported from sys.modules, while the
    package keeps them as attributes; a loader imported again must build the LineDict it
    exports (tool-bench specs are told apart with isinstance), not the dropped module's."""
    import importlib
    import sys

    import pytest_mcptest.suite as package
    import pytest_mcptest.suite.loader  # noqa: F401  (the first import, as before a pytester run)

    for name in ("loader", "fastyaml", "yamlcore"):
        monkeypatch.setattr(package, name, getattr(package, name))  # put back as they were afterwards
        monkeypatch.delitem(sys.modules, f"pytest_mcptest.suite.{name}")
    fresh = importlib.import_module("pytest_mcptest.suite.loader")
    (root, _line), = fresh.load_documents("x.yml", "a: {b: [1]}\n")
    assert isinstance(root, fresh.LineDict) and isinstance(root["a"]["b"], fresh.LineList)
