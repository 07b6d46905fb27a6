"""SWE-agent trajectories (``.traj``) -> cassette v1.

A ``.traj`` file is one object whose ``history`` is the OpenAI-style message list the model saw.
With function calling, assistant messages carry ``tool_calls`` and each observation (``role:
tool``) names the calls it answers in ``tool_call_ids``: read as :mod:`.openai_chat` reads a run.
Messages marked ``is_demo`` (demonstrations put in the prompt) are skipped, and the tokens come
from ``info.model_stats`` (``tokens_sent`` as input, ``tokens_received`` as output). A list of
trajectories, or JSONL with one per line, gives one run each.

Without function calling (SWE-agent before 1.0, and its ``thought_action`` parsers), the model
wrote each command as text: a run with no ``tool_calls`` anywhere takes one call per step instead,
from ``trajectory`` (each step's ``action`` and ``observation``) or, when the file has no
``trajectory``, from the ``action`` of each assistant message and the message after it:

- a command listed under ``COMMANDS:`` in the system prompt (``open``, ``edit``, ``find_file``,
  ``submit``, ...) is a call of that name, its arguments named by the command's ``signature``
  (``open <path> [<line_number>]`` reads ``open setup.py 40`` as ``{"path": "setup.py",
  "line_number": 40}``, as function calling names them); a text that does not fit the signature
  keeps the whole command as ``{"command": text}``;
- anything else is a shell command, a call of ``bash`` with ``{"command": text}``, the name and
  argument SWE-agent's function-calling mode gives it;
- SWE-agent's own exits (``exit_cost``, ``exit_context``, ...) and empty actions are not calls.

An observation is a failed call when it has one of the shapes in :data:`FAILED` (besides the
shared :func:`.common.looks_like_error`); a Python traceback is not one: it is what running a
reproduction script is meant to show.
"""

from __future__ import annotations

import re
import shlex
from typing import Optional

import attrs
import msgspec

from ..formats.cassette import Cassette
from ..engine.trace import Run, Tokens, ToolCall
from .common import Catalog, Loc, Source, looks_like_error, read_usage, text_result
from .openai_chat import import_messages

KIND = "swe-agent"
RUN_KEYS = ("history",)
_STATS = (("tokens_sent",), ("tokens_received",), ())
SHELL = "bash"

#: How SWE-agent's tools and shell answer a command that did not do its job.
FAILED = (
    re.compile(r"^Your proposed edit has introduced new syntax error"),  # the edit linter refused it
    re.compile(r"^Your edit was not applied"),                           # edit_replace found no text
    re.compile(r"^Usage: "),                                             # a command given wrong arguments
    re.compile(r"^The command '.*' was cancelled because it took more than", re.S),  # a timeout
    re.compile(r": command not found\s*$", re.M),                        # bash
    re.compile(r"^Directory .* not found\s*$", re.M),                    # find_file / search_dir
)
_EXIT = re.compile(r"exit_\w+")
_HEADER = re.compile(r"([A-Za-z_][\w-]*):\s*")
_ARGUMENT = re.compile(r"\s+- (\w+) \((\w+)\)(?: \[(required|optional)\])?:?\s*(.*)")
_SLOT = re.compile(r"<(\w+)>")


def import_swe_agent(path: str, text: str) -> Cassette:
    """Read SWE-agent trajectories and return a cassette. Without function calling, the
    commands the system prompt documents become the cassette's ``catalog`` (the tool
    definitions the model was given), when the log has no other."""
    documented = Catalog()

    def finish(src: Source, obj: Optional[dict], loc: Loc, run: Run) -> Run:
        return _action_calls(src, obj, loc, run, documented)

    cassette = import_messages(KIND, path, text, RUN_KEYS, _model_stats, finish)
    if documented.tools and not cassette.catalog:
        cassette = msgspec.structs.replace(cassette, catalog=documented.to_dict())
    return cassette


def _model_stats(src: Source, obj: dict, loc: Loc) -> Tokens:
    info = obj.get("info")
    if isinstance(info, dict) and info.get("model_stats") is not None:
        return read_usage(src, info["model_stats"], loc / "info" / "model_stats", *_STATS)
    return Tokens()


# --------------------------------------------------------------------------- runs without function calling


def _action_calls(src: Source, obj: Optional[dict], loc: Loc, run: Run, documented: Catalog) -> Run:
    """A run that has no function calls, given one call per step of its action texts, and
    ``documented`` the commands its system prompt describes."""
    if obj is None or run.tool_calls:
        return run
    history = [(m, loc / "history" / i) for i, m in enumerate(obj["history"]) if m.get("is_demo") is not True]
    if any(m.get("tool_calls") for m, _ in history):
        return run
    commands = _commands(next((m.get("content") for m, _ in history if m.get("role") == "system"), None))
    for name, command in commands.items():
        documented.tools.setdefault(name, command.tool(name))
    actions = [m.get("action") for m, _ in history if m.get("role") == "assistant"]
    calls = []
    for action, observation, turn in _steps(src, obj, loc, history, actions):
        text = action.strip()
        if not text or _EXIT.fullmatch(text):
            continue
        name, args = _call_of(text, commands)
        call: dict = {"name": name, "args": args}
        error = observation is not None and (looks_like_error(observation)
                                             or any(shape.search(observation) for shape in FAILED))
        call["error"] = error
        if turn is not None:
            call["turn"] = turn
        if observation is not None:
            call["result"] = text_result(observation, error)
        calls.append(ToolCall(**call))
    return msgspec.structs.replace(run, tool_calls=tuple(calls))


def _steps(src: Source, obj: dict, loc: Loc, history: list, actions: list) -> list:
    """``[(action, observation or None, turn or None)]``: from ``trajectory`` when it has steps
    (each matched to the assistant message that wrote its action, for the turn), else from the
    assistant messages' ``action`` and the observation message after each."""
    steps = obj.get("trajectory")
    if steps is not None:
        src.need_list(steps, loc / "trajectory", "'trajectory'")
    if steps:
        out, at = [], 0
        for k, step in enumerate(steps):
            here = loc / "trajectory" / k
            src.need_dict(step, here, "a trajectory step")
            action = src.opt_str(step.get("action"), here / "action", "a step's 'action'") or ""
            observation = src.opt_str(step.get("observation"), here / "observation", "a step's 'observation'")
            turn = next((j for j in range(at, len(actions)) if actions[j] == action), None)
            if turn is not None:
                at = turn + 1
            out.append((action, observation, turn))
        return out
    out = []
    turn = -1
    for i, (msg, mloc) in enumerate(history):
        if msg.get("role") != "assistant":
            continue
        turn += 1
        action = src.opt_str(msg.get("action"), mloc / "action", "a message's 'action'")
        if action is None:
            continue
        after = history[i + 1][0] if i + 1 < len(history) else None
        observation = None
        if after is not None and after.get("role") in ("user", "tool") and isinstance(after.get("content"), str):
            observation = after["content"]
        out.append((action, observation, turn))
    return out


def _call_of(text: str, commands: dict) -> tuple[str, dict]:
    """A step's action text as ``(tool name, arguments)``."""
    word = text.split(None, 1)[0]
    if word not in commands:
        return SHELL, {"command": text}
    args = _by_signature(text, commands[word])
    return word, args if args is not None else {"command": text}


@attrs.define
class Command:
    """One command the system prompt documents: its signature lines, what it does, and its
    arguments as ``(name, type, required, description)``."""

    signature: list = attrs.Factory(list)
    docstring: str = ""
    arguments: list = attrs.Factory(list)

    def tool(self, name: str) -> dict:
        """The command as an MCP tool definition, for the cassette's catalog."""
        properties = {arg: {"type": kind, **({"description": text} if text else {})}
                      for arg, kind, _required, text in self.arguments}
        schema: dict = {"type": "object", "properties": properties}
        required = [arg for arg, _kind, needed, _text in self.arguments if needed]
        if required:
            schema["required"] = required
        return {"name": name, "description": self.docstring, "inputSchema": schema}


def _commands(prompt) -> dict[str, Command]:
    """The commands the system prompt documents under ``COMMANDS:``. Each is a ``name:`` line
    followed by ``  docstring:``, a ``  signature:`` (its continuation lines unindented, as
    ``edit``'s replacement text and terminator are) and ``  arguments:`` lines
    ``- name (type) [required]: what it is``."""
    if not isinstance(prompt, str) or "COMMANDS:" not in prompt:
        return {}
    lines = prompt.split("COMMANDS:", 1)[1].split("\n")
    out: dict = {}
    current = None
    in_signature = False
    for n, line in enumerate(lines):
        header = _HEADER.fullmatch(line)
        if header and n + 1 < len(lines) and lines[n + 1].startswith("  docstring:"):
            current = out[header.group(1)] = Command()
            in_signature = False
        elif current is None:
            continue
        elif line.startswith("  docstring:"):
            current.docstring = line.split(":", 1)[1].strip()
        elif line.startswith("  signature:"):
            current.signature.append(line.split(":", 1)[1].strip())
            in_signature = True
        elif in_signature and line.strip() and not line.startswith(" "):
            current.signature.append(line.strip())
        else:
            in_signature = False
            argument = _ARGUMENT.fullmatch(line)
            if argument:
                name, kind, need, text = argument.groups()
                current.arguments.append((name, kind, need == "required", text.strip()))
    return out


def _by_signature(text: str, command: Command) -> Optional[dict]:
    """Arguments named by the signature, or ``None`` when the text does not fit it. The first
    line's words fill ``<slot>`` and ``[<slot>]`` words in order (shell quoting applies); a
    signature of three lines (``edit <start>:<end>`` / ``<text>`` / ``end_of_edit``) takes the
    lines after the first, up to the terminator, as its second line's slot."""
    signature = command.signature
    if not signature:
        return None
    first, _, body = text.partition("\n")
    try:
        words = shlex.split(first)
    except ValueError:
        return None
    slots = signature[0].split()
    if len(words) > len(slots) or words[0] != slots[0]:
        return None
    args: dict = {}
    for k, slot in enumerate(slots[1:], start=1):
        optional = slot.startswith("[") and slot.endswith("]")
        if k >= len(words):
            if optional:
                continue
            return None
        parts = _SLOT.split(slot[1:-1] if optional else slot)  # literal, name, literal, name, ...
        pattern = "".join(f"(?P<{p}>.+?)" if i % 2 else re.escape(p) for i, p in enumerate(parts))
        match = re.fullmatch(pattern, words[k], re.S)
        if match is None:
            return None
        args.update(match.groupdict())
    rest = signature[1:]
    if rest:
        slot = _SLOT.fullmatch(rest[0])
        if len(rest) != 2 or slot is None:
            return None
        lines = body.split("\n")
        if rest[1] in lines:
            lines = lines[:lines.index(rest[1])]
        args[slot.group(1)] = "\n".join(lines)
    elif body.strip():
        return None
    types = {name: kind for name, kind, _required, _text in command.arguments}
    for name, value in args.items():
        if types.get(name) == "integer" and re.fullmatch(r"-?\d+", value):
            args[name] = int(value)
    return args
