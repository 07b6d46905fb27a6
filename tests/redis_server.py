"""A real redis-server (Debian's package) on a free loopback port, for the campaign ledger's
tests and benchmark: started in a folder of its own, nothing saved, stopped at the end."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from typing import Iterator, Optional

import pytest

MISSING = "redis-server is not installed (Debian: apt-get install redis-server; .ci/run installs it)"


def binary() -> Optional[str]:
    return shutil.which("redis-server")


@contextlib.contextmanager
def redis_server(folder) -> Iterator[str]:
    """``redis://127.0.0.1:PORT/0`` of a redis-server that lives as long as the block."""
    found = binary()
    if found is None:
        raise RuntimeError(MISSING)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([found, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def redis_url(tmp_path):
    """A real redis-server on a free loopback port, for one test. Skipped, saying why, only where
    it is not installed and this is not CI (.ci/run installs it: there it must run)."""
    if binary() is None:
        if os.environ.get("CI"):
            pytest.fail(MISSING)
        pytest.skip(MISSING)
    with redis_server(tmp_path) as url:
        yield url
