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

- a ``tools/list`` snapshot (``{"tools": [...]}``), served exactly as written; a call
  answers with one text block naming the tool and its arguments:
  ``mock <name> called with {"city": "Paris"}``.

Faults (``--fault``), applied to ``tools/call`` only:

- ``none`` (default);
- ``hang``: never answers a ``tools/call``;
- ``slow:<ms>``: waits ``ms`` milliseconds before each answer;
- ``recover-after:<n>``: the first ``n`` calls answer with an ``isError: true`` result, later
  calls succeed.

Bad input (no such file, a malformed manifest, a bad ``--fault``) prints one line on stderr
and exits 2.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

import yaml

DEFAULT_NAME = "mcptest-mock"
DEFAULT_INPUT_SCHEMA = {"type": "object", "properties": {}}
_PLACEHOLDER = re.compile(r"\$\{(args(?:\.[^}.]+)*)\}")


class MockError(Exception):
    """Bad input for the mock server: a malformed manifest or fault spec."""


# --------------------------------------------------------------------------- faults


class Fault:
    """A parsed ``--fault`` spec: ``kind`` is none, hang, slow or recover-after."""

    def __init__(self, kind: str = "none", value: int = 0):
        self.kind = kind
        self.value = value

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Fault({self.kind!r}, {self.value!r})"


def parse_fault(spec: str) -> Fault:
    """``none | hang | slow:<ms> | recover-after:<n>`` -> :class:`Fault`; MockError if bad."""
    text = (spec or "").strip()
    if text in ("none", "hang"):
        return Fault(text)
    kind, sep, number = text.partition(":")
    if sep and kind in ("slow", "recover-after"):
        if re.fullmatch(r"\d+", number.strip()):
            return Fault(kind, int(number))
        unit = "milliseconds" if kind == "slow" else "calls"
        raise MockError(f"--fault {spec!r}: {kind} needs a whole number of {unit}, "
                        f"as in {kind}:{'250' if kind == 'slow' else '2'}")
    raise MockError(f"--fault {spec!r}: expected none, hang, slow:<ms> or recover-after:<n>")


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


def load_spec(path: str | Path) -> MockSpec:
    """Read a manifest or a ``tools/list`` snapshot; MockError with the reason if malformed."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MockError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MockError(f"{path}: cannot read: {exc}") from None
    data: Any
    try:
        data = json.loads(text)
    except ValueError:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f":{mark.line + 1}" if mark is not None else ""
            problem = getattr(exc, "problem", None) or str(exc)
            raise MockError(f"{path}{where}: not valid YAML or JSON: {problem}") from None
    return spec_from_data(data, str(path))


def spec_from_data(data: Any, where: str = "<manifest>") -> MockSpec:
    if isinstance(data, dict) and "mock_server" in data:
        return _from_manifest(data["mock_server"], where)
    if isinstance(data, dict) and "tools" in data:
        return _from_snapshot(data, where)
    raise MockError(f"{where}: expected a manifest (a `mock_server:` mapping) or a tools/list "
                    f"snapshot (an object with a `tools` list)")


def _from_snapshot(data: dict, where: str) -> MockSpec:
    tools = data["tools"]
    if not isinstance(tools, list):
        raise MockError(f"{where}: `tools` must be a list")
    names: set[str] = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise MockError(f"{where}: tools[{i}] must be an object")
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            raise MockError(f"{where}: tools[{i}] needs a `name` string")
        if name in names:
            raise MockError(f"{where}: tools[{i}]: duplicate tool name {name!r}")
        names.add(name)
        if "inputSchema" in tool and not isinstance(tool["inputSchema"], dict):
            raise MockError(f"{where}: tools[{i}] ({name}): `inputSchema` must be an object")
    served = [tool if "inputSchema" in tool else {**tool, "inputSchema": dict(DEFAULT_INPUT_SCHEMA)}
              for tool in tools]
    return MockSpec(tools=served, snapshot=True)


_TOOL_KEYS = {"name", "title", "description", "input_schema", "inputSchema", "output_schema",
              "outputSchema", "annotations", "response", "is_error", "_meta", "icons"}


def _from_manifest(block: Any, where: str) -> MockSpec:
    if not isinstance(block, dict):
        raise MockError(f"{where}: `mock_server` must be a mapping")
    unknown = set(block) - {"name", "version", "instructions", "page_size", "tools", "resources",
                            "prompts"}
    if unknown:
        raise MockError(f"{where}: mock_server: unknown key(s) {', '.join(sorted(map(str, unknown)))}")
    name = block.get("name", DEFAULT_NAME)
    if not isinstance(name, str) or not name:
        raise MockError(f"{where}: mock_server.name must be a non-empty string")
    version = block.get("version", "")
    if not isinstance(version, (str, int, float)):
        raise MockError(f"{where}: mock_server.version must be a string")
    instructions = block.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise MockError(f"{where}: mock_server.instructions must be a string")
    page_size = block.get("page_size")
    if page_size is not None and (isinstance(page_size, bool) or not isinstance(page_size, int)
                                  or page_size < 1):
        raise MockError(f"{where}: mock_server.page_size must be a positive integer")

    tools_in = block.get("tools", [])
    if not isinstance(tools_in, list):
        raise MockError(f"{where}: mock_server.tools must be a list")
    tools: list[dict] = []
    responses: dict[str, dict] = {}
    for i, entry in enumerate(tools_in):
        at = f"{where}: mock_server.tools[{i}]"
        if not isinstance(entry, dict):
            raise MockError(f"{at} must be a mapping")
        tname = entry.get("name")
        if not isinstance(tname, str) or not tname:
            raise MockError(f"{at} needs a `name` string")
        at += f" ({tname})"
        if tname in responses:
            raise MockError(f"{at}: duplicate tool name")
        unknown = set(entry) - _TOOL_KEYS
        if unknown:
            raise MockError(f"{at}: unknown key(s) {', '.join(sorted(map(str, unknown)))}")
        schema = entry.get("input_schema", entry.get("inputSchema", DEFAULT_INPUT_SCHEMA))
        if not isinstance(schema, dict):
            raise MockError(f"{at}: input_schema must be a mapping")
        tool: dict[str, Any] = {"name": tname}
        for key in ("title", "description"):
            if key in entry:
                if not isinstance(entry[key], str):
                    raise MockError(f"{at}: {key} must be a string")
                tool[key] = entry[key]
        tool["inputSchema"] = schema
        output = entry.get("output_schema", entry.get("outputSchema"))
        if output is not None:
            if not isinstance(output, dict):
                raise MockError(f"{at}: output_schema must be a mapping")
            tool["outputSchema"] = output
        for key in ("annotations", "_meta"):
            if key in entry:
                if not isinstance(entry[key], dict):
                    raise MockError(f"{at}: {key} must be a mapping")
                tool[key] = entry[key]
        if "icons" in entry:
            tool["icons"] = entry["icons"]
        is_error = entry.get("is_error", False)
        if not isinstance(is_error, bool):
            raise MockError(f"{at}: is_error must be true or false")
        _check_json(entry.get("response"), f"{at}: response")
        tools.append(tool)
        responses[tname] = {"has": "response" in entry, "response": entry.get("response"),
                            "is_error": is_error}

    resources = _resources(block.get("resources", []), where)
    prompts = _prompts(block.get("prompts", []), where)
    return MockSpec(name=name, version=str(version), instructions=instructions, tools=tools,
                    responses=responses, resources=resources, prompts=prompts,
                    page_size=page_size)


def _resources(items: Any, where: str) -> list[dict]:
    if not isinstance(items, list):
        raise MockError(f"{where}: mock_server.resources must be a list")
    out = []
    seen: set[str] = set()
    for i, entry in enumerate(items):
        at = f"{where}: mock_server.resources[{i}]"
        if not isinstance(entry, dict):
            raise MockError(f"{at} must be a mapping")
        uri = entry.get("uri")
        if not isinstance(uri, str) or not uri:
            raise MockError(f"{at} needs a `uri` string")
        if uri in seen:
            raise MockError(f"{at}: duplicate uri {uri!r}")
        seen.add(uri)
        name = entry.get("name", uri)
        text = entry.get("text", "")
        if not isinstance(name, str) or not isinstance(text, str):
            raise MockError(f"{at}: name and text must be strings")
        listed: dict[str, Any] = {"uri": uri, "name": name}
        if isinstance(entry.get("description"), str):
            listed["description"] = entry["description"]
        mime = entry.get("mime_type", entry.get("mimeType"))
        if isinstance(mime, str):
            listed["mimeType"] = mime
        out.append({"listed": listed, "text": text})
    return out


def _prompts(items: Any, where: str) -> list[dict]:
    if not isinstance(items, list):
        raise MockError(f"{where}: mock_server.prompts must be a list")
    out = []
    seen: set[str] = set()
    for i, entry in enumerate(items):
        at = f"{where}: mock_server.prompts[{i}]"
        if not isinstance(entry, dict):
            raise MockError(f"{at} must be a mapping")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise MockError(f"{at} needs a `name` string")
        if name in seen:
            raise MockError(f"{at}: duplicate prompt name {name!r}")
        seen.add(name)
        listed: dict[str, Any] = {"name": name}
        if isinstance(entry.get("description"), str):
            listed["description"] = entry["description"]
        args = entry.get("arguments", [])
        if not isinstance(args, list) or not all(
                isinstance(a, dict) and isinstance(a.get("name"), str) for a in args):
            raise MockError(f"{at}: arguments must be a list of mappings with a `name`")
        if args:
            listed["arguments"] = [
                {k: a[k] for k in ("name", "description", "required") if k in a} for a in args]
        text = entry.get("text", entry.get("template", ""))
        if not isinstance(text, str):
            raise MockError(f"{at}: text must be a string")
        out.append({"listed": listed, "text": text})
    return out


def _check_json(value: Any, at: str) -> None:
    """YAML can hold values JSON cannot (dates, sets, non-string keys): refuse them early."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise MockError(f"{at} is not a JSON value: {exc}") from None


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


def answer(spec: MockSpec, name: str, args: dict) -> dict:
    """The ``tools/call`` result (a wire dict) for a call to ``name`` with ``args``."""
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
    """The SDK ``Server`` for ``spec`` with ``fault`` on tools/call."""
    import anyio
    from mcp.server.lowlevel import Server

    tool_names = {tool["name"] for tool in spec.tools}
    calls = {"n": 0}

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

    async def on_list_tools(ctx, params) -> dict:
        return page(getattr(params, "cursor", None) if params is not None else None)

    async def verbatim_tools(ctx, call_next):
        """The SDK sieves results through its models, dropping fields it does not know
        (vendor keys in a snapshot); put the tools back exactly as written."""
        result = await call_next(ctx)
        if getattr(ctx, "method", None) == "tools/list" and isinstance(result, dict) \
                and isinstance(result.get("tools"), list):
            params = getattr(ctx, "params", None) or {}
            raw = page(params.get("cursor") if hasattr(params, "get") else None)["tools"]
            if [t.get("name") for t in result["tools"]] == [t["name"] for t in raw]:
                result = {**result, "tools": raw}
        return result

    async def on_call_tool(ctx, params) -> dict:
        name = params.name
        args = dict(params.arguments or {})
        if name not in tool_names:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=-32602, message=f"Unknown tool: {name}")
        calls["n"] += 1
        number = calls["n"]
        if fault.kind == "hang":
            await anyio.sleep_forever()
        if fault.kind == "slow":
            await anyio.sleep(fault.value / 1000.0)
        if fault.kind == "recover-after" and number <= fault.value:
            return {"content": [{"type": "text",
                                 "text": f"mock fault recover-after:{fault.value}: call {number} "
                                         f"of the first {fault.value} fails"}],
                    "isError": True}
        return answer(spec, name, args)

    handlers: dict[str, Any] = {"on_list_tools": on_list_tools, "on_call_tool": on_call_tool}

    if spec.resources:
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

        handlers.update(on_list_resources=on_list_resources, on_read_resource=on_read_resource)

    if spec.prompts:
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

        handlers.update(on_list_prompts=on_list_prompts, on_get_prompt=on_get_prompt)

    server = Server(spec.name, version=spec.version or _own_version(),
                    instructions=spec.instructions, **handlers)
    middleware = getattr(server, "middleware", None)
    if isinstance(middleware, list):
        middleware.append(verbatim_tools)
    return server


def _own_version() -> str:
    try:
        from importlib.metadata import version

        return version("mcptest")
    except Exception:  # noqa: BLE001 - a version string is cosmetic
        return "0"


async def serve(spec: MockSpec, fault: Fault) -> None:
    """Serve ``spec`` over this process's stdin/stdout until stdin closes."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(spec, fault)
    async with stdio_server() as (read_stream, write_stream):
        async with anyio.create_task_group() as tg:
            async def run() -> None:
                await server.run(read_stream, write_stream, server.create_initialization_options())
                # stdin closed: stop, even with a hanging tools/call still in flight.
                tg.cancel_scope.cancel()

            tg.start_soon(run)


class _UsageError(Exception):
    pass


class _QuietParser(argparse.ArgumentParser):
    """Usage errors become one line and exit 2 from :func:`main`, never SystemExit."""

    def error(self, message: str):  # type: ignore[override]
        raise _UsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _QuietParser(
        prog="mcptest mock",
        description="A real MCP server over stdio (newline-delimited JSON-RPC), for tests "
                    "and examples, from a YAML manifest or a JSON tools/list snapshot.")
    parser.add_argument("--tools-from", metavar="FILE", required=True,
                        help="a manifest (mock_server: {...}) or a tools/list snapshot")
    parser.add_argument("--fault", metavar="SPEC", default="none",
                        help="none | hang | slow:<ms> | recover-after:<n> (default: none)")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``mcptest mock``; returns the exit status (2 for bad input)."""
    parser = _parser()
    try:
        ns = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except _UsageError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    try:
        fault = parse_fault(ns.fault)
        spec = load_spec(ns.tools_from)
    except MockError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    import anyio

    try:
        anyio.run(serve, spec, fault)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
