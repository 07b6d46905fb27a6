"""``mcptest serve`` on a recording whose secrets were hidden: a request carrying the secret is
hidden the same way before it is matched, so it finds its recorded call (the recorder writes a
keyed placeholder, the same secret the same placeholder), and a miss never shows the secret."""

from __future__ import annotations

import json
import os
import sys

import anyio
import pytest

from forkserver import forked
from pytest_mcptest.redact import key_id, placeholder_for
from record_helpers import with_session

KEY = "serve-secrets-test-key-0123456789"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a GitHub token's shape: redacted by pattern


def _cassette(path, key: str) -> None:
    hidden = placeholder_for(TOKEN, key.encode())
    path.write_text(json.dumps({"version": 1, "runs": [{
        "meta": {"server": "repo", "redaction_key_id": key_id(key.encode())},
        "tool_calls": [{"name": "list_repos", "args": {"token": hidden, "org": "acme"},
                        "result": {"content": [{"type": "text", "text": "acme/widgets"}]}}]}]}))


def _serve(path, key: str, body):
    env = {**os.environ, "MCPTEST_REDACT_KEY": key}
    return with_session(forked([sys.executable, "-m", "pytest_mcptest.cli", "serve", str(path)]), body, env=env)


def test_a_request_carrying_the_secret_matches_its_hidden_recording(tmp_path):
    _cassette(tmp_path / "c.json", KEY)

    async def body(session, init):
        from mcp import MCPError

        hit = await session.call_tool("list_repos", {"token": TOKEN, "org": "acme"})
        with anyio.fail_after(20), pytest.raises(MCPError) as miss:
            await session.call_tool("list_repos", {"token": TOKEN, "org": "other"})
        return hit.content[0].text, miss.value.error.message, json.dumps(miss.value.error.data)

    text, message, data = _serve(tmp_path / "c.json", KEY, body)
    assert text == "acme/widgets"
    assert "argument `org`" in message or "arguments.org" in data
    assert TOKEN not in message and TOKEN not in data  # the miss shows the placeholder, never the secret


def test_a_recording_hidden_with_another_key_says_so(tmp_path):
    _cassette(tmp_path / "c.json", "another-key-entirely-0123456789ab")
    errlog = open(tmp_path / "err.txt", "w")

    async def body(session, init):
        from mcp import MCPError

        with anyio.fail_after(20), pytest.raises(MCPError):
            await session.call_tool("list_repos", {"token": TOKEN, "org": "acme"})
        return True

    env = {**os.environ, "MCPTEST_REDACT_KEY": KEY}
    with_session(forked([sys.executable, "-m", "pytest_mcptest.cli", "serve", str(tmp_path / "c.json")]), body,
                 env=env, errlog=errlog)
    errlog.close()
    said = (tmp_path / "err.txt").read_text()
    assert "hid its secrets with another redaction key" in said and "MCPTEST_REDACT_KEY" in said
