"""The redactor on a labelled corpus (``tests/data/secrets_corpus.json``): recall on the
positives (well-known token formats, URL credentials, query parameters, Authorization
values, assignments in .env, YAML, INI, code, netrc, Cookie headers and JSON inside JSON
strings, secret key names, environment variables) and false positives on a few thousand
lines of ordinary prose, code, cassettes and logs.

With ``--real DIR``, also every JSON, JSON Lines or concatenated-JSON file under DIR (real
catalogs, logs and traces, which hold no secret) is redacted as a recording would be, with
this environment's secrets, and every value that changed is printed: each one is a false
positive unless it is a secret.

Goal: recall 100% and no false positive. With ``detect-secrets`` installed
(``pip install detect-secrets``), its plugins are measured on the same free-text lines
beside mcptest's own patterns, which is how the hand-written patterns were chosen: the
detector's entropy and keyword plugins flag hashes and ordinary code, and it knows none of
the newer formats (``sk-proj-``, ``sk-ant-``, ``hf_``, ``github_pat_``).

    python benchmarks/bench_redact.py [--real DIR]

A report, not a test: it exits 0 whether the goal is met or missed (the test
``tests/foundations/test_redact_corpus.py`` holds the goal).
"""

from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from pytest_mcptest.redact import Redactor, redactor  # noqa: E402

KEY = b"bench-redact-key-0123456789"  # a fixed key: the bench never makes the user's key file
CORPUS = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "secrets_corpus.json")


def measure_mcptest(corpus: dict) -> dict:
    plain = Redactor()
    missed = [p for p in corpus["text_positives"] if p["secret"] in plain.text(p["text"])]
    missed += [p for p in corpus["key_positives"] if p["secret"] in json.dumps(plain.value(p["value"]))
               and p["secret"] in json.dumps(p["value"])]
    missed += [p for p in corpus["env_positives"]
               if p["secret"] in redactor(environ=p["env"], key=KEY).text(p["text"])]
    false = [line for line in corpus["negatives"] if plain.text(line) != line]
    false += [json.dumps(v) for v in corpus["key_negatives"] if plain.value(v) != v]
    false += [n["text"] for n in corpus["env_negatives"]
              if redactor(environ=n["env"], key=KEY).text(n["text"]) != n["text"]]
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


def documents(path: str):
    """The JSON values in a file: one document, JSON Lines, or concatenated objects (what
    OpenTelemetry's console exporter prints); a line that is none is kept as a string."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    decoder, at = json.JSONDecoder(), 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        try:
            value, at = decoder.raw_decode(text, at)
        except ValueError:
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            value, at = text[at:end], end
        yield value


def changed(before, after, where: str = ""):
    """``(path, value)`` of each leaf that redaction changed."""
    if isinstance(before, dict) and isinstance(after, dict):
        for (key, a), b in zip(before.items(), after.values()):
            yield from changed(a, b, f"{where}.{key}")
    elif isinstance(before, list) and isinstance(after, list):
        for i, (a, b) in enumerate(zip(before, after)):
            yield from changed(a, b, f"{where}[{i}]")
    elif before != after:
        yield where, before


def measure_real(folder: str) -> int:
    """Redact every file under ``folder``; print each change; return how many."""
    scrub = redactor(key=KEY)
    total = files = values = 0
    for root, _, names in sorted(os.walk(folder)):
        for name in sorted(names):
            if name.endswith(".md"):
                continue
            path = os.path.join(root, name)
            found = []
            for document in documents(path):
                values += count_leaves(document)
                found += list(changed(document, scrub.value(document)))
            files += 1
            total += len(found)
            for where, value in found:
                print(f"  {os.path.relpath(path, folder)}{where}: {str(value)[:100]!r}")
    print(f"real files under {folder}: {files} files, {values} values, {total} redacted (each a false positive "
          "unless a secret)")
    return total


def count_leaves(value) -> int:
    if isinstance(value, dict):
        return sum(count_leaves(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_leaves(v) for v in value)
    return 1


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
    if "--real" in sys.argv:
        measure_real(sys.argv[sys.argv.index("--real") + 1])
    met = not ours["missed"] and not ours["false"]
    print(f"goal: recall 100% on the positives, 0 false positives on the negatives: {'PASS' if met else 'MISS'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
