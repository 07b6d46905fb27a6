"""``--mcptest-update-expect``: a failing item's expectations rewritten from its recording,
every other line of the file kept byte for byte, the diff shown, passing items untouched,
and one writer per file under xdist."""

from __future__ import annotations

import json

import pytest
from forkserver import through_forkserver

from pytest_mcptest.authoring.update_expect import rewrite

SUITE = """\
# yaml-language-server: $schema=../schema.json
# My suite: keep this comment.
agents:
  - name: weather bot   # the agent
    cassette: run.json
    expected_trace:     # what it should call
      mode: subsequence
      calls:
        - search
        - {name: fetch, args: {exact: {url: "http://a"}}}
    expect:
      - { final_response: { contains: "42" } }   # flow spacing kept

  - name: passing bot
    cassette: ok.json
    expected_trace: {mode: strict, calls: [get_weather]}  # untouched
    golden: {calls: [get_weather, fetch]}
---
# second document
scenarios:
  - name: shop
    cassette: shop.json
    seed: {inventory: {widgets: 3}, shelf_full: false}
    transitions:
      - {tool: add_widget, effect: {inventory.widgets: {inc: 1}}}
      - {tool: mark_full, effect: {shelf_full: true}}
    golden:
      calls: [add_widget, mark_full]
    expect_state:
      inventory.widgets: 7   # seven after restock
      shelf_full: false      # still room
      "gone.path": 1
    expect:
      - golden.matched: {exact: true}
  - name: expected to fail
    cassette: shop.json
    xfail: the shelf is not done yet
    transitions: [{tool: add_widget}, {tool: mark_full}]
    expect_state: {shelf_full: true}
"""

REWRITTEN = SUITE.replace("""\
        - search
        - {name: fetch, args: {exact: {url: "http://a"}}}
""", """\
        - {name: search, args: {schema: {type: object, properties: {q: {type: string}}, required: [q]}}}
        - {name: lookup, args: {schema: {type: object, properties: {id: {type: integer}}, required: [id]}}}
""").replace("""\
      calls: [add_widget, mark_full]
    expect_state:
      inventory.widgets: 7   # seven after restock
      shelf_full: false      # still room
      "gone.path": 1
""", """\
      calls: [add_widget, add_widget, mark_full]
      penalize_repeated_tools: false
    expect_state:
      inventory.widgets: 5   # seven after restock
      shelf_full: true       # still room
""")


def _files(path):
    (path / "s.mcptest.yml").write_text(SUITE)
    (path / "run.json").write_text(json.dumps({"runs": [{
        "tool_calls": [{"name": "search", "args": {"q": "x"}}, {"name": "lookup", "args": {"id": 3}}],
        "conversation": {"turns": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "42"}]}}]}))
    (path / "ok.json").write_text(json.dumps({"runs": [{"tool_calls": [{"name": "get_weather"}]}]}))
    (path / "shop.json").write_text(json.dumps({"runs": [{"tool_calls": [
        {"name": "add_widget"}, {"name": "add_widget"}, {"name": "mark_full"}]}]}))


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "xdist"])
def test_failing_items_are_rewritten_keeping_every_other_line_and_the_diff_is_shown(pytester, workers):
    _files(pytester.path)
    # xdist: its own processes
    run = through_forkserver(pytester).runpytest_subprocess if workers else pytester.runpytest
    result = run("-p", "no:cacheprovider", "--mcptest-update-expect", *workers)
    result.assert_outcomes(failed=2, passed=1, xfailed=1)  # this run still judged the old expectations
    assert (pytester.path / "s.mcptest.yml").read_text() == REWRITTEN
    result.stdout.fnmatch_lines([
        "*mcptest: updated expectations*",
        "--- a/s.mcptest.yml", "+++ b/s.mcptest.yml",
        "-        - {name: fetch, args: {exact: {url: \"http://a\"}}}",
        "+      calls: [[]add_widget, add_widget, mark_full[]]",
        "-      inventory.widgets: 7   # seven after restock",
        "+      inventory.widgets: 5   # seven after restock",
        "*s.mcptest.yml: shop: expect_state gone.path: no run has this path; removed",
        "1 suite file rewritten from the recordings; the items failed in this run, run again to check them"])
    again = run("-p", "no:cacheprovider", *workers)
    again.assert_outcomes(passed=3, xfailed=1)


def test_a_crlf_suite_keeps_its_line_ends(pytester):
    """The rewritten lines came with "\n" in a file of "\r\n" lines: a mix of both."""
    _files(pytester.path)
    suite = pytester.path / "s.mcptest.yml"
    suite.write_bytes(SUITE.replace("\n", "\r\n").encode())
    pytester.runpytest("-p", "no:cacheprovider", "--mcptest-update-expect").assert_outcomes(failed=2, passed=1,
                                                                                             xfailed=1)
    data = suite.read_bytes()
    assert data == REWRITTEN.replace("\n", "\r\n").encode()
    assert data.count(b"\n") == data.count(b"\r\n")


def test_a_write_that_fails_is_a_note_not_a_traceback(tmp_path, monkeypatch):
    """Writing the rewritten suite where this user cannot write (a read-only folder) once ended
    the session with a traceback; it is a note like any other file left alone. The write is made
    to fail here, since a root user (CI) writes into a read-only folder all the same."""
    from pytest_mcptest.authoring import update_expect
    from pytest_mcptest.formats import files

    _files(tmp_path)
    suite = tmp_path / "s.mcptest.yml"

    def refuse(path, data, exclusive=False):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files, "atomic_write", refuse)
    proposal = {"file": str(suite), "name": "shop", "updates": {"golden": {"calls": ["add_widget"]}}}
    [(path, diff, notes)] = update_expect.apply([proposal])
    assert path == str(suite) and diff == []
    assert notes == ["not rewritten: cannot write: Permission denied"]
    assert suite.read_text() == SUITE


def test_without_the_option_nothing_is_written(pytester):
    _files(pytester.path)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2, passed=1, xfailed=1)
    assert (pytester.path / "s.mcptest.yml").read_text() == SUITE
    assert "updated expectations" not in result.stdout.str()


def test_a_matrix_entry_is_shared_so_it_is_left_as_written(pytester):
    (pytester.path / "m.mcptest.yml").write_text(
        "agents:\n  - name: bot\n    model: [m1, m2]\n    expected_trace: {calls: [a]}\n")
    for model in ("m1", "m2"):
        (pytester.path / f"bot-{model}.json").write_text(json.dumps({"runs": [{"tool_calls": [{"name": "b"}]}]}))
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-update-expect")
    result.assert_outcomes(failed=2)
    assert (pytester.path / "m.mcptest.yml").read_text().endswith("expected_trace: {calls: [a]}\n")
    result.stdout.fnmatch_lines(["*m.mcptest.yml: bot [[]m1[]]: not rewritten: its entry 'bot' is shared by every "
                                 "model of the matrix", "0 suite files rewritten*"])


def test_a_flow_expect_state_is_rewritten_on_its_line_and_an_equal_value_is_not_touched():
    text = 'scenarios:\n  - name: s\n    expect_state: {a: 1, "b": x}   # both\n'
    proposal = {"file": "f", "name": "s", "updates": {"expect_state": [["set", 2], ["set", "x"]]}}
    new, notes = rewrite(text, [proposal])
    assert new == 'scenarios:\n  - name: s\n    expect_state: {a: 2, b: x}     # both\n' and notes == []  # its column
    block = "scenarios:\n  - name: s\n    expect_state:\n      a: 1\n      b: 'x'  # quoted as I like\n"
    new, _ = rewrite(block, [proposal])
    assert new == "scenarios:\n  - name: s\n    expect_state:\n      a: 2\n      b: 'x'  # quoted as I like\n"
    disagree = {"file": "f", "name": "s", "updates": {"expect_state": [["disagree"], ["absent"]]}}
    new, notes = rewrite(block, [disagree])
    assert new == "scenarios:\n  - name: s\n    expect_state:\n      a: 1\n" and notes == [
        "s: expect_state a: the runs end with different values; left as written",
        "s: expect_state b: no run has this path; removed"]


def test_keys_from_a_merge_or_holding_an_anchor_are_left_as_written():
    proposal = {"file": "f", "name": "s", "updates": {"expect_state": [["set", 2]]}}
    merged = "base: &b\n  expect_state: {a: 1}\nscenarios:\n  - <<: *b\n    name: s\n"
    assert rewrite(merged, [proposal]) == (merged, [
        "s: not rewritten: expect_state: is not written in its own entry (an anchor or merge?)"])
    anchored = "scenarios:\n  - name: s\n    expect_state: &st {a: 1}\n"
    assert rewrite(anchored, [proposal]) == (anchored, [
        "s: not rewritten: expect_state: holds a YAML anchor that other places may use"])
