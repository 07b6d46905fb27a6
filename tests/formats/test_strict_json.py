"""The fast JSON path (msgspec) reads every text exactly as the standard library path does:
the same value, or the same refusal with the same message."""

from __future__ import annotations

import json

import pytest

from pytest_mcptest.formats import files
from pytest_mcptest.errors import InputError

TEXTS = [
    '{"a": 1, "b": [true, false, null], "c": "\\u00e9t\\u00e9", "d": -0.0, "e": 1E5}',
    '{"a": 1, "a": 2}',                       # the last duplicate wins
    '123456789012345678901234567890',         # beyond 64 bits: stays an exact integer
    '[18446744073709551616, -9223372036854775809]',
    '{"id": "1234567890123456789012"}',       # long digits in a string: still the same value
    '"\\ud800"',                              # a lone surrogate json accepts
    '[1.00000000000000000001, 4.9e-324, 1e-400, 2.2250738585072014e-308]',
    '1e400', '[-1e400]',                      # beyond a float: refused
    'NaN', '[Infinity]',                      # not JSON numbers: refused
    '{"a": }', '[1, 2', '"\x01"',             # syntax: refused with line and column
    '[' * 129 + ']' * 129,                    # deeper than 128: refused with a pointer
    '[' * 2000 + ']' * 2000,                  # past orjson's own depth limit
]


def _reference(text: str):
    """What the standard-library path alone gives: the value, or the error message."""
    saved = files._fast_loads
    files._fast_loads = lambda text: files._UNDECIDED
    try:
        return _outcome(text)
    finally:
        files._fast_loads = saved


def _outcome(text: str):
    try:
        return ("value", files.loads_json(text, "c.json"))
    except InputError as exc:
        return ("error", exc.render())


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_fast_path_reads_as_the_standard_library_does(text):
    got, want = _outcome(text), _reference(text)
    assert got == want
    if got[0] == "value":
        assert json.dumps(got[1]) == json.dumps(want[1])  # same types too (an int stays an int)


def test_the_fast_path_is_taken_for_a_plain_cassette(monkeypatch):
    monkeypatch.setattr(files.json, "loads", lambda *a, **k: pytest.fail("the standard parser was used"))
    assert files.strict_json('{"runs": [{"tool_calls": [{"name": "x", "args": {"n": 1.5}}]}]}') == {
        "runs": [{"tool_calls": [{"name": "x", "args": {"n": 1.5}}]}]}


@pytest.mark.parametrize("text, pointer", [
    ('{"a": 1, "a": 2}', ""),
    ('{"items": [{"id": "x"}, {"id": "a", "outcome": "passed", "id": "b"}]}', "/items/1"),
    ('[{"k": {"deep": {"z": 1, "z": 1}}}]', "/0/k/deep"),
])
def test_unique_keys_refuses_a_repeated_key_with_its_pointer(tmp_path, text, pointer):
    """Report shards, lock files and catalogs are read with ``unique_keys``: a key written twice
    once passed silently (the last one won), so a hand-edited shard could say two things."""
    path = tmp_path / "x.json"
    path.write_text(text)
    assert files.read_json(str(path)) is not None  # without it: JSON's own rule, the last one wins
    with pytest.raises(InputError) as caught:
        files.read_json(str(path), unique_keys=True)
    assert "appears twice in one object" in caught.value.render()
    assert caught.value.pointer == pointer


def test_each_reader_of_small_user_json_refuses_duplicate_keys(tmp_path, capsys):
    from pytest_mcptest.cli import main
    from pytest_mcptest.formats.lockfile import read_lock

    report = tmp_path / "r.json"
    report.write_text('{"mcptest_report": 1, "items": [{"id": "a", "id": "b"}]}')
    assert main(["report", str(report)]) == 2
    assert "(at /items/0)" in capsys.readouterr().err
    catalog = tmp_path / "c.json"
    catalog.write_text('{"tools": [{"name": "a", "description": "x", "description": "y"}]}')
    assert main(["doctor", "--catalog", str(catalog)]) == 2
    assert "'description' appears twice" in capsys.readouterr().err
    lock = tmp_path / "l.json"
    lock.write_text('{"mcptest_lock": 1, "mcptest_lock": 1, "tools": []}')
    with pytest.raises(InputError, match="'mcptest_lock' appears twice"):
        read_lock(str(lock), "l.json")
