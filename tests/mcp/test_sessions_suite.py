"""A recording wherever a server goes: ``servers: {NAME: {cassette: PATH}}``, the ``verify:``
suite block, and the ``mcptest_cassette_server`` fixture in a user's own test."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from forkserver import forked
from record_helpers import proxy_command, with_session

TESTS = Path(__file__).resolve().parents[1]
NOTES = str(TESTS / "notes_server.py")
pytest_plugins = ["pytester"]


@pytest.fixture(scope="module")
def cassette(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("rec") / "notes.json")

    async def body(session, init):
        await session.list_tools()
        await session.call_tool("lookup", {"key": "milk"})
        await session.read_resource("note://item/eggs")

    with_session(proxy_command(out, forked([sys.executable, "-W", "ignore", NOTES])), body)
    return out


def suite(pytester, cassette, text: str) -> None:
    (pytester.path / "cassettes").mkdir(exist_ok=True)
    shutil.copy(cassette, pytester.path / "cassettes" / "notes.json")
    written = {'[PYTHON, "-W", "ignore", NOTES_SERVER]': [sys.executable, "-W", "ignore", NOTES],
               "[PYTHON, NOTES_SERVER]": [sys.executable, NOTES]}
    for shown, command in written.items():  # the notes server, started through the fork server (forkserver.py)
        text = text.replace(shown, json.dumps(forked(command)))
    assert "PYTHON" not in text
    pytester.makefile(".mcptest.yml", notes=text)


VERIFY = """
servers:
  notes: {command: [PYTHON, "-W", "ignore", NOTES_SERVER]}
  changed: {command: [PYTHON, "-W", "ignore", NOTES_SERVER], env: {NOTES_CHANGED: "1"}}
verify:
  - name: same build
    cassette: cassettes/notes.json
    server: notes
    ignore: ["result.content[*].text.read_at", "result.structuredContent.result.read_at"]
  - name: changed build
    cassette: cassettes/notes.json
    server: changed
    ignore: ["result.content[*].text.read_at", "result.structuredContent.result.read_at"]
"""


def test_verify_block_one_item_each_with_per_call_diffs(pytester, cassette):
    suite(pytester, cassette, VERIFY)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    text = result.stdout.str()
    assert "2 of 3 recorded answer(s) changed" in text
    assert "#3 tools/call lookup {\"key\": \"milk\"}" in text
    assert "result.content[0].text.count" in text
    assert "#4 resources/read {\"uri\": \"note://item/eggs\"}" in text


def test_verify_block_bad_ignore_path_and_unknown_server_are_collection_errors(pytester, cassette):
    suite(pytester, cassette, """
servers:
  notes: {command: [PYTHON, NOTES_SERVER]}
verify:
  - {name: a, cassette: cassettes/notes.json, server: nots}
  - {name: b, cassette: cassettes/notes.json, server: notes, ignore: ["a..b"]}
""")
    result = pytester.runpytest("-p", "no:cacheprovider")
    text = result.stdout.str()
    assert "no server named 'nots'" in text and "did you mean 'notes'" in text
    assert "empty segment at column 3 of path 'a..b'" in text
    assert "Traceback" not in text


def test_a_cassette_server_is_a_server_for_tool_quality(pytester, cassette, servers_forked):
    suite(pytester, cassette, """
servers:
  recorded: {cassette: cassettes/notes.json}
tool_quality:
  - name: recorded catalog
    server: recorded
    expect:
      - tool_count: {==: 2}
""")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_the_fixture_hands_a_users_own_agent_the_recording(pytester, cassette, servers_forked):
    (pytester.path / "cassettes").mkdir()
    shutil.copy(cassette, pytester.path / "cassettes" / "notes.json")
    pytester.makepyfile(test_agent='''
import anyio, json
from mcp import ClientSession
from mcp.client.stdio import stdio_client

def test_agent(mcptest_cassette_server):
    params = mcptest_cassette_server("cassettes/notes.json")

    async def agent():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("lookup", {"key": "milk"})
                return json.loads(result.content[0].text)["note"]

    assert anyio.run(agent) == "2 litres"

def test_missing(mcptest_cassette_server):
    mcptest_cassette_server("cassettes/nope.json")
''')
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    assert "mcptest_cassette_server: cassettes/nope.json" in result.stdout.str()
    assert "no such cassette" in result.stdout.str()
