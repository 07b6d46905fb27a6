"""What a session reports of its items, and where.

Each item's test report carries what its verdict means for the session's reports, as
plain data (so pytest-xdist moves it from a worker to the controller); on the controller,
:class:`SessionReport` gathers those reports and, at the end, writes the JSON, HTML and
Markdown reports, compares the run with a baseline, adds the terminal summary's sections
and GitHub Actions annotations. Its own module, so that ``plugin.py`` stays the plugin's
registration of options and hooks, and so that "what a session reports" has one place.
"""

from __future__ import annotations

import fnmatch
import os

import pytest

from .stash import CONTEXT_KEY
from ..text import printable

# report.py (the JSON report, comparisons) is imported where a session asks for a report:
# most sessions never do, and a cold one would compile it for nothing.


def is_block_item(item) -> bool:
    # Checked by module, so the collector (and the engine behind it) loads only when a
    # suite file is actually collected.
    return type(item).__module__ == "pytest_mcptest.plugin.collect" and type(item).__name__ == "BlockItem"


def _is_bad_suite(item) -> bool:
    return type(item).__module__ == "pytest_mcptest.plugin.collect" and type(item).__name__ == "BadSuiteItem"


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


def wants_entries(config: pytest.Config) -> bool:
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


def before_report(item, call) -> None:
    """What the item's test report must hold from the start: under ``--junitxml``, the
    verdict's figures as user properties (pytest copies them onto the report, and writes
    them as ``<property>`` elements)."""
    if call.when == "call" and is_block_item(item) and getattr(item.config.option, "xmlpath", None):
        if item.kept is not None:
            item.user_properties.extend(item.kept.junit)
        elif item.verdict is not None:
            from ..report.document import junit_properties

            item.user_properties.extend(junit_properties(item.head.kind, item.verdict))


def carry_verdict(item, call, report) -> None:
    """Put on an item's test report what the session's reports need of its verdict, as plain
    data (pytest-xdist carries it from a worker to the controller); then let the verdict go."""
    if _is_bad_suite(item) and report.failed:
        report.longrepr = item.failure_text()  # the file, line and reason, not a traceback
        report.mcptest_bad_file = _report_id(item.config, item.path)  # a plain string: crosses xdist
    if is_block_item(item):
        kept = item.kept if call.when == "call" else None
        if wants_entries(item.config):
            # Plain data on the report: pytest-xdist carries it to the controller.
            from ..report.document import item_entry

            report.mcptest = kept.entry if kept is not None else item_entry(
                _report_id(item.config, item.path, item.name), item.head, item.verdict)
        if kept is not None:
            _carry_kept(kept, item, report)
        elif call.when == "call":
            if item.verdict is not None and report.passed and item.config.get_verbosity() > 0:
                from ..report.render import passing_metrics

                report.mcptest_metrics = passing_metrics(item.verdict)  # plain text: crosses xdist
            if item.verdict is not None and report.failed and item.config.getoption("mcptest_update_expect"):
                from ..authoring.update_expect import proposals

                report.mcptest_update = proposals(item.verdict, item.config.stash[CONTEXT_KEY])  # plain data
            if item.verdict is not None and item.verdict.summary:
                # (section, plain payload) pairs for the terminal summary, across xdist too
                report.mcptest_summary = [list(entry) for entry in item.verdict.summary]
            if item.verdict is not None and report.failed:
                from ..report.document import failure_modes

                report.mcptest_failure_modes = failure_modes(item.verdict)  # a plain dict: crosses xdist
            verdict = item.verdict
            if item.reads is not None and verdict is not None and not (verdict.problems or verdict.skipped):
                from .verdict_cache import verdict_cache

                verdict_cache(item.config).store(item, item.verdict, report)
            item.verdict = item.reads = None  # rendered and reported: let it go


def _carry_kept(kept, item, report) -> None:
    """:func:`carry_verdict` for a verdict kept from an earlier run (``verdict_cache.py``):
    what the session made of it then, put on the report as then."""
    if kept.metrics is not None and report.passed and item.config.get_verbosity() > 0:
        report.mcptest_metrics = kept.metrics
    if kept.summary:
        report.mcptest_summary = kept.summary
    if kept.failure_modes is not None and report.failed:
        report.mcptest_failure_modes = kept.failure_modes
    item.kept = None


class SessionReport:
    """The session's hooks that gather the items' reports and say what they add up to: the
    report files, the comparison with a baseline, the terminal summary's sections, the
    updated expectations and, under GitHub Actions, the annotations."""

    def __init__(self, config: pytest.Config, patterns: tuple, baseline: dict | None = None):
        self.config = config
        self.baseline = baseline
        wanted = wants_entries(config)
        self.builder = None
        if wanted and not hasattr(config, "workerinput"):
            from ..report.document import ReportBuilder

            self.builder = ReportBuilder()
        self.patterns = patterns  # a suite file's name patterns: its failures are rendered as ours
        self.summary: dict[str, list] = {}  # section -> [(nodeid, payload)], from the items' gates
        self.metrics: list[tuple[str, str]] = []  # (nodeid, figures) of the items that passed, under -v
        self.failure_modes: dict = {}  # failing runs by failure mode, over the failed items
        self.comparison: dict | None = None
        self.updates: list[dict] = []  # --mcptest-update-expect: what the failed items' processes proposed
        self.updated: list = []  # (file, diff lines, notes), once the controller has applied them

    def _is_suite(self, nodeid: str) -> bool:
        name = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
        return any(fnmatch.fnmatch(name, p) for p in self.patterns)

    def pytest_runtest_logreport(self, report) -> None:
        if self.builder is not None:
            self.builder.add(report)
            if getattr(report, "mcptest_bad_file", None):
                self.builder.add_collect_error(report.mcptest_bad_file, str(report.longrepr))
        if (report.failed and type(report.longrepr) is str and not hasattr(self.config, "workerinput")
                and self._is_suite(report.nodeid)):
            from ..report.render import FailureText

            report.longrepr = FailureText(report.longrepr)  # still the same text; coloured on a terminal
        for section, payload in getattr(report, "mcptest_summary", None) or ():
            self.summary.setdefault(section, []).append((report.nodeid, payload))
        if getattr(report, "mcptest_metrics", None) is not None and report.passed:
            self.metrics.append((report.nodeid, report.mcptest_metrics))
        if getattr(report, "mcptest_update", None):
            self.updates.append(report.mcptest_update)
        if getattr(report, "mcptest_failure_modes", None) and report.failed:
            from ..engine.failure_modes import add_counts

            self.failure_modes = add_counts(self.failure_modes, report.mcptest_failure_modes)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.metrics:
            terminalreporter.section("mcptest: passing items")
            for nodeid, figures in sorted(self.metrics):
                terminalreporter.write_line(printable(f"{nodeid}: {figures}" if figures else nodeid))
        if self.summary:
            self._summarize_gates(terminalreporter)
        if self.failure_modes:
            from ..engine.failure_modes import describe

            terminalreporter.section("mcptest: failure modes")
            terminalreporter.write_line(f"failing runs by mode: {describe(self.failure_modes)}")
        self._summarize_comparison(terminalreporter)
        if self.updated:
            from ..authoring.update_expect import summary_lines

            terminalreporter.section("mcptest: updated expectations")
            for line in summary_lines(self.updated):
                terminalreporter.write_line(line)
        if _github_actions() and self.builder is not None:
            self._annotate(terminalreporter)

    def _annotate(self, terminalreporter) -> None:
        """Each failed item as a GitHub Actions ``::error file=...,line=...::`` command, so
        the workflow shows it on the suite's line; written through the terminal reporter,
        which GitHub reads from the step's output."""
        from ..report.markdown import annotations

        config = self.config
        base = str(config.inipath.parent if config.inipath else config.invocation_params.dir)
        for line in annotations(self.builder.to_dict(), base, os.environ.get("GITHUB_WORKSPACE")):
            terminalreporter.write_line(line)

    def _summarize_gates(self, terminalreporter) -> None:
        """The sections the items' gates asked for (FLOOR lines, the distractor ladder,
        deferred criteria), each rendered by the gate that emitted it, in the gates' order."""
        if not self.summary:
            return  # nothing asked for a section: no gate need be imported to render none
        from ..gates import summary_sections

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
        from ..report.document import comparison_problem, render_comparison

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
            from ..authoring.update_expect import apply

            self.updated = apply(self.updates)
        if self.baseline is not None and self.builder is not None:
            # A comparison that lines nothing up exits 2, as `mcptest report --compare`
            # does and as pytest does when collection failed (its 4 is kept for a bad
            # option, such as a baseline that is missing); a floor that flipped to failed
            # fails the session (exit 1) even when no item did.
            from ..report.document import compare_reports, comparison_problem

            self.comparison = compare_reports(self.builder.to_dict(), self.baseline, allow_basis_change=bool(
                self.config.getoption("mcptest_allow_basis_change")))
            if comparison_problem(self.comparison) or self.comparison["basis"]["refused"]:
                # graded on another basis: no verdict, as `mcptest report --compare` refuses one
                session.exitstatus = pytest.ExitCode.INTERRUPTED
            elif self.comparison["regressions"] and session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.builder is not None:
            from .report_files import write_session_reports

            write_session_reports(self.config, session, self.builder.to_dict(), self.comparison)
