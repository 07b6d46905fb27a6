"""OpenAI Chat Completions through the official ``openai`` SDK, and every server that
speaks the same wire format (Ollama, vLLM, OpenRouter, LM Studio) through a base URL.

The key is ``OPENAI_API_KEY`` and the endpoint ``OPENAI_BASE_URL`` (or ``base_url`` in
the suite's ``models:`` block), both read by the SDK itself. The SDK retries 408, 409,
429 and 5xx answers with exponential backoff, honouring ``retry-after``.

The runner's transcript is already Chat Completions shaped, so a request is that
transcript with the system prompt in front; only the keys the API accepts are sent.
The answer is read from its JSON (``choices[0].message``, ``usage``, ``model``), so a
malformed one is named precisely instead of failing deep inside a typed model.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from .provider import Provider, Reply, ToolDef, ToolUse, Usage


class OpenAIProvider(Provider):
    SDK = "openai"
    CLIENT = "AsyncOpenAI"

    async def _request(self, system, turns, tools, temperature) -> Any:
        messages = ([{"role": "system", "content": system}] if system else []) + [_message(t) for t in turns]
        kwargs: dict = {"model": self.ref.name, "messages": messages}
        if tools:
            kwargs["tools"] = [_tool(t) for t in tools]
        if temperature is not None:
            kwargs["temperature"] = temperature
        if self.settings.max_tokens is not None:
            kwargs["max_tokens"] = self.settings.max_tokens
        raw = await self._client.chat.completions.with_raw_response.create(**kwargs)
        return self._json(raw)

    def _reply(self, data: dict) -> Reply:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self.malformed(f"no choices[0] in the answer (keys: {', '.join(sorted(data)) or 'none'})")
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise self.malformed("choices[0].message is missing or not an object")
        content = message.get("content")
        if content is None:
            text = ""
        elif isinstance(content, str):
            text = content
        elif isinstance(content, list):  # some compatible servers answer with content parts
            text = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        else:
            raise self.malformed(f"choices[0].message.content is a {type(content).__name__}")
        calls = []
        raw_calls = message.get("tool_calls") or []
        if not isinstance(raw_calls, list):
            raise self.malformed("choices[0].message.tool_calls is not a list")
        for i, call in enumerate(raw_calls):
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                raise self.malformed(f"choices[0].message.tool_calls[{i}] has no function name")
            calls.append(_tool_use(call.get("id") or f"call_{i}", function["name"], function.get("arguments")))
        return Reply(text=text, calls=tuple(calls), usage=_usage(data.get("usage")),
                     model=data.get("model") if isinstance(data.get("model"), str) else None,
                     stop_reason=choices[0].get("finish_reason"))


def _tool(tool: ToolDef) -> dict:
    return {"type": "function", "function": {"name": tool.name, "description": tool.description,
                                             "parameters": tool.input_schema}}


def _message(turn: dict) -> dict:
    """A transcript message with only the keys the Chat Completions API takes."""
    role = turn["role"]
    if role == "assistant":
        out: dict = {"role": "assistant", "content": turn.get("content") or None}
        if turn.get("tool_calls"):
            out["tool_calls"] = [{"id": c["id"], "type": "function",
                                  "function": {"name": c["function"]["name"],
                                               "arguments": c["function"]["arguments"]}}
                                 for c in turn["tool_calls"]]
        return out
    if role == "tool":
        return {"role": "tool", "tool_call_id": turn["tool_call_id"], "content": turn.get("content", "")}
    return {"role": role, "content": turn.get("content", "")}


def _tool_use(call_id: str, name: str, arguments: Any) -> ToolUse:
    if arguments is None or arguments == "":
        return ToolUse(call_id, name, {})
    if isinstance(arguments, dict):
        return ToolUse(call_id, name, arguments)
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return ToolUse(call_id, name, value)
        return ToolUse(call_id, name, {"_raw": arguments}, bad_args=arguments)
    return ToolUse(call_id, name, {"_raw": json.dumps(arguments)}, bad_args=json.dumps(arguments))


def _usage(usage: Any) -> Optional[Usage]:
    if not isinstance(usage, dict):
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    return Usage(prompt, completion)
