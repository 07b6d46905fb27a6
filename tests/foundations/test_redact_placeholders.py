"""Redaction that keeps replay working (issue 42, item 3): nothing but secrets is redacted,
the common secret shapes are, and each secret becomes a placeholder that is the same every
time the same key sees it, so a request carrying the secret still matches its recording."""

from __future__ import annotations

import json
import os
import stat

import pytest

from pytest_mcptest.redact import KEY_VARIABLE, PLACEHOLDER, REDACTED, Redactor, key_file, key_id, placeholder_for, redaction_key, redactor

KEY = b"test-redaction-key-0123"
SECRET = "Zq8-hunter2-Kx7"


def test_the_same_secret_gets_the_same_placeholder_and_another_key_another():
    first, second = redactor(environ={}, key=KEY), redactor(environ={}, key=KEY)
    hidden = placeholder_for(SECRET, KEY)
    assert PLACEHOLDER.fullmatch(hidden) and SECRET not in hidden
    assert first.value({"password": SECRET}) == second.value({"password": SECRET}) == {"password": hidden}
    assert first.text(f"DB_PASSWORD={SECRET}") == f"DB_PASSWORD={hidden}"
    assert first.value({"text": f"Authorization: Bearer {SECRET}"}) == {"text": f"Authorization: Bearer {hidden}"}
    assert placeholder_for(SECRET, b"another-key-0123456789") != hidden
    assert placeholder_for("another secret", KEY) != hidden
    assert Redactor().value({"password": SECRET}) == {"password": REDACTED}  # no key: error messages


def test_an_escaped_secret_gets_the_placeholder_of_the_secret_itself():
    secret = 'pa"ss\\word-42'
    r = redactor(environ={"DB_PASSWORD": secret}, key=KEY)
    hidden = placeholder_for(secret, KEY)
    assert r.text(json.dumps({"echo": secret})) == json.dumps({"echo": hidden})
    assert r.value({"raw": secret}) == {"raw": hidden}


def test_redacting_twice_changes_nothing_more():
    r = redactor([r"\d{4}"], environ={}, key=KEY)
    once = r.value({"text": f"password: {SECRET}, pin 1234", "api_key": 5})
    assert r.value(once) == once


@pytest.mark.parametrize("text", [
    f"DB_PASSWORD={SECRET}",                                        # .env
    f"export DB_PASSWORD=\"{SECRET}\"",
    f"database:\n  password: {SECRET}\n",                            # YAML
    f"[default]\naws_secret_access_key = {SECRET}\n",                # INI
    f"SECRET_KEY='{SECRET}'",                                        # Python
    f"machine api.example.com\n  login alice\n  password {SECRET}\n",  # netrc
    f"Cookie: sessionid={SECRET}; theme=dark",                       # a cookie header
    json.dumps({"body": json.dumps({"db": {"password": SECRET}})}),  # JSON inside a JSON string
    json.dumps({"credentials": {"user": "alice", "pass": SECRET}}),   # a JSON text's object of credentials
])
def test_common_secret_shapes_in_text_are_redacted(text):
    out = redactor(environ={}, key=KEY).value({"content": [{"type": "text", "text": text}]})
    assert SECRET not in json.dumps(out)
    assert placeholder_for(SECRET, KEY) in json.dumps(out)


def test_the_working_folder_and_paths_under_it_are_no_secret(tmp_path):
    folder = str(tmp_path / "project")
    os.mkdir(folder)
    r = redactor(environ={"PWD": folder, "OLDPWD": str(tmp_path), "GOOGLE_APPLICATION_CREDENTIALS": folder}, key=KEY)
    message = {"result": {"content": [{"type": "text", "text": f"wrote {folder}/notes.txt"}], "cwd": folder}}
    assert r.value(message) == message


def test_progress_tokens_cursors_and_ids_are_no_secret():
    request = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": "tally", "arguments": {"n": 2}, "_meta": {"progressToken": "p-7Hx2k9Qw"}}}
    note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p-7Hx2k9Qw",
                                                                            "progress": 1, "total": 2}}
    ids = {"sessionId": "3f9c2a1e-5b7d", "taskId": "task-91b2", "nextCursor": "eyJwYWdlIjogMn0=",
           "requestId": "r-12345678"}
    r = redactor(environ={}, key=KEY)
    assert r.value(request) == request and r.value(note) == note and r.value(ids) == ids


def test_a_form_asked_for_by_elicitation_keeps_its_password_field():
    form = {"requestedSchema": {"type": "object", "properties": {"password": {"type": "string"}}}}
    assert redactor(environ={}, key=KEY).value(form) == form


def test_the_key_comes_from_the_environment_when_set(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv(KEY_VARIABLE, "k" * 16)
    assert redaction_key() == b"k" * 16
    assert not os.path.exists(key_file())  # no file is made when the variable is set
    monkeypatch.setenv(KEY_VARIABLE, "short")
    with pytest.raises(ValueError, match=r"MCPTEST_REDACT_KEY holds 5 characters; a redaction key needs 16"):
        redaction_key()


def test_else_one_key_is_made_per_user_readable_by_the_user_alone(monkeypatch, tmp_path):
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    first = redaction_key()
    path = key_file()
    assert path == str(tmp_path / "mcptest" / "redact.key")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and len(first) >= 32
    assert redaction_key() == first  # kept: the next recording's placeholders are the same
    assert os.listdir(tmp_path / "mcptest") == ["redact.key"]  # no temporary left
    assert len(key_id(first)) == 8 and key_id(first) not in first.decode()


def test_a_key_file_that_cannot_be_used_is_one_clear_error(monkeypatch, tmp_path):
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    os.makedirs(tmp_path / "mcptest" / "redact.key")  # a folder where the file should be
    with pytest.raises(ValueError, match=r"redact\.key: cannot read the redaction key: .*set MCPTEST_REDACT_KEY"):
        redaction_key()
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocked))  # a file where the folder should be
    with pytest.raises(ValueError, match=r"redact\.key: cannot read the redaction key: Not a directory"):
        redaction_key()
