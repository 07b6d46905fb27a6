"""The progress of a live recording in the terminal (``live/progress.py`` counts): registered
when the record mode may record. At the end of collection it adds up the episodes each item
will record; while items record, it shows done / total, the campaign's spend against its
budget and the time left, through pytest's terminal reporter (so output capture and ``-q``
are pytest's to decide): one line rewritten in place in a terminal, plain lines in a log.

Under pytest-xdist the workers' terminals are not shown: each worker counts its episodes and
puts, on the report of each item it ran, the campaign's planned total and what the item
recorded (an extra attribute of the report, which xdist carries to the controller), and the
controller shows the progress item by item."""

from __future__ import annotations

import contextlib
import shutil
from typing import Optional

import pytest

from ..gates import gate
from ..gates.sources import planned_runs
import pytest_mcptest.live.progress as progress
from .stash import CONTEXT_KEY


REPORT_KEY = "mcptest_progress"  # on an item's call report: [planned total, episodes recorded, episodes planned]


class ProgressPlugin:
    def __init__(self, config):
        self.config = config
        self.planned: dict[str, int] = {}
        self.progress: Optional[progress.Progress] = None
        self.worker = hasattr(config, "workerinput")  # a pytest-xdist worker: its controller shows it
        self.remote = False  # the controller of pytest-xdist workers: counts from their reports

    def pytest_collection_finish(self, session) -> None:
        ctx = self.config.stash[CONTEXT_KEY]
        for item in session.items:
            block = getattr(item, "block", None)
            found = gate(block.kind) if block is not None else None
            if found is not None and found.open is None and found.live is not None:
                runs = planned_runs(block, ctx, found.live)
                if runs:
                    self.planned[item.nodeid] = runs
        if not self.planned:
            return
        if self.worker:
            self.progress = progress.Progress(sum(self.planned.values()), lambda line, final: None, False)
        else:
            self.progress = self._shown(sum(self.planned.values()))
            if self.progress is None:
                return
        progress.activate(self.progress)
        self.config.add_cleanup(lambda: progress.activate(None))

    def _shown(self, total: int) -> Optional[progress.Progress]:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return None
        tty = bool(getattr(reporter, "isatty", False))
        width = max(40, shutil.get_terminal_size().columns - 1)
        return progress.Progress(total, self._writer(reporter, tty), tty, spend=_spend, width=width)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        if self.worker and self.progress is not None and call.when == "call":
            setattr(outcome.get_result(), REPORT_KEY,
                    [self.progress.total, self.progress.item_done, self.planned.get(item.nodeid, 0)])

    @pytest.hookimpl(trylast=True)  # after the terminal reporter's letter for the same report
    def pytest_runtest_logreport(self, report) -> None:
        """The controller of pytest-xdist workers: an item a worker ran, and what it recorded."""
        figures = getattr(report, REPORT_KEY, None)
        if self.worker or not isinstance(figures, list) or len(figures) != 3:
            return
        total, done, planned = figures
        if self.progress is None:
            self.progress = self._shown(total)
            if self.progress is None:
                return
            self.remote = True
        if done:
            self.progress.tick(done)
        self.progress.item_over(planned)

    def _writer(self, reporter, tty: bool):
        """Lines through the terminal reporter; while a test runs, with pytest's capture set
        aside for the moment of the write, as pytest's own live logging does."""
        capture = self.config.pluginmanager.get_plugin("capturemanager")

        def write(line: str, final: bool) -> None:
            with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
                reporter.ensure_newline()
                if self.remote and not tty and not final:  # after the outcome letter xdist just wrote
                    reporter.write("\n")
                if tty and not final:
                    reporter.rewrite(line)
                else:
                    reporter.write_line(line)
        return write

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        if self.progress is not None and not self.remote:  # the controller counts in pytest_runtest_logreport
            self.progress.item_over(self.planned.get(nodeid, 0))

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.progress is not None and not self.worker:
            terminalreporter.write_sep("-", "mcptest recording progress")
            self.progress.live = False
            self.progress.show(final=True)


def _spend() -> Optional[str]:
    """The campaign ledger's spend against its budget, when a campaign is on."""
    from ..live.campaign import active

    campaign = active()
    if campaign is None:
        return None
    try:
        return campaign.spend_text()
    except Exception:  # noqa: BLE001 - the progress line goes on without the ledger's figures
        return None
