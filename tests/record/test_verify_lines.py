"""How ``mcptest verify`` reads a stdio server's output: lines cut in linear time, a line too
long counted and passed over, each line checked as a host's stdio reader would."""

from __future__ import annotations

from pytest_mcptest.record.verify import AnswerTooLong, Lines, StdoutFault, read_message


def test_lines_are_cut_across_chunks_and_a_line_too_long_stands_as_its_size():
    lines = Lines(limit=10)
    assert lines.feed(b"ab\ncd") == [b"ab"]
    assert lines.feed(b"ef\n" + b"x" * 20) == [b"cdef"]
    assert lines.feed(b"y" * 5 + b"\nz") == [25]
    assert lines.feed(b"") == [] and lines.close() == [b"z"]


def test_each_line_is_one_json_rpc_message_in_utf8_or_a_fault_saying_why():
    message, = read_message(b'{"jsonrpc": "2.0", "id": 1, "result": {}}')
    assert message.message.model_dump(exclude_unset=True)["id"] == 1
    banner, = read_message(b"Server v1 starting\n")
    assert isinstance(banner, StdoutFault) and str(banner) == "a line that is not JSON-RPC: 'Server v1 starting'"
    fault, decoded = read_message(b'{"jsonrpc": "2.0", "id": 2, "result": {"t": "caf\xe9"}}')
    assert str(fault).startswith("a line that is not UTF-8 (byte 0xe9 at offset 48)")
    assert decoded.message.model_dump(exclude_unset=True)["result"] == {"t": "caf\ufffd"}
    too_long, = read_message(80 * 1024 * 1024)
    assert isinstance(too_long, AnswerTooLong) and str(too_long).startswith("a line of 80.0 MiB, over the 64 MiB")
    assert read_message(b"  \n") == []
