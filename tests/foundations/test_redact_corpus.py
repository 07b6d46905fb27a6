"""The redactor on its labelled corpus (``tests/data/secrets_corpus.json``; the same
measurement, with detect-secrets beside it, is ``benchmarks/bench_redact.py``): every
positive caught, no negative changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_mcptest.redact import Redactor, redactor

CORPUS = json.loads((Path(__file__).parents[1] / "data" / "secrets_corpus.json").read_text(encoding="utf-8"))
PLAIN = Redactor()
KEY = b"test-redaction-key-0123"


@pytest.mark.parametrize("case", CORPUS["text_positives"], ids=lambda c: c["kind"])
def test_every_token_in_text_is_caught(case):
    assert case["secret"] not in PLAIN.text(case["text"])


@pytest.mark.parametrize("case", CORPUS["key_positives"], ids=lambda c: c["kind"])
def test_every_secret_key_value_is_caught(case):
    assert case["secret"] not in json.dumps(PLAIN.value(case["value"]))


@pytest.mark.parametrize("case", CORPUS["env_positives"], ids=lambda c: c["kind"])
def test_every_environment_secret_is_caught(case):
    assert case["secret"] not in redactor(environ=case["env"], key=KEY).text(case["text"])


def test_no_negative_line_is_changed():
    changed = [line for line in CORPUS["negatives"] if PLAIN.text(line) != line]
    assert changed == []
    assert len(CORPUS["negatives"]) > 3000


def test_no_ordinary_key_or_variable_is_scrubbed():
    for value in CORPUS["key_negatives"]:
        assert PLAIN.value(value) == value
    for case in CORPUS["env_negatives"]:
        assert redactor(environ=case["env"], key=KEY).text(case["text"]) == case["text"]
