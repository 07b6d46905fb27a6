"""``--mcptest-shard I/N``: a deterministic, balanced share of the items for one of N machines.

Every machine collects the same items and works out the same split, so the N shards hold each
item exactly once, whatever order or machine. The split balances the time the shards will
take: an item whose cassette says how long its last recording took (``meta.duration_s``) weighs
that many seconds; an item without one weighs the median of those that have one (1 when none
has), so a first campaign with no figures splits by count. Items go, heaviest first, each to
the shard with the least weight so far (the longest-processing-time rule: no shard ends more
than a third over the best split); equal weights are ordered by a hash of the item's id, which
spreads the items of one suite file over the shards instead of giving each shard a block.
"""

from __future__ import annotations

import hashlib
import statistics
from typing import Any, Optional, Sequence

DURATION_KEY = "duration_s"  # cassette meta: seconds the last live recording of the item took


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/5"`` as ``(2, 5)``; a ``ValueError`` says what is wrong."""
    index, slash, count = str(text).strip().partition("/")
    if not slash or not index.isdigit() or not count.isdigit():
        raise ValueError(f"expected I/N (this machine's share, 1 to N, of N), found {text!r}")
    i, n = int(index), int(count)
    if n < 1 or not 1 <= i <= n:
        raise ValueError(f"expected I/N with 1 <= I <= N, found {text!r}")
    return i, n


def recorded_seconds(meta: Any) -> Optional[float]:
    """How long the item's last recording took, from its cassette's ``meta`` (None: not said)."""
    value = meta.get(DURATION_KEY) if isinstance(meta, dict) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


def assign(items: Sequence[tuple[str, Optional[float]]], count: int) -> list[int]:
    """The shard (0 to ``count`` - 1) of each ``(id, seconds or None)``, in the items' order."""
    known = [w for _, w in items if w is not None]
    default = statistics.median(known) if known else 1.0
    order = sorted(range(len(items)), key=lambda k: (-(items[k][1] if items[k][1] is not None else default),
                                                     hashlib.sha256(items[k][0].encode()).hexdigest(), items[k][0]))
    load = [0.0] * count
    out = [0] * len(items)
    for k in order:
        target = min(range(count), key=lambda s: (load[s], s))
        out[k] = target
        load[target] += items[k][1] if items[k][1] is not None else default
    return out
