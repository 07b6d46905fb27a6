"""``mcptest verify``: hold a server build to the answers it gave when a session was recorded.

The recorded host's messages (requests and notifications, handshake included) are sent
again, in order and one at a time, to the server under test (a stdio command or a
Streamable HTTP endpoint), and each answer is compared with the recorded one, structurally
(:mod:`..mcp.json_diff`: JSON inside text compared as JSON, numbers as numbers, ignored
paths left out). The handshake (``initialize``, ``server/discover``, ``ping``) is sent but
not compared (a new build may well carry a new version), nor is the ``_meta`` of a result
(the server's identity stamp). A request the server sends meanwhile (sampling, roots,
elicitation) gets the host's recorded answer to the same method, in order.

Exit status: 0 every answer matches, 1 some differ (each shown, call by call, with the
paths that differ), 2 bad input or a server that cannot be started or reached. With
``--update`` the new session is appended to the cassette as a new run, never over an old
one.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any, Optional

import attrs

from ..errors import InputError, start_failure
from ..mcp.json_diff import brief, differences, ignore_path
from ..mcp.recording import HANDSHAKE, Recording, load_recording
from .headers import parse_headers, redactor_hiding

NOT_RECORDED = -32601


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


def compare(recording: Recording, answers: dict, ignore: list, gone: str = "") -> list:
    """The changes between the recorded answers and ``answers`` (request index -> answer)."""
    changes = []
    for exchange in recording.exchanges:
        if exchange.method in HANDSHAKE or exchange.answer is None:
            continue
        what = _what(exchange.method, exchange.params)
        got = answers.get(exchange.index)
        if got is None:
            changes.append(Change(exchange.index, what, (), gone or "no answer"))
            continue
        diffs = differences(comparable(exchange.answer), comparable(got), ignore)
        if diffs:
            changes.append(Change(exchange.index, what, tuple(diffs), catalog=_catalog_lines(exchange, got)))
    return changes


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


async def replay(recording: Recording, open_transport, timeout: float) -> tuple[dict, list, str]:
    """Send the recorded host messages over ``open_transport()``; returns the answers by
    request index, the new session's messages, and why it ended early ("" if it did not)."""
    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    index_of = {_key(e.request.get("id")): e.index for e in recording.exchanges}
    answers: dict = {}
    session: list = []
    waiting: dict = {}
    host_answers = list(recording.host_answers)

    def wire(raw: dict):
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(raw))

    closed = anyio.Event()  # the server's output ended: no answer is coming

    async def read_side(read, write):
        await read_answers(read, write)
        closed.set()
        for event in waiting.values():
            event.set()

    async def read_answers(read, write):
        async for item in read:
            if isinstance(item, Exception):
                continue
            raw = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
            session.append({"from": "server", "message": raw})
            method = raw.get("method")
            if method is not None and raw.get("id") is not None:  # the server asks the host
                reply = next((a for m, a in host_answers if m == method), None)
                if reply is not None:
                    host_answers.remove((method, reply))
                    reply = {**reply, "id": raw["id"]}
                else:
                    reply = {"jsonrpc": "2.0", "id": raw["id"], "error": {
                        "code": NOT_RECORDED, "message": f"mcptest verify: the recording holds no answer to {method}"}}
                session.append({"from": "host", "message": reply})
                await write.send(wire(reply))
            elif method is None:
                event = waiting.pop(_key(raw.get("id")), None)
                if _key(raw.get("id")) in index_of:
                    answers[index_of[_key(raw.get("id"))]] = raw
                if event is not None:
                    event.set()

    ended = ""
    async with open_transport() as streams:
        read, write = streams[0], streams[1]
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_side, read, write)
            for message in recording.sent:
                session.append({"from": "host", "message": message})
                request_id = message.get("id")
                event = anyio.Event() if request_id is not None else None
                if event is not None:
                    waiting[_key(request_id)] = event
                try:
                    await write.send(wire(message))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    ended = "closed its input before the session ended"
                    break
                if event is not None:
                    with anyio.move_on_after(timeout) as scope:
                        await event.wait()
                    if scope.cancelled_caught:
                        ended = f"gave no answer within {timeout:g} s to {message.get('method')}"
                        break
                    if closed.is_set() and _key(request_id) not in {_key(a.get("id")) for a in answers.values()}:
                        ended = f"closed its output before answering {message.get('method')}"
                        break
            tg.cancel_scope.cancel()
    return answers, session, ended


def _key(request_id: Any) -> Any:
    return ("s", request_id) if isinstance(request_id, str) else ("n", request_id)


def transport(command: list[str], url: Optional[str], headers: dict, tail, env: Optional[dict] = None,
              cwd: Optional[str] = None):
    """The client transport to the server under test: the SDK's Streamable HTTP client, or a
    stdio server started as the catalog client starts one (:func:`..mcp.client.open_streams`:
    its own process group, its stderr and exit status kept in ``tail``)."""
    if url is not None:
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        return lambda: streamable_http_client(url, http_client=create_mcp_http_client(headers=headers or None))
    from ..mcp.client import open_streams

    return lambda: open_streams(command, env, cwd, tail, [], [])


def verify(recording: Recording, command: list[str], url: Optional[str] = None, headers: Optional[dict] = None,
           ignore: tuple = (), timeout: float = 30.0, env: Optional[dict] = None,
           cwd: Optional[str] = None) -> Outcome:
    """Replay ``recording`` against the server; ServerUnavailable when it cannot be had. A
    server that exited is said to have exited, with its status and the end of its stderr."""
    import anyio

    from ..mcp.client import StderrTail, _leaf, _quiet_sdk_logging

    patterns = [ignore_path(p) for p in ignore]
    tail = StderrTail()
    with _quiet_sdk_logging():
        try:
            connect = transport(command, url, headers or {}, tail, env, cwd)
            answers, session, ended = anyio.run(replay, recording, connect, timeout)
        except Exception as exc:  # noqa: BLE001 - start-up or transport failure: say it once
            leaf = _leaf(exc)
            reason = getattr(leaf, "strerror", None) or f"{type(leaf).__name__}: {leaf}"
            raise ServerUnavailable(_with_stderr(reason, tail)) from None
    if tail.exit_text() and ended:
        ended = _exited(tail.exit_text(), ended)
    if not any(entry["from"] == "server" for entry in session):
        raise ServerUnavailable(_with_stderr(ended or "never answered", tail), started=True)
    changes = compare(recording, answers, patterns, f"the server {ended}" if ended else "")
    compared = sum(1 for e in recording.exchanges if e.method not in HANDSHAKE and e.answer is not None)
    return Outcome(compared, tuple(changes), tuple(session))


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
            lines.append(f"      {path.ljust(width)}   recorded {brief(recorded)}   got {brief(got)}")
    return lines


def update(path: str, recording: Recording, outcome: Outcome, server: str, headers: dict) -> int:
    """Append the new session to the cassette as a new run; returns its number."""
    from ..record.proxy import SessionLog
    from . import store

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
    where = f"{args.cassette} run {recording.run}"
    if outcome.ok:
        print(f"mcptest verify: {where}: all {outcome.compared} recorded answer(s) match `{shown}`")
    else:
        print(f"mcptest verify: {where}: {len(outcome.changes)} of {outcome.compared} recorded answer(s) differ "
              f"from `{shown}`")
        print(printable("\n".join(change_lines(outcome))))  # what the server and the recording said: escaped
    if args.update:
        try:
            number = update(args.cassette, recording, outcome, str(recording.server_info.get("name") or shown),
                            headers)
        except (InputError, OSError) as exc:
            text = exc.render() if isinstance(exc, InputError) else (exc.strerror or str(exc))
            print(f"mcptest verify --update: not written: {text}", file=sys.stderr)
            return 2
        print(f"mcptest verify: the new answers are run {number} of {args.cassette}")
    return 0 if outcome.ok else 1
