"""The promise of ``mcptest serve``: whatever a host sends, each request is answered (a result
or an error, under its own id) and serve goes on serving.

One serve process plays a recorded session of the notes server (tools with progress and
logging, resources, a prompt, completion) for the whole module; hypothesis drives it over
stdio with batches of lines: recorded requests with an argument added, dropped or changed (or
the name altered), requests of any method and parameters, notifications, lines that are not
JSON-RPC, and requests whose id no JSON-RPC reader can use. After each batch a ping must be
answered and the process must still run. In-process matching is fast, but the property is
about the process (the transport, the SDK's reader, the serialization of every error) so it
is tested there; one process keeps a hundred examples to a few seconds."""

from __future__ import annotations

import itertools
import json
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from pytest_mcptest.mcp.recording import HANDSHAKE, load_recording
from pytest_mcptest.mcp.json_diff import differences, show_path
from pytest_mcptest.mcp.replay_server import NAMED

from forkserver import forked
from hypothesis_budget import budget
from raw_host import RawHost
from record_helpers import proxy_command, with_session

NOTES = [sys.executable, "-W", "ignore", str(Path(__file__).resolve().parents[1] / "notes_server.py")]
INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "property host", "version": "1"}}}
METHODS = ["tools/list", "tools/call", "prompts/get", "prompts/list", "resources/list", "resources/read",
           "resources/templates/list", "completion/complete", "logging/setLevel", "resources/subscribe",
           "ping", "initialize", "sampling/createMessage", "tasks/get", "notifications/initialized"]
NOTIFICATIONS = ["notifications/initialized", "notifications/roots/list_changed", "notifications/progress",
                 "notifications/message"]  # never notifications/cancelled: a request it names is never answered
BAD_IDS = [True, False, {"a": 1}, [1], 1.5]


async def notes_session(session, init) -> None:
    from mcp import types

    await session.list_tools()
    await session.call_tool("lookup", {"key": "milk"})
    async def progress(done, total, message):
        pass

    await session.call_tool("tally", {"n": 2}, progress_callback=progress)
    await session.list_resources()
    await session.read_resource("note://item/eggs")
    await session.list_prompts()
    await session.get_prompt("shopping", {"store": "aldi"})
    await session.complete(types.PromptReference(type="ref/prompt", name="shopping"), {"name": "store", "value": "a"})


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(the raw host of one serve process, the recorded requests, the methods the recording answers)."""
    cassette = str(tmp_path_factory.mktemp("notes") / "notes.json")
    with_session(proxy_command(cassette, forked(NOTES)), notes_session)
    recording = load_recording(cassette)
    requests = [(e.method, e.params) for e in recording.exchanges if e.answer is not None and e.method not in HANDSHAKE]
    with RawHost(forked([sys.executable, "-m", "pytest_mcptest.cli", "serve", cassette])) as host:
        host.send(json.dumps(INIT))
        assert "result" in host.answer()
        host.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        yield host, requests, {m for m, _ in requests} | {"tools/list"}
        code, err = host.close()
    assert code == 0 and "Traceback" not in err, err[-3000:]


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | TEXT, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                    max_leaves=8)
PARAMS = st.none() | st.dictionaries(TEXT, JSON, max_size=4)
IDS = st.integers() | TEXT


@st.composite
def changed(draw, requests) -> dict:
    """A recorded request with one change: an argument (or parameter) added, dropped or
    altered, or the name altered. ``expect`` says what the error must say, when a tools/call
    or prompts/get really changed (``1`` for ``1.0`` is no change, as serve compares)."""
    named = [r for r in requests if r[0] in NAMED]
    method, params = draw(st.sampled_from(named) | st.sampled_from(requests))
    params = json.loads(json.dumps(params))
    target = params.setdefault("arguments", {}) if method in NAMED else params
    how = draw(st.sampled_from(["add", "drop", "alter", "rename"] if method in NAMED else ["add", "drop", "alter"]))
    if how in ("drop", "alter") and not target:
        how = "add"
    said = None
    if how == "add":
        key = draw(TEXT.filter(lambda k: k not in target))
        target[key] = draw(JSON)
        said = f"argument `{show_path((key,))}` was not recorded"
    elif how == "drop":
        key = draw(st.sampled_from(sorted(target)))
        del target[key]
        said = f"argument `{show_path((key,))}` is missing"
    elif how == "alter":
        key = draw(st.sampled_from(sorted(target)))
        old, target[key] = target[key], draw(JSON)
        said = f"argument `{show_path((key,))}` recorded" if differences(old, target[key]) else None
    else:
        params["name"] += draw(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=3))
        said = "name differs: recorded"
    return {"kind": "request", "method": method, "params": params,
            "expect": {"error": -32602, "said": said} if method in NAMED and said else {}}


def requests_of_any_kind():
    return st.builds(lambda method, params: {"kind": "request", "method": method, "params": params, "expect": {}},
                     st.sampled_from(METHODS) | TEXT, PARAMS)


def lines(requests):
    notification = st.builds(lambda method, params: {"kind": "notification", "method": method, "params": params},
                             st.sampled_from(NOTIFICATIONS) | TEXT.filter(lambda m: m != "notifications/cancelled"),
                             PARAMS)
    garbage = st.builds(lambda text: {"kind": "garbage", "line": text},
                        st.text(max_size=20).filter(lambda t: "\n" not in t and not is_json_object(t)))
    bad_id = st.builds(lambda rid, method: {"kind": "bad id", "id": rid, "method": method},
                       st.sampled_from(BAD_IDS), st.sampled_from(METHODS[:-1]))
    one = changed(requests) | changed(requests) | requests_of_any_kind() | notification | garbage | bad_id
    return st.lists(one, min_size=1, max_size=4)


def is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


COUNTER = itertools.count()


@settings(max_examples=budget(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_serve_answers_every_request_and_keeps_serving(served, data):
    host, requests, answered = served
    items = data.draw(lines(requests), label="lines")
    ids = unique([data.draw(IDS, label="id") for _ in items])
    expected, nulls = {}, 0
    for item, rid in zip(items, ids):
        if item["kind"] == "request":
            message = {"jsonrpc": "2.0", "id": rid, "method": item["method"]}
            if item["params"] is not None:
                message["params"] = item["params"]
            expected[str(rid)] = (rid, item)
            host.send(json.dumps(message))
        elif item["kind"] == "notification":
            # MCP's notifications are all notifications/*: a line without a usable id and any
            # other method is taken for a request whose id was lost, and told so (null id).
            nulls += not item["method"].startswith("notifications/")
            host.send(json.dumps({"jsonrpc": "2.0", "method": item["method"], "params": item["params"] or {}}))
        elif item["kind"] == "bad id":
            nulls += 1
            host.send(json.dumps({"jsonrpc": "2.0", "id": item["id"], "method": item["method"]}))
        else:
            nulls += 1
            host.send(item["line"])
    ping = f"ping {next(COUNTER)}"
    host.send(json.dumps({"jsonrpc": "2.0", "id": ping, "method": "ping"}))
    got, null_errors = collect(host, set(expected) | {ping}, nulls)
    assert got.pop(ping) == {"jsonrpc": "2.0", "id": ping, "result": {}}
    assert len(null_errors) == nulls and all(e["error"]["code"] in (-32700, -32600) for e in null_errors)
    for key, (rid, item) in expected.items():
        check(got[key], rid, item, answered)
        event(f"answered {got[key]['error']['code'] if 'error' in got[key] else 'with a result'}")
    for item in items:
        event(f"sent {item['kind']}" + (" (an argument or the name changed)" if item.get("expect") else ""))
    assert host.proc.poll() is None


def unique(ids: list) -> list:
    """The ids, each one used once (``1`` and ``"1"`` count as one: the SDK keys requests by both)."""
    seen: set = set()
    out = []
    for rid in ids:
        while str(rid) in seen:
            rid = f"{rid} again"
        seen.add(str(rid))
        out.append(rid)
    return out


def collect(host, wanted: set, nulls: int, timeout: float = 20) -> tuple:
    """Read answers until every id in ``wanted`` has one and ``nulls`` answers came with a
    null id; an id answered twice, or an answer to an id never sent, fails."""
    got, null_errors = {}, []
    deadline = time.monotonic() + timeout
    while set(got) != wanted or len(null_errors) < nulls:
        message = host.answer(max(0.1, deadline - time.monotonic()))
        if "method" in message:
            continue  # progress and log messages replayed for a recorded call
        if message.get("id") is None:
            null_errors.append(message)
            continue
        key = str(message["id"])
        assert key in wanted and key not in got, message
        got[key] = message
    return got, null_errors


def check(answer: dict, rid, item: dict, answered: set) -> None:
    """One answer: the request's own id, a result or an error (never both), and the error a
    deviation calls for."""
    assert answer["id"] == rid and answer["jsonrpc"] == "2.0"
    assert ("result" in answer) != ("error" in answer), answer
    error = answer.get("error")
    if error is not None:
        assert isinstance(error["code"], int) and isinstance(error["message"], str)
    method, expect = item["method"], item["expect"]
    if method not in answered and method not in HANDSHAKE:
        assert error is not None and error["code"] == -32601, answer  # never recorded: method not found
    elif method in answered and error is not None:
        assert error["code"] == -32602, answer  # recorded, with other params: invalid params
    if "error" in expect:
        assert error is not None and error["code"] == expect["error"], answer
        assert expect["said"] in error["message"], answer
