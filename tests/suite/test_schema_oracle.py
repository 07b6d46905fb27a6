"""The compiled validator (jsonschema-rs) decides whether a suite is valid; jsonschema is the
oracle: both must agree on the shipped examples and on documents broken one way or another."""

from __future__ import annotations

import copy
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis_budget import budget

from pytest_mcptest.suite.loader import load_documents, read_text
from pytest_mcptest.suite.validate import SUITE, is_valid, schema

ROOT = Path(__file__).resolve().parents[2]
ORACLE = jsonschema.Draft202012Validator(schema(SUITE))
SUITES = sorted(p for p in (ROOT / "examples").rglob("*.mcptest.yml"))


def _documents():
    for path in SUITES:
        for doc, _ in load_documents(str(path), read_text(str(path))):
            if doc is not None:
                yield path, doc


DOCS = list(_documents())


def test_there_are_examples():
    assert len(DOCS) >= 5


@pytest.mark.parametrize("doc", [d for _, d in DOCS], ids=[f"{p.parent.name}/{p.name}" for p, _ in DOCS])
def test_examples_agree(doc):
    assert is_valid(doc) == ORACLE.is_valid(doc)


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False, allow_infinity=False),
                     st.text(max_size=5))


def _paths(value, here=()):
    yield here
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, here + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, here + (i,))


@settings(max_examples=budget(200), deadline=None)
@given(st.data())
def test_a_changed_example_is_judged_as_the_oracle_judges_it(data):
    _, doc = data.draw(st.sampled_from(DOCS))
    doc = copy.deepcopy(doc)
    where = data.draw(st.sampled_from(list(_paths(doc))[1:]))
    parent = doc
    for part in where[:-1]:
        parent = parent[part]
    action = data.draw(st.sampled_from(["replace", "delete", "add"]))
    if action == "replace":
        parent[where[-1]] = data.draw(_SCALARS)
    elif action == "delete":
        del parent[where[-1]]
    elif isinstance(parent, dict):
        parent[data.draw(st.sampled_from(["extra", "when", "effect", "tool", "expect", "kind"]))] = data.draw(_SCALARS)
    else:
        parent.append(data.draw(_SCALARS))
    assert is_valid(doc) == ORACLE.is_valid(doc)
