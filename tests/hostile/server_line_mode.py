"""A bare newline-delimited JSON-RPC server whose answers go wrong on purpose, for the proxy's
hostile tests: a line that is not JSON before its first answer, a ``tools/list`` page whose
``tools`` is a number, and (tool ``huge``) an answer of several megabytes on one line."""
import json
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


print("starting up... (not JSON)", flush=True)
for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    method, rid = request["method"], request["id"]
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": request["params"]["protocolVersion"],
                                                      "capabilities": {"tools": {}},
                                                      "serverInfo": {"name": "odd", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": 5}})
    elif method == "tools/call" and request["params"]["name"] == "huge":
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "x" * (3 << 20)}]}})
    elif method == "tools/call":
        text = f"echo {request['params'].get('arguments')}"
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})
    else:
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
