"""The fast YAML reader either declines a text (None) or gives exactly what libyaml's path gives:
the same values of the same types, the same LineDict/LineList classes and every line the
same (each collection's, each key's and item's, each document's start)."""

from __future__ import annotations

import json
import pathlib
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import budget

from pytest_mcptest.errors import InputError
from pytest_mcptest.suite import fastyaml
from pytest_mcptest.suite.loader import LineDict, LineList, load_documents, read_with_libyaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import realistic  # noqa: E402


def assert_same(fast, slow, where="$"):
    assert type(fast) is type(slow), f"{where}: {fast!r} vs {slow!r}"
    if type(fast) is LineDict:
        assert fast.line == slow.line, where
        assert list(fast) == list(slow), where
        assert fast.key_lines == slow.key_lines, where
        for key in fast:
            assert_same(fast[key], slow[key], f"{where}.{key}")
    elif type(fast) is LineList:
        assert fast.line == slow.line, where
        assert fast.item_lines == slow.item_lines, where
        assert len(fast) == len(slow), where
        for i, (a, b) in enumerate(zip(fast, slow)):
            assert_same(a, b, f"{where}[{i}]")
    else:
        assert fast == slow and repr(fast) == repr(slow), f"{where}: {fast!r} vs {slow!r}"


def agree(text: str):
    """The fast reader's documents (checked against libyaml's), or None where it declines."""
    fast = fastyaml.read(text)
    if fast is None:
        return None
    try:
        slow = read_with_libyaml("t.yml", text)
    except InputError as exc:
        pytest.fail(f"the fast reader took a text libyaml refuses ({exc.message}): {text!r}")
    assert [line for _, line in fast] == [line for _, line in slow], text
    assert len(fast) == len(slow)
    for (a, _), (b, _) in zip(fast, slow):
        assert_same(a, b)
    return fast


def test_realistic_suites_are_read_fast(tmp_path):
    realistic.generate_mcptest(str(tmp_path), 12, 3)
    files = sorted(tmp_path.glob("*.mcptest.yml"))
    assert len(files) == 3
    for path in files:
        docs = agree(path.read_text(encoding="utf-8"))
        assert docs is not None, path
        assert len(docs[0][0]["scenarios"]) == 4


def test_examples_are_read_fast_where_in_the_subset():
    suites = sorted((ROOT / "examples").rglob("*.mcptest.yml"))
    others = sorted(set((ROOT / "examples").rglob("*.yml")) - set(suites)) + sorted((ROOT / "tests").rglob("*.yml"))
    read = [path for path in suites + others if agree(path.read_text(encoding="utf-8")) is not None]
    assert len([p for p in read if p in suites]) >= 8  # all but weather's block scalars (|)
    assert len(read) >= 20


# Each: (text, whether the fast reader must take it). Either way what it gives equals libyaml's.
CASES = [
    ("a: b: c\n", False),
    ("a:b\n", False),
    ("k: a:b\n", True),
    ("- -1\n", True),
    ("key: 'it''s'\n", True),
    ('k: "\\u00e9"\n', True),
    ('"\\u00e9": 1\n', True),
    ("k: #comment\n", True),
    ("k: a #b\n", True),
    ("k: a#b\n", True),
    ("k: a   # b: c\n", True),
    ("k: {a: 1,}\n", False),
    ("k: [a, [b]]\n", True),
    ("- {}\n- []\n", True),
    ("x: -\n", False),
    ("x: - a\n", False),
    ("a:\n  - b\n c: d\n", False),
    ("a: 1   \nb:   \n", True),
    ("a: 1\r\nb:\r\n  - c\r\n", True),
    ("a: 1\rb: 2\n", False),
    ("a: 1\nb: 2", True),
    ("ключ: значение\n名前: 値\n", True),
    ("n: [1_000, +1, .5, 1e3, 0x1F, 0o17, 010, 1., -1.5e-3, 0o8, 0xG]\n", True),
    ("n: -.inf\n", False),
    ("n: .NaN\n", False),
    ("n: 1e999\n", False),
    ("n: 1" + "0" * 5000 + "\n", False),
    ("n: [~, null, Null, NULL, nUll, TRUE, True, true, tRUE, yes, No, on, 2026-01-01]\nt: 1:30\n", True),
    ("1: x\n", False),
    ("true: x\n", False),
    ("~: x\n", False),
    ("'1': x\n'true': y\n", True),
    ("k: {1: x}\n", False),
    ("k: {'1': x}\n", True),
    ("a: 1\na: 2\n", False),
    ("k: {a: 1, a: 2}\n", False),
    ("a: &x 1\nb: *x\n", False),
    ("a: !!str 1\n", False),
    ("<<: {a: 1}\n", False),
    ("k: <<\n", False),
    ("? a\n: b\n", False),
    ("%YAML 1.2\n---\na: 1\n", False),
    ("a: |\n  text\n", False),
    ("a: >-\n  text\n", False),
    ("a: one\n  two\n", False),
    ("a: 'one\n  two'\n", False),
    ("a: [x,\n  y]\n", False),
    ("a: 1\n...\n", False),
    ("\ufeffa: 1\n", False),
    ("a:\tb\n", False),
    ("a: b\x07\n", False),
    ("a: \x85b\n", False),
    ("a: @x\n", False),
    ("a: `x`\n", False),
    ("a: %x\n", False),
    ("a: ? x\n", False),
    ("a: [- x]\n", False),
    ("a: [-x, --y, -1]\n", True),
    ("a: [x: 1]\n", False),
    ("a: {x: [1, {y: 'z'}], w: \"v\"}  # c\n", True),
    ("a: {x: 1}#c\n", False),
    ("a: 'x'#c\n", False),
    ("a: 'x' y\n", False),
    ('a: "x\\qy"\n', False),
    ('a: "\\ud83d\\ude00"\n', False),
    ('a: "\\x41\\t\\n\\\\\\"\\/\\_\\N\\L\\P\\e\\0\\ \\U0001F600"\n', True),
    ("- a: 1\n  b: 2\n- c\n", True),
    ("-   a: 1\n    b:\n      - x\n", True),
    ("- a:\n  - x\n- b:\n    c: d\n", True),
    ("-\n  a: 1\n-\n-\n  - x\n", True),
    ("- - x\n", False),
    ("a:\n- x\n- y\nb: z\n", True),
    ("a:\n  b:\n  - x\n  c: 1\n", True),
    ("a:\n  - x\n  b: 1\n", False),
    ("- x\nb: 1\n", False),
    ("  a: 1\n  b: 2\n", True),
    ("a: 1\n b: 2\n", False),
    ("a : 1\n", False),
    ("'a' : 1\n", False),
    ("# c\n\n---\n# d\na: 1\n---\n---\n- x\n--- # e\n", True),
    ("---\n", True),
    ("", True),
    ("# only a comment\n", True),
    ("--- a\n", False),
    ("---a: 1\n", False),
    ("k: ---\n", True),
    ("tool_calls[-1].name: {exact: mark_full}\n", True),
    ('">=": 0.33\n', True),
    ("k: {\">=\": 0.33, '<': -2}\n", True),
    ("k: {url: http://x}\n", False),
    ("k: http://x, y\n", True),
    ("k: {a b: c d}\n", True),
    ("k: [it's, a\"b]\n", True),
    ("k: ['', \"\"]\n'': x\n", True),
    ("k: {a: }\n", False),
    ("k: {a}\n", False),
    ("a: {b: 1} x\n", False),
    ("k" * 1100 + ": v\n", False),
]


@pytest.mark.parametrize("text, taken", CASES)
def test_hand_written_cases(text, taken):
    docs = agree(text)
    assert (docs is not None) == taken, docs


def test_load_documents_reads_through_the_fast_reader_and_errors_through_libyaml():
    text = "a:\n  - {b: 1}\n"
    assert load_documents("t.yml", text) == fastyaml.read(text)
    with pytest.raises(InputError) as exc:
        load_documents("t.yml", "a: 1\nb:\n  c: 1\n  c: 2\n")
    assert exc.value.line == 4 and "duplicate key 'c'" in exc.value.message


def test_pathological_texts_are_declined():
    """Texts the reader declines (libyaml reads them instead); how fast it declines them is
    measured in benchmarks/bench_yaml.py, not here."""
    assert fastyaml.read("".join(f"{' ' * i}-\n" for i in range(3000))) is None  # deep block nesting
    assert fastyaml.read("a: " + "[" * 150 + "]" * 150 + "\n") is None  # deep flow nesting
    assert fastyaml.read("a: b" + " " * 200_000 + "c: d\n") is None
    assert fastyaml.read("'" * 200_001 + ": 1\n") is None
    assert fastyaml.read("a: " + "x " * 100_000 + ":\n") is None
    assert fastyaml.read("k: [" + "a " * 100_000 + "\n") is None
    assert fastyaml.read("a:\n" + "  - x\n" * 50_000) is not None


# --- property tests: a grammar of the subset, rendered in its styles, then mutated

WORDS = ["a", "b c", "name", "x-y", "é", "it's", "k.l", "a/b", "-x", "1", "-2", "2.5", "1e3", "0x1F",
         "010", "true", "False", "null", "~", "yes", "2026-01-01", "1_000", ".5", "+1", "x y  z", "日本"]
TRICKY = WORDS + ["a#b", "a:b", "k[0]", "", " ", "a: b", "a #b", "#x", "- a", "-", "&x", "*x", "!x", "|", ">",
                  "%x", "@x", "`x`", "? x", ": x", "{a", "[a", "a,b", "a]", "'", '"', "\\", "\t", "---", "...", "<<", ".inf", "-.Inf", ".nan",
                  "1e999", "a\\u00e9", "\x85", "\u2028", "\ufeff", "\x7f"]


def scalar_text(value: str, style: int, flow: bool) -> str:
    if style == 1:
        return "'" + value.replace("'", "''") + "'"
    if style == 2:
        return json.dumps(value)
    return value if value or not flow else "''"


# Each strategy is built once and drawn from many times: hypothesis checks a strategy when it
# is first drawn from, and building them afresh at every node cost more than the reading tested.
_KIND = {True: st.sampled_from(["scalar", "scalar", "map", "seq"]), False: st.sampled_from(["scalar"])}
_STYLE = st.integers(0, 2)
_SIZE = {True: st.integers(0, 3), False: st.integers(1, 3)}  # by "is this a nested collection"
_KEYS = [st.lists(st.sampled_from(["a", "b", "name", "x y", "é", "k.l", "'q'", "\"d\""]),
                  min_size=size, max_size=size, unique=True) for size in range(4)]
_BOOL = st.booleans()
_TREES: dict = {}


def trees(words, depth=0):
    """A tree of maps, sequences and scalars (of ``words``), up to 4 deep: the same strategy
    object for the same ``words`` and depth."""
    key = (tuple(words), depth)
    if key not in _TREES:
        _TREES[key] = _trees(words, depth, st.sampled_from(words))
    return _TREES[key]


@st.composite
def _trees(draw, words, depth, word):
    kind = draw(_KIND[depth < 4])
    if kind == "scalar":
        return ("scalar", draw(word), draw(_STYLE))
    size = draw(_SIZE[bool(depth)])
    children = [draw(trees(words, depth + 1)) for _ in range(size)]
    if kind == "map":
        keys = draw(_KEYS[size])
        return ("map", list(zip(keys, children)), draw(_BOOL))
    return ("seq", children, draw(_BOOL))


def flow_text(node) -> str:
    kind, body, style = node
    if kind == "scalar":
        return scalar_text(body, style, True)
    if kind == "map":
        return "{" + ", ".join(f"{key}: {flow_text(child)}" for key, child in body) + "}"
    return "[" + ", ".join(flow_text(child) for child in body) + "]"


def block_lines(node, indent: int, draw) -> list[str]:
    """``node`` (a collection) as block lines at ``indent``."""
    kind, body, _ = node
    pad = " " * indent
    lines = []
    for entry in body:
        key, child = entry if kind == "map" else (None, entry)
        head = f"{pad}{key}:" if kind == "map" else f"{pad}-"
        if child[0] == "scalar" or child[2] or not child[1]:
            comment = draw(_NOTE)
            lines.append(f"{head} {flow_text(child)}{comment}")
        elif kind == "seq" and child[0] == "map" and draw(_BOOL):
            inner = block_lines(child, indent + 2, draw)  # '- key: value' with the rest below
            lines.append(f"{pad}- {inner[0].lstrip(' ')}")
            lines.extend(inner[1:])
        else:
            lines.append(head + draw(_HEAD_COMMENT))
            if draw(_BOOL):
                lines.append(draw(_BETWEEN))
            deeper = 0 if kind == "map" and child[0] == "seq" and draw(_BOOL) else draw(_DEEPER)
            lines.extend(block_lines(child, indent + deeper, draw))
    return lines


_NOTE = st.sampled_from(["", "", "  # note"])
_HEAD_COMMENT = st.sampled_from(["", "", "  # c"])
_BETWEEN = st.sampled_from(["", "# between", "   # indented comment"])
_DEEPER = st.integers(1, 3)


@st.composite
def documents(draw, words):
    docs = []
    for _ in range(draw(_DOCS)):
        root = draw(roots(words))
        root = (root[0], root[1], False)
        docs.append("\n".join(block_lines(root, draw(_INDENT), draw)))
    head = draw(_HEAD)
    tail = draw(_TAIL)
    return head + "\n---\n".join(docs) + tail


_DOCS = st.integers(1, 3)
_INDENT = st.sampled_from([0, 0, 2])
_HEAD = st.sampled_from(["", "# head\n", "---\n", "# a\n\n---\n"])
_TAIL = st.sampled_from(["\n", "", "\n---\n", "\n\n# end\n"])
_ROOTS: dict = {}


def roots(words):
    """A tree whose root is a collection with something in it."""
    key = tuple(words)
    if key not in _ROOTS:
        _ROOTS[key] = trees(words).filter(lambda t: t[0] != "scalar" and t[1])
    return _ROOTS[key]


MUTATIONS = list(" :#-'\"{}[],!&*?|>%@\t\r\n\\x~.0") + [": ", " #", "- ", "  ", "\n  ", "---", "\u00e9"]


@st.composite
def mutated(draw):
    text = draw(_TRICKY_DOCUMENTS)
    for _ in range(draw(_EDITS)):
        at = draw(st.integers(0, len(text)))
        if draw(_BOOL):
            text = text[:at] + draw(_MUTATION) + text[at:]
        else:
            text = text[:at] + text[at + draw(_CUT):]
    return text


_TRICKY_DOCUMENTS = documents(TRICKY)
_EDITS = st.integers(0, 3)
_MUTATION = st.sampled_from(MUTATIONS)
_CUT = st.integers(1, 3)


@settings(max_examples=budget(200), deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(WORDS))
def test_the_subset_is_read_fast_and_the_same(text):
    assert agree(text) is not None, text


@settings(max_examples=budget(250), deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_any_text_is_declined_or_read_the_same(text):
    agree(text)


PIECES = list("ab1 :#-'\"{}[],!&*?|>%@`\\.~+eE0x_/<=é") + [": ", " #", "- ", "\\u00e9", "''", "true", "null", ".inf"]
PLACES = ["k: {}\n", "- {}\n", "{}: v\n", "k: [{}]\n", "k: {{{}: v}}\n", "k: {{a: {}}}\n", "- {}: v\n", "k: [a, {}]\n",
          "k: {}  # c\n", "{}\n", "- - {}\n", "a:\n  {}\n", "a:\n{}\n"]


@settings(max_examples=budget(500), deadline=None, database=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=7).map("".join), st.sampled_from(PLACES))
def test_any_scalar_in_any_place_is_declined_or_read_the_same(piece, place):
    agree(place.format(piece))
