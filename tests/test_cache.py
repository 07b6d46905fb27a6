"""Built suites are cached beside their files and rebuilt whenever file or code changes."""

from __future__ import annotations

import os
import sys

import pytest

from pytest_mcptest.errors import InputError
from pytest_mcptest.suite import cache
from pytest_mcptest.suite.build import load_suite
from suites import WIDGET_SUITE, simple_scenario


@pytest.fixture
def writable(monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


@pytest.fixture
def suite_file(tmp_path):
    path = tmp_path / "shop.mcptest.yml"
    path.write_text(WIDGET_SUITE)
    return str(path)


def _no_parse(monkeypatch):
    def refuse(path, text=None):
        raise AssertionError("parsed although the cache was fresh")
    monkeypatch.setattr(cache, "load_suite", refuse)


def test_second_load_comes_from_the_cache(writable, suite_file, monkeypatch):
    first = cache.load_suite_cached(suite_file)
    assert os.path.exists(cache.cache_path(suite_file))
    _no_parse(monkeypatch)
    again = cache.load_suite_cached(suite_file)
    assert again == first == load_suite(suite_file)
    assert again.blocks[0].world == first.blocks[0].world


def test_an_edit_rebuilds(writable, suite_file):
    cache.load_suite_cached(suite_file)
    with open(suite_file, "a") as fh:
        fh.write(simple_scenario("ping once"))
    assert [b.name for b in cache.load_suite_cached(suite_file).blocks] == ["restock the widget shelf", "ping once"]


def test_other_code_rebuilds(writable, suite_file, monkeypatch):
    cache.load_suite_cached(suite_file)
    monkeypatch.setattr(cache, "code_stamp", lambda: "some other version")
    calls = []
    monkeypatch.setattr(cache, "load_suite", lambda path, text: calls.append(path) or load_suite(path, text))
    cache.load_suite_cached(suite_file)
    assert calls == [suite_file]


def test_an_edit_that_keeps_size_and_time_rebuilds(writable, suite_file):
    stat = os.stat(suite_file)
    assert "exact: 0" in open(suite_file).read()
    cache.load_suite_cached(suite_file)
    with open(suite_file) as fh:
        text = fh.read().replace("exact: 0", "exact: 7")
    with open(suite_file, "w") as fh:
        fh.write(text)
    os.utime(suite_file, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # as `cp -p` or an archive would
    assert cache.load_suite_cached(suite_file).blocks[0].expect[0].value == 7


def test_an_unreadable_suite_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="cannot read the file"):
        cache.load_suite_cached(str(tmp_path))  # a directory


def test_a_corrupt_cache_is_ignored(writable, suite_file):
    cache.load_suite_cached(suite_file)
    with open(cache.cache_path(suite_file), "wb") as fh:
        fh.write(b"\x80\x04garbage")
    assert cache.load_suite_cached(suite_file).blocks[0].name == "restock the widget shelf"


def test_nothing_is_written_when_bytecode_writing_is_off(monkeypatch, suite_file):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache.load_suite_cached(suite_file)
    assert not os.path.exists(cache.cache_path(suite_file))


def test_bad_files_are_never_cached(writable, tmp_path):
    bad = tmp_path / "bad.mcptest.yml"
    bad.write_text("scenarios:\n  - name: x\n    seeds: {}\n")
    for _ in range(2):
        with pytest.raises(InputError, match="unknown key 'seeds'"):
            cache.load_suite_cached(str(bad))
    assert not os.path.exists(cache.cache_path(str(bad)))


def test_an_unwritable_directory_is_fine(writable, suite_file, monkeypatch):
    def fail(*args, **kwargs):
        raise PermissionError("read-only")
    monkeypatch.setattr(cache.os, "makedirs", fail)
    assert cache.load_suite_cached(suite_file).blocks
