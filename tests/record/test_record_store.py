"""Appending a run leaves every recorded run as it was, byte for byte (issue 42, item 4):
only the new recording is redacted and laid out; the old runs are copied from the file."""

from __future__ import annotations

import json

from pytest_mcptest.engine.trace import Run, ToolCall
from pytest_mcptest.formats.cassette import parse_cassette
from pytest_mcptest.record import store
from pytest_mcptest.redact import key_id, placeholder_for, redactor

KEY = b"test-redaction-key-0123"

# Written by hand or by another tool: four-space indent, keys in its own order, a float
# written 1.0, an escaped e-acute, and a token the rules of today would redact (recorded
# before they knew it, or on purpose): none of it is the recorder's to rewrite.
OLD_RUN = """{
        "tool_calls": [
            {"args": {"city": "Caf\\u00e9"}, "name": "get_weather", "result": {"t": 1.0}},
            {"name": "note", "args": {"text": "DB_PASSWORD=old-Secret-42"}}
        ],
        "meta": {"recorder": "by hand"}
    }"""
OLD = '{\n    "mcptest_cassette": 1,\n    "meta": {"agent": "a"},\n    "runs": [\n    ' + OLD_RUN + ',\n    ' \
      + OLD_RUN.replace("by hand", "by hand, twice") + '\n    ]\n}\n'


def test_appending_keeps_every_old_run_byte_for_byte(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(OLD, encoding="utf-8")
    new = Run(tool_calls=(ToolCall("note", {"text": "DB_PASSWORD=new-Secret-43"}),))
    store.save(str(path), [new], {"s": {"tools": []}}, {"recorded_at": "now"}, store.APPEND,
               redactor(environ={}, key=KEY))
    text = path.read_text(encoding="utf-8")
    assert text.count(OLD_RUN) == 1 and OLD_RUN.replace("by hand", "by hand, twice") in text
    written = json.loads(text)
    assert len(written["runs"]) == 3 and written["meta"]["agent"] == "a" and written["meta"]["recorded_at"] == "now"
    assert written["runs"][2]["tool_calls"][0]["args"]["text"] == f"DB_PASSWORD={placeholder_for('new-Secret-43', KEY)}"
    assert written["runs"][2]["meta"]["redaction_key_id"] == key_id(KEY)
    assert "redaction_key_id" not in written["runs"][0]["meta"]
    assert parse_cassette(str(path), text).runs[2].tool_calls[0].name == "note"


def test_appending_twice_keeps_the_first_append_too(tmp_path):
    path = tmp_path / "c.json"
    scrub = redactor(environ={}, key=KEY)
    store.save(str(path), [Run(tool_calls=(ToolCall("a"),))], {}, {}, store.NEW, scrub)
    first = path.read_text()
    store.save(str(path), [Run(tool_calls=(ToolCall("b"),))], {}, {}, store.APPEND, scrub)
    second = path.read_text()
    store.save(str(path), [Run(tool_calls=(ToolCall("c"),))], {}, {}, store.APPEND, scrub)
    runs = json.loads(path.read_text())["runs"]
    assert [r["tool_calls"][0]["name"] for r in runs] == ["a", "b", "c"]
    assert second.startswith(first[:first.rindex("]")].rstrip())  # the file grows at the end of its runs
    assert path.read_text().startswith(second[:second.rindex("]")].rstrip())


def test_replacing_the_runs_keeps_the_top_level_and_drops_the_old_runs(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(OLD, encoding="utf-8")
    store.save(str(path), [Run(tool_calls=(ToolCall("z"),))], {}, {}, store.REPLACE, redactor(environ={}, key=KEY))
    written = json.loads(path.read_text())
    assert written["meta"] == {"agent": "a"} and [r["tool_calls"][0]["name"] for r in written["runs"]] == ["z"]
