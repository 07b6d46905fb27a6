"""The pytest plugin (entry point ``mcptest``): options, ini keys, markers and hooks.

Thin on purpose: it finds suite files, hands them to the collector, carries each
item's verdict on its report (so pytest-xdist moves it to the controller), and on
the controller writes the JSON report.
"""

from __future__ import annotations

import fnmatch
import os

import pytest

from .context import Context
from .files import output_problem
from .stash import CONTEXT_KEY
from .text import printable
from .record.modes import RecordMode

# report.py (the JSON report, comparisons) is imported where a session asks for a report:
# most sessions never do, and a cold one would compile it for nothing.

DEFAULT_PATTERNS = ("*.mcptest.yml", "*.mcptest.yaml")
_MODES = ", ".join(mode.value for mode in RecordMode)


def _is_block_item(item) -> bool:
    # Checked by module, so the collector (and the engine behind it) loads only when a
    # suite file is actually collected.
    return type(item).__module__ == "pytest_mcptest.collect" and type(item).__name__ == "BlockItem"


def _is_bad_suite(item) -> bool:
    return type(item).__module__ == "pytest_mcptest.collect" and type(item).__name__ == "BadSuiteItem"


def _positive(text: str) -> int:
    """An option that counts something: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        import argparse

        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, found {text!r}")
    return value


def pytest_addhooks(pluginmanager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcptest", "mcptest: replay and gate recorded MCP agent runs")
    group.addoption("--cassette-dir", dest="mcptest_cassette_dir", default=None, metavar="DIR",
                    help="where cassettes are looked up (default: beside each suite file)")
    group.addoption("--mcptest-report", dest="mcptest_report", default=None, metavar="PATH",
                    help="write the JSON report of every mcptest item to PATH")
    group.addoption("--mcptest-html", dest="mcptest_html", default=None, metavar="PATH",
                    help="write the self-contained HTML report (summary, charts, every item) to PATH")
    group.addoption("--mcptest-compare", dest="mcptest_compare", default=None, metavar="BASELINE",
                    help="compare this run with a saved JSON report: per-item deltas and floor flips")
    group.addoption("--mcptest-markdown", dest="mcptest_markdown", default=None, metavar="PATH",
                    help="write a Markdown summary (for a pull-request comment or $GITHUB_STEP_SUMMARY) to PATH")
    group.addoption("--mcptest-record-mode", dest="mcptest_record_mode", default=None, metavar="MODE",
                    help=f"cassette record mode: {_MODES} (default: none, replay only)")
    group.addoption("--mcptest-redact", dest="mcptest_redact", action="append", default=[], metavar="REGEX",
                    help="redact what REGEX matches in every cassette written (repeatable)")
    group.addoption("--mcptest-live-concurrency", dest="mcptest_live_concurrency", default=4, type=_positive,
                    metavar="N", help="live recording: how many runs of an item at once (default 4)")
    group.addoption("--mcptest-dry-run", dest="mcptest_dry_run", action="store_true",
                    help="with a record mode that records: say which items would call which model how many "
                         "times, and skip them, calling nothing")
    group.addoption("--mcptest-drift", dest="mcptest_drift", default="warn", choices=("warn", "fail", "ignore"),
                    help="when a suite's model, prompt or live catalog no longer matches its cassette (default: warn)")
    group.addoption("--mcptest-require-judgments", dest="mcptest_require_judgments", action="store_true",
                    help="a conversation criterion with no recorded judge verdict fails instead of being deferred")
    group.addoption("--mcptest-update-expect", dest="mcptest_update_expect", action="store_true",
                    help="rewrite a failing item's expected_trace:, golden: and expect_state: from its recording, "
                         "keeping the file's comments and layout, and show the diff")
    parser.addini("mcptest_cassette_dir", "where cassettes are looked up, relative to the ini file", default=None)
    parser.addini("mcptest_record_mode", f"cassette record mode ({_MODES})", default="none")
    parser.addini("mcptest_files", "extra glob patterns of suite files to collect", type="linelist", default=[])
    parser.addini("mcptest_skip_dirs", "names of folders of recordings that collection does not walk",
                  type="linelist", default=["cassettes"])


def _rate_dir(config: pytest.Config) -> str:
    """A folder every pytest-xdist worker of this project sees, where live recording keeps the
    per-minute request and token counts, so the providers' limits hold across workers."""
    import hashlib
    import tempfile

    digest = hashlib.sha256(str(config.rootpath).encode()).hexdigest()[:12]
    return os.path.join(tempfile.gettempdir(), f"mcptest-rate-{digest}")


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
    option = config.getoption("mcptest_record_mode")
    try:
        mode = RecordMode.parse(option or config.getini("mcptest_record_mode") or "none",
                                "--mcptest-record-mode" if option else "mcptest_record_mode")
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    for flag in ("--mcptest-report", "--mcptest-html", "--mcptest-markdown"):
        path = config.getoption(flag.lstrip("-").replace("-", "_"))
        if path is not None and (not path.strip() or os.path.isdir(path)):
            raise pytest.UsageError(f"{flag} needs a file path, found {path!r}" + (" (a directory)" if path.strip() else ""))
        if path is not None:  # a read-only folder or a full disk is said now, not after the whole session
            problem = output_problem(os.path.join(str(config.invocation_params.dir), path))
            if problem is not None:
                raise pytest.UsageError(f"{flag} {path}: {problem}")
    if config.getoption("mcptest_html") is not None:
        from .htmlreport import unavailable

        if unavailable():
            raise pytest.UsageError(f"--mcptest-html: {unavailable()}")
    baseline = None
    compare = config.getoption("mcptest_compare")
    if compare is not None and not hasattr(config, "workerinput"):  # only the controller compares
        try:
            from .report import load_report

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
    config.stash[CONTEXT_KEY] = Context(cassette_dir=_cassette_dir(config), record_mode=mode,
                                        root=str(config.rootpath),
                                        require_judgments=bool(config.getoption("mcptest_require_judgments")),
                                        redact=tuple(redact), drift=config.getoption("mcptest_drift"),
                                        live_concurrency=config.getoption("mcptest_live_concurrency"),
                                        dry_run=bool(config.getoption("mcptest_dry_run")),
                                        rate_dir=_rate_dir(config))
    added = [gate for gates in config.hook.pytest_mcptest_gates(config=config) if gates for gate in gates]
    if added:  # a conftest's or a plugin's gates, for this session only
        from .gates import GateError, register

        try:
            config.add_cleanup(register(added, "pytest_mcptest_gates"))
        except GateError as exc:
            raise pytest.UsageError(str(exc)) from None
    config.pluginmanager.register(_SessionHooks(config, baseline), "mcptest-session")
    from .record import fixture as recorder_fixture  # the mcptest_recorder fixture; imports no mcp

    config.pluginmanager.register(recorder_fixture, "mcptest-recorder")
    from .mcp import serve_fixture  # the mcptest_cassette_server fixture; imports no mcp

    config.pluginmanager.register(serve_fixture, "mcptest-cassette-server")


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


_REPORT_FILES = pytest.StashKey[dict]()


def _report_id(config: pytest.Config, path, name: str | None = None) -> str:
    """An item's id in the JSON report: its suite's path relative to the ini file's folder
    (else the folder pytest was started in), then ``::name``. Unlike a node id it does not
    move with pytest's rootdir, so two reports of one project always line up."""
    files = config.stash.setdefault(_REPORT_FILES, {})
    rel = files.get(path)
    if rel is None:
        base = config.inipath.parent if config.inipath else config.invocation_params.dir
        rel = files[path] = os.path.relpath(str(path), str(base)).replace(os.sep, "/")
    return rel if name is None else f"{rel}::{name}"


_WANTS_ENTRIES = pytest.StashKey[bool]()


def _wants_entries(config: pytest.Config) -> bool:
    """Whether items' report entries are gathered: for the JSON or HTML report, or a comparison
    (asked after every phase of every item, so worked out once)."""
    wanted = config.stash.get(_WANTS_ENTRIES, None)
    if wanted is None:
        wanted = config.stash[_WANTS_ENTRIES] = _github_actions() or any(
            config.getoption(name) for name in ("mcptest_report", "mcptest_html", "mcptest_compare", "mcptest_markdown"))
    return wanted


def _github_actions() -> bool:
    """Whether this runs as a GitHub Actions step (failures then become annotations)."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    if (call.when == "call" and _is_block_item(item) and item.verdict is not None
            and getattr(item.config.option, "xmlpath", None)):
        # Before the report is made: pytest copies user_properties onto it, and --junitxml
        # writes them as <property> elements.
        from .report import junit_properties

        item.user_properties.extend(junit_properties(item.head.kind, item.verdict))
    report = yield
    if _is_bad_suite(item) and report.failed:
        report.longrepr = item.failure_text()  # the file, line and reason, not a traceback
        report.mcptest_bad_file = _report_id(item.config, item.path)  # a plain string: crosses xdist
    if _is_block_item(item):
        if _wants_entries(item.config):
            # Plain data on the report: pytest-xdist carries it to the controller.
            from .report import item_entry

            report.mcptest = item_entry(_report_id(item.config, item.path, item.name), item.head, item.verdict)
        if call.when == "call":
            if item.verdict is not None and report.passed and item.config.get_verbosity() > 0:
                from .render import passing_metrics

                report.mcptest_metrics = passing_metrics(item.verdict)  # plain text: crosses xdist
            if item.verdict is not None and report.failed and item.config.getoption("mcptest_update_expect"):
                from .update_expect import proposals

                report.mcptest_update = proposals(item.verdict, item.config.stash[CONTEXT_KEY])  # plain data
            if item.verdict is not None and item.verdict.summary:
                # (section, plain payload) pairs for the terminal summary, across xdist too
                report.mcptest_summary = [list(entry) for entry in item.verdict.summary]
            if item.verdict is not None and report.failed:
                from .report import failure_modes

                report.mcptest_failure_modes = failure_modes(item.verdict)  # a plain dict: crosses xdist
            item.verdict = None  # rendered and reported: let it go
    return report


class _SessionHooks:
    """Per-session hooks that need the config: collection errors and the report."""

    def __init__(self, config: pytest.Config, baseline: dict | None = None):
        self.config = config
        self.baseline = baseline
        wanted = _wants_entries(config)
        self.builder = None
        if wanted and not hasattr(config, "workerinput"):
            from .report import ReportBuilder

            self.builder = ReportBuilder()
        self.patterns = DEFAULT_PATTERNS + tuple(config.getini("mcptest_files"))
        self.summary: dict[str, list] = {}  # section -> [(nodeid, payload)], from the items' gates
        self.metrics: list[tuple[str, str]] = []  # (nodeid, figures) of the items that passed, under -v
        self.failure_modes: dict = {}  # failing runs by failure mode, over the failed items
        self.comparison: dict | None = None
        self.updates: list[dict] = []  # --mcptest-update-expect: what the failed items' processes proposed
        self.updated: list = []  # (file, diff lines, notes), once the controller has applied them

    def _is_suite(self, nodeid: str) -> bool:
        name = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
        return any(fnmatch.fnmatch(name, p) for p in self.patterns)

    def pytest_collection_finish(self, session) -> None:
        blocks = [item.head for item in session.items if _is_block_item(item)]
        if blocks and not self.config.option.collectonly:
            self._count_cassettes(blocks)

    def _count_cassettes(self, blocks: list) -> None:
        """Tell the items which cassettes more than one of them replays: only those are kept
        parsed from one item to the next (see ``Context.shared_cassettes``)."""
        from collections import Counter

        from .cassette import forget_parsed
        from .gates.sources import cassette_path

        forget_parsed()  # a session in a longer-lived process (pytester, pytest.main) reads each file afresh
        ctx = self.config.stash[CONTEXT_KEY]
        counts = Counter(cassette_path(block, ctx) for block in blocks)
        shared = frozenset(path for path, n in counts.items() if n > 1)
        self.config.stash[CONTEXT_KEY] = ctx._replace(shared_cassettes=shared)

    def pytest_runtest_logreport(self, report) -> None:
        if self.builder is not None:
            self.builder.add(report)
            if getattr(report, "mcptest_bad_file", None):
                self.builder.add_collect_error(report.mcptest_bad_file, str(report.longrepr))
        if (report.failed and type(report.longrepr) is str and not hasattr(self.config, "workerinput")
                and self._is_suite(report.nodeid)):
            from .render import FailureText

            report.longrepr = FailureText(report.longrepr)  # still the same text; coloured on a terminal
        for section, payload in getattr(report, "mcptest_summary", None) or ():
            self.summary.setdefault(section, []).append((report.nodeid, payload))
        if getattr(report, "mcptest_metrics", None) is not None and report.passed:
            self.metrics.append((report.nodeid, report.mcptest_metrics))
        if getattr(report, "mcptest_update", None):
            self.updates.append(report.mcptest_update)
        if getattr(report, "mcptest_failure_modes", None) and report.failed:
            from .engine.failure_modes import add_counts

            self.failure_modes = add_counts(self.failure_modes, report.mcptest_failure_modes)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.metrics:
            terminalreporter.section("mcptest: passing items")
            for nodeid, figures in sorted(self.metrics):
                terminalreporter.write_line(printable(f"{nodeid}: {figures}" if figures else nodeid))
        if self.summary:
            self._summarize_gates(terminalreporter)
        if self.failure_modes:
            from .engine.failure_modes import describe

            terminalreporter.section("mcptest: failure modes")
            terminalreporter.write_line(f"failing runs by mode: {describe(self.failure_modes)}")
        self._summarize_comparison(terminalreporter)
        if self.updated:
            from .update_expect import summary_lines

            terminalreporter.section("mcptest: updated expectations")
            for line in summary_lines(self.updated):
                terminalreporter.write_line(line)
        if _github_actions() and self.builder is not None:
            self._annotate(terminalreporter)

    def _annotate(self, terminalreporter) -> None:
        """Each failed item as a GitHub Actions ``::error file=...,line=...::`` command, so
        the workflow shows it on the suite's line; written through the terminal reporter,
        which GitHub reads from the step's output."""
        from .markdown import annotations

        config = self.config
        base = str(config.inipath.parent if config.inipath else config.invocation_params.dir)
        for line in annotations(self.builder.to_dict(), base, os.environ.get("GITHUB_WORKSPACE")):
            terminalreporter.write_line(line)

    def _summarize_gates(self, terminalreporter) -> None:
        """The sections the items' gates asked for (FLOOR lines, the distractor ladder,
        deferred criteria), each rendered by the gate that emitted it, in the gates' order."""
        if not self.summary:
            return  # nothing asked for a section: no gate need be imported to render none
        from .gates import summary_sections

        for name, render in summary_sections():
            entries = self.summary.get(name)
            rendered = render(entries) if entries else None
            if rendered is not None:
                title, lines = rendered
                terminalreporter.section(printable(title))
                for line in lines:  # notes and floors quote what cassettes hold: escaped, never run by the terminal
                    terminalreporter.write_line(printable(line))

    def _summarize_comparison(self, terminalreporter) -> None:
        """This run against ``--mcptest-compare``'s baseline: the verdict of the paired
        tests, the significant changes and the floor flips (``-v``: every delta)."""
        if self.comparison is None:
            return
        from .report import comparison_problem, render_comparison

        terminalreporter.section(f"mcptest: compared with {self.config.getoption('mcptest_compare')}")
        for line in render_comparison(self.comparison, self.config.option.verbose > 0, "-v").splitlines():
            terminalreporter.write_line(printable(line))
        problem = comparison_problem(self.comparison)
        if problem:
            terminalreporter.write_line(f"mcptest: {problem}", red=True)

    def pytest_collectreport(self, report) -> None:
        if report.failed and report.nodeid and self._is_suite(report.nodeid):
            if self.builder is not None:
                path = self.config.rootpath / report.nodeid.split("::", 1)[0]
                self.builder.add_collect_error(_report_id(self.config, path), str(report.longrepr))

    def pytest_sessionfinish(self, session) -> None:
        if self.updates and not hasattr(self.config, "workerinput"):  # the controller alone writes suites
            from .update_expect import apply

            self.updated = apply(self.updates)
        if self.baseline is not None and self.builder is not None:
            # A comparison that lines nothing up exits 2, as `mcptest report --compare`
            # does and as pytest does when collection failed (its 4 is kept for a bad
            # option, such as a baseline that is missing); a floor that flipped to failed
            # fails the session (exit 1) even when no item did.
            from .report import compare_reports, comparison_problem

            self.comparison = compare_reports(self.builder.to_dict(), self.baseline)
            if comparison_problem(self.comparison):
                session.exitstatus = pytest.ExitCode.INTERRUPTED
            elif self.comparison["regressions"] and session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.builder is not None:
            from .report_files import write_session_reports

            write_session_reports(self.config, session, self.builder.to_dict(), self.comparison)


def pytest_assertrepr_compare(config, op, left, right):
    """Compare two engine results (or an envelope and a result) path by path."""
    if not any(type(side).__module__.startswith("pytest_mcptest.") for side in (left, right)):
        return None
    from .render import compare_results

    return compare_results(op, left, right)
