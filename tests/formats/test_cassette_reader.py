"""The cassette reader against the shipped JSON Schema, ``jsonschema`` the oracle.

There is one reader (msgspec decoding straight into the format's Structs, then the checks a
Struct cannot say). Whatever hypothesis builds, the reader accepts it exactly when the schema
does, from text, from a file's bytes and from a mapped file alike; every refusal names the
JSON pointer (or the line) of what is wrong, and that place is in the document.
"""

from __future__ import annotations

import json
import os
import tempfile

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.formats import cassette as cassette_module
from pytest_mcptest.formats.cassette import Cassette, as_json, cassette_schema, dump_cassette, parse_cassette
from pytest_mcptest.engine.trace import Run, Tokens, ToolCall
from pytest_mcptest.errors import InputError
from pytest_mcptest.formats.files import read_or_map

SETTINGS = settings(max_examples=budget(200), deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
ORACLE = jsonschema.Draft202012Validator(cassette_schema())

MISSING = object()  # the key is left out

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([1.5, 2**70, "", "x", "é"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b"]), inner,
                                                                          max_size=2)),
    max_leaves=5,
)


def pick(*choices):
    return st.sampled_from(choices)


def objects(**fields) -> st.SearchStrategy:
    """A dict with each of ``fields`` (a strategy) present unless it drew MISSING."""
    return st.fixed_dictionaries({k: v for k, v in fields.items()}).map(
        lambda d: {k: v for k, v in d.items() if v is not MISSING})


metas = st.one_of(pick(MISSING, None, {}, "x", [], {"model": "m", "agent": "a"}, {"model": 1}, {"prompt": None},
                       {"recorder": True, "other": 1}, {"extra": {"x": 1}}, {"catalog_sha256": []}))
calls = st.one_of(
    objects(name=pick("a", "lookup", "", 3, None, MISSING), server=pick(MISSING, None, "s", "", 1),
            args=st.one_of(pick(MISSING), json_values), error=pick(MISSING, False, True, None, 0, "no"),
            result=st.one_of(pick(MISSING), json_values), turn=pick(MISSING, None, 0, 4, -1, True, 1.5, 2**70),
            args_invalid_json=pick(MISSING, False, True, None, "yes"), duration_ms=pick(MISSING, 12, "x"),
            rpc_error=pick(MISSING, None, {"code": 1}), unanswered=pick(MISSING, True), id=pick(MISSING, "c1", 4)),
    pick("call", 1, None, []),
)
turns = st.one_of(pick(MISSING, None, [], [1], "x"),
                  st.lists(st.fixed_dictionaries({"role": pick("user", "assistant"), "content": pick("hi", "ok")}),
                           max_size=3))
tokens = pick(MISSING, None, {}, {"input": 1, "output": 2.5, "total": 3}, {"input": True}, {"total": "9"},
              {"input": None, "other": "x"}, {"output": -1}, [], 2**70)
conversations = st.one_of(pick(MISSING, None, "x", []), objects(turns=turns, tokens=tokens))
judgments = st.one_of(pick(MISSING, None, "x"), st.lists(st.one_of(
    objects(criterion=pick("c", 1, MISSING), verdict=pick("pass", "fail", "maybe", MISSING, 1), why=pick(MISSING, 2)),
    pick(1, None)), max_size=2))
messages = st.one_of(pick(MISSING, None, {}, "x"), st.lists(st.one_of(
    objects(**{"from": pick("host", "server", "client", MISSING, 1)}, message=pick({"id": 1}, {}, "x", MISSING),
            at_ms=pick(MISSING, 0.5, "x"), malformed=pick(MISSING, "why")), pick(5, None)), max_size=3))
runs = st.one_of(
    objects(tool_calls=st.one_of(pick(MISSING, None, {}, "x"), st.lists(calls, max_size=4)),
            conversation=conversations, cost_micros=pick(MISSING, None, 0, 12, 1.5, -2, True, "x", 2**70),
            judgments=judgments, task=pick(MISSING, None, "t", 3, True, 1.5, 2**70),
            trial=pick(MISSING, None, 0, 2, -1, True, 1.5), meta=metas, messages=messages,
            tool_call=pick(MISSING, []), toolCalls=pick(MISSING, 1), unmatched_results=pick(MISSING, [9])),
    pick(1, None, []),
)
cassettes = st.one_of(
    objects(mcptest_cassette=pick(MISSING, 1, 1.0, 2, True, None, "1"), meta=metas,
            catalog=pick(MISSING, None, {}, {"tools": []}, [1], "x"),
            runs=st.one_of(pick(MISSING, None, "x", {}), st.lists(runs, max_size=3)),
            trace=st.one_of(pick(MISSING, "x"), runs),
            tool_calls=st.one_of(pick(MISSING, "x"), st.lists(calls, max_size=2)),
            conversation=pick(MISSING, None, [])),
    pick([], "x", None, 1),
)


def mapped(data: bytes):
    """``data`` as replay reads a large cassette: a file, mapped (its temporary folder is
    gone already; the mapping holds the file)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "c.json")
        with open(path, "wb") as fh:
            fh.write(data)
        return read_or_map(path, "c.json", map_from=1)


def outcome(read) -> tuple:
    """``("ok", repr of the cassette)`` or ``("error", the rendered message, line, pointer)``."""
    try:
        return "ok", repr(read())
    except InputError as exc:
        return "error", exc.render(), exc.line, exc.pointer


def resolves(document, pointer: str) -> bool:
    """Whether ``pointer`` names a place in ``document``, or a key missing from an object there."""
    node = document
    parts = pointer.split("/")[1:] if pointer else []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(node, dict):
            if part not in node:
                return last
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


@SETTINGS
@given(cassettes)
def test_the_reader_accepts_what_the_schema_accepts_and_names_the_place_of_the_rest(data):
    text = json.dumps(data, ensure_ascii=False)
    got = outcome(lambda: parse_cassette("c.json", text))
    assert (got[0] == "ok") == ORACLE.is_valid(data), got
    if got[0] == "error":
        assert got[3] is not None and resolves(data, got[3]), got
        assert "expected" in got[1] or "unknown key" in got[1] or "version" in got[1] or "no recorded run" in got[1] \
            or "missing the required key" in got[1]
    assert outcome(lambda: parse_cassette("c.json", text.encode())) == got  # a file's bytes, as replay reads it
    assert outcome(lambda: parse_cassette("c.json", mapped(text.encode()))) == got  # a large file, mapped


@SETTINGS
@given(cassettes)
def test_what_is_read_is_written_back_as_it_reads(data):
    """The one writer writes what the one reader read; read again, it is the same runs."""
    text = json.dumps(data, ensure_ascii=False)
    try:
        first = parse_cassette("c.json", text)
    except InputError:
        return
    written = dump_cassette(first)
    again = parse_cassette("c.json", written)
    assert repr(again.runs) == repr(first.runs) and again.meta == first.meta and again.catalog == first.catalog
    assert ORACLE.is_valid(json.loads(written))
    assert json.loads(written) == as_json(first)


def test_an_integral_float_where_an_integer_is_wanted_is_refused_though_json_schema_cannot_tell():
    """JSON Schema's ``integer`` takes 2.0; the reader wants the integer a writer writes, as
    the cassette format always has."""
    data = {"runs": [{"trial": 2.0, "tool_calls": [{"name": "a", "turn": 1.0}]}]}
    assert ORACLE.is_valid(data)
    with pytest.raises(InputError) as caught:
        parse_cassette("c.json", json.dumps(data))
    assert caught.value.pointer == "/runs/0/trial" and "expected an integer" in caught.value.message


def test_null_reads_as_absent_and_false():
    got = parse_cassette("c.json", json.dumps({"runs": [{"tool_calls": [
        {"name": "a", "error": None, "args_invalid_json": None}, {"name": "b", "error": True}]}]}))
    assert got.runs[0].tool_calls == (ToolCall("a"), ToolCall("b", error=True))


def test_a_whole_session_is_read_into_messages():
    data = {"runs": [{"tool_calls": [{"name": "a", "unanswered": True, "duration_ms": 3}], "messages": [
        {"from": "host", "at_ms": 0.5, "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}},
        {"from": "server", "message": {"jsonrpc": "2.0", "method": "notifications/progress"}, "other": 1}]}]}
    run = parse_cassette("c.json", json.dumps(data)).runs[0]
    assert [m.sender for m in run.messages] == ["host", "server"] and run.messages[0].at_ms == 0.5
    assert run.tool_calls[0].unanswered is True and run.tool_calls[0].duration_ms == 3


def test_the_writer_writes_known_keys_in_order_and_leaves_out_what_is_absent_but_error():
    run = Run(tool_calls=(ToolCall("add", {"n": 2**70}, "shop", False, {"content": []}, 0),),
              turns=({"role": "assistant", "content": "done"},), tokens=Tokens(input=1), cost_micros=12,
              judgments=({"criterion": "polite", "verdict": "pass", "reason": "yes"},), task="t", trial=0,
              meta={"model": "m"})
    text = dump_cassette(Cassette(runs=(run,), meta={"agent": "a"}, catalog={"s": {"tools": []}}))
    data = json.loads(text)
    assert list(data) == ["mcptest_cassette", "meta", "catalog", "runs"]
    assert list(data["runs"][0]) == ["task", "trial", "meta", "tool_calls", "conversation", "cost_micros", "judgments"]
    assert list(data["runs"][0]["tool_calls"][0].items()) == [
        ("name", "add"), ("server", "shop"), ("args", {"n": 2**70}), ("error", False), ("result", {"content": []}),
        ("turn", 0)]
    assert text.startswith('{\n  "mcptest_cassette": 1,\n') and text.endswith("}\n")
    assert repr(parse_cassette("c.json", text).runs) == repr((run,))


def test_a_large_cassette_is_mapped_and_read_as_its_bytes_would_be(tmp_path, monkeypatch):
    calls = tuple(ToolCall(f"t{i}", {"i": i}, result={"content": [{"type": "text", "text": "x" * 50}]})
                  for i in range(200))
    path = tmp_path / "big.json"
    path.write_text(dump_cassette(Cassette(runs=(Run(tool_calls=calls),))))
    monkeypatch.setattr(cassette_module, "STREAM_BYTES", 1000)
    seen = []
    real = cassette_module.parse_cassette
    monkeypatch.setattr(cassette_module, "parse_cassette", lambda shown, m: seen.append(type(m).__name__)
                        or real(shown, m))
    got = cassette_module.load_cassette(str(path), "big.json", keep=False)
    assert seen == ["mmap"]
    assert got.runs[0].tool_calls == calls
    path.write_text('{"runs": [{"tool_calls": [{"name": ""}]}], "padding": "' + "x" * 2000 + '"}')
    with pytest.raises(InputError, match="expected a non-empty string"):
        cassette_module.load_cassette(str(path), "big.json", keep=False)


@pytest.mark.parametrize("text, words", [
    ('{"runs": [{"tool_calls": [{"name": "a", "name": "b"}]}]}', None),  # the last of a repeated key counts
    ('{"runs": [{"tool_calls": [{"name": "a", "name": ""}]}]}', "expected a non-empty string"),
    ('{"runs": [{"tool_calls": [{"name": "a", "args": {"x": 1e400}}]}]}', "too large"),  # beyond a float
    ('{"runs": [{"tool_calls": [{"name": "a", "args": ' + "[" * 200 + "]" * 200 + '}]}]}', "nest"),  # too deep
    ('{"runs": [{"tool_calls": [{"name": "a", "args": ' + "[" * 100 + "]" * 100 + '}]}]}', None),
    ('{"runs": [{"tool_calls": [{"name": "a"}]}]} x', "invalid JSON"),
    ('\ufeff{"runs": []}', None),
    ('{"runs": [], "mcptest_cassette": 1.0}', None),
    ("", "invalid JSON"),
    ('{"runs": [], "meta": [Infinity]}', "invalid JSON"),  # a type refused first, then bad JSON further on
    ('{"runs": [{"tool_calls": [{"name": "a", "args": ' + "9" * 5000 + '}]}]}', "digits"),
])
def test_odd_texts_read_the_same_from_text_bytes_and_a_mapped_file(text, words):
    got = outcome(lambda: parse_cassette("c.json", text))
    assert (got[0] == "ok") == (words is None) and (words is None or words in got[1]), got
    assert outcome(lambda: parse_cassette("c.json", text.encode())) == got
    if text:
        assert outcome(lambda: parse_cassette("c.json", mapped(text.encode()))) == got


def test_bytes_that_are_not_utf8_are_refused_naming_the_byte():
    with pytest.raises(InputError, match="not UTF-8 text: invalid start byte at byte 28"):
        parse_cassette("c.json", b'{"runs": [{"tool_calls": [{"\xff": 1}]}]}')


@pytest.mark.parametrize("data", [
    b'{"runs": [{"tool_calls": [{"name": "a"}]}], "note": "\xff"}',  # skipped values, at every level
    b'{"runs": [{"tool_calls": [{"name": "a"}], "note": "caf\xe9"}]}',  # Latin-1, not UTF-8
    b'{"runs": [{"tool_calls": [{"name": "a", "duration_ms": "\xc3"}]}]}',  # a sequence cut short
    b'{"runs": [{"tool_calls": [{"name": "a"}], "conversation": {"turns": [], "x": "\xed\xa0\x80"}}]}',  # a surrogate
])
def test_bytes_not_utf8_under_a_key_the_reader_ignores_are_refused(data):
    """msgspec skips the values of keys it does not know without checking their text: the
    reader proves the file is UTF-8 first."""
    with pytest.raises(InputError, match="not UTF-8 text") as caught:
        parse_cassette("c.json", data)
    with pytest.raises(InputError) as mapped_caught:
        parse_cassette("c.json", mapped(data))
    assert mapped_caught.value.render() == caught.value.render()
    fixed = data.decode("latin-1").encode("utf-8")  # the same file written as UTF-8 is read
    assert repr(parse_cassette("c.json", mapped(fixed))) == repr(parse_cassette("c.json", fixed))


def test_a_mapped_file_is_proven_utf8_across_its_chunks():
    """The mapped file's text is checked a megabyte at a time: a sequence split between two
    chunks is whole, one cut short by an ASCII chunk is not."""
    pad = b" " * ((1 << 20) - len(b'{"runs": [{"tool_calls": [{"name": "a"}]}], "n": "') - 1)
    whole = b'{"runs": [{"tool_calls": [{"name": "a"}]}], "n": "' + pad + "\u00e9".encode() + b'"}'
    assert whole.index(b"\xc3") == (1 << 20) - 1  # the two bytes of the e-acute straddle the first megabyte
    assert parse_cassette("c.json", mapped(whole)).runs[0].tool_calls == (ToolCall("a"),)
    cut = whole.replace(b"\xc3\xa9", b"\xc3a")  # the second chunk starts with ASCII
    with pytest.raises(InputError, match="not UTF-8 text"):
        parse_cassette("c.json", mapped(cut))
    with pytest.raises(InputError, match="not UTF-8 text"):
        parse_cassette("c.json", mapped(whole[:-3] + b"\xc3"))  # ends inside a sequence


def test_false_arguments_and_results_are_values_and_are_written():
    """Only the flags that are off are left out: arguments or a result that are ``false`` (a
    tool may answer a bare boolean) are written and read back as they were."""
    from pytest_mcptest.formats.cassette import Cassette, dump_cassette, parse_cassette
    from pytest_mcptest.engine.trace import Run, ToolCall

    text = dump_cassette(Cassette(runs=(Run(tool_calls=(ToolCall(name="t", args=False, result=False),)),)))
    (call,) = parse_cassette("c.json", text).runs[0].tool_calls
    assert call.args is False and call.result is False and '"args_invalid_json"' not in text
