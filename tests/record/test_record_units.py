"""The pure parts of recording: record modes, drift, redaction, the one cassette writer."""

from __future__ import annotations

import json
import os

import pytest

from pytest_mcptest.formats.cassette import Cassette, dump_cassette, parse_cassette, write_cassette
from pytest_mcptest.engine.trace import Run, ToolCall
from pytest_mcptest.record import drift, modes
from pytest_mcptest.redact import compile_patterns, placeholder_for, redactor

KEY = b"test-redaction-key-0123"

PATH = "cassettes/weather.json"


# -- record modes ---------------------------------------------------------------------------


def test_none_replays_an_existing_cassette():
    d = modes.decide("none", PATH, cassette_exists=True, runs_recorded=3)
    assert (d.action, d.runs_to_record, d.runs_to_judge, d.message) == ("replay", 0, None, "")


def test_none_with_no_cassette_says_where_and_how_to_record():
    d = modes.decide("none", PATH, cassette_exists=False, can_record=True)
    assert d.action == "fail"
    assert f"no cassette at {PATH}" in d.message
    for way in ("mcptest record --out cassettes/weather.json --", "mcptest_recorder", "mcptest import"):
        assert way in d.message


def test_once_records_when_missing_and_replays_when_present():
    missing = modes.decide("once", PATH, cassette_exists=False, runs_wanted=5, can_record=True, recorder="the runner")
    assert (missing.action, missing.runs_to_record) == ("record", 5)
    assert "the runner" in missing.note
    present = modes.decide("once", PATH, cassette_exists=True, runs_recorded=5, runs_wanted=5, can_record=True)
    assert present.action == "replay" and not present.records


def test_new_episodes_appends_up_to_runs_then_replays():
    d = modes.decide("new_episodes", PATH, cassette_exists=True, runs_recorded=3, runs_wanted=10, can_record=True)
    assert (d.action, d.runs_to_record, d.runs_to_judge) == ("append", 7, 10)
    assert "appending 7 run(s) to the 3" in d.note
    full = modes.decide("new_episodes", PATH, cassette_exists=True, runs_recorded=10, runs_wanted=10, can_record=True)
    assert full.action == "replay"
    fresh = modes.decide("new_episodes", PATH, cassette_exists=False, runs_wanted=2, can_record=True)
    assert (fresh.action, fresh.runs_to_record) == ("record", 2)


def test_all_records_anew_and_rewrite_discards():
    d = modes.decide("all", PATH, cassette_exists=True, runs_recorded=4, runs_wanted=4, can_record=True)
    assert (d.action, d.runs_to_record) == ("record", 4)
    assert "re-recording 4 run(s)" in d.note
    r = modes.decide("rewrite", PATH, cassette_exists=True, runs_recorded=4, can_record=True)
    assert (r.action, r.runs_to_record) == ("rewrite", 1)
    assert "discarding" in r.note


@pytest.mark.parametrize("mode", ["once", "new_episodes", "all", "rewrite"])
def test_a_mode_that_cannot_record_says_so_in_one_line(mode):
    d = modes.decide(mode, PATH, cassette_exists=False, can_record=False)
    assert d.action == "fail"
    first = d.message.split(";")[0]
    assert first == f"record mode {mode}: nothing can record {PATH} (no agent runner or recorder stands behind this item)"
    assert "\n" not in d.message


def test_a_mode_that_cannot_record_replays_an_existing_cassette_and_says_so():
    d = modes.decide("all", PATH, cassette_exists=True, runs_recorded=2, can_record=False)
    assert d.action == "replay"
    assert d.note.startswith(f"record mode all: nothing can record {PATH}")
    assert "replayed the cassette as it is" in d.note


def test_fewer_runs_than_wanted_fails_naming_both_numbers():
    d = modes.decide("none", PATH, cassette_exists=True, runs_recorded=3, runs_wanted=10)
    assert d.action == "fail"
    assert "holds 3 recorded run(s) but the item asks for runs: 10" in d.message


def test_more_runs_than_wanted_judges_the_first_n_and_says_so():
    d = modes.decide("none", PATH, cassette_exists=True, runs_recorded=12, runs_wanted=10)
    assert (d.action, d.runs_to_judge) == ("replay", 10)
    assert d.note == f"judged the first 10 of the 12 runs recorded in {PATH} (runs: 10)"


def test_bad_mode_and_runs_zero_are_refused():
    with pytest.raises(ValueError, match="record mode must be one of none, once, new_episodes, all, rewrite, "
                                         "found 'sometimes'"):
        modes.decide("sometimes", PATH, cassette_exists=True)
    with pytest.raises(ValueError, match="runs must be at least 1, found 0"):
        modes.decide("none", PATH, cassette_exists=True, runs_wanted=0)


# -- drift ----------------------------------------------------------------------------------

CATALOG = {"shop": {"tools": [{"name": "get_weather", "inputSchema": {"type": "object", "properties": {}}}]}}


def recorded_meta():
    return {"model": "anthropic:claude-sonnet-4-5", "prompt_sha256": drift.prompt_sha256("Weather in Paris?"),
            "catalog_sha256": drift.catalog_sha256(CATALOG)}


def test_catalog_hash_ignores_key_order_but_not_content():
    reordered = {"shop": {"tools": [{"inputSchema": {"properties": {}, "type": "object"}, "name": "get_weather"}]}}
    assert drift.catalog_sha256(reordered) == drift.catalog_sha256(CATALOG)
    renamed = {"shop": {"tools": [{"name": "weather", "inputSchema": {"type": "object", "properties": {}}}]}}
    assert drift.catalog_sha256(renamed) != drift.catalog_sha256(CATALOG)
    assert len(drift.catalog_sha256(CATALOG)) == 64


def test_no_drift_when_everything_matches():
    d = drift.compare(recorded_meta(), PATH, "s.mcptest.yml::weather", model="anthropic:claude-sonnet-4-5",
                      prompt="Weather in Paris?", catalog=CATALOG)
    assert not d.changes and d.message() == ""


def test_drift_in_the_model():
    d = drift.compare(recorded_meta(), PATH, "s.mcptest.yml::weather", model="openai:gpt-5")
    assert [c.field for c in d.changes] == ["model"]
    assert "model: recorded with anthropic:claude-sonnet-4-5, the suite now says openai:gpt-5" in d.message()
    assert "re-record: pytest s.mcptest.yml::weather --mcptest-record-mode=all" in d.message()


def test_drift_in_the_prompt_and_the_system_prompt():
    d = drift.compare(recorded_meta(), PATH, "s::w", prompt="Weather in Rome?")
    assert [c.field for c in d.changes] == ["prompt"]
    d2 = drift.compare(recorded_meta(), PATH, "s::w", prompt="Weather in Paris?", system_prompt="Be terse.")
    assert [c.field for c in d2.changes] == ["prompt"]


def test_drift_in_the_live_catalog():
    live = {"shop": {"tools": CATALOG["shop"]["tools"] + [{"name": "get_forecast"}]}}
    d = drift.compare(recorded_meta(), PATH, "s.mcptest.yml::weather item", catalog=live)
    assert [c.field for c in d.changes] == ["catalog"]
    assert "catalog: changed since recording" in d.message()
    assert "pytest 's.mcptest.yml::weather item' --mcptest-record-mode=all" in d.message()


def test_nothing_recorded_means_nothing_compared():
    d = drift.compare({}, PATH, "s::w", model="x", prompt="p", catalog=CATALOG)
    assert not d.changes


# -- redaction ------------------------------------------------------------------------------


def test_environment_secrets_bearer_tokens_and_user_patterns_are_redacted():
    env = {"SHOP_API_KEY": "sk-live-123456789", "HOME": "/home/me", "AUTH_MODE": "1"}
    r = redactor([r"acct-\d{4}"], environ=env, key=KEY)
    data = {"args": {"q": "use sk-live-123456789 please", "headers": {"Authorization": "Basic abc"}},
            "result": {"content": [{"type": "text", "text": "Bearer eyJhbGciOi.payload for acct-1234 at /home/me"}]},
            "count": 1}
    out = r.value(data)
    text = json.dumps(out)
    assert "sk-live-123456789" not in text and "eyJhbGciOi" not in text and "acct-1234" not in text
    assert out["args"]["headers"]["Authorization"] == placeholder_for("Basic abc", KEY)
    assert out["args"]["q"] == f"use {placeholder_for('sk-live-123456789', KEY)} please"
    assert "/home/me" in text  # HOME is no secret
    assert out["count"] == 1 and "1" in json.dumps(out["count"])  # AUTH_MODE=1 is too short to redact


def test_bad_user_patterns_are_named():
    with pytest.raises(ValueError, match=r"--mcptest-redact: '\(' is not a valid regular expression"):
        compile_patterns(["("])
    with pytest.raises(ValueError, match="matches the empty string"):
        compile_patterns(["x*"])


# -- the writer -----------------------------------------------------------------------------


def test_the_writer_puts_known_keys_first_in_a_fixed_order():
    run = Run(tool_calls=(ToolCall("t", {}, result={"b": 1, "a": 2}),), meta={"z": 1, "model": "m"})
    text = dump_cassette(Cassette(runs=(run,)))
    assert list(json.loads(text)) == ["mcptest_cassette", "runs"]
    assert text.index('"meta"') < text.index('"name"') < text.index('"args"') < text.index('"result"')
    assert text.index('"b"') < text.index('"a"') and text.index('"z"') < text.index('"model"')  # values keep their order
    assert parse_cassette("x.json", text).runs[0].tool_calls[0].name == "t"


@pytest.mark.parametrize("where, error", [
    ("open", PermissionError(13, "Permission denied")),      # a read-only folder
    ("write", OSError(28, "No space left on device")),        # a full disk
    ("replace", OSError(30, "Read-only file system")),        # the rename refused
    ("write", KeyboardInterrupt()),                           # Ctrl-C mid-write
])
def test_a_failed_write_leaves_the_old_cassette_and_no_temporary(tmp_path, monkeypatch, where, error):
    """Simulated at the system call, since these tests may run as root (who may write anywhere)."""
    path = tmp_path / "c.json"
    write_cassette(str(path), Cassette(runs=()))
    before = path.read_bytes()
    real_open, real_fdopen = os.open, os.fdopen

    class Failing:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def fileno(self):
            return self.fh.fileno()

        def write(self, text):
            self.fh.write(text[:10])
            raise error

    def fake_open(file, flags, *args, **kwargs):
        if ".tmp-" in str(file) and where == "open":
            raise error
        return real_open(file, flags, *args, **kwargs)

    def fake_fdopen(fd, mode="r", *args, **kwargs):
        fh = real_fdopen(fd, mode, *args, **kwargs)
        return Failing(fh) if where == "write" and "w" in mode else fh

    def fake_replace(src, dst):
        raise error

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(os, "fdopen", fake_fdopen)
    if where == "replace":
        monkeypatch.setattr(os, "replace", fake_replace)
    with pytest.raises(type(error)):
        write_cassette(str(path), Cassette(runs=(Run(),)), overwrite=True)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["c.json"]


def test_runs_zero_is_refused_at_collection(tmp_path):
    from pytest_mcptest.errors import InputError
    from pytest_mcptest.gates.suite_build import load_suite

    suite = tmp_path / "s.mcptest.yml"
    suite.write_text("agents:\n  - name: w\n    runs: 0\n    cassette: x.json\n")
    with pytest.raises(InputError, match="runs must be >= 1, found 0") as info:
        load_suite(str(suite))
    assert info.value.line == 3


def test_servers_may_carry_redact_patterns(tmp_path):
    from pytest_mcptest.gates.suite_build import load_suite

    suite = tmp_path / "s.mcptest.yml"
    suite.write_text('servers:\n  shop:\n    catalog: c.json\n    redact: ["acct-\\\\d+"]\n'
                     'tool_quality:\n  - {name: q, server: shop}\n')
    assert load_suite(str(suite)).servers["shop"]["redact"] == ["acct-\\d+"]


def test_appending_keeps_the_keys_the_model_has_no_field_for(tmp_path):
    """The format is open to keys of a user's or another tool's: a recorder that appends a run
    rewrites the file without losing them (at the top, in a kept run, call, message, conversation
    or its token counts), and a
    recorder that replaces the runs keeps the top level's."""
    from pytest_mcptest.record import store

    path = tmp_path / "c.json"
    path.write_text(json.dumps({
        "mcptest_cassette": 1, "reviewed_by": "ana",
        "runs": [{"tool_calls": [{"name": "ping", "args": {}, "ticket": "T-1"}], "note": "flaky on Mondays",
                  "messages": [{"from": "host", "message": {"jsonrpc": "2.0", "method": "ping"}, "seen": 1}],
                  "conversation": {"turns": [], "tokens": {"input": 3, "output": 2, "cache_read": 7}, "lang": "en"}}]}))
    new = Run(tool_calls=(ToolCall(name="pong"),))
    store.save(str(path), [new], {}, {}, store.APPEND, redactor(()))
    written = json.loads(path.read_text())
    assert written["reviewed_by"] == "ana"
    assert written["runs"][0]["note"] == "flaky on Mondays" and written["runs"][0]["tool_calls"][0]["ticket"] == "T-1"
    assert written["runs"][0]["messages"][0]["seen"] == 1
    assert written["runs"][0]["conversation"]["lang"] == "en"
    assert written["runs"][0]["conversation"]["tokens"] == {"input": 3, "output": 2, "cache_read": 7}
    assert [c["name"] for r in written["runs"] for c in r["tool_calls"]] == ["ping", "pong"]
    assert parse_cassette(str(path), path.read_text()).runs[1].tool_calls[0].name == "pong"
    store.save(str(path), [new], {}, {}, store.REPLACE, redactor(()))
    replaced = json.loads(path.read_text())
    assert replaced["reviewed_by"] == "ana" and len(replaced["runs"]) == 1 and "note" not in replaced["runs"][0]
