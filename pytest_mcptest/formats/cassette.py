"""Cassettes: recorded agent runs on disk (v1), and the two older envelopes; one reader, one writer.

The format is the msgspec Structs below (:class:`_CassetteRecord`, :class:`_RunRecord`,
:class:`_Conversation`, with :class:`~pytest_mcptest.engine.trace.ToolCall`,
:class:`~pytest_mcptest.engine.trace.Message` and :class:`~pytest_mcptest.engine.trace.Tokens`),
held equal to the shipped JSON Schema (``schema/cassette-v1.json``) by ``tests/formats/test_cassette_reader.py``,
where ``jsonschema`` is the oracle for generated documents. msgspec decodes a file straight into them
in C, calls, messages and token counts included; what a Struct cannot say (the strings under ``meta``,
judgments, the version, a misspelled ``tool_calls``) is checked after, once per run. Reading is strict about what
gates need and lenient about the rest: only ``runs[*].tool_calls[*].name`` is required,
``null`` stands for absent, unknown keys are ignored. A bad part is named by its JSON
pointer, with what was expected and what was found.

Writing (:func:`dump_cassette`, :func:`write_cassette`) is the one writer every producer
uses (the importers, ``mcptest record``, ``verify --update``, ``serve --record``, the
``mcptest_recorder`` fixture, live recording): each builds a :class:`Cassette` of :class:`Run`
values; the writer encodes the same Structs, pretty-printed, known keys in a fixed order,
written atomically.

A cassette of 16 MiB or more is mapped rather than read, so no copy of the file stays in
memory beside its runs. A cassette shared by many items is parsed once (a small cache of
recent parses); replay never writes.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import re
from collections import OrderedDict
from functools import lru_cache
from operator import attrgetter
from typing import Annotated, Any, Optional, Union

import msgspec

from ..engine.paths import json_pointer
from ..engine.trace import Message, NotNegative, Run, Tokens, ToolCall
from ..errors import InputError
from .kept_parses import keep as keep_parse, kept as kept_parse
from .files import (MAX_JSON_DEPTH, atomic_write, brackets_within, digest, loads_json, mapped_brackets_within,
                    note_digest, note_read, read_or_map, watching)

CASSETTE_VERSION = 1


class Cassette(msgspec.Struct, frozen=True, kw_only=True):
    """A cassette: its runs, plus what was recorded about them (``meta``) and each server's
    ``tools/list`` answer (``catalog``). ``path`` is the file it was read from (empty for
    one being built); ``shape`` which envelope it was in (only ``v1`` is written)."""

    runs: tuple[Run, ...]
    meta: dict = msgspec.field(default_factory=dict)
    catalog: dict = msgspec.field(default_factory=dict)
    path: str = ""
    shape: str = "v1"


# -- the format -----------------------------------------------------------------------------

class _Conversation(msgspec.Struct, gc=False, omit_defaults=True):
    turns: tuple[dict, ...] = ()
    tokens: Optional[Tokens] = None


class _RunRecord(msgspec.Struct, gc=False, omit_defaults=True):
    """One run as it is on disk. ``tool_calls`` is UNSET when absent (a run with no calls is
    valid, but a misspelled ``tool_calls`` would replay as one)."""

    task: Union[str, int, None] = None
    trial: Optional[Annotated[int, msgspec.Meta(ge=0)]] = None
    meta: Optional[dict] = None
    tool_calls: Union[tuple[ToolCall, ...], msgspec.UnsetType] = msgspec.UNSET
    conversation: Optional[_Conversation] = None
    cost_micros: NotNegative = None
    judgments: tuple[dict, ...] = ()
    messages: Optional[tuple[Message, ...]] = None
    unmatched_results: Any = None


class _CassetteRecord(msgspec.Struct, gc=False, omit_defaults=True):
    """A cassette as it is on disk. ``trace`` and a root ``tool_calls`` are only looked at
    when ``runs`` is absent (the two older envelopes)."""

    mcptest_cassette: Any = None
    meta: Optional[dict] = None
    catalog: Optional[dict] = None
    runs: Union[tuple[_RunRecord, ...], msgspec.UnsetType] = msgspec.UNSET
    trace: Any = msgspec.UNSET
    tool_calls: Any = msgspec.UNSET


class _TraceRecord(msgspec.Struct, gc=False):
    """The ``trace`` envelope: one run under ``trace``."""

    trace: _RunRecord


# Recorded facts under `meta` (of the cassette or of a run) that are strings when present.
META_STRINGS = ("agent", "model", "prompt", "system_prompt", "recorded_at", "recorder", "catalog_sha256",
                "prompt_sha256")


@lru_cache(maxsize=None)
def _decoders() -> tuple:
    """msgspec's decoders of the format (built at the first read, not at import)."""
    return (msgspec.json.Decoder(_CassetteRecord), msgspec.json.Decoder(_RunRecord), msgspec.json.Decoder(_TraceRecord),
            msgspec.msgpack.Decoder(_CassetteRecord))  # the last for kept parses


_ENCODER = msgspec.msgpack.Encoder()  # a kept parse's record (:mod:`.kept_parses`)


@lru_cache(maxsize=None)
def cassette_schema() -> dict:
    """The shipped JSON Schema of the format (``schema/cassette-v1.json``)."""
    from importlib import resources

    shipped = resources.files("pytest_mcptest").joinpath("schema/cassette-v1.json")
    return json.loads(shipped.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _misspelled_calls() -> re.Pattern:
    """The schema's own pattern for a key that means ``tool_calls`` but is not it."""
    run = cassette_schema()["$defs"]["run"]
    return re.compile(run["then"]["propertyNames"]["not"]["pattern"])


# -- reading ---------------------------------------------------------------------------------


def parse_cassette(path: str, text: Any) -> Cassette:
    """Parse cassette JSON, as text, as the file's bytes, or as the file mapped (an ``mmap``,
    which this closes); raise :class:`InputError` naming the line or JSON pointer."""
    if isinstance(text, (str, bytes)):
        return _parse(path, text)
    try:
        return _parse(path, text)
    finally:
        with contextlib.suppress(BufferError):  # nothing decoded holds it by now; if it did, it closes when let go
            text.close()


def _parse(path: str, data: Any) -> Cassette:
    data = _checked_bytes(path, data)
    return _cassette(path, data, _decoded(path, data))


def _decoded(path: str, data: Any) -> _CassetteRecord:
    """The checked text as its record (:func:`_checked_bytes`), or the reader's error."""
    try:
        return _decoders()[0].decode(data)
    except msgspec.ValidationError as exc:
        raise _explained(path, data, exc, []) from None
    except msgspec.DecodeError as exc:
        raise _syntax(path, data, exc) from None


def _cassette(path: str, data: Any, record: _CassetteRecord) -> Cassette:
    """The decoded ``record`` of the checked text ``data`` as a :class:`Cassette`, once what
    its Structs cannot say is checked."""
    version = record.mcptest_cassette
    if version is not None and (type(version) not in (int, float) or version != CASSETTE_VERSION):
        raise InputError(path, f"unsupported cassette version {version!r}; this version of mcptest reads version "
                         f"{CASSETTE_VERSION}", pointer="/mcptest_cassette")
    _check_meta(path, record.meta, [])
    if record.runs is not msgspec.UNSET:
        runs = tuple([_run(path, data, raw, ["runs", i]) for i, raw in enumerate(record.runs)])
        shape = "v1"
    elif type(record.trace) is dict and "tool_calls" in record.trace:
        try:
            raw = _decoders()[2].decode(data).trace
        except msgspec.ValidationError as exc:
            raise _explained(path, data, exc, []) from None
        runs, shape = (_run(path, data, raw, ["trace"]),), "trace"
    elif record.tool_calls is not msgspec.UNSET:
        try:
            raw = _decoders()[1].decode(data)
        except msgspec.ValidationError as exc:
            raise _explained(path, data, exc, []) from None
        runs, shape = (_run(path, data, raw, []),), "envelope"
    else:
        raise InputError(path, "no recorded run found: expected 'runs' (cassette v1), 'trace.tool_calls' or a "
                         "root 'tool_calls'", pointer="")
    return Cassette(path=path, runs=runs, meta={} if record.meta is None else record.meta,
                    catalog={} if record.catalog is None else record.catalog, shape=shape)


_ERROR = attrgetter("error")
_FLAGGED = attrgetter("args_invalid_json")


def _run(path: str, data: Any, raw: _RunRecord, parts: list) -> Run:
    """A decoded run as a :class:`Run`, once what its Structs cannot say is checked."""
    calls = raw.tool_calls
    if calls is msgspec.UNSET:
        _check_no_misspelled_calls(path, data, parts)
        calls = ()
    elif None in map(_ERROR, calls) or None in map(_FLAGGED, calls):  # null reads as false (rare: checked in C)
        calls = tuple([msgspec.structs.replace(c, error=bool(c.error), args_invalid_json=bool(c.args_invalid_json))
                       for c in calls])
    _check_meta(path, raw.meta, parts)
    conversation = raw.conversation
    turns, tokens = ((), None) if conversation is None else (conversation.turns, conversation.tokens)
    for i, entry in enumerate(raw.judgments):
        here = parts + ["judgments", i]
        if type(entry.get("criterion")) is not str:
            raise _found(path, here + ["criterion"], "a string", entry.get("criterion"), "criterion" in entry)
        if entry.get("verdict") not in ("pass", "fail"):
            raise _found(path, here + ["verdict"], '"pass" or "fail"', entry.get("verdict"), "verdict" in entry)
    return Run(calls, turns, tokens, raw.cost_micros, raw.judgments, raw.task, raw.trial, raw.meta or None,
               raw.messages, raw.unmatched_results)


def _check_meta(path: str, meta: Optional[dict], parts: list) -> None:
    """The recorded facts under the ``meta`` below ``parts`` are strings when present."""
    if meta is not None:
        for key in META_STRINGS:
            value = meta.get(key)
            if value is not None and type(value) is not str:
                raise _found(path, parts + ["meta", key], "a string or null", value)


def _check_no_misspelled_calls(path: str, data: Any, parts: list) -> None:
    keys = _at(msgspec.json.decode(data), parts)
    pattern = _misspelled_calls()
    for key in keys:
        if pattern.match(key):
            raise InputError(path, f"unknown key {key!r} in a run; did you mean 'tool_calls'?",
                             pointer=json_pointer(parts + [key]))


def _checked_bytes(path: str, data: Any) -> Any:
    """What msgspec is given: the text, or bytes that are UTF-8 with no byte-order mark,
    nested at most :data:`MAX_JSON_DEPTH` deep. msgspec checks the strings it decodes but
    not those it skips (unknown keys), so UTF-8 is proven here (an ASCII file, the common
    case, in a fraction of a microsecond)."""
    if isinstance(data, str):
        text = data[1:] if data.startswith("\ufeff") else data
        if not brackets_within(text, MAX_JSON_DEPTH):
            loads_json(text, path)  # raises when it is deeper; a proof that failed on a shallow text costs a parse
        return text
    if isinstance(data, bytes):
        if data.startswith(codecs.BOM_UTF8):
            data = data[3:]
        if not data.isascii():
            _utf8(path, data)
        if not brackets_within(data, MAX_JSON_DEPTH):
            loads_json(data.decode("utf-8"), path)
        return data
    _mapped_utf8(path, data)
    if not mapped_brackets_within(data, MAX_JSON_DEPTH):
        loads_json(data[:].decode("utf-8"), path)
    return memoryview(data)[3:] if data[:3] == codecs.BOM_UTF8 else data


def _utf8(path: str, data: bytes) -> None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None


def _mapped_utf8(path: str, mapped: Any) -> None:
    """:func:`_utf8` of a mapped file, a megabyte at a time (no copy of the whole file)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    step = 1 << 20
    at = 0
    try:
        for at in range(0, len(mapped), step):
            chunk = mapped[at:at + step]
            if not chunk.isascii() or decoder.getstate()[0]:  # skipped only when no sequence is left open
                decoder.decode(chunk)
        decoder.decode(b"", True)
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text: {exc.reason} at byte {at + exc.start}") from None


# -- saying what is wrong ---------------------------------------------------------------------

_PATH = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_AT = re.compile(r" - at `\$(.*)`$")
_TYPE = re.compile(r"^Expected `([^`]+)`, got `([^`]+)`")
_WORDS = {"str": "a string", "int": "an integer", "float": "a number", "bool": "a boolean", "null": "null",
          "array": "an array", "object": "an object"}
_ENUMS = {"from": '"host" or "server"'}


def _explained(path: str, data: Any, exc: msgspec.ValidationError, prefix: list) -> InputError:
    """msgspec's refusal as the reader's message: the JSON pointer, what was expected and
    what was found (the value is looked up in the document, parsed again only now)."""
    text = str(exc)
    if "out of range" in text:  # a number beyond a float, an integer of thousands of digits: the parser's words
        return _syntax(path, data, exc)
    at = _AT.search(text)
    parts = list(prefix)
    if at is not None:
        parts += [int(i) if i else key for key, i in _PATH.findall(at.group(1))]
        text = text[:at.start()]
    try:
        document = msgspec.json.decode(data)
    except msgspec.DecodeError as bad:  # not JSON further on (``Infinity``): that is what to say
        return _syntax(path, data, bad)
    if text.startswith("Object missing required field"):
        field = text.split("`")[1]
        return InputError(path, f"missing the required key {field!r}", pointer=json_pointer(parts))
    value = _at(document, parts)
    typed = _TYPE.match(text)
    if (typed and typed.group(1) == "int | float | null") or (">= 0" in text and parts[-1] != "trial"):
        # a count a recording may lack (``trace.NotNegative``: token counts, the cost), said alike
        return _found(path, parts, "a number 0 or more, or null", value)
    if typed:
        kinds = [_WORDS.get(k, k) for k in typed.group(1).split(" | ")]
        if "an integer" in kinds and "a number" in kinds:
            kinds.remove("an integer")
        expected = kinds[0] if len(kinds) == 1 else ", ".join(kinds[:-1]) + " or " + kinds[-1]
        return _found(path, parts, expected, value)
    if "of length >= 1" in text:
        return _found(path, parts, "a non-empty string", value)
    if ">= 0" in text:  # a trial's number
        return _found(path, parts, "an integer 0 or more", value)
    if text.startswith("Invalid enum value"):
        return _found(path, parts, _ENUMS.get(parts[-1], "one of the allowed values"), value)
    return InputError(path, text, pointer=json_pointer(parts))  # pragma: no cover - msgspec said something new


def _found(path: str, parts: list, expected: str, value: Any, present: bool = True) -> InputError:
    return InputError(path, f"expected {expected}, found {_shown(value) if present else 'nothing'}",
                      pointer=json_pointer(parts))


def _shown(value: Any) -> str:
    """A found value as the message shows it: a scalar as JSON (a long string clipped), a
    container by its kind (never its contents)."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + '..."'


def _at(document: Any, parts: list) -> Any:
    for part in parts:
        document = document[part]
    return document


def _syntax(path: str, data: Any, exc: Exception) -> InputError:
    """Bad JSON, named by line and column (the standard parser's words), or what msgspec
    refuses beyond it (a lone surrogate escape)."""
    text = data if isinstance(data, str) else bytes(data).decode("utf-8")
    loads_json(text, path)
    return InputError(path, f"invalid JSON: {exc}")


# -- the cache ---------------------------------------------------------------------------------

# The most recently used cassettes, by real path. Items that share a cassette sit
# next to each other in a suite, so a bounded cache parses each once without
# holding every run of a large session in memory. A cassette only one item replays is
# not kept (``keep=False``): holding it would only give the garbage collector more to walk.
_CACHE: OrderedDict[str, tuple[tuple[int, int], Cassette, str]] = OrderedDict()  # path -> (stamp, parse, digest)
CACHE_SIZE = 256
STREAM_BYTES = 16 << 20  # a cassette this large is mapped rather than read
# The smallest cassette whose decoded record is kept between sessions (``kept_parses``): making
# an entry costs a file's creation, which only a cassette this large repays within a session or
# two (a small one's JSON decodes in tens of microseconds; ``benchmarks/README.md`` has the figures).
KEPT_FROM = 64 << 10


def load_cassette(path: str, name: str | None = None, keep: bool = True, recheck: bool = True,
                  kept: Optional[tuple[str, str]] = None) -> Cassette:
    """Read and parse a cassette, reusing a recent parse unless the file changed.

    ``name`` is how errors show the file (relative to the project's root, say); ``keep``
    says whether the parse is worth keeping for the next item that replays the file (one
    that is not is read as it is, with no ``stat`` for a stamp to compare). With
    ``recheck`` False a kept parse is reused without the ``stat`` that would see the file
    change: for a session that records nothing, which :func:`forget_parsed` starts afresh
    (a ``stat`` is a system call, several microseconds in a sandbox, on every item that
    replays a shared cassette). Whatever :func:`write_cassette` writes is read again.
    ``kept`` is ``(folder, code stamp)``: where decoded records are kept between sessions,
    by the content they were decoded from (:mod:`.kept_parses`).
    """
    shown = name or path
    if not keep:  # no key to make: an absolute path (what the gates pass, normalized) is opened as it is
        where = path if os.path.isabs(path) else os.path.abspath(path)
        return _read_parsed(where, shown, kept, watching())[0]
    key = os.path.abspath(path)
    hit = _CACHE.get(key)
    if hit is not None and not recheck:
        note_digest(key, hit[2])  # the bytes it was parsed from: what a kept verdict depends on
        return hit[1]
    try:
        st = os.stat(key)  # a missing file raises FileNotFoundError: the caller says how to record one
    except FileNotFoundError:
        note_read(key, None)
        raise
    stamp = (st.st_mtime_ns, st.st_size)
    if hit is not None and hit[0] == stamp:
        _CACHE.move_to_end(key)
        note_digest(key, hit[2])
        return hit[1]
    cassette, known = _read_parsed(key, shown, kept, True)
    _CACHE[key] = (stamp, cassette, known)
    if len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return cassette


def _read_parsed(where: str, shown: str, kept: Optional[tuple[str, str]], hashed: bool) -> tuple[Cassette, Any]:
    """The cassette at ``where`` (absolute) and the digest of its bytes (worked out when
    ``hashed``, reads are watched or its parse is kept; else None), through the kept parses
    (``kept``) when it is at least :data:`KEPT_FROM` bytes long."""
    try:
        data = read_or_map(where, shown, map_from=STREAM_BYTES, noted=False)
    except FileNotFoundError:
        note_read(where, None)
        raise
    kept = kept if isinstance(data, bytes) and len(data) >= KEPT_FROM else None  # small, or mapped: as it is
    known = digest(data) if hashed or kept is not None else None  # before the parse, which closes a mapped file
    if known is not None:
        note_digest(where, known)
    if kept is None:
        return parse_cassette(shown, data), known
    folder, stamp = kept
    payload = kept_parse(folder, where, stamp, known)
    if payload is not None:
        try:
            record = _decoders()[3].decode(payload)
        except msgspec.MsgspecError:  # damaged, or written by other code under the same stamp: decoded again
            pass
        else:
            return _cassette(shown, data[3:] if data.startswith(codecs.BOM_UTF8) else data, record), known
    checked = _checked_bytes(shown, data)
    record = _decoded(shown, checked)
    cassette = _cassette(shown, checked, record)
    if cassette.shape == "v1":  # the older envelopes are decoded again from the text: not worth keeping
        try:
            payload = _ENCODER.encode(record)
        except (OverflowError, msgspec.EncodeError, UnicodeEncodeError):  # an integer past 64 bits, say
            return cassette, known
        keep_parse(folder, where, stamp, known, payload)
    return cassette, known


def forget_parsed() -> None:
    """Drop every kept parse: the next load of each cassette reads its file again."""
    _CACHE.clear()


# -- writing ------------------------------------------------------------------------------


# A call's keys in the order they are written (the order cassettes have always had, so a
# re-recorded one shows as a small diff); ``error`` is always written, the rest when present.
_CALL_KEYS = ("name", "server", "args", "error", "result", "rpc_error", "unanswered", "task_id", "duration_ms", "turn",
              "args_invalid_json", "id", "error_message")


_FLAGS = frozenset({"unanswered", "args_invalid_json"})  # left out when false; ``error`` is always written


def _call_json(call: ToolCall) -> dict:
    """A call as written: what is absent (None) and the flags that are off are left out; a
    value that is ``false`` (arguments, a result) is a value, and kept."""
    out = {}
    for key in _CALL_KEYS:
        value = getattr(call, key)
        if value is not None and (value is not False or key not in _FLAGS):
            out[key] = value
    return out


def _record(cassette: Cassette) -> _CassetteRecord:
    """What the writer encodes: the format's Structs, each call and conversation as the
    JSON it is written as (every run has a conversation, empty or not)."""
    runs = []
    for run in cassette.runs:
        conversation: dict = {"turns": list(run.turns)}
        if run.tokens is not None:
            conversation["tokens"] = run.tokens
        runs.append(_RunRecord(run.task, run.trial, run.meta or None, tuple([_call_json(c) for c in run.tool_calls]),
                               conversation, run.cost_micros, tuple(run.judgments), run.messages,
                               run.unmatched_results))
    return _CassetteRecord(CASSETTE_VERSION, cassette.meta or None, cassette.catalog or None, tuple(runs))


def dump_cassette(cassette: Cassette) -> str:
    """Cassette JSON text: two-space indent, UTF-8 as is, known keys in a fixed order (so a
    re-recorded cassette shows as a small diff); what is absent is left out."""
    return json_text(_record(cassette))


def json_text(value: Any) -> str:
    """How every cassette is laid out as text (two-space indent, UTF-8 as is), for a cassette
    or for its JSON once a recorder has put back keys the model has no field for."""
    return msgspec.json.format(msgspec.json.encode(value), indent=2).decode("utf-8") + "\n"


def as_json(cassette: Cassette) -> dict:
    """The cassette as plain JSON values, as :func:`dump_cassette` writes it (for a redactor
    to walk, or a test to look into)."""
    return msgspec.json.decode(msgspec.json.encode(_record(cassette)))


def write_cassette(path: str, cassette: Optional[Cassette], overwrite: bool = False,
                   text: str | None = None) -> str:
    """Write ``cassette`` at ``path``: a temporary file beside it, then a rename, so a failure
    (a full disk, a kill) leaves any old cassette as it was.

    Refuses to replace an existing file unless ``overwrite`` (raises :class:`FileExistsError`).
    Returns the text written; ``text``, when given, is ``dump_cassette(cassette)`` already made
    (a large cassette's text costs time to make), and ``cassette`` may then be None.
    """
    if not overwrite and os.path.lexists(path):  # a dangling symbolic link counts: nothing is replaced unasked
        raise FileExistsError(path)
    text = dump_cassette(cassette) if text is None else text
    atomic_write(path, text, exclusive=not overwrite)  # checked again as it is put in place: no race wins
    _CACHE.pop(os.path.abspath(path), None)  # a parse kept without a recheck must not outlive its file
    return text
