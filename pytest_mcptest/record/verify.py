"""``mcptest verify``: hold a server build to the answers it gave when a session was recorded.

The recorded host's messages (requests and notifications, handshake included) are sent
again, in order and one at a time, to the server under test (a stdio command or a
Streamable HTTP endpoint), and each answer is compared with the recorded one, structurally
(:mod:`..mcp.json_diff`: JSON inside text compared as JSON, numbers as numbers, ignored
paths left out). The handshake (``initialize``, ``server/discover``, ``ping``) is sent but
not compared (a new build may well carry a new version), nor is the ``_meta`` of a result
(the server's identity stamp). A request the server sends meanwhile (sampling, roots,
elicitation) gets the host's recorded answer to the same method, in order.

The new answers are redacted as a recording is (:mod:`.redact`) before they are compared,
so a secret the server echoes is the recorded placeholder again. A task the new server
issues (a ``tools/call`` answered with a task handle) has a new id: it is mapped to the
recorded one, both ways, so ``tasks/get`` and ``tasks/result`` ask for the new task and
their answers compare with the recorded ones; the times the server stamps on a task are not
compared. Over stdio the server's output is read as a host reads it: a line that is not one
JSON-RPC message in UTF-8 (a banner, a stray print, a byte that is no UTF-8) is a change, and
a line longer than ``MCPTEST_MAX_LINE_MB`` (64 MiB) is said to be one, with its size. An
answer carrying an id that no request has is said to be so.

Exit status: 0 every answer matches, 1 some differ (each shown, call by call, with the
paths that differ), 2 bad input or a server that cannot be started or reached. With
``--update`` the new session is appended to the cassette as a new run; the old runs stay
byte for byte as they were.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from typing import Any, Optional

import attrs

from ..errors import InputError, start_failure
from ..mcp.json_diff import brief, differences, ignore_path
from ..mcp.recording import HANDSHAKE, Recording, load_recording
from .headers import parse_headers, redactor_hiding
from .relay import MAX_LINE

NOT_RECORDED = -32601
CONTEXT = 30  # characters shown either side of where two long texts part
# The times a server stamps on a task it issues: a new session's are never the recorded ones.
TASK_STAMPS = ("createdAt", "lastUpdatedAt")
TASK_ANSWERS = {"tasks/get": "result", "tasks/cancel": "result", "tasks/list": "result.tasks[*]"}


class ServerUnavailable(Exception):
    """The server could not be started or reached, or exited at once (exit 2). ``started``:
    whether it did start (its message then says what it did: exited with code N, ...)."""

    def __init__(self, message: str, started: bool = False):
        super().__init__(message)
        self.started = started


@attrs.frozen
class Change:
    """One recorded request whose answer changed."""

    index: int
    what: str
    diffs: tuple            # (path, recorded, got)
    note: str = ""          # instead of diffs: no answer, the server went away
    catalog: tuple = ()     # a tools/list answer: what changed, tool by tool, in the lock check's words


@attrs.frozen
class Outcome:
    compared: int
    changes: tuple
    messages: tuple         # the new session, for --update: {"from", "message"} in order

    @property
    def ok(self) -> bool:
        return not self.changes


@attrs.define
class Heard:
    """What the server under test said: its answers by request index (task ids mapped back
    to the recorded ones), why a request has none to compare (``notes``: it carried
    another id, it was too long), what broke the stdio framing while a request was open
    (``faults``), the session as it went, and why it ended early."""

    answers: dict = attrs.Factory(dict)
    notes: dict = attrs.Factory(dict)
    faults: dict = attrs.Factory(dict)
    session: list = attrs.Factory(list)
    ended: str = ""

    def fault(self, index: int, text: str) -> None:
        self.faults.setdefault(index, []).append(text)


class StdoutFault(Exception):
    """A line on a stdio server's output that a host cannot read as a JSON-RPC message."""


class AnswerTooLong(StdoutFault):
    """A line longer than :data:`~.relay.MAX_LINE`, skipped unread; ``size`` its bytes."""

    def __init__(self, size: int):
        super().__init__(f"a line of {size / (1 << 20):.1f} MiB, over the {MAX_LINE / (1 << 20):g} MiB a line "
                         "may hold (MCPTEST_MAX_LINE_MB): not read")
        self.size = size


def _what(method: str, params: dict) -> str:
    if method == "tools/call":
        return f"tools/call {params.get('name')} {brief(params.get('arguments') or {}, 70)}"
    return f"{method} {brief(params, 70)}" if params else method


def comparable(answer: Optional[dict]) -> Any:
    """What of an answer is compared: its ``result`` (without ``_meta``) or its ``error``."""
    if answer is None:
        return None
    if "error" in answer:
        return {"error": answer["error"]}
    result = answer.get("result")
    if isinstance(result, dict):
        result = {k: v for k, v in result.items() if k != "_meta"}
    return {"result": result}


def compare(recording: Recording, heard: Heard, ignore: list, gone: str = "") -> list:
    """The changes between the recorded answers and what was ``heard``."""
    changes = []
    for exchange in recording.exchanges:
        what = _what(exchange.method, exchange.params)
        faults = heard.faults.get(exchange.index, [])
        framing = f"stdout: {faults[0]}" + (f" (and {len(faults) - 1} more such line(s))" if faults[1:] else "") \
            if faults else ""
        if exchange.method in HANDSHAKE or exchange.answer is None:
            if framing:
                changes.append(Change(exchange.index, what, (), framing))
            continue
        got = heard.answers.get(exchange.index)
        if got is None:
            note = heard.notes.get(exchange.index) or gone or "no answer"
            changes.append(Change(exchange.index, what, (), "; ".join(filter(None, (framing, note)))))
            continue
        diffs = differences(comparable(exchange.answer), comparable(got), ignore + _task_stamps(exchange))
        if diffs or framing:
            changes.append(Change(exchange.index, what, tuple(diffs), framing, _catalog_lines(exchange, got)))
    return changes


def _task_stamps(exchange) -> list:
    """The paths of the times stamped on the tasks an answer holds (a task handle, or the
    task a ``tasks/*`` request asked about)."""
    roots = ["result.task"] + ([TASK_ANSWERS[exchange.method]] if exchange.method in TASK_ANSWERS else [])
    return [ignore_path(f"{root}.{stamp}") for root in roots for stamp in TASK_STAMPS]


def _catalog_lines(exchange, got: dict) -> tuple:
    """For a ``tools/list`` answer that changed: each tool whose description or schema changed
    since the recording (with its diff), and the tools added and removed, as ``mcptest doctor
    --lock`` and a ``lock:`` say it of a locked catalog."""
    if exchange.method != "tools/list":
        return ()
    before, after = (exchange.answer or {}).get("result"), got.get("result")
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return ()
    from ..engine.catalog_lock import compare_catalogs

    try:
        return tuple(compare_catalogs(before, after).lines(since="the cassette was recorded"))
    except (TypeError, ValueError, AttributeError):  # a page that is no catalog: its diffs say so
        return ()


class TaskIds:
    """The task ids the server under test issued, each mapped to the recorded one it
    stands for: the requests sent name the new task, the answers read name the old."""

    def __init__(self):
        self.new: dict = {}
        self.old: dict = {}

    def answered(self, exchange, raw: dict) -> dict:
        recorded, issued = _task_id(exchange.answer), _task_id(raw)
        if isinstance(recorded, str) and isinstance(issued, str) and recorded != issued:
            self.new[recorded], self.old[issued] = issued, recorded
        return _swapped(raw, self.old) if self.old else raw

    def sent(self, message: dict) -> dict:
        return _swapped(message, self.new) if self.new else message


def _task_id(answer: Optional[dict]) -> Any:
    result = (answer or {}).get("result")
    task = result.get("task") if isinstance(result, dict) else None
    return task.get("taskId") if isinstance(task, dict) else None


def _swapped(value: Any, ids: dict) -> Any:
    """``value`` with every string that is a key of ``ids`` replaced by its value."""
    if isinstance(value, dict):
        return {key: _swapped(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [_swapped(item, ids) for item in value]
    return ids.get(value, value) if isinstance(value, str) else value


class Replay:
    """One verification session: the recorded host messages sent one at a time, and what
    the server says read into ``heard``. One request is open at a time, so an answer that
    names no open request was meant for the open one (a wrong id), and a line that breaks
    the framing belongs to it."""

    def __init__(self, recording: Recording, heard: Heard):
        self.exchange_of = {_key(e.request.get("id")): e for e in recording.exchanges}
        self.sent = recording.sent
        self.host_answers = list(recording.host_answers)
        self.heard = heard
        self.waiting: dict = {}     # the key of the request sent and not yet answered -> its event
        self.open_index = 0         # the request the server is working on
        self.tasks = TaskIds()

    async def run(self, open_transport, timeout: float) -> None:
        import anyio

        async with open_transport() as streams:
            read, write = streams[0], streams[1]
            closed = anyio.Event()  # the server's output ended: no answer is coming
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.read_side, read, write, closed)
                for message in self.sent:
                    if not await self.send(self.tasks.sent(message), write, timeout, closed):
                        break
                tg.cancel_scope.cancel()

    async def send(self, message: dict, write, timeout: float, closed) -> bool:
        """Send one message and wait for its answer; False when the session is over."""
        import anyio

        self.heard.session.append({"from": "host", "message": message})
        key = _key(message.get("id"))
        event = anyio.Event() if message.get("id") is not None else None
        if event is not None:
            self.waiting[key] = event
            self.open_index = self.exchange_of[key].index if key in self.exchange_of else self.open_index
        try:
            await write.send(_wire(message))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            self.heard.ended = "closed its input before the session ended"
            return False
        if event is None:
            return True
        with anyio.move_on_after(timeout) as scope:
            await event.wait()
        if scope.cancelled_caught:
            self.heard.ended = f"gave no answer within {timeout:g} s to {message.get('method')}"
            return False
        index = self.exchange_of[key].index if key in self.exchange_of else None
        if closed.is_set() and index not in self.heard.answers and index not in self.heard.notes:
            self.heard.ended = f"closed its output before answering {message.get('method')}"
            return False
        return True

    async def read_side(self, read, write, closed) -> None:
        async for item in read:
            if isinstance(item, Exception):
                self.unread(item)
                continue
            raw = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
            self.heard.session.append({"from": "server", "message": raw})
            method = raw.get("method")
            if method is not None and raw.get("id") is not None:  # the server asks the host
                await write.send(_wire(self.host_reply(raw)))
            elif method is None:
                self.answered(raw)
        closed.set()
        for event in self.waiting.values():
            event.set()

    def settle(self, key, note: str = "", raw: Optional[dict] = None) -> None:
        exchange = self.exchange_of.get(key)
        if exchange is not None and raw is not None:
            self.heard.answers[exchange.index] = self.tasks.answered(exchange, raw)
        elif exchange is not None and note:
            self.heard.notes[exchange.index] = note
        self.waiting.pop(key).set()

    def unread(self, item: Exception) -> None:
        """A line that could not be read: too long (the open request's answer), or one a host
        would fail on (a fault of the open request's)."""
        if isinstance(item, AnswerTooLong) and self.waiting:
            self.settle(next(iter(self.waiting)), f"answered with {item}")
        else:
            self.heard.fault(self.open_index, str(item) if isinstance(item, StdoutFault) else
                             f"a message that is not JSON-RPC: {item}")

    def answered(self, raw: dict) -> None:
        key = _key(raw.get("id"))
        if key in self.waiting:
            self.settle(key, raw=raw)
        elif self.waiting:
            expected = next(iter(self.waiting))
            self.settle(expected, f"answered with id {json.dumps(raw.get('id'))}, not the request's "
                                  f"{json.dumps(expected[1])}")
        else:
            self.heard.fault(self.open_index, f"an answer with id {json.dumps(raw.get('id'))}, to no request")

    def host_reply(self, request: dict) -> dict:
        """The host's recorded answer to the same method, for a request the server sends."""
        method = request["method"]
        reply = next((a for m, a in self.host_answers if m == method), None)
        if reply is not None:
            self.host_answers.remove((method, reply))
            reply = {**reply, "id": request["id"]}
        else:
            reply = {"jsonrpc": "2.0", "id": request["id"], "error": {
                "code": NOT_RECORDED, "message": f"mcptest verify: the recording holds no answer to {method}"}}
        self.heard.session.append({"from": "host", "message": reply})
        return reply


def _wire(raw: dict):
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    return SessionMessage(types.jsonrpc_message_adapter.validate_python(raw))


def _key(request_id: Any) -> Any:
    return ("s", request_id) if isinstance(request_id, str) else ("n", request_id)


class Lines:
    """Cuts a byte stream into lines in time linear in its length. A line longer than
    ``limit`` is not kept: its bytes are counted until its end, and it stands in the lines
    as its size (an ``int``), so a reader can say how long it was and read on."""

    def __init__(self, limit: int):
        self.limit = limit
        self.pending = bytearray()
        self.skipped: Optional[int] = None  # bytes of the too-long line being passed over

    def feed(self, chunk: bytes) -> list:
        out, start = [], 0
        while True:
            cut = chunk.find(b"\n", start)
            piece = chunk[start:] if cut < 0 else chunk[start:cut]
            if self.skipped is not None:
                self.skipped += len(piece)
            else:
                self.pending += piece
                if len(self.pending) > self.limit:
                    self.skipped = len(self.pending)
                    self.pending.clear()
            if cut < 0:
                return out
            out.append(self._line())
            start = cut + 1

    def close(self) -> list:
        """The last line, which no newline ended."""
        return [self._line()] if self.pending or self.skipped is not None else []

    def _line(self):
        line, self.skipped = (self.skipped, None) if self.skipped is not None else (bytes(self.pending), None)
        self.pending.clear()
        return line


def read_message(line) -> list:
    """What one line of a stdio server's output is: a JSON-RPC message, or the fault that
    keeps a host from reading it (:class:`StdoutFault`), or both (an answer with a byte
    that is not UTF-8: the host drops it, and it is compared as decoded with U+FFFD)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    from ..text import printable

    if isinstance(line, int):
        return [AnswerTooLong(line)]
    if not line.strip():
        return []
    out: list = []
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = line.decode("utf-8", "replace")
        out.append(StdoutFault(f"a line that is not UTF-8 (byte 0x{line[exc.start]:02x} at offset {exc.start}): "
                               f"{printable(text[:120])!r}"))
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValueError:
        return out or [StdoutFault(f"a line that is not JSON-RPC: {printable(text.strip()[:120])!r}")]
    return out + [SessionMessage(message)]


async def _read_stdout(stdout, to_session, tail) -> None:
    """The server's stdout as :func:`read_message` reads each line; at its end, say so in ``tail``."""
    import anyio

    lines = Lines(MAX_LINE)
    async with to_session:
        try:
            async for chunk in stdout:
                for line in lines.feed(chunk):
                    for item in read_message(line):
                        await to_session.send(item)
            for line in lines.close():
                for item in read_message(line):
                    await to_session.send(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            pass
        tail.pipes_closed = True


def stdio_streams(command: list[str], env: Optional[dict], cwd: Optional[str], tail):
    """The stdio server ``command`` as a pair of message streams, started and ended as the
    catalog client does (:func:`..mcp.client.open_streams`: its own process group, stderr
    and exit status kept in ``tail``), its stdout read by :func:`_read_stdout`."""
    from ..mcp.client import open_streams

    return open_streams(command, env, cwd, tail, [], [], reader=_read_stdout)


def transport(command: list[str], url: Optional[str], headers: dict, tail, env: Optional[dict] = None,
              cwd: Optional[str] = None):
    """The client transport to the server under test: the SDK's Streamable HTTP client, or a
    stdio server (:func:`stdio_streams`)."""
    if url is not None:
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        return lambda: streamable_http_client(url, http_client=create_mcp_http_client(headers=headers or None))
    return lambda: stdio_streams(command, env, cwd, tail)


def verify(recording: Recording, command: list[str], url: Optional[str] = None, headers: Optional[dict] = None,
           ignore: tuple = (), timeout: float = 30.0, env: Optional[dict] = None,
           cwd: Optional[str] = None) -> Outcome:
    """Replay ``recording`` against the server; ServerUnavailable when it cannot be had. A
    server that exited is said to have exited, with its status and the end of its stderr.
    The answers are redacted as the recording was before they are compared (a ``ValueError``
    when the redaction key cannot be had)."""
    import anyio

    from ..mcp.client import StderrTail, innermost, quiet_sdk_logging

    patterns = [ignore_path(p) for p in ignore]
    scrub = redactor_hiding(headers or {})
    tail = StderrTail()
    heard = Heard()
    with quiet_sdk_logging():
        try:
            connect = transport(command, url, headers or {}, tail, env, cwd)
            anyio.run(Replay(recording, heard).run, connect, timeout)
        except Exception as exc:  # noqa: BLE001 - start-up or transport failure: say it once
            leaf = innermost(exc)
            reason = getattr(leaf, "strerror", None) or f"{type(leaf).__name__}: {leaf}"
            raise ServerUnavailable(_with_stderr(reason, tail)) from None
    ended = heard.ended
    if tail.exit_text() and ended:
        ended = _exited(tail.exit_text(), ended)
    if not any(entry["from"] == "server" for entry in heard.session) and not heard.notes:
        faults = [text for texts in heard.faults.values() for text in texts]
        said = f"; on stdout it wrote {faults[0]}" if faults else ""
        raise ServerUnavailable(_with_stderr((ended or "never answered") + said, tail), started=True)
    heard.answers = {index: scrub.value(answer) for index, answer in heard.answers.items()}
    changes = compare(recording, heard, patterns, f"the server {ended}" if ended else "")
    compared = sum(1 for e in recording.exchanges if e.method not in HANDSHAKE and e.answer is not None)
    return Outcome(compared, tuple(changes), tuple(heard.session))


def _exited(exited: str, ended: str) -> str:
    """``exited with code 3 before answering initialize``, from why the session ended early."""
    if ended.startswith("closed its output "):
        return f"{exited} {ended[len('closed its output '):]}"
    if ended.startswith("gave no answer"):  # a process it started kept its output open
        return f"{exited} at start-up and {ended} (a process it started kept its output open)"
    return f"{exited}; it {ended}"


def _with_stderr(reason: str, tail) -> str:
    text = tail.text().strip()
    return reason + ("\n  its stderr ended with:\n    " + text.replace("\n", "\n    ") if text else "")


def change_lines(outcome: Outcome) -> list[str]:
    """The failure text: each changed answer, call by call, with the paths that differ."""
    lines = []
    for change in outcome.changes:
        lines.append(f"  #{change.index + 1} {change.what}")
        if change.note:
            lines.append(f"      {change.note}")
        lines += [f"      {line}" for line in change.catalog]
        width = max((len(p) for p, _, _ in change.diffs), default=0)
        for path, recorded, got in change.diffs:
            lines += [f"      {line}" for line in _difference(path.ljust(width), recorded, got)]
    return lines


def _difference(path: str, recorded: Any, got: Any) -> list[str]:
    """One path that differs. Two texts too long to show whole are shown where they part:
    the first character that differs, with some of what comes before and after it."""
    if not (isinstance(recorded, str) and isinstance(got, str)) or max(len(brief(recorded)), len(brief(got))) < 60:
        return [f"{path}   recorded {brief(recorded)}   got {brief(got)}"]
    at = len(os.path.commonprefix([recorded, got]))
    start = max(0, at - CONTEXT)

    def window(text: str) -> str:
        shown = json.dumps(text[start:at + CONTEXT], ensure_ascii=False)
        return ("..." if start else "") + shown + ("..." if at + CONTEXT < len(text) else "")

    return [f"{path}   texts part at character {at + 1} (recorded {len(recorded)} characters, got {len(got)}):",
            f"{' ' * len(path)}     recorded {window(recorded)}",
            f"{' ' * len(path)}     got      {window(got)}"]


def update(path: str, recording: Recording, outcome: Outcome, server: str, headers: dict) -> int:
    """Append the new session to the cassette as a new run; returns its number."""
    from ..record.session_log import SessionLog
    import pytest_mcptest.record.store as store

    log = SessionLog(server)
    for entry in outcome.messages:
        (log.from_host if entry["from"] == "host" else log.from_server)(entry["message"])
    log.ended = "mcptest verify --update"
    run = log.run([server], recorder="mcptest verify --update", recorded_at=store.utc_now())
    written = store.save(path, [run], log.catalog([server]), {}, store.APPEND, redactor_hiding(headers))
    return len(written.runs)


def main(args) -> int:
    """``mcptest verify`` from the command line."""
    command = args.server_command[1:] if args.server_command[:1] == ["--"] else args.server_command
    if bool(command) == bool(args.http):
        print("mcptest verify: give the server command after -- (mcptest verify CASSETTE -- COMMAND [ARGS...]) "
              "or a Streamable HTTP endpoint (--http URL), not both", file=sys.stderr)
        return 2
    try:
        headers = parse_headers(args.header)
        if headers and not args.http:
            raise ValueError("--header goes with --http (a stdio server takes no headers)")
        for path in args.ignore or ():
            ignore_path(path)
        recording = load_recording(args.cassette, args.run)
    except (ValueError, InputError, OSError) as exc:
        print(start_failure("mcptest verify", args.cassette, exc), file=sys.stderr)
        return 2
    from ..text import printable
    from .proxy import resolve_command

    shown = args.http or shlex.join(command)
    command = resolve_command(command) if command else []
    try:
        outcome = verify(recording, command, args.http, headers, tuple(args.ignore or ()), args.timeout)
    except ServerUnavailable as exc:
        verb = "" if exc.started else "could not be reached: " if args.http else "could not be started: "
        print(printable(f"mcptest verify: the MCP server `{shown}` {verb}{exc}"), file=sys.stderr)
        return 2
    except ValueError as exc:  # the redaction key
        print(f"mcptest verify: {exc}", file=sys.stderr)
        return 2
    print(f"mcptest verify: {args.cassette} run {recording.run}: {_summary(outcome, shown)}")
    if not outcome.ok:
        print(printable("\n".join(change_lines(outcome))))  # what the server and the recording said: escaped
    if args.update:
        try:
            number = update(args.cassette, recording, outcome, str(recording.server_info.get("name") or shown),
                            headers)
        except (InputError, OSError, ValueError) as exc:
            text = exc.render() if isinstance(exc, InputError) else (getattr(exc, "strerror", None) or str(exc))
            print(f"mcptest verify --update: not written: {text}", file=sys.stderr)
            return 2
        print(f"mcptest verify: the new answers are run {number} of {args.cassette}")
    return 0 if outcome.ok else 1


def _summary(outcome: Outcome, shown: str) -> str:
    """``all 9 recorded answer(s) match `SERVER```, or how many differ, and whether the
    server's output broke the stdio framing (a line a host cannot read)."""
    framing = sum(1 for c in outcome.changes if c.note.startswith("stdout:"))
    differ = sum(1 for c in outcome.changes if c.diffs or (c.note and not c.note.startswith("stdout:")))
    said = (f"{differ} of {outcome.compared} recorded answer(s) differ from `{shown}`" if differ else
            f"all {outcome.compared} recorded answer(s) match `{shown}`")
    return said + (f", but its stdout broke the stdio framing at {framing} request(s)" if framing else "")
