"""Staying inside a provider's limits and a user's budget.

:class:`RateLimiter` holds requests and tokens per minute over a sliding 60-second
window. It is shared by every run and every item that talk to the same endpoint in this
process (:func:`limiter_for`), across threads and event loops: its state sits behind a
plain lock and waiting is an ``anyio.sleep``. Token counts are only known once a reply
is in, so the token limit admits a request while the window's tokens are under the
limit and counts the reply's tokens when they arrive.

:class:`Budget` is the per-item ceiling (``item_max_tokens``, ``item_max_cost_usd``):
checked before every request of every run of the item, so an item stops spending as
soon as it has spent what it was given.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Callable, Optional

from .provider import LiveError, Usage

WINDOW = 60.0


class RateLimiter:
    """Requests and tokens per minute; ``None`` limits nothing."""

    def __init__(self, requests_per_minute: Optional[int] = None, tokens_per_minute: Optional[int] = None,
                 clock: Callable[[], float] = time.monotonic):
        self.rpm = requests_per_minute
        self.tpm = tokens_per_minute
        self._clock = clock
        self._lock = threading.Lock()
        self._requests: deque[float] = deque()
        self._tokens: deque[tuple[float, int]] = deque()

    def try_acquire(self) -> float:
        """Take a request slot now and return 0, or return the seconds to wait first."""
        with self._lock:
            now = self._clock()
            while self._requests and self._requests[0] <= now - WINDOW:
                self._requests.popleft()
            while self._tokens and self._tokens[0][0] <= now - WINDOW:
                self._tokens.popleft()
            wait = 0.0
            if self.rpm is not None and len(self._requests) >= self.rpm:
                wait = self._requests[len(self._requests) - self.rpm] + WINDOW - now
            if self.tpm is not None:
                total = sum(n for _, n in self._tokens)
                for stamp, n in self._tokens:
                    if total < self.tpm:
                        break
                    total -= n
                    wait = max(wait, stamp + WINDOW - now)
            if wait > 0:
                return wait
            self._requests.append(now)
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
            with self._lock:
                self._tokens.append((self._clock(), tokens))


_LIMITERS: dict[tuple, RateLimiter] = {}
_LIMITERS_LOCK = threading.Lock()


def limiter_for(endpoint: str, requests_per_minute: Optional[int], tokens_per_minute: Optional[int]) -> RateLimiter:
    """The process-wide limiter of one endpoint (provider and base URL) at these limits."""
    key = (endpoint, requests_per_minute, tokens_per_minute)
    with _LIMITERS_LOCK:
        limiter = _LIMITERS.get(key)
        if limiter is None:
            limiter = _LIMITERS[key] = RateLimiter(requests_per_minute, tokens_per_minute)
        return limiter


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

    def add(self, usage: Optional[Usage], cost: Optional[int]) -> None:
        if usage is not None:
            self.tokens += usage.total
        if cost is not None:
            self.cost_micros += cost
