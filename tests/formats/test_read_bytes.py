"""``files.read_bytes``: the whole file in one read of its size, whatever the file claims."""

from __future__ import annotations

import os
import sys

import pytest

from pytest_mcptest.formats import files
from pytest_mcptest.formats.cassette import load_cassette
from pytest_mcptest.errors import InputError
from suites import cassette


def test_a_file_is_read_whole_in_one_read_of_its_size_and_one_byte_more(tmp_path, monkeypatch):
    path = tmp_path / "c.json"
    data = os.urandom(300_000)
    path.write_bytes(data)
    asked = []
    real = os.read

    def spy(fd, n):
        asked.append(n)
        return real(fd, n)

    monkeypatch.setattr(files.os, "read", spy)
    assert files.read_bytes(str(path)) == data
    assert asked == [300_001]  # the short read is the end: no second read to find it


def test_an_empty_file_reads_empty(tmp_path):
    path = tmp_path / "empty.json"
    path.write_bytes(b"")
    assert files.read_bytes(str(path)) == b""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_file_that_claims_size_zero_is_read_to_its_end():
    assert os.stat("/proc/self/status").st_size == 0
    text = files.read_bytes("/proc/self/status")
    assert b"Name:" in text and b"VmRSS" in text  # past the first byte and the first line


def test_a_file_over_the_limit_is_refused(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 101)
    with pytest.raises(InputError, match="is 101 bytes, over the 100 bytes limit"):
        files.read_bytes(str(path), limit=100)


def test_a_path_through_a_file_is_no_such_file(tmp_path):
    """A file where a folder should be: nothing lies at the path, as when a folder is missing."""
    (tmp_path / "plain").write_text("x")
    with pytest.raises(FileNotFoundError):
        files.read_bytes(str(tmp_path / "plain" / "c.json"))


@pytest.mark.parametrize("keep", [True, False])
def test_a_cassette_is_the_same_whether_kept_or_not(tmp_path, keep):
    path = tmp_path / "c.json"
    path.write_text(cassette("a", "b"))
    got = load_cassette(str(path), "c.json", keep)
    assert [c.name for c in got.runs[0].tool_calls] == ["a", "b"]
    with pytest.raises(FileNotFoundError):
        load_cassette(str(tmp_path / "missing.json"), "missing.json", keep)


def test_a_mapped_file_is_the_size_that_was_checked(tmp_path, monkeypatch):
    """A file that grows between the size check and the mapping is mapped at the size that
    passed the limit, as a read is bounded by it."""
    path = tmp_path / "c.json"
    path.write_bytes(b"x" * 100)
    real = os.fstat

    def grows(fd):
        checked = real(fd)
        with open(path, "ab") as fh:
            fh.write(b"y" * 5000)
        return checked

    monkeypatch.setattr(files.os, "fstat", grows)
    mapped = files.read_or_map(str(path), limit=1000, map_from=1)
    try:
        assert type(mapped).__name__ == "mmap" and len(mapped) == 100
    finally:
        mapped.close()


def test_a_mapped_file_is_proven_within_its_depth_as_its_bytes_are(tmp_path):
    for text in (b"]" * (1 << 20) + b"]" * 10 + b"[", b"[" * 5 + b"]" * 5, b"[" * 12 + b"]" * 12, b'"' + b"[" * 40 + b'"'):
        path = tmp_path / "c.json"
        path.write_bytes(text)
        mapped = files.read_or_map(str(path), map_from=1)
        try:
            assert files.mapped_brackets_within(mapped, 10) == files.brackets_within(text, 10), text[:20]
        finally:
            mapped.close()
