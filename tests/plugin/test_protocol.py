"""The shorter runtest protocol of block items (``plugin/protocol.py``): whatever it runs, every
report, every hook a plugin can see and every file pytest writes is what pytest's own protocol
gives; it steps aside whenever a plugin could see a difference."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from pytest_mcptest.plugin import collect, protocol, verdict_cache
from suites import BAD_RUN, PING_RUN, simple_scenario

# Records, for every report, what a plugin can read of it (not its times).
RECORDER = '''
import json, os

SEEN = []

def pytest_runtest_logstart(nodeid, location):
    SEEN.append(["logstart", nodeid, list(location)])

def pytest_runtest_logfinish(nodeid, location):
    SEEN.append(["logfinish", nodeid, list(location), os.environ.get("PYTEST_CURRENT_TEST")])

def pytest_runtest_logreport(report):
    SEEN.append(["report", report.nodeid, report.when, report.outcome, str(report.longrepr),
                 [list(s) for s in report.sections], [list(p) for p in report.user_properties],
                 list(report.location), sorted(report.keywords), report.duration >= 0,
                 sorted(k for k in vars(report) if k.startswith("mcptest"))])

def pytest_exception_interact(node, call, report):
    SEEN.append(["interact", node.nodeid, call.when, report.outcome])

def pytest_sessionfinish(session):
    with open(os.path.join(str(session.config.rootpath), "seen-%s.json" % os.environ["RUN"]), "w") as out:
        json.dump(SEEN, out)
'''

# Any pytest_runtest_setup implementation makes the plugin run pytest's own protocol.
FULL = "\ndef pytest_runtest_setup(item):\n    pass\n"


def suite(names: list[str]) -> str:
    return "scenarios:\n" + "".join(simple_scenario(name, f"{name}.json") for name in names)


@pytest.fixture
def project(pytester):
    """Two suite files around a Python test file; passing, failing and unjudgeable blocks."""
    pytester.makefile(".mcptest.yml", s=suite(["one", "two", "three", "four"]),
                      u=suite(["five", "six", "seven"]))  # test_b.py runs between them
    pytester.makepyfile(test_b="import logging\ndef test_py():\n    print('hi'); logging.warning('note')\n")
    for name in ("one", "two", "four", "five", "seven"):
        (pytester.path / f"{name}.json").write_text(PING_RUN)
    (pytester.path / "three.json").write_text(BAD_RUN)  # a gate fails
    # "six" has no cassette: it cannot be judged (an error in its call phase)
    return pytester


@pytest.fixture
def shortened(monkeypatch):
    """The node ids the shorter protocol ran (the others ran through pytest's own)."""
    ran: list = []
    real = protocol.ShortProtocol.pytest_runtest_protocol

    def pytest_runtest_protocol(self, item, nextitem):  # the hook's own argument names
        done = real(self, item, nextitem)
        if done:
            ran.append(item.name)
        return done

    monkeypatch.setattr(protocol.ShortProtocol, "pytest_runtest_protocol", pytest_runtest_protocol)
    return ran


@pytest.fixture
def short_calls(monkeypatch):
    """The kinds of the items whose call phase the shorter protocol considered running without
    the capture and logging wrappers (it asks whether the kind replays only then). The item's
    own module, imported before the patch (above), keeps the real function: only the protocol's
    questions are counted."""
    assert collect.keeps is verdict_cache.keeps
    kinds: list = []
    real = verdict_cache.keeps

    def keeps(kind):
        kinds.append(kind)
        return real(kind)

    monkeypatch.setattr(verdict_cache, "keeps", keeps)
    return kinds


def session(project, name: str, conftest: str, *args) -> tuple:
    """One in-process session; what the recorder saw, its JUnit XML and its terminal lines."""
    project.makeconftest(conftest)
    os.environ["RUN"] = name
    try:
        result = project.runpytest("-rA", f"--junitxml={name}.xml", "-p", "no:randomly", *args)
    finally:
        del os.environ["RUN"]
    seen = (project.path / f"seen-{name}.json").read_text()
    xml = re.sub(r'(time|timestamp|hostname)="[^"]*"', "", (project.path / f"{name}.xml").read_text())
    lines = [re.sub(r"\d+\.\d+s", "T", line).replace(f"{name}.xml", "X.xml") for line in result.stdout.lines]
    return result, seen, xml, lines


@pytest.mark.parametrize("args", [(), ("-x",), ("--durations=0", "-vv"), ("--mcptest-report=report.json",),
                                  ("-x", "-p", "no:logging")])
def test_every_report_and_hook_is_what_pytests_own_protocol_gives(project, shortened, short_calls, args):
    short = session(project, "short", RECORDER, *args)
    assert shortened, "the shorter protocol ran no item"
    assert short_calls == ["scenario"] * len(shortened)  # every call phase it ran was the short one
    assert "one" not in shortened and "seven" not in shortened  # first and last of a file, and of the session
    full_shortened = len(shortened)
    full = session(project, "full", RECORDER + FULL, *args)
    assert len(shortened) == full_shortened  # a conftest's setup hook: pytest's own protocol for every item
    assert short[1] == full[1]
    assert short[2] == full[2]
    # --durations lists the phases slowest first: the same lines, in an order that varies
    assert (sorted(short[3]) == sorted(full[3])) if "--durations=0" in args else (short[3] == full[3])
    assert short[0].ret == full[0].ret != 0
    if args[:1] == ("-x",):
        short[0].assert_outcomes(passed=2, failed=1)  # stopped after "three", torn down as pytest does


def test_kept_verdicts_are_reported_as_when_judged(project, shortened, short_calls):
    judged = session(project, "judged", RECORDER)
    shortened.clear()
    short_calls.clear()
    kept = session(project, "kept", RECORDER)
    assert shortened and len(short_calls) == len(shortened)  # the rerun took the shorter protocol too
    assert judged[1] == kept[1] and judged[2] == kept[2] and judged[3] == kept[3]


def test_a_conftest_setup_or_teardown_hook_sees_every_block_item(project, shortened):
    project.makeconftest("SEEN = []\n"
                         "def pytest_runtest_teardown(item, nextitem):\n    SEEN.append(item.name)\n"
                         "def pytest_sessionfinish(session):\n"
                         "    open('teardowns.txt', 'w').write(' '.join(SEEN))\n")
    project.runpytest("-p", "no:randomly").assert_outcomes(passed=6, failed=2)
    assert shortened == []
    assert (project.path / "teardowns.txt").read_text().split() == [
        "one", "two", "three", "four", "test_py", "five", "six", "seven"]


@pytest.mark.parametrize("mark", ["skip", "xfail"])
def test_a_skip_or_xfail_mark_takes_pytests_own_protocol(project, shortened, mark):
    project.makeconftest(f"import pytest\n"
                         f"def pytest_collection_modifyitems(items):\n"
                         f"    for item in items:\n"
                         f"        if item.name == 'three':\n"
                         f"            item.add_marker(pytest.mark.{mark}(reason='known'))\n")
    result = project.runpytest("-p", "no:randomly")
    assert "three" not in shortened and "two" in shortened
    if mark == "skip":
        result.assert_outcomes(passed=6, failed=1, skipped=1)
    else:
        result.assert_outcomes(passed=6, failed=1, xfailed=1)


def _plain(text: str) -> str:
    """Without the objects' addresses and the threads' idents (they differ from run to run)."""
    return re.sub(r"stopped \d+", "stopped ?", re.sub(r"0x[0-9a-f]+", "0x?", text))


# What a conftest may do that is neither a setup nor a teardown hook (so the shorter protocol
# may still run), with the options that show it, and what must hold. Each is added to the
# RECORDER. "same": every report, the XML and the terminal as under pytest's own protocol.
# "steps aside": pytest's own protocol runs the block items. "same errors": the same reports,
# outcomes and error lines, but the traceback of an error raised in a setup or teardown phase
# shows the frames that ran, without the capture and logging wrappers the phase left out.
OTHER_HOOKS = {
    # A record logged while a report is made: live logging heads it with the phase it is in.
    "log-in-makereport": ("import logging\n"
                          "def pytest_runtest_makereport(item, call):\n"
                          "    logging.getLogger('x').warning('report %s %s', item.name, call.when)\n",
                          ("--log-cli-level=WARNING",), "steps aside"),
    # PYTEST_CURRENT_TEST while a report is made: pytest's teardown hook has removed it by then.
    "env-in-makereport": ("def pytest_runtest_makereport(item, call):\n"
                          "    SEEN.append(['env', item.name, call.when, os.environ.get('PYTEST_CURRENT_TEST')])\n",
                          (), "same"),
    # An exception ignored in __del__ after a call phase: pytest's teardown phase collects it
    # (a warning of this item; an error of its teardown under -W error).
    "unraisable-after-call": ("class D:\n"
                              "    def __del__(self):\n        raise ValueError('boom')\n"
                              "def pytest_runtest_makereport(item, call):\n"
                              "    if item.name == 'two' and call.when == 'call':\n        D()\n",
                              ("-W", "error::pytest.PytestUnraisableExceptionWarning"), "same errors"),
    # The same for an exception in a thread.
    "thread-exception-after-call": ("import threading\n"
                                    "def _fail():\n    raise ValueError('thread boom')\n"
                                    "def pytest_runtest_makereport(item, call):\n"
                                    "    if item.name == 'two' and call.when == 'call':\n"
                                    "        t = threading.Thread(target=_fail, name='worker'); t.start(); t.join()\n",
                                    ("-W", "error::pytest.PytestUnhandledThreadExceptionWarning"), "same errors"),
    # The same, unraisable, as a warning (no -W error): it names the item whose teardown saw it.
    "unraisable-warning": ("class D:\n"
                           "    def __del__(self):\n        raise ValueError('boom')\n"
                           "def pytest_runtest_makereport(item, call):\n"
                           "    if item.name == 'two' and call.when == 'call':\n        D()\n",
                           (), "same"),
    # A finalizer on the item (Node.addfinalizer, public): it runs in the teardown phase, whose
    # output and log records pytest captures into the teardown's report, and whose error
    # leaves PYTEST_CURRENT_TEST set (pytest's teardown hook stops before removing it).
    "item-finalizer": ("import logging, sys\n"
                       "def pytest_runtest_call(item):\n"
                       "    def fin():\n"
                       "        print('fin out', item.name); print('fin err', file=sys.stderr)\n"
                       "        logging.getLogger('x').warning('fin log %s', item.name)\n"
                       "        if item.name == 'two':\n            raise RuntimeError('fin failed')\n"
                       "    item.addfinalizer(fin)\n",
                       ("-o", "junit_logging=all"), "same"),
}


def _errors_only(text: str) -> str:
    """A run's terminal text, or its JUnit XML, with each traceback reduced to its error lines
    (``E ...``): the sections after a ``___ name ___`` heading up to the next heading or
    ``===`` line, and the bodies of ``<error>`` and ``<failure>`` elements."""
    def errors(body: str) -> str:
        return "\n".join(line for line in body.splitlines() if line.startswith("E "))

    text = re.sub(r"(<(error|failure)\b[^>]*>)(.*?)(</\2>)", lambda m: m[1] + errors(m[3]) + m[4], text, flags=re.S)
    kept, in_traceback = [], False
    for line in text.splitlines():
        if re.match(r"_{3,} .* _{3,}$", line) or line.startswith("="):
            in_traceback = line.startswith("_")
            kept.append(line)
        elif not in_traceback or line.startswith("E "):
            kept.append(line)
    return "\n".join(kept)


@pytest.mark.parametrize("case", sorted(OTHER_HOOKS))
def test_what_other_hooks_see_between_and_after_the_phases(project, shortened, case):
    extra, args, expected = OTHER_HOOKS[case]
    short = session(project, "short", RECORDER + extra, *args)
    assert ("two" in shortened) is (expected != "steps aside")
    full = session(project, "full", RECORDER + extra + FULL, *args)
    same = _plain if expected != "same errors" else (lambda text: _errors_only(_plain(text)))
    if expected == "same errors":  # the reports' tracebacks (in SEEN, the XML) reduced to their errors
        short_seen, full_seen = (json.loads(run[1]) for run in (short, full))
        for entries in (short_seen, full_seen):
            for entry in entries:
                if entry[0] == "report":
                    entry[4] = [line for line in entry[4].splitlines() if line.startswith("E ")]
        assert _plain(json.dumps(short_seen)) == _plain(json.dumps(full_seen))
    else:
        assert _plain(short[1]) == _plain(full[1])
    assert same(short[2]) == same(full[2])
    assert same("\n".join(short[3])) == same("\n".join(full[3]))
    assert short[0].ret == full[0].ret


def test_a_plugin_registered_during_the_run_sees_every_later_setup_and_teardown(project, shortened):
    """A plugin may be registered at any time (here by a test): its setup and teardown hooks
    are called for every item that runs after that, as pytest's own protocol calls them."""
    project.makepyfile(test_b="class Late:\n"
                              "    seen = []\n"
                              "    def pytest_runtest_setup(self, item):\n        Late.seen.append(item.name)\n"
                              "def test_py(request):\n"
                              "    request.config.pluginmanager.register(Late(), 'late')\n")
    project.makeconftest("def pytest_sessionfinish(session):\n"
                         "    late = session.config.pluginmanager.get_plugin('late')\n"
                         "    open('late.txt', 'w').write(' '.join(type(late).seen))\n")
    project.runpytest("-p", "no:randomly").assert_outcomes(passed=6, failed=2)
    assert "two" in shortened
    assert (project.path / "late.txt").read_text().split() == ["five", "six", "seven"]


@pytest.mark.parametrize("args", [("-p", "no:warnings"), ("-o", "log_cli=true"), ("--setup-show",)])
def test_what_could_print_or_show_in_those_phases_takes_pytests_own_protocol(project, shortened, args):
    """Without the warnings plugin a warning in setup or teardown would print; live logging
    and --setup-show write the phases' names: pytest's own protocol runs every item."""
    short = session(project, "short", RECORDER, *args)
    assert shortened == []
    full = session(project, "full", RECORDER + FULL, *args)
    assert short[1] == full[1] and short[3] == full[3]


# A conftest's call hook, which prints and logs: pytest captures both into the call phase's
# report (shown under the failing item).
CALL_WRAPPER = ("import logging\n"
                "def pytest_runtest_call(item):\n"
                "    print('calling', item.name); logging.getLogger('x').warning('calling %s', item.name)\n")


def test_a_call_hook_of_a_conftest_runs_in_pytests_whole_call_phase(project, shortened, short_calls):
    short = session(project, "short", RECORDER + CALL_WRAPPER, "-p", "no:randomly")
    assert "two" in shortened and short_calls == []  # setup and teardown short; the call phase whole
    full = session(project, "full", RECORDER + CALL_WRAPPER + FULL, "-p", "no:randomly")
    assert short[1] == full[1] and short[2] == full[2] and short[3] == full[3]
    seen = [entry for entry in json.loads(short[1]) if entry[:3] == ["report", "s.mcptest.yml::three", "call"]]
    sections = dict(seen[0][5])
    assert sections["Captured stdout call"] == "calling three\n"
    assert "calling three" in sections["Captured log call"]


def test_a_session_that_may_record_runs_pytests_whole_call_phase(project, shortened, short_calls):
    project.runpytest("-p", "no:randomly", "--mcptest-record-mode=none").assert_outcomes(passed=6, failed=2)
    assert short_calls
    shortened.clear()
    short_calls.clear()
    project.runpytest("-p", "no:randomly", "--mcptest-record-mode=new_episodes")
    assert "two" in shortened and short_calls == []


def test_a_gate_plugins_items_print_into_their_reports(pytester, shortened, short_calls):
    """A kind that is not mcptest's own runs code mcptest does not know: its call phase keeps
    pytest's capture, so what it prints is in the failing item's report, not the terminal."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "gates.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
    assert "    calls = len(run.tool_calls)\n" in code
    pytester.makeconftest(code.replace("    calls = len(run.tool_calls)\n",
                                       "    calls = len(run.tool_calls)\n    print('judging', block.name)\n"))
    pytester.makefile(".mcptest.yml", budget="call_budgets:\n" + "".join(
        f"  - name: {name}\n    cassette: lookup.json\n    max_calls: {limit}\n"
        for name, limit in (("first", 5), ("middle", 1), ("last", 5))))
    (pytester.path / "lookup.json").write_text(json.dumps(
        {"mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "search"}, {"name": "fetch"}]}]}))
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    assert shortened == ["middle"] and short_calls == ["call_budget"]
    result.stdout.fnmatch_lines(["*- Captured stdout call -*", "judging middle"])
    assert "judging first" not in result.stdout.str()  # captured, and a passing item's output is not shown
