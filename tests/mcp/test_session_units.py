"""The pure parts of recording, serving and verifying whole sessions: the session log (tasks,
unanswered calls, malformed requests, the handshakes), the answer comparison and its path
syntax, and how a recorded call is matched."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from pytest_mcptest.engine.paths import ANY, PathError, parse_path
from pytest_mcptest.mcp.json_diff import differences, ignore_path, show_path
from pytest_mcptest.mcp.recording import Exchange, Recording
from pytest_mcptest.mcp.replay_server import Matcher, NoMatch
from pytest_mcptest.record.session_log import SessionLog


def host(log, rid, method, params=None):
    log.from_host({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}})


def answer(log, rid, result=None, error=None):
    log.from_server({"jsonrpc": "2.0", "id": rid, **({"error": error} if error else {"result": result})})


# -- the session log ----------------------------------------------------------------------------


def test_a_call_made_as_a_task_gets_the_tasks_final_result():
    log = SessionLog()
    host(log, 1, "tools/call", {"name": "slow", "arguments": {"n": 1}, "task": {"ttl": 1000}})
    answer(log, 1, {"task": {"taskId": "t-1", "status": "working"}})
    assert log.calls[0]["unanswered"] is True and log.calls[0]["task_id"] == "t-1"
    host(log, 2, "tasks/result", {"taskId": "t-1"})
    answer(log, 2, {"content": [{"type": "text", "text": "done"}], "isError": False})
    run = log.run(["srv"])
    call = run.tool_calls[0]
    assert call.unanswered is None and call.result["content"][0]["text"] == "done" and call.error is False
    assert [m.sender for m in run.messages] == ["host", "server", "host", "server"]


def test_a_task_never_resolved_stays_unanswered_and_a_call_never_answered_is_kept():
    log = SessionLog()
    host(log, 1, "tools/call", {"name": "slow", "task": {}})
    answer(log, 1, {"task": {"taskId": 7, "status": "working"}})
    host(log, 2, "tools/call", {"name": "lost"})
    calls = log.run(["srv"]).tool_calls
    assert [(c.name, c.unanswered) for c in calls] == [("slow", True), ("lost", True)]
    assert calls[1].result is None


def test_a_json_rpc_error_answer_is_an_error_call_with_rpc_error():
    log = SessionLog()
    host(log, "a", "tools/call", {"name": "x"})
    answer(log, "a", error={"code": -32602, "message": "bad"})
    call = log.run(["srv"]).tool_calls[0]
    assert call.error is True and call.rpc_error == {"code": -32602, "message": "bad"}


@pytest.mark.parametrize("name", [5, None, "", ["x"]])
def test_a_malformed_tools_call_is_flagged_not_a_call(name):
    log = SessionLog()
    host(log, 1, "tools/call", {"name": name})
    run = log.run(["srv"])
    assert run.tool_calls == () and run.messages[0].malformed


@pytest.mark.parametrize("page", [{"tools": 5}, {"tools": [3, {"name": "ok"}]}, "text", None])
def test_a_malformed_tools_list_page_is_read_as_what_it_holds(page):
    log = SessionLog()
    host(log, 1, "tools/list")
    answer(log, 1, page)
    host(log, 2, "tools/call", {"name": "ok"})
    answer(log, 2, {"content": []})
    assert [c.name for c in log.run(["srv"]).tool_calls] == ["ok"]
    assert log.catalog(["srv"]) in ({}, {"srv": {"tools": []}}, {"srv": {"tools": [{"name": "ok"}]}})


def test_the_legacy_and_the_2026_handshakes_name_the_server_and_version():
    legacy = SessionLog()
    host(legacy, 0, "initialize", {"protocolVersion": "2025-06-18"})
    answer(legacy, 0, {"protocolVersion": "2025-06-18", "serverInfo": {"name": "time"}})
    assert (legacy.server_name(["x"]), legacy.protocol_version) == ("time", "2025-06-18")
    modern = SessionLog()
    host(modern, 0, "server/discover", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})
    answer(modern, 0, {"supportedVersions": ["2026-07-28"],
                       "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "notes", "version": "1"}}})
    assert (modern.server_name(["x"]), modern.protocol_version) == ("notes", "2026-07-28")
    refused = SessionLog()
    host(refused, 0, "server/discover", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})
    answer(refused, 0, error={"code": -32601, "message": "no"})
    assert refused.protocol_version is None and refused.server_name(["/bin/srv"]) == "srv"


# -- comparison and paths -----------------------------------------------------------------------


def test_paths_to_ignore_are_expect_paths_with_wildcards():
    assert ignore_path("result.content[0].text.datetime") == ("result", "content", 0, "text", "datetime")
    assert ignore_path('a[*].*["b.c"]') == ("a", ANY, ANY, "b.c")
    assert ignore_path('a["*"]') == ("a", "*")  # quoted: the key named *
    assert ignore_path("result.content[0]['a b']") == parse_path("result.content[0]['a b']")  # one grammar
    assert show_path(("result", "content", 0, "a.b")) == 'result.content[0]["a.b"]'
    assert show_path(()) == "(the whole answer)"
    for bad in ("", "a..b", ".a", "a[x]", "a[", 5):
        with pytest.raises(PathError):
            ignore_path(bad)
    with pytest.raises(PathError, match="only a path to ignore may hold one"):
        parse_path("tool_calls[*].name")  # an expect: path names one place


def test_json_in_text_numbers_and_ignored_paths():
    recorded = {"result": {"content": [{"type": "text", "text": '{"t": "09:00", "n": 1, "ok": true}'}]}}
    got = {"result": {"content": [{"type": "text", "text": '{"n": 1.0, "t": "10:00", "ok": 1}'}]}}
    assert differences(recorded, got) == [("result.content[0].text.t", "09:00", "10:00"),
                                          ("result.content[0].text.ok", True, 1)]
    assert differences(recorded, got, [ignore_path("result.content[*].text.t"), ignore_path("*.content")]) == []


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                         max_size=3), max_leaves=12)


@given(json_values, json_values)
def test_differences_are_empty_exactly_for_equal_json(a, b):
    same = json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    if same:
        assert differences(a, b) == []
    found = differences(a, b, limit=1000)
    assert (found == []) == same or _json_text(a) or _json_text(b)
    assert differences(a, a) == [] and differences(a, b, [()]) == []


def _json_text(value) -> bool:
    """Strings that hold JSON compare as JSON, so two different texts may compare equal."""
    return "{" in json.dumps(value) or "[" in json.dumps(value)


# -- matching -----------------------------------------------------------------------------------


def recording(*calls) -> Recording:
    exchanges = tuple(Exchange(i, "tools/call", {"name": n, "arguments": a}, {}, {"result": {"n": i}})
                      for i, (n, a) in enumerate(calls))
    return Recording("c.json", 1, 1, {"name": "s"}, None, None, exchanges, (), [])


def test_each_answer_once_then_the_last_again():
    matcher = Matcher(recording(("w", {"c": "P"}), ("w", {"c": "L"}), ("w", {"c": "P"})))
    assert [matcher.find("tools/call", {"name": "w", "arguments": {"c": "P"}}).index for _ in range(4)] == [0, 2, 2, 2]


def test_match_by_name_by_order_and_with_ignored_arguments():
    calls = (("w", {"c": "P", "id": 1}), ("t", {}))
    assert Matcher(recording(*calls), "name").find("tools/call", {"name": "w", "arguments": {"c": "X"}}).index == 0
    ignoring = Matcher(recording(*calls), ignore_args=("id",))
    assert ignoring.find("tools/call", {"name": "w", "arguments": {"c": "P", "id": 9}}).index == 0
    strict = Matcher(recording(*calls), "strict-order")
    with pytest.raises(NoMatch, match=r"the next recorded call \(call 1\) is tools/call #1, w"):
        strict.find("tools/call", {"name": "t", "arguments": {}})
    assert strict.find("tools/call", {"name": "w", "arguments": {"c": "P", "id": 1}}).index == 0
    assert strict.find("tools/call", {"name": "t", "arguments": {}}).index == 1
    with pytest.raises(NoMatch, match="all 2 recorded call"):
        strict.find("tools/call", {"name": "t", "arguments": {}})


def test_a_miss_names_the_closest_call_and_each_difference():
    matcher = Matcher(recording(("w", {"c": "P", "u": "C"}), ("w", {"c": "L", "u": "F"}), ("t", {"c": "L", "u": "F"})))
    with pytest.raises(NoMatch) as miss:
        matcher.find("tools/call", {"name": "w", "arguments": {"c": "L", "u": "K"}})
    assert "the closest recorded is tools/call #2, w {\"c\": \"L\", \"u\": \"F\"}: argument `u` recorded \"F\", " \
           "got \"K\"" in str(miss.value)
    assert miss.value.code == -32602
    assert miss.value.data["differences"] == [{"path": "arguments.u", "recorded": "F", "got": "K"}]
    with pytest.raises(NoMatch, match="the tool's name differs: recorded 'w', got 'x'"):
        matcher.find("tools/call", {"name": "x", "arguments": {}})


def test_an_argument_more_or_fewer_is_said_in_words_and_the_data_is_plain_json():
    """The agent's most common miss; the error's data once held a marker the SDK could not write."""
    matcher = Matcher(recording(("convert", {"from": "UTC", "to": "JST", "time": "12:00"})))
    with pytest.raises(NoMatch) as fewer:
        matcher.find("tools/call", {"name": "convert", "arguments": {"from": "UTC", "time": "12:00"}})
    assert str(fewer.value).endswith("argument `to` is missing")
    assert fewer.value.data["differences"] == [{"path": "arguments.to", "recorded": "JST"}]
    with pytest.raises(NoMatch) as more:
        matcher.find("tools/call", {"name": "convert", "arguments": {"from": "UTC", "to": "JST", "time": "12:00",
                                                                     "filters": {"a.b": True}}})
    assert str(more.value).endswith("argument `filters` was not recorded")
    assert more.value.data["differences"] == [{"path": "arguments.filters", "got": {"a.b": True}}]
    with pytest.raises(NoMatch) as dotted:
        matcher.find("tools/call", {"name": "convert", "arguments": {"from": "UTC", "to": "JST", "time": "12:00",
                                                                     "a.b": 1}})
    assert str(dotted.value).endswith('argument `["a.b"]` was not recorded')
    assert dotted.value.data["differences"] == [{"path": 'arguments["a.b"]', "got": 1}]
    json.dumps([fewer.value.data, more.value.data], allow_nan=False)


def test_the_closest_call_is_the_most_alike_not_the_first():
    """Each recorded call differs from the request in one path; the one sharing the most
    values, or with the most alike differing value, or the most alike name, is named."""
    matcher = Matcher(recording(("w", {"city": "Paris"}), ("w", {"city": "Sacramento", "units": "C"}),
                                ("w", {"city": "Sacramento", "units": "F", "day": 1}), ("forecast", {}),
                                ("weather_now", {})))
    with pytest.raises(NoMatch, match=r"is tools/call #2, .*: argument `units` is missing$"):
        matcher.find("tools/call", {"name": "w", "arguments": {"city": "Sacramento"}})
    with pytest.raises(NoMatch, match=r"is tools/call #2, .*argument `city` recorded \"Sacramento\", got \"Sacramentoo\""):
        Matcher(recording(("w", {"city": "Paris"}), ("w", {"city": "Sacramento"}))).find(
            "tools/call", {"name": "w", "arguments": {"city": "Sacramentoo"}})
    with pytest.raises(NoMatch, match=r"is tools/call #5, weather_now \{\}: the tool's name differs"):
        matcher.find("tools/call", {"name": "weather_nov", "arguments": {}})


def test_a_prompt_with_other_arguments_and_a_malformed_call_are_invalid_params():
    exchanges = (Exchange(0, "prompts/get", {"name": "shopping", "arguments": {"store": "aldi"}}, {}, {"result": {}}),
                 Exchange(1, "tools/call", {"name": "w", "arguments": {}}, {}, {"result": {}}))
    matcher = Matcher(Recording("c.json", 1, 1, {"name": "s"}, None, None, exchanges, (), []))
    with pytest.raises(NoMatch) as miss:
        matcher.find("prompts/get", {"name": "shopping", "arguments": {"store": "aldi", "day": "mon"}})
    assert miss.value.code == -32602 and str(miss.value).endswith("argument `day` was not recorded")
    with pytest.raises(NoMatch, match="the prompt's name differs: recorded 'shopping', got 'shop'"):
        matcher.find("prompts/get", {"name": "shop", "arguments": {"store": "aldi"}})
    for params, said in [({"arguments": {}}, "tools/call needs params.name, a string; got <absent>"),
                         ({"name": 5}, "tools/call needs params.name, a string; got 5"),
                         ({"name": "w", "arguments": [1]}, "params.arguments must be an object; got [1]")]:
        with pytest.raises(NoMatch) as bad:
            matcher.find("tools/call", params)
        assert bad.value.code == -32602 and said in str(bad.value)


def test_a_method_never_recorded_is_method_not_found():
    matcher = Matcher(recording(("w", {})))
    with pytest.raises(NoMatch) as miss:
        matcher.find("tools/cal", {})
    assert miss.value.code == -32601
    assert str(miss.value) == ('mcptest serve: method not found: "tools/cal" was never asked in the recorded session '
                               "(it answers tools/call, tools/list); did you mean tools/call?")
    with pytest.raises(NoMatch) as unknown:
        matcher.find("resources/list", {})
    assert unknown.value.code == -32601 and "did you mean" not in str(unknown.value)


@given(st.dictionaries(st.text(max_size=5), st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8)),
                       max_size=4), st.data())
def test_every_miss_is_plain_json_and_names_each_argument_that_differs(recorded_args, data):
    """Whatever arguments a call adds, drops or changes, the miss's data can be written as
    JSON, and every argument added or dropped is said by name."""
    matcher = Matcher(recording(("w", recorded_args)))
    args = dict(recorded_args)
    dropped = data.draw(st.sets(st.sampled_from(sorted(args)), max_size=len(args)) if args else st.just(set()))
    for key in dropped:
        del args[key]
    added = data.draw(st.dictionaries(st.text(max_size=5).filter(lambda k: k not in recorded_args), st.integers(),
                                      max_size=2))
    args.update(added)
    if not dropped and not added:
        assert matcher.find("tools/call", {"name": "w", "arguments": args}).index == 0
        return
    with pytest.raises(NoMatch) as miss:
        matcher.find("tools/call", {"name": "w", "arguments": args})
    json.dumps(miss.value.data, allow_nan=False)
    words = str(miss.value)
    shown = dropped | set(added)
    if len(shown) <= 5:
        assert all(f"`{show_path((k,))}` is missing" in words for k in dropped)
        assert all(f"`{show_path((k,))}` was not recorded" in words for k in added)

def test_an_argument_called_name_is_an_argument_not_the_tools_name():
    """``name`` is a common argument (create_file, add_user): dropped or added, it is said as an
    argument, and the error's data puts it under ``arguments``; the tool's own name stays apart."""
    matcher = Matcher(recording(("w", {"name": "a.txt"})))
    with pytest.raises(NoMatch) as dropped:
        matcher.find("tools/call", {"name": "w", "arguments": {}})
    assert "argument `name` is missing" in str(dropped.value) and "name differs" not in str(dropped.value)
    assert dropped.value.data["differences"] == [{"path": "arguments.name", "recorded": "a.txt"}]
    with pytest.raises(NoMatch) as added:
        Matcher(recording(("w", {}))).find("tools/call", {"name": "w", "arguments": {"name": 0}})
    assert "argument `name` was not recorded" in str(added.value)
    with pytest.raises(NoMatch) as renamed:
        matcher.find("tools/call", {"name": "v", "arguments": {"name": "a.txt"}})
    assert "the tool's name differs: recorded 'w', got 'v'" in str(renamed.value)
    assert renamed.value.data["differences"] == [{"path": "name", "recorded": "w", "got": "v"}]


def test_json_nested_past_the_stack_is_compared_whole_not_walked():
    """A string argument may hold JSON nested thousands deep: reading or walking it once raised
    RecursionError inside serve's matcher (and verify's comparison)."""
    deep = "[" * 5000 + "]" * 5000
    assert differences(deep, deep) == []
    assert [d[0] for d in differences({"a": deep}, {"a": "[]"})] == ["a"]
    nested: list = []
    for _ in range(200):
        nested = [nested]
    assert differences(nested, nested) == [] and len(differences(nested, [[1]])) == 1


def test_a_recorded_error_whose_code_is_not_an_integer_is_an_internal_error():
    from mcp.shared.exceptions import MCPError

    from pytest_mcptest.mcp.replay_server import _recorded_answer

    with pytest.raises(MCPError) as raised:
        _recorded_answer({"error": {"code": "E42", "message": "the shelf is locked", "data": {"n": 1}}})
    assert (raised.value.error.code, raised.value.error.message, raised.value.error.data) == (
        -32603, "the shelf is locked", {"n": 1})
    assert _recorded_answer({"result": [1]}) == {} and _recorded_answer({"result": {"a": 1}}) == {"a": 1}
