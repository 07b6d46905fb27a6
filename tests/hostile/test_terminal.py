"""What a cassette or a server says never drives the user's terminal, and never breaks the
JUnit XML (issue 33, items 12 and 13): control and bidi characters are shown escaped."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from pytest_mcptest.cli import main
from pytest_mcptest.text import printable

EVIL = "get\x0bweather\x1b]0;PWNED\x07\u202eevil"
RAW = ("\x1b", "\x07", "\x0b", "\u202e")


def _catalog(path):
    path.write_text(json.dumps({"tools": [{"name": EVIL, "description": "x",
                                           "inputSchema": {"type": "object"}}]}))


def test_printable_escapes_controls_and_bidi_and_keeps_lines():
    assert printable("a\x1b[2Jb\u202ec\n\td\x9b") == "a\\x1b[2Jb\\u202ec\n\td\\x9b"


def test_failure_text_notes_and_junit_properties_are_escaped(pytester):
    _catalog(pytester.path / "cat.json")
    pytester.makefile(".mcptest.yml", s="servers:\n  shop: {catalog: cat.json}\n"
                                        "tool_quality:\n  - name: q\n    server: shop\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--junitxml=j.xml")
    result.assert_outcomes(failed=1)
    text = "\n".join(result.outlines)
    assert not any(c in text for c in RAW)
    assert "get\\x0bweather\\x1b]0;PWNED\\x07\\u202eevil" in text
    tree = ET.parse(pytester.path / "j.xml")  # well-formed: the name holds no \x0b
    names = [p.get("name") for p in tree.iter("property")]
    assert any("get\\u000bweather" in name for name in names)


def test_a_drift_note_quoting_meta_model_is_escaped(pytester):
    cassette = {"mcptest_cassette": 1, "meta": {"model": "openai:gpt\x1b[2J\u202e-4o"},
                "runs": [{"tool_calls": [{"name": "ping"}]}]}
    (pytester.path / "c.json").write_text(json.dumps(cassette))
    pytester.makefile(".mcptest.yml", s="agents:\n  - name: a\n    model: openai:gpt-4o-mini\n"
                                        "    prompt: hi\n    cassette: c.json\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    text = "\n".join(result.outlines)
    assert "gpt\\x1b[2J\\u202e-4o" in text and not any(c in text for c in RAW)


def test_doctor_escapes_what_the_catalog_says(tmp_path, capsys):
    _catalog(tmp_path / "cat.json")
    main(["doctor", "--lint-descriptions", "--catalog", str(tmp_path / "cat.json")])
    out = capsys.readouterr()
    assert EVIL not in out.out + out.err and not any(c in out.out + out.err for c in RAW)
    assert "get\\x0bweather" in out.out
