"""``mcptest import``: OpenAI chat, Anthropic Messages and OpenTelemetry GenAI logs -> cassettes.

Every fixture is made here; none comes from a real published log.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.formats.cassette import Cassette, as_json, load_cassette, parse_cassette, write_cassette
from pytest_mcptest.cli import main
from pytest_mcptest.errors import InputError
from pytest_mcptest.gates.evaluate import evaluate
from pytest_mcptest.importers import IMPORTERS, get_importer, import_text
from pytest_mcptest.importers import anthropic, openai_chat, otel
from pytest_mcptest.importers.common import summary
from pytest_mcptest.gates.suite_build import load_suite


def _tc(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _as_written(importer):
    """An importer whose cassette is looked into as the JSON the writer writes of it."""
    return lambda path, text: as_json(importer(path, text))


import_anthropic = _as_written(anthropic.import_anthropic)
import_openai_chat = _as_written(openai_chat.import_openai_chat)
import_otel = _as_written(otel.import_otel)


def _replays(data: dict):
    """The imported cassette, as replay will read it."""
    return parse_cassette("out.json", json.dumps(data))


# -- OpenAI chat completions -----------------------------------------------------------------

OPENAI_RUN_1 = [
    {"role": "system", "content": "You are a weather bot."},
    {"role": "user", "content": "Weather in Sacramento and Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [
        _tc("c1", "get_weather", '{"city": "Sacramento"}'),
        _tc("c2", "get_weather", '{"city": "Paris"}')]},
    {"role": "tool", "tool_call_id": "c2", "content": "18C"},
    {"role": "tool", "tool_call_id": "c1", "content": "72F"},
    {"role": "assistant", "content": None, "tool_calls": [_tc("c3", "get_alerts", '{"city": "Paris"')]},
    {"role": "tool", "tool_call_id": "c3", "content": "Error: unknown region"},
    {"role": "assistant", "content": None, "tool_calls": [_tc("c4", "get_alerts", '{"city": "Paris"}')]},
    {"role": "assistant", "content": "72F in Sacramento, 18C in Paris.",
     "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}},
]
OPENAI_RUN_2 = [
    {"role": "user", "content": "ping"},
    {"role": "assistant", "tool_calls": [_tc("a", "ping", "{}")], "usage": {"prompt_tokens": 5, "completion_tokens": 1}},
    {"role": "tool", "tool_call_id": "a", "content": [{"type": "text", "text": "boom"}], "is_error": True},
    {"role": "assistant", "content": "pong", "usage": {"prompt_tokens": 7, "completion_tokens": 2}},
]


def test_openai_several_runs_parallel_calls_errors_and_missing_results():
    data = import_openai_chat("log.json", json.dumps([OPENAI_RUN_1, OPENAI_RUN_2, []]))
    assert data["mcptest_cassette"] == 1
    assert data["meta"] == {"recorder": "mcptest import openai-chat", "source": "log.json"}
    run1, run2, empty = data["runs"]
    calls = run1["tool_calls"]
    assert [(c["name"], c["turn"]) for c in calls] == [
        ("get_weather", 0), ("get_weather", 0), ("get_alerts", 1), ("get_alerts", 2)]
    # results follow the tool_call_id, not the order the tool messages came in
    assert calls[0]["args"] == {"city": "Sacramento"}
    assert calls[0]["result"] == {"content": [{"type": "text", "text": "72F"}]}
    assert calls[1]["result"]["content"][0]["text"] == "18C"
    # invalid JSON arguments: kept as text and flagged; the "Error..." result is an error
    assert calls[2]["args"] == {"_raw": '{"city": "Paris"'} and calls[2]["args_invalid_json"] is True
    assert calls[2]["error"] is True and calls[2]["result"]["isError"] is True
    # a call nobody answered has no result and is not an error
    assert "result" not in calls[3] and calls[3]["error"] is False
    assert all("args_invalid_json" not in c for c in calls if c is not calls[2])
    assert run1["conversation"]["turns"] == OPENAI_RUN_1
    assert run1["conversation"]["tokens"] == {"input": 100, "output": 20, "total": 120}
    # a message marked as error; usage summed over messages, total computed
    assert run2["tool_calls"][0]["error"] is True
    assert run2["tool_calls"][0]["result"] == {"content": [{"type": "text", "text": "boom"}], "isError": True}
    assert run2["conversation"]["tokens"] == {"input": 12, "output": 3, "total": 15}
    # an empty conversation is a run with nothing in it; no usage means no tokens, not zero
    assert empty == {"tool_calls": [], "conversation": {"turns": []}}
    cassette = _replays(data)
    assert [len(r.tool_calls) for r in cassette.runs] == [4, 1, 0]
    assert cassette.runs[0].final_responses == ("72F in Sacramento, 18C in Paris.",)
    assert summary(_replays(data)) == {"runs": 3, "calls": 5, "errors": 2, "without_result": 1,
                             "invalid_json_args": 1, "unmatched_results": 0}


def test_openai_one_list_is_one_run_and_an_empty_list_one_empty_run():
    data = import_openai_chat("log.json", json.dumps(OPENAI_RUN_2))
    assert len(data["runs"]) == 1 and data["runs"][0]["tool_calls"][0]["name"] == "ping"
    assert import_openai_chat("log.json", "[]")["runs"] == [{"tool_calls": [], "conversation": {"turns": []}}]


def test_openai_object_with_messages_and_tau_bench_style_traj():
    one = import_openai_chat("log.json", json.dumps({"messages": OPENAI_RUN_2, "usage": {"total_tokens": 1}}))
    assert len(one["runs"]) == 1
    assert one["runs"][0]["conversation"]["tokens"] == {"input": 12, "output": 3, "total": 16}
    tau = [{"task_id": 3, "reward": 1.0, "trial": 0, "info": {"big": "ignored"}, "traj": OPENAI_RUN_2},
           {"task_id": 3, "reward": 0.0, "trial": 1, "traj": OPENAI_RUN_1}]
    data = import_openai_chat("tau.json", json.dumps(tau))
    assert [(r["task"], r["trial"]) for r in data["runs"]] == [(3, 0), (3, 1)]
    assert [r["meta"] for r in data["runs"]] == [{"task_id": 3, "reward": 1.0, "trial": 0},
                                                   {"task_id": 3, "reward": 0.0, "trial": 1}]
    assert [len(r["tool_calls"]) for r in data["runs"]] == [1, 4]


def test_openai_reused_call_ids_get_their_own_results():
    # seen in real logs: a later call reuses an earlier call's id
    msgs = [{"role": "user", "content": "go"},
            {"role": "assistant", "tool_calls": [_tc("same", "search", '{"q": 1}')]},
            {"role": "tool", "tool_call_id": "same", "content": "first"},
            {"role": "assistant", "tool_calls": [_tc("same", "search", '{"q": 2}')]},
            {"role": "tool", "tool_call_id": "same", "content": "second"},
            {"role": "tool", "tool_call_id": "nobody", "content": "stray"}]
    run = import_openai_chat("log.json", json.dumps(msgs))["runs"][0]
    assert [c["result"]["content"][0]["text"] for c in run["tool_calls"]] == ["first", "second"]
    assert run["unmatched_results"] == ["nobody"]


def test_openai_legacy_function_call():
    msgs = [{"role": "assistant", "content": None, "function_call": {"name": "lookup", "arguments": '{"k": 1}'}},
            {"role": "function", "name": "lookup", "content": "v"}]
    (call,) = import_openai_chat("log.json", json.dumps(msgs))["runs"][0]["tool_calls"]
    assert call == {"name": "lookup", "args": {"k": 1}, "error": False, "turn": 0,
                    "result": {"content": [{"type": "text", "text": "v"}]}}


def test_openai_jsonl_one_run_per_line_or_one_message_per_line():
    lines = "\n".join(json.dumps({"messages": r}) for r in (OPENAI_RUN_1, OPENAI_RUN_2)) + "\n"
    assert [len(r["tool_calls"]) for r in import_openai_chat("ft.jsonl", lines)["runs"]] == [4, 1]
    per_message = "\n".join(json.dumps(m) for m in OPENAI_RUN_2)
    data = import_openai_chat("msgs.jsonl", per_message)
    assert len(data["runs"]) == 1 and data["runs"][0]["tool_calls"][0]["error"] is True


def test_openai_error_only_when_the_text_starts_with_the_word():
    msgs = [{"role": "assistant", "tool_calls": [_tc("1", "a", "{}"), _tc("2", "b", "{}"), _tc("3", "c", "{}")]},
            {"role": "tool", "tool_call_id": "1", "content": "  Error 404"},
            {"role": "tool", "tool_call_id": "2", "content": "Errors found: none"},
            {"role": "tool", "tool_call_id": "3", "content": "no Error here"}]
    calls = import_openai_chat("log.json", json.dumps(msgs))["runs"][0]["tool_calls"]
    assert [c["error"] for c in calls] == [True, False, False]


@pytest.mark.parametrize("doc, where, words", [
    ([{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [{"id": "1", "function": {"arguments": "{}"}}]}],
     "(at /1/tool_calls/0/function/name)", "a tool call's name is missing"),
    ([[{"role": "user", "content": "x"}], [{"role": "user"}, {"role": "assistant", "tool_calls": [_tc("1", 7, "{}")]}]],
     "(at /1/1/tool_calls/0/function/name)", "must be a string, found number"),
    ([{"role": "assistant", "tool_calls": {"id": "1"}}], "(at /0/tool_calls)", "'tool_calls' must be an array"),
    ([{"role": "assistant", "tool_calls": [{"id": "1", "type": "function"}]}], "(at /0/tool_calls/0)", "needs 'function'"),
    ([{"role": "user", "content": "x"}, "hello"], "(at /1)", "a message must be an object, found string"),
    ([{"role": "user", "content": "x"}, {"content": "no role"}], "(at /1/role)", "'role' is missing"),
    ({"messages": [{"role": "assistant", "usage": {"prompt_tokens": "many"}}]}, "(at /messages/0/usage/prompt_tokens)",
     "must be a number"),
    ({"traj": "nope"}, "(at /traj)", "'traj' must be an array"),
    ({"conversation": []}, "(at /)", "expected a list of messages"),
    ([{"messages": []}, {"role": "user"}], "(at /1)", "a run object needs"),
    ([[], {"role": "user"}], "(at /1)", "must be an array, found object"),
    ([42], "(at /0)", "expected a message"),
    ([{"role": "tool", "tool_call_id": 5}], "(at /0/tool_call_id)", "must be a string"),
])
def test_openai_structural_errors_name_the_json_pointer(doc, where, words):
    with pytest.raises(InputError) as exc:
        import_openai_chat("log.json", json.dumps(doc))
    text = str(exc.value)
    assert text.startswith(f"log.json {where}: "), text
    assert words in text


def test_json_syntax_errors_name_the_line():
    text = '[\n  {"role": "user", "content": "hi"},\n  {"role": "assistant" "content": "x"}\n]\n'
    with pytest.raises(InputError) as exc:
        import_openai_chat("log.json", text)
    assert exc.value.line == 3 and "invalid JSON" in exc.value.message
    assert str(exc.value).startswith("log.json:3: invalid JSON")
    assert '"content"' not in str(exc.value)  # a file that is not JSON is never quoted
    with pytest.raises(InputError, match="empty"):
        import_anthropic("log.json", " \n")
    with pytest.raises(InputError, match="not a JSON number"):
        import_openai_chat("log.json", '[{"role": "user", "content": NaN}]')


def test_jsonl_errors_name_the_bad_line_and_the_pointer_inside_it():
    lines = [json.dumps({"messages": OPENAI_RUN_2}), json.dumps({"messages": OPENAI_RUN_2}), '{"messages": [', ""]
    with pytest.raises(InputError) as exc:
        import_openai_chat("ft.jsonl", "\n".join(lines))
    assert exc.value.line == 3 and "line 3 of JSONL" in exc.value.message
    bad = {"messages": [{"role": "assistant", "tool_calls": [_tc("1", "", "{}")]}]}
    with pytest.raises(InputError) as exc:
        import_openai_chat("ft.jsonl", "\n".join([json.dumps({"messages": []}), "", json.dumps(bad)]))
    assert str(exc.value).startswith("ft.jsonl:3 (at /messages/0/tool_calls/0/function/name): ")
    assert "must not be empty" in str(exc.value)


@settings(max_examples=budget(60), deadline=None)
@given(st.text(max_size=30) | st.sampled_from(["null", "false", "0", '""', "[]", "{}"]))
def test_arguments_are_never_dropped(arguments):
    msgs = [{"role": "assistant", "tool_calls": [_tc("1", "t", arguments)]}]
    (call,) = import_openai_chat("log.json", json.dumps(msgs))["runs"][0]["tool_calls"]
    def strict(name):  # NaN and Infinity are not JSON, whatever Python's json module accepts
        raise ValueError(name)

    try:
        parsed = json.loads(arguments, parse_constant=strict)
    except ValueError:
        assert call["args"] == {"_raw": arguments} and call["args_invalid_json"] is True
    else:
        if parsed == parsed:  # NaN aside; `null` arguments are absent ones, which the writer leaves out
            assert call.get("args") == parsed and "args_invalid_json" not in call
    _replays({"mcptest_cassette": 1, "runs": [{"tool_calls": [call]}]})


# -- Anthropic Messages ---------------------------------------------------------------------

ANTHROPIC_RUN = {
    "model": "claude-x",
    "system": "Be brief.",
    "messages": [
        {"role": "user", "content": "Weather in Sacramento and Paris?"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Checking both."},
            {"type": "tool_use", "id": "tu1", "name": "get_weather", "input": {"city": "Sacramento"}},
            {"type": "tool_use", "id": "tu2", "name": "get_weather", "input": {"city": "Paris"}}],
         "usage": {"input_tokens": 50, "output_tokens": 10, "cache_read_input_tokens": 30}},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tu2", "content": "18C"},
            {"type": "tool_result", "tool_use_id": "tu1", "content": [{"type": "text", "text": "unknown city"}],
             "is_error": True}]},
        {"role": "assistant", "content": [
            {"type": "mcp_tool_use", "id": "m1", "name": "forecast", "server_name": "wx", "input": '{"days": 3'},
            {"type": "tool_use", "id": "tu3", "name": "get_alerts", "input": {}}],
         "usage": {"input_tokens": 90, "output_tokens": 5}},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "m9", "content": "stray"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Paris is 18C."}]},
    ],
}


def test_anthropic_blocks_parallel_calls_errors_missing_results_and_usage():
    data = import_anthropic("claude.json", json.dumps([ANTHROPIC_RUN, {"messages": []}]))
    assert data["meta"]["recorder"] == "mcptest import anthropic"
    run, empty = data["runs"]
    calls = run["tool_calls"]
    assert [(c["name"], c["turn"]) for c in calls] == [
        ("get_weather", 0), ("get_weather", 0), ("forecast", 1), ("get_alerts", 1)]
    assert calls[0]["error"] is True and calls[0]["result"]["isError"] is True
    assert calls[1] == {"name": "get_weather", "id": "tu2", "args": {"city": "Paris"}, "error": False, "turn": 0,
                        "result": {"content": [{"type": "text", "text": "18C"}]}}
    assert calls[2]["server"] == "wx" and calls[2]["args"] == {"_raw": '{"days": 3'}
    assert calls[2]["args_invalid_json"] is True and "result" not in calls[2] and "result" not in calls[3]
    assert run["unmatched_results"] == ["m9"]
    assert run["conversation"]["tokens"] == {"input": 170, "output": 15, "total": 185}
    assert run["conversation"]["turns"][0] == {"role": "system", "content": "Be brief."}
    assert run["meta"] == {"model": "claude-x"}
    assert empty == {"tool_calls": [], "conversation": {"turns": []}}
    cassette = _replays(data)
    assert cassette.runs[0].final_responses == ("Paris is 18C.",)
    assert cassette.runs[0].tool_calls[2].server == "wx"


def test_anthropic_message_list_and_list_of_lists():
    msgs = ANTHROPIC_RUN["messages"]
    assert len(import_anthropic("c.json", json.dumps(msgs))["runs"]) == 1
    data = import_anthropic("c.json", json.dumps([msgs, msgs[:2]]))
    assert [len(r["tool_calls"]) for r in data["runs"]] == [4, 2]
    assert all("result" not in c for c in data["runs"][1]["tool_calls"])


@pytest.mark.parametrize("messages, where, words", [
    ([{"role": "assistant", "content": [{"type": "tool_use", "id": "x", "input": {}}]}],
     "/messages/0/content/0/name", "'name' is missing"),
    ([{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}],
     "/messages/0/content/0/tool_use_id", "'tool_use_id' is missing"),
    ([{"role": "assistant", "content": [{"type": "tool_use", "id": "x", "name": "t"}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "is_error": "yes"}]}],
     "/messages/1/content/0/is_error", "true or false"),
    ([{"role": "user", "content": [{"type": "tool_use", "id": "x", "name": "t"}]}],
     "/messages/0/content/0/type", "belongs in an assistant message"),
    ([{"role": "assistant", "content": ["text"]}], "/messages/0/content/0", "a content block must be an object"),
    ([{"role": "assistant", "content": 3}], "/messages/0/content", "must be an array"),
    ([{"role": "assistant", "content": [{"text": "no type"}]}], "/messages/0/content/0/type", "'type' must be a string"),
])
def test_anthropic_structural_errors(messages, where, words):
    with pytest.raises(InputError) as exc:
        import_anthropic("c.json", json.dumps({"messages": messages}))
    assert exc.value.pointer == where and words in exc.value.message


# -- OpenTelemetry GenAI ----------------------------------------------------------------------


def _span(trace, span_id, start, op, parent=None, status=None, **attrs):
    out = {"name": f"{op} x", "context": {"trace_id": trace, "span_id": span_id}, "parent_id": parent,
           "start_time": start, "attributes": dict({"gen_ai.operation.name": op}, **attrs)}
    if status:
        out["status"] = {"status_code": status}
    return out


SPANS = [  # the file order is not the time order
    _span("0xbbb", "b1", "2025-01-01T10:00:05Z", "chat", **{"gen_ai.usage.input_tokens": 7}),
    _span("0xaaa", "a3", "2025-01-01T09:00:03.5Z", "execute_tool", status="ERROR",
          **{"gen_ai.tool.name": "fetch", "gen_ai.tool.call.arguments": "{bad", "gen_ai.tool.call.result": "timeout"}),
    _span("0xaaa", "a0", "2025-01-01T09:00:00Z", "invoke_agent", **{"gen_ai.usage.input_tokens": 999}),
    _span("0xaaa", "a1", "2025-01-01T09:00:01Z", "chat", parent="a0",
          **{"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 10}),
    _span("0xaaa", "a2", "2025-01-01T09:00:02.25+00:00", "execute_tool", parent="a0",
          **{"gen_ai.tool.name": "search", "gen_ai.tool.call.arguments": '{"q": "mcp"}',
             "gen_ai.tool.call.result": '["hit"]', "gen_ai.tool.call.id": "call_1"}),
    _span("0xaaa", "a2b", "2025-01-01T09:00:02.5Z", "execute_tool", parent="a0", **{"gen_ai.tool.name": "lookup"}),
    _span("0xaaa", "a4", "2025-01-01T09:00:03Z", "chat", parent="a0",
          **{"gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 12}),
]


def test_otel_span_array_grouped_by_trace_and_ordered_by_time():
    data = import_otel("spans.json", json.dumps(SPANS))
    assert data["meta"]["recorder"] == "mcptest import otel"
    run_a, run_b = data["runs"]  # trace aaa started first
    assert run_a["meta"] == {"trace_id": "aaa"}
    calls = run_a["tool_calls"]
    assert [(c["name"], c.get("turn")) for c in calls] == [("search", 0), ("lookup", 0), ("fetch", 1)]
    assert calls[0]["args"] == {"q": "mcp"} and calls[0]["id"] == "call_1"
    assert calls[0]["result"] == {"content": [{"type": "text", "text": '["hit"]'}]}
    assert "args" not in calls[1] and "result" not in calls[1] and calls[1]["error"] is False
    assert calls[2]["error"] is True and calls[2]["args"] == {"_raw": "{bad"} and calls[2]["args_invalid_json"]
    # chat spans only; the agent span's own total is not added on top
    assert run_a["conversation"]["tokens"] == {"input": 220, "output": 22, "total": 242}
    assert run_b == {"tool_calls": [], "conversation": {"turns": [], "tokens": {"input": 7}},
                     "meta": {"trace_id": "bbb"}}
    _replays(data)


def _otlp_attr(key, value):
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _otlp_span(trace, span_id, start_ns, code=0, **attrs):
    return {"traceId": trace, "spanId": span_id, "name": "span", "startTimeUnixNano": str(start_ns),
            "endTimeUnixNano": str(start_ns + 10), "status": {"code": code} if code else {},
            "attributes": [_otlp_attr(k, v) for k, v in attrs.items()]}


def _export(*spans):
    return {"resourceSpans": [{"resource": {"attributes": []},
                               "scopeSpans": [{"scope": {"name": "agent"}, "spans": list(spans)}]}]}


OTLP = _export(
    _otlp_span("t1", "s2", 2000, code=2, **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "delete",
                                            "gen_ai.tool.call.arguments": '{"id": 4}'}),
    _otlp_span("t1", "s1", 1000, **{"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 40,
                                    "gen_ai.usage.output_tokens": 4}),
    _otlp_span("t1", "s0", 500, **{"gen_ai.operation.name": "invoke_agent"}),
)


def test_otel_otlp_export_with_typed_attribute_lists():
    data = import_otel("trace.json", json.dumps(OTLP))
    (run,) = data["runs"]
    assert run["tool_calls"] == [{"name": "delete", "args": {"id": 4}, "error": True, "turn": 0}]
    assert run["conversation"]["tokens"] == {"input": 40, "output": 4, "total": 44}


def test_otel_usage_falls_back_to_the_outermost_span_that_reports_it():
    spans = [_span("t", "root", 1, "invoke_agent", **{"gen_ai.usage.input_tokens": 30, "gen_ai.usage.output_tokens": 3}),
             _span("t", "kid", 2, "invoke_agent", parent="root", **{"gen_ai.usage.input_tokens": 10}),
             _span("t", "tool", 3, "execute_tool", parent="kid", **{"gen_ai.tool.name": "x"})]
    (run,) = import_otel("s.json", json.dumps(spans))["runs"]
    assert run["conversation"]["tokens"] == {"input": 30, "output": 3, "total": 33}
    assert "turn" not in run["tool_calls"][0]  # no chat span before it


def test_otel_jsonl_of_spans_and_of_exports():
    text = "\n".join(json.dumps(s) for s in SPANS) + "\n"
    assert [len(r["tool_calls"]) for r in import_otel("spans.jsonl", text)["runs"]] == [3, 0]
    text = json.dumps(OTLP) + "\n" + json.dumps(_export(
        _otlp_span("t2", "x", 10, **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "ping"})))
    assert [r["tool_calls"][0]["name"] for r in import_otel("otlp.jsonl", text)["runs"]] == ["ping", "delete"]


def test_otel_tool_span_named_by_its_span_name():
    spans = [{"traceId": "t", "name": "execute_tool get_time", "attributes": {}}]
    assert import_otel("s.json", json.dumps(spans))["runs"][0]["tool_calls"][0]["name"] == "get_time"


def test_otel_errors_with_positions():
    no_name = _export(_otlp_span("t", "s", 1, **{"gen_ai.operation.name": "execute_tool"}))
    with pytest.raises(InputError) as exc:
        import_otel("t.json", json.dumps(no_name))
    assert exc.value.pointer == "/resourceSpans/0/scopeSpans/0/spans/0/attributes"
    assert "'gen_ai.tool.name' is missing" in exc.value.message
    bad_attr = _export({"traceId": "t", "attributes": [{"value": {"stringValue": "x"}}]})
    with pytest.raises(InputError) as exc:
        import_otel("t.json", json.dumps(bad_attr))
    assert exc.value.pointer == "/resourceSpans/0/scopeSpans/0/spans/0/attributes/0/key"
    with pytest.raises(InputError) as exc:
        import_otel("t.json", json.dumps([SPANS[0], dict(SPANS[1], start_time="yesterday")]))
    assert exc.value.pointer == "/1/start_time"
    with pytest.raises(InputError) as exc:
        import_otel("t.json", json.dumps([SPANS[0], "span"]))
    assert exc.value.pointer == "/1" and "a span must be an object" in exc.value.message
    with pytest.raises(InputError, match="no spans found"):
        import_otel("t.json", "[]")
    with pytest.raises(InputError, match="expected an array of spans"):
        import_otel("t.json", '{"data": []}')
    text = json.dumps(SPANS[0]) + "\n" + json.dumps(SPANS[1]) + "\n{not json}\n"
    with pytest.raises(InputError) as exc:
        import_otel("t.jsonl", text)
    assert exc.value.line == 3 and str(exc.value).startswith("t.jsonl:3: invalid JSON on line 3 of JSONL")
    text = json.dumps(SPANS[0]) + "\n" + json.dumps({"attributes": 5}) + "\n"
    with pytest.raises(InputError) as exc:
        import_otel("t.jsonl", text)
    assert str(exc.value).startswith("t.jsonl:2 (at /attributes): 'attributes' must be an array")


# -- writing and the command line ------------------------------------------------------------


def test_registry_is_lazy_and_complete():
    assert set(IMPORTERS) == {"openai-chat", "anthropic", "otel", "claude-code", "swe-agent", "mcp-cassette",
                              "mcp-recorder", "openai-responses", "openai-agents", "inspect-ai"}
    assert get_importer("otel") is otel.import_otel
    assert import_text("anthropic", "c.json", "[]").runs[0].tool_calls == ()


def test_write_cassette_refuses_to_overwrite(tmp_path):
    path = tmp_path / "sub" / "c.json"
    cassette = openai_chat.import_openai_chat("log.json", json.dumps(OPENAI_RUN_2))
    write_cassette(str(path), cassette)
    with pytest.raises(FileExistsError):
        write_cassette(str(path), Cassette(runs=()))
    assert json.loads(path.read_text()) == as_json(cassette)
    write_cassette(str(path), Cassette(runs=()), overwrite=True)
    assert json.loads(path.read_text())["runs"] == []


def test_cli_import_writes_and_summarises(tmp_path, capsys):
    log = tmp_path / "log.json"
    log.write_text(json.dumps([OPENAI_RUN_1, OPENAI_RUN_2]))
    out = tmp_path / "c.json"
    assert main(["import", "openai-chat", str(log), "-o", str(out)]) == 0
    line = capsys.readouterr().out.strip()
    assert line == (f"{out}: 2 runs, 5 tool calls (2 errors, 1 without a result, 1 with arguments that are "
                    f"not valid JSON, kept as text and flagged) from {log}")
    assert len(load_cassette(str(out)).runs) == 2
    # refuse to overwrite without --force; the file is left as it was
    before = out.read_text()
    log.write_text(json.dumps(OPENAI_RUN_2))
    assert main(["import", "openai-chat", str(log), "-o", str(out)]) == 2
    assert "already exists; pass --force" in capsys.readouterr().err
    assert out.read_text() == before
    assert main(["import", "openai-chat", str(log), "--force", "-o", str(out)]) == 0
    assert len(load_cassette(str(out)).runs) == 1
    # never overwrite the input, even with --force
    assert main(["import", "openai-chat", str(log), "-o", str(log), "--force"]) == 2
    assert "is the file being imported" in capsys.readouterr().err
    assert json.loads(log.read_text()) == OPENAI_RUN_2
    assert main(["import", "openai-chat", str(log), "-o", str(tmp_path), "--force"]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_cli_import_other_kinds(tmp_path, capsys):
    (tmp_path / "a.json").write_text(json.dumps(ANTHROPIC_RUN))
    (tmp_path / "o.jsonl").write_text("\n".join(json.dumps(s) for s in SPANS))
    assert main(["import", "anthropic", str(tmp_path / "a.json"), "-o", str(tmp_path / "a.cassette.json")]) == 0
    assert "1 run, 4 tool calls (1 error, 2 without a result, 1 with" in capsys.readouterr().out
    assert main(["import", "otel", str(tmp_path / "o.jsonl"), "-o", str(tmp_path / "o.cassette.json")]) == 0
    assert ", 1 results matching no call" not in capsys.readouterr().out


def test_cli_import_bad_input_exits_2_with_the_position(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('[\n  {"role": "user"},\n  {"role": "assistant", "tool_calls": [{"function": {"name": 3}}]}\n]')
    out = tmp_path / "c.json"
    assert main(["import", "openai-chat", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{bad} (at /1/tool_calls/0/function/name): a tool call's name must be a string" in err
    assert "Traceback" not in err and not out.exists()
    bad.write_text("[{]")
    assert main(["import", "anthropic", str(bad), "-o", str(out)]) == 2
    assert f"{bad}:1: invalid JSON" in capsys.readouterr().err
    bad.write_bytes(b"\xff\xfe")
    assert main(["import", "otel", str(bad), "-o", str(out)]) == 2
    assert "not UTF-8" in capsys.readouterr().err
    assert main(["import", "otel", str(tmp_path / "missing.json"), "-o", str(out)]) == 2
    assert "cannot read" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["import", "langchain", str(bad), "-o", str(out)])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["import", "otel", str(bad)])
    assert exc.value.code == 2
    assert not out.exists()


# -- round trip: an imported log replays under the gates -------------------------------------

ROUND_TRIP_SUITE = """\
agents:
  - name: weather
    prompt: Weather in Sacramento and Paris?
    cassette: imported.json
    expected_trace:
      mode: unordered
      calls:
        - {name: get_weather, args: {exact: {city: Paris}}}
        - {name: get_weather, args: {exact: {city: Sacramento}}}
        - get_alerts
        - get_alerts
    expect:
      - tool_calls[2].error: {exact: true}
      - tool_calls[2].args._raw: {regex: "Paris"}
      - final_response: {contains: "18C"}
      - conversation.tokens.total: {"==": 120}
scenarios:
  - name: weather world
    cassette: imported.json
    seed: {lookups: 0}
    transitions:
      - tool: get_weather
        effect: {lookups: {inc: 1}}
      - tool: get_alerts
    expect_state: {lookups: 2}
"""


def test_an_imported_log_replays_in_a_suite(tmp_path, capsys, monkeypatch):
    (tmp_path / "log.json").write_text(json.dumps(OPENAI_RUN_1))
    monkeypatch.chdir(tmp_path)
    assert main(["import", "openai-chat", "log.json", "-o", "imported.json"]) == 0
    (tmp_path / "w.mcptest.yml").write_text(ROUND_TRIP_SUITE)
    agent, scenario = load_suite(str(tmp_path / "w.mcptest.yml")).blocks
    verdict = evaluate(agent)
    assert verdict.passed, verdict.failures
    assert verdict.envelope["tool_names"] == ["get_weather", "get_weather", "get_alerts", "get_alerts"]
    assert evaluate(scenario).passed
    capsys.readouterr()
    assert main(["scenario", "run", "w.mcptest.yml"]) == 0
    assert "1 passed" in capsys.readouterr().out
