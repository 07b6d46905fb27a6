"""``--mcptest-shard I/N`` (ini ``mcptest_shard``): keep this machine's share of the collected
items (``live/shard.py`` splits them) and deselect the rest, as ``-k`` does, so the terminal
says how many were deselected and N CI jobs together run every item once."""

from __future__ import annotations

from typing import Optional

import pytest

from ..errors import InputError
from ..gates.sources import cassette_path
from ..live.shard import assign, recorded_seconds
from .stash import CONTEXT_KEY


class ShardPlugin:
    """Registered when a shard is asked for: deselects the other shards' items."""

    def __init__(self, index: int, count: int):
        self.index, self.count = index, count

    @pytest.hookimpl(trylast=True)  # after -k and -m: the share is of what is left
    def pytest_collection_modifyitems(self, session, config, items) -> None:
        ctx = config.stash[CONTEXT_KEY]
        shares = assign([(item.nodeid, _seconds(item, ctx)) for item in items], self.count)
        kept = [item for item, share in zip(items, shares) if share == self.index - 1]
        dropped = [item for item, share in zip(items, shares) if share != self.index - 1]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    def pytest_report_header(self, config) -> str:
        return f"mcptest shard {self.index}/{self.count}"


def _seconds(item, ctx) -> Optional[float]:
    """How long the item's last live recording took, when its cassette says so."""
    block = getattr(item, "block", None)
    if block is None or not (getattr(block, "cassette", None) or getattr(block, "cassette_slug", None)):
        return None
    from ..formats.cassette import load_cassette

    try:
        return recorded_seconds(load_cassette(cassette_path(block, ctx)).meta)
    except (OSError, ValueError, InputError):  # no cassette yet, or a bad one: its item says so when it runs
        return None
