"""A scenario world as an MCP server's catalog and answers (``mcptest serve SUITE::SCENARIO``).

The world's rules decide what a call does (:func:`world.step`); this module says what the
agent is shown and told:

- :func:`world_catalog`: one tool per name the world knows (its transitions, forbidden
  rules, escalation tools and ``tools:`` entries), each with a description and an input
  schema: declared, or inferred from the argument paths its transitions read
  (``from_arg`` in effects and results) and then marked so (``WorldTool.inferred``);
- :func:`answer`: the MCP result of a call, from the transition's ``result:`` filled in
  against the state after the effects and the call's arguments; a refused call answers
  an MCP tool error with the rule's words, so the agent can recover.

A ``result:`` is a literal, or holds templates: an object of one key, ``from_state`` or
``from_arg``, whose value is a path in the suite's grammar (``inventory.widgets``,
``items[0].id``). A list of objects that each have a ``type`` is MCP content, sent as
it is (templates inside filled in); any other value is sent as one text item (a string
as it is, anything else as JSON).
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Mapping, Optional

import msgspec

from .paths import Missing, PathError, parse_path, resolve
from .world import FORBIDDEN, INVALID, WorldSpec, step

TEMPLATE_KEYS = ("from_state", "from_arg")
NO_RESULT_TEXT = "ok"  # what a transition without ``result:`` answers


class WorldTool(msgspec.Struct, frozen=True):
    """One tool of a served world, as ``tools/list`` shows it."""

    name: str
    description: str
    input_schema: dict
    inferred: bool = False  # the schema was worked out from the paths the world reads

    def to_dict(self) -> dict:
        return {"name": self.name, "description": self.description, "inputSchema": self.input_schema}


def template(value: Any) -> Optional[tuple[str, str]]:
    """``(from_state|from_arg, path text)`` when ``value`` is a template, else None."""
    if isinstance(value, dict) and len(value) == 1:
        (key, path), = value.items()
        if key in TEMPLATE_KEYS and isinstance(path, str):
            return key, path
    return None


def templates(value: Any, where: tuple = ()) -> Iterator[tuple[tuple, str, str]]:
    """Every template in a ``result:`` value: ``(where in the value, key, path text)``."""
    found = template(value)
    if found is not None:
        yield (where, *found)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from templates(v, where + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from templates(v, where + (i,))


def fill(value: Any, state: Any, args: Any) -> Any:
    """``value`` with each template replaced by what its path holds (null where nothing)."""
    found = template(value)
    if found is not None:
        key, path = found
        got = resolve(state if key == "from_state" else (args if args is not None else {}), parse_path(path))
        return None if isinstance(got, Missing) else got
    if isinstance(value, dict):
        return {k: fill(v, state, args) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, state, args) for v in value]
    return value


def _is_content(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(
        isinstance(item, dict) and isinstance(item.get("type"), str) for item in value)


def as_content(value: Any) -> list:
    if _is_content(value):
        return value
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return [{"type": "text", "text": text}]


def answer(spec: WorldSpec, state: dict, name: str, args: Any) -> tuple[str, dict]:
    """Take the world's step for a live call (``state`` changes in place) and say what the
    agent is answered: ``(kind, MCP CallToolResult as JSON)``."""
    kind, reason, transition = step(spec, state, name, args, False)
    if kind is FORBIDDEN:
        return kind, {"content": [{"type": "text", "text": f"refused: {name} is forbidden: {reason}"}],
                      "isError": True}
    if kind is INVALID:
        return kind, {"content": [{"type": "text", "text": f"refused: {name}: {reason}"}], "isError": True}
    if transition is None or not transition.result:
        return kind, {"content": [{"type": "text", "text": NO_RESULT_TEXT}], "isError": False}
    return kind, {"content": as_content(fill(transition.result[0], state, args)), "isError": False}


# --------------------------------------------------------------------------- the catalog


def argument_paths(spec: WorldSpec, tool: str) -> list[tuple[tuple, bool]]:
    """``(argument path, is a number)`` for each path the tool's transitions read."""
    found: list[tuple[tuple, bool]] = []
    for transition in spec.transitions_by_tool.get(tool, ()):
        for effect in transition.effects:
            if effect.op == "from_arg":
                found.append((tuple(effect.value), False))
            if effect.amount_arg is not None:
                found.append((tuple(effect.amount_arg), True))
        if transition.result:
            for _, key, text in templates(transition.result[0]):
                if key == "from_arg":
                    found.append((parse_path(text), False))
    return found


def infer_schema(tool: str, paths: list[tuple[tuple, bool]]) -> dict:
    """An object schema with every path required; ValueError when a path goes through a
    list index (what the list holds, and how long it is, cannot be told from one path)."""
    check_inferable(tool, paths)
    root: dict = {"type": "object", "properties": {}, "required": []}
    for path, number in paths:
        node = root
        for i, seg in enumerate(path):
            props = node.setdefault("properties", {})
            node.setdefault("type", "object")
            node.setdefault("required", [])
            if seg not in node["required"]:
                node["required"].append(seg)
            last = i == len(path) - 1
            child = props.get(seg)
            if child is None:
                child = props[seg] = ({"type": "number"} if number else {}) if last else {"type": "object"}
            elif not last and child.get("type") != "object":
                child.clear()
                child["type"] = "object"
            node = child
    return root


def check_inferable(tool: str, paths: list[tuple[tuple, bool]]) -> None:
    """ValueError when :func:`infer_schema` cannot make the tool's schema from ``paths``."""
    for path, _ in paths:
        if not path or any(not isinstance(seg, str) for seg in path):
            shown = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in path).lstrip(".")
            raise ValueError(f"tool {tool!r}: its input schema cannot be inferred from the argument path "
                             f"{shown or '(empty)'!r} (a list index); declare it under tools: {{{tool}: "
                             f"{{input_schema: {{...}}}}}}")


def check_catalog(spec: WorldSpec, declared: Mapping[str, Mapping]) -> None:
    """What :func:`world_catalog` would refuse, found without making the catalog: a
    suite's scenarios are checked at collection, and only a served one needs its tools."""
    for tool in spec.transitions_by_tool:
        if (declared.get(tool) or {}).get("input_schema") is None:
            check_inferable(tool, argument_paths(spec, tool))


def world_catalog(spec: WorldSpec, declared: Mapping[str, Mapping], scenario: str) -> tuple[WorldTool, ...]:
    """The world's tools, in the order it names them (transitions, forbidden rules,
    escalation tools, then ``tools:`` entries). ``declared``: a tool's ``description`` and
    ``input_schema`` as written (a description may come from a transition's own).
    ValueError (naming the tool) when a schema is needed and cannot be inferred."""
    names: dict[str, None] = {}
    for name in (*(t.tool for t in spec.transitions), *(f.tool for f in spec.forbidden), *spec.escalation_tools,
                 *declared):
        names.setdefault(name, None)
    tools = []
    for name in names:
        given = declared.get(name) or {}
        description = given.get("description") or f"{name} (a tool of the world {scenario!r})"
        schema = given.get("input_schema")
        if schema is not None:
            tools.append(WorldTool(name, description, dict(schema)))
        else:
            tools.append(WorldTool(name, description, infer_schema(name, argument_paths(spec, name)), inferred=True))
    return tuple(tools)


def state_path_problem(spec: WorldSpec, text: str) -> Optional[str]:
    """Why a ``from_state`` path can never hold a value, else None: it must be in the seed,
    or at, above or below a path some effect writes."""
    try:
        path = parse_path(text)
    except PathError as exc:
        return str(exc)
    if not isinstance(resolve(spec.seed, path), Missing):
        return None
    for transition in spec.transitions:
        for effect in transition.effects:
            written = tuple(effect.path)
            if written[:len(path)] == path or path[:len(written)] == written:
                return None
    return f"from_state {text!r} names a path that is not in the seed and that no effect writes"
