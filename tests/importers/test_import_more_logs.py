"""The log shapes added for the recorders, the web export of Claude Code, the OpenAI Responses API,
the OpenAI Agents SDK and inspect_ai, each imported from a real public sample under tests/data/logs
(sources and licences in tests/data/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_mcptest.formats.cassette import as_json, load_cassette
from pytest_mcptest.cli import main
from pytest_mcptest.errors import InputError
from pytest_mcptest import importers
from pytest_mcptest.importers import read_log
from pytest_mcptest.importers.detect import detect_kind

LOGS = Path(__file__).parents[1] / "data" / "logs"


def import_text(kind: str, path: str, text: str) -> dict:
    """The imported cassette as the JSON the writer writes of it."""
    return as_json(importers.import_text(kind, path, text))


def _import(tmp_path, capsys, kind: str, name: str):
    """``mcptest import KIND FILE -o OUT``: (the written JSON, the cassette as replay reads it, the line)."""
    out = tmp_path / (name + ".cassette.json")
    code = main(["import", kind, str(LOGS / name), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(out.read_text()), load_cassette(str(out)), captured.out.strip()


def _calls(data: dict, run: int = 0) -> list:
    return [(c["name"], c.get("args"), c["error"]) for c in data["runs"][run]["tool_calls"]]


# -- the MCP recorders ---------------------------------------------------------------------------


def test_mcp_recorder_cassette(tmp_path, capsys):
    data, cassette, line = _import(tmp_path, capsys, "mcp-recorder", "mcp-recorder-mock_session.json")
    assert "1 run, 4 tool calls (0 errors" in line
    assert _calls(data) == [("add", {"a": 2, "b": 3}, False), ("multiply", {"a": 3.5, "b": 2.0}, False),
                            ("echo", {"message": "hello mcp-recorder"}, False),
                            ("get_weather", {"city": "London"}, False)]
    weather = data["runs"][0]["tool_calls"][3]
    assert weather["server"] == "Test Calculator"  # the name the server gave at initialize
    assert weather["result"]["structuredContent"] == {"city": "London", "temp_c": 22, "condition": "sunny",
                                                       "humidity": 45}
    tools = data["catalog"]["Test Calculator"]["tools"]
    assert [t["name"] for t in tools] == ["add", "multiply", "echo", "get_weather"]
    assert tools[0]["outputSchema"]["required"] == ["result"]  # the tools/list answer is kept whole
    assert data["meta"]["recorded_at"] == "2026-02-17T20:25:23.855390+00:00"
    assert "turn" not in weather and "tokens" not in data["runs"][0]["conversation"]
    assert [c.name for c in cassette.runs[0].tool_calls] == ["add", "multiply", "echo", "get_weather"]


def test_mcp_cassette_python_format_pairs_by_sender(tmp_path, capsys):
    # the server's sampling request reuses no client id, but its answer comes from the client:
    # it is neither a call nor a result
    data, _cassette, line = _import(tmp_path, capsys, "mcp-cassette", "mcp-cassette-sampling.mcp.json")
    assert "1 run, 1 tool call (0 errors" in line
    [call] = data["runs"][0]["tool_calls"]
    assert (call["name"], call["server"], call["args"]) == ("summarize", "echo-example",
                                                            {"text": "a very long document"})
    assert call["result"]["content"] == [{"type": "text", "text": "summary: A tiny summary."}]
    assert "unmatched_results" not in data["runs"][0]


def test_mcp_cassette_npm_format_reads_the_frames(tmp_path, capsys):
    data, _cassette, line = _import(tmp_path, capsys, "mcp-cassette",
                                    "mcp-cassette-npm-tiny-server.golden.cassette.jsonl")
    assert "1 run, 0 tool calls" in line
    assert [t["name"] for t in data["catalog"]["tiny-server"]["tools"]] == ["echo", "add", "slugify"]
    assert data["meta"]["recorded_at"] == "2026-08-15T14:02:44.380Z"


def test_mcp_errors_a_json_rpc_error_and_is_error():
    frames = [
        {"type": "header", "cassetteVersion": 2},
        {"type": "frame", "dir": "c2s", "frame": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                  "params": {"name": "a", "arguments": {}}}},
        {"type": "frame", "dir": "c2s", "frame": {"jsonrpc": "2.0", "id": "1", "method": "tools/call",
                                                  "params": {"name": "b"}}},
        {"type": "frame", "dir": "s2c", "frame": {"jsonrpc": "2.0", "id": "1", "error": {"code": -32602,
                                                                                        "message": "bad"}}},
        {"type": "frame", "dir": "s2c", "frame": {"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": "nope"}], "isError": True}}},
        {"type": "frame", "dir": "s2c", "frame": {"jsonrpc": "2.0", "id": 9, "result": {}}},
    ]
    data = import_text("mcp-cassette", "c.jsonl", "\n".join(json.dumps(f) for f in frames))
    run = data["runs"][0]
    # ids 1 and "1" are two requests; each answer goes to its own
    assert [(c["name"], c["error"], c["result"]["content"][0]["text"]) for c in run["tool_calls"]] == [
        ("a", True, "nope"), ("b", True, "bad")]
    assert "args" not in run["tool_calls"][1] and run["unmatched_results"] == [9]
    frames[1]["dir"] = "up"
    with pytest.raises(InputError) as exc:
        import_text("mcp-cassette", "c.jsonl", "\n".join(json.dumps(f) for f in frames))
    assert exc.value.line == 2 and "'dir' must be c2s or s2c" in exc.value.message


def test_mcp_recorder_without_interactions_is_refused():
    with pytest.raises(InputError) as exc:
        import_text("mcp-recorder", "r.json", '{"version": "1.0"}')
    assert "expected an mcp-recorder cassette" in exc.value.message


# -- Claude Code's web export --------------------------------------------------------------------


def test_claude_code_loglines_export(tmp_path, capsys):
    data, _cassette, line = _import(tmp_path, capsys, "claude-code", "claude-code-web-sample_session.json")
    assert "1 run, 12 tool calls (1 error" in line
    names = [c["name"] for c in data["runs"][0]["tool_calls"]]
    assert names == ["Write", "Bash", "TodoWrite", "Bash", "Bash", "Glob", "Edit", "Grep", "Bash", "Edit",
                     "Bash", "Edit"]
    failed = data["runs"][0]["tool_calls"][8]
    assert failed["error"] and failed["args"]["command"] == "python -m pytest tests/ -v"
    assert failed["result"]["content"][0]["text"].startswith("Exit code 1")
    assert "tokens" not in data["runs"][0]["conversation"]  # the export reports no usage


# -- auto and the wrong kind ---------------------------------------------------------------------

NEW_SHAPES = [
    ("mcp-recorder-mock_session.json", "mcp-recorder"),
    ("mcp-cassette-sampling.mcp.json", "mcp-cassette"),
    ("mcp-cassette-npm-tiny-server.golden.cassette.jsonl", "mcp-cassette"),
    ("claude-code-web-sample_session.json", "claude-code"),
    ("openai-responses-function-call.json", "openai-responses"),
    ("openai-responses-mcp-call.json", "openai-responses"),
    ("inspect-ai-browser.json", "inspect-ai"),
    ("inspect-ai-log_message_deduplication.eval", "inspect-ai"),
    ("openai-agents-trace.jsonl", "openai-agents"),
]


@pytest.mark.parametrize("name, kind", NEW_SHAPES)
def test_auto_tells_the_new_shapes_apart(tmp_path, capsys, name, kind):
    text = read_log(str(LOGS / name))
    assert detect_kind(name, text) == kind
    auto, _cassette, line = _import(tmp_path, capsys, "auto", name)
    assert line.endswith(f"detected as {kind}")
    assert auto["runs"] == import_text(kind, name, text)["runs"]


@pytest.mark.parametrize("name, kind", NEW_SHAPES)
def test_a_new_shape_named_as_another_kind_is_refused_naming_it(tmp_path, capsys, name, kind):
    wrong = "openai-chat" if kind != "openai-chat" else "anthropic"
    out = tmp_path / "c.json"
    assert main(["import", wrong, str(LOGS / name), "-o", str(out)]) == 2
    assert f"this looks like a log of kind {kind}, not {wrong}" in capsys.readouterr().err
    assert not out.exists()


# -- the OpenAI Responses API --------------------------------------------------------------------


def test_responses_function_call_over_two_exchanges_is_one_run(tmp_path, capsys):
    data, cassette, line = _import(tmp_path, capsys, "openai-responses", "openai-responses-function-call.json")
    assert "1 run, 1 tool call (0 errors" in line
    [call] = data["runs"][0]["tool_calls"]
    assert (call["name"], call["id"], call["args"], call["turn"]) == (
        "get_capital", "call_YfwRsW8sUxDKipwyhWTzOXCA", {"country": "PotatoLand"}, 0)
    assert call["result"] == {"content": [{"type": "text", "text": "Potato City"}]}
    run = data["runs"][0]
    assert run["conversation"]["tokens"] == {"input": 40 + 67, "output": 18 + 11, "total": 58 + 78}
    assert run["meta"] == {"model": "gpt-4o-2024-08-06"}
    # the second request repeats the history: only its new item (the output) is added
    assert [t.get("type") for t in run["conversation"]["turns"]] == [None, "function_call", "function_call_output",
                                                                     "message"]
    assert cassette.runs[0].final_responses == ("The capital of PotatoLand is Potato City.",)
    assert data["catalog"]["default"]["tools"][0]["name"] == "get_capital"


def test_responses_mcp_call_and_list_tools(tmp_path, capsys):
    data, cassette, _line = _import(tmp_path, capsys, "openai-responses", "openai-responses-mcp-call.json")
    [call] = data["runs"][0]["tool_calls"]
    assert (call["name"], call["server"], call["error"]) == ("ask_question", "deepwiki", False)
    assert call["args"]["repoName"] == "pydantic/pydantic-ai"
    assert call["result"]["content"][0]["text"].startswith("Pydantic AI is a Python agent framework")
    tools = data["catalog"]["deepwiki"]["tools"]
    assert [t["name"] for t in tools] == ["ask_question"]  # allowed_tools narrowed the list
    assert "inputSchema" in tools[0] and "input_schema" not in tools[0]
    assert data["runs"][0]["conversation"]["tokens"] == {"input": 1207 + 1109, "output": 535 + 444,
                                                         "total": 1742 + 1553}
    assert len(cassette.runs) == 1 and len(cassette.runs[0].final_responses) == 2  # two user turns answered


def test_responses_shapes_chaining_and_failures():
    first = {"id": "resp_1", "object": "response", "model": "gpt-5", "output": [
        {"type": "mcp_call", "id": "mcp_1", "server_label": "shop", "name": "refund", "arguments": "{oops",
         "output": None, "error": "refused", "status": "failed"},
        {"type": "custom_tool_call", "call_id": "c1", "name": "patch", "input": "*** Begin"},
        {"type": "web_search_call", "id": "ws_1", "status": "failed", "action": {"type": "search", "query": "q"}}],
        "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}}
    second = {"request": {"previous_response_id": "resp_1", "input": [
        {"type": "custom_tool_call_output", "call_id": "c1", "output": "Error: no such file"}]},
        "response": {"id": "resp_2", "output": [{"type": "message", "role": "assistant",
                                                 "content": [{"type": "output_text", "text": "done"}]}]}}
    other = {"input": "hello", "model": "gpt-5-mini"}
    data = import_text("openai-responses", "r.jsonl", "\n".join(json.dumps(v) for v in (first, second, other)))
    run, alone = data["runs"]
    assert [(c["name"], c.get("server"), c["error"], c.get("args")) for c in run["tool_calls"]] == [
        ("refund", "shop", True, {"_raw": "{oops"}), ("patch", None, True, {"input": "*** Begin"}),
        ("web_search", None, True, {"type": "search", "query": "q"})]
    assert run["tool_calls"][0]["result"] == {"content": [{"type": "text", "text": "refused"}], "isError": True}
    assert run["tool_calls"][0]["args_invalid_json"] and run["conversation"]["tokens"]["total"] == 7
    assert alone["tool_calls"] == [] and alone["meta"] == {"model": "gpt-5-mini"}
    assert alone["conversation"]["turns"] == [{"role": "user", "content": "hello"}]
    # a bare list of items is one run
    items = [{"role": "user", "content": "x"}, {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"}]
    assert import_text("openai-responses", "i.json", json.dumps(items))["runs"][0]["tool_calls"][0]["name"] == "f"
    with pytest.raises(InputError) as exc:
        import_text("openai-responses", "r.json", json.dumps({"output": [{"content": "no type"}]}))
    assert exc.value.pointer == "/output/0" and "needs 'type'" in exc.value.message


# -- inspect_ai ----------------------------------------------------------------------------------


def test_inspect_ai_json_log(tmp_path, capsys):
    data, cassette, line = _import(tmp_path, capsys, "inspect-ai", "inspect-ai-browser.json")
    assert "1 run, 4 tool calls (0 errors" in line
    run = data["runs"][0]
    assert [(c["name"], c["args"], c["turn"]) for c in run["tool_calls"]] == [
        ("web_browser_go", {"url": "https://www.aisi.gov.uk/"}, 0), ("web_browser_click", {"element_id": 151}, 1),
        ("web_browser_click", {"element_id": 884}, 2), ("web_browser_click", {"element_id": 903}, 3)]
    assert run["tool_calls"][0]["id"] == "call_35FTpd6shR9efioDgeEBZ33s"
    assert (run["task"], run["trial"]) == (1, 1)
    assert run["conversation"]["tokens"] == {"input": 15235, "output": 281, "total": 15516}
    assert run["meta"] == {"model": "openai/gpt-4o-mini", "scores": {"includes": "C"}}
    assert [t["name"] for t in data["catalog"]["default"]["tools"]][:2] == ["web_browser_go", "web_browser_click"]
    assert cassette.runs[0].final_responses[0].startswith("The AI Security Institute")


def test_inspect_ai_eval_zip_one_run_per_sample_and_epoch(tmp_path, capsys):
    data, _cassette, line = _import(tmp_path, capsys, "auto", "inspect-ai-log_streaming.eval")
    assert line.endswith("detected as inspect-ai") and "4 runs, 0 tool calls" in line
    assert sorted((r["task"], r["trial"], r["conversation"]["tokens"]["total"]) for r in data["runs"]) == [
        (1, 1, 67), (1, 2, 68), (2, 1, 62), (2, 2, 61)]
    data, _cassette, _line = _import(tmp_path, capsys, "inspect-ai", "inspect-ai-log_message_deduplication.eval")
    run = data["runs"][0]
    assert [c["name"] for c in run["tool_calls"]] == ["bash"] * 5 and run["tool_calls"][0]["args"] == {"cmd": "ls"}
    assert run["tool_calls"][4]["result"]["content"][0]["text"].startswith("bin\nboot")
    assert [t["name"] for t in data["catalog"]["default"]["tools"]] == ["bash", "python"]


def test_inspect_ai_tool_errors_and_bad_zips(tmp_path, capsys):
    log = {"version": 2, "eval": {"task": "t", "model": "m"}, "samples": [{"id": "a", "epoch": 1, "messages": [
        {"role": "assistant", "content": "", "tool_calls": [{"id": "b1", "function": "bash", "arguments": {}}]},
        {"role": "tool", "content": "", "tool_call_id": "b1", "function": "bash",
         "error": {"type": "timeout", "message": "Command timed out before completing."}}]}]}
    [call] = import_text("inspect-ai", "l.json", json.dumps(log))["runs"][0]["tool_calls"]
    assert call["error"] and call["result"]["content"][0]["text"] == "Command timed out before completing."
    broken = tmp_path / "broken.eval"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    assert main(["import", "auto", str(broken), "-o", str(tmp_path / "c.json")]) == 2
    assert capsys.readouterr().err.startswith(f"{broken}: cannot read the zip")
    with pytest.raises(InputError) as exc:
        import_text("inspect-ai", "l.json", json.dumps({"eval": {}}))
    assert "expected an inspect_ai eval log" in exc.value.message


# -- the OpenAI Agents SDK -----------------------------------------------------------------------


def test_openai_agents_trace(tmp_path, capsys):
    data, cassette, line = _import(tmp_path, capsys, "openai-agents", "openai-agents-trace.jsonl")
    assert "1 run, 3 tool calls (1 error" in line
    run = data["runs"][0]
    assert [(c["name"], c.get("server"), c["args"], c["error"], c["turn"]) for c in run["tool_calls"]] == [
        ("lookup_order", None, {"order_id": "A0"}, True, 0), ("lookup_order", None, {"order_id": "A17"}, False, 1),
        ("get_weather", "shop", {"city": "Sacramento"}, False, 1)]
    assert run["tool_calls"][0]["error_message"] == ("Error running tool (non-fatal): Tool execution failed. "
                                                     "Error details are redacted.")
    assert run["conversation"]["tokens"] == {"input": 120 + 180 + 260, "output": 18 + 30 + 16,
                                             "total": 138 + 210 + 276}
    assert run["meta"]["model"] == "gpt-4o-mini" and run["meta"]["workflow_name"] == "Agent workflow"
    assert cassette.runs[0].final_responses == ("Order A17 has shipped; it is 72F in Sacramento.",)
    assert "catalog" not in data


def test_openai_agents_batch_shape_and_bad_records():
    spans = [json.loads(line) for line in (LOGS / "openai-agents-trace.jsonl").read_text().splitlines()]
    batch = import_text("openai-agents", "b.json", json.dumps({"data": spans}))
    assert [c["name"] for c in batch["runs"][0]["tool_calls"]] == ["lookup_order", "lookup_order", "get_weather"]
    with pytest.raises(InputError) as exc:
        import_text("openai-agents", "b.json", json.dumps({"data": [{"object": "span"}]}))
    assert exc.value.pointer == "/data/0/object" and "expected 'object' trace or trace.span" in exc.value.message


def test_responses_objects_chained_by_their_previous_response_id():
    one = {"id": "resp_a", "object": "response", "output": [
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}]}
    two = {"id": "resp_b", "object": "response", "previous_response_id": "resp_a", "output": [
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}]}
    three = {"id": "resp_c", "object": "response", "output": []}
    runs = import_text("openai-responses", "r.json", json.dumps([one, two, three]))["runs"]
    assert [len(r["conversation"]["turns"]) for r in runs] == [2, 0]
