"""Secrets that once reached a cassette, and ordinary values that were scrubbed (issue 33,
items 7, 9 and 10). The whole labelled corpus is ``tests/foundations/test_redact_corpus.py``."""

from __future__ import annotations

import json
import sys

import anyio
import pytest

from pytest_mcptest.live.provider import LiveError
from pytest_mcptest.live.servers import ServerSpec, open_servers, server_environment
from pytest_mcptest.redact import REDACTED, Redactor, placeholder_for, redactor, secret_name

KEY = b"test-redaction-key-0123"


def test_ordinary_names_and_words_are_not_scrubbed():
    r = redactor(environ={"GIT_AUTHOR_NAME": "Alice Smith", "AUTH_MODE": "password", "TOKENIZERS_PARALLELISM": "false"},
                 key=KEY)
    args = {"title": "Notes by Alice Smith", "text": "a basic example of token counting", "token_count": 12,
            "author": "Alice Smith", "primary_key": "id", "next_page_token": "CAUQAA", "max_tokens": 4096}
    assert r.value(args) == args


@pytest.mark.parametrize("name", ["github_token", "x_api_key", "secret_key", "X-Auth-Token", "db_password",
                                  "aws_secret_access_key", "GITHUB_PAT", "apiKey", "Authorization"])
def test_secret_key_names_are_known(name):
    assert secret_name(name)
    assert Redactor().value({name: "s3cr3t-value"}) == {name: REDACTED}


@pytest.mark.parametrize("name", ["PGPASSWORD", "HTPASSWD", "DB_PASS", "SMTP_PASS", "dbPassword"])
def test_passwords_in_one_word_or_as_pass_are_known(name):
    """Found by hand in the audit: PGPASSWORD (libpq's own variable) and DB_PASS were not secrets."""
    assert secret_name(name)
    hidden = placeholder_for("s3cr3t-pw!", KEY)
    assert redactor(environ={name: "s3cr3t-pw!"}, key=KEY).text("login with s3cr3t-pw!") == f"login with {hidden}"


@pytest.mark.parametrize("name", ["FIRST_PASS", "boarding_pass", "BYPASS_CACHE", "compass", "passport_number",
                                  "PGPASSWORD_FILE", "password_min_length"])
def test_words_that_only_contain_pass_are_not_secrets(name):
    assert not secret_name(name)


def test_nested_and_numeric_secret_values_are_redacted():
    out = Redactor().value({"password": {"value": "hunter22"}, "api_key": 123456789012, "ok": True})
    assert out == {"password": {"value": REDACTED}, "api_key": REDACTED, "ok": True}


def test_well_known_tokens_url_credentials_and_query_tokens_in_text():
    r = Redactor()
    text = ("ghp_" + "a1B2" * 9 + " AKIAIOSFODNN7EXAMPLE sk-proj-" + "Ab3_" * 10
            + " postgres://app:pa55word@db/x https://x.example/cb?access_token=abcdef123456&x=1")
    out = r.text(text)
    for secret in ("a1B2a1B2", "AKIAIOSFODNN7EXAMPLE", "Ab3_Ab3_", "pa55word", "abcdef123456"):
        assert secret not in out
    assert "postgres://app:<redacted>@db/x" in out and "access_token=<redacted>&x=1" in out


def test_environment_secrets_and_url_passwords_including_json_escaped_forms():
    secret = 'pa"ss\\word-42'
    r = redactor(environ={"GITHUB_PAT": "tok123456789", "DATABASE_URL": "postgres://app:dbpw98765@db/x",
                          "DB_PASSWORD": secret}, key=KEY)
    result = {"text": "tok123456789 dbpw98765 " + json.dumps({"echo": secret}), "raw": secret}
    written = json.dumps(r.value(result))
    assert "tok123456789" not in written and "dbpw98765" not in written
    assert "pa" + '\\"' + "ss" not in written and "ss\\\\word" not in written
    assert r.value(result)["raw"] == placeholder_for(secret, KEY)


def test_the_live_runner_gives_servers_the_default_environment_and_the_suites_env(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-provider-key-123")
    env = server_environment({"SHOP_MODE": "test"})
    assert "OPENAI_API_KEY" not in env and env["SHOP_MODE"] == "test" and env["PATH"]
    dump = tmp_path / "env.json"
    script = f"import json, os; json.dump(dict(os.environ), open({str(dump)!r}, 'w'))"
    spec = ServerSpec("dump", (sys.executable, "-c", script), {"SHOP_MODE": "test"}, timeout=10)

    async def start():
        async with open_servers([spec]):
            pass

    with pytest.raises(Exception) as info:  # the server exits at once: a LiveError (in a task group's group)
        anyio.run(start)
    assert "InfraError" in repr(info.value) or isinstance(info.value, LiveError)  # a LiveError: the server would not start
    seen = json.loads(dump.read_text())
    assert "OPENAI_API_KEY" not in seen and seen["SHOP_MODE"] == "test"


def test_a_tools_schema_keeps_its_password_parameter():
    tool = {"name": "login", "inputSchema": {"type": "object", "properties": {
        "password": {"type": "string", "description": "the user's password"}, "api_key": {"type": "string"}}}}
    assert Redactor().value({"catalog": {"shop": {"tools": [tool]}}}) == {"catalog": {"shop": {"tools": [tool]}}}
    assert Redactor().value({"args": {"password": "hunter22"}}) == {"args": {"password": REDACTED}}
