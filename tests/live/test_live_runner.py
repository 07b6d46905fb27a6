"""The live agent runner end to end: the real ``openai`` and ``anthropic`` SDK clients talk
to a loopback fake provider (tests/live_fake.py), tools run on the project's mock MCP
server, and what comes back is checked as cassette runs. No network is used."""

from __future__ import annotations

import json
import threading
from importlib import metadata

import pytest

from live_fake import (ANTHROPIC_KEY, ANTHROPIC_MODEL, MODELS, OPENAI_KEY, OPENAI_MODEL, TOOLS, Answer, FakeProvider,
                       error, live_env, reply, shop, tool_then_answer)  # noqa: F401 - fixtures
from pytest_mcptest import __version__
from pytest_mcptest.record.drift import prompt_sha256
from pytest_mcptest.formats.cassette import as_json, dump_cassette, parse_cassette
from pytest_mcptest.engine.distractors import inject_distractors
from pytest_mcptest.engine.tokens import merged_catalog_tools
from pytest_mcptest.engine.trace import Tokens
from pytest_mcptest.live.provider import LiveError
from pytest_mcptest.live.runner import AgentTask, DistractorPlan, Spend, record_agent
from pytest_mcptest.live.servers import ServerSpec

def task(shop, api: str, **kw) -> AgentTask:
    kw.setdefault("prompt", "What is the weather in Sacramento?")
    return AgentTask(model=MODELS[api], servers=(shop,), **kw)


def written(recording) -> list:
    """The recording's runs as the cassette writer writes them (plain JSON)."""
    return as_json(recording.cassette())["runs"]



def expected_run(api: str) -> dict:
    call_id = "call_0_0" if api == "openai" else "toolu_0_0"
    result = {"content": [{"type": "text", "text": "72F in Sacramento"}], "isError": False}
    return {
        "tool_calls": [{"name": "get_weather", "server": "shop", "args": {"city": "Sacramento"}, "error": False,
                        "result": result, "turn": 0}],
        "conversation": {
            "turns": [
                {"role": "user", "content": "What is the weather in Sacramento?"},
                {"role": "assistant", "content": "",
                 "tool_calls": [{"id": call_id, "type": "function",
                                 "function": {"name": "get_weather", "arguments": '{"city": "Sacramento"}'}}]},
                {"role": "tool", "tool_call_id": call_id, "name": "get_weather", "content": "72F in Sacramento"},
                {"role": "assistant", "content": "Answer: 72F in Sacramento"},
            ],
            "tokens": {"input": 250, "output": 50, "total": 300},
        },
        # gpt-4o-mini: 250 x 0.15 + 50 x 0.60 = 67.5 -> 68; claude-haiku-4-5: 250 x 1 + 50 x 5 = 500
        "cost_micros": 68 if api == "openai" else 500,
        "meta": {"model": OPENAI_MODEL if api == "openai" else ANTHROPIC_MODEL, "stopped": "final_response",
                 "stop_reason": "stop" if api == "openai" else "end_turn", "model_calls": 2},
    }


def drop_result_type(run: dict) -> dict:
    """mcp 2.x servers add ``resultType``; the comparisons below are about everything else
    (the run's basis is checked on its own, in the first test)."""
    for call in run["tool_calls"]:
        call["result"].pop("resultType", None)
    run["meta"].pop("basis", None)
    return run


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_each_provider_records_the_expected_run(api, shop, live_env):
    with FakeProvider(tool_then_answer("get_weather", {"city": "Sacramento"})) as fake:
        live_env(fake)
        recording = record_agent(task(shop, api, name="weather selection", system_prompt="Be brief."))
    basis = written(recording)[0]["meta"]["basis"]
    sdk = basis.pop("sdk")
    assert set(sdk) == {"mcp", "openai" if api == "openai" else "anthropic"}
    assert sdk["mcp"] == metadata.version("mcp") and sdk[api] == metadata.version(api)
    assert basis == {"mcptest": __version__,
                     "agent": {"model": MODELS[api], "provider": api,
                               "answered": OPENAI_MODEL if api == "openai" else ANTHROPIC_MODEL,
                               "prompt_sha256": prompt_sha256("What is the weather in Sacramento?", "Be brief.")},
                     "max_turns": 10,
                     "servers": {"shop": {"name": "shop", "version": basis["servers"]["shop"]["version"],
                                          "protocol_version": basis["servers"]["shop"]["protocol_version"]}}}
    assert [drop_result_type(r) for r in written(recording)] == [expected_run(api)]
    assert recording.catalog == {"shop": {"tools": TOOLS}}
    assert recording.meta == {"agent": "weather selection", "recorder": "mcptest live runner",
                              "model": MODELS[api], "prompt": "What is the weather in Sacramento?",
                              "system_prompt": "Be brief."}
    assert recording.notes == ()
    model_id = OPENAI_MODEL if api == "openai" else ANTHROPIC_MODEL
    assert recording.spend == {model_id: Spend(2, Tokens(250, 50, 300), expected_run(api)["cost_micros"])}
    # The wire format on the fake's side: tools presented, system prompt, the result fed back.
    first, second = fake.requests
    assert first.body["model"] == MODELS[api].split(":")[1]
    assert first.tool_names == ["get_weather", "search"] and first.system == "Be brief."
    assert second.results == ["72F in Sacramento"]
    if api == "anthropic":
        assert second.body["messages"][-1]["content"][0]["type"] == "tool_result"
        assert first.body["tools"][0]["input_schema"] == TOOLS[0]["inputSchema"]
    else:
        assert second.body["messages"][-1] == {"role": "tool", "tool_call_id": "call_0_0",
                                               "content": "72F in Sacramento"}
        assert first.body["tools"][0]["function"]["parameters"] == TOOLS[0]["inputSchema"]
    # The cassette reads back as cassette v1.
    cassette = parse_cassette("live.json", dump_cassette(recording.cassette()))
    assert cassette.runs[0].names == ("get_weather",)
    assert cassette.runs[0].final_responses == ("Answer: 72F in Sacramento",)
    assert cassette.runs[0].tokens == Tokens(250, 50, 300)


def test_five_runs_come_back_in_order(shop, live_env):
    with FakeProvider(tool_then_answer("get_weather", {"city": "Sacramento"})) as fake:
        live_env(fake)
        recording = record_agent(task(shop, "openai", runs=5), concurrency=3)
    assert len(recording.runs) == 5
    assert all(drop_result_type(r) == expected_run("openai") for r in written(recording))
    assert recording.spend[OPENAI_MODEL].calls == 10 and len(fake.requests) == 10


def test_runs_are_concurrent_up_to_the_limit_and_equal_to_a_serial_recording(shop, live_env):
    """Four runs meet at a barrier inside the fake: only a runner that really has four
    requests in flight at once gets past it (a serial one would time out)."""
    barrier = threading.Barrier(4, timeout=60)
    base = tool_then_answer("get_weather", {"city": "Sacramento"}, delay=0.05)

    def meeting(seen):
        if not seen.results:
            barrier.wait()
        return base(seen)

    with FakeProvider(meeting) as fake:
        live_env(fake)
        together = record_agent(task(shop, "anthropic", runs=4), concurrency=4)
    assert fake.max_in_flight == 4
    with FakeProvider(base) as fake:
        live_env(fake)
        paired = record_agent(task(shop, "anthropic", runs=4), concurrency=2)
    assert fake.max_in_flight <= 2
    with FakeProvider(base) as fake:
        live_env(fake)
        serial = record_agent(task(shop, "anthropic", runs=4), concurrency=1)
    assert fake.max_in_flight == 1
    dump = lambda rec: json.dumps(as_json(rec.cassette()), sort_keys=True)  # noqa: E731
    assert dump(together) == dump(serial) == dump(paired)


def test_distractors_are_presented_and_answered_not_available(shop, live_env):
    def script(seen):
        if not seen.results:
            return reply(seen, calls=(("convert_currency", {"amount": 1, "from": "USD", "to": "EUR"}),
                                      ("get_weather", {"city": "Sacramento"})))
        return reply(seen, text="done")

    plan = DistractorPlan(count=3, source="catalog")
    with FakeProvider(script) as fake:
        live_env(fake)
        recording = record_agent(task(shop, "openai", distractors=plan))
    expected = inject_distractors(merged_catalog_tools(recording.catalog), 3, "catalog")
    assert fake.requests[0].tool_names == ["get_weather", "search", *expected.distractors]
    assert list(expected.distractors) == ["convert_currency", "get_exchange_rate_history", "get_weather_forecast"]
    run = written(recording)[0]
    assert run["meta"]["distractors"] == list(expected.distractors)
    distractor, real = run["tool_calls"]
    assert distractor == {"name": "convert_currency", "args": {"amount": 1, "from": "USD", "to": "EUR"},
                          "error": True, "turn": 0,
                          "result": {"content": [{"type": "text", "text": "Tool `convert_currency` is not available."}],
                                     "isError": True}}
    assert real["server"] == "shop" and real["error"] is False
    assert fake.requests[1].results == ["Tool `convert_currency` is not available.", "72F in Sacramento"]


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_429_is_retried_and_then_succeeds(api, shop, live_env):
    seen_first = []

    def script(seen):
        if not seen_first:
            seen_first.append(seen)
            return error(seen, 429, "slow down", headers={"retry-after": "0.01"})
        return tool_then_answer("get_weather", {"city": "Sacramento"})(seen)

    with FakeProvider(script) as fake:
        live_env(fake)
        recording = record_agent(task(shop, api))
    assert len(fake.requests) == 3  # the 429, its retry, the final answer
    assert drop_result_type(written(recording)[0]) == expected_run(api)


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_500_three_times_is_one_clear_failure(api, live_env):
    with FakeProvider(lambda seen: error(seen, 500, "the model is on fire", {"retry-after-ms": "5"})) as fake:
        live_env(fake)
        with pytest.raises(LiveError) as info:
            record_agent(AgentTask(model=MODELS[api], prompt="hi", runs=2), concurrency=1)
    message = str(info.value)
    assert len(fake.requests) == 3
    assert message == (f"{MODELS[api]}: HTTP 500 from {fake.url}{'/v1' if api == 'openai' else ''} after 3 "
                       f"attempt(s): the model is on fire (0 of 2 run(s) completed)")
    assert info.value.completed == {}


def test_a_model_that_does_not_answer_in_time_is_one_clear_failure(live_env):
    models = {"openai": {"timeout": 0.3, "max_retries": 0}}
    with FakeProvider(lambda seen: reply(seen, text="late", delay=3)) as fake:
        live_env(fake)
        with pytest.raises(LiveError) as info:
            record_agent(AgentTask(model="openai:gpt-4o-mini", prompt="hi"), models=models)
    assert str(info.value) == (f"openai:gpt-4o-mini: no answer from {fake.url}/v1 within 0.3 s (1 attempt(s)) "
                               "(0 of 1 run(s) completed)")


@pytest.mark.parametrize("api, body, what", [
    ("openai", b"<html>gateway</html>", "the body is not JSON: '<html>gateway</html>'"),
    ("openai", {"id": "x", "object": "chat.completion"}, "no choices[0] in the answer (keys: id, object)"),
    ("openai", {"choices": [{"message": {"content": "x", "tool_calls": [{"function": {}}]}}]},
     "choices[0].message.tool_calls[0] has no function name"),
    ("anthropic", {"type": "message", "content": "text"}, "no 'content' list in the answer (keys: content, type)"),
    ("anthropic", {"content": [{"type": "tool_use", "id": "t"}]}, "content[0] is a tool_use block with no name"),
    ("anthropic", [1, 2], "the answer is not a JSON object (list)"),
    ("anthropic", {"content": [{"type": "text", "text": 7}]}, "content[0].text is not a string"),
])
def test_a_malformed_answer_is_named(api, body, what, live_env):
    with FakeProvider(lambda seen: Answer(body)) as fake:
        live_env(fake)
        with pytest.raises(LiveError) as info:
            record_agent(AgentTask(model=MODELS[api], prompt="hi"))
    base = fake.url + ("/v1" if api == "openai" else "")
    assert str(info.value) == f"{MODELS[api]}: malformed answer from {base}: {what} (0 of 1 run(s) completed)"


def test_usage_that_cannot_be_read_is_absent_not_zero(live_env):
    body = {"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}], "usage": "many"}
    with FakeProvider(lambda seen: Answer(body)) as fake:
        live_env(fake)
        recording = record_agent(AgentTask(model="openai:gpt-4o-mini", prompt="hi"))
    run = written(recording)[0]
    assert "tokens" not in run["conversation"] and "cost_micros" not in run
    assert run["conversation"]["turns"][-1] == {"role": "assistant", "content": "x"}
    assert recording.notes == ("model 'gpt-4o-mini' answered without token usage: tokens and cost_micros are "
                               "not recorded for those runs",)


def test_a_model_that_never_stops_is_stopped_at_max_turns(shop, live_env):
    with FakeProvider(lambda seen: reply(seen, calls=(("get_weather", {"city": "Paris"}),))) as fake:
        live_env(fake)
        recording = record_agent(task(shop, "anthropic", max_turns=3))
    run = written(recording)[0]
    assert len(fake.requests) == 3
    assert [c["turn"] for c in run["tool_calls"]] == [0, 1, 2]
    assert run["meta"]["stopped"] == "max_turns" and run["meta"]["stop_reason"] == "tool_use"
    assert parse_cassette("x.json", dump_cassette(recording.cassette())).runs[0].final_responses == ()


def test_arguments_that_are_not_json_are_recorded_and_not_executed(shop, live_env):
    def script(seen):
        if seen.results:
            return reply(seen, text="sorry")
        answer = reply(seen, calls=(("get_weather", {}),))
        answer.body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = "{city: Paris"
        return answer

    with FakeProvider(script) as fake:
        live_env(fake)
        recording = record_agent(task(shop, "openai"))
    call = written(recording)[0]["tool_calls"][0]
    assert call["args"] == {"_raw": "{city: Paris"} and call["error"] is True
    assert fake.requests[1].results == ["The arguments are not a JSON object: {city: Paris"]


def test_no_api_key_byte_is_returned_or_written(shop, live_env, tmp_path):
    """The fake echoes the request's key back in the model's text, in tool arguments and in
    an error body; none of it survives into the recording, the file or the error."""
    def leaky(seen):
        key = seen.headers.get("x-api-key") or seen.headers["authorization"].split()[-1]
        if not seen.results:
            return reply(seen, calls=(("search", {"q": f"my key is {key}"}),))
        return reply(seen, text=f"your key: {key}")

    with FakeProvider(leaky) as fake:
        live_env(fake)
        recordings = [record_agent(task(shop, api)) for api in ("openai", "anthropic")]
    for recording in recordings:
        path = tmp_path / "cassette.json"
        path.write_text(dump_cassette(recording.cassette()))
        data = path.read_bytes() + repr(recording).encode()
        assert b"<redacted>" in data
        assert OPENAI_KEY.encode() not in data and ANTHROPIC_KEY.encode() not in data

    def refuse(seen):
        key = seen.headers.get("x-api-key") or seen.headers["authorization"].split()[-1]
        return error(seen, 401, f"invalid key {key}")

    for api in ("openai", "anthropic"):
        with FakeProvider(refuse) as fake:
            live_env(fake)
            with pytest.raises(LiveError) as info:
                record_agent(AgentTask(model=MODELS[api], prompt="hi"))
        variable = "OPENAI_API_KEY" if api == "openai" else "ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN"
        assert str(info.value).startswith(f"{MODELS[api]}: the API refused the key in {variable} (HTTP 401): "
                                          f"invalid key <redacted>")
        assert OPENAI_KEY not in str(info.value) and ANTHROPIC_KEY not in str(info.value)


def test_the_item_budget_stops_spending(shop, live_env):
    models = {"openai": {"item_max_tokens": 250}}
    with FakeProvider(tool_then_answer("get_weather", {"city": "Sacramento"})) as fake:
        live_env(fake)
        with pytest.raises(LiveError) as info:
            record_agent(task(shop, "openai", runs=3), models=models, concurrency=1)
    assert str(info.value) == ("openai:gpt-4o-mini: the item's budget of 250 tokens is spent (300 tokens used); "
                               "raise item_max_tokens to record more (1 of 3 run(s) completed)")
    assert list(info.value.completed) == [0] and len(fake.requests) == 2


def test_an_unknown_model_has_no_cost_and_says_so_once(shop, live_env):
    with FakeProvider(lambda seen: reply(seen, text="hi", model="llama3.1:8b")) as fake:
        live_env(fake)
        recording = record_agent(task(shop, "openai", runs=3))
    assert all("cost_micros" not in r for r in written(recording))
    assert all(r["conversation"]["tokens"] == {"input": 100, "output": 20, "total": 120} for r in written(recording))
    assert recording.notes == ("no price is known for model 'llama3.1:8b': cost_micros is not recorded "
                               "(set price: in the suite's models: block)",)
    assert recording.spend["llama3.1:8b"] == Spend(3, Tokens(300, 60, 360), 0)  # tokens counted, no price


def test_a_temperature_the_anthropic_sdk_cannot_send_is_noted(shop, live_env):
    with FakeProvider(lambda seen: reply(seen, text="hi")) as fake:
        live_env(fake)
        recording = record_agent(task(shop, "anthropic"), models={"anthropic": {"temperature": 0.5}})
        sent = record_agent(task(shop, "openai"), models={"openai": {"temperature": 0.5}})
    assert "temperature" not in fake.requests[0].body and fake.requests[1].body["temperature"] == 0.5
    assert recording.notes == ("anthropic:claude-haiku-4-5: the installed SDK takes no temperature; it was not sent",)
    assert sent.notes == ()


def test_a_price_in_the_models_block_prices_any_model(shop, live_env):
    models = {"openai:gpt-4o-mini": {"price": {"input": 1, "output": 2}}}
    with FakeProvider(lambda seen: reply(seen, text="hi", model="llama3.1:8b")) as fake:
        live_env(fake)
        recording = record_agent(task(shop, "openai"), models=models)
    assert written(recording)[0]["cost_micros"] == 100 * 1 + 20 * 2 and recording.notes == ()


def test_a_server_that_cannot_start_is_one_clear_line(live_env, tmp_path):
    broken = ServerSpec("shop", ("mcptest", "mock", "--tools-from", str(tmp_path / "missing.yml")))
    with FakeProvider(lambda seen: reply(seen, text="hi")) as fake:
        live_env(fake)
        with pytest.raises(LiveError) as info:
            record_agent(AgentTask(model="openai:gpt-4o-mini", prompt="hi", servers=(broken,)))
    first = str(info.value).splitlines()[0]
    assert first.startswith("server 'shop': MCP server `") and "missing.yml" in str(info.value)
    assert fake.requests == []
