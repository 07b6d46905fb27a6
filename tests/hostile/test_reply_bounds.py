"""A model reply with thousands of tool calls or megabytes of text (issue 33, item 23): the
first calls are run and recorded, the text is cut, and a note says so."""

from __future__ import annotations

import json

from live_fake import FakeProvider, MANIFEST, WEATHER_AGENT, live_env, reply  # noqa: F401 - fixtures
from pytest_mcptest.live.runner import MAX_CALLS_PER_REPLY, MAX_REPLY_CHARS

SUITE = WEATHER_AGENT


def test_a_reply_with_5000_calls_and_huge_text_is_bounded(pytester, live_env, servers_forked):  # noqa: F811
    def script(seen):
        if not seen.results:
            return reply(seen, text="x" * (MAX_REPLY_CHARS + 5000),
                         calls=tuple(("get_weather", {"city": f"c{i}"}) for i in range(5000)))
        return reply(seen, text="done")

    (pytester.path / "shop.yml").write_text(MANIFEST)
    (pytester.path / "s.mcptest.yml").write_text(SUITE)
    with FakeProvider(script) as fake:
        live_env(fake)
        result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once")
    cassette = json.loads((pytester.path / "weather.json").read_text())
    run = cassette["runs"][0]
    assert len(run["tool_calls"]) == MAX_CALLS_PER_REPLY
    first = next(t for t in run["conversation"]["turns"] if t["role"] == "assistant")
    assert len(first["content"]) == MAX_REPLY_CHARS
    result.stdout.fnmatch_lines([f"*run 1: model reply 1 was cut: 5000 tool calls, the first {MAX_CALLS_PER_REPLY} "
                                 f"run and recorded; 1,005,000 characters of text, the first 1,000,000 kept*"])
