"""The verdict cache (``plugin/verdict_cache.py``): an item whose block, cassette, the files
its evaluation read, the session's options and mcptest are unchanged is not judged again
and says the same; a change of any one of them judges it again."""

from __future__ import annotations

import json
import os
import pickle
import shutil

import pytest
from forkserver import through_forkserver

import pytest_mcptest
from pytest_mcptest.plugin import collect, verdict_cache
from pytest_mcptest.record.drift import catalog_sha256
from suites import BAD_RUN, PING_RUN, simple_scenario


@pytest.fixture
def judged(monkeypatch):
    """A list the names of the blocks judged (not taken from the cache) go into."""
    names: list = []
    real = collect.evaluate

    def counting(block, ctx):
        names.append(block.name)
        return real(block, ctx)

    monkeypatch.setattr(collect, "evaluate", counting)
    return names



def run(pytester, judged: list, *args) -> tuple:
    """One session: its outcomes and the blocks it judged."""
    judged.clear()
    result = pytester.runpytest(*args)
    return result, sorted(judged)


BOTH = ["ping once", "restock the widget shelf"]


def test_an_unchanged_item_is_not_judged_again_and_says_the_same(shop, judged):
    (shop.path / "cassettes" / "restock.json").write_text(BAD_RUN)
    first, names = run(shop, judged, "-rA")
    first.assert_outcomes(passed=1, failed=1)
    assert names == BOTH
    again, names = run(shop, judged, "-rA")
    again.assert_outcomes(passed=1, failed=1)
    assert names == []

    def failure(result):
        lines = result.stdout.lines
        start = next(i for i, line in enumerate(lines) if "restock the widget shelf _" in line)
        end = next(i for i, line in enumerate(lines) if "short test summary" in line)
        return lines[start:end]

    assert failure(again) == failure(first) and any("drop_inventory" in line for line in failure(first))


def test_a_changed_block_is_judged_again(shop, judged):
    run(shop, judged)[0].assert_outcomes(passed=2)
    suite = shop.path / "shop.mcptest.yml"
    suite.write_text(suite.read_text().replace("expect_state: {count: 1}", "expect_state: {count: 2}"))
    result, names = run(shop, judged)
    result.assert_outcomes(passed=1, failed=1)
    assert names == BOTH  # the file changed: every block of it is judged again


def test_a_changed_cassette_judges_its_item_again(shop, judged):
    run(shop, judged)[0].assert_outcomes(passed=2)
    (shop.path / "cassettes" / "restock.json").write_text(BAD_RUN)
    result, names = run(shop, judged)
    result.assert_outcomes(passed=1, failed=1)
    assert names == ["restock the widget shelf"]
    (shop.path / "cassettes" / "restock.json").unlink()
    result, names = run(shop, judged)
    result.assert_outcomes(passed=1, failed=1)
    assert names == ["restock the widget shelf"]
    result.stdout.fnmatch_lines(["*no cassette at cassettes/restock.json*"])


def test_a_changed_file_the_evaluation_read_judges_again(pytester, judged):
    """A saved catalog the drift check reads is a file the verdict depends on."""
    tools = {"tools": [{"name": "get_weather", "description": "Weather for a city.", "inputSchema": {}}]}
    (pytester.path / "shop.json").write_text(json.dumps(tools))
    pytester.makefile(".mcptest.yml", s="servers:\n  shop: {catalog: shop.json}\nagents:\n  - name: weather\n"
                      "    model: openai:gpt-4o-mini\n    prompt: What is the weather?\n    cassette: weather.json\n"
                      "    servers: [shop]\n")
    (pytester.path / "weather.json").write_text(json.dumps({
        "mcptest_cassette": 1, "meta": {"catalog_sha256": catalog_sha256({"shop": tools})},
        "runs": [{"tool_calls": [{"name": "get_weather", "args": {"city": "Sacramento"}}]}]}))
    result, names = run(pytester, judged)
    result.assert_outcomes(passed=1)
    assert names == ["weather"] and "changed since recording" not in result.stdout.str()
    assert run(pytester, judged)[1] == []
    tools["tools"][0]["description"] = "Weather."
    (pytester.path / "shop.json").write_text(json.dumps(tools))
    result, names = run(pytester, judged)
    assert names == ["weather"]
    result.stdout.fnmatch_lines(["*catalog: changed since recording*"])
    (pytester.path / "shop.json").unlink()  # gone: the drift check has no catalog to compare
    result, names = run(pytester, judged)
    assert names == ["weather"] and "changed since recording" not in result.stdout.str()


def test_a_changed_option_judges_again(shop, judged):
    run(shop, judged)[0].assert_outcomes(passed=2)
    other = shop.mkdir("other")
    (other / "restock.json").write_text(BAD_RUN)  # the suite names cassettes/restock.json: not found there
    result, names = run(shop, judged, "--cassette-dir=other")
    assert names == BOTH
    result.assert_outcomes(failed=2)
    assert run(shop, judged, "--mcptest-drift=ignore")[1] == BOTH
    assert run(shop, judged, "--mcptest-drift=ignore")[1] == []


def test_another_mcptest_judges_again(shop, judged, monkeypatch):
    run(shop, judged)[0].assert_outcomes(passed=2)
    monkeypatch.setattr(pytest_mcptest, "__version__", pytest_mcptest.__version__ + ".post1")
    assert run(shop, judged)[1] == BOTH
    monkeypatch.setattr(verdict_cache, "code_stamp", lambda: "other code")
    assert run(shop, judged)[1] == BOTH
    assert run(shop, judged)[1] == []


@pytest.mark.parametrize("args", [("--cache-clear",), ("--mcptest-no-verdict-cache",), ("-p", "no:cacheprovider")])
def test_the_cache_is_cleared_or_turned_off_as_pytests_own(shop, judged, args):
    run(shop, judged)[0].assert_outcomes(passed=2)
    result, names = run(shop, judged, *args)
    result.assert_outcomes(passed=2)
    assert names == BOTH


def test_reports_from_kept_verdicts_are_the_reports_of_judged_ones(shop, judged):
    """The JSON report, JUnit properties and the -v line of an item taken from the cache are
    those it had when judged; a session that asks for more than was kept judges again."""
    (shop.path / "cassettes" / "restock.json").write_text(BAD_RUN)
    assert run(shop, judged)[1] == BOTH
    assert run(shop, judged, "--mcptest-report=r1.json", "--junitxml=j1.xml", "-v")[1] == BOTH  # asks for more
    result, names = run(shop, judged, "--mcptest-report=r2.json", "--junitxml=j2.xml", "-v")
    assert names == []
    result.stdout.fnmatch_lines(["*ping once PASSED*", "*1 run*"])

    def items(name):
        report = json.loads((shop.path / name).read_text())
        return [{k: v for k, v in item.items() if k not in ("duration_s", "duration")} for item in report["items"]]

    assert items("r2.json") == items("r1.json")
    def junit(name):
        return [line for line in (shop.path / name).read_text().splitlines() if "time=" not in line]

    assert junit("j2.xml") == junit("j1.xml")


def test_xfail_and_selection_hold_for_kept_verdicts(shop, judged):
    suite = shop.path / "shop.mcptest.yml"
    suite.write_text(suite.read_text().replace("  - name: restock the widget shelf\n",
                                               "  - name: restock the widget shelf\n    xfail: known bad\n"))
    (shop.path / "cassettes" / "restock.json").write_text(BAD_RUN)
    run(shop, judged)[0].assert_outcomes(passed=1, xfailed=1)
    result, names = run(shop, judged)
    result.assert_outcomes(passed=1, xfailed=1)
    assert names == []
    result, names = run(shop, judged, "-k", "ping")
    result.assert_outcomes(passed=1, deselected=1)
    assert names == []


def test_xdist_workers_share_the_kept_verdicts(shop):
    """Workers that judged parts of one file each add theirs to its entry; a change still
    judges again under xdist."""
    pytest.importorskip("xdist")
    through_forkserver(shop)
    shop.runpytest_subprocess("-n", "2").assert_outcomes(passed=2)
    folder = shop.path / ".pytest_cache" / "d" / "mcptest-verdicts"
    from pytest_mcptest.gates.suite_cache import load_entry

    [entry] = folder.glob("*.pickle")
    with open(entry, "rb") as fh:
        key = pickle.load(fh)
    assert sorted(load_entry(str(entry), key)) == BOTH
    shop.runpytest_subprocess("-n", "2").assert_outcomes(passed=2)
    (shop.path / "cassettes" / "restock.json").write_text(BAD_RUN)
    shop.runpytest_subprocess("-n", "2").assert_outcomes(passed=1, failed=1)


def test_a_changed_data_file_of_mcptest_judges_again(shop, judged, monkeypatch):
    """The package's data files (the distractor pool, the token ranks) are read by judging:
    a change to one, as an upgrade makes, judges again."""
    run(shop, judged)[0].assert_outcomes(passed=2)
    monkeypatch.setattr(verdict_cache, "_data_stamp", lambda: (("distractors.json", 1, 2),))
    assert run(shop, judged)[1] == BOTH


def test_an_items_report_entry_is_the_same_whole_alone_or_kept(shop, tmp_path):
    """``mcptest report merge`` wants each shard's entries to be the very entries of one
    unsharded run: an item's entry is the same whether its folder runs whole or it runs alone
    by node id, judged or taken from the verdict cache; a skipped item carries no failures
    (the examples' conversations hold one, "Future Analytics Feature", with a failing, an
    expected-to-fail and a passing scenario beside them)."""
    import shutil
    from pathlib import Path

    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "conversations", shop.path / "conversations")
    suite = shop.path / "shop.mcptest.yml"
    suite.write_text(suite.read_text().rstrip("\n") + "\n" + simple_scenario("ping failing", "bad-ping.json")
                     + simple_scenario("ping skipped", "ping-once.json", "    skip: not today\n")
                     + simple_scenario("ping xfail", "bad-ping.json", "    xfail: it fails\n"))
    (shop.path / "bad-ping.json").write_text(PING_RUN.replace('"ping"', '"pong"'))
    runs = iter(range(1000))

    def entries(*args) -> dict:
        path = shop.path / f"r{next(runs)}.json"
        shop.runpytest("-q", *args, f"--mcptest-report={path}")
        return {item["id"]: item for item in json.loads(path.read_text())["items"]}

    whole = entries("-p", "no:cacheprovider")
    assert whole["conversations/weather.mcptest.yml::Future Analytics Feature"]["outcome"] == "skipped"
    assert {item["outcome"] for item in whole.values()} >= {"passed", "failed", "skipped", "xfailed"}
    assert [i for i, item in whole.items() if item["outcome"] == "skipped" and (item["failures"] or "text" in item)] == []
    assert entries() == whole  # judged, and kept
    assert entries() == whole  # from the verdict cache
    for uncached in (("-p", "no:cacheprovider"), ()):  # alone: judged, then from the cache
        alone: dict = {}
        for nodeid in whole:
            alone.update(entries(*uncached, nodeid))
        assert alone == whole


def test_cassettes_are_kept_decoded_beside_the_verdicts_and_a_changed_one_is_read_again(shop, judged, monkeypatch):
    """``.pytest_cache/d/mcptest-parsed``: each large cassette's decoded record (these small ones
    count as large here), used while its bytes are the same (``formats/kept_parses.py``); on
    and off with pytest's cache."""
    monkeypatch.setattr("pytest_mcptest.formats.cassette.KEPT_FROM", 0)
    parsed = shop.path / ".pytest_cache" / "d" / "mcptest-parsed"
    result, names = run(shop, judged, "--mcptest-no-verdict-cache")
    result.assert_outcomes(passed=2)
    assert sorted(name.split("-", 1)[1] for name in os.listdir(parsed)) == ["ping-once.json.kept", "restock.json.kept"]
    (shop.path / "cassettes" / "restock.json").write_text(BAD_RUN)
    result, names = run(shop, judged, "--mcptest-no-verdict-cache")
    result.assert_outcomes(passed=1, failed=1)
    assert names == BOTH and "drop_inventory" in result.stdout.str()
    shutil.rmtree(shop.path / ".pytest_cache")
    run(shop, judged, "-p", "no:cacheprovider")[0].assert_outcomes(passed=1, failed=1)
    assert not parsed.exists()


def test_a_kept_items_cassette_turned_into_a_folder_is_judged_again_and_named(shop, judged):
    """What a kept verdict read must still be a file mcptest reads; when it is not (a folder
    where the cassette was), the item is judged again and fails saying so, with no traceback."""
    run(shop, judged)[0].assert_outcomes(passed=2)
    cassette = shop.path / "cassettes" / "restock.json"
    cassette.unlink()
    cassette.mkdir()
    result, names = run(shop, judged)
    result.assert_outcomes(passed=1, failed=1)
    assert names == ["restock the widget shelf"]
    result.stdout.fnmatch_lines(["*cassettes/restock.json: is a directory, not a regular file*"])
    assert "Traceback" not in result.stdout.str() and "CallInfo" not in result.stdout.str()
