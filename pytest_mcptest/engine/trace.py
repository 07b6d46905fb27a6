"""A recorded agent run, as every gate reads it, and as every recorder writes it.

The cassette module decodes these from JSON and writes them back; gates only read them.
Fields that a recording may lack (tokens, cost) stay ``None``: absent is never zero.

:class:`ToolCall`, :class:`Message` and :class:`Tokens` are msgspec Structs declared
``gc=False``: the decoder builds one per recorded call, message or token count in C, and
the garbage collector never walks them (they hold JSON values, never themselves, so no
cycle runs through them).
"""

from __future__ import annotations

import functools

from typing import Annotated, Any, Literal, Optional, Union

import msgspec


class ToolCall(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """One tool call the agent made, with what the server answered.

    The first seven fields are what gates read. The rest are what a recorder noted and
    replay hands back as it was: the JSON-RPC error answered instead of a result, whether
    the call was never answered, the task it was made as, how long it took, and the call's
    id and error message in an imported log. ``error`` and ``args_invalid_json`` read ``null`` as false."""

    name: Annotated[str, msgspec.Meta(min_length=1)]
    args: Any = None
    server: Optional[str] = None
    error: Optional[bool] = False
    result: Any = None
    turn: Optional[int] = None
    args_invalid_json: Optional[bool] = False  # the log's arguments were not JSON; ``args`` keeps the text as ``_raw``
    rpc_error: Any = None
    unanswered: Any = None
    task_id: Any = None
    duration_ms: Any = None
    id: Any = None
    error_message: Any = None

    def to_dict(self) -> dict:
        """The call as an envelope's ``tool_calls`` entry holds it: name, server, args, error,
        result and turn, those that are present (what an ``expect:`` path and the report read)."""
        out: dict = {"name": self.name}
        if self.server is not None:
            out["server"] = self.server
        out["args"] = self.args
        out["error"] = self.error
        if self.result is not None:
            out["result"] = self.result
        if self.turn is not None:
            out["turn"] = self.turn
        if self.args_invalid_json:
            out["args_invalid_json"] = True
        return out


class Message(msgspec.Struct, frozen=True, gc=False, omit_defaults=True, kw_only=True, rename={"sender": "from"}):
    """One JSON-RPC message of a session ``mcptest record`` saw: who sent it (``from`` on
    disk), the milliseconds since the session began, the message as it was on the wire,
    and why the recorder could not read it as a tool call (it was forwarded all the same)."""

    sender: Literal["host", "server"]
    at_ms: Any = None
    message: dict
    malformed: Any = None


# A count a recording may lack: a number, 0 or more, or absent (``None``, never zero).
NotNegative = Union[Annotated[int, msgspec.Meta(ge=0)], Annotated[float, msgspec.Meta(ge=0)], None]


class Tokens(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """Tokens a model consumed: what it read (``input``), what it wrote (``output``), and
    both (``total``); each may be absent (a log that reports only a total), and absent is
    never zero.

    mcptest's one name and one type for token usage, wherever it is counted: a run's
    ``conversation.tokens`` in a cassette (decoded straight into this Struct, which is why
    it is a msgspec Struct with the format's bounds, written back with what is absent left
    out), an importer's sum of the usage objects a log holds, a live model reply's usage,
    a run's sum of its replies and a model's share of a recording's spend. What users
    write (``conversation.tokens.total`` in ``expect:``) reads the envelope's plain
    :meth:`to_dict`."""

    input: NotNegative = None
    output: NotNegative = None
    total: NotNegative = None

    @classmethod
    def of(cls, input: float, output: float) -> "Tokens":
        """Both parts known (a model reply's usage): the total is their sum."""
        return cls(input, output, input + output)

    def __add__(self, other: "Tokens") -> "Tokens":
        """Part by part; a part absent on one side is the other's (summing the usage objects
        of a log keeps what none of them reported absent, not zero)."""
        return Tokens(_plus(self.input, other.input), _plus(self.output, other.output),
                      _plus(self.total, other.total))

    def __bool__(self) -> bool:
        """Whether any part is present: an empty one is false, as the empty dict it once was."""
        return self.input is not None or self.output is not None or self.total is not None

    def to_dict(self) -> dict:
        """The parts present, as the envelope's ``conversation.tokens`` (and a helper role's
        ``meta.tokens``) holds them (msgspec leaves out what is absent: ``omit_defaults``)."""
        return msgspec.to_builtins(self)


def _plus(a, b):
    return b if a is None else a if b is None else a + b


def message_text(content: Any) -> str:
    """The text of a chat message's content: a string, or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "\n".join(parts)
    return ""


def _blocks(msg: dict) -> list:
    content = msg.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _asks_for_tools(msg: dict) -> bool:
    """An assistant message that calls tools: OpenAI ``tool_calls`` or Anthropic ``tool_use`` blocks."""
    return bool(msg.get("tool_calls")) or any(b.get("type") == "tool_use" for b in _blocks(msg))


def is_user_turn(msg: Any) -> bool:
    """A message the user wrote; an Anthropic user message made only of ``tool_result`` blocks is not."""
    if not isinstance(msg, dict) or msg.get("role") != "user":
        return False
    blocks = _blocks(msg)
    return not blocks or not all(b.get("type") == "tool_result" for b in blocks)


def final_responses(turns: tuple) -> tuple[str, ...]:
    """The assistant messages that end a turn, in order.

    An assistant message ends a turn when the next message is the user's, or when it
    is the last message; one that asks for tool calls never does.
    """
    out = []
    for i, msg in enumerate(turns):
        if not isinstance(msg, dict) or msg.get("role") != "assistant" or _asks_for_tools(msg):
            continue
        if i + 1 == len(turns) or is_user_turn(turns[i + 1]):
            out.append(message_text(msg.get("content")))
    return tuple(out)


class Run(msgspec.Struct, frozen=True, dict=True):
    """One recorded run: its tool calls, conversation, tokens and cost; the task it is a
    trial of, which trial, and what the recorder noted of it (``meta``), when recorded; the
    session's messages when ``mcptest record`` kept them.

    Its two derived values (``names``, ``final_responses``) are worked out at their first
    use and kept in the run's ``__dict__`` (``dict=True``), outside its fields: they are not
    compared, pickled or shown, and come from frozen fields only, so nothing a reader can see
    of a run ever changes."""

    tool_calls: tuple[ToolCall, ...] = ()
    turns: tuple = ()
    tokens: Optional[Tokens] = None
    cost_micros: Optional[float] = None
    judgments: tuple = ()
    task: Any = None
    trial: Optional[int] = None
    meta: Optional[dict] = None
    messages: Optional[tuple[Message, ...]] = None  # the whole session, when ``mcptest record`` kept it
    unmatched_results: Any = None  # an importer's results that answered no call, kept for the user
    @functools.cached_property
    def names(self) -> tuple[str, ...]:
        """The calls' tool names, in order. Worked out at its first use and kept, as
        :attr:`final_responses` is: a run is immutable, and a cassette that several items
        replay hands each of them the same run."""
        return tuple([c.name for c in self.tool_calls])

    @functools.cached_property
    def final_responses(self) -> tuple[str, ...]:
        return final_responses(self.turns)

    def envelope(self, finals: Optional[tuple[str, ...]] = None) -> dict:
        """What every kind of block reports of a run, before its own gates add theirs: the
        calls, their names and count, the turns (final responses), the conversation with
        its tokens, the last final response and the cost; absent data stays absent.
        ``finals`` are the final responses when the caller has worked them out already."""
        finals = self.final_responses if finals is None else finals
        conversation: dict = {"turns": list(self.turns)}
        if self.tokens is not None:
            conversation["tokens"] = self.tokens.to_dict()
        env: dict = {
            "tool_calls": [c.to_dict() for c in self.tool_calls],
            "tool_names": list(self.names),
            "actions": len(self.tool_calls),
            "turns": len(finals),
            "conversation": conversation,
        }
        if finals:
            env["final_response"] = finals[-1]
        if self.cost_micros is not None:
            env["cost_micros"] = self.cost_micros
        if self.task is not None:
            env["task"] = self.task
        if self.trial is not None:
            env["trial"] = self.trial
        if self.meta:
            env["meta"] = self.meta
        return env
