"""Progress of a live recording campaign: episodes done of the total, spend against the
budget, and the time left.

:class:`Progress` counts; it is told the episodes planned (the plugin works them out at
collection from what each item's record mode will record), each episode as it finishes
(:func:`tick`, from the runner) and, when an item is over, what it really recorded, so a
skipped or failed item takes its episodes out of the total. What it shows goes through
``write(line, final)``: the plugin hands it pytest's terminal reporter, one line rewritten in
place in a terminal (tqdm's meter: bar, rate, time left), plain lines in a CI log (at most
every :data:`PLAIN_EVERY` seconds, at each tenth of the total, and the last one).
"""

from __future__ import annotations

import time
from typing import Callable, Optional

PLAIN_EVERY = 30.0  # seconds between two plain lines, at most


def clock(seconds: float) -> str:
    """``[H:]MM:SS``, as tqdm writes times."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return (f"{hours}:" if hours else "") + f"{rest // 60:02d}:{rest % 60:02d}"


class Progress:
    """Episodes done of ``total``; ``spend()`` says the spend against the budget (or None)."""

    def __init__(self, total: int, write: Callable[[str, bool], None], live: bool,
                 spend: Optional[Callable[[], Optional[str]]] = None, now: Callable[[], float] = time.monotonic,
                 width: int = 100):
        self.total, self.done, self.item_done = total, 0, 0
        self.not_recorded = 0  # planned episodes whose items ended without them (budget, failure)
        self.write, self.live, self.spend, self.now, self.width = write, live, spend, now, width
        self.started = now()
        self.last_plain: Optional[float] = None
        self.last_tenth = -1

    def tick(self, episodes: int = 1) -> None:
        """``episodes`` finished (recorded, or found in a journal)."""
        self.done += episodes
        self.item_done += episodes
        self.total = max(self.total, self.done)
        self.show()

    def item_over(self, planned: int) -> None:
        """An item is over: what it recorded replaces the ``planned`` episodes in the total."""
        self.total = max(self.done, self.total + self.item_done - planned)
        self.not_recorded += max(0, planned - self.item_done)
        self.item_done = 0

    def line(self) -> str:
        """The progress as one line of text."""
        elapsed = self.now() - self.started
        spent = self.spend() if self.spend is not None else None
        if self.not_recorded:  # "0/0 episodes" alone would hide that the budget stopped them all
            spent = ", ".join(filter(None, [f"{self.not_recorded} not recorded", spent and f"spent {spent}"]))
        elif spent:
            spent = f"spent {spent}"
        if self.live:
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                return tqdm.format_meter(self.done, max(self.total, 1), elapsed, ncols=self.width, unit="episode",
                                         prefix="mcptest recording", postfix=spent)
        share = f" ({100 * self.done // self.total}%)" if self.total else ""
        left = ""
        if 0 < self.done < self.total:
            left = f", about {clock(elapsed / self.done * (self.total - self.done))} left"
        return (f"mcptest recording: {self.done}/{self.total} episodes{share}, {clock(elapsed)} elapsed{left}"
                + (f", {spent}" if spent else ""))

    def show(self, final: bool = False) -> None:
        if not self.live and not final:
            tenth = 10 * self.done // self.total if self.total else 0
            now = self.now()
            if tenth == self.last_tenth and self.last_plain is not None and now - self.last_plain < PLAIN_EVERY \
                    and self.done < self.total:
                return
            self.last_plain, self.last_tenth = now, tenth
        self.write(self.line(), final)


_ACTIVE: Optional[Progress] = None


def activate(progress: Optional[Progress]) -> None:
    """Make ``progress`` the one this process's live runs report to (None: none)."""
    global _ACTIVE
    _ACTIVE = progress


def tick(episodes: int = 1) -> None:
    """``episodes`` finished, if anyone is counting."""
    if _ACTIVE is not None and episodes:
        _ACTIVE.tick(episodes)
