"""The campaign ledger (``--mcptest-shared-limits``, ``--mcptest-budget-usd``): several pytest
processes in separate folders (standing in for machines) record live against one loopback fake
model that counts every token it bills, sharing one SQLite ledger file or one real redis-server.
The budget is never passed across them, the items left unrecorded are skipped saying why, and a
second campaign with a larger budget records exactly those."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from decimal import ROUND_HALF_UP, Decimal

import pytest

from live_fake import MANIFEST, FakeProvider, forked_mock, live_env, tool_then_answer  # noqa: F401 - fixtures

from forkserver import forked
from redis_server import redis_url  # noqa: F401 - a fixture

from pytest_mcptest.live.campaign import Campaign, Totals

ITEMS = 4  # agent items per folder
PRICE = (Decimal("0.15"), Decimal("0.6"))  # gpt-4o-mini, USD per million tokens (the built-in table)


def _suite(folder: str) -> str:
    items = "".join(f"""\
  - name: weather {folder} {i}
    model: openai:gpt-4o-mini
    prompt: What is the weather in city {i}?
    servers: [shop]
    cassette: w{i}.json
""" for i in range(ITEMS))
    return forked_mock(f"""\
servers:
  shop: {{command: ["mcptest", "mock", "--tools-from", "shop.yml"]}}
models:
  openai: {{max_tokens: 64}}
agents:
{items}""")


class Billing:
    """The fake's side of the bill: every reply's tokens and its cost, rounded as the live tier rounds."""

    def __init__(self):
        self.lock = threading.Lock()
        self.tokens = self.micros = self.replies = 0
        self.script = tool_then_answer("get_weather", {"city": "Sacramento"})

    def __call__(self, seen):
        answer = self.script(seen)
        usage = answer.body["usage"]
        cost = Decimal(usage["prompt_tokens"]) * PRICE[0] + Decimal(usage["completion_tokens"]) * PRICE[1]
        with self.lock:
            self.tokens += usage["total_tokens"]
            self.micros += int(cost.quantize(Decimal(1), rounding=ROUND_HALF_UP))
            self.replies += 1
        return answer


def _folders(root, names) -> list:
    out = []
    for name in names:
        folder = root / name
        folder.mkdir()
        (folder / "shop.yml").write_text(MANIFEST)
        (folder / "s.mcptest.yml").write_text(_suite(name))
        out.append(folder)
    return out


def _campaign(folders, url: str, *budget: str) -> list[str]:
    """One pytest process per folder, all at once, sharing the ledger at ``url``; their outputs."""
    procs = [subprocess.Popen(forked([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", "-q",
                                      "--mcptest-record-mode=once", f"--mcptest-shared-limits={url}", *budget]),
                              cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for folder in folders]
    return [proc.communicate(timeout=300)[0] for proc in procs]


def _ledger(url: str) -> Totals:
    return Campaign(url).store.totals()


def _check_campaign(tmp_path, url: str, names: tuple, budget_micros: int, live_env) -> None:  # noqa: F811
    billing = Billing()
    folders = _folders(tmp_path, names)
    with FakeProvider(billing) as fake:
        live_env(fake)
        outputs = _campaign(folders, url, f"--mcptest-budget-usd={budget_micros / 1e6}")
        first = (billing.tokens, billing.micros)
        ledger = _ledger(url)
        # The fake's bill is the ledger's, and the budget was never passed, across every process.
        assert (ledger.spent_tokens, ledger.spent_micros) == first
        assert 0 < ledger.spent_micros <= budget_micros
        assert (ledger.reserved_micros, ledger.reserved_tokens) == (0, 0)
        assert ledger.requests == billing.replies and ledger.refused > 0
        skipped, recorded = [], {}
        for folder, out in zip(folders, outputs):
            assert "failed" not in out and "error" not in out.lower().replace("infra_error", ""), out
            assert "mcptest campaign" in out and f"ledger {url}: spent $" in out, out
            lines = [line for line in out.splitlines() if line.startswith("SKIPPED")]
            for line in lines:  # one line each, naming its cassette and saying why
                assert line.startswith("SKIPPED [1] ") and ".json: openai:gpt-4o-mini: " in line, line
                assert "not recorded: the campaign budget of $" in line and "larger budget" in line, line
            skipped += [(folder, line) for line in lines]
            for i in range(ITEMS):
                path = folder / f"w{i}.json"
                if path.exists():
                    recorded[path] = path.read_bytes()
        assert skipped and recorded
        assert len(skipped) + len(recorded) == ITEMS * len(folders)
        # A second campaign with a larger budget records exactly the skipped items: the fake
        # bills one episode (two replies) per skipped item, and no recorded cassette changes.
        replies = billing.replies
        outputs = _campaign(folders, url, "--mcptest-budget-usd=1")
    for folder, out in zip(folders, outputs):
        assert f"{ITEMS} passed" in out, out
    assert billing.replies - replies == 2 * len(skipped)
    assert all(path.read_bytes() == data for path, data in recorded.items())
    assert _ledger(url).spent_tokens == billing.tokens


def test_processes_sharing_a_sqlite_ledger_never_pass_the_budget_and_skip_what_is_left(tmp_path, live_env):  # noqa: F811
    # An episode costs 68 micro-dollars here (two replies); 12 episodes would cost 816.
    _check_campaign(tmp_path, f"sqlite:///{tmp_path / 'ledger.db'}", ("a", "b", "c"), 400, live_env)


def test_processes_sharing_a_redis_ledger_never_pass_the_budget_and_skip_what_is_left(tmp_path, live_env,  # noqa: F811
                                                                                      redis_url):
    _check_campaign(tmp_path, redis_url, ("a", "b"), 250, live_env)


def test_a_reservation_is_atomic_under_threads_and_settles_to_the_real_use(tmp_path):
    # 40 threads race to reserve 10 tokens each against a budget of 100: exactly 10 win.
    from pytest_mcptest.engine.trace import Tokens

    url = f"sqlite:///{tmp_path / 'l.db'}"
    campaign = Campaign(url, max_tokens=100)
    held, refused = [], []

    def one():
        try:
            held.append(campaign.reserve("m", Tokens.of(6, 4), None))
        except Exception as exc:  # noqa: BLE001
            refused.append(str(exc))

    threads = [threading.Thread(target=one) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(held) == 10 and len(refused) == 30
    assert "not recorded: the campaign budget of 100 tokens would be passed" in refused[0]
    assert _ledger(url) == Totals(reserved_tokens=100, refused=30)
    for hold in held:
        campaign.settle(hold, Tokens.of(6, 4), Tokens.of(3, 1), None)
    assert _ledger(url) == Totals(spent_tokens=40, requests=10, refused=30)


def test_the_options_are_checked_before_anything_runs(pytester):
    result = pytester.runpytest("--mcptest-budget-usd=1")
    assert "need --mcptest-shared-limits" in result.stderr.str()
    result = pytester.runpytest("--mcptest-shared-limits=postgres://x/y")
    assert "expected sqlite:///PATH or redis://HOST:PORT/DB, found 'postgres://x/y'" in result.stderr.str()
    result = pytester.runpytest("--mcptest-shared-limits=sqlite:///l.db", "--mcptest-budget-usd=-2")
    assert "expected an amount of dollars above 0, found '-2'" in result.stderr.str()



_TAKE = """
import sys, anyio
from pytest_mcptest.live.campaign import Campaign
limiter = Campaign(sys.argv[1]).limiter("openai http://fake/v1", 3, 1000)
async def take():
    for _ in range(int(sys.argv[2])):
        await limiter.acquire()
    await limiter.record(400)
anyio.run(take)
if len(sys.argv) > 3:  # what is left of the minute, asked without waiting for it
    print(limiter.requests.try_acquire("request", 1, blocking=True, timeout=0.3),
          limiter.tokens.try_acquire("tokens", 201, blocking=True, timeout=0.3),
          limiter.tokens.try_acquire("tokens", 200, blocking=True, timeout=0.3))
"""


@pytest.mark.parametrize("store", ["sqlite", "redis"])
def test_the_per_minute_limits_are_held_across_processes_in_the_store(store, tmp_path, request):
    # One process takes 2 of 3 requests a minute and 400 of 1000 tokens; the next takes the third
    # request and 400 more tokens, and then no fourth request gets in, nor more than 200 tokens.
    url = f"sqlite:///{tmp_path / 'l.db'}" if store == "sqlite" else request.getfixturevalue("redis_url")
    first = subprocess.run(forked([sys.executable, "-c", _TAKE, url, "2"]), capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    second = subprocess.run(forked([sys.executable, "-c", _TAKE, url, "1", "check"]), capture_output=True, text=True,
                            timeout=60)
    assert second.stdout.split() == ["False", "False", "True"], second.stderr


def test_a_ledger_that_cannot_be_opened_is_said_as_the_ledger(tmp_path):
    """A SQLite path under a file (or a folder that cannot be made) is one line naming the
    ledger, for the item and for the summary, not a bare FileExistsError."""
    from pytest_mcptest.live.provider import LiveError

    (tmp_path / "f").write_text("not a folder")
    url = f"sqlite:///{tmp_path / 'f' / 'ledger.db'}"
    campaign = Campaign(url, max_tokens=10)
    with pytest.raises(LiveError, match=f"the campaign ledger {re.escape(url)} cannot be opened: "):
        campaign.store
    assert campaign.summary_lines() == [f"the campaign ledger {url} cannot be opened: "
                                        f"[Errno 17] File exists: '{tmp_path / 'f'}'"]
