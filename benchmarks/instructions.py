"""Instructions a command executes, counted by valgrind's callgrind: a figure the machine's load
does not move.

On this shared 2-core machine two series of the same code, an hour apart, differed by more
than the changes they were meant to measure; a count of executed instructions is the same
from run to run (same code, same inputs, ``PYTHONHASHSEED`` fixed) whatever else runs. It
is not a time: it leaves out system calls, cache misses and what the kernel does, so it
stands beside the paired wall and CPU times, not in their place. A command runs about 50
times slower under callgrind.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Optional


def available() -> bool:
    return shutil.which("valgrind") is not None


def count(command: list[str], cwd: str, env: dict) -> Optional[int]:
    """User-space instructions of one run of ``command`` (its child processes not counted);
    None when valgrind is not installed or the run failed."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    done = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *command], cwd=cwd,
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found = re.search(r"Collected\s*:\s*(\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        return None
    return int(found.group(1))
