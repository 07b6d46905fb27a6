"""``mcptest init CASSETTE``: a starting suite written from what a cassette recorded.

What a recording shows becomes what the suite expects, so that the suite passes on the
cassette it came from and fails when a later recording moves: the calls in order with
the shape of their arguments (``expected_trace:``, a JSON Schema per tool inferred from
every recorded call by genson), the path taken (``golden:``, loosened only where the
recording itself repeats or goes back), and budgets of calls and tokens at the most any
run spent. The same inferences rewrite a failing item under ``--mcptest-update-expect``
(:mod:`.update_expect`).
"""

from __future__ import annotations

import io
import os
from collections import Counter
from typing import Any, Optional

from ..engine.trace import Run

KINDS = ("agent", "scenario")
MAX_PATHS = 10  # distinct recorded paths a golden block lists (the golden path and its alternates)


class InitError(Exception):
    """What keeps a suite from being written (one line, for stderr)."""


def _tool_schemas(runs: tuple[Run, ...]) -> dict[str, Optional[dict]]:
    """Each tool's argument schema, fitting every recorded call of it; None when some call
    has no argument object (it is then expected by name alone)."""
    from genson import SchemaBuilder

    builders: dict[str, Any] = {}
    for run in runs:
        for call in run.tool_calls:
            if call.name in builders and builders[call.name] is None:
                continue
            if not isinstance(call.args, dict) or call.args_invalid_json:
                builders[call.name] = None
                continue
            builder = builders.setdefault(call.name, SchemaBuilder(schema_uri=False))
            builder.add_object(call.args)
    return {name: None if b is None else b.to_schema() for name, b in builders.items()}


def _common_subsequence(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    """A longest common subsequence of two name sequences (dynamic programming)."""
    rows = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            rows[i][j] = rows[i + 1][j + 1] + 1 if a[i] == b[j] else max(rows[i + 1][j], rows[i][j + 1])
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            out.append(a[i])
            i, j = i + 1, j + 1
        elif rows[i + 1][j] >= rows[i][j + 1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def expected_trace(runs: tuple[Run, ...]) -> dict:
    """``expected_trace:`` that every run passes: ``strict`` over the one path when all runs
    took it, else ``subsequence`` over the calls they have in common, in order."""
    paths = [run.names for run in runs]
    same = all(p == paths[0] for p in paths)
    names = paths[0] if same or not paths else paths[0]
    if not same:
        for path in paths[1:]:
            names = _common_subsequence(names, path)
    schemas = _tool_schemas(runs)
    calls: list = []
    for name in names:
        schema = schemas.get(name)
        calls.append(name if schema is None else {"name": name, "args": {"schema": schema}})
    return {"mode": "strict" if same else "subsequence", "calls": calls}


def golden(runs: tuple[Run, ...]) -> Optional[dict]:
    """``golden:`` that every run passes: the most common path, the others as alternates,
    and a penalty turned off only where some run already repeats or goes back. None when
    the runs took more than :data:`MAX_PATHS` paths (no path is golden then)."""
    counts = Counter(run.names for run in runs)
    if not counts or len(counts) > MAX_PATHS:
        return None
    order = {path: i for i, path in reversed(list(enumerate(run.names for run in runs)))}  # first seen
    paths = sorted(counts, key=lambda p: (-counts[p], order[p]))
    out: dict = {"calls": list(paths[0])}
    if len(paths) > 1:
        out["alternates"] = [list(p) for p in paths[1:]]
    if any(a == b for p in paths for a, b in zip(p, p[1:])):
        out["penalize_repeated_tools"] = False
    if any(len(p) - sum(a == b for a, b in zip(p, p[1:])) > len(set(p)) for p in paths):
        out["penalize_backtracking"] = False
    return out


def budgets(runs: tuple[Run, ...], tokens_path: str) -> list[dict]:
    """``expect:`` entries capping calls and tokens at the most any run spent (tokens only
    when every run recorded a total)."""
    out: list[dict] = [{"actions": {"<=": max((len(r.tool_calls) for r in runs), default=0)}}]
    totals = [None if r.tokens is None else r.tokens.total for r in runs]
    if runs and all(isinstance(t, (int, float)) and not isinstance(t, bool) for t in totals):
        out.append({tokens_path: {"<=": max(totals)}})
    return out


def _name(cassette, path: str) -> str:
    meta = cassette.meta or {}
    name = meta.get("agent") or meta.get("scenario") or os.path.splitext(os.path.basename(path))[0]
    return str(name).replace("::", ": ").strip() or "recorded run"


def _served_world(cassette, cassette_dir: str) -> Optional[tuple[dict, dict]]:
    """For a cassette ``mcptest serve SUITE::SCENARIO --record`` wrote: the scenario's own
    YAML (plain data) and the state every run ended in (path -> value, where all runs agree);
    None when the cassette was not served from a suite, or the suite or scenario is gone."""
    import json

    from ..engine.paths import leaves
    from ..engine.world import replay_world
    from ..errors import InputError
    from ..gates.suite_build import load_suite
    from ..suite.loader import load_documents, read_text

    meta = cassette.meta or {}
    suite, name = meta.get("suite"), meta.get("scenario")
    if not isinstance(suite, str) or not isinstance(name, str):
        return None
    path = os.path.join(cassette_dir, suite)
    try:
        block = next((b for b in load_suite(path).blocks if b.kind == "scenario" and b.name == name), None)
        docs = [doc for doc, _ in load_documents(path, read_text(path))]
    except (InputError, OSError):
        return None
    raw = next((s for doc in docs if isinstance(doc, dict) for s in doc.get("scenarios") or ()
                if isinstance(s, dict) and s.get("name") == name), None)
    if block is None or raw is None:
        return None
    finals = [leaves(replay_world(block.world, run).final_state) for run in cassette.runs]
    agreed = {p: v for p, v in finals[0].items() if all(f.get(p, object()) == v for f in finals[1:])}
    return json.loads(json.dumps(raw)), agreed


def suite_for(cassette, cassette_ref: str, kind: str, cassette_dir: Optional[str] = None) -> dict:
    """The suite (plain data) that replays ``cassette`` as one block of ``kind``; a scenario
    from a served world (``cassette_dir``: where the cassette is) starts from that world."""
    runs = tuple(cassette.runs)
    meta = cassette.meta or {}
    block: dict = {"name": _name(cassette, cassette_ref), "cassette": cassette_ref}
    for key in ("model", "prompt", "system_prompt"):
        if isinstance(meta.get(key), str):
            block[key] = meta[key]
    if len(runs) > 1:
        block["runs"] = len(runs)
    path = golden(runs)
    if kind == "agent":
        block["expected_trace"] = expected_trace(runs)
        if path is not None:
            block["golden"] = path
        block["expect"] = budgets(runs, "conversation.tokens.total")
        return {"agents": [block]}
    world = _served_world(cassette, cassette_dir) if cassette_dir is not None else None
    if world is not None:  # recorded by serving a suite's world: that world, and the state its runs reached
        raw, expect_state = world
        block.update({k: raw[k] for k in ("seed", "tools", "transitions", "forbidden") if k in raw})
        if expect_state:
            block["expect_state"] = expect_state
    else:
        tools = sorted({name for run in runs for name in run.names})
        block["seed"] = {}
        block["transitions"] = [{"tool": t} for t in tools]
    expect = budgets(runs, "tokens.total")
    if path is not None:
        block["golden"] = path
        expect.insert(0, {"golden.matched": {"exact": True}})
    block["expect"] = expect
    return {"scenarios": [block]}


HEADER = """\
# A starting suite written by `mcptest init {source}` from {runs}.
# It passes on that cassette; edit it to say what must hold, then run pytest.
"""


def layout(value: Any, path: tuple = ()) -> Any:
    """``value`` as ruamel's round-trip containers laid out as people write suites: blocks
    and their sections in block style; each expected call, ``expect:`` entry, transition and
    short list of names on one line (flow style); comparison keys quoted (``"<="``)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    inline = len(path) >= 2 and (path[-1] in ("calls", "alternates", "seed", "expect", "transitions")
                                 or isinstance(path[-1], int) and path[-2] in ("calls", "expect", "transitions"))
    if isinstance(value, dict):
        out = CommentedMap()
        for k, v in value.items():
            key = DoubleQuotedScalarString(k) if isinstance(k, str) and k[:1] in "<>=!" else k
            out[key] = layout(v, path + (k,))
    elif isinstance(value, list):
        out = CommentedSeq(layout(v, path + (i,)) for i, v in enumerate(value))
    else:
        return value
    if inline and not (isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value)
                       and path[-1] in ("calls", "expect", "transitions")):
        out.fa.set_flow_style()
    else:
        out.fa.set_block_style()
    return out


def dump(data: Any) -> str:
    """Round-trip YAML text of ``data`` (laid out containers keep their style and comments)."""
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.width = 4096  # one call per line, however long its schema
    yaml.indent(mapping=2, sequence=4, offset=2)
    text = io.StringIO()
    yaml.dump(data, text)
    return text.getvalue()


def render(suite: dict, source: str, runs: int) -> str:
    """The suite as YAML, under a header that says where it came from."""
    plural = f"{runs} recorded run" + ("" if runs == 1 else "s")
    return HEADER.format(source=source, runs=plural) + dump(layout(suite))


def init_text(cassette_path: str, kind: Optional[str], out_path: Optional[str]) -> str:
    """The suite for the cassette at ``cassette_path``, with the cassette named relative to
    ``out_path``'s folder (the working directory when printed)."""
    from ..formats.cassette import load_cassette
    from ..errors import InputError

    if not os.path.isfile(cassette_path):
        raise InitError(f"{cassette_path}: no such cassette")
    try:
        cassette = load_cassette(cassette_path, keep=False)
    except InputError as exc:
        raise InitError(exc.render()) from None
    if not cassette.runs:
        raise InitError(f"{cassette_path}: the cassette records no run; there is nothing to expect")
    if kind is None:
        kind = "scenario" if (cassette.meta or {}).get("scenario") else "agent"
    base = os.path.dirname(os.path.abspath(out_path)) if out_path else os.getcwd()
    ref = os.path.relpath(os.path.abspath(cassette_path), base).replace(os.sep, "/")
    return render(suite_for(cassette, ref, kind, os.path.dirname(os.path.abspath(cassette_path))),
                  os.path.basename(cassette_path), len(cassette.runs))


def command(cassette_path: str, kind: Optional[str], out_path: Optional[str], force: bool = False) -> int:
    """``mcptest init``: print the suite, or write it to ``out_path`` (never over a file
    unless ``force``). Exit 0, or 2 with the reason on stderr."""
    import sys

    from ..formats.files import atomic_write

    if out_path and os.path.lexists(out_path) and not force:
        print(f"{out_path}: already exists; pass --force to overwrite it", file=sys.stderr)
        return 2
    try:
        text = init_text(cassette_path, kind, out_path)
    except InitError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if out_path is None:
        sys.stdout.write(text)
        return 0
    try:
        atomic_write(out_path, text)
    except OSError as exc:  # a folder that takes no new file (/proc), a full disk
        print(f"{out_path}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"wrote {out_path}", file=sys.stderr)
    return 0
