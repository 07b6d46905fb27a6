"""The MCP side: the mock server answering a real SDK client, and the live tools/list client."""

from __future__ import annotations

import json
import sys
import textwrap
import time

import anyio
import pytest
from forkserver import forked

from pytest_mcptest.mcp import ServerError, list_tools
from pytest_mcptest.cli import main
from pytest_mcptest.errors import InputError
from pytest_mcptest.mcp.mock_server import MockError, fill, load_spec, parse_fault

MANIFEST = """\
mock_server:
  name: shop
  page_size: 2
  tools:
    - name: get_weather
      description: Current weather for a city.
      input_schema:
        type: object
        properties: {city: {type: string, description: City name.}}
        required: [city]
      annotations: {readOnlyHint: true}
      response: "Sunny in ${args.city}"
    - name: add
      description: Add two numbers.
      input_schema: {type: object, properties: {a: {type: number}, b: {type: number}}}
      response: {sum: "${args.a}", note: "a=${args.a}, b=${args.b}, deep=${args.opt.x}"}
    - name: ping
      description: Answers with the default text.
  resources:
    - {uri: "file:///readme.txt", name: readme, mime_type: text/plain, text: hello}
  prompts:
    - name: summarize
      arguments: [{name: topic, required: true}]
      text: "Summarize ${args.topic}"
"""

SNAPSHOT = {"tools": [
    {"name": "search", "title": "Search", "description": "Search the docs.",
     "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
     "annotations": {"readOnlyHint": True}, "x-vendor": {"kept": True}},
    {"name": "fetch", "description": "Fetch a page.",
     "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}}},
]}


@pytest.fixture
def manifest(tmp_path):
    path = tmp_path / "shop.yml"
    path.write_text(MANIFEST)
    return str(path)


@pytest.fixture
def snapshot(tmp_path):
    path = tmp_path / "docs.json"
    path.write_text(json.dumps(SNAPSHOT))
    return str(path)


def mock_command(path: str, fault: str | None = None) -> list[str]:
    command = forked([sys.executable, "-m", "pytest_mcptest", "mock", "--tools-from", path])
    return command + (["--fault", fault] if fault else [])


def with_session(command: list[str], body):
    """Run ``await body(session)`` against ``command`` with a plain SDK ClientSession."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def run():
        params = StdioServerParameters(command=command[0], args=command[1:])
        with anyio.fail_after(15):
            # The SDK's default errlog is the sys.stderr of its first import, which may be an
            # earlier test's capture file, closed since: name this test's own.
            async with stdio_client(params, errlog=sys.stderr) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await body(session)

    return anyio.run(run)


def wire(model) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


# --------------------------------------------------------------------------- list_tools


def test_list_tools_follows_pagination_with_wire_names(manifest):
    catalog = list_tools(mock_command(manifest), timeout=15)
    assert [t["name"] for t in catalog["tools"]] == ["get_weather", "add", "ping"]  # 3 pages of 2
    weather = catalog["tools"][0]
    assert weather["inputSchema"]["required"] == ["city"]
    assert weather["annotations"] == {"readOnlyHint": True}
    assert weather["description"] == "Current weather for a city."
    assert "description" not in catalog["tools"][2] or catalog["tools"][2]["description"]
    json.dumps(catalog)  # plain JSON


def test_list_tools_returns_a_snapshot_exactly_as_served(snapshot):
    assert list_tools(mock_command(snapshot), timeout=15) == SNAPSHOT


def test_command_not_found():
    with pytest.raises(ServerError) as info:
        list_tools(["mcptest-no-such-server-xyz", "--flag"], timeout=5)
    text = str(info.value)
    assert "mcptest-no-such-server-xyz --flag" in text
    assert "command not found" in text


def test_server_exits_at_once_shows_its_stderr():
    command = [sys.executable, "-c",
               "import sys; sys.stderr.write('fatal: no API key in SHOP_KEY\\n'); sys.exit(3)"]
    with pytest.raises(ServerError) as info:
        list_tools(command, timeout=5)
    text = str(info.value)
    assert text.startswith(f"MCP server `{sys.executable} -c ")
    assert "the server exited with code 3 before answering initialize and tools/list" in text  # its status
    assert "fatal: no API key in SHOP_KEY" in text


def test_timeout_names_the_limit_and_shows_stderr():
    # Reads its stdin and never answers; exits when stdin closes (so shutdown is quick).
    command = [sys.executable, "-c",
               "import sys; print('booting slowly', file=sys.stderr, flush=True)\n"
               "for _ in sys.stdin: pass"]
    with pytest.raises(ServerError) as info:
        list_tools(forked(command), timeout=1)  # no interpreter to start: the fork server's child runs at once
    text = str(info.value)
    assert "within 1 s" in text
    assert "booting slowly" in text


def test_protocol_error_from_the_server():
    script = textwrap.dedent("""\
        import json, sys
        print('refusing', file=sys.stderr, flush=True)
        for line in sys.stdin:
            msg = json.loads(line)
            if 'id' in msg:
                print(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                                  "error": {"code": -32600, "message": "nope, not today"}}),
                      flush=True)
        """)
    with pytest.raises(ServerError) as info:
        list_tools([sys.executable, "-c", script], timeout=5)
    text = str(info.value)
    assert "protocol error -32600: nope, not today" in text
    assert "refusing" in text


def test_env_and_cwd_reach_the_server(tmp_path):
    (tmp_path / "here.txt").write_text("x")
    script = textwrap.dedent("""\
        import os, sys
        sys.stderr.write('KEY=%s CWD_HAS=%s\\n' % (os.environ.get('MCPTEST_KEY'),
                                                   os.path.exists('here.txt')))
        """)
    with pytest.raises(ServerError) as info:
        list_tools([sys.executable, "-c", script], env={"MCPTEST_KEY": "k1"}, cwd=str(tmp_path),
                   timeout=5)
    assert "KEY=k1 CWD_HAS=True" in str(info.value)


def test_bad_command_argument():
    with pytest.raises(ValueError):
        list_tools([], timeout=1)


def test_live_third_party_server_mcp_server_time():
    catalog = list_tools(forked([sys.executable, "-m", "mcp_server_time"]), timeout=20)  # a process of its own
    tools = {t["name"]: t for t in catalog["tools"]}
    assert {"get_current_time", "convert_time"} <= set(tools)
    assert "timezone" in tools["get_current_time"]["inputSchema"]["properties"]
    assert set(tools["convert_time"]["inputSchema"]["required"]) >= {
        "source_timezone", "time", "target_timezone"}


# --------------------------------------------------------------------------- the mock server


def test_calls_fill_args_placeholders(manifest):
    async def body(session):
        weather = await session.call_tool("get_weather", {"city": "Sacramento"})
        added = await session.call_tool("add", {"a": 2, "b": 3, "opt": {"x": "y"}})
        bare = await session.call_tool("ping", {"n": 1})
        return wire(weather), wire(added), wire(bare)

    weather, added, bare = with_session(mock_command(manifest), body)
    assert weather["content"] == [{"type": "text", "text": "Sunny in Sacramento"}]
    assert weather.get("isError") is False
    assert added["structuredContent"] == {"sum": 2, "note": "a=2, b=3, deep=y"}
    assert json.loads(added["content"][0]["text"]) == added["structuredContent"]
    assert bare["content"][0]["text"] == 'mock ping called with {"n": 1}'


def test_snapshot_calls_name_the_tool_and_arguments(snapshot):
    async def body(session):
        return wire(await session.call_tool("search", {"q": "mcp"}))

    result = with_session(mock_command(snapshot), body)
    assert result["content"][0]["text"] == 'mock search called with {"q": "mcp"}'


def test_resources_and_prompts(manifest):
    async def body(session):
        resources = wire(await session.list_resources())
        read = wire(await session.read_resource("file:///readme.txt"))
        prompt = wire(await session.get_prompt("summarize", {"topic": "tides"}))
        return resources, read, prompt

    resources, read, prompt = with_session(mock_command(manifest), body)
    assert [r["uri"] for r in resources["resources"]] == ["file:///readme.txt"]
    assert read["contents"][0]["text"] == "hello"
    assert prompt["messages"][0]["content"]["text"] == "Summarize tides"


def test_fault_hang_never_answers(manifest):
    async def body(session):
        listed = await session.list_tools()  # other requests still answer
        with anyio.move_on_after(0.5) as scope:
            await session.call_tool("get_weather", {"city": "Paris"})
        return len(listed.tools), scope.cancelled_caught

    count, timed_out = with_session(mock_command(manifest, "hang"), body)  # returns: a hung server is shut down
    assert count == 2 and timed_out


def test_fault_slow_delays_each_call(manifest):
    async def body(session):
        times = []
        for city in ("Oslo", "Rome"):
            t0 = time.monotonic()
            result = await session.call_tool("get_weather", {"city": city})
            times.append(time.monotonic() - t0)
            assert wire(result)["content"][0]["text"] == f"Sunny in {city}"
        return times

    times = with_session(mock_command(manifest, "slow:300"), body)
    assert all(t >= 0.29 for t in times)


def test_fault_recover_after_fails_the_first_calls(manifest):
    async def body(session):
        return [wire(await session.call_tool("get_weather", {"city": "Lima"})) for _ in range(4)]

    results = with_session(mock_command(manifest, "recover-after:2"), body)
    assert [r.get("isError") for r in results] == [True, True, False, False]
    assert "recover-after:2" in results[0]["content"][0]["text"]
    assert results[2]["content"][0]["text"] == "Sunny in Lima"


# --------------------------------------------------------------------------- bad input, units


def test_fault_specs():
    assert parse_fault("none").kind == "none"
    assert parse_fault("hang").kind == "hang"
    assert (parse_fault("slow:250").kind, parse_fault("slow:250").value) == ("slow", 250)
    assert parse_fault("recover-after:3").value == 3
    for bad in ("slow", "slow:fast", "recover-after:-1", "explode", ""):
        with pytest.raises(MockError):
            parse_fault(bad)


def test_fill_keeps_types_and_interpolates():
    args = {"a": 2, "o": {"k": [1, 2]}, "s": "x"}
    assert fill("${args.a}", args) == 2
    assert fill("${args.o}", args) == {"k": [1, 2]}
    assert fill("${args.o.k.1}", args) == 2
    assert fill({"v": ["${args.s}-${args.a}", "${args.o}"]}, args) == {"v": ["x-2", {"k": [1, 2]}]}
    assert fill("n=${args.missing}", args) == "n="
    assert fill("${args.missing}", args) is None
    assert fill("${args}", args) == args


def manifest_error(tmp_path, content: str, name: str = "m.yml") -> InputError:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError) as info:
        load_spec(str(path))
    assert info.value.path == str(path)
    return info.value


@pytest.mark.parametrize("content, line, expected", [
    ("mock_server: [1, 2]", 1, "mock_server must be object, found array"),
    ("mock_server:\n  tools:\n    - description: x\n", 3, "mock_server.tools[0] is missing the required key 'name'"),
    ("mock_server:\n  tools:\n    - {name: a}\n    - {name: a}\n", 4,
     "duplicate tool name 'a' (first at mock_server.tools[0])"),
    ("mock_server:\n  tools:\n    - {name: a, input_schema: 3}\n", 3,
     "mock_server.tools[0].input_schema must be object, found number 3"),
    ("mock_server:\n  tools:\n    - {name: a, respons: x}\n", 3,
     "unknown key 'respons' in mock_server.tools[0]; did you mean 'response'?"),
    ("mock_server:\n  tools:\n    - {name: a, input_schema: {}, inputSchema: {}}\n", 3,
     "mock_server.tools[0] takes either `input_schema` or `inputSchema`, not both"),
    ("mock_server:\n  name: shop\n  name: shop2\n", 3, "duplicate key 'name' (first defined at line 2)"),
    ("mock_server:\n  tools:\n    - name: a\n      is_error: yes\n", 4,
     'mock_server.tools[0].is_error must be boolean, found string "yes"'),
    ("mock_server:\n  page_size: 0\n", 2, "mock_server.page_size must be >= 1, found 0"),
    ("mock_server:\n  resources:\n    - {uri: a, mime: text/plain}\n", 3,
     "unknown key 'mime' in mock_server.resources[0]"),
    ("mock_server:\n  prompts:\n    - {name: p, arguments: [{name: x, required: maybe}]}\n", 3,
     "mock_server.prompts[0].arguments[0].required must be boolean"),
    ("just: text", 1, "expected a manifest"),
    ("mock_server: {tools: [\n", 2, "invalid YAML"),
])
def test_bad_manifest_is_an_error_at_its_line(tmp_path, content, line, expected):
    err = manifest_error(tmp_path, content)
    assert err.line == line, err.render()
    assert expected in err.message


def test_every_problem_of_a_manifest_is_listed(tmp_path):
    err = manifest_error(tmp_path, "mock_server:\n  nme: shop\n  tools:\n    - name: a\n      is_error: on\n")
    assert err.message.splitlines()[0] == "2 problems in this document:"
    assert "line 2: unknown key 'nme' in mock_server; did you mean 'name'?" in err.message
    assert 'line 5: mock_server.tools[0].is_error must be boolean, found string "on"' in err.message


def test_a_json_snapshot_is_checked_by_pointer_when_yaml_cannot_read_it(tmp_path):
    """libyaml refuses escaped surrogate pairs (how json.dumps writes an emoji): read as JSON."""
    snapshot = {"tools": [{"name": "sun", "description": "\u2600 \U0001F600"}, {"name": "sun"}]}
    err = manifest_error(tmp_path, json.dumps(snapshot), "s.json")
    assert err.line is None and err.pointer == "/tools/1/name" and "duplicate tool name 'sun'" in err.message
    (tmp_path / "s.json").write_text(json.dumps({"tools": snapshot["tools"][:1]}))
    assert load_spec(str(tmp_path / "s.json")).tools[0]["description"] == "\u2600 \U0001F600"


def test_bad_manifest_exits_2_with_file_and_line(tmp_path, capsys):
    path = tmp_path / "m.yml"
    path.write_text("mock_server:\n  tools:\n    - {name: a, input_schema: 3}\n")
    assert main(["mock", "--tools-from", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:3: mock_server.tools[0].input_schema must be object")
    assert "Traceback" not in err
    assert main(["mock", "--tools-from", str(tmp_path / "missing.yml")]) == 2
    assert "missing.yml: cannot read the file" in capsys.readouterr().err


def test_bad_fault_and_usage_exit_2(manifest, capsys):
    assert main(["mock", "--tools-from", manifest, "--fault", "slow:soon"]) == 2
    assert "whole number of milliseconds" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["mock"])
    assert info.value.code == 2
    assert "--tools-from" in capsys.readouterr().err


def test_stdout_noise_is_named_in_the_error():
    command = [sys.executable, "-c",
               "import sys\nprint('Server ready!', flush=True)\nfor _ in sys.stdin: pass"]
    with pytest.raises(ServerError) as info:
        list_tools(forked(command), timeout=1)  # no interpreter to start: the fork server's child runs at once
    assert "not JSON-RPC, the first: 'Server ready!'" in str(info.value)


def test_list_tools_from_inside_a_running_event_loop(snapshot):
    async def inside():
        return list_tools(mock_command(snapshot), timeout=15)

    assert anyio.run(inside) == SNAPSHOT


# --------------------------------------------------------------------------- structured output, arguments, list faults

# A snapshot shaped as the real time server answers tools/list: an outputSchema with required
# properties, and required input arguments.
STRUCTURED = {"tools": [{
    "name": "get_current_time", "description": "Get the current time in a timezone.",
    "inputSchema": {"type": "object", "properties": {"timezone": {"type": "string"}}, "required": ["timezone"]},
    "outputSchema": {"type": "object", "required": ["timezone", "datetime", "is_dst"],
                     "properties": {"timezone": {"type": "string"}, "datetime": {"type": "string"},
                                    "is_dst": {"type": "boolean"}, "note": {"type": "string"}}},
}]}


def test_a_tool_with_an_output_schema_answers_structured_content_the_sdk_accepts(tmp_path):
    path = tmp_path / "time.json"
    path.write_text(json.dumps(STRUCTURED))

    async def body(session):
        await session.list_tools()  # the client learns the output schema it will check against
        return wire(await session.call_tool("get_current_time", {"timezone": "Europe/Lisbon"}))

    result = with_session(mock_command(str(path)), body)
    assert result["structuredContent"] == {"timezone": "", "datetime": "", "is_dst": False}
    assert not result.get("isError")


def test_a_call_missing_a_required_argument_is_refused(tmp_path):
    path = tmp_path / "time.json"
    path.write_text(json.dumps(STRUCTURED))

    async def body(session):
        try:
            await session.call_tool("get_current_time", {})
        except Exception as exc:  # noqa: BLE001 - the SDK raises the server's JSON-RPC error
            return str(exc)
        return "answered"

    assert "missing required argument(s) timezone" in with_session(mock_command(str(path)), body)


def test_list_faults_apply_to_tools_list_when_asked(manifest):
    async def slow(session):
        t0 = time.monotonic()
        await session.list_tools()
        return time.monotonic() - t0

    assert with_session(mock_command(manifest, "slow:300:list"), slow) >= 0.29
    # tools/call only by default: a listing is not held back by a delay far longer than any load explains
    assert with_session(mock_command(manifest, "slow:20000"), slow) < 10

    async def hang(session):
        with anyio.move_on_after(0.5) as scope:
            await session.list_tools()
        return scope.cancelled_caught

    assert with_session(mock_command(manifest, "hang:list"), hang)
    assert parse_fault("hang:list").on_list and not parse_fault("hang").on_list
    with pytest.raises(MockError):
        parse_fault("recover-after:2:list")
