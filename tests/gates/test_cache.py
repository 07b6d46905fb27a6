"""Built suites are cached in the folder the pytest layer gives (under .pytest_cache) and
rebuilt whenever file or code changes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pytest_mcptest.errors import InputError
from pytest_mcptest.gates import suite_cache as cache
from pytest_mcptest.gates.suite_build import load_suite
from suites import WIDGET_SUITE, simple_scenario


@pytest.fixture
def folder(tmp_path):
    path = tmp_path / "cache"
    path.mkdir()
    return str(path)


@pytest.fixture
def suite_file(tmp_path):
    path = tmp_path / "shop.mcptest.yml"
    path.write_text(WIDGET_SUITE)
    return str(path)


def _no_parse(monkeypatch):
    def refuse(path, data=None):
        raise AssertionError("parsed although the cache was fresh")
    monkeypatch.setattr(cache, "_build", refuse)


def test_second_load_comes_from_the_cache(folder, suite_file, monkeypatch):
    first = cache.load_suite_cached(suite_file, folder)
    assert os.path.exists(cache.cache_path(suite_file, folder))
    _no_parse(monkeypatch)
    again = cache.load_suite_cached(suite_file, folder)
    assert again == first == load_suite(suite_file)
    assert again.blocks[0].world == first.blocks[0].world


def test_written_even_when_bytecode_writing_is_off(monkeypatch, folder, suite_file):
    """PYTHONDONTWRITEBYTECODE is common in CI images: the suite cache does not follow it."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache.load_suite_cached(suite_file, folder)
    assert os.path.exists(cache.cache_path(suite_file, folder))


def test_no_folder_no_cache(suite_file, tmp_path, monkeypatch):
    before = sorted(os.listdir(tmp_path))
    assert cache.load_suite_cached(suite_file).blocks[0].name == "restock the widget shelf"
    assert sorted(os.listdir(tmp_path)) == before


def test_two_suites_of_one_name_do_not_share_an_entry(folder, tmp_path):
    paths = []
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        path = tmp_path / sub / "shop.mcptest.yml"
        path.write_text("scenarios:\n" + simple_scenario(f"from {sub}"))
        paths.append(str(path))
    assert cache.cache_path(paths[0], folder) != cache.cache_path(paths[1], folder)
    for sub, path in zip("ab", paths):
        assert cache.load_suite_cached(path, folder).blocks[0].name == f"from {sub}"
    for sub, path in zip("ab", paths):  # from the cache, each its own
        assert cache.load_suite_cached(path, folder).blocks[0].name == f"from {sub}"


def test_an_edit_rebuilds(folder, suite_file):
    cache.load_suite_cached(suite_file, folder)
    with open(suite_file, "a") as fh:
        fh.write(simple_scenario("ping once"))
    assert [b.name for b in cache.load_suite_cached(suite_file, folder).blocks] == [
        "restock the widget shelf", "ping once"]


def test_other_code_rebuilds(folder, suite_file, monkeypatch):
    cache.load_suite_cached(suite_file, folder)
    monkeypatch.setattr(cache, "code_stamp", lambda: "some other version")
    calls = []
    real_build = cache._build
    monkeypatch.setattr(cache, "_build", lambda path, data: calls.append(path) or real_build(path, data))
    cache.load_suite_cached(suite_file, folder)
    assert calls == [suite_file]


def test_an_edit_that_keeps_size_and_time_rebuilds(folder, suite_file):
    stat = os.stat(suite_file)
    assert "exact: 0" in open(suite_file).read()
    cache.load_suite_cached(suite_file, folder)
    with open(suite_file) as fh:
        text = fh.read().replace("exact: 0", "exact: 7")
    with open(suite_file, "w") as fh:
        fh.write(text)
    os.utime(suite_file, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # as `cp -p` or an archive would
    assert cache.load_suite_cached(suite_file, folder).blocks[0].expect[0].value == 7


def test_an_unreadable_suite_is_an_input_error(tmp_path, folder):
    with pytest.raises(InputError, match="cannot read the file"):
        cache.load_suite_cached(str(tmp_path), folder)  # a directory


def test_a_corrupt_cache_is_ignored(folder, suite_file):
    cache.load_suite_cached(suite_file, folder)
    with open(cache.cache_path(suite_file, folder), "wb") as fh:
        fh.write(b"\x80\x04garbage")
    assert cache.load_suite_cached(suite_file, folder).blocks[0].name == "restock the widget shelf"


def test_bad_files_are_never_cached(folder, tmp_path):
    bad = tmp_path / "bad.mcptest.yml"
    bad.write_text("scenarios:\n  - name: x\n    seeds: {}\n")
    for _ in range(2):
        with pytest.raises(InputError, match="unknown key 'seeds'"):
            cache.load_suite_cached(str(bad), folder)
    assert os.listdir(folder) == []


def test_an_unwritable_folder_is_fine(suite_file, tmp_path):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    assert cache.load_suite_cached(suite_file, str(not_a_folder)).blocks
    assert cache.load_suite_cached(suite_file, str(not_a_folder)).blocks
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "shop.mcptest.yml"]  # no temporary left


EXAMPLES = sorted(str(p) for p in (Path(__file__).parents[2] / "examples").rglob("*.mcptest.yml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[os.path.basename(p) for p in EXAMPLES])
def test_every_example_suite_comes_back_from_the_cache_as_built(path, folder, monkeypatch):
    """Each block of every kind is stored as a call of its class on its fields: what loads is
    equal to what was built, down to the replay's per-tool maps."""
    built = cache.load_suite_cached(path, folder)
    _no_parse(monkeypatch)
    loaded = cache.load_suite_cached(path, folder)
    assert loaded == built and loaded.warnings == built.warnings
    for old, new in zip(built.blocks, loaded.blocks):
        assert type(new) is type(old)
        world = getattr(old, "world", None)
        if world is not None:
            assert new.world.transitions_by_tool == world.transitions_by_tool
            assert new.world.forbidden_by_tool == world.forbidden_by_tool


def test_collection_keeps_heads_and_the_files_pickle_not_built_blocks(folder, suite_file, monkeypatch):
    """A collected suite holds what selecting and reporting read (each block's head) and the
    file's blocks as one pickle: the built blocks (worlds, rules, expectations) are made at
    the first ask, kept while the file's items run, and let go when the run leaves it."""
    cache.collect_suite(suite_file, folder)
    _no_parse(monkeypatch)
    collected = cache.collect_suite(suite_file, folder)
    built = load_suite(suite_file).blocks
    assert collected.built is None and type(collected.data) is bytes
    assert collected.heads == tuple(map(cache.head, built))
    assert all(type(h) is cache.Block for h in collected.heads)
    assert collected.heads[0].cassette == built[0].cassette and collected.heads[0].line == built[0].line
    first = collected.block(0)
    assert first == built[0] and type(first) is type(built[0])
    assert collected.block(0) is first  # kept while the file's items run
    collected.let_go()
    again = collected.block(0)
    assert again == first and again is not first  # let go, then built anew
    assert collected.suite().blocks == built


def test_a_file_whose_items_run_apart_is_built_twice_at_most(folder, suite_file):
    """Under a random order each return to a file would build it again: the second build is
    kept for the rest of the session."""
    collected = cache.collect_suite(suite_file, folder)
    first = collected.block(0)
    collected.let_go()
    second = collected.block(0)
    assert second is not first
    collected.let_go()
    assert collected.block(0) is second


def test_without_a_folder_the_built_blocks_are_kept(suite_file):
    collected = cache.collect_suite(suite_file)
    assert collected.data is None
    assert collected.block(0) is collected.block(0) == load_suite(suite_file).blocks[0]
    collected.let_go()
    assert collected.block(0) is collected.built[0]


_ALIKE = """\
scenarios:
  - name: one
    seed: {n: 0, done: false}
    transitions: &rules
      - tool: bump
        when: {done: false}
        effect: {n: {inc: 1}}
      - tool: finish
        effect: {done: true}
    forbidden: &forbidden
      - tool: wipe
        reason: never
    expect_state: {n: 1}
  - name: two
    seed: {n: 5, done: false}
    transitions: *rules
    forbidden: *forbidden
    expect_state: {n: 6}
  - name: three, alike but for a boolean written as a number
    seed: {n: 0, done: 0}
    transitions:
      - tool: bump
        when: {done: 0}
        effect: {n: {inc: 1}}
      - tool: finish
        effect: {done: true}
    forbidden:
      - tool: wipe
        reason: never
"""


def test_rules_through_an_alias_are_built_once_and_pickled_once(folder, tmp_path, monkeypatch):
    """Rules given through a YAML alias are built once and held by every block that names
    them, before and after the cache; a block is still exactly the block that was built (a
    guard on ``0`` is not one on ``false``, though they compare equal)."""
    path = tmp_path / "alike.mcptest.yml"
    path.write_text(_ALIKE)
    built = load_suite(str(path)).blocks
    assert built[0].world.transitions is built[1].world.transitions
    cache.collect_suite(str(path), folder)
    _no_parse(monkeypatch)
    collected = cache.collect_suite(str(path), folder)
    blocks = [collected.block(i) for i in range(3)]
    assert blocks == list(built) and collected.suite().blocks == built
    one, two, three = blocks
    assert one.world.transitions is two.world.transitions and one.world.forbidden is two.world.forbidden
    assert three.world.transitions is not one.world.transitions
    assert type(three.world.transitions[0].when[0].value) is int
    assert type(one.world.transitions[0].when[0].value) is bool
    assert two.world.transitions_by_tool == built[1].world.transitions_by_tool
    # the shared rules are in the file's pickle once
    assert len(collected.data) < sum(len(cache._dumps(block)) for block in built) - len(cache._dumps(built[0].world.transitions))


def _copy_of_rules(name: str, n: int, inc: int) -> str:
    """A scenario whose rules are written out in full, as users copy them from one to the next."""
    return (f"  - name: {name}\n    seed: {{n: {n}}}\n    transitions:\n      - tool: bump\n"
            f"        effect: {{n: {{inc: {inc}}}}}\n    forbidden:\n      - tool: wipe\n        reason: never\n")


_COPIED = "scenarios:\n" + _copy_of_rules("one", 0, 1) + _copy_of_rules("two", 5, 1) + _copy_of_rules("three", 0, 2)


def test_rules_copied_word_for_word_are_built_once_and_pickled_once(folder, tmp_path):
    """Scenarios that repeat their rules word for word hold one built list per value, and
    the suite cache shares it without comparing pickles."""
    path = tmp_path / "copied.mcptest.yml"
    path.write_text(_COPIED)
    one, two, three = load_suite(str(path)).blocks
    assert one.world.transitions is two.world.transitions
    assert three.world.transitions is not one.world.transitions
    assert three.world.transitions[0].effects[0].value == 2
    assert one.world.forbidden is two.world.forbidden is three.world.forbidden
    collected = cache.collect_suite(str(path), folder)
    blocks = [collected.block(i) for i in range(3)]
    assert blocks[0].world.transitions is blocks[1].world.transitions
    assert blocks[2].world.forbidden is blocks[0].world.forbidden
    assert blocks == [one, two, three]


def test_copied_rules_that_warn_or_fail_say_so_at_each_copy(tmp_path):
    """A list whose build warned or failed is built again for every copy: each copy gets
    its own warning, and each bad copy its own error, at its own line."""
    warned = tmp_path / "warned.mcptest.yml"
    warned.write_text(_COPIED.replace("{inc: 1}", "{mul: 2}"))
    lines = sorted(line for line, message in load_suite(str(warned)).warnings if "{mul: ...}" in message)
    assert lines == [6, 14]
    bad = tmp_path / "bad.mcptest.yml"
    bad.write_text(_COPIED.replace("{inc: 1}", "{incr: 1}"))
    with pytest.raises(InputError) as err:
        load_suite(str(bad))
    message = err.value.render()
    assert "2 problems" in message and "line 6:" in message and "line 14:" in message


def test_the_schema_check_remembers_a_text_only_for_the_part_it_passed_as(tmp_path):
    """The same lines pass as a forbidden rule and fail as a transition (which takes no
    `reason`): what the fast check remembered of one never answers for the other."""
    path = tmp_path / "mixed.mcptest.yml"
    path.write_text("""\
scenarios:
  - name: one
    forbidden:
      - tool: wipe
        reason: never
  - name: two
    transitions:
      - tool: wipe
        reason: never
""")
    with pytest.raises(InputError) as err:
        load_suite(str(path))
    assert err.value.line == 9 and "reason" in err.value.message


@pytest.mark.parametrize("text, line, words", [
    pytest.param("scenarios:\n  - name: a\n    transitions: [{tool: a}, {tool: bump, efect: {n: {inc: 1}}}]\n",
                 3, "did you mean 'effect'", id="a-bad-flow-item-beside-a-good-one"),
    pytest.param("scenarios:\n  - name: a\n    forbidden: [{tool: w, reason: r}, {tool: v}]\n",
                 3, "reason", id="a-flow-rule-missing-its-reason"),
    pytest.param("scenarios:\n  - name: a\n    transitions:\n        - tool: x\n  - name: b\n    transitions:\n"
                 "      -\n        - tool: x\n", 8, "must be object, found array", id="a-list-with-the-text-of-a-rule"),
])
def test_what_the_check_remembered_never_answers_for_another_value(tmp_path, text, line, words):
    """Flow collections on one line share it, and a one-item list has the lines of the rule
    it holds: neither is taken for a value checked or built before."""
    path = tmp_path / "s.mcptest.yml"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_suite(str(path))
    assert err.value.line == line and words in err.value.message


def test_scenarios_written_on_one_line_keep_their_own_rules(tmp_path):
    path = tmp_path / "flow.mcptest.yml"
    path.write_text("scenarios: [{name: one, transitions: [{tool: a}], forbidden: [{tool: x, reason: r}]},"
                    " {name: two, transitions: [{tool: b}], forbidden: [{tool: y, reason: r}]}]\n")
    one, two = load_suite(str(path)).blocks
    assert [t.tool for t in two.world.transitions] == ["b"] and [f.tool for f in two.world.forbidden] == ["y"]
    assert [t.tool for t in one.world.transitions] == ["a"]


def test_values_are_shared_by_value_and_only_by_the_same_value():
    """A builder's result is shared by the value it was given (the same keys, values and
    types), never by identity: values made on the fly (each dropped after its call, so the
    next may get its address) each get their own build, and values equal in Python but not
    in type (``0``, ``0.0``, ``false``) are built apart."""
    from pytest_mcptest.suite.doc import Doc

    doc = Doc("made.mcptest.yml", "", {})

    def build(doc, parts, raw):
        return tuple(raw)

    assert [doc.built_once(build, [], [i]) for i in range(50)] == [(i,) for i in range(50)]
    assert doc.built_once(build, [], [1, 2]) is doc.built_once(build, [], [1, 2])  # equal values: built once
    kinds = [doc.built_once(build, [], [v]) for v in (0, 0.0, False, None, "0")]
    assert [type(k[0]) for k in kinds] == [int, float, bool, type(None), str]
    assert doc.built_once(build, [], {"a": 1, "b": 2}) is not doc.built_once(build, [], {"b": 2, "a": 1})


def test_rules_are_shared_alike_whichever_reader_read_the_file(folder, tmp_path, monkeypatch):
    """Copied rules are built once and pickled once also in a file the fast reader declines
    (a block scalar sends it to libyaml): the sharing and the cache entry's size do not
    depend on the reader."""
    path = tmp_path / "copied.mcptest.yml"
    path.write_text(_COPIED)
    fast = cache.collect_suite(str(path), None)
    declined = tmp_path / "declined.mcptest.yml"
    declined.write_text(_COPIED.replace("reason: never", "reason: |\n          never"))
    from pytest_mcptest.suite import fastyaml

    assert fastyaml.read(declined.read_text()) is None
    one, two, three = load_suite(str(declined)).blocks
    assert one.world.transitions is two.world.transitions and one.world.forbidden is three.world.forbidden
    slow = cache.CollectedSuite.of(load_suite(str(declined)), pickled=True)
    assert abs(len(slow.data) - len(cache.CollectedSuite.of(fast.suite(), pickled=True).data)) < 40
