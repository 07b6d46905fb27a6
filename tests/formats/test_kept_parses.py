"""Decoded cassettes kept between sessions (``formats/kept_parses.py``), the JSON reader the oracle.

A kept parse is only a faster way to the same :class:`Cassette`: whatever the reader makes of
a file, read through the kept parses (the first time, which keeps one, and the next, which
uses it) it makes the same, or refuses it with the same message; and nothing about the file
but its bytes decides whether a kept parse is used.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given
from test_cassette_reader import SETTINGS, cassettes, outcome

from pytest_mcptest.formats import cassette as cassette_module, kept_parses
from pytest_mcptest.formats.cassette import forget_parsed, load_cassette
from pytest_mcptest.formats.files import digest, watch_reads

CASSETTE = {"mcptest_cassette": 1, "meta": {"agent": "a"},
            "runs": [{"tool_calls": [{"name": "restock", "args": {"n": 2}, "result": {"ok": True}}],
                      "conversation": {"turns": [{"role": "assistant", "content": "done"}]}}]}


@pytest.fixture(autouse=True)
def every_size_kept(monkeypatch):
    """The cassettes here are small; the reader keeps the parse of one of any size while this
    holds (but the test of the threshold itself)."""
    monkeypatch.setattr(cassette_module, "KEPT_FROM", 0)


def _write(path, data) -> str:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(data if isinstance(data, str) else json.dumps(data, indent=2))
    return str(path)


def _entries(folder) -> list:
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


@SETTINGS
@given(cassettes)
def test_a_kept_parse_reads_as_the_file_does_and_a_refused_file_is_refused_alike(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("kept")
    path = _write(folder / "c.json", json.dumps(data, ensure_ascii=False))
    kept = (str(folder / "parsed"), "stamp")
    plain = outcome(lambda: load_cassette(path, "c.json", keep=False))
    first = outcome(lambda: load_cassette(path, "c.json", keep=False, kept=kept))
    again = outcome(lambda: load_cassette(path, "c.json", keep=False, kept=kept))
    assert first == plain and again == plain
    if plain[0] == "error":
        assert _entries(kept[0]) == []  # a file the reader refuses is never kept


@pytest.mark.parametrize("shared", [False, True])
def test_the_next_session_uses_the_kept_parse(tmp_path, monkeypatch, shared):
    """``shared``: a cassette several items replay, whose parse the session also keeps in
    memory (each session starts with none: ``forget_parsed``)."""
    path = _write(tmp_path / "c.json", CASSETTE)
    kept = (str(tmp_path / "parsed"), "stamp")
    first = load_cassette(path, "c.json", keep=shared, kept=kept)
    forget_parsed()
    [entry] = _entries(kept[0])
    assert entry.endswith("-c.json.kept")
    decoded = []
    monkeypatch.setattr("pytest_mcptest.formats.cassette._decoded", lambda *a: decoded.append(a))  # JSON: not used
    assert load_cassette(path, "c.json", keep=shared, kept=kept) == first
    assert decoded == []


def test_a_change_of_the_bytes_alone_is_seen_whatever_the_times_say(tmp_path):
    """Same size, same modification time (``cp -p``, an archive, a fast editor): the bytes
    decide, and the kept parse of the old ones is not used."""
    path = _write(tmp_path / "c.json", CASSETTE)
    kept = (str(tmp_path / "parsed"), "stamp")
    before = os.stat(path)
    assert load_cassette(path, "c.json", keep=False, kept=kept).runs[0].tool_calls[0].name == "restock"
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    _write(path, text.replace('"restock"', '"destroy"'))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size and os.stat(path).st_mtime_ns == before.st_mtime_ns
    assert load_cassette(path, "c.json", keep=False, kept=kept).runs[0].tool_calls[0].name == "destroy"


def test_a_parse_kept_by_other_code_is_not_used(tmp_path):
    path = _write(tmp_path / "c.json", CASSETTE)
    folder = str(tmp_path / "parsed")
    load_cassette(path, "c.json", keep=False, kept=(folder, "old code"))
    with open(path, "rb") as fh:
        known = digest(fh.read())
    assert kept_parses.kept(folder, path, "old code", known) is not None
    assert kept_parses.kept(folder, path, "new code", known) is None
    assert load_cassette(path, "c.json", keep=False, kept=(folder, "new code")).runs[0].tool_calls[0].name == "restock"
    assert kept_parses.kept(folder, path, "new code", known) is not None  # and kept for it


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "other record"])
def test_a_damaged_entry_is_decoded_again_and_rewritten(tmp_path, damage):
    path = _write(tmp_path / "c.json", CASSETTE)
    kept = (str(tmp_path / "parsed"), "stamp")
    want = load_cassette(path, "c.json", keep=False, kept=kept)
    [name] = _entries(kept[0])
    entry = os.path.join(kept[0], name)
    with open(entry, "rb") as fh:
        whole = fh.read()
    header = whole[:whole.index(b"\n") + 1]
    damaged = {"truncated": whole[:len(whole) - 7], "garbage": header + b"\xc1\xff not msgpack", "empty": b"",
               "other record": header + b"\x93\x01\x02\x03"}[damage]
    with open(entry, "wb") as fh:
        fh.write(damaged)
    assert load_cassette(path, "c.json", keep=False, kept=kept) == want
    with open(entry, "rb") as fh:
        assert fh.read() == whole


def test_only_the_cassette_is_a_read_a_verdict_depends_on(tmp_path):
    """The verdict cache lists what judging read: the cassette with the digest of its bytes,
    or that it was absent; never the kept parse, which is mcptest's own."""
    path = _write(tmp_path / "c.json", CASSETTE)
    kept = (str(tmp_path / "parsed"), "stamp")
    with open(path, "rb") as fh:
        known = digest(fh.read())
    for _ in range(2):  # the read that keeps the parse, then the one that uses it
        with watch_reads() as reads:
            load_cassette(path, "c.json", keep=False, kept=kept)
        assert reads == [(path, known)]
    missing = str(tmp_path / "none.json")
    with watch_reads() as reads, pytest.raises(FileNotFoundError):
        load_cassette(missing, "none.json", keep=False, kept=kept)
    assert reads == [(missing, None)]


def test_what_cannot_be_kept_is_read_as_it_is(tmp_path):
    """An integer past 64 bits has no MessagePack form, and a folder that cannot be written
    keeps nothing: the cassette reads all the same."""
    big = dict(CASSETTE, runs=[{"tool_calls": [{"name": "a", "args": {"n": 2 ** 70}}]}])
    path = _write(tmp_path / "big.json", big)
    kept = (str(tmp_path / "parsed"), "stamp")
    assert load_cassette(path, "big.json", keep=False, kept=kept).runs[0].tool_calls[0].args == {"n": 2 ** 70}
    assert _entries(kept[0]) == []
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    path = _write(tmp_path / "c.json", CASSETTE)
    assert load_cassette(path, "c.json", keep=False, kept=(str(blocked / "parsed"), "stamp")).runs[0].tool_calls


def test_the_older_envelopes_are_read_but_not_kept(tmp_path):
    path = _write(tmp_path / "old.json", {"tool_calls": [{"name": "a"}]})
    kept = (str(tmp_path / "parsed"), "stamp")
    assert load_cassette(path, "old.json", keep=False, kept=kept).shape == "envelope"
    assert _entries(kept[0]) == []


@pytest.mark.parametrize("run", [{"tool_calls": [{"name": "a"}]}, {}, {"toolcalls": []}])
def test_a_file_with_a_byte_order_mark_reads_the_same_kept(tmp_path, run):
    """Editors on Windows write one; a run without ``tool_calls`` is looked at again in the
    text (a misspelled key), which must then be read without the mark too."""
    path = str(tmp_path / "c.json")
    with open(path, "wb") as fh:
        fh.write(b"\xef\xbb\xbf" + json.dumps({"runs": [run]}).encode())
    kept = (str(tmp_path / "parsed"), "stamp")
    plain = outcome(lambda: load_cassette(path, "c.json", keep=False))
    assert [outcome(lambda: load_cassette(path, "c.json", keep=False, kept=kept)) for _ in range(2)] == [plain] * 2


def test_a_cassette_under_the_threshold_is_read_as_it_is(tmp_path, monkeypatch):
    """Making an entry costs a file's creation, which a small cassette's decode would take
    many sessions to repay: none is made, and none is looked for."""
    monkeypatch.setattr(cassette_module, "KEPT_FROM", 64 << 10)
    small = _write(tmp_path / "small.json", CASSETTE)
    large = _write(tmp_path / "large.json", dict(CASSETTE, meta={"agent": "a" * (64 << 10)}))
    kept = (str(tmp_path / "parsed"), "stamp")
    looked = []
    real = cassette_module.kept_parse
    monkeypatch.setattr(cassette_module, "kept_parse", lambda *a: looked.append(a[1]) or real(*a))
    for path in (small, large):
        load_cassette(path, os.path.basename(path), keep=False, kept=kept)
    assert looked == [large]
    assert [name.split("-", 1)[1] for name in _entries(kept[0])] == ["large.json.kept"]


def test_a_directory_where_the_entry_should_be_is_no_entry(tmp_path):
    path = _write(tmp_path / "c.json", CASSETTE)
    kept = (str(tmp_path / "parsed"), "stamp")
    want = load_cassette(path, "c.json", keep=False, kept=kept)
    [name] = _entries(kept[0])
    entry = os.path.join(kept[0], name)
    os.unlink(entry)
    os.mkdir(entry)
    assert load_cassette(path, "c.json", keep=False, kept=kept) == want  # and the entry cannot be written
    assert os.path.isdir(entry) and _entries(kept[0]) == [name]  # no temporary file left beside it
