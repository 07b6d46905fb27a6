"""``--mcptest-shard I/N``: N machines each run a balanced, deterministic share of the items,
deselected as pytest deselects, and ``mcptest report merge`` of their reports is the report of
one unsharded run, byte for byte."""

from __future__ import annotations

import json

import pytest

from live_fake import live_env  # noqa: F401 - a fixture
from redis_server import redis_url  # noqa: F401 - a fixture

from pytest_mcptest.live.shard import assign, parse_shard

ITEMS = 11


def _suite(pytester, seconds: dict) -> None:
    agents = "".join(f"""\
  - name: task {i}
    cassette: t{i}.json
    expect:
      - tool_calls[0].name: {{exact: {"get_weather" if i % 4 else "search"}}}
""" for i in range(ITEMS))
    pytester.makefile(".mcptest.yml", s=f"agents:\n{agents}")
    for i in range(ITEMS):
        meta = {"agent": f"task {i}"}
        if i in seconds:
            meta["duration_s"] = seconds[i]
        (pytester.path / f"t{i}.json").write_text(json.dumps(
            {"mcptest_cassette": 1, "meta": meta, "runs": [{"tool_calls": [{"name": "get_weather"}]}] * 2}))


def test_the_union_of_the_shards_reports_is_one_unsharded_run(pytester):
    _suite(pytester, {})
    whole = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=whole.json")
    whole.assert_outcomes(passed=8, failed=3)
    counts, shards = [], []
    for i in (1, 2, 3):
        result = pytester.runpytest("-p", "no:cacheprovider", f"--mcptest-shard={i}/3", f"--mcptest-report=s{i}.json")
        outcomes = result.parseoutcomes()
        counts.append(outcomes.get("passed", 0) + outcomes.get("failed", 0))
        assert outcomes["deselected"] == ITEMS - counts[-1]
        result.stdout.fnmatch_lines([f"mcptest shard {i}/3"])
        shards.append(str(pytester.path / f"s{i}.json"))
    assert sorted(counts) == [3, 4, 4]  # by count when no cassette says how long it took
    from pytest_mcptest.cli import main

    assert main(["report", "merge", *shards, "-o", str(pytester.path / "merged.json")]) == 0
    assert (pytester.path / "merged.json").read_bytes() == (pytester.path / "whole.json").read_bytes()


def test_the_ini_key_and_recorded_durations_balance_the_shards(pytester):
    # Item 0 took 100 s to record, the others 10 s each: item 0 is a shard's whole share.
    _suite(pytester, {0: 100.0, **{i: 10.0 for i in range(1, ITEMS)}})
    pytester.makeini("[pytest]\nmcptest_shard = 1/2\n")
    first = pytester.runpytest("-p", "no:cacheprovider", "--collect-only", "-q")
    second = pytester.runpytest("-p", "no:cacheprovider", "--collect-only", "-q", "--mcptest-shard=2/2")
    ids = [line for line in first.outlines + second.outlines if "::" in line]
    assert sorted(ids) == sorted(f"s.mcptest.yml::task {i}" for i in range(ITEMS))
    heavy = first.outlines if "s.mcptest.yml::task 0" in first.outlines else second.outlines
    assert [line for line in heavy if "::" in line] == ["s.mcptest.yml::task 0"]  # 100 s against 10 x 10 s


def test_the_split_is_balanced_by_weight_and_the_same_in_any_order():
    items = [(f"f.yml::t{i}", float(w)) for i, w in enumerate([100, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10])]
    shares = assign(items, 2)
    loads = [sum(w for (_, w), s in zip(items, shares) if s == k) for k in (0, 1)]
    assert sorted(loads) == [100, 100]
    reordered = list(reversed(items))
    assert dict(zip([i for i, _ in reordered], assign(reordered, 2))) == dict(zip([i for i, _ in items], shares))
    unknown = assign([(f"f.yml::t{i}", None) for i in range(10)], 3)
    assert sorted(unknown.count(k) for k in range(3)) == [3, 3, 4]


def test_a_bad_shard_is_a_usage_error(pytester):
    for bad, why in (("3/2", "1 <= I <= N"), ("1-2", "expected I/N"), ("0/4", "1 <= I <= N")):
        with pytest.raises(ValueError, match=why):
            parse_shard(bad)
    result = pytester.runpytest("--mcptest-shard=5/4")
    assert "--mcptest-shard: expected I/N with 1 <= I <= N, found '5/4'" in result.stderr.str()


LIVE_SUITE = """\
servers:
  shop: {command: ["mcptest", "mock", "--tools-from", "shop.yml"]}
models:
  openai: {max_tokens: 64}
agents:
""" + "".join(f"""\
  - name: live {i}
    model: openai:gpt-4o-mini
    prompt: What is the weather in city {i}?
    servers: [shop]
    cassette: live{i}.json
""" for i in range(6))


def test_shards_record_their_parts_at_once_sharing_one_redis_ledger(tmp_path, live_env, redis_url):  # noqa: F811
    import subprocess
    import sys

    from forkserver import forked
    from live_fake import MANIFEST, FakeProvider, forked_mock, tool_then_answer

    from pytest_mcptest.live.campaign import Campaign

    (tmp_path / "shop.yml").write_text(MANIFEST)
    (tmp_path / "s.mcptest.yml").write_text(forked_mock(LIVE_SUITE))
    base = forked([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--mcptest-shared-limits={redis_url}",
                   "--mcptest-budget-usd=1"])
    with FakeProvider(tool_then_answer("get_weather", {"city": "Paris"})) as fake:
        live_env(fake)
        shards = [subprocess.Popen([*base, "--mcptest-record-mode=once", f"--mcptest-shard={i}/2",
                                    f"--mcptest-report=s{i}.json"], cwd=tmp_path, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True) for i in (1, 2)]
        outputs = [p.communicate(timeout=300)[0] for p in shards]
    for out in outputs:
        assert "3 passed, 3 deselected" in out, out
    assert len(fake.requests) == 2 * 6  # every item recorded once, by one shard
    assert Campaign(redis_url).store.totals().requests == 12
    whole = subprocess.run([*base, "--mcptest-report=whole.json"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=300)
    assert "6 passed" in whole.stdout
    from pytest_mcptest.cli import main

    assert main(["report", "merge", str(tmp_path / "s1.json"), str(tmp_path / "s2.json"), "-o",
                 str(tmp_path / "merged.json")]) == 0
    assert (tmp_path / "merged.json").read_bytes() == (tmp_path / "whole.json").read_bytes()
