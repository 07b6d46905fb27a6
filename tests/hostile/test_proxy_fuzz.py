"""The proxy under arbitrary traffic (issue 33: the fuzz test extended to the proxy, host and
server sides): whatever the host and the server send, in any order, the session log never
raises and what it keeps is a run and a catalog the cassette writer takes and reads back; the
relay's line cutter gives back exactly the bytes it read, whatever the chunks."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis_budget import budget

from pytest_mcptest.formats.cassette import load_cassette
from pytest_mcptest.record import store
from pytest_mcptest.record.relay import LineTooLong, lines
from pytest_mcptest.record.session_log import SessionLog
from pytest_mcptest.redact import redactor

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.text(max_size=6))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)), max_leaves=8)
ids = st.one_of(st.integers(0, 4), st.sampled_from(["a", "b"]), st.none(), st.booleans(),
                st.floats(allow_nan=False, allow_infinity=False))
methods = st.one_of(st.sampled_from(["initialize", "tools/list", "tools/call", "tasks/result", "server/discover",
                                     "notifications/initialized", "ping"]), scalars)
tool_results = st.one_of(json_values, st.fixed_dictionaries({"content": json_values}),
                         st.fixed_dictionaries({"tools": json_values}, optional={"nextCursor": json_values}),
                         st.fixed_dictionaries({"task": st.fixed_dictionaries({"taskId": ids})}),
                         st.fixed_dictionaries({"serverInfo": json_values, "protocolVersion": json_values}))
params = st.one_of(json_values, st.fixed_dictionaries(
    {"name": json_values}, optional={"arguments": json_values, "cursor": json_values, "taskId": ids}))
host_messages = st.fixed_dictionaries({"jsonrpc": st.just("2.0")}, optional={
    "id": ids, "method": methods, "params": params, "result": json_values})
server_messages = st.fixed_dictionaries({"jsonrpc": st.just("2.0")}, optional={
    "id": ids, "method": methods, "result": tool_results, "error": json_values})
traffic = st.lists(st.tuples(st.booleans(), st.one_of(host_messages, server_messages)), max_size=25)


@settings(max_examples=budget(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(traffic)
def test_any_traffic_is_logged_without_raising_and_writes_a_cassette_that_reads_back(tmp_path_factory, messages):
    log = SessionLog()
    for from_host, message in messages:
        (log.from_host if from_host else log.from_server)(message)
    command = ["server"]
    run = log.run(command)
    assert [m.message for m in run.messages] == [m for _, m in messages]
    assert all(isinstance(c.name, str) and c.name for c in run.tool_calls)
    path = str(tmp_path_factory.mktemp("fuzz") / "c.json")
    store.save(path, [run], log.catalog(command), {"recorder": "fuzz"}, store.NEW, redactor(()))
    assert len(load_cassette(path, path, keep=False).runs) == 1


def test_a_line_holding_nan_or_infinity_is_no_json_rpc_message():
    """Python's json reads them, JSON has no such numbers, and a cassette holding one could not
    be read back: such a line is refused like any line that is not JSON (a host's gets -32700)."""
    from pytest_mcptest.record.relay import _decode

    assert _decode(b'{"jsonrpc": "2.0", "id": Infinity, "method": "ping"}') is None
    assert _decode(b'{"jsonrpc": "2.0", "id": 1, "result": {"x": NaN}}') is None
    assert _decode(b'{"jsonrpc": "2.0", "id": 1, "result": {"x": 1e308}}') == {"jsonrpc": "2.0", "id": 1,
                                                                             "result": {"x": 1e308}}


@given(st.lists(st.binary(max_size=40), max_size=12), st.integers(1, 64))
def test_the_relays_line_cutter_gives_back_every_byte(chunks, limit):
    read, write = os.pipe()
    data = b"".join(chunks)
    os.write(write, data)  # at most 480 bytes: the pipe takes them all
    os.close(write)
    got, too_long = [], False
    try:
        got = list(lines(read, limit))
    except LineTooLong:
        too_long = True
    finally:
        os.close(read)
    longest = max((len(part) for part in data.split(b"\n")), default=0)
    if too_long:
        assert longest > limit
    else:
        assert b"".join(got) == data and all(line.endswith(b"\n") for line in got[:-1])
        assert all(len(line.rstrip(b"\n")) <= limit for line in got)
