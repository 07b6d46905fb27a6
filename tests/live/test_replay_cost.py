"""``cost_micros`` on replay: a run with tokens but no cost is priced with the live tier's table."""

from __future__ import annotations

import json

from hypothesis import given, strategies as st

from live_fake import FakeProvider, live_env, reply, shop  # noqa: F401 - fixtures
from pytest_mcptest.formats.cassette import as_json
from pytest_mcptest.engine.trace import Run, Tokens
from pytest_mcptest.gates.evaluate import evaluate
from pytest_mcptest.live.pricing import PRICES, cost_micros, replay_costs
from pytest_mcptest.live.runner import AgentTask, record_agent
from pytest_mcptest.gates.suite_build import load_suite


def _verdict(tmp_path, cassette: dict, extra: str = ""):
    (tmp_path / "c.json").write_text(json.dumps(cassette))
    (tmp_path / "t.mcptest.yml").write_text(
        extra + "agents:\n  - name: weather\n    model: openai:gpt-4o-mini\n    cassette: c.json\n")
    return evaluate(load_suite(str(tmp_path / "t.mcptest.yml")).blocks[0])


def test_replay_cost_equals_the_live_tiers(shop, live_env, tmp_path):  # noqa: F811
    def script(seen):
        if not seen.results:
            return reply(seen, calls=(("get_weather", {"city": "Sacramento"}),), usage=(1200, 40))
        return reply(seen, text=f"It is {seen.results[-1]}.", usage=(1300, 60))

    with FakeProvider(script) as fake:
        live_env(fake)
        recording = record_agent(AgentTask(model="openai:gpt-4o-mini", prompt="Weather in Sacramento?",
                                           servers=(shop,), runs=2, name="weather"))
    live = as_json(recording.cassette())
    billed = [run["cost_micros"] for run in live["runs"]]
    assert billed == [cost_micros(Tokens.of(1200, 40), PRICES["gpt-4o-mini"])
                      + cost_micros(Tokens.of(1300, 60), PRICES["gpt-4o-mini"])] * 2
    for run in live["runs"]:
        del run["cost_micros"]  # what an importer or a recorder without prices writes
    verdict = _verdict(tmp_path, live)
    assert [r.envelope["cost_micros"] for r in verdict.runs] == billed
    assert verdict.notes == ()


def test_a_recorded_cost_is_kept_and_price_in_models_overrides(tmp_path):
    run = {"tool_calls": [], "conversation": {"tokens": {"input": 1000, "output": 100}}}
    verdict = _verdict(tmp_path, {"runs": [dict(run), dict(run, cost_micros=7)]})
    assert [r.envelope["cost_micros"] for r in verdict.runs] == [210, 7]  # 1000 * 0.15 + 100 * 0.6
    verdict = _verdict(tmp_path, {"runs": [run]},
                       "models:\n  openai:gpt-4o-mini: {price: {input: 2, output: 10}}\n")
    assert verdict.runs[0].envelope["cost_micros"] == 3000


def test_the_run_model_prices_it_and_an_unknown_one_is_noted(tmp_path):
    run = {"tool_calls": [], "conversation": {"tokens": {"input": 1000, "output": 100}},
           "meta": {"model": "gpt-4o-2024-08-06"}}
    unknown = dict(run, meta={"model": "acme-large"})
    verdict = _verdict(tmp_path, {"meta": {"model": "openai:gpt-4o-mini"}, "runs": [run, unknown]})
    assert verdict.runs[0].envelope["cost_micros"] == 3500  # gpt-4o: what answered, not the suite's model
    assert "cost_micros" not in verdict.runs[1].envelope
    assert verdict.notes == ("cost_micros left out: no known price for acme-large "
                             "(set price: {input: ..., output: ...} for it under models:)",)
    no_tokens = {"tool_calls": [], "conversation": {"turns": []}}
    assert "cost_micros" not in _verdict(tmp_path, {"runs": [no_tokens]}).runs[0].envelope


@given(st.integers(0, 10**7), st.integers(0, 10**6), st.sampled_from(sorted(PRICES)))
def test_one_reply_costs_the_same_recorded_or_replayed(tokens_in, tokens_out, model):
    [priced], note = replay_costs((Run(tokens=Tokens(tokens_in, tokens_out)),), None,
                                  f"openai:{model}", None)
    assert note is None and priced.cost_micros == cost_micros(Tokens.of(tokens_in, tokens_out), PRICES[model])
