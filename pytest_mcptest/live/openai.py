"""OpenAI Chat Completions through the official ``openai`` SDK, and every server that
speaks the same wire format (Ollama, vLLM, OpenRouter, LM Studio) through a base URL; and
the OpenAI Responses API (``model: openai-responses:<name>``), which current OpenAI models
are called through.

With ``stream: true`` in the model's ``models:`` settings the answer is asked for as a stream
of events and put back together by the SDK's own helpers (``ChatCompletionStreamState`` for
Chat Completions; the ``response.completed`` event's response for Responses), then read as an
unstreamed answer is.

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

from ..engine.trace import Tokens
from .provider import Provider, Reply, ToolDef, ToolUse


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
        if self.settings.stream:
            return await self._streamed(kwargs)
        raw = await self._client.chat.completions.with_raw_response.create(**kwargs)
        return self._json(raw)

    async def _streamed(self, kwargs: dict) -> dict:
        """The chunks of a streamed answer, put together by the SDK into one completion."""
        from openai.lib.streaming.chat import ChatCompletionStreamState

        state = ChatCompletionStreamState()
        stream = await self._client.chat.completions.create(**kwargs, stream=True,
                                                            stream_options={"include_usage": True})
        async for chunk in stream:
            state.handle_chunk(chunk)
        return state.get_final_completion().model_dump(mode="json")

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
        return Reply(text=text, calls=tuple(calls), tokens=_tokens(data.get("usage")),
                     model=data.get("model") if isinstance(data.get("model"), str) else None,
                     stop_reason=choices[0].get("finish_reason"))


class OpenAIResponsesProvider(Provider):
    """The Responses API: the transcript as ``input`` items, the system prompt as
    ``instructions``, function tools; the answer's ``output`` items read back."""

    SDK = "openai"
    CLIENT = "AsyncOpenAI"

    async def _request(self, system, turns, tools, temperature) -> Any:
        kwargs: dict = {"model": self.ref.name, "input": [item for t in turns for item in _items(t)]}
        if system:
            kwargs["instructions"] = system
        if tools:
            kwargs["tools"] = [{"type": "function", "name": t.name, "description": t.description,
                                "parameters": t.input_schema} for t in tools]
        if temperature is not None:
            kwargs["temperature"] = temperature
        if self.settings.max_tokens is not None:
            kwargs["max_output_tokens"] = self.settings.max_tokens
        if self.settings.stream:
            return await self._streamed(kwargs)
        raw = await self._client.responses.with_raw_response.create(**kwargs)
        return self._json(raw)

    async def _streamed(self, kwargs: dict) -> dict:
        """The response a stream ends with: the last ``response.completed`` (or ``.incomplete``,
        ``.failed``) event carries it whole."""
        final = None
        stream = await self._client.responses.create(**kwargs, stream=True)
        async for event in stream:
            kind = getattr(event, "type", "")
            if kind in ("response.completed", "response.incomplete", "response.failed"):
                final = event.response
            elif kind == "error":
                raise self.malformed(f"the stream ended with an error: {getattr(event, 'message', event)}")
        if final is None:
            raise self.malformed("the stream ended without a response.completed event")
        return final.model_dump(mode="json")

    def _reply(self, data: dict) -> Reply:
        output = data.get("output")
        if not isinstance(output, list):
            raise self.malformed(f"no 'output' list in the answer (keys: {', '.join(sorted(data)) or 'none'})")
        texts, calls = [], []
        for i, item in enumerate(output):
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == "message":
                for part in item.get("content") or []:
                    if isinstance(part, dict) and part.get("type") == "output_text":
                        texts.append(part.get("text") or "")
            elif kind == "function_call":
                if not isinstance(item.get("name"), str):
                    raise self.malformed(f"output[{i}] is a function_call with no name")
                calls.append(_tool_use(item.get("call_id") or f"call_{i}", item["name"], item.get("arguments")))
        usage = data.get("usage")
        tokens = None
        if isinstance(usage, dict) and isinstance(usage.get("input_tokens"), int) \
                and isinstance(usage.get("output_tokens"), int):
            tokens = Tokens.of(usage["input_tokens"], usage["output_tokens"])
        status = data.get("status")
        return Reply(text="".join(texts), calls=tuple(calls), tokens=tokens,
                     model=data.get("model") if isinstance(data.get("model"), str) else None,
                     stop_reason="tool_calls" if calls else status if isinstance(status, str) else None)


def _items(turn: dict) -> list:
    """A transcript message as Responses ``input`` items: an assistant's tool calls become
    ``function_call`` items, a tool's answer a ``function_call_output``."""
    role = turn["role"]
    if role == "assistant":
        items: list = [{"role": "assistant", "content": turn["content"]}] if turn.get("content") else []
        items += [{"type": "function_call", "call_id": c["id"], "name": c["function"]["name"],
                   "arguments": c["function"]["arguments"]} for c in turn.get("tool_calls") or ()]
        return items
    if role == "tool":
        return [{"type": "function_call_output", "call_id": turn["tool_call_id"], "output": turn.get("content", "")}]
    return [{"role": role, "content": turn.get("content", "")}]


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


def _tokens(usage: Any) -> Optional[Tokens]:
    if not isinstance(usage, dict):
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    return Tokens.of(prompt, completion)
