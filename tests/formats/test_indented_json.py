"""The fast indented writer (``indented_json``) writes exactly the bytes ``json.dumps(...,
indent=2)`` writes: cassettes and reports are pinned byte for byte, and a large one must
not read differently from a small one."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.formats.json_text import FAST_FROM, dumps_indented, reindent

# Strings heavy in what the re-indenting must see through: quotes, backslash runs, brackets,
# commas, colons, non-ASCII and lone surrogates.
tricky_text = st.text(alphabet=st.sampled_from(list('"\\{}[],: aé\u2028\ud800\udfff\x00\x1f')), max_size=12)
scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
                    st.floats(allow_nan=False, allow_infinity=False), tricky_text)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(tricky_text, inner, max_size=4)), max_leaves=40)


@settings(max_examples=budget(200), deadline=None, database=None)
@given(values, st.booleans())
def test_reindent_writes_what_json_dumps_writes(value, sort_keys):
    compact = json.dumps(value, separators=(",", ": "), ensure_ascii=False, sort_keys=sort_keys)
    assert reindent(compact) == json.dumps(value, indent=2, ensure_ascii=False, sort_keys=sort_keys)


@pytest.mark.parametrize("run", [0, 1, 2, 3, 9, 10])
def test_a_run_of_backslashes_before_a_quote(run):
    value = {"s": "\\" * run + '"' + "x" * 5, "t": ["]", "\\"], "u": {}, "c": "\x00\x1f\x7f"}
    compact = json.dumps(value, separators=(",", ": "), ensure_ascii=False)
    assert reindent(compact) == json.dumps(value, indent=2, ensure_ascii=False)


def test_infinities_are_left_to_the_standard_encoder():
    value = {"big": [float("inf")] * 50_000}
    assert reindent(json.dumps(value, separators=(",", ": "))) is None
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_a_large_value_takes_the_fast_way_and_writes_the_same_bytes():
    value = {"runs": [{"tool_calls": [{"name": f"t{i}", "args": {"q": f'"{i}" [x]', "n": i / 3},
                                       "result": {"content": [{"type": "text", "text": "\\" * (i % 4)}]},
                                       "empty": [], "none": {}} for i in range(3000)]}]}
    assert len(json.dumps(value)) > FAST_FROM
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)
    assert dumps_indented(value, sort_keys=True) == json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def test_it_refuses_what_json_dumps_refuses():
    with pytest.raises(ValueError):
        dumps_indented({"x": float("nan")}, allow_nan=False)
    with pytest.raises(TypeError):
        dumps_indented({"x": object()})
