"""The redactor on a labelled corpus (``tests/data/secrets_corpus.json``): recall on the
positives (well-known token formats, URL credentials, query parameters, Authorization
values, secret key names, environment variables) and false positives on a few thousand
lines of ordinary prose, code, cassettes and logs.

Goal: recall 100% and no false positive. With ``detect-secrets`` installed
(``pip install detect-secrets``), its plugins are measured on the same free-text lines
beside mcptest's own patterns, which is how the hand-written patterns were chosen: the
detector's entropy and keyword plugins flag hashes and ordinary code, and it knows none of
the newer formats (``sk-proj-``, ``sk-ant-``, ``hf_``, ``github_pat_``).

    python benchmarks/bench_redact.py

A report, not a test: it exits 0 whether the goal is met or missed (the test
``tests/unit/test_redact_corpus.py`` holds the goal).
"""

from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from pytest_mcptest.record.redact import Redactor, redactor  # noqa: E402

CORPUS = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "secrets_corpus.json")


def measure_mcptest(corpus: dict) -> dict:
    plain = Redactor()
    missed = [p for p in corpus["text_positives"] if p["secret"] in plain.text(p["text"])]
    missed += [p for p in corpus["key_positives"] if p["secret"] in json.dumps(plain.value(p["value"]))
               and p["secret"] in json.dumps(p["value"])]
    missed += [p for p in corpus["env_positives"]
               if p["secret"] in redactor(environ=p["env"]).text(p["text"])]
    false = [line for line in corpus["negatives"] if plain.text(line) != line]
    false += [json.dumps(v) for v in corpus["key_negatives"] if plain.value(v) != v]
    false += [n["text"] for n in corpus["env_negatives"] if redactor(environ=n["env"]).text(n["text"]) != n["text"]]
    return {"missed": missed, "false": false}


def measure_detect_secrets(corpus: dict) -> dict | None:
    try:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    except ImportError:
        return None
    plugins = [cls() for cls in get_mapping_from_secret_type_to_class().values()]

    def found(line: str) -> set:
        out = set()
        for plugin in plugins:
            for secret in plugin.analyze_line(filename="x.txt", line=line, line_number=1):
                out.add(secret.secret_value)
        return out

    missed, false = [], []
    for p in corpus["text_positives"]:
        lines = p["text"].splitlines() or [p["text"]]
        hits = set().union(*(found(line) for line in lines))
        if not any(p["secret"] in hit or hit in p["secret"] for hit in hits if hit):
            missed.append(p)
    for line in corpus["negatives"]:
        if found(line):
            false.append(line)
    return {"missed": missed, "false": false}


def show(name: str, result: dict, positives: int, negatives: int) -> None:
    recall = 100 * (positives - len(result["missed"])) / positives
    print(f"{name}: recall {recall:.1f}% ({positives - len(result['missed'])}/{positives}), "
          f"false positives {len(result['false'])}/{negatives}")
    kinds = sorted({p.get("kind", "?") for p in result["missed"]})
    if kinds:
        print(f"  missed kinds: {', '.join(kinds)}")
    for line in result["false"][:5]:
        print(f"  false positive: {line[:100]!r}")


def main() -> int:
    with open(CORPUS, encoding="utf-8") as fh:
        corpus = json.load(fh)
    positives = len(corpus["text_positives"]) + len(corpus["key_positives"]) + len(corpus["env_positives"])
    negatives = len(corpus["negatives"]) + len(corpus["key_negatives"]) + len(corpus["env_negatives"])
    print(f"corpus: {positives} positives, {negatives} negatives")
    started = time.perf_counter()
    ours = measure_mcptest(corpus)
    elapsed = time.perf_counter() - started
    show("mcptest redactor", ours, positives, negatives)
    print(f"  {elapsed * 1000:.0f} ms for the whole corpus")
    theirs = measure_detect_secrets(corpus)
    if theirs is None:
        print("detect-secrets: not installed (pip install detect-secrets to compare)")
    else:
        show("detect-secrets plugins (free text only)", theirs, len(corpus["text_positives"]),
             len(corpus["negatives"]))
    met = not ours["missed"] and not ours["false"]
    print(f"goal: recall 100% on the positives, 0 false positives on the negatives: {'PASS' if met else 'MISS'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
