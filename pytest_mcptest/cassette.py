"""Cassettes: recorded agent runs on disk (v1), and the two older envelopes.

Writing (:func:`dump_cassette`, :func:`write_cassette`) is the one writer every producer
uses (the importers, ``mcptest record``, the ``mcptest_recorder`` fixture): pretty-printed,
known keys in a fixed order, written atomically.

Reading is strict about what gates need and lenient about the rest: only
``runs[*].tool_calls[*].name`` is required, a missing ``error`` is false, missing
tokens or cost stay absent, and unknown keys are kept and ignored. A bad part is
named by its JSON pointer. A cassette v1 as the writers make it is decoded by msgspec
straight into runs; anything that decoding refuses is read by the reader, which says
what is wrong, so both ways give the same runs and the same messages. A cassette of
16 MiB or more is mapped rather than read, and its calls decoded one at a time, so no copy
of the file stays in memory beside its runs. A cassette shared by many items is parsed
once (a small cache of recent parses); replay never writes.
"""

from __future__ import annotations

import codecs
import contextlib
import difflib
import os
from collections import OrderedDict
from functools import lru_cache
from operator import attrgetter
from typing import Annotated, Any, Literal, Optional, Union

import attrs

from .engine.trace import Run, ToolCall
from .engine.values import is_number, type_name
from .engine.paths import json_pointer
from .errors import InputError
from .files import (MAX_JSON_DEPTH, atomic_write, brackets_within, decode_text, loads_json, mapped_brackets_within,
                    read_or_map)
from .indented_json import dumps_indented

CASSETTE_VERSION = 1


@attrs.frozen
class Cassette:
    """A parsed cassette: its runs, plus what was recorded about them."""

    path: str
    runs: tuple[Run, ...]
    meta: dict = attrs.field(factory=dict)
    catalog: dict = attrs.field(factory=dict)
    shape: str = "v1"


_KINDS = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "number": is_number,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
}


# Recorded facts under `meta` (of the cassette or of a run) that are strings when present.
META_STRINGS = ("agent", "model", "prompt", "system_prompt", "recorded_at", "recorder", "catalog_sha256",
                "prompt_sha256")


def _well_formed_call(raw) -> ToolCall | None:
    """The common case checked in one go: a well-formed call as a :class:`ToolCall`, else
    None (the reader's slow path then says what is wrong)."""
    if type(raw) is dict:
        name, error = raw.get("name"), raw.get("error", False)
        server, turn = raw.get("server"), raw.get("turn")
        flagged = raw.get("args_invalid_json", False)
        if (type(name) is str and name and (error is False or error is True or error is None)
                and (server is None or type(server) is str) and (turn is None or type(turn) is int)
                and (flagged is False or flagged is True)):
            return ToolCall(name, raw.get("args"), server, bool(error), raw.get("result"), turn, flagged)
    return None


class _Reader:
    def __init__(self, path: str):
        self.path = path

    def fail(self, parts, message: str) -> InputError:
        return InputError(self.path, message, pointer=json_pointer(parts))

    def expect_type(self, value, kinds, parts, what: str):
        for kind in kinds:
            if _KINDS[kind](value):
                return
        raise self.fail(parts, f"{what} must be {' or '.join(kinds)}, found {type_name(value)}")

    def _checked_call(self, raw, parts) -> ToolCall:
        """The slow path: find what is wrong with a call and say so."""
        self.expect_type(raw, ["object"], parts, "a tool call")
        name = raw.get("name")
        if name is None:
            raise self.fail(parts, "a tool call needs a 'name'")
        self.expect_type(name, ["string"], parts + ["name"], "a tool call's name")
        if not name:
            raise self.fail(parts + ["name"], "a tool call's name must not be empty")
        error = raw.get("error")
        if error is not None:
            self.expect_type(error, ["boolean"], parts + ["error"], "'error'")
        server = raw.get("server")
        if server is not None:
            self.expect_type(server, ["string"], parts + ["server"], "'server'")
        turn = raw.get("turn")
        if turn is not None:
            self.expect_type(turn, ["integer"], parts + ["turn"], "'turn'")
        flagged = raw.get("args_invalid_json")
        if flagged is not None:
            self.expect_type(flagged, ["boolean"], parts + ["args_invalid_json"], "'args_invalid_json'")
        return ToolCall(name=name, args=raw.get("args"), server=server, error=bool(error),
                        result=raw.get("result"), turn=turn, args_invalid_json=flagged is True)

    def meta(self, raw, parts) -> dict:
        meta = {} if raw is None else raw
        self.expect_type(meta, ["object"], parts, "'meta'")
        for key in META_STRINGS:
            if meta.get(key) is not None:
                self.expect_type(meta[key], ["string"], parts + [key], f"'meta.{key}'")
        return meta

    def run(self, raw, parts) -> Run:
        self.expect_type(raw, ["object"], parts, "a run")
        if raw.get("task") is not None:
            self.expect_type(raw["task"], ["string", "integer"], parts + ["task"], "'task'")
        trial = raw.get("trial")
        if trial is not None:
            self.expect_type(trial, ["integer"], parts + ["trial"], "'trial'")
            if trial < 0:
                raise self.fail(parts + ["trial"], f"'trial' must be 0 or more, found {trial}")
        self.meta(raw.get("meta"), parts + ["meta"])
        if "tool_calls" not in raw:
            close = difflib.get_close_matches("tool_calls", [str(k) for k in raw], n=1, cutoff=0.75)
            if close:  # a run with no calls is valid; a misspelled key would replay as one
                raise self.fail(parts + [close[0]], f"unknown key {close[0]!r} in a run; did you mean 'tool_calls'?")
        calls_raw = raw.get("tool_calls", [])
        self.expect_type(calls_raw, ["array"], parts + ["tool_calls"], "'tool_calls'")
        # The pointer of each call is built only for one that is not well formed.
        calls = tuple(_well_formed_call(c) or self._checked_call(c, parts + ["tool_calls", i])
                      for i, c in enumerate(calls_raw))
        conversation = raw.get("conversation")
        conversation = {} if conversation is None else conversation
        self.expect_type(conversation, ["object"], parts + ["conversation"], "'conversation'")
        turns = conversation.get("turns", [])
        self.expect_type(turns, ["array"], parts + ["conversation", "turns"], "'conversation.turns'")
        for i, msg in enumerate(turns):
            self.expect_type(msg, ["object"], parts + ["conversation", "turns", i], "a conversation turn")
        tokens = conversation.get("tokens")
        if tokens is not None:
            self.expect_type(tokens, ["object"], parts + ["conversation", "tokens"], "'conversation.tokens'")
            for key in ("input", "output", "total"):
                if tokens.get(key) is not None:
                    self.expect_type(tokens[key], ["number"], parts + ["conversation", "tokens", key], f"'tokens.{key}'")
                    self._not_negative(tokens[key], parts + ["conversation", "tokens", key], f"'tokens.{key}'")
        cost = raw.get("cost_micros")
        if cost is not None:
            self.expect_type(cost, ["number"], parts + ["cost_micros"], "'cost_micros'")
            self._not_negative(cost, parts + ["cost_micros"], "'cost_micros'")
        judgments = raw.get("judgments", [])
        self.expect_type(judgments, ["array"], parts + ["judgments"], "'judgments'")
        for i, entry in enumerate(judgments):
            here = parts + ["judgments", i]
            self.expect_type(entry, ["object"], here, "a judgment")
            self.expect_type(entry.get("criterion"), ["string"], here + ["criterion"], "a judgment's 'criterion'")
            if entry.get("verdict") not in ("pass", "fail"):
                raise self.fail(here + ["verdict"], f"a judgment's 'verdict' must be \"pass\" or \"fail\", "
                                f"found {entry.get('verdict')!r}")
        messages = raw.get("messages")
        if messages is not None:
            self.messages(messages, parts + ["messages"])
        return Run(tool_calls=calls, turns=tuple(turns), tokens=tokens, cost_micros=cost, judgments=tuple(judgments),
                   task=raw.get("task"), trial=raw.get("trial"), meta=raw.get("meta") or None)

    def messages(self, raw, parts) -> None:
        """A recorded session (``mcptest record``): each entry says who sent it and holds a
        JSON-RPC message. Gates read ``tool_calls``; ``mcptest serve`` and ``verify`` read these."""
        self.expect_type(raw, ["array"], parts, "'messages'")
        for i, entry in enumerate(raw):
            here = parts + [i]
            self.expect_type(entry, ["object"], here, "a recorded message")
            if entry.get("from") not in ("host", "server"):
                raise self.fail(here + ["from"], f"a recorded message's 'from' must be \"host\" or \"server\", "
                                f"found {entry.get('from')!r}")
            self.expect_type(entry.get("message"), ["object"], here + ["message"], "a recorded message's 'message'")

    def _not_negative(self, value, parts: list, what: str) -> None:
        """A spend below zero would let every budget gate pass: refused."""
        if value < 0:
            raise self.fail(parts, f"{what} must be 0 or more, found {value}")

    def cassette(self, data) -> Cassette:
        self.expect_type(data, ["object"], [], "a cassette")
        version = data.get("mcptest_cassette")
        if version is not None and (isinstance(version, bool) or version != CASSETTE_VERSION):
            raise self.fail(["mcptest_cassette"], f"unsupported cassette version {version!r}; "
                            f"this version of mcptest reads version {CASSETTE_VERSION}")
        meta = self.meta(data.get("meta"), ["meta"])
        catalog = data.get("catalog")
        catalog = {} if catalog is None else catalog
        self.expect_type(catalog, ["object"], ["catalog"], "'catalog'")
        if "runs" in data:
            runs_raw = data["runs"]
            self.expect_type(runs_raw, ["array"], ["runs"], "'runs'")
            runs = tuple(self.run(r, ["runs", i]) for i, r in enumerate(runs_raw))
            shape = "v1"
        elif isinstance(data.get("trace"), dict) and "tool_calls" in data["trace"]:
            runs = (self.run(data["trace"], ["trace"]),)
            shape = "trace"
        elif "tool_calls" in data:
            runs = (self.run(data, []),)
            shape = "envelope"
        else:
            raise self.fail([], "no recorded run found: expected 'runs' (cassette v1), "
                            "'trace.tool_calls' or a root 'tool_calls'")
        return Cassette(path=self.path, runs=runs, meta=meta, catalog=catalog, shape=shape)


def parse_cassette(path: str, text: Any) -> Cassette:
    """Parse cassette JSON, as text, as the file's bytes, or as the file mapped (an ``mmap``,
    which this closes); raise :class:`InputError` naming the line or JSON pointer.

    Bytes are decoded as they are, with no text made of them, unless the typed decoding
    refuses them: a 100 MB cassette then costs its bytes and its runs, not also a 100 MB
    string (and a UTF-8 copy of it made for the decoder, and another for the depth proof).
    A mapped file costs its runs alone (see :func:`_mapped_cassette`)."""
    if not isinstance(text, (str, bytes)):
        mapping = text
        try:
            cassette = _mapped_cassette(path, mapping)
            if cassette is not None:
                return cassette
            text = mapping[:]  # what the reader below needs: the bytes, then the text
        finally:
            with contextlib.suppress(BufferError):  # nothing decoded holds it by now; if it did, it closes when let go
                mapping.close()
    cassette = _typed_cassette(path, text)
    if cassette is None:
        if not isinstance(text, str):
            text = decode_text(text, path)
        cassette = _Reader(path).cassette(loads_json(text, path))
    return cassette


@lru_cache(maxsize=None)
def _typed_decoder(raw_calls: bool = False):
    """msgspec's decoder of a well-formed cassette v1, as the reader accepts it: typed so that
    msgspec builds each :class:`ToolCall` while it parses (a Struct, so what it builds is
    what ``ToolCall(...)`` would), with no dict per call and no check per key in Python.
    With ``raw_calls`` each call is left as its undecoded JSON (``msgspec.Raw``), for
    :func:`_mapped_cassette` to decode one at a time. Made at the first parse, not at
    import: a session that reads no cassette never pays for building it."""
    import msgspec

    conversation = msgspec.defstruct("Conversation", [
        ("turns", list[dict], []),
        ("tokens", Optional[dict], None),
    ])
    message = msgspec.defstruct("Message", [("from_", Literal["host", "server"]), ("message", dict)],
                                rename={"from_": "from"})
    run = msgspec.defstruct("RunV1", [
        ("tool_calls", list[msgspec.Raw] if raw_calls else tuple[ToolCall, ...]),
        ("conversation", Optional[conversation], None),
        ("cost_micros", Union[int, float, None], None),
        ("judgments", list[dict], []),
        ("task", Union[str, int, None], None),
        ("trial", Optional[Annotated[int, msgspec.Meta(ge=0)]], None),
        ("meta", Optional[dict], None),
        ("messages", Optional[list[message]], None),
    ])
    cassette = msgspec.defstruct("CassetteV1", [
        ("runs", list[run]),
        ("mcptest_cassette", Optional[Literal[1]], None),
        ("meta", Optional[dict], None),
        ("catalog", Optional[dict], None),
    ])
    return msgspec.json.Decoder(cassette)


@lru_cache(maxsize=None)
def _call_decoder():
    """msgspec's decoder of one call, as :func:`_typed_decoder` reads each (made once)."""
    import msgspec

    return msgspec.json.Decoder(ToolCall)


def _typed_cassette(path: str, text: str | bytes) -> Optional[Cassette]:
    """The cassette when ``text`` is a well-formed cassette v1 (what every writer makes), read
    by :func:`_typed_decoder` in C; None when anything is not, and the standard parse and
    :class:`_Reader` decide it. This path accepts a subset of what the reader accepts and
    gives the same values, so a result or a message never depends on which path read
    the file (``tests/test_cassette_fast.py``). One difference is left: msgspec checks the
    syntax of a value under a key the reader ignores but not its range, so a number beyond a
    float there (``1e400``) is read here and refused by the reader; finding one would cost a
    scan of every file's text, for a value nothing reads."""
    try:
        data = _typed_decoder().decode(text)
    except Exception:  # msgspec's ValidationError or DecodeError; a RecursionError on deep nesting
        return None
    if not brackets_within(text, MAX_JSON_DEPTH) or not (type(text) is str or _utf8(text)):
        return None
    return _typed_runs(path, data, [raw.tool_calls for raw in data.runs])


def _typed_runs(path: str, data: Any, calls: list) -> Optional[Cassette]:
    """The cassette of a typed decoding, each run with its ``calls``; None when something the
    schema cannot say is wrong (a name empty, a ``meta`` string or a token count of another
    type, a judgment without its criterion or verdict): the reader then says what."""
    if not _meta_ok(data.meta):
        return None
    runs = []
    for raw, tool_calls in zip(data.runs, calls):
        conversation = raw.conversation
        turns, tokens = ((), None) if conversation is None else (conversation.turns, conversation.tokens)
        if not (_meta_ok(raw.meta) and all(map(_NAME, tool_calls)) and _tokens_ok(tokens)
                and (raw.cost_micros is None or raw.cost_micros >= 0)
                and all(type(j.get("criterion")) is str and j.get("verdict") in ("pass", "fail")
                        for j in raw.judgments)):
            return None
        runs.append(Run(tool_calls, tuple(turns), tokens, raw.cost_micros, tuple(raw.judgments), raw.task,
                        raw.trial, raw.meta or None))
    return Cassette(path, tuple(runs), {} if data.meta is None else data.meta,
                    {} if data.catalog is None else data.catalog)


STREAM_BYTES = 16 << 20  # a cassette this large is mapped and decoded call by call (see _mapped_cassette)
_GIVE_BACK = 8 << 20  # how many bytes of calls are decoded between two hand-backs of the mapped pages


def _mapped_cassette(path: str, mapped: Any) -> Optional[Cassette]:
    """:func:`_typed_cassette` of a mapped file, holding no copy of it: the depth proof gathers
    its brackets a megabyte at a time; the runs are decoded with each call left as its JSON,
    then the calls one by one, the file's pages handed back to the system as they are
    passed (they stay in its file cache, they leave this process). A 97.5 MiB cassette whose
    runs hold 190 MiB peaks at about 210 MiB instead of 300. Whatever the typed decoding
    refuses gives None, and the bytes go to the reader, as for a file read whole."""
    import mmap

    give_back = getattr(mapped, "madvise", None) if hasattr(mmap, "MADV_DONTNEED") else None
    if not mapped_brackets_within(mapped, MAX_JSON_DEPTH) or not _mapped_utf8(mapped):
        return None
    try:
        if give_back:
            give_back(mmap.MADV_DONTNEED)
        data = _typed_decoder(raw_calls=True).decode(mapped)
        if give_back:
            give_back(mmap.MADV_DONTNEED)
        decode, calls, passed = _call_decoder().decode, [], 0
        for raw in data.runs:
            decoded = []
            for call in raw.tool_calls:
                decoded.append(decode(call))
                passed += len(call)
                if give_back and passed >= _GIVE_BACK:
                    give_back(mmap.MADV_DONTNEED)
                    passed = 0
            raw.tool_calls = None  # let the run's raw calls go (each holds the mapping)
            calls.append(tuple(decoded))
    except Exception:  # as in _typed_cassette
        return None
    return _typed_runs(path, data, calls)


_NAME = attrgetter("name")


def _utf8(data: bytes) -> bool:
    """Whether ``data`` is UTF-8. msgspec checks the strings it decodes, not those it skips
    (the values of keys the reader keeps and ignores), so a file the reader refuses as not
    UTF-8 could otherwise be read by the typed path. An ASCII file, the common case, is
    told apart first in a fraction of a microsecond; the rest costs a decoding."""
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _mapped_utf8(mapped: Any) -> bool:
    """:func:`_utf8` of a mapped file, a megabyte at a time (no copy of the whole file)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    step = 1 << 20
    try:
        for at in range(0, len(mapped), step):
            chunk = mapped[at:at + step]
            if not chunk.isascii() or decoder.getstate()[0]:  # skipped only when no sequence is left open
                decoder.decode(chunk)
        decoder.decode(b"", True)
    except UnicodeDecodeError:
        return False
    return True


# These two run for every cassette read: plain loops, three times faster than all() over a
# generator.
def _meta_ok(meta: Optional[dict]) -> bool:
    if meta is not None:
        for key in META_STRINGS:
            value = meta.get(key)
            if value is not None and type(value) is not str:
                return False
    return True


def _tokens_ok(tokens: Optional[dict]) -> bool:
    if tokens is not None:
        for key in ("input", "output", "total"):
            value = tokens.get(key)
            if value is not None and (not is_number(value) or value < 0):
                return False
    return True


# The most recently used cassettes, by real path. Items that share a cassette sit
# next to each other in a suite, so a bounded cache parses each once without
# holding every run of a large session in memory. A cassette only one item replays is
# not kept (``keep=False``): holding it would only give the garbage collector more to walk.
_CACHE: OrderedDict[str, tuple[tuple[int, int], Cassette]] = OrderedDict()
CACHE_SIZE = 256


def load_cassette(path: str, name: str | None = None, keep: bool = True, recheck: bool = True) -> Cassette:
    """Read and parse a cassette, reusing a recent parse unless the file changed.

    ``name`` is how errors show the file (relative to the project's root, say); ``keep``
    says whether the parse is worth keeping for the next item that replays the file (one
    that is not is read as it is, with no ``stat`` for a stamp to compare). With
    ``recheck`` False a kept parse is reused without the ``stat`` that would see the file
    change: for a session that records nothing, which :func:`forget_parsed` starts afresh
    (a ``stat`` is a system call, several microseconds in a sandbox, on every item that
    replays a shared cassette). Whatever :func:`write_cassette` writes is read again.
    """
    shown = name or path
    if not keep:  # no key to make: an absolute path (what the gates pass, normalized) is opened as it is
        where = path if os.path.isabs(path) else os.path.abspath(path)
        return parse_cassette(shown, read_or_map(where, shown, map_from=STREAM_BYTES))
    key = os.path.abspath(path)
    hit = _CACHE.get(key)
    if hit is not None and not recheck:
        return hit[1]
    st = os.stat(key)  # a missing file raises FileNotFoundError: the caller says how to record one
    stamp = (st.st_mtime_ns, st.st_size)
    if hit is not None and hit[0] == stamp:
        _CACHE.move_to_end(key)
        return hit[1]
    cassette = parse_cassette(shown, read_or_map(key, shown, map_from=STREAM_BYTES))
    _CACHE[key] = (stamp, cassette)
    if len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return cassette


def forget_parsed() -> None:
    """Drop every kept parse: the next load of each cassette reads its file again."""
    _CACHE.clear()


# -- writing ------------------------------------------------------------------------------

# Known keys come first, in this order, so that a re-recorded cassette shows as a small
# diff; other keys follow in the order they were given. Values below (arguments, results,
# catalogs) are kept exactly as recorded.
_TOP_ORDER = ("mcptest_cassette", "meta", "catalog", "runs")
_RUN_ORDER = ("task", "trial", "meta", "tool_calls", "conversation", "cost_micros", "judgments", "messages")
_CALL_ORDER = ("name", "server", "args", "error", "result", "rpc_error", "unanswered", "task_id", "duration_ms",
               "turn")


def _ordered(obj: dict, order: tuple) -> dict:
    if not isinstance(obj, dict):
        return obj
    out = {k: obj[k] for k in order if k in obj}
    out.update((k, v) for k, v in obj.items() if k not in out)
    return out


def dump_cassette(data: dict) -> str:
    """Cassette JSON text: two-space indent, UTF-8 as is, known keys in a fixed order."""
    top = _ordered(data, _TOP_ORDER)
    if isinstance(top.get("runs"), list):
        top["runs"] = [_ordered_run(run) for run in top["runs"]]
    return dumps_indented(top) + "\n"


def _ordered_run(run):
    run = _ordered(run, _RUN_ORDER)
    if isinstance(run, dict) and isinstance(run.get("tool_calls"), list):
        run["tool_calls"] = [_ordered(call, _CALL_ORDER) for call in run["tool_calls"]]
    return run


def write_cassette(path: str, data: dict | None, overwrite: bool = False, text: str | None = None) -> str:
    """Write ``data`` as cassette JSON at ``path``: a temporary file beside it, then a rename,
    so a failure (a full disk, a kill) leaves any old cassette as it was.

    Refuses to replace an existing file unless ``overwrite`` (raises :class:`FileExistsError`).
    Returns the text written; ``text``, when given, is ``dump_cassette(data)`` already made
    (a large cassette's indented JSON costs seconds to make), and ``data`` may then be None.
    """
    if not overwrite and os.path.lexists(path):  # a dangling symbolic link counts: nothing is replaced unasked
        raise FileExistsError(path)
    text = dump_cassette(data) if text is None else text
    atomic_write(path, text, exclusive=not overwrite)  # checked again as it is put in place: no race wins
    _CACHE.pop(os.path.abspath(path), None)  # a parse kept without a recheck must not outlive its file
    return text
