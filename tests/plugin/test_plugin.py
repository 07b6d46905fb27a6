"""The plugin as users drive it: collection, selection, marks, cassettes, xdist, report."""

from __future__ import annotations

import json

import pytest
from forkserver import through_forkserver

from suites import BAD_RUN, PING_RUN, WIDGET_SUITE, simple_scenario
from suites import cassette as cassette_text



def test_collects_each_scenario_as_an_item(shop):
    result = shop.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines([
        "shop.mcptest.yml::restock the widget shelf",
        "shop.mcptest.yml::ping once",
    ])
    assert result.ret == 0


def test_both_extensions_and_ini_patterns_are_collected(pytester):
    pytester.makefile(".mcptest.yaml", a="scenarios:\n" + simple_scenario("from yaml"))
    pytester.makefile(".yml", b_suite="scenarios:\n" + simple_scenario("from ini pattern"))
    pytester.makefile(".yml", ignored="scenarios:\n" + simple_scenario("never"))
    pytester.makeini("[pytest]\nmcptest_files = *_suite.yml\n")
    result = pytester.runpytest("--collect-only", "-q")
    out = result.stdout.str()
    assert "a.mcptest.yaml::from yaml" in out
    assert "b_suite.yml::from ini pattern" in out
    assert "never" not in out


def test_passing_suite_passes(shop):
    result = shop.runpytest("-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*shop.mcptest.yml::restock the widget shelf PASSED*"])


def test_k_selects_by_name(shop):
    result = shop.runpytest("-k", "widget", "-v")
    result.assert_outcomes(passed=1, deselected=1)
    assert "restock the widget shelf PASSED" in result.stdout.str()


def test_node_id_from_the_output_reruns_one_item(shop):
    result = shop.runpytest("shop.mcptest.yml::ping once", "-v")
    result.assert_outcomes(passed=1)
    assert "ping once PASSED" in result.stdout.str()


def test_failure_text_names_file_line_state_and_calls(shop):
    (shop.path / "cassettes" / "restock.json").write_text(BAD_RUN)
    result = shop.runpytest("-k", "widget")
    result.assert_outcomes(failed=1, deselected=1)
    out = result.stdout.str()
    result.stdout.fnmatch_lines([
        "shop.mcptest.yml:2: scenario failed: *(cassette cassettes/restock.json, 1 run, 4 calls)",
        "*final state: 2 of 2 expected paths differ",
        "*inventory.widgets*expected 5*got 3",
        "*shelf_full*expected true*got false",
        "*invalid actions: 1",
        "*call 4*teleport*no transition is declared for this tool",
        "*forbidden transitions: 1",
        "*call 3*drop_inventory*destructive bulk delete is never allowed",
        "*expect: 2 of 2 failed",
        "*invalid_actions*exact 0*got 1*(shop.mcptest.yml:29)",
        "*golden.matched*exact true*got false*(shop.mcptest.yml:31)",
    ])
    assert "Traceback" not in out and "pytest_mcptest" not in out


def test_failure_text_is_the_same_under_q_v_and_xdist(shop):
    through_forkserver(shop)
    (shop.path / "cassettes" / "restock.json").write_text(BAD_RUN)

    def block(*args):
        run = shop.runpytest_subprocess if "-n" in args else shop.runpytest  # xdist: its own processes
        out = run("-k", "widget", *args).stdout.str()
        start = out.index("shop.mcptest.yml:2: scenario failed")
        return out[start:out.index("short test summary")].strip().rstrip("=").strip()

    plain = block()
    assert block("-q") == plain
    assert block("-v") == plain
    assert block("-n", "2") == plain


def test_missing_cassette_says_where_it_looked_and_how_to_record(shop):
    (shop.path / "ping-once.json").unlink()
    result = shop.runpytest("-k", "ping")
    result.assert_outcomes(failed=1, deselected=1)
    result.stdout.fnmatch_lines(["*no cassette at ping-once.json (record mode none replays only); "
                                 "record one with `mcptest record --out ping-once.json -- <your server command>`*"])
    result = shop.runpytest("-k", "ping", "--mcptest-record-mode", "once")
    result.stdout.fnmatch_lines(["*record mode once: nothing can record ping-once.json (this item records live "
                                 "only with a `model:`, a `prompt:` and `servers:` it can start*"])
    assert not (shop.path / "ping-once.json").exists()  # a replay never writes


def test_cassette_dir_option_and_ini(pytester):
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + simple_scenario("elsewhere", "run.json"))
    pytester.mkdir("recorded")
    (pytester.path / "recorded" / "run.json").write_text(PING_RUN)
    pytester.runpytest().assert_outcomes(failed=1)
    pytester.runpytest("--cassette-dir", "recorded").assert_outcomes(passed=1)
    pytester.makeini("[pytest]\nmcptest_cassette_dir = recorded\n")
    pytester.runpytest().assert_outcomes(passed=1)


def test_default_cassette_is_the_slug_of_the_name(pytester):
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + simple_scenario('"Ping: The Server!"'))
    (pytester.path / "ping-the-server.json").write_text(PING_RUN)
    pytester.runpytest().assert_outcomes(passed=1)


def test_skip_xfail_marks_and_tags(pytester):
    body = "scenarios:\n" + "".join([
        simple_scenario("skipped plain", "p.json", "    skip: true\n"),
        simple_scenario("skipped why", "p.json", "    skip: waiting for the API\n"),
        simple_scenario("xfail reason", "bad.json", "    xfail: known regression\n"),
        simple_scenario("xfail strict passes", "p.json", "    xfail: {reason: should fail, strict: true}\n"),
        simple_scenario("marked slow", "p.json", "    marks: [slow, {xfail: {reason: flaky, strict: false}}]\n"),
        simple_scenario("tagged", "p.json", "    tags: [smoke, billing]\n"),
    ])
    pytester.makefile(".mcptest.yml", s=body)
    pytester.makeini("[pytest]\nmarkers =\n    slow: the long ones\n")  # a mark is registered, as for Python tests
    (pytester.path / "p.json").write_text(PING_RUN)
    (pytester.path / "bad.json").write_text(json.dumps({"runs": [{"tool_calls": [{"name": "nope"}]}]}))
    result = pytester.runpytest("--strict-markers", "-rsxX")
    result.assert_outcomes(passed=1, skipped=2, xfailed=1, xpassed=1, failed=1)
    out = result.stdout.str()
    assert "waiting for the API" in out and "known regression" in out
    assert "[XPASS(strict)] should fail" in out
    pytester.runpytest("--strict-markers", "-m", "smoke").assert_outcomes(passed=1, deselected=5)
    pytester.runpytest("--strict-markers", "-k", "billing").assert_outcomes(passed=1, deselected=5)
    pytester.runpytest("--strict-markers", "-m", "slow").assert_outcomes(xpassed=1, deselected=5)


def test_a_mistyped_mark_is_caught_as_pytest_catches_one_on_a_test(pytester):
    """Every mark a suite named was registered for it, so ``marks: [slwo]`` passed under
    ``--strict-markers``: now an unregistered mark is the file's error at its block's line under
    ``--strict-markers`` (the other files still run), and a warning at that line without it.
    Tags stay labels the suite declares: ``-m`` selects by them, strict or not."""
    pytester.makeini("[pytest]\nmarkers =\n    slow: the long ones\n")
    pytester.makefile(".mcptest.yml", typo="scenarios:\n" + simple_scenario("t", "p.json", "    marks: [slwo]\n"),
                      fine="scenarios:\n" + simple_scenario("f", "p.json", "    tags: [nightly]\n    marks: [slow]\n"))
    (pytester.path / "p.json").write_text(PING_RUN)
    strict = pytester.runpytest("--strict-markers", "-p", "no:cacheprovider")
    strict.assert_outcomes(passed=1, errors=1)
    strict.stdout.fnmatch_lines(["typo.mcptest.yml:2: block 't': mark 'slwo' is not a registered marker, and "
                                 "--strict-markers is on: *; did you mean 'slow'?"])
    loose = pytester.runpytest("-p", "no:cacheprovider", "-W", "always")
    loose.assert_outcomes(passed=2)
    loose.stdout.fnmatch_lines(["*typo.mcptest.yml:2: SuiteWarning: block 't': unknown mark 'slwo': is this a typo?*"])
    pytester.runpytest("--strict-markers", "-m", "nightly", "-p", "no:cacheprovider").assert_outcomes(
        passed=1, deselected=1)


def test_bad_suite_is_one_error_and_the_rest_still_run(shop):
    """A broken suite is one error at its line; the other files still run, and pytest's
    --continue-on-collection-errors is left as the user set it (never turned on for them)."""
    shop.makefile(".mcptest.yml", broken="scenarios:\n  - name: x\n    seeds: {}\n")
    shop.makeconftest("def pytest_sessionfinish(session):\n"
                      "    open('option.txt', 'w').write(str(session.config.option.continue_on_collection_errors))\n")
    result = shop.runpytest()
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines([
        "*broken.mcptest.yml:3: unknown key 'seeds' in scenarios[[]0]; did you mean 'seed'?*",
        "*>*3 |     seeds: {}",
        "ERROR broken.mcptest.yml::suite file - broken.mcptest.yml:3*",
    ])
    assert "Traceback" not in result.stdout.str()
    assert result.ret == 1
    assert (shop.path / "option.txt").read_text() == "False"
    again = shop.runpytest("--lf")  # the bad file is remembered as failed, as any failed test
    again.assert_outcomes(errors=1)


def test_a_broken_python_test_file_still_stops_the_run(shop):
    shop.makepyfile(test_broken="import nonexistent_module_xyz\n")
    result = shop.runpytest()
    assert "Interrupted: 1 error during collection" in result.stdout.str()
    assert result.ret == 2


def test_xdist_gives_the_same_outcomes_and_report(shop):
    through_forkserver(shop)
    (shop.path / "cassettes" / "restock.json").write_text(BAD_RUN)
    shop.runpytest("-n", "0", "--mcptest-report", "serial.json").assert_outcomes(passed=1, failed=1)
    shop.runpytest_subprocess("-n", "2", "--mcptest-report", "dist.json").assert_outcomes(passed=1, failed=1)
    serial = (shop.path / "serial.json").read_bytes()
    assert serial == (shop.path / "dist.json").read_bytes()
    ids = [i["id"] for i in json.loads(serial)["items"]]
    assert ids == sorted(ids) and len(ids) == 2


def test_report_content_and_determinism(shop):
    (shop.path / "cassettes" / "restock.json").write_text(BAD_RUN)
    shop.runpytest("--mcptest-report", "out/a.json")
    shop.runpytest("--mcptest-report", "out/b.json")
    a = (shop.path / "out" / "a.json").read_bytes()
    assert a == (shop.path / "out" / "b.json").read_bytes()
    report = json.loads(a)
    assert report["mcptest_report"] == 1
    widget = next(i for i in report["items"] if i["name"] == "restock the widget shelf")
    assert widget["id"] == "shop.mcptest.yml::restock the widget shelf"
    assert widget["kind"] == "scenario" and widget["file"] == "shop.mcptest.yml" and widget["line"] == 2
    assert widget["outcome"] == "failed"
    env = widget["envelope"]
    assert env["invalid_actions"] == 1 and env["forbidden_transitions"] == 1
    assert env["golden"]["matched"] is False and env["state"]["inventory"]["widgets"] == 3
    gates = [f["gate"] for f in widget["failures"]]
    assert gates.count("expect_state") == 2 and "forbidden_transition" in gates and "invalid_action" in gates
    assert {"gate": "expect_state", "message": "inventory.widgets: expected 5, got 3", "run": 1} in widget["failures"]
    assert "time" not in a.decode() and "duration" not in a.decode()


def test_report_lists_skips_xfails_and_bad_files(pytester):
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + simple_scenario("skipped", "p.json", "    skip: later\n")
                      + simple_scenario("xf", "bad.json", "    xfail: true\n"))
    pytester.makefile(".mcptest.yml", broken="scenarios: {}\n")
    (pytester.path / "bad.json").write_text(json.dumps({"tool_calls": [{"name": "nope"}]}))
    pytester.runpytest("--mcptest-report", "r.json", "--continue-on-collection-errors")
    report = json.loads((pytester.path / "r.json").read_text())
    outcomes = {i["name"]: i["outcome"] for i in report["items"]}
    assert outcomes == {"skipped": "skipped", "xf": "xfailed"}
    assert report["errors"][0]["file"] == "broken.mcptest.yml"
    assert "scenarios must be array" in report["errors"][0]["message"]


def test_multi_run_cassette_fails_when_any_run_fails(pytester):
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + simple_scenario("twice", "two.json"))
    runs = [{"tool_calls": [{"name": "ping"}]}, {"tool_calls": [{"name": "ping"}, {"name": "ping"}]}]
    (pytester.path / "two.json").write_text(json.dumps({"mcptest_cassette": 1, "runs": runs}))
    result = pytester.runpytest("--mcptest-report", "r.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*twice #2 (run 2 of 2): 1 failure*", "*count*expected 1*got 2*",
                                 "*1 of 2 runs passed*"])
    env = json.loads((pytester.path / "r.json").read_text())["items"][0]["envelope"]
    item = json.loads((pytester.path / "r.json").read_text())["items"][0]
    assert item["runs"] == [{"name": "twice #1", "passed": True}, {"name": "twice #2", "passed": False}]
    assert list(env) == ["runs"] and len(env["runs"]) == 2
    assert [r["state"]["count"] for r in env["runs"]] == [1, 2]


def test_assertrepr_compare_on_engine_results(pytester):
    pytester.makepyfile(test_cmp="""
        from pytest_mcptest import Run, ToolCall, WorldSpec, Transition, Effect, replay_world
        from pytest_mcptest.engine.paths import parse_path

        def test_same_world():
            spec = WorldSpec(seed={"n": 0}, transitions=(Transition("inc", (Effect(parse_path("n"), "inc", 1),)),))
            one = replay_world(spec, Run(tool_calls=(ToolCall("inc"),)))
            two = replay_world(spec, Run(tool_calls=(ToolCall("inc"), ToolCall("inc"))))
            assert one == two
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*WorldResult == WorldResult: * paths differ*", "*state.n*left 1*right 2*"])


def test_assertrepr_compare_on_results_without_an_envelope_shows_their_fields(pytester):
    """Verdicts and gate results are msgspec Structs, which pytest's own diff does not take
    apart: the plugin compares them field by field."""
    pytester.makepyfile(test_cmp="""
        from pytest_mcptest.engine.verdict import GateResult

        def test_same_result():
            assert GateResult({"a": 1}, lines=("x",)) == GateResult({"a": 1}, lines=("y",))
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*GateResult == GateResult: 1 paths differ*", '*lines*left [[]"x"]*right [[]"y"]*'])


def test_verbose_node_id_of_a_dotted_name_reruns_it(pytester):
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + simple_scenario("deploy 2.4", "p.json"))
    (pytester.path / "p.json").write_text(PING_RUN)
    shown = pytester.runpytest("-v").stdout.str()
    assert "s.mcptest.yml::deploy 2.4 PASSED" in shown
    pytester.runpytest("s.mcptest.yml::deploy 2.4").assert_outcomes(passed=1)


def _suite_entries(pytester) -> list[str]:
    folder = pytester.path / ".pytest_cache" / "d" / "mcptest-suites"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_suites_are_cached_in_pytests_cache(shop, monkeypatch):
    through_forkserver(shop)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # as in many CI images: the suite cache is still written
    shop.runpytest_subprocess().assert_outcomes(passed=2)
    entries = _suite_entries(shop)
    assert len(entries) == 1 and entries[0].endswith("-shop.mcptest.yml.pickle")
    assert not (shop.path / "__pycache__").exists()
    shop.runpytest_subprocess().assert_outcomes(passed=2)
    (shop.path / "shop.mcptest.yml").write_text(WIDGET_SUITE)
    shop.runpytest_subprocess().assert_outcomes(passed=1)
    assert _suite_entries(shop) == entries  # rewritten in place


def test_no_suite_cache_without_pytests_cache(shop):
    through_forkserver(shop)
    shop.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=2)
    assert not (shop.path / ".pytest_cache").exists() and not (shop.path / "__pycache__").exists()


def test_xdist_workers_share_the_suite_cache(shop):
    through_forkserver(shop)
    shop.runpytest_subprocess("-n", "2").assert_outcomes(passed=2)
    entries = _suite_entries(shop)
    assert len(entries) == 1
    shop.runpytest_subprocess("-n", "2").assert_outcomes(passed=2)
    assert _suite_entries(shop) == entries  # no temporaries left by the concurrent writers


def test_items_hold_heads_and_a_failure_reads_the_same_from_the_cache(pytester):
    """With pytest's cache on, an item keeps its block's head and its file's pickle, not
    the built block; the failure text of a run from the cache is the text of the run that built it."""
    pytester.makefile(".mcptest.yml", shop=WIDGET_SUITE)
    pytester.mkdir("cassettes")
    (pytester.path / "cassettes" / "restock.json").write_text(BAD_RUN)
    items, _ = pytester.inline_genitems()
    item = items[0]
    assert type(item.head).__name__ == "Block" and item.head.name == "restock the widget shelf"
    assert type(item._suite.data) is bytes and item._suite.built is None
    assert type(item.block).__name__ == "ScenarioBlock" and item.block is item.block
    through_forkserver(pytester)
    cold = pytester.runpytest_subprocess()
    warm = pytester.runpytest_subprocess()
    cold.assert_outcomes(failed=1)
    warm.assert_outcomes(failed=1)

    def failure(result):
        out = result.stdout.str()
        return out[out.index("= FAILURES ="):out.index("short test summary")]
    assert "forbidden" in failure(cold) and failure(warm) == failure(cold)


def test_cassette_folders_are_not_walked(pytester):
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + simple_scenario("in folder", "cassettes/p.json"))
    pytester.mkdir("cassettes")
    (pytester.path / "cassettes" / "p.json").write_text(PING_RUN)
    (pytester.path / "cassettes" / "sub").mkdir()
    for i in range(3):
        (pytester.path / "cassettes" / "sub" / f"r{i}.json").write_text(PING_RUN)
    pytester.makeconftest("def pytest_collect_file(file_path, parent):\n"
                          "    open('walked.txt', 'a').write(file_path.name + '\\n')\n")
    pytester.runpytest().assert_outcomes(passed=1)
    walked = (pytester.path / "walked.txt").read_text().split()
    assert "p.json" not in walked and "r0.json" not in walked and "s.mcptest.yml" in walked


def test_tests_in_a_folder_named_cassettes_are_still_collected(pytester):
    pytester.mkdir("cassettes")
    (pytester.path / "cassettes" / "deep").mkdir()
    (pytester.path / "cassettes" / "deep" / "test_real.py").write_text("def test_x():\n    assert True\n")
    pytester.runpytest().assert_outcomes(passed=1)


def test_suites_load_after_yaml_is_imported_again(tmp_path):
    """pytester's in-process runs drop and re-import `yaml`; libyaml keeps its first classes."""
    import subprocess
    import sys

    suite = tmp_path / "s.mcptest.yml"
    suite.write_text("x-base: &b {count: 0, on: true, ratio: 0.5, when: 2026-01-01, none: null}\n"
                     "scenarios:\n  - name: merged\n    seed:\n      <<: *b\n      count: 1\n")
    code = (
        "import sys, yaml\n"
        "for m in [m for m in sys.modules if m == 'yaml' or m.startswith('yaml.')]: del sys.modules[m]\n"
        "from pytest_mcptest.gates.suite_build import load_suite\n"
        f"print(load_suite({str(suite)!r}).blocks[0].world.seed)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "{'count': 1, 'on': True, 'ratio': 0.5, 'when': '2026-01-01', 'none': None}"


def test_yes_no_on_off_are_words_as_in_yaml_1_2(tmp_path):
    from pytest_mcptest.gates.suite_build import load_suite

    suite = tmp_path / "s.mcptest.yml"
    suite.write_text("scenarios:\n  - name: n\n    seed: {on: yes, off: No, flag: True, other: false}\n")
    assert load_suite(str(suite)).blocks[0].world.seed == {"on": "yes", "off": "No", "flag": True, "other": False}


def test_report_path_must_be_a_file(shop):
    shop.mkdir("reports")
    result = shop.runpytest("--mcptest-report", "reports")
    assert result.ret == 4 and "--mcptest-report needs a file path" in result.stderr.str()
    assert shop.runpytest("--mcptest-report", "").ret == 4


def test_xfail_absorbs_a_failed_gate_but_not_a_missing_cassette(pytester):
    pytester.makefile(".mcptest.yml", s=WIDGET_SUITE.replace("  - name: restock the widget shelf\n",
                                                             "  - name: restock the widget shelf\n    xfail: known bad\n"))
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=r.json")
    result.assert_outcomes(failed=1)  # no cassette at all: not the expected failure
    result.stdout.fnmatch_lines(["*no cassette at cassettes/restock.json*"])
    assert json.loads((pytester.path / "r.json").read_text())["items"][0]["outcome"] == "failed"
    (pytester.path / "cassettes").mkdir()
    (pytester.path / "cassettes" / "restock.json").write_text(BAD_RUN)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(xfailed=1)  # the gate failed: expected


def test_a_report_path_under_a_file_is_a_usage_error(pytester):
    (pytester.path / "plain.txt").write_text("x")
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=plain.txt/sub/r.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mcptest-report plain.txt/sub/r.json: cannot be written, *plain.txt is a file, "
                                 "not a folder*"])


USER_GC_TEST = """
import gc
import weakref


class Node:
    pass


def test_a_cycle_dropped_at_module_level_is_collected():
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    gc.collect()
    assert gone() is None
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
"""


@pytest.mark.parametrize("where", ["subprocess", "inline"])
def test_a_users_own_gc_test_passes_beside_suites(shop, where, gc_unfrozen):
    """The plugin leaves the garbage collector as it found it: a user's test that counts on
    ``gc.collect()`` freeing a cycle (and on nothing being frozen) passes in a session that
    also collects and runs suites, on the command line and inside another process (this
    test session's own frozen heap, tests/conftest.py, is unfrozen for it)."""
    shop.makepyfile(test_user_gc=USER_GC_TEST)
    run = shop.runpytest_subprocess if where == "subprocess" else shop.runpytest
    run("-p", "no:cacheprovider").assert_outcomes(passed=3)


def test_a_cassette_several_items_share_is_parsed_once_and_only_it_is_kept(pytester, monkeypatch):
    """Cassettes one item replays are not held between items (more for the garbage collector
    to walk); one that several replay is parsed once per process."""
    from collections import OrderedDict

    from pytest_mcptest.formats import cassette

    monkeypatch.setattr(cassette, "_CACHE", OrderedDict())
    parsed = []
    real = cassette.parse_cassette
    monkeypatch.setattr(cassette, "parse_cassette", lambda shown, text: parsed.append(shown) or real(shown, text))
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + simple_scenario("a", "shared.json")
                      + simple_scenario("b", "shared.json") + simple_scenario("c", "own.json"))
    for name in ("shared.json", "own.json"):
        (pytester.path / name).write_text(PING_RUN)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)
    assert sorted(parsed) == ["own.json", "shared.json"]
    assert [path.rsplit("/", 1)[-1] for path in cassette._CACHE] == ["shared.json"]


def stat_spy(monkeypatch, module) -> list:
    """The names of the files ``module`` asks ``os.stat`` about, from now on."""
    import os

    asked = []

    class Spy:
        def __getattr__(self, name):
            return getattr(os, name)

        def stat(self, path, *args, **kwargs):
            asked.append(os.path.basename(path))
            return os.stat(path, *args, **kwargs)

    monkeypatch.setattr(module, "os", Spy())
    return asked


def test_a_shared_cassette_is_read_afresh_by_each_session_and_once_within_one(pytester, monkeypatch):
    """A session that records nothing reuses a shared cassette's parse without looking at the
    file again (no ``stat`` per item); the next session in the same process (pytester here,
    ``pytest.main()`` from a script) reads the file as it is then."""
    import importlib
    from collections import OrderedDict

    # The module the session will use: pytester drops what a test imported when it ends, so
    # after another test the package's attribute may name a module no longer in sys.modules.
    cassette = importlib.import_module("pytest_mcptest.formats.cassette")
    monkeypatch.setattr(cassette, "_CACHE", OrderedDict())
    stats = stat_spy(monkeypatch, cassette)
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + "".join(simple_scenario(n, "shared.json") for n in "abc"))
    (pytester.path / "shared.json").write_text(PING_RUN)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)
    assert stats == ["shared.json"]  # the first item's only
    (pytester.path / "shared.json").write_text(cassette_text("ping", "ping"))  # now two calls: count 2, not 1
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(failed=3)


def test_a_recording_session_checks_a_shared_cassette_for_every_item(pytester, monkeypatch):
    """With a record mode that may write cassettes, each item looks at the file again."""
    import importlib
    from collections import OrderedDict

    # The module the session will use: pytester drops what a test imported when it ends, so
    # after another test the package's attribute may name a module no longer in sys.modules.
    cassette = importlib.import_module("pytest_mcptest.formats.cassette")
    monkeypatch.setattr(cassette, "_CACHE", OrderedDict())
    stats = stat_spy(monkeypatch, cassette)
    pytester.makefile(".mcptest.yml", s="scenarios:\n" + "".join(simple_scenario(n, "shared.json") for n in "abc"))
    (pytester.path / "shared.json").write_text(PING_RUN)
    pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once").assert_outcomes(passed=3)
    assert [p.rsplit("/", 1)[-1] for p in map(str, stats) if p.endswith(".json")] == ["shared.json"] * 3


def test_a_kept_parse_never_outlives_what_write_cassette_writes(tmp_path):
    from pytest_mcptest.formats.cassette import load_cassette, parse_cassette, write_cassette

    path = str(tmp_path / "c.json")
    write_cassette(path, parse_cassette("a.json", cassette_text("a")))
    assert [c.name for c in load_cassette(path, recheck=False).runs[0].tool_calls] == ["a"]
    write_cassette(path, parse_cassette("bc.json", cassette_text("b", "c")), overwrite=True)
    assert [c.name for c in load_cassette(path, recheck=False).runs[0].tool_calls] == ["b", "c"]


def test_items_location_is_the_one_pytest_works_out(pytester, monkeypatch):
    """Items share their file's path in ``location`` (worked out once); it must be exactly what
    pytest's own code gives, wherever the files sit and pytest is started."""
    for folder in ("", "sub/deeper/"):
        (pytester.path / folder).mkdir(parents=True, exist_ok=True)
        (pytester.path / folder / "s.mcptest.yml").write_text(
            "scenarios:\n" + simple_scenario("one", "p.json") + simple_scenario("two", "p.json"))
        (pytester.path / folder / "p.json").write_text(PING_RUN)
    pytester.makeconftest("""
import pytest

def pytest_collection_finish(session):
    for item in session.items:
        own = pytest.Item.location.func(item)
        assert item.location == own, (item.location, own)
        print("LOCATION", item.location)
""")
    result = pytester.runpytest("-s")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["LOCATION ('s.mcptest.yml', 1, 'scenario: one')",
                                 "LOCATION ('sub/deeper/s.mcptest.yml', 8, 'scenario: two')"], consecutive=False)
    monkeypatch.chdir(pytester.path / "sub")  # started elsewhere than the rootdir
    through_forkserver(pytester)
    result = pytester.runpytest_subprocess("-s", "--rootdir", str(pytester.path), "deeper")
    result.assert_outcomes(passed=2)
    assert "LOCATION ('sub/deeper/s.mcptest.yml', 1, 'scenario: one')" in result.stdout.str()


def _built_per_file(pytester, *args) -> dict:
    """Run the suites under pytester (with pytest's cache, so blocks come from a file's
    pickle) and tell, per file, how often its blocks were built and whether they are still held."""
    seen = {}

    class Spy:
        @pytest.hookimpl(trylast=True)
        def pytest_collection_modifyitems(self, items):
            for item in items:
                seen[item.path.name] = item._suite

    pytester.inline_run(*args, plugins=[Spy()]).assertoutcome(passed=4)
    return {name: (suite._builds, suite._held is not None) for name, suite in seen.items()}


def _two_files(pytester) -> None:
    for stem in ("a", "b"):
        pytester.makefile(".mcptest.yml", **{stem: "scenarios:\n" + simple_scenario(f"{stem}1", "ping.json")
                                             + simple_scenario(f"{stem}2", "ping.json")})
    (pytester.path / "ping.json").write_text(PING_RUN)


def test_a_files_blocks_are_built_once_and_let_go_when_the_run_leaves_it(pytester):
    _two_files(pytester)
    assert _built_per_file(pytester) == {"a.mcptest.yml": (1, False), "b.mcptest.yml": (1, False)}


def test_a_file_whose_items_are_interleaved_is_built_twice_and_then_kept(pytester):
    """A conftest that runs the files' items in turn (as a random order does) makes the run
    leave and come back to each file: built again at the first return, then kept."""
    _two_files(pytester)
    pytester.makeconftest("""
        def pytest_collection_modifyitems(items):
            a = [i for i in items if i.path.name == "a.mcptest.yml"]
            b = [i for i in items if i.path.name == "b.mcptest.yml"]
            items[:] = [a[0], b[0], a[1], b[1]]
    """)
    assert _built_per_file(pytester) == {"a.mcptest.yml": (2, True), "b.mcptest.yml": (2, True)}


@pytest.mark.parametrize("key, bad, why", [("mcptest_shard", "5/4", "expected I/N with 1 <= I <= N, found '5/4'"),
                                           ("mcptest_shared_limits", "ftp://x", "expected sqlite:///PATH or redis://")])
def test_a_bad_ini_setting_is_named_as_the_ini_key_and_its_file(pytester, key, bad, why):
    ini = pytester.makeini(f"[pytest]\n{key} = {bad}\n")
    result = pytester.runpytest()
    assert f"ERROR: {key} (in {ini}): {why}" in result.stderr.str()
    flag = "--" + key.replace("_", "-")
    result = pytester.runpytest(f"{flag}={bad}")  # the option wins over the ini key, and is named so
    assert f"ERROR: {flag}: {why}" in result.stderr.str()
