"""``--mcptest-update-expect``: a failing item's expectations rewritten from its recording.

As syrupy's ``--snapshot-update``: when a new recording is right and the suite is out of
date, the item's ``expected_trace:``, ``golden:`` (agent tests and scenarios) and
``expect_state:`` (scenarios) are written again from what the cassette now records, with
the same inferences as ``mcptest init`` (:mod:`.init_suite`). Only what failed is touched:
an item that passed, a key whose own check passed, an ``xfail`` item, a block whose
recording could not be read. A model matrix's entry is shared by its models, so it is
left alone (said in the summary).

Two halves, so that pytest-xdist never has two writers on one file: each item's process
works out what to change (:func:`proposals`: plain data, carried on its report), and the
controller alone, at the session's end, applies them file by file (:func:`apply`), one
read and one atomic write per file. A rewrite replaces only the lines of the keys it
changes, found with ruamel.yaml's positions: every other line of the file (comments,
blank lines, quoting, flow or block style, other documents) stays byte for byte. Each
``expect_state:`` path keeps its own line and its comment; a rewritten ``expected_trace:``
or ``golden:`` block is written whole (comments inside it go with it).
"""

from __future__ import annotations

import difflib
import os
from typing import Any, Optional

SECTIONS = ("agents", "tests", "scenarios")


# --------------------------------------------------------------------------- in the item's process


def _judged_runs(block, ctx) -> tuple:
    """The runs the item judged: its cassette's, the first ``runs:`` of them when it says."""
    from ..formats.cassette import load_cassette
    from ..gates.sources import cassette_path

    runs = tuple(load_cassette(cassette_path(block, ctx), keep=False).runs)
    return runs[:block.runs] if getattr(block, "runs", None) else runs


def _trace(block, runs: tuple) -> dict:
    """The calls the runs made, under the block's own mode when every run passes that way."""
    from ..engine.trace_match import ExpectedCall, ExpectedTrace, validate_trace
    from .init_suite import expected_trace

    new = expected_trace(runs)
    mode = block.trace.mode
    calls = [ExpectedCall(c) if isinstance(c, str) else ExpectedCall(c["name"], "schema", c["args"]["schema"])
             for c in new["calls"]]
    if mode != new["mode"] and all(validate_trace(r.tool_calls, ExpectedTrace(mode, calls)).passed for r in runs):
        new["mode"] = mode
    return new


def _state(block, runs: tuple) -> list:
    """Per ``expect_state:`` entry, in written order: ``["set", value]`` (every run ended
    with that value), ``["absent"]`` (no run has the path) or ``["disagree"]``."""
    from ..engine.paths import Missing, resolve
    from ..engine.world import replay_world

    finals = [replay_world(block.world, run).final_state for run in runs]
    out = []
    for path, _ in block.world.expect_state:
        values = [resolve(state, path) for state in finals]
        present = [v for v in values if not isinstance(v, Missing)]
        if not present and values:
            out.append(["absent"])
        elif len(present) == len(values) and all(v == present[0] and type(v) is type(present[0]) for v in present):
            out.append(["set", present[0]])
        else:
            out.append(["disagree"])
    return out


def proposals(verdict, ctx) -> Optional[dict]:
    """What to rewrite in a failed item's block (plain data), or None: ``{file, name,
    updates: {key: new value}}``, or ``{file, name, note}`` when it cannot be rewritten."""
    block = verdict.block
    if block is None or block.kind not in ("agent", "scenario") or verdict.problems or not verdict.failures:
        return None
    gates = {f.gate for f in verdict.failures}
    golden_expected = any(f.gate == "expect" and f.message.startswith("golden.") for f in verdict.failures)
    wanted = []
    if block.kind == "agent":
        wanted += ["expected_trace"] if "expected_trace" in gates and block.trace is not None else []
        wanted += ["golden"] if "golden" in gates and block.golden is not None else []
    else:
        wanted += ["expect_state"] if "expect_state" in gates and block.world.expect_state else []
        wanted += ["golden"] if golden_expected and block.world.golden is not None else []
    if not wanted:
        return None
    head = {"file": block.file, "name": block.name}
    if getattr(block, "matrix", None) is not None:
        return {**head, "note": f"not rewritten: its entry {block.matrix!r} is shared by every model of the matrix"}
    from ..errors import InputError

    try:
        runs = _judged_runs(block, ctx)
    except (OSError, InputError, ValueError) as exc:  # the cassette moved since the item ran: rewrite nothing
        return {**head, "note": f"not rewritten: its cassette could not be read again ({exc})"}
    from .init_suite import golden

    updates: dict[str, Any] = {}
    for key in wanted:
        if key == "expected_trace":
            updates[key] = _trace(block, runs)
        elif key == "golden":
            new = golden(runs)
            if new is None:
                return {**head, "note": "not rewritten: the runs took too many different paths for one golden path"}
            updates[key] = new
        else:
            updates[key] = _state(block, runs)
    return {**head, "updates": updates}


# --------------------------------------------------------------------------- on the controller


def _entries(docs: list) -> dict[str, Any]:
    """Every block entry of the file's documents by name (round-trip maps, with positions)."""
    out = {}
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        for section in SECTIONS:
            for entry in doc.get(section) or ():
                if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                    out[entry["name"]] = entry
    return out


def _is_noise(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _region(lines: list[str], start: int, col: int, sequence: bool) -> int:
    """The end (exclusive) of the lines a key at ``(start, col)`` holds: its own line and
    each after it indented deeper (or, for a block sequence, its ``-`` items at the key's
    column), less the blank and comment lines that end the run."""
    end = start + 1
    while end < len(lines):
        line = lines[end]
        indent = len(line) - len(line.lstrip(" "))
        if _is_noise(line) or indent > col or (sequence and indent == col and line.lstrip().startswith("-")):
            end += 1
            continue
        break
    while end - 1 > start and _is_noise(lines[end - 1]):
        end -= 1
    return end


def _flow(value: Any) -> str:
    """``value`` as one line of flow YAML (a scalar as YAML writes it: quoted when it must be)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    from .init_suite import dump

    def flow(v):
        if isinstance(v, dict):
            out = CommentedMap((k, flow(x)) for k, x in v.items())
        elif isinstance(v, list):
            out = CommentedSeq(flow(x) for x in v)
        else:
            return v
        out.fa.set_flow_style()
        return out

    holder = CommentedSeq([flow(value)])
    holder.fa.set_flow_style()
    return dump(holder).strip()[1:-1].strip()


def _with_comment(line: str, mapping, key) -> str:
    """``line`` (no newline) with the comment that ended ``key``'s line, at its old column
    when the line is still short enough, and a newline."""
    tokens = mapping.ca.items.get(key) if hasattr(mapping, "ca") else None
    token = next((t for t in reversed(tokens or ()) if t is not None and not isinstance(t, list)), None)
    text = (getattr(token, "value", "") or "").split("\n", 1)[0].strip()
    if not text.startswith("#"):
        return line + "\n"
    column = getattr(getattr(token, "start_mark", None), "column", 0) or 0
    return line + " " * max(2, column - len(line)) + text + "\n"


def _anchored(value: Any) -> bool:
    """Whether ``value`` or anything in it carries an anchor (``&name``) an alias may refer to."""
    anchor = getattr(value, "anchor", None)
    if anchor is not None and getattr(anchor, "value", None):
        return True
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(_anchored(v) for v in items)


class _Edits:
    """Line edits of one file, applied bottom up so earlier positions stay true."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.edits: list[tuple[int, int, list[str]]] = []

    def replace(self, start: int, end: int, new: list[str]) -> None:
        self.edits.append((start, end, new))

    def text(self) -> str:
        lines = list(self.lines)
        for start, end, new in sorted(self.edits, reverse=True):
            lines[start:end] = new
        return "".join(lines)


def _whole_key(edits: _Edits, entry, key: str, value: Any, path: tuple) -> None:
    """Replace ``key: ...`` in ``entry`` with ``value``, written as ``mcptest init`` writes it."""
    from .init_suite import dump, layout

    line, col = entry.lc.key(key)
    old = entry[key]
    end = _region(edits.lines, line, col, isinstance(old, list) and not old.fa.flow_style())
    rows = [" " * col + row for row in dump(layout({key: value}, path)).rstrip("\n").split("\n")]
    edits.replace(line, end, [_with_comment(rows[0], entry, key)] + [row + "\n" for row in rows[1:]])


def _same(written: Any, value: Any) -> bool:
    """Whether a value written in the suite already is ``value`` (``1`` is not ``true``)."""
    import json

    from ..suite.doc import plain

    return json.dumps(plain(written), sort_keys=True) == json.dumps(value, sort_keys=True)


def _state_edits(edits: _Edits, entry, outcomes: list, notes: list[str]) -> None:
    """Each ``expect_state:`` path set to the value every run ended with, on its own line
    (its comment kept); a path no run has is removed; one the runs disagree on is kept."""
    state = entry["expect_state"]
    keys = list(state)
    new = {}
    for key, outcome in zip(keys, outcomes):
        if outcome[0] == "set":
            new[key] = outcome[1]
        elif outcome[0] == "absent":
            notes.append(f"expect_state {key}: no run has this path; removed")
        else:
            new[key] = state[key]
            notes.append(f"expect_state {key}: the runs end with different values; left as written")
    if all(_same(state[k], new[k]) for k in new) and len(new) == len(keys):
        return
    if state.fa.flow_style() or not new:  # one line for the whole map
        start, col = entry.lc.key("expect_state")
        vline, vcol = entry.lc.value("expect_state")
        end = _region(edits.lines, start, col, False)
        first = edits.lines[start]
        prefix = first[:vcol] if vline == start else first.rstrip("\n").rstrip() + " "
        edits.replace(start, end, [_with_comment(prefix + _flow(new), entry, "expect_state")])
        return
    for key, outcome in zip(keys, outcomes):
        line, col = state.lc.key(key)
        value = state[key]
        end = _region(edits.lines, line, col, isinstance(value, list) and not value.fa.flow_style())
        if outcome[0] == "absent":
            edits.replace(line, end, [])
        elif outcome[0] == "set" and not _same(value, outcome[1]):
            vline, vcol = state.lc.value(key)
            keep = edits.lines[line][:vcol] if vline == line else edits.lines[line].rstrip("\n").rstrip() + " "
            edits.replace(line, end, [_with_comment(keep + _flow(outcome[1]), state, key)])


def rewrite(text: str, file_proposals: list[dict]) -> tuple[str, list[str]]:
    """The file's new text with each proposal applied, and notes on what was not."""
    from ruamel.yaml import YAML

    docs = list(YAML().load_all(text))
    entries = _entries(docs)
    edits = _Edits(text.splitlines(keepends=True))
    notes: list[str] = []
    for proposal in sorted(file_proposals, key=lambda p: p["name"]):
        name = proposal["name"]
        if "note" in proposal:
            notes.append(f"{name}: {proposal['note']}")
            continue
        entry = entries.get(name)
        if entry is None:
            notes.append(f"{name}: not rewritten: no entry of that name in the file any more")
            continue
        for key, value in proposal["updates"].items():
            if key not in entry or key not in entry.lc.data:
                notes.append(f"{name}: not rewritten: {key}: is not written in its own entry (an anchor or merge?)")
            elif _anchored(entry[key]):
                notes.append(f"{name}: not rewritten: {key}: holds a YAML anchor that other places may use")
            elif key == "expect_state":
                said: list[str] = []
                try:
                    _state_edits(edits, entry, value, said)
                except KeyError:  # a path that comes from an anchor or merge has no line of its own
                    said = [f"not rewritten: {key}: some of its paths are not written in its own entry"]
                notes += [f"{name}: {n}" for n in said]
            else:
                _whole_key(edits, entry, key, value, ("block", 0, key))
    return edits.text(), notes


def apply(all_proposals: list[dict]) -> list[tuple[str, list[str], list[str]]]:
    """Apply the proposals, one read and one atomic write per file: ``(file, its unified
    diff lines, notes)`` for each file that had a proposal."""
    from ruamel.yaml.error import YAMLError

    from ..formats.files import atomic_write

    by_file: dict[str, list[dict]] = {}
    for proposal in all_proposals:
        by_file.setdefault(proposal["file"], []).append(proposal)
    out = []
    for path in sorted(by_file):
        try:
            with open(path, encoding="utf-8", newline="") as fh:
                text = fh.read()
            # The new lines are written with "\n": a file of "\r\n" lines is rewritten with "\n"
            # and given its own line ends back, never a mix of both.
            crlf = "\r\n" in text and "\n" not in text.replace("\r\n", "")
            new, notes = rewrite(text.replace("\r\n", "\n") if crlf else text, by_file[path])
            if crlf:
                new = new.replace("\n", "\r\n")
        except (OSError, UnicodeDecodeError, ValueError, YAMLError) as exc:  # unreadable, or no longer YAML: leave it
            out.append((path, [], [f"not rewritten: {exc}"]))
            continue
        diff = list(difflib.unified_diff(text.splitlines(), new.splitlines(), f"a/{os.path.basename(path)}",
                                         f"b/{os.path.basename(path)}", lineterm=""))
        if new != text:
            try:
                atomic_write(path, new)
            except OSError as exc:  # a read-only folder or file: said at the end, as any other file left alone
                out.append((path, [], [f"not rewritten: cannot write: {exc.strerror or exc}"]))
                continue
        out.append((path, diff, notes))
    return out


def summary_lines(updated: list) -> list[str]:
    """The terminal's account: each file's diff and notes, then what to do next."""
    lines: list[str] = []
    rewritten = 0
    for path, diff, notes in updated:
        rewritten += bool(diff)
        lines += diff
        lines += [f"{path}: {note}" for note in notes]
    lines.append(f"{rewritten} suite file{'' if rewritten == 1 else 's'} rewritten from the recordings; "
                 "the items failed in this run, run again to check them")
    return lines
