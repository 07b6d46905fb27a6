"""The live tier through the OpenAI Responses API (``model: openai-responses:...``) and with
``stream: true``, driven by the official ``openai`` SDK against the loopback fake."""

from __future__ import annotations

import pytest

from live_fake import OPENAI_MODEL, FakeProvider, live_env, reply, shop  # noqa: F401 - fixtures
from pytest_mcptest.formats.cassette import as_json
from pytest_mcptest.engine.trace import Tokens
from pytest_mcptest.live.pricing import PRICES, cost_micros
from pytest_mcptest.live.provider import LiveError, ModelRef, parse_model, settings_for
from pytest_mcptest.live.runner import AgentTask, record_agent


def _script(seen):
    if not seen.results:
        return reply(seen, text="Let me look.", calls=(("get_weather", {"city": "Sacramento"}),), usage=(300, 25))
    return reply(seen, text=f"It is {seen.results[-1]}.", usage=(400, 12))


def _record(fake, live_env, shop, model: str, stream: bool):  # noqa: F811
    live_env(fake)
    models = {model.partition(":")[0]: {"stream": True}} if stream else None
    return as_json(record_agent(AgentTask(model=model, prompt="What is the weather in Sacramento?", servers=(shop,),
                                  runs=1, name="weather", system_prompt="Be brief."), models=models).cassette())


@pytest.mark.parametrize("stream", [False, True])
def test_responses_api_records_a_tool_loop(shop, live_env, stream):  # noqa: F811
    with FakeProvider(_script) as fake:
        cassette = _record(fake, live_env, shop, "openai-responses:gpt-4o-mini", stream)
    first, second = fake.requests
    assert first.api == second.api == "responses" and first.body.get("stream", False) is stream
    assert first.body["instructions"] == "Be brief." and first.tool_names == ["get_weather", "search"]
    assert first.body["tools"][0] == {"type": "function", "name": "get_weather",
                                      "description": "Current weather for a city.",
                                      "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                     "required": ["city"]}}
    # the second request sends the call back as Responses items, with the tool's output
    kinds = [item.get("type", "message") for item in second.body["input"]]
    assert kinds == ["message", "message", "function_call", "function_call_output"]
    assert second.body["input"][3] == {"type": "function_call_output", "call_id": "call_0_0",
                                       "output": "72F in Sacramento"}
    [run] = cassette["runs"]
    assert [(c["name"], c["args"], c["error"]) for c in run["tool_calls"]] == [
        ("get_weather", {"city": "Sacramento"}, False)]
    assert run["conversation"]["tokens"] == {"input": 700, "output": 37, "total": 737}
    assert run["cost_micros"] == (cost_micros(Tokens.of(300, 25), PRICES["gpt-4o-mini"])
                                  + cost_micros(Tokens.of(400, 12), PRICES["gpt-4o-mini"]))
    assert run["conversation"]["turns"][-1]["content"] == "It is 72F in Sacramento."
    assert run["meta"]["model"] == OPENAI_MODEL and cassette["meta"]["model"] == "openai-responses:gpt-4o-mini"


def test_chat_completions_streamed(shop, live_env):  # noqa: F811
    with FakeProvider(_script) as fake:
        cassette = _record(fake, live_env, shop, "openai:gpt-4o-mini", True)
    assert [r.api for r in fake.requests] == ["openai", "openai"]
    assert all(r.body["stream"] is True and r.body["stream_options"] == {"include_usage": True}
               for r in fake.requests)
    [run] = cassette["runs"]
    assert [c["name"] for c in run["tool_calls"]] == ["get_weather"]
    assert run["conversation"]["tokens"] == {"input": 700, "output": 37, "total": 737}
    assert run["conversation"]["turns"][-1]["content"] == "It is 72F in Sacramento."


def test_the_provider_and_the_setting_are_read():
    assert parse_model("openai-responses:gpt-5") == ModelRef("openai-responses", "gpt-5")
    ref = ModelRef("openai-responses", "gpt-5")
    assert settings_for({"openai-responses": {"stream": True}}, ref).stream is True
    with pytest.raises(ValueError, match="models.openai-responses.stream: expected true or false, found 'yes'"):
        settings_for({"openai-responses": {"stream": "yes"}}, ref)
    with pytest.raises(LiveError, match="unknown model provider 'openai-chat'"):
        parse_model("openai-chat:gpt-5")
