"""Rates adapt down when the provider's rate-limit headers say the window is nearly spent: a
fake that holds a request limit, says what is left in every answer (OpenAI's and Anthropic's
own headers) and answers 429 past it, is never sent a request it would refuse."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest

from forkserver import forked
from live_fake import MODELS, FakeProvider, Window, live_env, shop, tool_then_answer  # noqa: F401 - fixtures
from redis_server import redis_url  # noqa: F401 - a fixture

from pytest_mcptest.engine.infra import split
from pytest_mcptest.live.adaptive import duration_seconds, pause_for
from pytest_mcptest.live.runner import AgentTask, record_agent


def test_the_headers_of_both_apis_are_read():
    assert [duration_seconds(t) for t in ("1s", "6m0s", "1h2m3.5s", "20ms", "0.5")] == [1, 360, 3723.5, 0.02, 0.5]
    openai = {"x-ratelimit-limit-requests": "100", "x-ratelimit-reset-requests": "1.5s"}
    assert pause_for({**openai, "x-ratelimit-remaining-requests": "4"}, 200) == 1.5  # 4 of 100 left: nearly spent
    assert pause_for({**openai, "x-ratelimit-remaining-requests": "40"}, 200) == 0
    assert pause_for({"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "6m0s"}, 200) == 120  # capped
    now = 1_800_000_000.0
    reset = datetime.fromtimestamp(now + 2, timezone.utc).isoformat().replace("+00:00", "Z")
    anthropic = {"anthropic-ratelimit-input-tokens-limit": "40000", "anthropic-ratelimit-input-tokens-remaining": "100",
                 "anthropic-ratelimit-input-tokens-reset": reset}
    assert pause_for(anthropic, 200, now) == pytest.approx(2)
    assert pause_for({"retry-after": "3"}, 429) == 3 and pause_for({"retry-after-ms": "250"}, 429) == 0.25
    when = (datetime.now(timezone.utc) + timedelta(seconds=30)).strftime("%a, %d %b %Y %H:%M:%S GMT")
    assert 28 <= pause_for({"retry-after": when}, 429) <= 31
    assert pause_for({"retry-after": "3"}, 200) == 0  # only a refusal asks to come back later


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_window_nearly_spent_holds_the_next_requests_until_it_resets(api, shop, live_env):  # noqa: F811
    # 3 requests a second; 4 runs of 2 requests each, one at a time, no retries: without the
    # headers read, the fourth request would be refused and its run lost.
    window = Window(3, 1.0)
    with FakeProvider(tool_then_answer("get_weather", {"city": "Paris"}), window) as fake:
        live_env(fake)
        started = time.monotonic()
        recording = record_agent(AgentTask(model=MODELS[api], prompt="Weather?", servers=(shop,), runs=4),
                                 models={api: {"max_retries": 0}}, concurrency=1)
        took = time.monotonic() - started
    assert window.refused == 0 and len(fake.requests) == 8
    assert split(recording.runs)[1] == () and len(recording.runs) == 4
    assert took >= 2.0  # 8 requests at most 3 a second, paused at 1 left: three waits for a reset


_OBSERVE = """
import sys
from pytest_mcptest.live import campaign
from pytest_mcptest.live.adaptive import Pacer
campaign.activate(campaign.Campaign(sys.argv[1]))
Pacer("openai http://fake/v1").observe({"x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "1",
                                       "x-ratelimit-reset-requests": "1.5s"}, 200)
"""


@pytest.mark.parametrize("store", ["sqlite", "redis"])
def test_a_pause_one_process_read_holds_every_process_sharing_the_ledger(store, tmp_path, request):
    import subprocess
    import sys

    import anyio

    from pytest_mcptest.live import campaign
    from pytest_mcptest.live.adaptive import Pacer

    url = f"sqlite:///{tmp_path / 'l.db'}" if store == "sqlite" else request.getfixturevalue("redis_url")
    other = subprocess.run(forked([sys.executable, "-c", _OBSERVE, url]), capture_output=True, text=True, timeout=60)
    assert other.returncode == 0, other.stderr
    campaign.activate(campaign.Campaign(url))
    try:
        started = time.monotonic()
        anyio.run(Pacer("openai http://fake/v1").wait)  # this process read no header itself
        held = time.monotonic() - started
        anyio.run(Pacer("openai http://another/v1").wait)  # another endpoint is not held
    finally:
        campaign.activate(None)
    assert 0.5 < held <= 1.6 and time.monotonic() - started - held < 0.3
