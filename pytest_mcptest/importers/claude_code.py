"""Claude Code session transcripts (``~/.claude/projects/*/<session>.jsonl``, or the web
sessions' export ``{"loglines": [...]}``) -> cassette v1.

A transcript is JSONL with one event per line; the events of ``type`` ``user`` and ``assistant``
carry an Anthropic message under ``message``, read as :mod:`.anthropic` reads a conversation
(``tool_use`` blocks, ``tool_result`` blocks with ``is_error``). Other events (``summary``,
``system``, file snapshots) are skipped, and so are a subagent's (``isSidechain: true``): the
run is what the main agent did. Claude Code writes one API response as several
``assistant`` events sharing ``message.id``, each repeating its ``usage``: those are merged back
into one message, so turns and tokens count each response once. Each ``sessionId`` is one run,
in order of first appearance; ``sessionId`` and the first ``cwd``, ``gitBranch``, ``version`` go to the run's
``meta``.
"""

from __future__ import annotations

from ..formats.cassette import Cassette
from .anthropic import content_blocks, run_messages
from ..engine.values import type_name
from .common import Loc, Source, make_cassette

KIND = "claude-code"
MESSAGE_EVENTS = ("user", "assistant")
_KEPT = ("sessionId", "cwd", "gitBranch", "version")


def import_claude_code(path: str, text: str) -> Cassette:
    """Read a Claude Code transcript (JSONL) and return a cassette."""
    src = Source(path, text)
    _shape, records = src.records()
    if len(records) == 1 and isinstance(records[0][0], list):  # a JSON array of events
        doc, loc = records[0]
        records = [(event, loc / i) for i, event in enumerate(doc)]
    elif len(records) == 1 and isinstance(records[0][0], dict) and "loglines" in records[0][0]:
        records = _loglines(src, *records[0])  # the web sessions' export
    sessions: dict = {}
    for event, loc in records:
        src.need_dict(event, loc, "a transcript event")
        if event.get("type") not in MESSAGE_EVENTS or event.get("message") is None or event.get("isSidechain") is True:
            continue
        message = src.need_dict(event["message"], loc / "message", "an event's 'message'")
        session_id = event.get("sessionId")
        if session_id is not None and not isinstance(session_id, str):  # a list or an object cannot name a run
            raise src.fail(loc / "sessionId", f"'sessionId' must be a string, found {type_name(session_id)}")
        session = sessions.setdefault(session_id, {"messages": [], "meta": {}})
        for key in _KEPT:
            if isinstance(event.get(key), str):
                session["meta"].setdefault(key, event[key])
        content_blocks(src, message, loc / "message")  # checked where it is, before any merge
        _append(session["messages"], message, loc / "message")
    if not sessions:
        raise src.fail(Loc(), "no 'user' or 'assistant' events with a 'message' found: "
                       "expected a Claude Code transcript (JSONL, one event per line)")
    runs = []
    for session in sessions.values():
        extra = {"meta": session["meta"]} if session["meta"] else {}
        runs.append(run_messages(src, session["messages"], None, Loc(), [], extra))
    return make_cassette(KIND, path, runs)


def _loglines(src: Source, doc: dict, loc: Loc) -> list:
    """The events of a ``{"loglines": [...]}`` export, each with its place in the file."""
    events = src.need_list(doc["loglines"], loc / "loglines", "'loglines'")
    return [(event, loc / "loglines" / i) for i, event in enumerate(events)]


def _append(messages: list, message: dict, loc: Loc) -> None:
    """Add ``message``, merged into the previous one when it continues the same response."""
    if messages:
        last, _ = messages[-1]
        same = message.get("id") is not None and message.get("id") == last.get("id")
        if same and message.get("role") == last.get("role") == "assistant":
            merged = dict(last)
            merged["content"] = _as_blocks(last.get("content")) + _as_blocks(message.get("content"))
            messages[-1] = (merged, messages[-1][1])
            return
    messages.append((message, loc))


def _as_blocks(content) -> list:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content)
