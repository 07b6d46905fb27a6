"""A small MCP server over stdio (raw JSON-RPC, no SDK) that speaks the protocol right, except
for the one fault named by its argument: each fault breaks exactly one conformance check
(tests/test_conformance_faults.py holds it to that). ``python broken_server.py`` alone is the
clean server.

It declares ``tools`` only (so a request of resources or prompts is one of a capability it did
not declare), lists two tools (``add`` with an outputSchema, ``echo``), pages its tool list one
tool a page, and holds each answer briefly to see whether the host's next line cancels it.
"""

from __future__ import annotations

import json
import os
import select
import sys

FAULT = next((a for a in sys.argv[1:] if not a.startswith("--")), "none")
FAULTS = {
    "none": "the clean server",
    "initialize-error": "lifecycle-initialize: initialize answered with an error",
    "bad-wire": "wire-schema-valid: a tool's annotations.readOnlyHint is a string",
    "wrong-id": "jsonrpc-id-pairing: ping answered under another id",
    "unknown-method-result": "error-code-unknown-method: an unknown method answered with a result",
    "invalid-params-internal": "error-code-invalid-params: tools/call without a name answered -32603",
    "unknown-tool-result": "error-code-unknown-tool: a call to an unlisted tool answered with isError",
    "answer-notification": "notification-not-answered: an unknown notification answered with an error",
    "undeclared-result": "capability-server-declared: resources/list answered though resources is undeclared",
    "sampling": "capability-client-declared: sampling/createMessage sent to a host without sampling",
    "bogus-cursor-result": "pagination-cursor: a cursor never issued answered with the first page",
    "bad-tool-name": "tool-name-form: a tool named 'echo text!'",
    "bad-input-schema": "tool-input-schema: a property of type 'strng'",
    "bad-output-schema": "tool-output-schema: minimum: 'zero' in the outputSchema",
    "wrong-structured": "structured-content-matches-output-schema: sum is a string",
    "list-changed": "list-changed-declared: tools/list_changed without listChanged",
    "log-undeclared": "logging-declared: notifications/message without the logging capability",
    "stray-progress": "progress-token-live: progress for a token no request gave",
    "answer-cancelled": "cancellation-respected: an error answer to a request the host cancelled",
    "ping-not-empty": "ping-answered: ping answered with {pong: true}",
    "crash-oversized": "jsonrpc-id-pairing: the server exits on a line over 2 KiB (the probe's oversized argument)",
    "http-notification-200": "http-transport (with --http): a POSTed notification answered 200 with a body",
}
HTTP = "--http" in sys.argv  # Streamable HTTP on 127.0.0.1, a free port, printed on the first line of stdout
if FAULT not in FAULTS:
    sys.exit(f"unknown fault {FAULT!r}; one of: {', '.join(FAULTS)}")

ADD_OUTPUT = {"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}
if FAULT == "bad-output-schema":
    ADD_OUTPUT = {"type": "object", "properties": {"sum": {"type": "number", "minimum": "zero"}}}
ECHO_INPUT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
if FAULT == "bad-input-schema":
    ECHO_INPUT = {"type": "object", "properties": {"text": {"type": "strng"}}}
TOOLS = [
    {"name": "add", "description": "Add two numbers.",
     "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                     "required": ["a", "b"]},
     "outputSchema": ADD_OUTPUT,
     "annotations": {"readOnlyHint": "yes" if FAULT == "bad-wire" else True}},
    {"name": "echo text!" if FAULT == "bad-tool-name" else "echo", "description": "Echo the text back.",
     "inputSchema": ECHO_INPUT},
]
CURSORS = {"page-2": 1}
MCP_PREFIXES = {"resources", "prompts", "tools", "logging", "completion", "tasks", "sampling", "elicitation", "roots"}  # the one cursor issued: the second page

pending = bytearray()


def lines():
    """Each line of stdin, as os.read gives it (so select() sees what is still to read)."""
    while True:
        cut = pending.find(b"\n")
        if cut >= 0:
            line = bytes(pending[:cut])
            del pending[:cut + 1]
            yield line
            continue
        chunk = os.read(0, 1 << 16)
        if not chunk:
            return
        pending.extend(chunk)


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def error(request_id, code: int, text: str) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}}


def result(request_id, value: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def answer(message: dict):
    method, request_id, params = message["method"], message["id"], message.get("params") or {}
    if method == "initialize":
        if FAULT == "initialize-error":
            return error(request_id, -32603, "cannot start today")
        return result(request_id, {"protocolVersion": params.get("protocolVersion", "2025-11-25"),
                                   "capabilities": {"tools": {}}, "serverInfo": {"name": "broken", "version": "1"}})
    if method == "ping":
        if FAULT == "wrong-id":
            return result(str(request_id) + "-other", {})
        return result(request_id, {"pong": True} if FAULT == "ping-not-empty" else {})
    if method == "tools/list":
        cursor = params.get("cursor")
        if cursor is None or (FAULT == "bogus-cursor-result" and cursor not in CURSORS):
            return result(request_id, {"tools": TOOLS[:1], "nextCursor": "page-2"})
        if cursor not in CURSORS:
            return error(request_id, -32602, f"invalid cursor {cursor!r}")
        return result(request_id, {"tools": TOOLS[CURSORS[cursor]:]})
    if method == "tools/call":
        name = params.get("name")
        if not isinstance(name, str):
            return error(request_id, -32603 if FAULT == "invalid-params-internal" else -32602,
                         "tools/call needs a name")
        args = params.get("arguments") or {}
        if name == "add":
            total = args.get("a", 0) + args.get("b", 0)
            structured = {"sum": str(total) if FAULT == "wrong-structured" else total}
            return result(request_id, {"content": [{"type": "text", "text": json.dumps(structured)}],
                                       "structuredContent": structured})
        if name == TOOLS[1]["name"]:
            return result(request_id, {"content": [{"type": "text", "text": str(args.get("text"))}]})
        if FAULT == "unknown-tool-result":
            return result(request_id, {"content": [{"type": "text", "text": f"no tool {name}"}], "isError": True})
        return error(request_id, -32602, f"Unknown tool: {name}")
    if method == "resources/list" and FAULT == "undeclared-result":
        return result(request_id, {"resources": []})
    if FAULT == "unknown-method-result" and "/" in method and method.split("/")[0] not in MCP_PREFIXES:
        return result(request_id, {})
    return error(request_id, -32601, f"Method not found: {method}")


def cancels(request_id) -> bool:
    """Whether the host's next line, if it comes at once, cancels ``request_id`` (it is then read)."""
    if b"\n" not in pending and not select.select([0], [], [], 0.05)[0]:
        return False
    if b"\n" not in pending:
        chunk = os.read(0, 1 << 16)
        pending.extend(chunk)
    cut = pending.find(b"\n")
    if cut < 0:
        return False
    try:
        following = json.loads(pending[:cut])
    except ValueError:
        return False
    if following.get("method") == "notifications/cancelled" and \
            (following.get("params") or {}).get("requestId") == request_id:
        del pending[:cut + 1]
        return True
    return False


def main() -> None:
    initialized = False
    for line in lines():
        if not line.strip():
            continue
        if FAULT == "crash-oversized" and len(line) > 2048:
            sys.exit(3)
        message = json.loads(line)
        method = message.get("method")
        if method is None:
            continue  # the host answering a request of ours
        if "id" not in message:  # a notification
            if method == "notifications/initialized" and not initialized:
                initialized = True
                if FAULT == "list-changed":
                    send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
                if FAULT == "log-undeclared":
                    send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
                if FAULT == "stray-progress":
                    send({"jsonrpc": "2.0", "method": "notifications/progress",
                          "params": {"progressToken": "nobody-asked", "progress": 1}})
                if FAULT == "sampling":
                    send({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage",
                          "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                                     "maxTokens": 10}})
            elif FAULT == "answer-notification" and method.startswith("notifications/mcptest"):
                # id null, as JSON-RPC 2.0 answers what it cannot identify (the mcp SDK's JSONRPCError takes
                # it; an error with no id at all fails its type: wire-schema-valid too)
                send(error(None, -32601, f"Method not found: {method}"))
            continue
        if cancels(message["id"]):
            if FAULT == "answer-cancelled":
                send(error(message["id"], -32800, "Request cancelled"))
            continue
        send(answer(message))


def serve_http() -> None:
    """The same server over Streamable HTTP (no GET stream: the server sends nothing of its own)."""
    import uuid
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    session = uuid.uuid4().hex

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _reply(self, status: int, body: bytes = b"", ctype: str = "application/json", extra=()):
            self.send_response(status)
            if body:
                self.send_header("Content-Type", ctype)
            for name, value in extra:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_DELETE(self):
            self._reply(200)

        def do_GET(self):
            self._reply(405)

        def do_POST(self):
            message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            if "method" not in message or "id" not in message:  # a notification or an answer of the host's
                if FAULT == "http-notification-200":
                    self._reply(200, b"{}")
                else:
                    self._reply(202)
                return
            extra = [("Mcp-Session-Id", session)] if message["method"] == "initialize" else []
            self._reply(200, json.dumps(answer(message)).encode(), extra=extra)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    serve_http() if HTTP else main()
