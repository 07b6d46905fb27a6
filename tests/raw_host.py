"""A host that writes JSON-RPC lines to a stdio server by hand and reads what it answers,
for the tests that send what an SDK client never would (garbage, huge numbers, bad ids)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import tempfile
import time


class RawHost:
    """A stdio server driven one JSON-RPC line at a time, as a host that writes by hand; ended
    (stdin closed, then killed if it still runs) on leaving the ``with`` block. Its stderr goes
    to a file, so a server that says much there never blocks on a full pipe."""

    def __init__(self, command: list[str]):
        self.errors = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors)
        self.pending = b""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(30)
        finally:
            self.proc.kill()
            self.errors.close()

    def send(self, line: str) -> None:
        self.proc.stdin.write(line.encode("utf-8", "surrogatepass") + b"\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float = 30) -> dict:
        """The next message serve writes; AssertionError when none comes within ``timeout``."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, "serve wrote no answer"
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            assert chunk, "serve ended"
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def stderr(self) -> str:
        self.errors.seek(0)
        return self.errors.read().decode(errors="replace")

    def close(self) -> tuple:
        """Close stdin: the server's exit status and what it wrote to stderr."""
        self.proc.stdin.close()
        code = self.proc.wait(30)
        return code, self.stderr()
