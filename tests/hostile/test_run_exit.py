"""``mcptest run`` exit codes (issue 33, item 26): the user's own ``--mcptest-report`` no longer
turns a green run into exit 2, and a dry run lists a ``[distractors]`` item (its agent item
records the cassette) as skipped instead of failing."""

from __future__ import annotations

import json

from live_fake import MANIFEST, WEATHER_AGENT, FakeProvider, live_env, reply  # noqa: F401 - fixtures
from pytest_mcptest.cli import main

OK = '{"mcptest_cassette": 1, "runs": [{"tool_calls": [{"name": "ping"}]}]}'


def test_a_green_run_with_the_users_report_exits_0(pytester, monkeypatch):
    (pytester.path / "c.json").write_text(OK)
    pytester.makefile(".mcptest.yml", s="agents:\n  - name: a\n    cassette: c.json\n")
    monkeypatch.chdir(pytester.path)
    assert main(["run", "s.mcptest.yml", "--mcptest-report=mine.json"]) == 0
    assert json.loads((pytester.path / "mine.json").read_text())["items"][0]["outcome"] == "passed"
    assert main(["run", "s.mcptest.yml", "--mcptest-report", "two.json"]) == 0
    assert (pytester.path / "two.json").exists()


def test_a_dry_run_lists_a_distractors_item_as_skipped(pytester, monkeypatch, capsys, live_env):  # noqa: F811
    (pytester.path / "shop.yml").write_text(MANIFEST)
    pytester.makefile(".mcptest.yml", s=WEATHER_AGENT + """\
    distractors:
      count: 2
      source: {from: near_duplicate, of: [get_weather]}
      correct: [shop.get_weather]
""")
    monkeypatch.chdir(pytester.path)
    with FakeProvider(lambda seen: reply(seen, text="never")) as fake:
        live_env(fake)
        assert main(["run", "s.mcptest.yml", "--record", "--dry-run", "-rs"]) == 0
        assert fake.requests == []
    out = capsys.readouterr().out
    assert "would replay weather.json once the agent item 'weather' has recorded it" in out
    assert "2 skipped" in out
