"""The live tier's parts that need no server: model names, settings, prices, limits, the
presented tool list, secrets, the optional extra."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pytest_mcptest.engine.trace import Tokens
from pytest_mcptest.live.limits import Budget, RateLimiter, SharedRateLimiter, limiter_for
from pytest_mcptest.live.pricing import cost_micros, price_of
from pytest_mcptest.live.provider import (LiveError, ModelRef, ModelSettings, Price,
                                          key_redactor, parse_model, scrub, settings_for)
from pytest_mcptest.live.providers import make_provider
from pytest_mcptest.live.runner import AgentTask, Ledger, Spend, record_agent, spend_lines
from pytest_mcptest.live.servers import ServerSpec, ToolBoard, server_specs


@pytest.mark.parametrize("text, ref", [
    ("anthropic:claude-sonnet-4-5", ModelRef("anthropic", "claude-sonnet-4-5")),
    ("openai:gpt-4o-mini", ModelRef("openai", "gpt-4o-mini")),
    ("openai:llama3.1:8b", ModelRef("openai", "llama3.1:8b")),  # Ollama tags keep their colon
    ("claude-haiku-4-5", ModelRef("anthropic", "claude-haiku-4-5")),
    ("gpt-4o", ModelRef("openai", "gpt-4o")),
    ("o3-mini", ModelRef("openai", "o3-mini")),
])
def test_model_names(text, ref):
    assert parse_model(text) == ref


@pytest.mark.parametrize("text, message", [
    ("gemini:pro", "unknown model provider 'gemini' in 'gemini:pro'; expected one of anthropic, openai"),
    ("llama3", "model 'llama3' names no provider; write anthropic:llama3 or openai:llama3"),
    ("openai:", "model 'openai:' names no model after openai:"),
    (None, "a model must be written provider:name (for example openai:gpt-4o-mini), found None"),
])
def test_bad_model_names(text, message):
    with pytest.raises(LiveError) as info:
        parse_model(text)
    assert str(info.value).startswith(message)


def test_settings_merge_provider_then_model():
    models = {"openai": {"base_url": "http://127.0.0.1:11434/v1", "timeout": 30, "requests_per_minute": 60},
              "openai:gpt-4o-mini": {"timeout": 5, "price": {"input": 0.1, "output": 0.2}},
              "anthropic": {"max_retries": 0}}
    assert settings_for(models, parse_model("openai:gpt-4o-mini")) == ModelSettings(
        base_url="http://127.0.0.1:11434/v1", timeout=5, requests_per_minute=60, price=Price(0.1, 0.2))
    assert settings_for(models, parse_model("openai:gpt-4o")).timeout == 30
    assert settings_for(None, parse_model("anthropic:claude-haiku-4-5")) == ModelSettings()


@pytest.mark.parametrize("models, message", [
    ({"openai": {"timeout": "soon"}}, "models.openai.timeout: expected a number, found 'soon'"),
    ({"openai": {"max_retries": -1}}, "models.openai.max_retries: expected a whole number >= 0, found -1"),
    ({"openai": {"base_url": "localhost:8080"}}, "models.openai.base_url: expected an http(s) URL"),
    ({"openai": {"colour": 1}}, "models.openai: unknown setting 'colour'; expected one of base_url,"),
    ({"openai:gpt-4o-mini": {"price": {"input": 1}}}, "models.openai:gpt-4o-mini.price: expected {input:"),
    ({"openai": [1]}, "models.openai: expected a mapping of settings, found [1]"),
])
def test_bad_settings_name_the_key(models, message):
    with pytest.raises(ValueError) as info:
        settings_for(models, parse_model("openai:gpt-4o-mini"))
    assert str(info.value).startswith(message)


def test_prices():
    assert price_of("claude-sonnet-4-5-20250929") == Price(3, 15)
    assert price_of("gpt-4o-mini-2024-07-18") == Price(0.15, 0.6)
    assert price_of("gpt-4o-2024-08-06") == Price(2.5, 10)  # not gpt-4o-mini's
    assert price_of("openai/gpt-4o-mini") == Price(0.15, 0.6)
    assert price_of("llama3.1:8b") is None and price_of(None) is None
    assert cost_micros(Tokens.of(1200, 320), Price(3, 15)) == 8400
    assert cost_micros(Tokens.of(1, 1), Price(0.15, 0.6)) == 1   # 0.75 rounds half up
    assert cost_micros(Tokens.of(3, 0), Price(0.05, 0.4)) == 0   # 0.15


def test_rate_limiter_waits_for_the_window():
    now = [0.0]
    limiter = RateLimiter(requests_per_minute=2, tokens_per_minute=1000, clock=lambda: now[0])
    assert limiter.try_acquire() == 0 and limiter.try_acquire() == 0
    assert limiter.try_acquire() == 60.0          # the third request waits for the first to age out
    now[0] = 30.0
    assert limiter.try_acquire() == 30.0
    now[0] = 60.0
    assert limiter.try_acquire() == 0
    limiter.spent(1200)                            # over the token limit: wait until it ages out
    now[0] = 61.0
    assert limiter.try_acquire() == 59.0
    now[0] = 120.0
    assert limiter.try_acquire() == 0
    assert RateLimiter().try_acquire() == 0


def test_budget():
    budget = Budget(max_tokens=100, max_cost_micros=50)
    budget.check("m")
    budget.add(Tokens.of(60, 30), 10)
    budget.check("m")
    budget.add(Tokens.of(5, 5), None)
    with pytest.raises(LiveError, match="the item's budget of 100 tokens is spent"):
        budget.check("m")
    cost = Budget(max_cost_micros=50)
    cost.add(None, 50)
    with pytest.raises(LiveError, match=r"budget of \$0.0000 is spent|budget of \$0.0001 is spent"):
        cost.check("m")


def test_tool_board_names_every_tool_so_a_provider_accepts_it():
    catalog = {"a": {"tools": [{"name": "search", "description": "A", "inputSchema": {"properties": {}}},
                               {"name": "fs.read", "description": "R"}]},
               "b": {"tools": [{"name": "search", "description": "B"}, {"name": "a__search"}]}}
    board = ToolBoard(catalog, [{"name": "get_weather", "description": "W"}, {"name": "fs.read"}])
    assert [t.name for t in board.tools] == ["a__search", "fs_read", "b__search", "a__search_2", "get_weather"]
    assert board.tools[0].input_schema == {"properties": {}, "type": "object"}
    assert board.target("b__search").server == "b" and board.target("b__search").name == "search"
    assert board.target("a__search_2").name == "a__search" and board.target("fs_read").name == "fs.read"
    assert board.target("get_weather").distractor and board.distractors == ["get_weather"]
    assert board.target("nope") is None


def test_the_key_redactor_replaces_key_values(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abcdefgh12345")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "short")  # too short to be a key worth hunting
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    assert key_redactor().value({"k": ["x sk-abcdefgh12345 y"], "sk-abcdefgh12345": 1}) == {
        "k": ["x <redacted> y"], "<redacted>": 1}
    assert scrub("an error quoting sk-abcdefgh12345") == "an error quoting <redacted>"
    assert scrub("short") == "short"


def test_a_missing_key_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    with pytest.raises(LiveError) as info:
        make_provider(parse_model("anthropic:claude-haiku-4-5"))
    assert str(info.value) == "anthropic:claude-haiku-4-5: no API key: set ANTHROPIC_API_KEY in the environment"
    with pytest.raises(LiveError) as info:
        record_agent(AgentTask(model="openai:llama3.1", prompt="hi"),
                     models={"openai": {"base_url": "http://127.0.0.1:11434/v1"}})
    assert str(info.value) == ("openai:llama3.1: no API key: set OPENAI_API_KEY in the environment (a local "
                               "OpenAI-compatible server at http://127.0.0.1:11434/v1 accepts any value)")


@pytest.mark.parametrize("sdk, model", [("openai", "openai:gpt-4o-mini"), ("anthropic", "anthropic:claude-haiku-4-5")])
def test_without_the_extra_a_live_request_names_it(sdk, model, monkeypatch):
    monkeypatch.setitem(sys.modules, sdk, None)  # makes `import <sdk>` fail
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-00000000")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-00000000")
    with pytest.raises(LiveError) as info:
        record_agent(AgentTask(model=model, prompt="hi"))
    assert str(info.value) == f"live runs need the `{sdk}` SDK, which is not installed: pip install 'mcptest[live]'"


def test_the_plugin_imports_nothing_live():
    code = ("import sys, pytest_mcptest.plugin, pytest_mcptest.cli; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('openai', 'anthropic', 'httpx2') "
            "or m.startswith('pytest_mcptest.live')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_server_specs_from_the_suites_servers():
    servers = {"shop": {"command": ["mcptest", "mock", "--tools-from", "shop.yml"], "env": {"A": "1"},
                        "cwd": "/srv", "timeout": 5},
               "docs": {"catalog": "catalogs/docs.json"}}
    assert server_specs(servers, ["shop"]) == (
        ServerSpec("shop", ("mcptest", "mock", "--tools-from", "shop.yml"), {"A": "1"}, "/srv", 5.0),)
    with pytest.raises(LiveError, match=r"server 'docs' is a saved catalog with no command; a live run needs"):
        server_specs(servers, ["shop", "docs"])
    with pytest.raises(LiveError, match=r"server 'web' is not in the suite's servers: \(docs, shop\)"):
        server_specs(servers, ["web"])


def test_dry_run_lines_and_spend_lines():
    from pytest_mcptest.engine.conversation import ConversationSpec
    from pytest_mcptest.live.conversation import ConversationTask

    agent = AgentTask(model="openai:gpt-4o-mini", prompt="hi", runs=5, max_turns=4, name="weather",
                      servers=(ServerSpec("shop", ("x",)),))
    assert agent.dry_run() == "'weather': openai:gpt-4o-mini, 5 run(s) of up to 4 model replies, servers: shop"
    chat = ConversationTask(name="w", model="openai:gpt-4o-mini", synthetic_user={"max_turns": 3},
                            evaluation=ConversationSpec(), config={"judge": {"model": "anthropic:claude-haiku-4-5"}})
    assert chat.dry_run() == ("'w': agent openai:gpt-4o-mini, synthetic user openai:gpt-4o-mini, "
                              "judge anthropic:claude-haiku-4-5, 1 run(s) of up to 3 user turns, servers: none")
    judged = AgentTask(model="openai:gpt-4o-mini", prompt="hi", name="world", rubric=("It helps",))
    assert judged.dry_run() == ("'world': openai:gpt-4o-mini, 1 run(s) of up to 10 model replies, then judge "
                                "openai:gpt-4o-mini once per run, servers: none")
    spend = {"b": Spend(2, Tokens.of(250, 50), 68), "a": Spend(1, Tokens.of(10, 2), 0)}
    assert spend_lines(spend) == ["a: 1 call, 12 tokens (10 in, 2 out), cost unknown",
                                 "b: 2 calls, 300 tokens (250 in, 50 out), $0.0001"]


def test_the_ledger_adds_up_each_models_spend():
    ledger = Ledger()
    ledger.add("m", Tokens.of(10, 2), 5)
    ledger.add("m", Tokens.of(20, 4), None)   # no price: the tokens count, the cost does not
    ledger.add("n", None, None)               # no usage: a call, nothing more
    assert ledger.spend() == {"m": Spend(2, Tokens(30, 6, 36), 5), "n": Spend(1, Tokens(0, 0, 0), 0)}
    assert ledger.unpriced == ["m"] and ledger.unmetered == ["n"]
    assert spend_lines(ledger.spend()) == ["m: 2 calls, 36 tokens (30 in, 6 out), $0.0000",
                                           "n: 1 call, 0 tokens (0 in, 0 out), cost unknown"]


def test_a_shared_limiter_holds_across_processes(tmp_path):
    """Two limiters on one file stand for two pytest-xdist workers: each sees the other's requests."""
    now = [1000.0]
    path = str(tmp_path / "rate.json")
    first = SharedRateLimiter(path, requests_per_minute=3, clock=lambda: now[0])
    second = SharedRateLimiter(path, requests_per_minute=3, clock=lambda: now[0])
    assert first.try_acquire() == 0 and second.try_acquire() == 0 and first.try_acquire() == 0
    assert second.try_acquire() == 60.0
    now[0] = 1060.5
    assert second.try_acquire() == 0
    (tmp_path / "rate.json").write_text("{torn")
    assert first.try_acquire() == 0  # a torn file starts a fresh window rather than failing a recording
    shared = limiter_for("openai http://x", 5, None, str(tmp_path))
    assert isinstance(shared, SharedRateLimiter) and shared is limiter_for("openai http://x", 5, None, str(tmp_path))
    assert type(limiter_for("openai http://x", None, None, str(tmp_path))) is RateLimiter


def test_what_the_model_is_shown_of_a_tool_result():
    from pytest_mcptest.live.runner import result_text

    result = {"content": [{"type": "text", "text": "hello"}, {"type": "image", "mimeType": "image/png", "data": "QUJD"},
                          {"type": "resource_link", "uri": "file:///a", "name": "a"}]}
    assert result_text(result) == ('hello\n[image image/png, 4 base64 characters]\n'
                                   '{"name": "a", "type": "resource_link", "uri": "file:///a"}')
    assert result_text({"content": [], "structuredContent": {"t": 72}}) == '{"t": 72}'
    assert result_text({}) == ""


def test_a_bad_base_url_in_the_environment_is_one_line(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-00000000")
    monkeypatch.setenv("OPENAI_BASE_URL", "::not a url::")
    with pytest.raises(LiveError) as info:
        make_provider(parse_model("openai:gpt-4o-mini"))
    assert str(info.value).startswith("openai:gpt-4o-mini: the openai client could not be set up: ")
