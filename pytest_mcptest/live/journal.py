"""The journal of a live recording: each finished run kept on disk the moment it finishes.

A recording of ``runs: 8`` that is killed (Ctrl-C, a CI job's timeout, ``kill -9``) after five
runs would otherwise lose all five: the cassette is written only when every run is there.
The journal, ``<cassette>.journal`` beside it, holds one JSON line per finished run (its
index, the run as a cassette writes it, API keys hidden, and its server catalog), each line
written whole, flushed and ``fsync``'d before the next run is counted done. A recording
started again reads the journal first and runs only the indexes it lacks; when every run is
there the cassette is written (atomically, as always) and the journal removed.

So a run is never recorded twice and never lost: a run that finished is in the journal; a
run in flight when the process died is not, and is run again. A line cut short by the
kill (no newline at its end, or not JSON) is ignored, and so is a journal written for
another task (its first line carries a fingerprint of the task: the model, prompt,
servers and run count).
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Optional

from ..engine.trace import Run
from ..formats.cassette import Cassette, as_json, parse_cassette

SUFFIX = ".journal"


def journal_path(cassette: str) -> str:
    """Where the journal of the recording of ``cassette`` is kept."""
    return cassette + SUFFIX


class Journal:
    """The finished runs of one recording of one task (see the module docstring)."""

    def __init__(self, path: str, task: Any):
        self.path = path
        self.key = hashlib.sha256(repr(task).encode()).hexdigest()

    def load(self) -> dict[int, tuple[Run, dict]]:
        """The runs already finished, ``{index: (run, catalog)}``: none when there is no
        journal or it belongs to another task; a torn last line is left out."""
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return {}
        lines = data.split(b"\n")[:-1]  # what follows the last newline was cut short
        if not lines or _json(lines[0]).get("journal") != self.key:
            return {}
        found: dict[int, tuple[Run, dict]] = {}
        for line in lines[1:]:
            entry = _json(line)
            if isinstance(entry.get("index"), int) and isinstance(entry.get("run"), dict):
                doc = {"mcptest_cassette": 1, "runs": [entry["run"]]}
                try:
                    found[entry["index"]] = (parse_cassette(self.path, json.dumps(doc)).runs[0],
                                             entry.get("catalog") or {})
                except ValueError:
                    continue
        return found

    def append(self, index: int, run: Run, catalog: Optional[dict]) -> None:
        """Keep one finished run: one line, flushed and synced to disk before returning."""
        from .provider import key_redactor

        plain = as_json(Cassette(runs=(run,)))["runs"][0]
        line = json.dumps({"index": index, "run": key_redactor().value(plain), "catalog": catalog or {}},
                          ensure_ascii=False, sort_keys=True)
        fresh = not self._ours()
        with open(self.path, "wb" if fresh else "ab") as f:
            if fresh:
                f.write(json.dumps({"journal": self.key}).encode() + b"\n")
            f.write(line.encode() + b"\n")
            f.flush()
            os.fsync(f.fileno())

    def _ours(self) -> bool:
        """Whether the file there is this task's journal, ending in a whole line."""
        try:
            with open(self.path, "rb") as f:
                head = f.readline()
                f.seek(0, os.SEEK_END)
                if f.tell() == 0:
                    return False
                f.seek(-1, os.SEEK_END)
                whole = f.read(1) == b"\n"
        except FileNotFoundError:
            return False
        if not whole:  # a torn last line: cut it off, so the next line starts clean
            self._drop_torn()
        return _json(head).get("journal") == self.key

    def _drop_torn(self) -> None:
        with open(self.path, "rb") as f:
            data = f.read()
        keep = data[:data.rfind(b"\n") + 1]
        tmp = f"{self.path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(keep)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def remove(self) -> None:
        """The cassette holds every run now: the journal is no longer needed."""
        try:
            os.remove(self.path)
        except FileNotFoundError:
            pass


def _json(line: bytes) -> dict:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}

