"""A fake model provider for the live tier's tests: a real HTTP server on 127.0.0.1.

It speaks the OpenAI Chat Completions wire format (``POST /v1/chat/completions``), the OpenAI
Responses one (``POST /v1/responses``) and the Anthropic Messages one (``POST /v1/messages``),
so the real ``openai`` and ``anthropic`` SDK clients talk to it through ``OPENAI_BASE_URL`` /
``ANTHROPIC_BASE_URL``. An OpenAI request with ``"stream": true`` is answered with server-sent
events, as the API streams (chunks for Chat Completions, typed events for Responses).
Each test scripts it with a function ``script(request) -> Answer``; :class:`Seen` gives
the request a provider-neutral reading (presented tool names, system prompt, user texts,
tool results so far) so one script serves both formats. Every request is kept, headers
included, for the test to inspect. Answers may be delayed (a slow model) and may be
any status or body (429, 500, malformed). The fixtures at the end give a test the
mock MCP server ``shop`` and point both SDKs at a fake with test keys.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional

import pytest

from forkserver import forked

from pytest_mcptest.live.servers import ServerSpec

OPENAI_MODEL = "gpt-4o-mini-2024-07-18"
ANTHROPIC_MODEL = "claude-haiku-4-5-20251001"


class Seen:
    """One request, read the same way whichever API it came in."""

    def __init__(self, api: str, body: dict, headers: dict):
        self.api = api
        self.body = body
        self.headers = headers
        self.tool_names = [t["function"]["name"] if api == "openai" else t["name"] for t in body.get("tools", [])]
        self.system = ""
        self.user_texts: list[str] = []
        self.results: list[str] = []
        self.assistant_turns = 0
        if api == "responses":
            self._read_items(body)
            return
        messages = body.get("messages", [])
        if api == "anthropic":
            system = body.get("system", "")
            self.system = system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)
        for msg in messages:
            role, content = msg.get("role"), msg.get("content")
            if role == "system":
                self.system = content
            elif role == "assistant":
                self.assistant_turns += 1
            elif role == "tool":
                self.results.append(content)
            elif role == "user" and isinstance(content, list):
                for block in content:
                    if block.get("type") == "tool_result":
                        self.results.append(block.get("content"))
                    elif block.get("type") == "text":
                        self.user_texts.append(block["text"])
            elif role == "user":
                self.user_texts.append(content)


    def _read_items(self, body: dict) -> None:
        """A Responses request: ``instructions`` and ``input`` items."""
        self.system = body.get("instructions") or ""
        items = body.get("input", [])
        items = [{"role": "user", "content": items}] if isinstance(items, str) else items
        model_side = False
        for item in items:
            kind = item.get("type", "message")
            mine = kind == "function_call" or (kind == "message" and item.get("role") == "assistant")
            if mine and not model_side:
                self.assistant_turns += 1
            model_side = mine
            if kind == "function_call_output":
                self.results.append(item.get("output"))
            elif kind == "message" and item.get("role") == "user":
                content = item.get("content")
                self.user_texts.append(content if isinstance(content, str) else
                                       " ".join(p.get("text", "") for p in content if isinstance(p, dict)))


class Answer:
    """What the fake sends back: a status, a JSON body (or raw bytes), headers, a delay."""

    def __init__(self, body: Any, status: int = 200, headers: Optional[dict] = None, delay: float = 0.0):
        self.body = body
        self.status = status
        self.headers = headers or {}
        self.delay = delay


def reply(seen: Seen, text: str = "", calls: tuple = (), usage: tuple = (100, 20),
          model: Optional[str] = None, delay: float = 0.0) -> Answer:
    """A well-formed answer in ``seen``'s format: ``calls`` are ``(name, args)`` pairs."""
    step = seen.assistant_turns
    if seen.api == "openai":
        message: dict = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = [{"id": f"call_{step}_{j}", "type": "function",
                                      "function": {"name": name, "arguments": json.dumps(args)}}
                                     for j, (name, args) in enumerate(calls)]
        body = {"id": f"chatcmpl-{step}", "object": "chat.completion", "created": 1700000000,
                "model": model or OPENAI_MODEL,
                "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                          "total_tokens": usage[0] + usage[1]}}
    elif seen.api == "responses":
        output: list = []
        if text:
            output.append({"type": "message", "id": f"msg_{step}", "role": "assistant", "status": "completed",
                           "content": [{"type": "output_text", "text": text, "annotations": []}]})
        output += [{"type": "function_call", "id": f"fc_{step}_{j}", "call_id": f"call_{step}_{j}", "name": name,
                    "arguments": json.dumps(args), "status": "completed"} for j, (name, args) in enumerate(calls)]
        body = {"id": f"resp_{step}", "object": "response", "created_at": 1700000000, "status": "completed",
                "model": model or OPENAI_MODEL, "output": output, "parallel_tool_calls": True,
                "tool_choice": "auto", "tools": [],
                "usage": {"input_tokens": usage[0], "output_tokens": usage[1], "total_tokens": usage[0] + usage[1],
                          "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens_details": {"reasoning_tokens": 0}}}
    else:
        content: list = [{"type": "text", "text": text}] if text else []
        content += [{"type": "tool_use", "id": f"toolu_{step}_{j}", "name": name, "input": args}
                    for j, (name, args) in enumerate(calls)]
        body = {"id": f"msg_{step}", "type": "message", "role": "assistant", "model": model or ANTHROPIC_MODEL,
                "content": content, "stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}
    return Answer(body, delay=delay)


def sse(seen: Seen, body: dict) -> bytes:
    """``body`` (a whole answer) as the events the API streams it in."""
    if seen.api == "openai":
        choice = body["choices"][0]
        message, head = choice["message"], {k: body[k] for k in ("id", "object", "created", "model")}
        head["object"] = "chat.completion.chunk"
        delta: dict = {"role": "assistant", "content": message.get("content")}
        chunks = [{**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}]
        for j, call in enumerate(message.get("tool_calls") or []):
            chunks.append({**head, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": j, **call}]},
                                                "finish_reason": None}]})
        chunks.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]})
        if (seen.body.get("stream_options") or {}).get("include_usage"):
            chunks.append({**head, "choices": [], "usage": body["usage"]})
        return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
    events = [{"type": "response.created", "response": {**body, "status": "in_progress", "output": []}}]
    for i, item in enumerate(body["output"]):
        if item["type"] == "message":
            part = item["content"][0]
            events += [
                {"type": "response.output_item.added", "output_index": i, "item": {**item, "content": []}},
                {"type": "response.content_part.added", "item_id": item["id"], "output_index": i, "content_index": 0,
                 "part": {**part, "text": ""}},
                {"type": "response.output_text.delta", "item_id": item["id"], "output_index": i, "content_index": 0,
                 "delta": part["text"], "logprobs": []},
                {"type": "response.output_text.done", "item_id": item["id"], "output_index": i, "content_index": 0,
                 "text": part["text"], "logprobs": []},
                {"type": "response.content_part.done", "item_id": item["id"], "output_index": i, "content_index": 0,
                 "part": part}]
        else:
            events += [
                {"type": "response.output_item.added", "output_index": i, "item": {**item, "arguments": ""}},
                {"type": "response.function_call_arguments.delta", "item_id": item["id"], "output_index": i,
                 "delta": item["arguments"]},
                {"type": "response.function_call_arguments.done", "item_id": item["id"], "output_index": i,
                 "arguments": item["arguments"], "name": item["name"]}]
        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
    events.append({"type": "response.completed", "response": body})
    return b"".join(f"event: {e['type']}\ndata: {json.dumps({**e, 'sequence_number': n})}\n\n".encode()
                    for n, e in enumerate(events))


def error(seen: Seen, status: int, message: str, headers: Optional[dict] = None) -> Answer:
    kind = "rate_limit_error" if status == 429 else "api_error"
    body = ({"error": {"message": message, "type": kind}} if seen.api in ("openai", "responses")
            else {"type": "error", "error": {"type": kind, "message": message}})
    return Answer(body, status=status, headers=headers)


def tool_then_answer(tool: str, args: dict, delay: float = 0.0) -> Callable[[Seen], Answer]:
    """A model that calls ``tool`` once, then answers with what the tool said."""
    def script(seen: Seen) -> Answer:
        if not seen.results:
            return reply(seen, calls=((tool, args),), delay=delay)
        return reply(seen, text=f"Answer: {seen.results[-1]}", usage=(150, 30), delay=delay)
    return script


def play(judge_text=None):
    """A conversation in three roles, told apart by system prompt: the synthetic user says
    "Sacramento, please." then [DONE]; the agent asks which city, calls get_weather, answers
    with its result; the judge says every statement holds except statement 2 (or answers
    ``judge_text``)."""
    def script(seen):
        if seen.system.startswith("You play a human user"):
            done = "YOU: Sacramento, please." in seen.user_texts[-1]
            return reply(seen, text="[DONE]" if done else "Sacramento, please.", usage=(40, 5))
        if seen.system.startswith("You are a strict, fair evaluator"):
            statements = re.findall(r"^(\d+)\. ", seen.user_texts[-1], re.M)
            results = [{"id": int(n), "holds": n != "2", "reason": f"statement {n} checked"} for n in statements]
            text = judge_text or "```json\n" + json.dumps({"results": results}) + "\n```"
            return reply(seen, text=text, usage=(300, 60))
        if len(seen.user_texts) == 1:
            return reply(seen, text="Which city?")
        if len(seen.results) == 0:
            return reply(seen, calls=(("get_weather", {"city": "Sacramento"}),))
        return reply(seen, text=f"It is {seen.results[-1]}.")
    return script


def limit_headers(api: str, limit: int, remaining: int, reset: float) -> dict:
    """The rate-limit headers of an answer in ``api``'s own format: ``remaining`` of ``limit``
    requests left in the window, which starts again in ``reset`` seconds."""
    if api == "anthropic":
        when = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() + reset))
        frac = f"{(time.time() + reset) % 1:.3f}"[1:]
        return {"anthropic-ratelimit-requests-limit": str(limit),
                "anthropic-ratelimit-requests-remaining": str(remaining),
                "anthropic-ratelimit-requests-reset": f"{when}{frac}Z"}
    return {"x-ratelimit-limit-requests": str(limit), "x-ratelimit-remaining-requests": str(remaining),
            "x-ratelimit-reset-requests": f"{reset:.3f}s", "x-ratelimit-limit-tokens": "1000000",
            "x-ratelimit-remaining-tokens": "999000", "x-ratelimit-reset-tokens": "6m0s"}


class Window:
    """A provider's request limit: ``limit`` requests per ``seconds`` (a sliding window). Every
    answer says what is left, in the API's headers; a request over the limit gets a 429 with
    ``retry-after`` and is counted in ``refused``."""

    def __init__(self, limit: int, seconds: float):
        self.limit, self.seconds = limit, seconds
        self.times: list[float] = []
        self.refused = 0

    def admit(self, seen: "Seen") -> tuple[Optional[Answer], dict]:
        now = time.monotonic()
        self.times = [t for t in self.times if t > now - self.seconds]
        if len(self.times) >= self.limit:
            self.refused += 1
            reset = self.times[0] + self.seconds - now
            headers = {**limit_headers(seen.api, self.limit, 0, reset), "retry-after": f"{max(reset, 0.001):.3f}"}
            return error(seen, 429, "rate limit reached", headers), {}
        self.times.append(now)
        return None, limit_headers(seen.api, self.limit, self.limit - len(self.times),
                                   self.times[0] + self.seconds - now)


class FakeProvider:
    """The server; use as a context manager. ``url`` is ``http://127.0.0.1:<port>``. With a
    :class:`Window`, it holds a rate limit and says so in every answer's headers."""

    def __init__(self, script: Callable[[Seen], Answer], window: Optional[Window] = None):
        self.script = script
        self.window = window
        self.requests: list[Seen] = []
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # The head and the body are two writes: without TCP_NODELAY the body waits for the
            # client's delayed ACK of the head, 40-50 ms a request.
            disable_nagle_algorithm = True

            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                path = self.path.rstrip("/")
                api = ("anthropic" if path.endswith("/messages") else "responses" if path.endswith("/responses")
                       else "openai")
                seen = Seen(api, body, {k.lower(): v for k, v in self.headers.items()})
                with fake.lock:
                    fake.requests.append(seen)
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    refused, said = None, {}
                    if fake.window is not None:
                        with fake.lock:
                            refused, said = fake.window.admit(seen)
                    answer = refused or fake.script(seen)
                    answer.headers = {**said, **answer.headers}
                    if answer.delay:
                        time.sleep(answer.delay)
                finally:
                    with fake.lock:
                        fake.in_flight -= 1
                streamed = body.get("stream") is True and answer.status == 200 and isinstance(answer.body, dict)
                data = (sse(seen, answer.body) if streamed else answer.body if isinstance(answer.body, bytes)
                        else json.dumps(answer.body).encode())
                self.send_response(answer.status)
                self.send_header("content-type", "text/event-stream" if streamed else "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in answer.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # shutdown() waits for the serving loop's next poll: 0.5 s by default, at every fake's exit
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self) -> "FakeProvider":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


# --------------------------------------------------------------------------- fixtures

OPENAI_KEY = "sk-openai-test-7f3a9c2e41d8b605"
ANTHROPIC_KEY = "sk-ant-test-0b8e5d1f93c7a426"
MODELS = {"openai": "openai:gpt-4o-mini", "anthropic": "anthropic:claude-haiku-4-5"}

# One agent of the weather shop, recorded live from the fake: the hostile tests' common suite.
WEATHER_AGENT = """\
servers:
  shop: {command: ["mcptest", "mock", "--tools-from", "shop.yml"]}
agents:
  - name: weather
    model: openai:gpt-4o-mini
    prompt: What is the weather?
    servers: [shop]
    cassette: weather.json
"""

MANIFEST = """\
mock_server:
  name: shop
  tools:
    - name: get_weather
      description: Current weather for a city.
      input_schema: {type: object, properties: {city: {type: string}}, required: [city]}
      response: "72F in ${args.city}"
    - name: search
      description: Search the web.
      input_schema: {type: object, properties: {q: {type: string}}, required: [q]}
"""
TOOLS = [
    {"name": "get_weather", "description": "Current weather for a city.",
     "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
    {"name": "search", "description": "Search the web.",
     "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}},
]


def forked_mock(suite: str) -> str:
    """``suite`` with its ``["mcptest", "mock", ...]`` server commands started through the fork
    server (``forkserver.py``): the same mock server, without importing the SDK at each start."""
    def command(found: re.Match) -> str:
        return json.dumps(forked([sys.executable, "-m", "pytest_mcptest.cli", *json.loads(found.group(0))[1:]]))
    return re.sub(r'\["mcptest", "mock"[^\]]*\]', command, suite)


@pytest.fixture
def shop(tmp_path):
    path = tmp_path / "shop.yml"
    path.write_text(MANIFEST)
    return ServerSpec("shop", tuple(forked([sys.executable, "-m", "pytest_mcptest.cli", "mock", "--tools-from", str(path)])))


@pytest.fixture
def live_env(monkeypatch):
    """Point both SDKs at a fake: ``live_env(fake)``."""
    def point(fake: FakeProvider) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url + "/v1")
        monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    return point
