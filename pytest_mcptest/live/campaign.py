"""The campaign ledger: one budget and one rate limit shared by every process of a recording.

``--mcptest-shared-limits URL`` names a store every process (pytest-xdist workers, other
pytest runs, other machines) opens: ``sqlite:///PATH`` for the processes of one machine,
``redis://HOST:PORT/DB`` for many. It holds two things:

- **the per-minute limits** of each endpoint (``requests_per_minute``, ``tokens_per_minute``
  of the ``models:`` block), through pyrate-limiter's SQLite and Redis buckets (a kept
  library, in place of the lock-file window of :mod:`.limits`);
- **the campaign budget** (``--mcptest-budget-usd``, ``--mcptest-budget-tokens``): before each
  model request its worst case is reserved, and after it the reservation is settled with what
  the reply really used, each step one transaction in the store (SQLite ``BEGIN IMMEDIATE``,
  a Redis Lua script). A request whose worst case would take spent + reserved past the budget
  is refused (:class:`BudgetSpent`): the episode stops, its item is skipped, and nothing of it
  is written, so a later run with a larger budget records exactly the items skipped.

Every reservation names its holder (``host:pid``) and when it was made. A process killed
with requests in flight (``kill -9``, a CI job cancelled) leaves them reserved; the next
process that opens the ledger takes back each reservation whose holder is a process of its
own machine that no longer runs, or that is older than the lease (:data:`LEASE_SECONDS`:
longer than any request with its retries), and counts its worst case as spent: the provider
may have billed it, and the budget must not be passed on a guess that it did not.

The worst case of one request: its input is at most one token per UTF-8 byte of what is sent
(system prompt, transcript, tools; a tokenizer's token is at least one byte) plus a margin for
the provider's framing, and its output at most ``max_tokens`` (4096 when the suite sets none:
set ``max_tokens`` to make the bound hold for a model that may answer longer). Its cost is that
at the model's price; a budget in dollars needs a known price.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import socket
import threading
import time
import uuid
from typing import Any, Optional
from urllib.parse import urlsplit

import attrs

from ..engine.trace import Tokens
from .provider import LiveError

OUTPUT_BOUND = 4096        # output tokens assumed for a reply when max_tokens is unset
FRAMING_TOKENS = 64        # per request: the provider's own framing around the messages
MESSAGE_TOKENS = 8         # per message: its role and separators
NEEDS = "pip install 'mcptest[campaign]'"
LEASE_SECONDS = 1800       # a reservation older than this is taken back, whoever holds it


def holder() -> str:
    """This process, as a reservation names its holder."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _gone(who: str, age: float, lease: float) -> bool:
    """Whether the reservation of ``who``, ``age`` seconds old, is to be taken back: its
    lease is over, or its holder was a process of this machine that no longer runs."""
    if age > lease:
        return True
    host, _, pid = who.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # it runs, as another user
        return False
    return False


class BudgetSpent(LiveError):
    """A request's worst case would pass the campaign budget: it is not sent."""


@attrs.frozen
class Totals:
    """What the ledger holds: spent and reserved (in flight), in micro-dollars and tokens,
    how many requests were settled, how many were refused, and how many reservations were
    taken back from a process that died holding them."""

    spent_micros: int = 0
    spent_tokens: int = 0
    reserved_micros: int = 0
    reserved_tokens: int = 0
    requests: int = 0
    refused: int = 0
    reclaimed: int = 0  # reservations of a process that died (or outlived its lease), counted as spent


FIELDS = tuple(f.name for f in attrs.fields(Totals))


def parse_url(url: str) -> tuple[str, str]:
    """``(kind, where)`` of a ledger URL: ``("sqlite", path)`` or ``("redis", url)``; a
    ``ValueError`` says what is wrong."""
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        path = url[len("sqlite:///"):] if url.startswith("sqlite:///") else ""
        if not path or parts.netloc:
            raise ValueError(f"expected sqlite:///PATH (a file every process of this machine can open), found {url!r}")
        return "sqlite", os.path.abspath(path)
    if parts.scheme in ("redis", "rediss"):
        if not parts.hostname:
            raise ValueError(f"expected redis://HOST:PORT/DB, found {url!r}")
        return "redis", url
    raise ValueError(f"expected sqlite:///PATH or redis://HOST:PORT/DB, found {url!r}")


def worst_case(system: Optional[str], turns: list, tools: list, max_tokens: Optional[int]) -> Tokens:
    """The most one request can use: its input at one token per byte sent plus framing,
    its output at ``max_tokens`` (:data:`OUTPUT_BOUND` when unset)."""
    sent = json.dumps([system, turns, tools], ensure_ascii=False, default=str).encode()
    return Tokens.of(len(sent) + FRAMING_TOKENS + MESSAGE_TOKENS * (len(turns) + 1), max_tokens or OUTPUT_BOUND)


# --------------------------------------------------------------------------- the stores


class SqliteStore:
    """The ledger in one SQLite file (WAL, every change one ``BEGIN IMMEDIATE`` transaction)."""

    def __init__(self, path: str):
        import sqlite3

        self.path = path
        self.where = f"sqlite:///{path}"
        self._local = threading.local()
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        db = self._db()
        with _immediate(db):
            db.execute("CREATE TABLE IF NOT EXISTS mcptest_totals (name TEXT PRIMARY KEY, value INTEGER NOT NULL)")
            db.execute("CREATE TABLE IF NOT EXISTS mcptest_pauses (endpoint TEXT PRIMARY KEY, until REAL NOT NULL)")
            db.execute("CREATE TABLE IF NOT EXISTS mcptest_reservations (id TEXT PRIMARY KEY, micros INTEGER, "
                       "tokens INTEGER, holder TEXT, at REAL DEFAULT (julianday('now')))")
            db.executemany("INSERT OR IGNORE INTO mcptest_totals VALUES (?, 0)", [(f,) for f in FIELDS])
        self._sqlite3 = sqlite3

    def _db(self):
        db = getattr(self._local, "db", None)
        if db is None:
            import sqlite3

            db = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            # A commit reaches the WAL file, not the disk: a process killed loses nothing; only
            # a power cut may lose the last commits. The full sync cost 9 ms a request.
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
        return db

    def reserve(self, micros: int, tokens: int, max_micros: Optional[int], max_tokens: Optional[int]) -> Optional[str]:
        db = self._db()
        with _immediate(db):
            t = dict(db.execute("SELECT name, value FROM mcptest_totals"))
            if ((max_micros is not None and t["spent_micros"] + t["reserved_micros"] + micros > max_micros)
                    or (max_tokens is not None and t["spent_tokens"] + t["reserved_tokens"] + tokens > max_tokens)):
                db.execute("UPDATE mcptest_totals SET value = value + 1 WHERE name = 'refused'")
                return None
            hold = uuid.uuid4().hex
            db.execute("INSERT INTO mcptest_reservations (id, micros, tokens, holder, at) VALUES (?, ?, ?, ?, ?)",
                       (hold, micros, tokens, holder(), time.time()))
            db.execute("UPDATE mcptest_totals SET value = value + ? WHERE name = 'reserved_micros'", (micros,))
            db.execute("UPDATE mcptest_totals SET value = value + ? WHERE name = 'reserved_tokens'", (tokens,))
            return hold

    def settle(self, hold: str, micros: int, tokens: int) -> None:
        db = self._db()
        with _immediate(db):
            row = db.execute("SELECT micros, tokens FROM mcptest_reservations WHERE id = ?", (hold,)).fetchone()
            if row is None:
                return
            db.execute("DELETE FROM mcptest_reservations WHERE id = ?", (hold,))
            for name, delta in (("reserved_micros", -row[0]), ("reserved_tokens", -row[1]), ("spent_micros", micros),
                                ("spent_tokens", tokens), ("requests", 1)):
                db.execute("UPDATE mcptest_totals SET value = value + ? WHERE name = ?", (delta, name))

    def totals(self) -> Totals:
        return Totals(**{k: v for k, v in self._db().execute("SELECT name, value FROM mcptest_totals") if k in FIELDS})

    def reclaim(self, lease: float) -> int:
        """Take back the reservations of dead holders (see the module docstring), their worst
        case counted as spent; how many."""
        db = self._db()
        with _immediate(db):
            rows = db.execute("SELECT id, micros, tokens, holder, at FROM mcptest_reservations").fetchall()
            now = time.time()
            gone = [r for r in rows if _gone(r[3] or "", now - (r[4] if (r[4] or 0) > 1e8 else 0), lease)]
            for hold, micros, tokens, _, _ in gone:
                db.execute("DELETE FROM mcptest_reservations WHERE id = ?", (hold,))
                for name, delta in (("reserved_micros", -micros), ("reserved_tokens", -tokens),
                                    ("spent_micros", micros), ("spent_tokens", tokens), ("reclaimed", 1)):
                    db.execute("UPDATE mcptest_totals SET value = value + ? WHERE name = ?", (delta, name))
        return len(gone)

    def pause(self, endpoint: str, until: float) -> None:
        """No request to ``endpoint`` before ``until`` (epoch seconds), for every process."""
        db = self._db()
        with _immediate(db):
            db.execute("INSERT INTO mcptest_pauses VALUES (?, ?) ON CONFLICT(endpoint) DO UPDATE SET "
                       "until = max(until, excluded.until)", (endpoint, until))

    def paused_until(self, endpoint: str) -> float:
        row = self._db().execute("SELECT until FROM mcptest_pauses WHERE endpoint = ?", (endpoint,)).fetchone()
        return row[0] if row else 0.0

    def bucket(self, key: str, rates: list) -> Any:
        from pyrate_limiter import SQLiteBucket

        return SQLiteBucket.init_from_file(rates, table=f"mcptest_rate_{key}", db_path=self.path, use_file_lock=True)


class _immediate:
    """One write transaction: ``BEGIN IMMEDIATE`` (the write lock first, so two processes never
    both read the totals and then both add), committed on success, rolled back on error."""

    def __init__(self, db):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, kind, *_):
        self.db.execute("ROLLBACK" if kind else "COMMIT")


_RESERVE = """
local t = redis.call('HMGET', KEYS[1], 'spent_micros', 'reserved_micros', 'spent_tokens', 'reserved_tokens')
local micros, tokens = tonumber(ARGV[1]), tonumber(ARGV[2])
local max_micros, max_tokens = tonumber(ARGV[3]), tonumber(ARGV[4])
if (max_micros >= 0 and (tonumber(t[1] or 0) + tonumber(t[2] or 0) + micros) > max_micros)
   or (max_tokens >= 0 and (tonumber(t[3] or 0) + tonumber(t[4] or 0) + tokens) > max_tokens) then
  redis.call('HINCRBY', KEYS[1], 'refused', 1)
  return 0
end
redis.call('HINCRBY', KEYS[1], 'reserved_micros', micros)
redis.call('HINCRBY', KEYS[1], 'reserved_tokens', tokens)
redis.call('HSET', KEYS[2], ARGV[5], micros .. ' ' .. tokens .. ' ' .. ARGV[6] .. ' ' .. ARGV[7])
return 1
"""

# Both take a reservation out of the store first (none left: 0), then count it one way or the other.
_RELEASE = """
local held = redis.call('HGET', KEYS[2], ARGV[1])
if not held then return 0 end
local micros, tokens = string.match(held, '^(%d+) (%d+)')
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'reserved_micros', 0 - tonumber(micros))  -- not -x: -0 reads '-0', no integer
redis.call('HINCRBY', KEYS[1], 'reserved_tokens', 0 - tonumber(tokens))
"""

_SETTLE = _RELEASE + """
redis.call('HINCRBY', KEYS[1], 'spent_micros', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'spent_tokens', ARGV[3])
redis.call('HINCRBY', KEYS[1], 'requests', 1)
return 1
"""

_RECLAIM = _RELEASE + """
redis.call('HINCRBY', KEYS[1], 'spent_micros', tonumber(micros))
redis.call('HINCRBY', KEYS[1], 'spent_tokens', tonumber(tokens))
redis.call('HINCRBY', KEYS[1], 'reclaimed', 1)
return 1
"""


_PAUSE = """
local now = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > now then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) end
return 1
"""


class RedisStore:
    """The ledger in Redis: a hash of totals and a hash of open reservations, each change one
    Lua script (atomic on the server)."""

    TOTALS, HOLDS = "mcptest:campaign:totals", "mcptest:campaign:reservations"

    def __init__(self, url: str):
        try:
            import redis
        except ImportError:
            raise LiveError(f"a redis:// ledger needs the redis client: {NEEDS}") from None
        self.where = url
        self.url = url
        self.redis = redis.Redis.from_url(url, socket_timeout=30)
        try:
            self.redis.ping()
        except redis.RedisError as exc:
            raise LiveError(f"cannot reach the ledger {url}: {exc}") from None
        self._reserve = self.redis.register_script(_RESERVE)
        self._settle = self.redis.register_script(_SETTLE)
        self._reclaim = self.redis.register_script(_RECLAIM)
        self._pause = self.redis.register_script(_PAUSE)

    def reserve(self, micros: int, tokens: int, max_micros: Optional[int], max_tokens: Optional[int]) -> Optional[str]:
        hold = uuid.uuid4().hex
        args = [micros, tokens, -1 if max_micros is None else max_micros, -1 if max_tokens is None else max_tokens, hold,
                holder(), f"{time.time():.3f}"]
        return hold if self._reserve(keys=[self.TOTALS, self.HOLDS], args=args) else None

    def settle(self, hold: str, micros: int, tokens: int) -> None:
        self._settle(keys=[self.TOTALS, self.HOLDS], args=[hold, micros, tokens])

    def totals(self) -> Totals:
        raw = self.redis.hgetall(self.TOTALS)
        return Totals(**{k.decode(): int(v) for k, v in raw.items() if k.decode() in FIELDS})

    def reclaim(self, lease: float) -> int:
        """As :meth:`SqliteStore.reclaim`: each dead holder's reservation moved to spent, one
        script each (a reservation settled meanwhile is left alone)."""
        now, taken = time.time(), 0
        for hold, value in self.redis.hgetall(self.HOLDS).items():
            parts = value.decode().split(" ")
            who, at = (parts[2], float(parts[3])) if len(parts) == 4 else ("", 0.0)
            if _gone(who, now - at, lease):
                taken += int(self._reclaim(keys=[self.TOTALS, self.HOLDS], args=[hold]))
        return taken

    def pause(self, endpoint: str, until: float) -> None:
        """As :meth:`SqliteStore.pause`: the later of the two times kept, in one script."""
        self._pause(keys=[f"mcptest:pause:{endpoint}"], args=[f"{until:.3f}", max(1, int(until - time.time()) + 60)])

    def paused_until(self, endpoint: str) -> float:
        value = self.redis.get(f"mcptest:pause:{endpoint}")
        return float(value) if value else 0.0

    def bucket(self, key: str, rates: list) -> Any:
        import redis
        from pyrate_limiter import RedisBucket

        return RedisBucket.init(rates, redis.Redis.from_url(self.url), f"mcptest:rate:{key}")


def open_store(url: str):
    kind, where = parse_url(url)
    try:
        import pyrate_limiter  # noqa: F401
    except ImportError:
        raise LiveError(f"--mcptest-shared-limits needs pyrate-limiter: {NEEDS}") from None
    return SqliteStore(where) if kind == "sqlite" else RedisStore(where)


# --------------------------------------------------------------------------- the campaign


class Campaign:
    """This process's view of the shared ledger: the budget it holds every request to, and
    what this process spent and was refused."""

    def __init__(self, url: str, max_micros: Optional[int] = None, max_tokens: Optional[int] = None,
                 lease: float = LEASE_SECONDS):
        parse_url(url)
        self.url = url
        self.lease = lease
        self.max_micros = max_micros
        self.max_tokens = max_tokens
        self._store = None
        self._lock = threading.RLock()
        self._limiters: dict = {}
        self.spent = Totals()

    @property
    def store(self):
        with self._lock:
            if self._store is None:
                try:
                    store = open_store(self.url)
                    store.reclaim(self.lease)  # what a dead process left reserved, counted as spent
                except LiveError:
                    raise
                except Exception as exc:  # noqa: BLE001 - a folder, a file, a server: said as the ledger's
                    raise LiveError(f"the campaign ledger {self.url} cannot be opened: {exc}") from exc
                self._store = store
            return self._store

    def reserve(self, who: str, worst: Tokens, price: Any) -> Optional[str]:
        """Reserve ``worst`` (at ``price``) in the ledger, or raise :class:`BudgetSpent`. None
        when there is no budget to hold (only the rate limits are shared)."""
        if self.max_micros is None and self.max_tokens is None:
            return None
        micros = 0
        if self.max_micros is not None:
            if price is None:
                raise LiveError(f"{who}: no price is known for this model, so the campaign budget in dollars "
                                f"cannot be held (set price: for it under models:)")
            from .pricing import cost_micros

            micros = cost_micros(worst, price)
        hold = self.store.reserve(micros, worst.total, self.max_micros, self.max_tokens)
        if hold is None:
            self._count(refused=1)
            raise BudgetSpent(self.refusal(who, micros, worst.total))
        return hold

    def settle(self, hold: Optional[str], worst: Optional[Tokens], tokens: Optional[Tokens], micros: Optional[int],
               price: Any = None) -> None:
        """Replace the reservation with what the reply used: nothing when the request failed
        (``worst`` None: an error answer is not billed), the worst case itself when the reply
        came without usage or without a known price."""
        if worst is not None and (tokens is None or (micros is None and self.max_micros is not None)):
            from .pricing import cost_micros

            tokens, micros = worst, (cost_micros(worst, price) if price is not None else None)
        used = tokens.total if tokens is not None else 0
        self._count(spent_micros=micros or 0, spent_tokens=used, requests=1)
        if hold is not None:
            self.store.settle(hold, micros or 0, used)

    def pause(self, endpoint: str, seconds: float) -> None:
        """The provider said ``endpoint``'s window is nearly spent: every process sharing the
        ledger holds its requests to it for ``seconds`` (``live/adaptive.py``)."""
        self.store.pause(_endpoint_key(endpoint), time.time() + seconds)

    def paused_for(self, endpoint: str) -> float:
        """Seconds left of a pause of ``endpoint`` that any process put in the ledger."""
        return max(0.0, self.store.paused_until(_endpoint_key(endpoint)) - time.time())

    def _count(self, **delta: int) -> None:
        with self._lock:
            self.spent = attrs.evolve(self.spent, **{k: getattr(self.spent, k) + v for k, v in delta.items()})

    def budget_text(self) -> str:
        parts = []
        if self.max_micros is not None:
            parts.append(f"${self.max_micros / 1e6:.4f}")
        if self.max_tokens is not None:
            parts.append(f"{self.max_tokens} tokens")
        return " and ".join(parts)

    def spend_text(self) -> str:
        """What the whole campaign spent, against its budget when it has one: ``$0.0123 of $1.0000``."""
        t = self.store.totals()
        parts = []
        if self.max_micros is not None or self.max_tokens is None:
            parts.append(f"${t.spent_micros / 1e6:.4f}" + (f" of ${self.max_micros / 1e6:.4f}"
                                                           if self.max_micros is not None else ""))
        if self.max_tokens is not None:
            parts.append(f"{t.spent_tokens} of {self.max_tokens} tokens")
        return ", ".join(parts)

    def refusal(self, who: str, micros: int, tokens: int) -> str:
        t = self.store.totals()
        need = f"${micros / 1e6:.4f}" if self.max_micros is not None else f"{tokens} tokens"
        return (f"{who}: not recorded: the campaign budget of {self.budget_text()} would be passed (spent "
                f"{_figures(t.spent_micros, t.spent_tokens)}, reserved {_figures(t.reserved_micros, t.reserved_tokens)}, "
                f"this request's worst case {need}); run again with a larger budget to record it")

    def summary_lines(self) -> list[str]:
        """The terminal summary: the ledger's totals and this process's share."""
        try:
            t = self.store.totals()
        except Exception as exc:  # noqa: BLE001 - the summary says the ledger could not be read, no traceback
            return [str(exc) if isinstance(exc, LiveError) else f"ledger {self.url}: cannot be read: {exc}"]
        budget = f" of {self.budget_text()}" if (self.max_micros is not None or self.max_tokens is not None) else ""
        lines = [f"ledger {self.url}: spent {_figures(t.spent_micros, t.spent_tokens)}{budget}, reserved "
                 f"{_figures(t.reserved_micros, t.reserved_tokens)}, {t.requests} request(s) settled, "
                 f"{t.refused} refused" + (f", {t.reclaimed} taken back from stopped processes"
                                            if t.reclaimed else "")]
        mine = self.spent
        if mine.requests or mine.refused:
            lines.append(f"this process: spent {_figures(mine.spent_micros, mine.spent_tokens)} in "
                         f"{mine.requests} request(s), {mine.refused} refused")
        return lines

    def limiter(self, endpoint: str, rpm: Optional[int], tpm: Optional[int]) -> "SharedLimiter":
        key = hashlib.sha256(repr((endpoint, rpm, tpm)).encode()).hexdigest()[:16]
        with self._lock:
            if key not in self._limiters:
                self._limiters[key] = SharedLimiter(self, key, rpm, tpm)
            return self._limiters[key]


def _endpoint_key(endpoint: str) -> str:
    return hashlib.sha256(endpoint.encode()).hexdigest()[:16]


def _figures(micros: int, tokens: int) -> str:
    return f"${micros / 1e6:.4f} ({tokens} tokens)"


class SharedLimiter:
    """One endpoint's requests and tokens per minute in the shared store, on pyrate-limiter
    buckets. A request waits (in a worker thread) for a slot of the request bucket; a reply's
    tokens are then put in the token bucket as they arrive, counted in units of a thousandth
    of the limit (rounded up: a bucket entry per unit, so a minute's window holds at most a
    thousand), waiting while the window is full."""

    def __init__(self, campaign: Campaign, key: str, rpm: Optional[int], tpm: Optional[int]):
        from pyrate_limiter import Duration, Limiter, Rate

        store = campaign.store
        self.requests = Limiter(store.bucket(f"{key}_req", [Rate(rpm, Duration.MINUTE)])) if rpm else None
        self.unit = max(1, math.ceil(tpm / 1000)) if tpm else 1
        self.units = math.ceil(tpm / self.unit) if tpm else 0
        self.tokens = Limiter(store.bucket(f"{key}_tok", [Rate(self.units, Duration.MINUTE)])) if tpm else None

    async def acquire(self) -> None:
        import anyio

        if self.requests is not None:
            await anyio.to_thread.run_sync(self.requests.try_acquire, "request", 1)

    async def record(self, tokens: int) -> None:
        """Put a reply's tokens in the window (waiting while it is full, so this run's next
        request comes no sooner than the limit allows)."""
        import anyio

        if self.tokens is not None and tokens:
            await anyio.to_thread.run_sync(self.tokens.try_acquire, "tokens", min(math.ceil(tokens / self.unit),
                                                                                  self.units))


_ACTIVE: Optional[Campaign] = None


def activate(campaign: Optional[Campaign]) -> None:
    """Make ``campaign`` the one every live model of this process reports to (None: none)."""
    global _ACTIVE
    _ACTIVE = campaign
    import pytest_mcptest.live.adaptive as adaptive

    adaptive.share(campaign)  # a provider's rate-limit pauses held by every process of the campaign


def active() -> Optional[Campaign]:
    return _ACTIVE


class SummaryPlugin:
    """The terminal summary's ``mcptest campaign`` section: what the ledger holds at the end
    of this process (spent, reserved, refused) and this process's share."""

    def __init__(self, campaign: Campaign):
        self.campaign = campaign

    def pytest_terminal_summary(self, terminalreporter) -> None:
        terminalreporter.write_sep("-", "mcptest campaign")
        for line in self.campaign.summary_lines():
            terminalreporter.write_line(line)
