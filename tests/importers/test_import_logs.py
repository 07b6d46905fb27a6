"""``mcptest import`` on the log shapes people have, from excerpts of real files (tests/data/logs,
sources and licences in tests/data/README.md): each through the command line and back through the
cassette reader; ``auto``; refusing the wrong kind; the catalog, error shapes, ids and tasks kept.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from pytest_mcptest.formats.cassette import as_json, load_cassette
from pytest_mcptest.cli import main
from pytest_mcptest.errors import InputError
from pytest_mcptest.gates.evaluate import evaluate
from pytest_mcptest import importers
from pytest_mcptest.importers.common import looks_like_error
from pytest_mcptest.importers.detect import detect_kind
from pytest_mcptest.gates.suite_build import load_suite

LOGS = Path(__file__).parents[1] / "data" / "logs"


def import_text(kind: str, path: str, text: str) -> dict:
    """The imported cassette as the JSON the writer writes of it."""
    return as_json(importers.import_text(kind, path, text))


def _import(tmp_path, capsys, kind: str, name: str, *extra: str):
    """Run ``mcptest import KIND FILE -o OUT``; return (the written JSON, the cassette as replay reads
    it, the summary line)."""
    out = tmp_path / (name + ".cassette.json")
    code = main(["import", kind, str(LOGS / name), "-o", str(out), *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(out.read_text()), load_cassette(str(out)), captured.out.strip()


def _calls(data: dict, run: int = 0) -> list:
    return [(c["name"], c.get("args"), c.get("turn")) for c in data["runs"][run]["tool_calls"]]


def _texts(call: dict) -> list:
    return [block["text"] for block in call["result"]["content"]]


# -- every shape, end to end ---------------------------------------------------------------------


def test_claude_code_transcript(tmp_path, capsys):
    data, cassette, line = _import(tmp_path, capsys, "claude-code", "claude-code-sample_session.jsonl")
    assert line.endswith("1 run, 2 tool calls (0 errors, 0 without a result, 0 with arguments that are not "
                         f"valid JSON, kept as text and flagged) from {LOGS / 'claude-code-sample_session.jsonl'}")
    assert [(n, t) for n, _a, t in _calls(data)] == [("Write", 0), ("Bash", 1)]
    bash = data["runs"][0]["tool_calls"][1]
    assert bash["args"]["command"] == "git add . && git commit -m 'Add hello function'"
    assert _texts(bash) == ["[main abc1234] Add hello function\n 1 file changed"]
    assert data["runs"][0]["meta"] == {"sessionId": "test-session-id", "cwd": "/project", "gitBranch": "main"}
    # the summary event is skipped; every message is a turn and the last is the final response
    turns = data["runs"][0]["conversation"]["turns"]
    assert len(turns) == 7 and turns[-1]["content"][0]["text"] == "Done! The hello function is ready."
    assert [c.name for c in cassette.runs[0].tool_calls] == ["Write", "Bash"]


def test_claude_code_merges_one_response_split_over_events():
    usage = {"input_tokens": 10, "output_tokens": 4}
    events = [
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "go"}},
        {"type": "assistant", "sessionId": "s", "message": {"id": "m1", "role": "assistant", "usage": usage,
                                                             "content": [{"type": "text", "text": "two calls"}]}},
        {"type": "assistant", "sessionId": "s", "message": {"id": "m1", "role": "assistant", "usage": usage,
                                                             "content": [{"type": "tool_use", "id": "t1", "name": "A", "input": {}}]}},
        {"type": "assistant", "sessionId": "s", "message": {"id": "m1", "role": "assistant", "usage": usage,
                                                             "content": [{"type": "tool_use", "id": "t2", "name": "B", "input": {}}]}},
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "no such file", "is_error": True},
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}},
        {"type": "assistant", "sessionId": "s", "isSidechain": True, "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "sub", "name": "Grep", "input": {}}]}},
        {"type": "user", "sessionId": "other", "message": {"role": "user", "content": "second session"}},
    ]
    data = import_text("claude-code", "s.jsonl", "\n".join(json.dumps(e) for e in events))
    first, second = data["runs"]
    assert [(c["name"], c["turn"], c["error"]) for c in first["tool_calls"]] == [("A", 0, False), ("B", 0, True)]
    assert first["conversation"]["tokens"] == {"input": 10, "output": 4, "total": 14}  # counted once
    assert len(first["conversation"]["turns"]) == 3
    assert second["meta"] == {"sessionId": "other"} and second["tool_calls"] == []
    bad = [events[0], {"type": "assistant", "message": {"role": "assistant", "content": [{"type": 3}]}}]
    with pytest.raises(InputError) as exc:
        import_text("claude-code", "s.jsonl", "\n".join(json.dumps(e) for e in bad))
    assert exc.value.line == 2 and exc.value.pointer == "/message/content/0/type"
    with pytest.raises(InputError, match="no 'user' or 'assistant' events"):
        import_text("claude-code", "s.jsonl", '{"type": "summary", "summary": "x"}\n')


def test_swe_agent_trajectory(tmp_path, capsys):
    data, cassette, _line = _import(tmp_path, capsys, "swe-agent", "swe-agent-function_calling_simple.traj")
    assert _calls(data) == [("find_file", {"file_name": "missing_colon.py"}, 0),
                            ("open", {"path": "tests/missing_colon.py"}, 1)]
    first = data["runs"][0]["tool_calls"][0]
    assert first["id"] == "call_PbWErNIge3YTrli3fiVvmIid" and first["error"] is False
    assert _texts(first)[0].startswith('Found 1 matches for "missing_colon.py"')
    assert len(cassette.runs[0].tool_calls) == 2


def test_swe_agent_several_ids_demos_and_model_stats():
    traj = {"info": {"model_stats": {"tokens_sent": 900, "tokens_received": 50, "api_calls": 2}},
            "history": [
                {"role": "assistant", "is_demo": True, "tool_calls": [
                    {"id": "d", "type": "function", "function": {"name": "demo", "arguments": "{}"}}]},
                {"role": "assistant", "content": "both", "tool_calls": [
                    {"id": "x", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
                    {"id": "y", "type": "function", "function": {"name": "pwd", "arguments": "{}"}}]},
                {"role": "tool", "content": "out", "tool_call_ids": ["x", "y"]}]}
    run = import_text("swe-agent", "a.traj", json.dumps(traj))["runs"][0]
    assert [(c["name"], c["turn"], _texts(c)) for c in run["tool_calls"]] == [("ls", 0, ["out"]), ("pwd", 0, ["out"])]
    assert run["conversation"]["tokens"] == {"input": 900, "output": 50, "total": 950}
    with pytest.raises(InputError) as exc:
        import_text("swe-agent", "a.traj", json.dumps({"history": [{"role": "tool", "tool_call_ids": "x"}]}))
    assert exc.value.pointer == "/history/0/tool_call_ids" and "must be an array" in exc.value.message


NO_FC = "swe-agent-marshmallow-1867-no-function-calling.traj"


def test_swe_agent_without_function_calling_takes_a_call_per_step(tmp_path, capsys):
    data, cassette, line = _import(tmp_path, capsys, "swe-agent", NO_FC)
    assert line.startswith(f"{tmp_path / (NO_FC + '.cassette.json')}: 1 run, 14 tool calls (1 error, 0 without")
    calls = data["runs"][0]["tool_calls"]
    assert [c["name"] for c in calls] == ["bash", "open", "bash", "create", "edit", "bash", "bash", "find_file",
                                          "open", "edit", "edit", "bash", "bash", "submit"]
    assert [c["turn"] for c in calls] == list(range(14))
    # shell commands as function calling names them; SWE-agent's commands by their signature
    assert calls[0]["args"] == {"command": "ls -F"} and calls[2]["args"] == {"command": "pip install -e .[dev]"}
    assert calls[1]["args"] == {"path": "setup.py"}
    assert calls[7]["args"] == {"file_name": "fields.py", "dir": "src"}  # the quotes are shell quoting
    assert calls[8]["args"] == {"path": "src/marshmallow/fields.py", "line_number": 1474}
    edit = calls[4]["args"]
    assert (edit["start_line"], edit["end_line"]) == (1, 1)
    assert edit["replacement_text"].startswith("from marshmallow.fields import TimeDelta\n")
    assert edit["replacement_text"].endswith('print(td_field.serialize("td_field", obj))')  # end_of_edit dropped
    assert calls[13]["args"] == {}
    # the linter's refusal is the one failed call; a plain answer is a result
    assert [i for i, c in enumerate(calls) if c["error"]] == [9]
    assert _texts(calls[9])[0].startswith("Your proposed edit has introduced new syntax error(s)")
    assert _texts(calls[5]) == ["344\n"]
    assert len(cassette.runs[0].tool_calls) == 14
    # the commands the system prompt documents are the tool definitions the model was given
    tools = {t["name"]: t for t in data["catalog"]["default"]["tools"]}
    assert list(tools) == ["open", "goto", "scroll_down", "scroll_up", "create", "submit", "search_dir",
                           "search_file", "find_file", "edit"]
    assert tools["open"]["inputSchema"] == {"type": "object", "required": ["path"], "properties": {
        "path": {"type": "string", "description": "the path to the file to open"},
        "line_number": {"type": "integer", "description": "the line number to move the window to (if not "
                        "provided, the window will start at the top of the file)"}}}
    assert tools["submit"]["description"] == "submits your current code and terminates the session"


def test_swe_agent_without_a_trajectory_reads_the_actions_in_history():
    traj = json.loads((LOGS / NO_FC).read_text())
    whole = import_text("swe-agent", NO_FC, json.dumps(traj))["runs"][0]["tool_calls"]
    del traj["trajectory"]
    calls = import_text("swe-agent", NO_FC, json.dumps(traj))["runs"][0]["tool_calls"]
    assert [(c["name"], c["args"], c["turn"], c["error"]) for c in calls] == [
        (c["name"], c["args"], c["turn"], c["error"]) for c in whole]
    assert _texts(calls[0])[0].startswith("AUTHORS.rst")  # the message after the action, as the model saw it


def _no_fc(prompt: str, *steps) -> list:
    history = [{"role": "system", "content": prompt}]
    for action, _ in steps:
        history.append({"role": "assistant", "content": action, "action": action})
        history.append({"role": "user", "content": "..."})
    traj = {"history": history, "trajectory": [{"action": a, "observation": o} for a, o in steps]}
    return import_text("swe-agent", "a.traj", json.dumps(traj))["runs"][0]["tool_calls"]


COMMANDS = ("COMMANDS:\ngoto:\n  docstring: moves the window\n  signature: goto <line_number>\n  arguments:\n"
            "    - line_number (integer) [required]: the line\n\nsubmit:\n  docstring: submits\n  signature: submit\n")


def test_swe_agent_actions_that_fit_no_signature_exits_and_failed_shapes():
    calls = _no_fc(COMMANDS, ("goto 12", "[File]"), ("goto", "Usage: goto <line>"), ("goto 1 2", "x"),
                   ("nosuchtool --x", "/bin/bash: line 1: nosuchtool: command not found"),
                   ("python r.py", 'Traceback (most recent call last):\n  File "r.py"'),
                   ("exit_cost", "Exit due to cost limit"), ("", ""), ("submit", "diff"))
    assert [(c["name"], c["args"], c["error"]) for c in calls] == [
        ("goto", {"line_number": 12}, False),
        ("goto", {"command": "goto"}, True),            # a required argument missing: kept whole, and refused
        ("goto", {"command": "goto 1 2"}, False),       # more words than the signature has
        ("bash", {"command": "nosuchtool --x"}, True),
        ("bash", {"command": "python r.py"}, False),    # a traceback is what a reproduction shows
        ("submit", {}, False)]
    for bad, pointer, message in (({"trajectory": {}}, "/trajectory", "'trajectory' must be an array"),
                                  ({"trajectory": [3]}, "/trajectory/0", "a trajectory step must be an object")):
        with pytest.raises(InputError) as exc:
            import_text("swe-agent", "a.traj", json.dumps({"history": [], **bad}))
        assert exc.value.pointer == pointer and message in exc.value.message
    # with no COMMANDS list in the prompt, every action is a shell command
    assert [(c["name"], c["args"]) for c in _no_fc("You are a programmer.", ("open a.py", "[File]"))] == [
        ("bash", {"command": "open a.py"})]


def test_otel_console_exporter_output(tmp_path, capsys):
    data, cassette, _line = _import(tmp_path, capsys, "otel", "pydantic-ai-v5-complex_agent.console.txt")
    assert _calls(data) == [("get_country", {}, 0), ("get_product_name", {}, 0)]
    assert [_texts(c) for c in data["runs"][0]["tool_calls"]] == [["Mexico"], ["Pydantic AI"]]
    assert data["runs"][0]["meta"] == {"trace_id": "1021452b7a4726ea2641357d305bfdec"}
    tools = data["catalog"]["default"]["tools"]
    assert [t["name"] for t in tools] == ["get_country", "get_product_name", "get_weather", "final_result"]
    assert tools[2]["inputSchema"]["required"] == ["city"]
    assert tools[3]["description"] == "The final response which ends this conversation"
    assert set(cassette.catalog) == {"default"}


def test_otel_console_output_with_a_broken_span_names_its_line(tmp_path):
    text = (LOGS / "pydantic-ai-v5-complex_agent.console.txt").read_text()
    broken = text + '{\n    "name": "x",\n    "attributes": {,}\n}\n'
    with pytest.raises(InputError) as exc:
        import_text("otel", "console.txt", broken)
    assert exc.value.line == text.count("\n") + 3
    assert "invalid JSON in the object starting on line" in exc.value.message


def test_otel_older_pydantic_ai_spans_keep_arguments_and_results(tmp_path, capsys):
    data, _cassette, _line = _import(tmp_path, capsys, "otel", "pydantic-ai-v2-complex_agent.otlp.json")
    calls = data["runs"][0]["tool_calls"]
    assert [(c["name"], c["args"], _texts(c)) for c in calls] == [
        ("get_country", {}, ["Mexico"]), ("get_product_name", {}, ["Pydantic AI"])]
    assert len(data["catalog"]["default"]["tools"]) == 4


def test_otel_openai_v2_calls_from_chat_messages(tmp_path, capsys):
    data, cassette, _line = _import(tmp_path, capsys, "otel", "otel-openai-v2-retry_loop.otlp.json")
    calls = data["runs"][0]["tool_calls"]
    assert [(c["name"], c["args"], c["turn"], _texts(c)) for c in calls] == [
        ("get_weather_in_city", {"city": "CDMX"}, 0, ["Did you mean Mexico City?"]),
        ("get_weather_in_city", {"city": "Mexico City"}, 1, ["sunny"])]
    assert calls[0]["id"] == "call_fFAB8MNL3tUdfNIIdsIJTo0H"
    assert data["runs"][0]["conversation"]["tokens"] == {"input": 250, "output": 44, "total": 294}
    assert len(cassette.runs[0].tool_calls) == 2


def _pb_span(trace: bytes, span: bytes, **attrs) -> dict:
    return {"trace_id": base64.b64encode(trace).decode(), "span_id": base64.b64encode(span).decode(),
            "name": "execute_tool", "start_time_unix_nano": "1", "kind": "SPAN_KIND_INTERNAL",
            "status": {"code": "STATUS_CODE_ERROR", "message": "tool raised: quota exceeded"},
            "attributes": [{"key": k, "value": {"string_value": v}} for k, v in attrs.items()]}


def test_otel_protobuf_json_status_messages_and_ids_as_written():
    trace, span = bytes(range(16)), bytes(range(8))
    export = {"resource_spans": [{"scope_spans": [{"spans": [
        _pb_span(trace, span, **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "fetch"})]}]}]}
    run = import_text("otel", "pb.json", json.dumps(export))["runs"][0]
    assert run["meta"] == {"trace_id": trace.hex()}
    (call,) = run["tool_calls"]
    assert call["error"] is True and call["result"] == {"content": [{"type": "text", "text": "tool raised: quota exceeded"}],
                                                        "isError": True}
    # an error span that has a result keeps its status message beside it; a trace id keeps its case
    upper = {"traceId": "ABCDEF0123456789ABCDEF0123456789", "spanId": "00F067AA0BA902B7", "name": "execute_tool x",
             "status": {"status_code": "ERROR", "description": "boom"},
             "attributes": {"gen_ai.tool.call.result": "partial", "task_id": "t-7", "trial": 2}}
    run = import_text("otel", "sdk.json", json.dumps([upper]))["runs"][0]
    assert run["meta"] == {"trace_id": "ABCDEF0123456789ABCDEF0123456789"}
    assert run["task"] == "t-7" and run["trial"] == 2
    assert run["tool_calls"][0]["error_message"] == "boom" and run["tool_calls"][0]["error"] is True


# -- what is kept -------------------------------------------------------------------------------


def test_tau_bench_keeps_task_trial_reward_and_takes_its_tools_file(tmp_path, capsys):
    tools = str(LOGS / "tau-bench-airline-tools-3.json")
    data, cassette, _line = _import(tmp_path, capsys, "openai-chat", "tau-bench-airline-gpt-4o-task1.json",
                                    "--tools", tools)
    assert [(r.task, r.trial, r.meta["reward"]) for r in cassette.runs] == [(1, 0, 0.0), (1, 1, 1.0)]
    assert [t["name"] for t in data["catalog"]["default"]["tools"]] == ["book_reservation", "calculate",
                                                                       "cancel_reservation"]
    assert data["catalog"]["default"]["tools"][1]["inputSchema"]["required"] == ["expression"]
    assert [n for n, _a, _t in _calls(data, 1)] == ["get_user_details", "get_reservation_details"]
    # the per-run gate reads the reward; the catalog makes token_efficiency countable
    (tmp_path / "t.mcptest.yml").write_text(
        f"agents:\n  - name: airline\n    cassette: {tmp_path / 'tau-bench-airline-gpt-4o-task1.json.cassette.json'}\n"
        "    expect:\n      - meta.reward: {exact: 1}\n"
        "    token_efficiency:\n      classes: [{name: user, members: [get_user_details]}]\n"
        "      expect: [{token_efficiency.tool_surface_tokens: {'>': 0}}]\n")
    verdict = evaluate(load_suite(str(tmp_path / "t.mcptest.yml")).blocks[0])
    assert [r.passed for r in verdict.runs] == [False, True]
    assert verdict.envelope["token_efficiency"]["tool_surface_tokens"] > 0


def test_request_tools_become_the_catalog():
    openai = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}],
              "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather.",
                                                          "parameters": {"type": "object"}}}]}
    assert import_text("openai-chat", "r.json", json.dumps(openai))["catalog"] == {
        "default": {"tools": [{"name": "get_weather", "description": "Weather.", "inputSchema": {"type": "object"}}]}}
    anthropic = {"system": "s", "messages": [], "tools": [
        {"name": "get_weather", "input_schema": {"type": "object"}}, {"type": "web_search_20250305", "name": "web_search"}]}
    assert import_text("anthropic", "r.json", json.dumps(anthropic))["catalog"]["default"]["tools"] == [
        {"name": "get_weather", "inputSchema": {"type": "object"}}, {"name": "web_search"}]
    assert "catalog" not in import_text("anthropic", "r.json", json.dumps({"messages": []}))
    with pytest.raises(InputError) as exc:
        import_text("openai-chat", "r.json", json.dumps(dict(openai, tools=[{"type": "function", "function": {}}])))
    assert exc.value.pointer == "/tools/0/function/name"


@pytest.mark.parametrize("text, error", [
    ("Error: unknown region", True),
    ("Error executing tool fetch: timeout", True),
    ("Unknown tool name: 'x'. Available tools: 'a'\n\nFix the errors and try again.", True),
    ('1 validation error:\n```json\n[{"type": "missing"}]\n```\n\nFix the errors and try again.', True),
    ("2 validation errors for Args\ncity\n  Field required [type=missing]", True),
    ("An error occurred while running the tool. Please try again. Error: boom", True),
    ("Errors found: none", False),
    ("no Error here", False),
    ("3 validation checks passed", False),
    ("Fix the errors and try again. Then it worked.", False),
])
def test_error_shapes(text, error):
    assert looks_like_error(text) is error
    msgs = [{"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "1", "content": text}]
    assert import_text("openai-chat", "l.json", json.dumps(msgs))["runs"][0]["tool_calls"][0]["error"] is error
    blocks = [{"role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "f", "input": {}}]},
              {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "1", "content": text}]}]
    assert import_text("anthropic", "l.json", json.dumps(blocks))["runs"][0]["tool_calls"][0]["error"] is error


# -- auto and the wrong kind --------------------------------------------------------------------


@pytest.mark.parametrize("name, kind", [
    ("claude-code-sample_session.jsonl", "claude-code"),
    ("swe-agent-function_calling_simple.traj", "swe-agent"),
    (NO_FC, "swe-agent"),
    ("pydantic-ai-v5-complex_agent.console.txt", "otel"),
    ("pydantic-ai-v2-complex_agent.otlp.json", "otel"),
    ("otel-openai-v2-retry_loop.otlp.json", "otel"),
    ("tau-bench-airline-gpt-4o-task1.json", "openai-chat"),
])
def test_auto_says_what_it_chose_and_matches_the_named_kind(tmp_path, capsys, name, kind):
    assert detect_kind(name, (LOGS / name).read_text()) == kind
    auto, _cassette, line = _import(tmp_path, capsys, "auto", name)
    assert line.endswith(f"from {LOGS / name}, detected as {kind}")
    named = import_text(kind, str(LOGS / name), (LOGS / name).read_text())
    assert auto["runs"] == named["runs"] and auto["meta"]["recorder"] == f"mcptest import {kind}"


def test_a_log_of_another_kind_is_refused_naming_it(tmp_path, capsys):
    out = tmp_path / "c.json"
    openai_log = LOGS / "tau-bench-airline-gpt-4o-task1.json"
    assert main(["import", "anthropic", str(openai_log), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (f"{openai_log}: this looks like a log of kind openai-chat, not anthropic; import it with "
                   "`mcptest import openai-chat` (or `mcptest import auto`)\n")
    assert not out.exists()
    assert main(["import", "openai-chat", str(LOGS / "claude-code-sample_session.jsonl"), "-o", str(out)]) == 2
    assert "looks like a log of kind claude-code, not openai-chat" in capsys.readouterr().err
    assert main(["import", "anthropic", str(LOGS / "otel-openai-v2-retry_loop.otlp.json"), "-o", str(out)]) == 2
    assert "looks like a log of kind otel, not anthropic" in capsys.readouterr().err


def test_auto_that_cannot_tell_exits_2(tmp_path, capsys):
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]))
    assert main(["import", "auto", str(plain), "-o", str(tmp_path / "c.json")]) == 2
    assert "cannot tell which kind of log this is; name it: mcptest import (" in capsys.readouterr().err
    # a log with no mark of any kind is still imported when the kind is named
    assert main(["import", "anthropic", str(plain), "-o", str(tmp_path / "c.json")]) == 0


def test_a_tools_file_that_is_not_one_is_refused(tmp_path, capsys):
    bad = tmp_path / "tools.json"
    bad.write_text('{"functions": []}')
    out = tmp_path / "c.json"
    assert main(["import", "auto", str(LOGS / "tau-bench-airline-gpt-4o-task1.json"), "-o", str(out),
                 "--tools", str(bad)]) == 2
    assert "expected a tools array or an object with 'tools'" in capsys.readouterr().err and not out.exists()


def test_otel_message_and_definition_attributes_that_are_not_json_name_their_place():
    chat = {"traceId": "t", "name": "chat", "attributes": {"gen_ai.operation.name": "chat",
                                                           "gen_ai.output.messages": "[{oops"}}
    with pytest.raises(InputError) as exc:
        import_text("otel", "s.json", json.dumps([chat]))
    assert exc.value.pointer == "/0/attributes/gen_ai.output.messages"
    assert "must be JSON text of a message list" in exc.value.message
    chat["attributes"] = {"gen_ai.operation.name": "chat", "gen_ai.tool.definitions": [{"type": "function"}]}
    with pytest.raises(InputError) as exc:
        import_text("otel", "s.json", json.dumps([chat]))
    assert exc.value.pointer == "/0/attributes/gen_ai.tool.definitions/0/name"


def test_the_docs_describe_every_kind_and_auto():
    from pytest_mcptest.importers import IMPORTERS

    text = (Path(__file__).parents[2] / "docs" / "importing.md").read_text()
    assert [kind for kind in IMPORTERS if f"### `{kind}`" not in text] == []
    assert "## `auto`, and a log of the wrong kind" in text


def test_auto_on_a_file_that_is_not_json_names_the_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"role": "user"},\n  {oops}]\n')
    assert main(["import", "auto", str(bad), "-o", str(tmp_path / "c.json")]) == 2
    assert capsys.readouterr().err.startswith(f"{bad}:2: invalid JSON")
    assert main(["import", "openai-chat", str(bad), "-o", str(tmp_path / "c.json")]) == 2
    assert capsys.readouterr().err.startswith(f"{bad}:2: invalid JSON")


def test_a_cassette_that_does_not_read_back_names_the_log_not_the_output(tmp_path, capsys, monkeypatch):
    """The read-back check once reported its problem against the output cassette, a file that
    was never written; the log is what the user must look at."""
    from pytest_mcptest.formats import cassette as cassette_format

    log = tmp_path / "chat.json"
    log.write_text(json.dumps({"messages": [{"role": "assistant", "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "a", "arguments": "{}"}}]}]}))

    def refuse(path, text):
        raise InputError(path, "a run's tool call is not what a cassette holds", pointer="/runs/0/tool_calls/0")

    monkeypatch.setattr(cassette_format, "parse_cassette", refuse)
    out = tmp_path / "out.json"
    assert main(["import", "openai-chat", str(log), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{log}: imported, this log makes a cassette that cannot be read back")
    assert "(cassette /runs/0/tool_calls/0)" in err and str(out) not in err and not out.exists()
