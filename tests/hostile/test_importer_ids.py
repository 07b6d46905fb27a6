"""A Claude Code transcript whose ``sessionId`` is not a string (issue 33, item 16): one line
naming the file, line and key, not a ``TypeError``."""

from __future__ import annotations

import json

import pytest

from pytest_mcptest.cli import main


@pytest.mark.parametrize("session_id, found", [({"a": 1}, "object"), ([1], "array"), (5, "number")])
def test_a_session_id_that_is_no_string_is_named(tmp_path, capsys, session_id, found):
    log = tmp_path / "t.jsonl"
    events = [{"type": "user", "sessionId": "s1", "message": {"role": "user", "content": "hi"}},
              {"type": "assistant", "sessionId": session_id,
               "message": {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}}]
    log.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    assert main(["import", "claude-code", str(log), "-o", str(tmp_path / "c.json")]) == 2
    err = capsys.readouterr().err
    assert f"t.jsonl:2 (at /sessionId): 'sessionId' must be a string, found {found}" in err
    assert "Traceback" not in err and not (tmp_path / "c.json").exists()
