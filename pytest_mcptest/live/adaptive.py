"""Rates that adapt to what the provider says of its window: every answer's rate-limit headers.

Each answer of both APIs says how much of the current window is left and when it starts
again; a 429 says when to come back. :class:`Pacer` (one per endpoint in a process) reads
them from every HTTP response the SDK receives (its retries included) and, when the window
is nearly spent, holds the endpoint's next requests until it resets: fewer 429s, and the
requests that would have been refused are not sent, retried and billed against the
campaign's retries. A provider's limits hold for its key, on every machine: with a campaign
ledger the pause is put in it, and every process sharing the ledger waits too. Headers read:

- OpenAI: ``x-ratelimit-remaining-requests`` / ``-tokens`` with ``x-ratelimit-limit-*`` and
  ``x-ratelimit-reset-requests`` / ``-tokens`` (a duration: ``1s``, ``6m0s``, ``20ms``);
- Anthropic: ``anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-remaining``,
  ``-limit`` and ``-reset`` (an RFC 3339 time);
- both: ``retry-after`` (seconds or an HTTP date) and ``retry-after-ms`` on a 429 or 503.

"Nearly spent": at most :data:`LOW` of the window's limit left (and at least one request or
no tokens left when the limit is not said).
"""

from __future__ import annotations

import re
import threading
import time
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Mapping, Optional

LOW = 0.05               # the share of a window's limit below which the endpoint waits for its reset
MAX_PAUSE = 120.0        # seconds: a header asking for longer is taken as this (a clock skew, a typo)
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_KINDS = ("requests", "tokens", "input-tokens", "output-tokens")


def duration_seconds(text: str) -> Optional[float]:
    """OpenAI's reset durations (``1s``, ``6m0s``, ``1h2m3.5s``, ``20ms``) in seconds."""
    text = text.strip()
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        try:
            return float(text)
        except ValueError:
            return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(n) * scale[u] for n, u in parts)


def _until(text: str, now: float) -> Optional[float]:
    """Seconds from ``now`` to an RFC 3339 or HTTP date, or a duration read as OpenAI writes it."""
    text = text.strip()
    for parse in (lambda t: datetime.fromisoformat(t.replace("Z", "+00:00")), parsedate_to_datetime):
        try:
            when = parse(text)
        except (TypeError, ValueError):
            continue
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return when.timestamp() - now
    return duration_seconds(text)


def pause_for(headers: Mapping[str, str], status: int, now: Optional[float] = None) -> float:
    """How long (seconds, 0 for not at all) the endpoint should wait after a response with
    these ``headers`` and ``status``."""
    now = time.time() if now is None else now
    h = {k.lower(): v for k, v in headers.items()}
    wait = 0.0
    if status in (429, 503):
        if "retry-after-ms" in h:
            wait = max(wait, (duration_seconds(h["retry-after-ms"]) or 0.0) / 1000)
        elif "retry-after" in h:
            wait = max(wait, _until(h["retry-after"], now) or 0.0)
    for kind in ("requests", "tokens"):  # OpenAI
        spent = _nearly_spent(h.get(f"x-ratelimit-remaining-{kind}"), h.get(f"x-ratelimit-limit-{kind}"), kind)
        reset = h.get(f"x-ratelimit-reset-{kind}")
        if spent and reset:
            wait = max(wait, duration_seconds(reset) or 0.0)
    for kind in _KINDS:  # Anthropic
        spent = _nearly_spent(h.get(f"anthropic-ratelimit-{kind}-remaining"),
                              h.get(f"anthropic-ratelimit-{kind}-limit"), kind)
        reset = h.get(f"anthropic-ratelimit-{kind}-reset")
        if spent and reset:
            wait = max(wait, _until(reset, now) or 0.0)
    return min(max(wait, 0.0), MAX_PAUSE)


def _nearly_spent(remaining: Optional[str], limit: Optional[str], kind: str) -> bool:
    try:
        left = float(remaining) if remaining is not None else None
    except ValueError:
        return False
    if left is None:
        return False
    try:
        whole = float(limit) if limit is not None else None
    except ValueError:
        whole = None
    if whole:
        return left <= max(LOW * whole, 1.0 if kind == "requests" else 0.0)
    return left <= (1 if kind == "requests" else 0)


class Pacer:
    """One endpoint's pause: set by the responses, waited on by the requests. With a campaign
    ledger (``--mcptest-shared-limits``) the pause is put in the ledger too, so every process
    and machine of the campaign holds its requests, not only the one that read the headers."""

    def __init__(self, endpoint: str = ""):
        self.endpoint = endpoint
        self._lock = threading.Lock()
        self.until = 0.0       # time.monotonic() before which no request is sent
        self.paused = 0        # how many times a response asked for a pause
        self.waited = 0.0      # seconds requests spent waiting

    def observe(self, headers: Mapping[str, str], status: int) -> None:
        wait = pause_for(headers, status)
        if wait > 0:
            with self._lock:
                self.until = max(self.until, time.monotonic() + wait)
                self.paused += 1
            shared = _campaign()
            if shared is not None:
                shared.pause(self.endpoint, wait)

    async def wait(self) -> None:
        import anyio

        shared = _campaign()
        if shared is not None:  # another process or machine may have read the headers
            left = shared.paused_for(self.endpoint)
            if left > 0:
                with self._lock:
                    self.until = max(self.until, time.monotonic() + left)
        left = self.until - time.monotonic()
        while left > 0:
            await anyio.sleep(left)
            self.waited += left
            left = self.until - time.monotonic()


_SHARED = None  # the campaign ledger (live/campaign.py) this process's pauses go to, when there is one


def share(ledger) -> None:
    """Put this process's pauses in ``ledger`` (a ``Campaign``), and heed those of others; None: not."""
    global _SHARED
    _SHARED = ledger


def _campaign():
    return _SHARED


_PACERS: dict[str, Pacer] = {}
_LOCK = threading.Lock()


def pacer_for(endpoint: str) -> Pacer:
    """The one :class:`Pacer` of ``endpoint`` (provider and base URL) in this process."""
    with _LOCK:
        if endpoint not in _PACERS:
            _PACERS[endpoint] = Pacer(endpoint)
        return _PACERS[endpoint]
