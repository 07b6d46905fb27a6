"""Shared by the recording tests: commands for the proxy and servers, a session driver."""

from __future__ import annotations

import sys

import anyio
from forkserver import forked

SHOP_MANIFEST = """\
mock_server:
  name: shop
  page_size: 2
  tools:
    - name: get_weather
      description: Current weather for a city.
      input_schema:
        type: object
        properties: {city: {type: string, description: City name.}}
        required: [city]
      annotations: {readOnlyHint: true}
      response: "Sunny in ${args.city}"
    - name: add
      description: Add two numbers.
      input_schema: {type: object, properties: {a: {type: number}, b: {type: number}}}
      response: {sum: "${args.a}", note: "a=${args.a}, b=${args.b}"}
    - name: echo
      description: Echo the text back.
      input_schema: {type: object, properties: {text: {type: string}}}
      response: "you said ${args.text}"
    - name: broken
      description: Always fails.
      response: "Error: the shelf is locked"
      is_error: true
  resources:
    - {uri: "file:///readme.txt", name: readme, mime_type: text/plain, text: hello}
  prompts:
    - name: summarize
      arguments: [{name: topic, required: true}]
      text: "Summarize ${args.topic}"
"""


def mock_command(manifest: str) -> list[str]:
    return forked([sys.executable, "-m", "pytest_mcptest.cli", "mock", "--tools-from", manifest])


def time_command() -> list[str]:
    return forked([sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"])


def proxy_command(out: str, server: list[str], *extra: str) -> list[str]:
    return [sys.executable, "-m", "pytest_mcptest.cli", "record", "--out", out, *extra, "--", *server]


def with_session(command: list[str], body, env: dict | None = None, timeout: float = 60, errlog=None):
    """``await body(session, initialize_result)`` with a plain SDK ClientSession on ``command``; returns its value.
    ``errlog``: a file the server's stderr goes to (the SDK's default otherwise)."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def run():
        params = StdioServerParameters(command=command[0], args=command[1:], env=env)
        with anyio.fail_after(timeout):
            async with stdio_client(params, **({"errlog": errlog} if errlog is not None else {})) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    return await body(session, init)

    return anyio.run(run)


def dump(model) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)
