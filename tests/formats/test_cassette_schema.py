"""``schema/cassette-v1.json`` says what the cassette reader accepts: the two agree on a corpus
of valid and invalid cassettes (the reader stays the fast path; the schema is for editors and
for anyone writing cassettes without mcptest)."""

from __future__ import annotations

import json
import pathlib

import jsonschema
import pytest

from pytest_mcptest.formats.cassette import parse_cassette
from pytest_mcptest.errors import InputError
from pytest_mcptest.suite.validate import CASSETTE, is_valid, schema
from cassette_cases import CASSETTE_CASES

REFERENCE = jsonschema.Draft202012Validator(schema(CASSETTE))
EXAMPLES = sorted((pathlib.Path(__file__).resolve().parents[2] / "examples").rglob("cassettes/*.json"))

CALL = {"name": "get_weather", "server": "shop", "args": {"city": "Lima"}, "error": False,
        "result": {"content": [{"type": "text", "text": "72F"}]}, "turn": 0}

VALID = [
    pytest.param({"runs": []}, id="no-runs"),
    pytest.param({"runs": [{"tool_calls": [{"name": "a"}]}]}, id="only-the-name"),
    pytest.param({"mcptest_cassette": 1, "meta": {"agent": "a", "model": "anthropic:claude", "prompt": "p",
                                                  "system_prompt": "s", "recorded_at": "2026-11-21T10:00:00Z",
                                                  "recorder": "mcptest record", "catalog_sha256": "ab" * 32,
                                                  "prompt_sha256": "cd" * 32, "extra": [1]},
                  "catalog": {"shop": {"tools": [{"name": "get_weather"}]}},
                  "runs": [{"task": "t1", "trial": 0, "meta": {"model": "m", "seed": 3}, "tool_calls": [CALL],
                            "conversation": {"turns": [{"role": "user", "content": "q"}],
                                             "tokens": {"input": 1, "output": 2, "total": 3}},
                            "cost_micros": 4200, "judgments": [{"criterion": "c", "verdict": "fail", "why": "x"}],
                            "unknown": True}]}, id="everything"),
    pytest.param({"mcptest_cassette": None, "meta": None, "catalog": None,
                  "runs": [{"task": 3, "trial": None, "meta": None, "conversation": None, "cost_micros": None,
                            "tool_calls": [{"name": "a", "error": None, "server": None, "turn": None}]}]},
                 id="nulls-are-absent"),
    pytest.param({"runs": [{"conversation": {"tokens": {"total": None}}}]}, id="run-without-calls"),
    pytest.param({"runs": [{"notes": []}]}, id="unrelated-key-without-calls"),
    pytest.param({"tool_calls": [{"name": "a"}], "conversation": {"turns": []}}, id="root-envelope"),
    pytest.param({"trace": {"tool_calls": [{"name": "a"}]}, "tool_calls": "ignored"}, id="trace-first"),
    pytest.param({"trace": "x", "tool_calls": [{"name": "a"}]}, id="trace-not-an-object"),
    pytest.param({"mcptest_cassette": 1.0, "runs": []}, id="version-one-point-zero"),
    pytest.param({"runs": [{"tool_calls": [{"name": "a", "unanswered": True, "task_id": "t1"}], "messages": [
        {"from": "host", "at_ms": 0.5, "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}},
        {"from": "server", "message": {"jsonrpc": "2.0", "method": "notifications/progress"}, "extra": 1},
        {"from": "host", "message": {"id": 2, "method": "tools/call", "params": {"name": 5}}, "malformed": "x"}]}]},
        id="a-whole-session"),
    pytest.param({"runs": [{"tool_calls": [], "messages": None}]}, id="messages-null"),
]

INVALID = list(CASSETTE_CASES) + [
    pytest.param({"runs": [{"task": [1]}]}, id="task-a-list"),
    pytest.param({"runs": [{"trial": -1}]}, id="trial-negative"),
    pytest.param({"runs": [{"trial": "2"}]}, id="trial-a-string"),
    pytest.param({"runs": [{"meta": []}]}, id="run-meta-a-list"),
    pytest.param({"meta": {"catalog_sha256": 5}, "runs": []}, id="catalog-sha-a-number"),
    pytest.param({"runs": [{"meta": {"prompt_sha256": False}}]}, id="run-prompt-sha-a-boolean"),
    pytest.param({"runs": [{"tool_call": [{"name": "a"}]}]}, id="tool-calls-misspelled"),
    pytest.param({"runs": [{"toolCalls": [{"name": "a"}]}]}, id="tool-calls-camel-case"),
    pytest.param({"runs": [{"judgments": [{"criterion": "c"}]}]}, id="judgment-without-verdict"),
    pytest.param({"runs": [{"judgments": [{"verdict": "pass"}]}]}, id="judgment-without-criterion"),
    pytest.param({"runs": None}, id="runs-null"),
    pytest.param({"runs": [{"conversation": {"turns": None}}]}, id="turns-null"),
    pytest.param({"catalog": [], "runs": []}, id="catalog-a-list"),
    pytest.param("just text", id="root-a-string"),
    pytest.param({"runs": [{"messages": {}}]}, id="messages-an-object"),
    pytest.param({"runs": [{"messages": [5]}]}, id="message-a-number"),
    pytest.param({"runs": [{"messages": [{"from": "client", "message": {}}]}]}, id="message-from-client"),
    pytest.param({"runs": [{"messages": [{"message": {}}]}]}, id="message-without-from"),
    pytest.param({"runs": [{"messages": [{"from": "host"}]}]}, id="message-without-message"),
    pytest.param({"runs": [{"messages": [{"from": "host", "message": "{}"}]}]}, id="message-a-string"),
]


def reader_accepts(data) -> bool:
    try:
        parse_cassette("c.json", json.dumps(data))
    except InputError:
        return False
    return True


@pytest.mark.parametrize("data", VALID)
def test_valid_for_reader_and_schema(data):
    assert reader_accepts(data)
    assert REFERENCE.is_valid(data) and is_valid(data, CASSETTE)


@pytest.mark.parametrize("data", [p.values[0] for p in INVALID], ids=[p.id for p in INVALID])
def test_invalid_for_reader_and_schema(data):
    assert not reader_accepts(data)
    assert not REFERENCE.is_valid(data) and not is_valid(data, CASSETTE)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_example_cassettes_are_valid(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert reader_accepts(data) and REFERENCE.is_valid(data)
