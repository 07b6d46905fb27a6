"""Staying inside a provider's limits and a user's budget.

:class:`RateLimiter` holds requests and tokens per minute over a sliding 60-second
window. It is shared by every run and every item that talk to the same endpoint in this
process (:func:`limiter_for`), across threads and event loops: its state sits behind a
plain lock and waiting is an ``anyio.sleep``. :class:`SharedRateLimiter` holds the same
window in a file under ``flock``, so the limit holds across pytest-xdist workers. Token counts are only known once a reply
is in, so the token limit admits a request while the window's tokens are under the
limit and counts the reply's tokens when they arrive.

:class:`Budget` is the per-item ceiling (``item_max_tokens``, ``item_max_cost_usd``):
checked before every request of every run of the item, so an item stops spending as
soon as it has spent what it was given.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator, Optional

from ..engine.trace import Tokens
from .provider import LiveError

WINDOW = 60.0


class RateLimiter:
    """Requests and tokens per minute; ``None`` limits nothing. State lives in this process."""

    def __init__(self, requests_per_minute: Optional[int] = None, tokens_per_minute: Optional[int] = None,
                 clock: Callable[[], float] = time.monotonic):
        self.rpm = requests_per_minute
        self.tpm = tokens_per_minute
        self._clock = clock
        self._lock = threading.Lock()
        self._state: tuple[list, list] = ([], [])  # request times, [time, tokens] pairs

    @contextmanager
    def _held(self) -> Iterator[tuple[list, list]]:
        """The state, held exclusively for one decision."""
        with self._lock:
            yield self._state

    def try_acquire(self) -> float:
        """Take a request slot now and return 0, or return the seconds to wait first."""
        with self._held() as (requests, tokens):
            now = self._clock()
            requests[:] = [t for t in requests if t > now - WINDOW]
            tokens[:] = [pair for pair in tokens if pair[0] > now - WINDOW]
            wait = 0.0
            if self.rpm is not None and len(requests) >= self.rpm:
                wait = requests[len(requests) - self.rpm] + WINDOW - now
            if self.tpm is not None:
                total = sum(n for _, n in tokens)
                for stamp, n in tokens:
                    if total < self.tpm:
                        break
                    total -= n
                    wait = max(wait, stamp + WINDOW - now)
            if wait > 0:
                return wait
            requests.append(now)
            return 0.0

    async def acquire(self) -> None:
        import anyio

        while True:
            wait = self.try_acquire()
            if wait <= 0:
                return
            await anyio.sleep(wait)

    def spent(self, tokens: int) -> None:
        if self.tpm is not None and tokens:
            with self._held() as (_, pairs):
                pairs.append([self._clock(), tokens])


class SharedRateLimiter(RateLimiter):
    """The same limits held across processes (pytest-xdist workers): the window lives in
    a small JSON file, read and rewritten under an exclusive ``flock`` for each decision,
    with wall-clock times every process agrees on."""

    def __init__(self, path: str, requests_per_minute: Optional[int] = None,
                 tokens_per_minute: Optional[int] = None, clock: Callable[[], float] = time.time):
        super().__init__(requests_per_minute, tokens_per_minute, clock)
        self.path = path

    @contextmanager
    def _held(self) -> Iterator[tuple[list, list]]:
        import fcntl

        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        with self._lock, os.fdopen(os.open(self.path, flags, 0o600), "r+", encoding="utf-8") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            fh.seek(0)
            try:
                data = json.loads(fh.read() or "{}")
                state = (list(data.get("requests", [])), [list(p) for p in data.get("tokens", [])])
            except (ValueError, TypeError, AttributeError):  # a torn or foreign file: start afresh
                state = ([], [])
            yield state
            fh.seek(0)
            fh.truncate()
            json.dump({"requests": state[0], "tokens": state[1]}, fh)
            fh.flush()


_LIMITERS: dict[tuple, RateLimiter] = {}
_LIMITERS_LOCK = threading.Lock()


def limiter_for(endpoint: str, requests_per_minute: Optional[int], tokens_per_minute: Optional[int],
                shared_dir: Optional[str] = None) -> RateLimiter:
    """The limiter of one endpoint (provider and base URL) at these limits: one per
    process, or, with ``shared_dir`` (a folder every pytest-xdist worker sees), one per
    machine, kept in ``shared_dir``. Without ``fcntl`` (Windows) it stays per process."""
    if shared_dir is not None and (requests_per_minute or tokens_per_minute):
        try:
            import fcntl  # noqa: F401
        except ImportError:
            shared_dir = None
        else:
            shared_dir = private_folder(shared_dir)
    key = (endpoint, requests_per_minute, tokens_per_minute, shared_dir)
    with _LIMITERS_LOCK:
        limiter = _LIMITERS.get(key)
        if limiter is None:
            if shared_dir is not None and (requests_per_minute or tokens_per_minute):
                digest = hashlib.sha256(repr(key[:3]).encode()).hexdigest()[:16]
                path = os.path.join(shared_dir, f"mcptest-rate-{digest}.json")
                limiter = SharedRateLimiter(path, requests_per_minute, tokens_per_minute)
            else:
                limiter = RateLimiter(requests_per_minute, tokens_per_minute)
            _LIMITERS[key] = limiter
        return limiter


def private_folder(path: str) -> Optional[str]:
    """``path`` as a folder only this user can enter, made if missing (the rate folder sits
    in a shared temporary folder under a name anyone can guess), or None when what stands
    there is not one: a link, a file, another user's folder, or one others may write. The
    limits then hold per process, and nobody else's file is read or written."""
    import stat

    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        return None
    return path


class Budget:
    """What one item may spend over all its runs, and what it has spent."""

    def __init__(self, max_tokens: Optional[int] = None, max_cost_micros: Optional[int] = None):
        self.max_tokens = max_tokens
        self.max_cost_micros = max_cost_micros
        self.tokens = 0
        self.cost_micros = 0

    def check(self, who: str) -> None:
        """Raise :class:`LiveError` when the item has already spent its budget."""
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            raise LiveError(f"{who}: the item's budget of {self.max_tokens} tokens is spent "
                            f"({self.tokens} tokens used); raise item_max_tokens to record more")
        if self.max_cost_micros is not None and self.cost_micros >= self.max_cost_micros:
            raise LiveError(f"{who}: the item's budget of ${self.max_cost_micros / 1e6:.4f} is spent "
                            f"(${self.cost_micros / 1e6:.4f} used); raise item_max_cost_usd to record more")

    def add(self, tokens: Optional[Tokens], cost: Optional[int]) -> None:
        if tokens is not None:
            self.tokens += tokens.total
        if cost is not None:
            self.cost_micros += cost
