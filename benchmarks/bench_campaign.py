#!/usr/bin/env python
"""Benchmark: a recording campaign's throughput, and what the shared ledger adds per request.

1. **Episodes per minute at concurrency 1, 4 and 16**: one agent item of ``--runs`` runs
   recorded with the real ``openai`` SDK against the tests' loopback fake model (answering each
   request after ``--delay`` seconds, two requests per episode), the tools on the project's mock
   MCP server started through the tests' fork server (so the figure is the runner's and the
   model's, not an interpreter's start-up per run). The three concurrencies are paired: each
   of ``--rounds`` rounds runs all three, in alternating order, and the medians are compared.
   Goal: the runner is bound by the model's latency, not by itself: 4 at once at least 3x the
   episodes per minute of 1 at once, 16 at once at least 8x.
2. **What the ledger adds per request**: ``--requests`` model requests through the live tier's
   ``Model.ask`` (the item budget, the per-minute limits, the request, the pricing) against the
   fake answering at once, with no shared ledger (the per-machine lock-file limiter), with a
   SQLite ledger and with a Redis ledger (a real ``redis-server`` on a loopback port), each with a
   campaign budget and per-minute limits, in alternating rounds; the median time per request,
   and the difference to none; then the ledger's own work for one request timed alone (reserve,
   take from the shared window, settle, record the tokens). Goal: at most 10 ms a request (1% of
   a quick 1 s model reply).

It is a report, not a test: it exits 0 whether the goals are met or missed. Needs the ``live``
and ``campaign`` extras, and Debian's ``redis-server`` for the Redis figure (skipped, saying so,
without it). Usage::

    python benchmarks/bench_campaign.py                      # 16 runs, 0.5 s per reply, 3 rounds
    python benchmarks/bench_campaign.py --runs 8 --rounds 2 --requests 100 --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from forkserver import forked  # noqa: E402
from live_fake import MANIFEST, FakeProvider, reply, tool_then_answer  # noqa: E402
from redis_server import binary as redis_binary, redis_server  # noqa: E402

from pytest_mcptest.live import campaign  # noqa: E402
from pytest_mcptest.live.limits import Budget  # noqa: E402
from pytest_mcptest.live.runner import AgentTask, Ledger, open_model, record_agent  # noqa: E402
from pytest_mcptest.live.servers import ServerSpec  # noqa: E402

CONCURRENCY = (1, 4, 16)
GOALS = {4: 3.0, 16: 8.0}  # speed-up over concurrency 1
LEDGER_GOAL_MS = 10.0
MODELS = {"openai": {"requests_per_minute": 1_000_000, "tokens_per_minute": 100_000_000, "max_tokens": 64}}


def throughput(args, tmp: str) -> dict:
    """Median episodes per minute at each concurrency, over alternating rounds."""
    manifest = Path(tmp) / "shop.yml"
    manifest.write_text(MANIFEST)
    shop = (ServerSpec("shop", tuple(forked([sys.executable, "-m", "pytest_mcptest.cli", "mock", "--tools-from",
                                             str(manifest)]))),)
    task = AgentTask(model="openai:gpt-4o-mini", prompt="What is the weather in Sacramento?", runs=args.runs,
                     servers=shop)
    samples: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    with FakeProvider(tool_then_answer("get_weather", {"city": "Sacramento"}, delay=args.delay)) as fake:
        os.environ["OPENAI_BASE_URL"] = fake.url + "/v1"
        record_agent(AgentTask(model=task.model, prompt=task.prompt, servers=shop), concurrency=1)  # warm
        for round_ in range(args.rounds):
            for concurrency in CONCURRENCY if round_ % 2 == 0 else tuple(reversed(CONCURRENCY)):
                start = time.perf_counter()
                recording = record_agent(task, concurrency=concurrency)
                took = time.perf_counter() - start
                assert len(recording.runs) == args.runs
                samples[concurrency].append(args.runs / took * 60)
    return {c: statistics.median(v) for c, v in samples.items()} | {"samples": samples}


async def _timed(model, count: int) -> float:
    """Seconds for ``count`` requests, after five to warm the client and the ledger."""
    turns = [{"role": "user", "content": "What is the weather?"}]
    try:
        for _ in range(5):
            await model.ask(None, turns, [])
        start = time.perf_counter()
        for _ in range(count):
            await model.ask(None, turns, [])
        return time.perf_counter() - start
    finally:
        await model.provider.close()


def ledger_cost(args, tmp: str) -> dict:
    """Median milliseconds per request with no ledger, SQLite and Redis."""
    import anyio

    stores = {"none": None, "sqlite": f"sqlite:///{Path(tmp) / 'ledger.db'}"}
    samples: dict[str, list[float]] = {name: [] for name in ("none", "sqlite", "redis")}
    redis_ok = redis_binary() is not None
    with FakeProvider(lambda seen: reply(seen, text="fine")) as fake, \
            (redis_server(tmp) if redis_ok else _nothing()) as redis_url:
        os.environ["OPENAI_BASE_URL"] = fake.url + "/v1"
        if redis_ok:
            stores["redis"] = redis_url
        names = [n for n in ("none", "sqlite", "redis") if n in stores]
        alone = {n: ledger_ops(stores[n], args.requests) for n in names if stores[n]}
        for round_ in range(args.rounds):
            for name in names if round_ % 2 == 0 else list(reversed(names)):
                url = stores[name]
                campaign.activate(campaign.Campaign(url, max_micros=10**12) if url else None)
                try:
                    model = open_model("openai:gpt-4o-mini", MODELS, Budget(), Ledger(),
                                       rate_dir=os.path.join(tmp, "rate"))
                    samples[name].append(anyio.run(_timed, model, args.requests) / args.requests * 1000)
                finally:
                    campaign.activate(None)
    out = {name: statistics.median(v) for name, v in samples.items() if v}
    return out | {"samples": {k: v for k, v in samples.items() if v}, "redis_installed": redis_ok, "alone": alone}


def ledger_ops(url: str, count: int) -> float:
    """Milliseconds of the ledger's own work for one request, alone: reserve the worst case, take
    a request from the shared per-minute window, settle, put the reply's tokens in the window."""
    import anyio

    from pytest_mcptest.engine.trace import Tokens
    from pytest_mcptest.live.pricing import price_of

    ledger, price = campaign.Campaign(url, max_micros=10**12), price_of("gpt-4o-mini")
    limiter = ledger.limiter("openai bench", 1_000_000, 100_000_000)

    async def work() -> float:
        start = time.perf_counter()
        for _ in range(count):
            hold = ledger.reserve("bench", Tokens.of(100, 64), price)
            await limiter.acquire()
            ledger.settle(hold, Tokens.of(100, 64), Tokens.of(20, 5), 6, price)
            await limiter.record(25)
        return time.perf_counter() - start

    return anyio.run(work) / count * 1000


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=16, help="episodes of the item recorded at each concurrency")
    parser.add_argument("--delay", type=float, default=0.5, help="seconds the fake model takes per reply")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=300, help="requests per ledger sample")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ["OPENAI_API_KEY"] = "sk-benchmark-00000000"
    with tempfile.TemporaryDirectory() as tmp:
        rates = throughput(args, tmp)
        ledger = ledger_cost(args, tmp)
    speedups = {c: rates[c] / rates[1] for c in GOALS}
    added = {name: ledger[name] - ledger["none"] for name in ("sqlite", "redis") if name in ledger}
    verdicts = {f"concurrency_{c}": "PASS" if speedups[c] >= GOALS[c] else "MISS" for c in GOALS}
    verdicts |= {f"ledger_{n}": "PASS" if max(ms, ledger["alone"][n]) <= LEDGER_GOAL_MS else "MISS"
                 for n, ms in added.items()}
    figures = {"runs": args.runs, "delay_s": args.delay, "rounds": args.rounds,
               "episodes_per_minute": {str(c): round(rates[c], 1) for c in CONCURRENCY},
               "speedup": {str(c): round(s, 2) for c, s in speedups.items()},
               "ms_per_request": {n: round(ledger[n], 3) for n in ("none", "sqlite", "redis") if n in ledger},
               "ledger_adds_ms": {n: round(ms, 3) for n, ms in added.items()},
               "ledger_alone_ms": {n: round(ms, 3) for n, ms in ledger["alone"].items()}, "verdicts": verdicts}
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"recording campaign: one agent item, {args.runs} episodes of 2 model replies of {args.delay:g} s each; "
          f"medians of {args.rounds} alternating rounds")
    for c in CONCURRENCY:
        goal = f"  {speedups[c]:.2f}x (goal >= {GOALS[c]:g}x)   {verdicts[f'concurrency_{c}']}" if c in GOALS else ""
        print(f"  concurrency {c:2d}: {rates[c]:7.1f} episodes/minute{goal}")
    print(f"what the ledger adds per model request ({args.requests} requests a sample, a budget and per-minute "
          f"limits held):")
    print(f"  none (per-machine lock file): {ledger['none']:.3f} ms a request")
    for name, ms in added.items():
        print(f"  {name:6s}: {ledger[name]:.3f} ms a request, {ms:+.3f} ms; the ledger's own work alone "
              f"{ledger['alone'][name]:.3f} ms (goal <= {LEDGER_GOAL_MS:g} ms)   {verdicts[f'ledger_{name}']}")
    if not ledger["redis_installed"]:
        print("  redis : not measured (redis-server is not installed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
