"""The typed reading of a cassette (msgspec straight into runs) against the reader it stands in for.

``parse_cassette`` first tries ``_typed_cassette``; whatever that does not accept goes to the
standard parse and ``_Reader``, which word what is wrong. So the typed path must accept only
what the reader accepts, build exactly what the reader builds (``repr`` tells 1 from 1.0 and
True, and shows key order), and every message must be the reader's.
"""

from __future__ import annotations

import json
import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_mcptest import cassette as cassette_module
from pytest_mcptest.cassette import _Reader, _mapped_cassette, _typed_cassette, dump_cassette, parse_cassette
from pytest_mcptest.errors import InputError
from pytest_mcptest.files import loads_json, read_or_map

SETTINGS = settings(max_examples=400, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

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
                       {"recorder": True, "other": 1}, {"extra": {"x": 1}}))
calls = st.one_of(
    objects(name=pick("a", "lookup", "", 3, None, MISSING), server=pick(MISSING, None, "s", "", 1),
            args=st.one_of(pick(MISSING), json_values), error=pick(MISSING, False, True, None, 0, "no"),
            result=st.one_of(pick(MISSING), json_values), turn=pick(MISSING, None, 0, 4, -1, True, 1.0, 2**70),
            args_invalid_json=pick(MISSING, False, True, None, "yes"), duration_ms=pick(MISSING, 12, "x")),
    pick("call", 1, None, []),
)
turns = st.one_of(pick(MISSING, None, [], [1], "x"),
                  st.lists(st.fixed_dictionaries({"role": pick("user", "assistant"), "content": pick("hi", "ok")}),
                           max_size=3))
tokens = pick(MISSING, None, {}, {"input": 1, "output": 2.5, "total": 3}, {"input": True}, {"total": "9"},
              {"input": None, "other": "x"}, [], 2**70)
conversations = st.one_of(pick(MISSING, None, "x", []), objects(turns=turns, tokens=tokens))
judgments = st.one_of(pick(MISSING, None, "x"), st.lists(st.one_of(
    objects(criterion=pick("c", 1, MISSING), verdict=pick("pass", "fail", "maybe", MISSING, 1)), pick(1, None)),
    max_size=2))
runs = st.one_of(
    objects(tool_calls=st.one_of(pick(MISSING, None, {}, "x"), st.lists(calls, max_size=4)),
            conversation=conversations, cost_micros=pick(MISSING, None, 0, 12, 1.5, True, "x", 2**70),
            judgments=judgments, task=pick(MISSING, None, "t", 3, True, 1.5, 2**70),
            trial=pick(MISSING, None, 0, 2, -1, True, 1.0), meta=metas, tool_call=pick(MISSING, [])),
    pick(1, None, []),
)
cassettes = st.one_of(
    objects(mcptest_cassette=pick(MISSING, 1, 1.0, 2, True, None, "1"), meta=metas,
            catalog=pick(MISSING, None, {}, {"tools": []}, [1], "x"),
            runs=st.one_of(pick(MISSING, None, "x", {}), st.lists(runs, max_size=3)),
            trace=st.one_of(pick(MISSING, "x"), runs), tool_calls=pick(MISSING, [], [{"name": "root"}])),
    pick([], "x", None, 1),
)

# Only what the reader accepts, in the shape of cassette v1: every one must take the typed path.
well_formed_runs = objects(
    tool_calls=st.lists(objects(name=pick("a", "lookup"), server=pick(MISSING, None, "s"),
                                args=st.one_of(pick(MISSING), json_values), error=pick(MISSING, False, True),
                                result=st.one_of(pick(MISSING), json_values), turn=pick(MISSING, None, 0, 2**70),
                                args_invalid_json=pick(MISSING, False, True), rpc_error=pick(MISSING, None, "x")),
                        max_size=4),
    conversation=st.one_of(pick(MISSING, None), objects(turns=st.one_of(pick(MISSING), turns.filter(
        lambda t: isinstance(t, list) and t != [1])), tokens=pick(MISSING, None, {}, {"input": 1, "total": 2.5}))),
    cost_micros=pick(MISSING, None, 0, 1.5), judgments=pick(MISSING, [], [{"criterion": "c", "verdict": "fail"}]),
    task=pick(MISSING, None, "t", 3), trial=pick(MISSING, None, 0, 2),
    meta=pick(MISSING, None, {}, {"model": "m", "other": 1}))
well_formed = objects(mcptest_cassette=pick(MISSING, 1, None), meta=pick(MISSING, None, {"agent": "a"}),
                      catalog=pick(MISSING, None, {"s": {"tools": []}}), runs=st.lists(well_formed_runs, max_size=3))


def outcome(read) -> tuple:
    """``("ok", repr of the cassette)`` or ``("error", the rendered message, line, pointer)``."""
    try:
        return "ok", repr(read())
    except InputError as exc:
        return "error", exc.render(), exc.line, exc.pointer


def reader(path: str, text: str):
    return _Reader(path).cassette(loads_json(text, path))


def mapped(data: bytes):
    """``data`` as replay reads a large cassette: a file, mapped (its temporary folder is
    gone already; the mapping holds the file)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "c.json")
        with open(path, "wb") as fh:
            fh.write(data)
        return read_or_map(path, "c.json", map_from=1)


@SETTINGS
@given(cassettes)
def test_the_typed_path_reads_what_the_reader_reads_and_defers_the_rest(data):
    text = json.dumps(data, ensure_ascii=False)
    slow = outcome(lambda: reader("c.json", text))
    fast = _typed_cassette("c.json", text)
    if fast is not None:
        assert slow == ("ok", repr(fast))
    assert outcome(lambda: parse_cassette("c.json", text)) == slow
    assert outcome(lambda: parse_cassette("c.json", text.encode())) == slow  # a file's bytes, as replay reads it
    if text.encode():
        assert outcome(lambda: parse_cassette("c.json", mapped(text.encode()))) == slow  # a large file, mapped


@SETTINGS
@given(well_formed)
def test_a_well_formed_mapped_cassette_is_decoded_call_by_call(data):
    text = json.dumps(data, indent=2, ensure_ascii=False).encode()
    mapping = mapped(text)
    try:
        streamed = _mapped_cassette("c.json", mapping)
    finally:
        mapping.close()
    assert streamed is not None
    assert repr(streamed) == repr(reader("c.json", text.decode()))


def test_a_large_cassette_is_mapped_and_its_pages_given_back_as_it_is_read(tmp_path, monkeypatch):
    """Above ``STREAM_BYTES`` replay maps the file rather than reading it; the pages it has
    passed are handed back every ``_GIVE_BACK`` bytes of calls (here after each call)."""
    calls = [{"name": f"t{i}", "args": {"i": i}, "result": {"content": [{"type": "text", "text": "x" * 50}]}}
             for i in range(200)]
    path = tmp_path / "big.json"
    path.write_text(dump_cassette({"mcptest_cassette": 1, "runs": [{"tool_calls": calls}]}))
    monkeypatch.setattr(cassette_module, "STREAM_BYTES", 1000)
    monkeypatch.setattr(cassette_module, "_GIVE_BACK", 1)
    seen = []
    real = cassette_module._mapped_cassette
    monkeypatch.setattr(cassette_module, "_mapped_cassette", lambda path, m: seen.append(type(m).__name__)
                        or real(path, m))
    got = cassette_module.load_cassette(str(path), "big.json", keep=False)
    assert seen == ["mmap"]
    assert [c.name for c in got.runs[0].tool_calls] == [f"t{i}" for i in range(200)]
    assert repr(got) == repr(parse_cassette("big.json", path.read_bytes()))
    path.write_text('{"runs": [{"tool_calls": [{"name": ""}]}], "padding": "' + "x" * 2000 + '"}')
    with pytest.raises(InputError, match="must not be empty"):  # refused by the typed decoding: the reader says why
        cassette_module.load_cassette(str(path), "big.json", keep=False)


@SETTINGS
@given(well_formed)
def test_a_well_formed_cassette_takes_the_typed_path(data):
    text = json.dumps(data, ensure_ascii=False)
    fast = _typed_cassette("c.json", text)
    assert fast is not None
    assert repr(fast) == repr(reader("c.json", text))


def test_a_cassette_as_writers_make_it_takes_the_typed_path():
    call = {"name": "add", "server": "shop", "args": {"n": 2**70}, "error": False, "duration_ms": 12,
            "result": {"content": [{"type": "text", "text": "ok"}]}, "turn": 0, "rpc_error": None}
    run = {"tool_calls": [call, {"name": "done"}], "cost_micros": 12,
           "conversation": {"turns": [{"role": "assistant", "content": "done"}], "tokens": {"input": 1, "output": 2}},
           "judgments": [{"criterion": "polite", "verdict": "pass", "reason": "yes"}], "meta": {"model": "m"}}
    text = dump_cassette({"mcptest_cassette": 1, "meta": {"agent": "a"}, "catalog": {"s": {"tools": []}},
                          "runs": [run, {"tool_calls": [], "task": "t", "trial": 0}]})
    fast = _typed_cassette("c.json", text)
    assert fast is not None
    assert repr(fast) == repr(reader("c.json", text))


@pytest.mark.parametrize("text", [
    '{"runs": [{"tool_calls": [{"name": "\\ud800"}]}]}',  # a lone surrogate: json reads it, msgspec does not
    '{"runs": [{"tool_calls": [{"name": "a", "name": "b"}]}]}',  # the last of a repeated key counts
    '{"runs": [{"tool_calls": [{"name": "a", "name": ""}]}]}',
    '{"runs": [{"tool_calls": [{"name": "a", "args": {"x": 1e400}}]}]}',  # beyond a float
    '{"runs": [{"tool_calls": [{"name": "a", "args": ' + "[" * 200 + "]" * 200 + '}]}]}',  # too deep
    '{"runs": [{"tool_calls": [{"name": "a", "args": ' + "[" * 100 + "]" * 100 + '}]}]}',
    '{"runs": [{"tool_calls": [{"name": "a"}]}]} x',
    '\ufeff{"runs": []}',
    '{"runs": [], "mcptest_cassette": 1.0}',
])
def test_odd_texts_read_the_same_by_either_path(text):
    slow = outcome(lambda: reader("c.json", text))
    fast = _typed_cassette("c.json", text)
    if fast is not None:
        assert slow == ("ok", repr(fast))
    assert outcome(lambda: parse_cassette("c.json", text)) == slow
    as_file = outcome(lambda: reader("c.json", text.removeprefix("\ufeff")))  # a file's byte-order mark is dropped
    assert outcome(lambda: parse_cassette("c.json", text.encode())) == as_file  # a file's bytes, as replay reads it
    assert outcome(lambda: parse_cassette("c.json", mapped(text.encode()))) == as_file  # mapped


@pytest.mark.parametrize("data, message", [
    ("\ufeff" + json.dumps({"runs": [{"tool_calls": [{"name": "a"}]}]}), None),  # a byte-order mark is dropped
    ('{"runs": [{"tool_calls": [{"name": "caf\xe9"}]}]}', None),
    ('{"runs": [{"tool_calls": [{"name": ""}]}]}', "must not be empty"),
    ('{"runs": [', "invalid JSON"),
])
def test_bytes_read_as_the_text_would_be(data, message):
    """Replay hands the file's bytes to the parser; they give the runs or the message that
    the file's text gives (its byte-order mark dropped, as a file's text always had it)."""
    as_text = outcome(lambda: parse_cassette("c.json", data.removeprefix("\ufeff")))
    assert outcome(lambda: parse_cassette("c.json", data.encode("utf-8"))) == as_text
    assert (as_text[0] == "ok") == (message is None) and (message is None or message in as_text[1])


def test_bytes_that_are_not_utf8_are_refused_as_before():
    with pytest.raises(InputError, match="not UTF-8 text: invalid start byte at byte 28"):
        parse_cassette("c.json", b'{"runs": [{"tool_calls": [{"\xff": 1}]}]}')


@pytest.mark.parametrize("data", [
    b'{"runs": [{"tool_calls": [{"name": "a"}]}], "note": "\xff"}',  # skipped values, at every level
    b'{"runs": [{"tool_calls": [{"name": "a"}], "note": "caf\xe9"}]}',  # Latin-1, not UTF-8
    b'{"runs": [{"tool_calls": [{"name": "a", "duration_ms": "\xc3"}]}]}',  # a sequence cut short
    b'{"runs": [{"tool_calls": [{"name": "a"}], "conversation": {"turns": [], "x": "\xed\xa0\x80"}}]}',  # a surrogate
])
def test_bytes_not_utf8_under_a_key_the_reader_ignores_are_refused_by_either_path(data):
    """msgspec skips the values of keys it does not know without checking their text: the
    typed path must not read a file the reader refuses as not UTF-8."""
    assert _typed_cassette("c.json", data) is None
    with pytest.raises(InputError, match="not UTF-8 text") as caught:
        parse_cassette("c.json", data)
    with pytest.raises(InputError) as mapped_caught:
        parse_cassette("c.json", mapped(data))
    assert mapped_caught.value.render() == caught.value.render()
    fixed = data.decode("latin-1").encode("utf-8")  # the same file written as UTF-8 is read, by the typed path
    assert _typed_cassette("c.json", fixed) is not None
    assert repr(parse_cassette("c.json", mapped(fixed))) == repr(parse_cassette("c.json", fixed))


def test_a_mapped_file_is_proven_utf8_across_its_chunks():
    """The mapped file's text is checked a megabyte at a time: a sequence split between two
    chunks is whole, one cut short by an ASCII chunk is not."""
    pad = b" " * ((1 << 20) - len(b'{"runs": [{"tool_calls": [{"name": "a"}]}], "n": "') - 1)
    whole = b'{"runs": [{"tool_calls": [{"name": "a"}]}], "n": "' + pad + "\u00e9".encode() + b'"}'
    assert whole.index(b"\xc3") == (1 << 20) - 1  # the two bytes of the e-acute straddle the first megabyte
    assert cassette_module._mapped_utf8(whole)
    cut = whole.replace(b"\xc3\xa9", b"\xc3a")  # the second chunk starts with ASCII
    assert not cassette_module._mapped_utf8(cut)
    assert not cassette_module._mapped_utf8(whole[:-3] + b"\xc3")  # ends inside a sequence
    assert _mapped_cassette("c.json", mapped(cut)) is None
