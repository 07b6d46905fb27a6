"""``mcptest mock``: a real MCP server over stdio, from a manifest or a ``tools/list`` snapshot.

Built on the official ``mcp`` SDK's low-level ``Server`` and its stdio transport
(newline-delimited JSON-RPC on stdin/stdout), so any MCP client can talk to it.

Two kinds of ``--tools-from FILE``:

- a YAML (or JSON) manifest::

      mock_server:
        name: shop                     # serverInfo.name (default "mcptest-mock")
        version: "1.0"                 # optional serverInfo.version
        instructions: ...              # optional
        page_size: 2                   # optional: paginate tools/list (nextCursor)
        tools:
          - name: get_weather
            description: Current weather for a city.
            input_schema: {type: object, properties: {city: {type: string}}, required: [city]}
            annotations: {readOnlyHint: true}            # optional, passed through
            response: "Sunny in ${args.city}"           # a string, or any JSON value
            is_error: false                              # optional: answer with isError
        resources:
          - {uri: "file:///readme", name: readme, description: ..., mime_type: text/plain,
             text: "..."}
        prompts:
          - name: summarize
            description: ...
            arguments: [{name: topic, description: ..., required: true}]
            text: "Summarize ${args.topic}"             # one user message

  ``${args.x}`` (dotted paths allowed, ``${args}`` is the whole arguments object) is filled
  from the call's arguments. Inside a longer string it is replaced by the value's text (JSON
  for objects and lists); a string that is exactly one placeholder takes the value itself,
  keeping its JSON type. A path the arguments do not have becomes ``""`` (or ``null``).
  A string ``response`` answers with one text block; any other JSON value answers with its
  JSON text, and an object also as ``structuredContent``. Without ``response`` a call
  answers with the fixed text below.

A tool that declares an ``outputSchema`` always answers with ``structuredContent`` (its
response when that is an object, else the smallest value the schema allows: required
properties only, each the simplest of its type), as the MCP specification asks, so the
official client's check of structured results passes. A call missing a required argument of
the tool's ``inputSchema`` is refused (JSON-RPC -32602, naming the arguments).

- a ``tools/list`` snapshot (``{"tools": [...]}``), served exactly as written; a call
  answers with one text block naming the tool and its arguments:
  ``mock <name> called with {"city": "Paris"}``.

Faults (``--fault``), applied to ``tools/call``, and to ``tools/list`` too with ``:list``:

- ``none`` (default);
- ``hang``: never answers a ``tools/call`` (``hang:list``: nor a ``tools/list``);
- ``slow:<ms>``: waits ``ms`` milliseconds before each answer (``slow:<ms>:list``: each
  ``tools/list`` page too);
- ``recover-after:<n>``: the first ``n`` calls answer with an ``isError: true`` result, later
  calls succeed.

The file is read by the suites' strict loader (duplicate keys refused; ``yes`` is a word, not
true) and checked against ``schema/manifest-v1.json``: bad input (no such file, a malformed
manifest, a bad ``--fault``) prints every problem with its line on stderr and exits 2.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Optional

from ..engine.paths import format_path, json_pointer
from ..errors import InputError

DEFAULT_NAME = "mcptest-mock"
DEFAULT_INPUT_SCHEMA = {"type": "object", "properties": {}}
_PLACEHOLDER = re.compile(r"\$\{(args(?:\.[^}.]+)*)\}")


class MockError(Exception):
    """A bad ``--fault`` spec (a bad manifest is an :class:`InputError`, with its line)."""


# --------------------------------------------------------------------------- faults


class Fault:
    """A parsed ``--fault`` spec: ``kind`` is none, hang, slow or recover-after; ``on_list``
    when the fault also applies to ``tools/list`` (``hang:list``, ``slow:<ms>:list``)."""

    def __init__(self, kind: str = "none", value: int = 0, on_list: bool = False):
        self.kind = kind
        self.value = value
        self.on_list = on_list

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Fault({self.kind!r}, {self.value!r})"


def parse_fault(spec: str) -> Fault:
    """``none | hang[:list] | slow:<ms>[:list] | recover-after:<n>`` -> :class:`Fault`;
    MockError if bad. ``:list`` makes ``hang`` and ``slow`` apply to ``tools/list`` too."""
    text = (spec or "").strip()
    on_list = text.endswith(":list") and text.split(":", 1)[0] in ("hang", "slow")
    if on_list:
        text = text[: -len(":list")]
    if text in ("none", "hang"):
        return Fault(text, on_list=on_list)
    kind, sep, number = text.partition(":")
    if sep and kind in ("slow", "recover-after"):
        if re.fullmatch(r"\d+", number.strip()):
            return Fault(kind, int(number), on_list=on_list)
        unit = "milliseconds" if kind == "slow" else "calls"
        raise MockError(f"--fault {spec!r}: {kind} needs a whole number of {unit}, "
                        f"as in {kind}:{'250' if kind == 'slow' else '2'}")
    raise MockError(f"--fault {spec!r}: expected none, hang, slow:<ms> or recover-after:<n> "
                    f"(hang:list and slow:<ms>:list also hold up tools/list)")


# --------------------------------------------------------------------------- the model


class MockSpec:
    """What the server serves: tools (wire dicts), their responses, resources, prompts."""

    def __init__(self, name: str = DEFAULT_NAME, version: str = "", instructions: Optional[str] = None,
                 tools: Optional[list[dict]] = None, responses: Optional[dict[str, dict]] = None,
                 resources: Optional[list[dict]] = None, prompts: Optional[list[dict]] = None,
                 page_size: Optional[int] = None, snapshot: bool = False):
        self.name = name
        self.version = version
        self.instructions = instructions
        self.tools = tools or []
        self.responses = responses or {}
        self.resources = resources or []
        self.prompts = prompts or []
        self.page_size = page_size
        self.snapshot = snapshot
        self.output_schemas = {t["name"]: t["outputSchema"] for t in self.tools if isinstance(t.get("outputSchema"), dict)}
        self.required = {t["name"]: [r for r in (t.get("inputSchema") or {}).get("required") or () if isinstance(r, str)]
                         for t in self.tools if isinstance(t.get("inputSchema"), dict)}


def load_spec(path: str | Path) -> MockSpec:
    """Read a manifest or a ``tools/list`` snapshot; :class:`InputError` at the line if malformed.

    The file goes through the suites' strict loader and ``schema/manifest-v1.json``, so every
    problem is reported at once, each with its line (or JSON pointer).
    """
    from ..suite.loader import load_data, read_text  # the reader alone: not the gates (0.1 s at every server start)
    from ..suite.validate import MANIFEST, validate_document

    path = str(path)
    text = read_text(path)
    data = load_data(path, text)
    if not (isinstance(data, dict) and ("mock_server" in data or "tools" in data)):
        raise InputError(path, "expected a manifest (a `mock_server:` mapping) or a tools/list snapshot "
                         "(an object with a `tools` list)", line=getattr(data, "line", None), source=text)
    validate_document(data, path, text, schema_name=MANIFEST)
    return spec_from_data(data, path, text)


def spec_from_data(data: dict, path: str, text: Optional[str] = None) -> MockSpec:
    """The :class:`MockSpec` of a manifest or snapshot that passed ``manifest-v1.json``; what a
    schema cannot say (names that repeat) is checked here, at its line."""
    if "mock_server" in data:
        return _from_manifest(data["mock_server"], ["mock_server"], _Where(path, text, data))
    _Where(path, text, data).unique(data["tools"], "name", ["tools"], "tool name")
    served = [tool if "inputSchema" in tool else {**tool, "inputSchema": dict(DEFAULT_INPUT_SCHEMA)}
              for tool in data["tools"]]
    return MockSpec(tools=served, snapshot=True)


class _Where:
    """Where in the file a problem is, for :class:`InputError`."""

    def __init__(self, path: str, text: Optional[str], root: Any):
        self.path, self.text, self.root = path, text, root

    def unique(self, entries: list, key: str, parts: list, what: str) -> None:
        from ..suite.yamlcore import line_of

        seen: dict = {}
        for i, entry in enumerate(entries):
            if entry[key] in seen:
                here = parts + [i, key]
                line = line_of(self.root, here)
                raise InputError(self.path, f"duplicate {what} {entry[key]!r} (first at "
                                 f"{format_path(parts + [seen[entry[key]]])})", line=line, source=self.text,
                                 pointer=None if line is not None else json_pointer(here))
            seen[entry[key]] = i


def _from_manifest(block: dict, parts: list, where: _Where) -> MockSpec:
    tools_in = block.get("tools", [])
    where.unique(tools_in, "name", parts + ["tools"], "tool name")
    tools: list[dict] = []
    responses: dict[str, dict] = {}
    for entry in tools_in:
        tool: dict[str, Any] = {"name": entry["name"]}
        for key in ("title", "description"):
            if key in entry:
                tool[key] = entry[key]
        tool["inputSchema"] = entry.get("input_schema", entry.get("inputSchema", DEFAULT_INPUT_SCHEMA))
        output = entry.get("output_schema", entry.get("outputSchema"))
        if output is not None:
            tool["outputSchema"] = output
        for key in ("annotations", "_meta", "icons"):
            if key in entry:
                tool[key] = entry[key]
        tools.append(tool)
        responses[entry["name"]] = {"has": "response" in entry, "response": entry.get("response"),
                                    "is_error": entry.get("is_error", False)}

    resources_in = block.get("resources", [])
    where.unique(resources_in, "uri", parts + ["resources"], "resource uri")
    resources = []
    for entry in resources_in:
        listed: dict[str, Any] = {"uri": entry["uri"], "name": entry.get("name", entry["uri"])}
        if "description" in entry:
            listed["description"] = entry["description"]
        mime = entry.get("mime_type", entry.get("mimeType"))
        if mime is not None:
            listed["mimeType"] = mime
        resources.append({"listed": listed, "text": entry.get("text", "")})

    prompts_in = block.get("prompts", [])
    where.unique(prompts_in, "name", parts + ["prompts"], "prompt name")
    prompts = []
    for entry in prompts_in:
        listed = {"name": entry["name"]}
        if "description" in entry:
            listed["description"] = entry["description"]
        if entry.get("arguments"):
            listed["arguments"] = entry["arguments"]
        prompts.append({"listed": listed, "text": entry.get("text", entry.get("template", ""))})

    return MockSpec(name=block.get("name", DEFAULT_NAME), version=str(block.get("version", "")),
                    instructions=block.get("instructions"), tools=tools, responses=responses,
                    resources=resources, prompts=prompts, page_size=block.get("page_size"))


# --------------------------------------------------------------------------- answers


def _lookup(args: Any, path: str) -> tuple[bool, Any]:
    value = args
    for part in path.split(".")[1:]:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and re.fullmatch(r"\d+", part) and int(part) < len(value):
            value = value[int(part)]
        else:
            return False, None
    return True, value


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def fill(template: Any, args: dict) -> Any:
    """Fill ``${args.x}`` placeholders in every string of ``template`` from ``args``."""
    if isinstance(template, str):
        whole = _PLACEHOLDER.fullmatch(template)
        if whole:
            found, value = _lookup(args, whole.group(1))
            return value if found else None
        return _PLACEHOLDER.sub(
            lambda m: (lambda fv: _as_text(fv[1]) if fv[0] else "")(_lookup(args, m.group(1))),
            template)
    if isinstance(template, list):
        return [fill(item, args) for item in template]
    if isinstance(template, dict):
        return {key: fill(value, args) for key, value in template.items()}
    return template


def _fill_text(template: str, args: dict) -> str:
    """Like :func:`fill`, but always a string (for prompts and string responses)."""
    return _PLACEHOLDER.sub(
        lambda m: (lambda fv: _as_text(fv[1]) if fv[0] else "")(_lookup(args, m.group(1))),
        template)


def smallest(schema: Any, depth: int = 0) -> Any:
    """The simplest value a JSON Schema allows, for a tool that must answer with structured
    content but has no response of its own: required properties only, ``""``, ``0``,
    ``false``, ``[]``, the first ``enum`` or ``const``, the first branch of an ``anyOf``."""
    if not isinstance(schema, dict) or depth > 32:
        return None
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return smallest(schema[key][0], depth + 1)
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind == "object" or (kind is None and "properties" in schema):
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [r for r in schema.get("required") or () if isinstance(r, str)]
        return {name: smallest(props.get(name, {}), depth + 1) for name in required}
    if kind == "array":
        count = schema.get("minItems", 0) if isinstance(schema.get("minItems"), int) else 0
        return [smallest(schema.get("items", {}), depth + 1) for _ in range(min(count, 8))]
    if kind in ("number", "integer"):
        low = schema.get("minimum", 0)
        return low if isinstance(low, (int, float)) and not isinstance(low, bool) else 0
    if kind == "boolean":
        return False
    if kind == "string":
        size = schema.get("minLength", 0)
        return "x" * min(size, 64) if isinstance(size, int) else ""
    return None


def answer(spec: MockSpec, name: str, args: dict) -> dict:
    """The ``tools/call`` result (a wire dict) for a call to ``name`` with ``args``; with the
    tool's ``outputSchema``, always structured content that the schema allows."""
    result = _answer(spec, name, args)
    output = spec.output_schemas.get(name)
    if output is not None and "structuredContent" not in result and not result.get("isError"):
        result["structuredContent"] = smallest(output)
    return result


def _answer(spec: MockSpec, name: str, args: dict) -> dict:
    entry = spec.responses.get(name)
    if entry is None or not entry["has"]:
        return {"content": [{"type": "text", "text": f"mock {name} called with "
                             f"{json.dumps(args, ensure_ascii=False, sort_keys=True)}"}],
                "isError": bool(entry and entry["is_error"])}
    response = entry["response"]
    result: dict[str, Any]
    if isinstance(response, str):
        result = {"content": [{"type": "text", "text": _fill_text(response, args)}]}
    else:
        value = fill(response, args)
        result = {"content": [{"type": "text", "text": _as_text(value)}]}
        if isinstance(value, dict):
            result["structuredContent"] = value
    result["isError"] = entry["is_error"]
    return result


# --------------------------------------------------------------------------- the server


def build_server(spec: MockSpec, fault: Fault):
    """The SDK ``Server`` for ``spec`` with ``fault`` on tools/call: its tools always, its
    resources and prompts when the manifest has them."""
    from mcp.server.lowlevel import Server

    page = _pager(spec)
    handlers: dict[str, Any] = _tool_handlers(spec, fault, page)
    if spec.resources:
        handlers.update(_resource_handlers(spec))
    if spec.prompts:
        handlers.update(_prompt_handlers(spec))
    server = Server(spec.name, version=spec.version or _own_version(),
                    instructions=spec.instructions, **handlers)
    middleware = getattr(server, "middleware", None)
    if isinstance(middleware, list):
        middleware.append(_verbatim_tools(page))
    return server


def _pager(spec: MockSpec):
    """``page(cursor)``: the tools/list result at ``cursor`` (every tool when the manifest
    sets no page size); a cursor this server did not give is invalid params."""
    def page(cursor: Any) -> dict:
        if not spec.page_size:
            return {"tools": spec.tools}
        start = 0
        if cursor:
            if not isinstance(cursor, str) or not re.fullmatch(r"\d+", cursor) \
                    or int(cursor) > len(spec.tools):
                from mcp.shared.exceptions import MCPError

                raise MCPError(code=-32602, message=f"Invalid cursor: {cursor!r}")
            start = int(cursor)
        end = start + spec.page_size
        result: dict[str, Any] = {"tools": spec.tools[start:end]}
        if end < len(spec.tools):
            result["nextCursor"] = str(end)
        return result

    return page


def _verbatim_tools(page):
    """A middleware: the SDK sieves results through its models, dropping fields it does not
    know (vendor keys in a snapshot); it puts the tools back exactly as written."""
    async def verbatim_tools(ctx, call_next):
        result = await call_next(ctx)
        if getattr(ctx, "method", None) == "tools/list" and isinstance(result, dict) \
                and isinstance(result.get("tools"), list):
            params = getattr(ctx, "params", None) or {}
            raw = page(params.get("cursor") if hasattr(params, "get") else None)["tools"]
            if [t.get("name") for t in result["tools"]] == [t["name"] for t in raw]:
                result = {**result, "tools": raw}
        return result

    return verbatim_tools


def _tool_handlers(spec: MockSpec, fault: Fault, page) -> dict:
    """tools/list and tools/call, with the fault (hang, slow, recover-after) applied."""
    import anyio

    from .serving import tool_fault

    tool_names = {tool["name"] for tool in spec.tools}
    calls = {"n": 0}

    async def on_list_tools(ctx, params) -> dict:
        if fault.on_list and fault.kind == "hang":
            await anyio.sleep_forever()
        if fault.on_list and fault.kind == "slow":
            await anyio.sleep(fault.value / 1000.0)
        return page(getattr(params, "cursor", None) if params is not None else None)

    async def on_call_tool(ctx, params) -> dict:
        from mcp.shared.exceptions import MCPError

        name = params.name
        args = dict(params.arguments or {})
        if name not in tool_names:
            raise MCPError(code=-32602, message=f"Unknown tool: {name}")
        missing = [r for r in spec.required.get(name, ()) if r not in args]
        if missing:
            raise MCPError(code=-32602, message=f"Invalid arguments for tool {name}: missing required "
                                                f"argument(s) {', '.join(missing)}")
        calls["n"] += 1
        faulted = await tool_fault(fault, calls["n"], "mock")
        return faulted if faulted is not None else answer(spec, name, args)

    return {"on_list_tools": on_list_tools, "on_call_tool": on_call_tool}


def _resource_handlers(spec: MockSpec) -> dict:
    """resources/list and resources/read over the manifest's resources."""
    by_uri = {r["listed"]["uri"]: r for r in spec.resources}

    async def on_list_resources(ctx, params) -> dict:
        return {"resources": [r["listed"] for r in spec.resources]}

    async def on_read_resource(ctx, params) -> dict:
        uri = str(params.uri)
        entry = by_uri.get(uri)
        if entry is None:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=-32002, message=f"Resource not found: {uri}")
        content: dict[str, Any] = {"uri": uri, "text": entry["text"]}
        if "mimeType" in entry["listed"]:
            content["mimeType"] = entry["listed"]["mimeType"]
        return {"contents": [content]}

    return {"on_list_resources": on_list_resources, "on_read_resource": on_read_resource}


def _prompt_handlers(spec: MockSpec) -> dict:
    """prompts/list and prompts/get over the manifest's prompts, arguments filled in."""
    by_name = {p["listed"]["name"]: p for p in spec.prompts}

    async def on_list_prompts(ctx, params) -> dict:
        return {"prompts": [p["listed"] for p in spec.prompts]}

    async def on_get_prompt(ctx, params) -> dict:
        entry = by_name.get(params.name)
        if entry is None:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=-32602, message=f"Unknown prompt: {params.name}")
        text = _fill_text(entry["text"], dict(params.arguments or {}))
        result: dict[str, Any] = {"messages": [
            {"role": "user", "content": {"type": "text", "text": text}}]}
        if "description" in entry["listed"]:
            result["description"] = entry["listed"]["description"]
        return result

    return {"on_list_prompts": on_list_prompts, "on_get_prompt": on_get_prompt}


def _own_version() -> str:
    try:
        from importlib.metadata import version

        return version("mcptest")
    except Exception:  # noqa: BLE001 - a version string is cosmetic
        return "0"


def run(tools_from: str, fault: str = "none") -> int:
    """``mcptest mock --tools-from FILE --fault SPEC``: serve until stdin closes. Returns the exit
    status: 0, or 2 for bad input (the reason on stderr, with the file's line)."""
    try:
        parsed = parse_fault(fault)
        spec = load_spec(tools_from)
    except MockError as exc:
        print(f"mcptest mock: error: {exc}", file=sys.stderr)
        return 2
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    from .serving import serve_until_closed

    return serve_until_closed(build_server(spec, parsed), None, None)
