"""The pytest plugin (entry point ``mcptest``): options, ini keys, markers and hooks.

Thin on purpose: it finds suite files, hands them to the collector, carries each
item's verdict on its report (so pytest-xdist moves it to the controller), and on
the controller writes the JSON report.
"""

from __future__ import annotations

import fnmatch
import gc
import os

import pytest

from .report import ReportBuilder, compare_reports, item_entry, load_report, render_comparison, write_report

DEFAULT_PATTERNS = ("*.mcptest.yml", "*.mcptest.yaml")
RECORD_MODES = ("none", "once", "new_episodes", "all", "rewrite")
SETTINGS_KEY = pytest.StashKey[dict]()
RECORD_KEY = pytest.StashKey[dict]()


def _is_block_item(item) -> bool:
    # Checked by module, so the collector (and the engine behind it) loads only when a
    # suite file is actually collected.
    return type(item).__module__ == "pytest_mcptest.collect"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcptest", "mcptest: replay and gate recorded MCP agent runs")
    group.addoption("--cassette-dir", dest="mcptest_cassette_dir", default=None, metavar="DIR",
                    help="where cassettes are looked up (default: beside each suite file)")
    group.addoption("--mcptest-report", dest="mcptest_report", default=None, metavar="PATH",
                    help="write the JSON report of every mcptest item to PATH")
    group.addoption("--mcptest-compare", dest="mcptest_compare", default=None, metavar="BASELINE",
                    help="compare this run with a saved JSON report: per-item deltas and floor flips")
    group.addoption("--mcptest-record-mode", dest="mcptest_record_mode", default=None,
                    choices=RECORD_MODES, help="cassette record mode, as vcrpy's (default: none, replay only)")
    group.addoption("--mcptest-redact", dest="mcptest_redact", action="append", default=[], metavar="REGEX",
                    help="redact what REGEX matches in every cassette written (repeatable)")
    group.addoption("--mcptest-drift", dest="mcptest_drift", default="warn", choices=("warn", "fail", "ignore"),
                    help="when a suite's model, prompt or live catalog no longer matches its cassette (default: warn)")
    group.addoption("--mcptest-require-judgments", dest="mcptest_require_judgments", action="store_true",
                    help="a conversation criterion with no recorded judge verdict fails instead of being deferred")
    parser.addini("mcptest_cassette_dir", "where cassettes are looked up, relative to the ini file", default=None)
    parser.addini("mcptest_record_mode", "cassette record mode (none, once, new_episodes, all, rewrite)", default="none")
    parser.addini("mcptest_files", "extra glob patterns of suite files to collect", type="linelist", default=[])
    parser.addini("mcptest_skip_dirs", "names of folders of recordings that collection does not walk",
                  type="linelist", default=["cassettes"])


def _cassette_dir(config: pytest.Config) -> str | None:
    option = config.getoption("mcptest_cassette_dir")
    if option:
        return os.path.normpath(os.path.join(str(config.invocation_params.dir), option))
    ini = config.getini("mcptest_cassette_dir")
    if ini:
        base = config.inipath.parent if config.inipath else config.rootpath
        return os.path.normpath(os.path.join(str(base), ini))
    return None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "mcptest(kind): an item collected from a *.mcptest.yml suite")
    mode = config.getoption("mcptest_record_mode") or config.getini("mcptest_record_mode") or "none"
    if mode not in RECORD_MODES:
        raise pytest.UsageError(f"mcptest_record_mode must be one of {', '.join(RECORD_MODES)}, found {mode!r}")
    report = config.getoption("mcptest_report")
    if report is not None and (not report.strip() or os.path.isdir(report)):
        raise pytest.UsageError(f"--mcptest-report needs a file path, found {report!r}"
                                + (" (a directory)" if report.strip() else ""))
    baseline = None
    compare = config.getoption("mcptest_compare")
    if compare is not None and not hasattr(config, "workerinput"):  # only the controller compares
        try:
            baseline = load_report(os.path.join(str(config.invocation_params.dir), compare), compare)
        except ValueError as exc:
            raise pytest.UsageError(f"--mcptest-compare: {exc}") from None
    redact = list(config.getoption("mcptest_redact") or ())
    if redact:
        from .record.redact import compile_patterns

        try:
            compile_patterns(redact)
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
    # What recording needs (the fixture; the record modes and drift check of items).
    config.stash[RECORD_KEY] = {"redact": redact, "drift": config.getoption("mcptest_drift")}
    config.stash[SETTINGS_KEY] = {"cassette_dir": _cassette_dir(config), "record_mode": mode,
                                  "root": str(config.rootpath),
                                  "require_judgments": bool(config.getoption("mcptest_require_judgments"))}
    config.pluginmanager.register(_SessionHooks(config, baseline), "mcptest-session")
    from .record import fixture as recorder_fixture  # the mcptest_recorder fixture; imports no mcp

    config.pluginmanager.register(recorder_fixture, "mcptest-recorder")


def pytest_ignore_collect(collection_path, config):
    """Cassette folders hold recordings, not tests: pytest need not walk them file by file.

    Only a folder with no Python file and no suite anywhere below it is passed over,
    so tests that happen to live in a folder named ``cassettes`` are still collected.
    """
    if collection_path.name in config.getini("mcptest_skip_dirs") and collection_path.is_dir():
        patterns = DEFAULT_PATTERNS + tuple(config.getini("mcptest_files"))
        return None if _holds_tests(str(collection_path), patterns) else True
    return None


def _holds_tests(folder: str, patterns: tuple) -> bool:
    """Whether any file below ``folder`` could be collected (a ``.py`` file or a suite)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return False
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if _holds_tests(entry.path, patterns):
                return True
        elif entry.name.endswith(".py") or any(fnmatch.fnmatch(entry.name, p) for p in patterns):
            return True
    return False


def pytest_collect_file(file_path, parent):
    name = file_path.name
    patterns = DEFAULT_PATTERNS + tuple(parent.config.getini("mcptest_files"))
    if any(fnmatch.fnmatch(name, p) for p in patterns):
        from .collect import SuiteFile

        return SuiteFile.from_parent(parent, path=file_path)
    return None


def _ladder_point(item):
    """A distractors item's (count, accuracy, certified lower bound), as plain data."""
    verdict = item.verdict
    if item.block.kind != "distractors" or verdict is None or verdict.aggregate is None:
        return None
    data = verdict.aggregate.envelope.get("distractors")
    if not data or "accuracy" not in data:
        return None
    return {"count": item.block.count, "accuracy": data["accuracy"], "certified_lower": data.get("certified_lower"),
            "source": item.block.source, "correct": sorted(item.block.correct)}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if _is_block_item(item):
        if item.config.getoption("mcptest_report") or item.config.getoption("mcptest_compare"):
            # Plain data on the report: pytest-xdist carries it to the controller.
            report.mcptest = item_entry(item.nodeid, item.block, item.verdict)
        if call.when == "call":
            deferred = item.verdict.deferred if item.verdict is not None else ()
            if deferred:
                report.mcptest_deferred = list(deferred)  # for the terminal summary, across xdist too
            floors = [f.message for f in (item.verdict.failures if item.verdict is not None else ())
                      if f.gate == "tool_selection"]
            if floors:
                report.mcptest_floor = floors  # the spec's FLOOR lines, for the terminal summary
            ladder = _ladder_point(item)
            if ladder is not None:
                report.mcptest_ladder = ladder  # one point of the accuracy-vs-count curve
            item.verdict = None  # rendered and reported: let it go
    return report


class _SessionHooks:
    """Per-session hooks that need the config: collection errors and the report."""

    def __init__(self, config: pytest.Config, baseline: dict | None = None):
        self.config = config
        self.suite_errors: set[str] = set()
        self.baseline = baseline
        wanted = config.getoption("mcptest_report") or baseline is not None
        self.builder = ReportBuilder() if wanted and not hasattr(config, "workerinput") else None
        self.patterns = DEFAULT_PATTERNS + tuple(config.getini("mcptest_files"))
        self.frozen = False
        self.deferred: dict[str, list] = {}
        self.ladder: dict[str, dict] = {}
        self.floors: dict[str, list] = {}
        # Registered now, before pytest's own plugins register theirs, so that it runs
        # after them: cleanups run last-in, first-out.
        config.add_cleanup(self.unfreeze)

    def _is_suite(self, nodeid: str) -> bool:
        name = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
        return any(fnmatch.fnmatch(name, p) for p in self.patterns)

    def pytest_collection_finish(self, session) -> None:
        """Freeze what collection built (it lives all session) when suites were collected.

        Every later full garbage collection, pytest's own five at the end included,
        then skips the items, blocks and rules instead of walking them again; with
        thousands of items that walk costs more than replaying them. Unfrozen at the
        very end of the session, after pytest's last collections.
        """
        if any(_is_block_item(item) for item in session.items):
            gc.freeze()
            self.frozen = True

    def unfreeze(self) -> None:
        if self.frozen:
            gc.unfreeze()
            self.frozen = False

    def pytest_runtest_logreport(self, report) -> None:
        if self.builder is not None:
            self.builder.add(report)
        deferred = getattr(report, "mcptest_deferred", None)
        if deferred:
            self.deferred[report.nodeid] = deferred
        floors = getattr(report, "mcptest_floor", None)
        if floors:
            self.floors[report.nodeid] = floors
        ladder = getattr(report, "mcptest_ladder", None)
        if ladder:
            self.ladder[report.nodeid] = ladder

    def pytest_terminal_summary(self, terminalreporter) -> None:
        self._summarize_floors(terminalreporter)
        self._summarize_ladders(terminalreporter)
        self._summarize_deferred(terminalreporter)
        self._summarize_comparison(terminalreporter)

    def _summarize_floors(self, terminalreporter) -> None:
        """Spec 001's FLOOR lines of every agent item whose tool-selection floor failed."""
        if not self.floors:
            return
        terminalreporter.section("mcptest: tool-selection floors")
        for nodeid in sorted(self.floors):
            terminalreporter.write_line(nodeid)
            for message in self.floors[nodeid]:
                for line in message.splitlines():
                    terminalreporter.write_line(f"    {line}")

    def _summarize_ladders(self, terminalreporter) -> None:
        """Distractor accuracy against distractor count, one curve per (source, correct set)."""
        curves: dict = {}
        for nodeid, point in self.ladder.items():
            curves.setdefault((point["source"], tuple(point["correct"])), []).append((point["count"], nodeid, point))
        curves = {key: sorted(points) for key, points in curves.items() if len({p[0] for p in points}) > 1}
        if not curves:
            return
        terminalreporter.section("mcptest: distractor accuracy by count")
        for (source, correct), points in sorted(curves.items()):
            terminalreporter.write_line(f"{source} distractors, correct {', '.join(correct)}:")
            for count, nodeid, point in points:
                lower = point["certified_lower"]
                certified = f", certified >= {lower}%" if lower is not None else ""
                terminalreporter.write_line(f"    count {count:>3}: accuracy {point['accuracy']:>3}%{certified}   "
                                            f"{nodeid}")

    def _summarize_comparison(self, terminalreporter) -> None:
        """This run against ``--mcptest-compare``'s baseline: deltas and floor flips."""
        if self.baseline is None or self.builder is None:
            return
        comparison = compare_reports(self.builder.to_dict(), self.baseline)
        terminalreporter.section(f"mcptest: compared with {self.config.getoption('mcptest_compare')}")
        for line in render_comparison(comparison).splitlines():
            terminalreporter.write_line(line)

    def _summarize_deferred(self, terminalreporter) -> None:
        """List the criteria that still need a judge: they neither passed nor failed."""
        if not self.deferred or self.config.getoption("mcptest_require_judgments"):
            return  # with judgments required, they already failed their items
        count = sum(len(v) for v in self.deferred.values())
        noun = "criterion" if count == 1 else "criteria"
        terminalreporter.section(f"mcptest: {count} {noun} deferred (no recorded judge verdict)")
        for nodeid in sorted(self.deferred):
            terminalreporter.write_line(nodeid)
            for criterion in self.deferred[nodeid]:
                terminalreporter.write_line(f"    {criterion}")
        terminalreporter.write_line("record verdicts in the cassette's `judgments`, or run with "
                                    "--mcptest-require-judgments to fail on them")

    def pytest_collectreport(self, report) -> None:
        if report.failed and report.nodeid and self._is_suite(report.nodeid):
            self.suite_errors.add(report.nodeid)
            if self.builder is not None:
                self.builder.add_collect_error(report.nodeid, str(report.longrepr))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session) -> None:
        """A bad suite file is one collection error; the rest still run.

        pytest runs nothing when collection failed. When every failed collector is a
        suite file, the session goes on as ``--continue-on-collection-errors`` would;
        a broken Python test file still stops the run as usual.
        """
        if session.testsfailed and session.testsfailed == len(self.suite_errors):
            session.config.option.continue_on_collection_errors = True

    def pytest_sessionfinish(self, session) -> None:
        if self.builder is not None and self.config.getoption("mcptest_report"):
            path = os.path.join(str(self.config.invocation_params.dir), self.config.getoption("mcptest_report"))
            write_report(path, self.builder.to_dict())


def pytest_assertrepr_compare(config, op, left, right):
    """Compare two engine results (or an envelope and a result) path by path."""
    if not any(type(side).__module__.startswith("pytest_mcptest.") for side in (left, right)):
        return None
    from .render import compare_results

    return compare_results(op, left, right)
