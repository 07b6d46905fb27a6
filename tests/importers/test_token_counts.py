"""``Tokens``: the one value for "tokens a model consumed", from a cassette, an importer's
sum of a log's usage objects, a live reply, and a model's spend (``tests/live/test_live_parts.py``);
absent stays absent."""

from __future__ import annotations

import json

from hypothesis import given, strategies as st

from pytest_mcptest.formats.cassette import Cassette, dump_cassette, parse_cassette
from pytest_mcptest.engine.trace import Run, Tokens, ToolCall
from pytest_mcptest.importers.common import Loc, Source, read_usage

parts = st.one_of(st.none(), st.integers(min_value=0, max_value=10**6))
tokens = st.builds(Tokens, parts, parts, parts)


@given(tokens, tokens, tokens)
def test_a_sum_is_part_by_part_and_a_part_none_reported_stays_absent(a, b, c):
    total = a + b + c
    assert total == a + (b + c)
    for part in ("input", "output", "total"):
        present = [getattr(t, part) for t in (a, b, c) if getattr(t, part) is not None]
        assert getattr(total, part) == (sum(present) if present else None)
    assert a + Tokens() == a == Tokens() + a


def test_of_both_parts_counts_the_total_and_to_dict_holds_what_is_present():
    assert Tokens.of(1200, 320) == Tokens(1200, 320, 1520)
    assert Tokens.of(1200, 320).to_dict() == {"input": 1200, "output": 320, "total": 1520}
    assert Tokens(total=5).to_dict() == {"total": 5}
    assert not Tokens() and Tokens(output=0)  # nothing present is false; a zero is a count


def test_the_cassette_writes_what_is_present_and_reads_it_back_the_same():
    runs = (Run(tool_calls=(ToolCall("a"),), tokens=Tokens(1200, 320, 1520)),
            Run(tokens=Tokens(total=5)), Run(tokens=Tokens()), Run())
    text = dump_cassette(Cassette(runs=runs))
    assert ('"conversation": {\n        "turns": [],\n        "tokens": {\n          "input": 1200,\n'
            '          "output": 320,\n          "total": 1520\n        }\n      }') in text
    written = [run["conversation"].get("tokens", "absent") for run in json.loads(text)["runs"]]
    assert written == [{"input": 1200, "output": 320, "total": 1520}, {"total": 5}, {}, "absent"]
    assert parse_cassette("c.json", text).runs == runs
    assert dump_cassette(parse_cassette("c.json", text)) == text


def test_the_envelope_keeps_the_keys_users_write_in_expect():
    env = Run(tokens=Tokens(10, 5, 15)).envelope()
    assert env["conversation"]["tokens"] == {"input": 10, "output": 5, "total": 15}
    assert "tokens" not in Run().envelope()["conversation"]  # absent, never zero


def test_an_importer_sums_usage_objects_and_derives_a_total_from_both_parts():
    src = Source("log.json", "{}")
    names = (("prompt_tokens",), ("completion_tokens",), ("total_tokens",))
    first = read_usage(src, {"prompt_tokens": 100, "completion_tokens": 20}, Loc(), *names)
    second = read_usage(src, {"total_tokens": 7}, Loc(), *names)
    assert first == Tokens(100, 20, 120) and second == Tokens(total=7)
    assert first + second + read_usage(src, None, Loc(), *names) == Tokens(100, 20, 127)
