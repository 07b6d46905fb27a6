"""A live conversation against the loopback fake: the synthetic user, the agent
with the mock MCP server, and the judge are three roles the fake plays by system prompt."""

from __future__ import annotations

import hashlib
import json

import pytest

from live_fake import ANTHROPIC_MODEL, OPENAI_MODEL, FakeProvider, live_env, play, reply, shop  # noqa: F401
from pytest_mcptest.formats.cassette import as_json, dump_cassette, parse_cassette
from pytest_mcptest.engine.conversation import ConversationSpec, evaluate_conversation
from pytest_mcptest.live.conversation import ConversationTask, record_conversation
from pytest_mcptest import __version__
from pytest_mcptest.live.judge import prompt_sha256
from pytest_mcptest.live.provider import LiveError

SPEC = ConversationSpec(
    correctness=("The agent asks for the location since it wasn't specified",),
    failure=("The agent assumes a location without asking",),
    tool_call_criteria=(("get_weather", ("Called with city='Sacramento'",)),),
    required_tools=("get_weather",),
    max_turns=4,
)
USER = {"persona": "A busy professional", "initial_query": "What's the weather like?", "max_turns": 4,
        "clarification_behavior": {"known_facts": ["I'm in Sacramento"], "traits": {"patience": "low"}}}


def written(recording) -> list:
    """The recording's runs as the cassette writer writes them (plain JSON)."""
    return as_json(recording.cassette())["runs"]



def test_a_conversation_with_synthetic_user_and_judge(shop, live_env):  # noqa: F811
    task = ConversationTask(name="weather clarification", model="anthropic:claude-haiku-4-5", synthetic_user=USER,
                            evaluation=SPEC, servers=(shop,),
                            config={"judge": {"model": "openai:gpt-4o-mini", "extra_instructions": "Mind units."},
                                    "synthetic_user": {"model": "openai:gpt-4o-mini", "temperature": 0.2}})
    with FakeProvider(play()) as fake:
        live_env(fake)
        recording = record_conversation(task)
    run = written(recording)[0]
    assert [(t["role"], t.get("content")) for t in run["conversation"]["turns"]] == [
        ("user", "What's the weather like?"), ("assistant", "Which city?"), ("user", "Sacramento, please."),
        ("assistant", ""), ("tool", "72F in Sacramento"), ("assistant", "It is 72F in Sacramento.")]
    judge_hash = prompt_sha256("Mind units.")  # the judge's instructions, as given
    assert judge_hash != prompt_sha256() and len(judge_hash) == 64
    assert run["judgments"] == [
        {"criterion": "The agent asks for the location since it wasn't specified", "verdict": "pass",
         "reason": "statement 1 checked", "model": OPENAI_MODEL, "prompt_sha256": judge_hash},
        {"criterion": "The agent assumes a location without asking", "verdict": "pass",
         "reason": "statement 2 checked", "model": OPENAI_MODEL, "prompt_sha256": judge_hash},
        {"criterion": "Called with city='Sacramento'", "verdict": "pass", "reason": "statement 3 checked",
         "model": OPENAI_MODEL, "prompt_sha256": judge_hash, "tool": "get_weather"},
    ]
    assert run["conversation"]["tokens"] == {"input": 300, "output": 60, "total": 360}  # the agent's 3 replies
    basis = run["meta"].pop("basis")
    user_hash = run["meta"]["synthetic_user"]["prompt_sha256"]
    assert run["meta"] == {
        "model": ANTHROPIC_MODEL, "stopped": "user_done", "user_turns": 2, "model_calls": 3,
        "synthetic_user": {"model": OPENAI_MODEL, "model_calls": 2,
                           "tokens": {"input": 80, "output": 10, "total": 90}, "cost_micros": 18,
                           "prompt_sha256": user_hash},
        "judge": {"model": OPENAI_MODEL, "model_calls": 1, "tokens": {"input": 300, "output": 60, "total": 360},
                  "cost_micros": 81, "prompt_sha256": judge_hash}}
    # The run pins its basis: each role as asked and as answered, prompt hashes, SDKs, limits, servers.
    sdk = basis.pop("sdk")
    assert set(sdk) == {"anthropic", "mcp", "openai"} and all(isinstance(v, str) for v in sdk.values())
    assert basis == {
        "mcptest": __version__,
        "agent": {"model": "anthropic:claude-haiku-4-5", "provider": "anthropic", "answered": ANTHROPIC_MODEL},
        "synthetic_user": {"model": "openai:gpt-4o-mini", "provider": "openai", "answered": OPENAI_MODEL,
                           "prompt_sha256": user_hash, "temperature": 0.2},
        "judge": {"model": "openai:gpt-4o-mini", "provider": "openai", "answered": OPENAI_MODEL,
                  "prompt_sha256": judge_hash},
        "max_turns": 4, "agent_max_steps": 10,
        "servers": {"shop": {"name": "shop", "version": basis["servers"]["shop"]["version"],
                             "protocol_version": basis["servers"]["shop"]["protocol_version"]}}}
    user_system = [r for r in fake.requests if r.system.startswith("You play a human user")][0].system
    assert user_hash == hashlib.sha256(user_system.encode()).hexdigest()
    # Each role was played as configured: personas and overrides reached the fake.
    user_requests = [r for r in fake.requests if r.system.startswith("You play a human user")]
    assert "A busy professional" in user_requests[0].system and "patience is low" in user_requests[0].system
    assert "I'm in Sacramento" in user_requests[0].system and user_requests[0].body["temperature"] == 0.2
    assert user_requests[0].tool_names == [] and user_requests[0].api == "openai"
    assert recording.meta == {"conversation": "weather clarification", "recorder": "mcptest live conversation",
                              "model": "anthropic:claude-haiku-4-5", "synthetic_user_model": "openai:gpt-4o-mini",
                              "judge_model": "openai:gpt-4o-mini"}
    assert recording.notes == ()
    judge = [r for r in fake.requests if r.system.startswith("You are a strict")]
    assert len(judge) == 1 and judge[0].api == "openai" and judge[0].system.endswith("Mind units.")
    assert "ASSISTANT CALLS TOOL get_weather WITH {\"city\": \"Sacramento\"}" in judge[0].user_texts[-1]
    # Replayed offline, the recorded verdicts decide the criteria.
    replayed = parse_cassette("c.json", dump_cassette(recording.cassette())).runs[0]
    result = evaluate_conversation(SPEC, replayed, require_judgments=True)
    assert result.problems == ()
    assert [j.outcome for j in result.judgments] == ["passed", "passed", "passed"]
    assert result.turns == 2 and result.user_turns == 2


def test_a_failure_that_happened_fails_on_replay(shop, live_env):  # noqa: F811
    everything_holds = json.dumps({"results": [{"id": n, "holds": True, "reason": "yes"} for n in (1, 2, 3)]})
    task = ConversationTask(name="w", model="openai:gpt-4o-mini", synthetic_user=USER, evaluation=SPEC,
                            servers=(shop,))
    with FakeProvider(play(everything_holds)) as fake:
        live_env(fake)
        recording = record_conversation(task)
    verdicts = [j["verdict"] for j in written(recording)[0]["judgments"]]
    assert verdicts == ["pass", "fail", "pass"]
    replayed = parse_cassette("c.json", dump_cassette(recording.cassette())).runs[0]
    problems = evaluate_conversation(SPEC, replayed).problems
    assert problems == (("judgment", "the failure happened: 'The agent assumes a location without asking' "
                                     f"(judge {OPENAI_MODEL}: yes)"),)


def test_a_judge_that_leaves_a_criterion_out_is_noted(shop, live_env):  # noqa: F811
    partial = json.dumps({"results": [{"id": 1, "holds": True, "reason": "ok"}]})
    task = ConversationTask(name="w", model="openai:gpt-4o-mini", synthetic_user=USER, evaluation=SPEC,
                            servers=(shop,))
    with FakeProvider(play(partial)) as fake:
        live_env(fake)
        recording = record_conversation(task)
    assert [j["criterion"] for j in written(recording)[0]["judgments"]] == [SPEC.correctness[0]]
    assert recording.notes == (
        f"run 1: judge {OPENAI_MODEL} gave no verdict for \"Called with city='Sacramento'\"; it stays deferred on replay",
        f"run 1: judge {OPENAI_MODEL} gave no verdict for 'The agent assumes a location without asking'; "
        "it stays deferred on replay")


def test_a_judge_answer_that_is_not_json_is_a_clear_failure(shop, live_env):  # noqa: F811
    task = ConversationTask(name="w", model="openai:gpt-4o-mini", synthetic_user=USER, evaluation=SPEC,
                            servers=(shop,))
    with FakeProvider(play("I think it went well.")) as fake:
        live_env(fake)
        with pytest.raises(LiveError) as info:
            record_conversation(task)
    assert str(info.value) == (f"judge {OPENAI_MODEL}: the answer is not the JSON asked for (no JSON object): "
                               "'I think it went well.' (0 of 1 run(s) completed)")


def test_a_user_who_never_finishes_stops_at_max_turns(shop, live_env):  # noqa: F811
    def script(seen):
        if seen.system.startswith("You play a human user"):
            return reply(seen, text="And tomorrow?")
        if seen.system.startswith("You are a strict"):
            return reply(seen, text='{"results": []}')
        return reply(seen, text="Sunny.")

    task = ConversationTask(name="w", model="openai:gpt-4o-mini", synthetic_user={**USER, "max_turns": 3},
                            evaluation=SPEC, servers=(shop,))
    with FakeProvider(script) as fake:
        live_env(fake)
        recording = record_conversation(task)
    run = written(recording)[0]
    assert run["meta"]["stopped"] == "max_turns" and run["meta"]["user_turns"] == 3
    assert [t["role"] for t in run["conversation"]["turns"]] == ["user", "assistant"] * 3
