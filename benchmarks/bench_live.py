#!/usr/bin/env python
"""Benchmark: live recording, serial against concurrent, on a slow loopback model.

Records one agent item of ``--runs`` runs with the real ``openai`` SDK against the test
suite's fake provider (tests/live_fake.py, a real HTTP server on 127.0.0.1) answering
each request after ``--delay`` seconds, the tools on the project's mock MCP server.
Times the recording at concurrency 1 and at concurrency 4, checks the two cassettes
are byte-identical, and prints the speed-up; the goal is "about four times faster",
read here as at least 3x (the server start-ups and the machine's two shared cores take
their share).

``--kind conversation`` records a conversation item instead (a synthetic user, the
agent and a judge, six model replies per run, all played by the fake), to show the three
roles share the concurrency the same way.

It is a report, not a test: it exits 0 whether the goal is met or missed (1 only when
the cassettes differ). Needs the ``live`` extra. Usage::

    python benchmarks/bench_live.py                  # 8 runs, 2 s per model reply (a real reply with tool use takes 1-5 s)
    python benchmarks/bench_live.py --runs 4 --delay 0.5 --json
    python benchmarks/bench_live.py --kind conversation --delay 0.5
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from live_fake import MANIFEST, FakeProvider, play, tool_then_answer  # noqa: E402
from pytest_mcptest.engine.conversation import ConversationSpec  # noqa: E402
from pytest_mcptest.live.conversation import ConversationTask, record_conversation  # noqa: E402
from pytest_mcptest.live.runner import AgentTask, record_agent  # noqa: E402
from pytest_mcptest.live.servers import ServerSpec  # noqa: E402

GOAL = 3.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--delay", type=float, default=2.0, help="seconds the fake model takes per reply")
    parser.add_argument("--kind", choices=("agent", "conversation"), default="agent")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    if args.kind == "agent":
        script, replies = tool_then_answer("get_weather", {"city": "Sacramento"}, delay=args.delay), 2
    else:
        played, replies = play(), 6

        def script(seen):
            answer = played(seen)
            answer.delay = args.delay
            return answer

    with tempfile.TemporaryDirectory() as tmp, FakeProvider(script) as fake:
        manifest = Path(tmp) / "shop.yml"
        manifest.write_text(MANIFEST)
        os.environ["OPENAI_API_KEY"] = "sk-benchmark-00000000"
        os.environ["OPENAI_BASE_URL"] = fake.url + "/v1"
        shop = (ServerSpec("shop", ("mcptest", "mock", "--tools-from", str(manifest))),)
        if args.kind == "agent":
            task = AgentTask(model="openai:gpt-4o-mini", prompt="What is the weather in Sacramento?", runs=args.runs,
                             servers=shop)
            record = record_agent
        else:
            task = ConversationTask(
                name="weather clarification", model="openai:gpt-4o-mini", servers=shop, runs=args.runs,
                synthetic_user={"persona": "A busy professional", "initial_query": "What's the weather like?",
                                "max_turns": 4},
                evaluation=ConversationSpec(correctness=("The agent asks for the location",),
                                            failure=("The agent assumes a location",), max_turns=4))
            record = record_conversation
        seconds, cassettes = {}, {}
        for concurrency in (1, 4):
            start = time.perf_counter()
            recording = record(task, concurrency=concurrency)
            seconds[concurrency] = time.perf_counter() - start
            cassettes[concurrency] = json.dumps(recording.cassette(), sort_keys=True)
    same = cassettes[1] == cassettes[4]
    ratio = seconds[1] / seconds[4]
    verdict = "PASS" if ratio >= GOAL and same else "MISS"
    figures = {"kind": args.kind, "runs": args.runs, "delay_s": args.delay, "serial_s": round(seconds[1], 2),
               "concurrent_4_s": round(seconds[4], 2), "speedup": round(ratio, 2), "goal": GOAL,
               "identical_cassettes": same, "verdict": verdict}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"live recording ({args.kind}), {args.runs} runs x {replies} model replies of {args.delay:g} s each")
        print(f"  concurrency 1: {seconds[1]:7.2f} s")
        print(f"  concurrency 4: {seconds[4]:7.2f} s")
        print(f"  speed-up {ratio:.2f}x (goal >= {GOAL:g}x), cassettes identical: {same}   {verdict}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
