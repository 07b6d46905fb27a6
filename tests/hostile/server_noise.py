"""Prints 50 lines that are not JSON-RPC on stdout, then reads stdin and never answers."""
import sys

for i in range(50):
    print(f"DEBUG {i}: loading plugins...", flush=True)
for _ in sys.stdin:
    pass
