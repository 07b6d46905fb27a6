"""Anthropic Messages through the official ``anthropic`` SDK.

The key is ``ANTHROPIC_API_KEY`` (or ``ANTHROPIC_AUTH_TOKEN``) and the endpoint
``ANTHROPIC_BASE_URL`` (or ``base_url`` in the suite's ``models:`` block), read by the
SDK itself. The SDK retries 408, 409, 429 and 5xx answers with exponential backoff,
honouring ``retry-after``.

The runner's transcript is Chat Completions shaped; this module turns it into Messages
form (tool calls become ``tool_use`` blocks, consecutive tool results one user message
of ``tool_result`` blocks) and reads the answer's JSON back (``content`` blocks,
``usage``, ``model``, ``stop_reason``). Input tokens include cache writes and reads.
A ``temperature`` is sent only when the installed SDK's ``messages.create`` takes one
(recent ones do not); otherwise the recording notes that it was not sent.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from ..engine.trace import Tokens
from .provider import Provider, Reply, ToolDef, ToolUse

DEFAULT_MAX_TOKENS = 4096


class AnthropicProvider(Provider):
    SDK = "anthropic"
    CLIENT = "AsyncAnthropic"

    def _takes_temperature(self) -> bool:
        """Recent SDKs dropped ``temperature`` from ``messages.create``; older ones take it."""
        import inspect

        return "temperature" in inspect.signature(self._client.messages.create).parameters

    async def _request(self, system, turns, tools, temperature) -> Any:
        kwargs: dict = {"model": self.ref.name, "max_tokens": self.settings.max_tokens or DEFAULT_MAX_TOKENS,
                        "messages": messages(turns)}
        if system:
            kwargs["system"] = system
        if tools:
            kwargs["tools"] = [_tool(t) for t in tools]
        if temperature is not None:
            if self._takes_temperature():
                kwargs["temperature"] = temperature
            else:
                self.ignored.add("temperature")
        if self.settings.stream:
            self.ignored.add("stream")  # an OpenAI setting: the whole message is asked for
        raw = await self._client.messages.with_raw_response.create(**kwargs)
        return self._json(raw)

    def _reply(self, data: dict) -> Reply:
        content = data.get("content")
        if not isinstance(content, list):
            raise self.malformed(f"no 'content' list in the answer (keys: {', '.join(sorted(data)) or 'none'})")
        texts, calls = [], []
        for i, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                if not isinstance(block.get("text", ""), str):
                    raise self.malformed(f"content[{i}].text is not a string")
                texts.append(block.get("text") or "")
            elif kind == "tool_use":
                if not isinstance(block.get("name"), str):
                    raise self.malformed(f"content[{i}] is a tool_use block with no name")
                args = block.get("input")
                bad = None if isinstance(args, dict) else json.dumps(args)
                calls.append(ToolUse(block.get("id") or f"toolu_{i}", block["name"],
                                     args if bad is None else {"_raw": bad}, bad))
            elif kind is None:
                raise self.malformed(f"content[{i}] is not a content block")
        return Reply(text="\n".join(t for t in texts if t), calls=tuple(calls), tokens=_tokens(data.get("usage")),
                     model=data.get("model") if isinstance(data.get("model"), str) else None,
                     stop_reason=data.get("stop_reason"))


def _tool(tool: ToolDef) -> dict:
    return {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}


def messages(turns: list) -> list:
    """The transcript in Messages form."""
    out: list = []
    for turn in turns:
        role = turn["role"]
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": turn["tool_call_id"], "content": turn.get("content", "")}
            if turn.get("is_error"):
                block["is_error"] = True
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
        elif role == "assistant":
            blocks: list = []
            if turn.get("content"):
                blocks.append({"type": "text", "text": turn["content"]})
            for call in turn.get("tool_calls") or ():
                blocks.append({"type": "tool_use", "id": call["id"], "name": call["function"]["name"],
                               "input": json.loads(call["function"]["arguments"])})
            out.append({"role": "assistant", "content": blocks or [{"type": "text", "text": ""}]})
        else:
            out.append({"role": "user", "content": turn.get("content", "")})
    return out


def _tokens(usage: Any) -> Optional[Tokens]:
    if not isinstance(usage, dict):
        return None
    parts = [usage.get(k) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")]
    output = usage.get("output_tokens")
    if not isinstance(parts[0], int) or not isinstance(output, int):
        return None
    return Tokens.of(sum(p for p in parts if isinstance(p, int)), output)
