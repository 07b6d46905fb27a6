"""The pytest plugin (entry point ``mcptest``): options, ini keys, markers and hooks.

Thin on purpose: it declares the options, finds suite files and hands them to the
collector, and registers the session's other plugins: ``session_report.py`` (each item's
verdict carried on its report, the report files and the terminal summary), and the
``mcptest_recorder`` and ``mcptest_cassette_server`` fixtures.
"""

from __future__ import annotations

import fnmatch
import os

import pytest

from ..gates.context import Context
from ..formats.files import output_problem
from .stash import CONTEXT_KEY
from ..record.modes import RecordMode
from .session_report import SessionReport, before_report, carry_verdict, is_block_item
from ..option_types import dollars, whole_number

DEFAULT_PATTERNS = ("*.mcptest.yml", "*.mcptest.yaml")
_MODES = ", ".join(mode.value for mode in RecordMode)


def _option_or_ini(config: pytest.Config, name: str) -> tuple:
    """A setting given as an option or, failing that, an ini key of the same ``name``; and how
    an error names where it was given (the option, or the key and its file)."""
    value = config.getoption(name)
    if value:
        return value, "--" + name.replace("_", "-")
    return config.getini(name), f"{name} (in {config.inipath})"


def _campaign(config: pytest.Config) -> None:
    """The shared ledger of live recording (``live/campaign.py``), when asked for: made the one
    this process's live models report to, and its totals put in the terminal summary."""
    url, source = _option_or_ini(config, "mcptest_shared_limits")
    usd, tokens = config.getoption("mcptest_budget_usd"), config.getoption("mcptest_budget_tokens")
    if not url:
        if usd is not None or tokens is not None:
            raise pytest.UsageError("--mcptest-budget-usd and --mcptest-budget-tokens need --mcptest-shared-limits "
                                    "(the ledger every process of the campaign shares), e.g. "
                                    "--mcptest-shared-limits sqlite:///.mcptest-campaign.db")
        return
    import pytest_mcptest.live.campaign as campaign

    try:
        ledger = campaign.Campaign(url, None if usd is None else int(round(usd * 1_000_000)), tokens)
    except ValueError as exc:
        raise pytest.UsageError(f"{source}: {exc}") from None
    campaign.activate(ledger)
    config.add_cleanup(lambda: campaign.activate(None))
    config.pluginmanager.register(campaign.SummaryPlugin(ledger), "mcptest-campaign")


def _shard(config: pytest.Config) -> None:
    """``--mcptest-shard I/N``: this machine's share of the items (``plugin/shard.py``)."""
    text, source = _option_or_ini(config, "mcptest_shard")
    if not text:
        return
    from ..live.shard import parse_shard
    from .shard import ShardPlugin

    try:
        index, count = parse_shard(text)
    except ValueError as exc:
        raise pytest.UsageError(f"{source}: {exc}") from None
    config.pluginmanager.register(ShardPlugin(index, count), "mcptest-shard")


def pytest_addhooks(pluginmanager) -> None:
    import pytest_mcptest.plugin.hookspecs as hookspecs

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
    group.addoption("--mcptest-allow-basis-change", dest="mcptest_allow_basis_change", action="store_true",
                    help="with --mcptest-compare: draw the verdict even when the baseline was graded on a "
                         "different basis (judge, judge prompt, grading options, mcptest major version)")
    group.addoption("--mcptest-markdown", dest="mcptest_markdown", default=None, metavar="PATH",
                    help="write a Markdown summary (for a pull-request comment or $GITHUB_STEP_SUMMARY) to PATH")
    group.addoption("--mcptest-record-mode", dest="mcptest_record_mode", default=None, metavar="MODE",
                    help=f"cassette record mode: {_MODES} (default: none, replay only)")
    group.addoption("--mcptest-redact", dest="mcptest_redact", action="append", default=[], metavar="REGEX",
                    help="redact what REGEX matches in every cassette written (repeatable)")
    group.addoption("--mcptest-live-concurrency", dest="mcptest_live_concurrency", default=4, type=whole_number,
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
    group.addoption("--mcptest-no-verdict-cache", dest="mcptest_no_verdict_cache", action="store_true",
                    help="judge every item again, even one whose suite, recordings, options and mcptest are unchanged "
                         "since a run kept its verdict in pytest's cache (--cache-clear empties it)")
    group.addoption("--mcptest-shared-limits", dest="mcptest_shared_limits", default=None, metavar="URL",
                    help="live recording: keep the per-minute limits and the campaign budget in a store every "
                         "process shares: sqlite:///PATH (one machine) or redis://HOST:PORT/DB (many)")
    group.addoption("--mcptest-budget-usd", dest="mcptest_budget_usd", default=None, type=dollars, metavar="X",
                    help="live recording: the campaign (every process sharing the ledger) starts no model request "
                         "that could take its spend past X dollars; items it could not record are skipped")
    group.addoption("--mcptest-budget-tokens", dest="mcptest_budget_tokens", default=None, type=whole_number,
                    metavar="N", help="live recording: the same, in tokens")
    group.addoption("--mcptest-shard", dest="mcptest_shard", default=None, metavar="I/N",
                    help="run share I of N (1 to N): a balanced split of the items, the same on every machine, "
                         "by the durations their cassettes recorded; the other items are deselected")
    parser.addini("mcptest_shared_limits", "the shared ledger of live recording (--mcptest-shared-limits)",
                  default=None)
    parser.addini("mcptest_shard", "this machine's share of the items, I/N (--mcptest-shard)", default=None)
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
        from ..report.html import unavailable

        if unavailable():
            raise pytest.UsageError(f"--mcptest-html: {unavailable()}")
    baseline = None
    compare = config.getoption("mcptest_compare")
    if compare is not None and not hasattr(config, "workerinput"):  # only the controller compares
        try:
            from ..report.document import load_report

            baseline = load_report(os.path.join(str(config.invocation_params.dir), compare), compare)
        except ValueError as exc:
            raise pytest.UsageError(f"--mcptest-compare: {exc}") from None
    redact = list(config.getoption("mcptest_redact") or ())
    if redact:
        from ..redact import compile_patterns

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
                                        rate_dir=_rate_dir(config), live_catalogs={})
    _campaign(config)
    _shard(config)
    if mode is not RecordMode.NONE and not config.getoption("mcptest_dry_run"):  # live progress, when recording
        from .progress import ProgressPlugin

        config.pluginmanager.register(ProgressPlugin(config), "mcptest-progress")
    added = [gate for gates in config.hook.pytest_mcptest_gates(config=config) if gates for gate in gates]
    if added:  # a conftest's or a plugin's gates, for this session only
        from ..gates import GateError, register

        try:
            config.add_cleanup(register(added, "pytest_mcptest_gates"))
        except GateError as exc:
            raise pytest.UsageError(str(exc)) from None
    config.pluginmanager.register(SessionReport(config, suite_patterns(config), baseline), "mcptest-session")
    from .protocol import ShortProtocol  # block items' runtest protocol (protocol.py says when it steps aside)

    config.pluginmanager.register(ShortProtocol(config), "mcptest-protocol")
    import pytest_mcptest.plugin.recorder_fixture as recorder_fixture  # the mcptest_recorder fixture; imports no mcp

    config.pluginmanager.register(recorder_fixture, "mcptest-recorder")
    import pytest_mcptest.mcp.serve_fixture as serve_fixture  # the mcptest_cassette_server fixture; imports no mcp

    config.pluginmanager.register(serve_fixture, "mcptest-cassette-server")


def suite_patterns(config) -> tuple[str, ...]:
    """The file name patterns of suite files: the built-in ones and the ``mcptest_files`` ini lines."""
    return DEFAULT_PATTERNS + tuple(config.getini("mcptest_files"))


def pytest_ignore_collect(collection_path, config):
    """Cassette folders hold recordings, not tests: pytest need not walk them file by file.

    Only a folder with no Python file and no suite anywhere below it is passed over,
    so tests that happen to live in a folder named ``cassettes`` are still collected.
    """
    if collection_path.name in config.getini("mcptest_skip_dirs") and collection_path.is_dir():
        return None if _holds_tests(str(collection_path), suite_patterns(config)) else True
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
    if any(fnmatch.fnmatch(name, p) for p in suite_patterns(parent.config)):
        from .collect import SuiteFile

        return SuiteFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    before_report(item, call)
    report = yield
    carry_verdict(item, call, report)
    return report


def pytest_collection_finish(session) -> None:
    """Tell the items which cassettes more than one of them replays: only those are kept
    parsed from one item to the next (see ``Context.shared_cassettes``); and where decoded
    cassettes are kept between sessions (a folder of pytest's cache, so on exactly when it is:
    ``Context.kept_parses``)."""
    blocks = [item.head for item in session.items if is_block_item(item)]
    if not blocks or session.config.option.collectonly:
        return
    from collections import Counter

    from ..formats.cassette import forget_parsed
    from ..gates.sources import cassette_path

    forget_parsed()  # a session in a longer-lived process (pytester, pytest.main) reads each file afresh
    ctx = session.config.stash[CONTEXT_KEY]
    counts = Counter(cassette_path(block, ctx) for block in blocks)
    shared = frozenset(path for path, n in counts.items() if n > 1)
    session.config.stash[CONTEXT_KEY] = ctx._replace(shared_cassettes=shared, kept_parses=_kept_parses(session.config))


def _kept_parses(config) -> tuple | None:
    cache = getattr(config, "cache", None)
    if cache is None:
        return None
    from ..gates.suite_cache import code_stamp

    try:
        return str(cache.mkdir("mcptest-parsed")), code_stamp()
    except OSError:
        return None


def pytest_assertrepr_compare(config, op, left, right):
    """Compare two engine results (or an envelope and a result) path by path."""
    if not any(type(side).__module__.startswith("pytest_mcptest.") for side in (left, right)):
        return None
    from ..report.render import compare_results

    return compare_results(op, left, right)
