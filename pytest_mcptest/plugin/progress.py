"""The progress of a live recording in the terminal (``live/progress.py`` counts): registered
when the record mode may record. At the end of collection it adds up the episodes each item
will record; while items record, it shows done / total, the campaign's spend against its
budget and the time left, through pytest's terminal reporter (so output capture and ``-q``
are pytest's to decide): one line rewritten in place in a terminal, plain lines in a log."""

from __future__ import annotations

import contextlib
import shutil
from typing import Optional

from ..gates import gate
from ..gates.sources import planned_runs
from ..live import progress
from .stash import CONTEXT_KEY


class ProgressPlugin:
    def __init__(self, config):
        self.config = config
        self.planned: dict[str, int] = {}
        self.progress: Optional[progress.Progress] = None

    def pytest_collection_finish(self, session) -> None:
        ctx = self.config.stash[CONTEXT_KEY]
        for item in session.items:
            block = getattr(item, "block", None)
            found = gate(block.kind) if block is not None else None
            if found is not None and found.open is None and found.live is not None:
                runs = planned_runs(block, ctx, found.live)
                if runs:
                    self.planned[item.nodeid] = runs
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if not self.planned or reporter is None:
            return
        tty = bool(getattr(reporter, "isatty", False))
        width = max(40, shutil.get_terminal_size().columns - 1)
        self.progress = progress.Progress(sum(self.planned.values()), self._writer(reporter, tty), tty,
                                          spend=_spend, width=width)
        progress.activate(self.progress)
        self.config.add_cleanup(lambda: progress.activate(None))

    def _writer(self, reporter, tty: bool):
        """Lines through the terminal reporter; while a test runs, with pytest's capture set
        aside for the moment of the write, as pytest's own live logging does."""
        capture = self.config.pluginmanager.get_plugin("capturemanager")

        def write(line: str, final: bool) -> None:
            with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
                reporter.ensure_newline()
                if tty and not final:
                    reporter.rewrite(line)
                else:
                    reporter.write_line(line)
        return write

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        if self.progress is not None:
            self.progress.item_over(self.planned.get(nodeid, 0))

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.progress is not None:
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
