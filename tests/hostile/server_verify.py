"""A small MCP server over stdio, raw JSON-RPC, for `mcptest verify` (issue 42, item 4).

Tools: `story` (a 6,000-character text), `big` (a short text), `config` (a .env line with
the password in `VERIFY_DB_PASSWORD`), `slow_sum` (may be called as a task: the answer is a
task handle whose id is new each session, then `tasks/get` and `tasks/result`). `VERIFY_FAULT` makes this session misbehave the way servers do:
`long-change` (one character of the story changes at position 4,321), `huge` (`big`
answers 80 MB), `wrong-id` (`big` is answered with another id), `bad-utf8` (`big`'s answer
holds a byte that is not UTF-8).
"""

import datetime
import json
import os
import sys
import uuid

FAULT = os.environ.get("VERIFY_FAULT", "")
STORY = "".join(f"line {i:04d} of a long story. " for i in range(250))[:6000]
TASKS = {}


def text(value):
    return {"content": [{"type": "text", "text": value}], "isError": False}


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat()


def task(task_id):
    return {"taskId": task_id, "status": "completed", "createdAt": TASKS[task_id]["at"],
            "lastUpdatedAt": now(), "ttl": 60000}


def call(params):
    name, args = params.get("name"), params.get("arguments") or {}
    if name == "story":
        return text(STORY[:4321] + "X" + STORY[4322:] if FAULT == "long-change" else STORY)
    if name == "big":
        return text("x" * (80 * 1024 * 1024) if FAULT == "huge" else "small")
    if name == "config":
        return text(f"DB_HOST=db\nDB_PASSWORD={os.environ.get('VERIFY_DB_PASSWORD', '')}\n")
    if name == "slow_sum":
        result = text(str(args.get("a", 0) + args.get("b", 0)))
        if "task" not in params:
            return result
        task_id = str(uuid.uuid4())
        TASKS[task_id] = {"at": now(), "result": result}
        return {"task": task(task_id)}
    return {"content": [{"type": "text", "text": f"no tool {name}"}], "isError": True}


TOOLS = [{"name": n, "description": d, "inputSchema": {"type": "object"}}
         for n, d in (("story", "A long story."), ("big", "A text."), ("config", "The settings."),
                      ("slow_sum", "Adds, as a task if asked."))]


def answer(method, params):
    if method == "initialize":
        return {"protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}},
                "serverInfo": {"name": "verify-fake", "version": "1"}}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        return call(params)
    if method == "tasks/get":
        return task(params["taskId"])
    if method == "tasks/result":
        return TASKS[params["taskId"]]["result"]
    return {}


def main():
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue
        params = message.get("params") or {}
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": answer(message["method"], params)}
        is_big = message["method"] == "tools/call" and params.get("name") == "big"
        if is_big and FAULT == "wrong-id":
            reply["id"] = 999
        data = json.dumps(reply).encode()
        if is_big and FAULT == "bad-utf8":
            data = data.replace(b"small", b"sm\xffall")
        out.write(data + b"\n")
        out.flush()


main()
