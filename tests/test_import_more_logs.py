"""The log shapes added for the recorders, the web export of Claude Code, the OpenAI Responses API,
the OpenAI Agents SDK and inspect_ai, each imported from a real public sample under tests/data/logs
(sources and licences in tests/data/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_mcptest.cassette import load_cassette
from pytest_mcptest.cli import main
from pytest_mcptest.errors import InputError
from pytest_mcptest.importers import import_text
from pytest_mcptest.importers.detect import detect_kind

LOGS = Path(__file__).parent / "data" / "logs"


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
    assert "1 runs, 4 tool calls (0 errors" in line
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
    assert "1 runs, 1 tool calls (0 errors" in line
    [call] = data["runs"][0]["tool_calls"]
    assert (call["name"], call["server"], call["args"]) == ("summarize", "echo-example",
                                                            {"text": "a very long document"})
    assert call["result"]["content"] == [{"type": "text", "text": "summary: A tiny summary."}]
    assert "unmatched_results" not in data["runs"][0]


def test_mcp_cassette_npm_format_reads_the_frames(tmp_path, capsys):
    data, _cassette, line = _import(tmp_path, capsys, "mcp-cassette",
                                    "mcp-cassette-npm-tiny-server.golden.cassette.jsonl")
    assert "1 runs, 0 tool calls" in line
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
    assert "1 runs, 12 tool calls (1 errors" in line
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
]


@pytest.mark.parametrize("name, kind", NEW_SHAPES)
def test_auto_tells_the_new_shapes_apart(tmp_path, capsys, name, kind):
    assert detect_kind(name, (LOGS / name).read_text()) == kind
    auto, _cassette, line = _import(tmp_path, capsys, "auto", name)
    assert line.endswith(f"detected as {kind}")
    assert auto["runs"] == import_text(kind, name, (LOGS / name).read_text())["runs"]


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
    assert "1 runs, 1 tool calls (0 errors" in line
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
