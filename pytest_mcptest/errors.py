"""The one error type for a user's bad input: which file, where, what was expected.

Every loader (suites, cassettes) raises :class:`InputError`; the pytest layer and
the CLI render it as ``file:line: message`` followed by the offending lines, and
never show a traceback from plugin code.
"""

from __future__ import annotations

from typing import Optional


class InputError(Exception):
    """A user's file is malformed. ``line`` is 1-based; ``pointer`` is a JSON pointer."""

    def __init__(self, path: str, message: str, line: Optional[int] = None,
                 pointer: Optional[str] = None, source: Optional[str] = None):
        super().__init__(message)
        self.path = str(path)
        self.message = message
        self.line = line
        self.pointer = pointer
        self.source = source

    def location(self, path: Optional[str] = None) -> str:
        where = path or self.path
        if self.line is not None:
            where += f":{self.line}"
        if self.pointer is not None:
            where += f" (at {self.pointer or '/'})"
        return where

    def excerpt(self, context: int = 2) -> str:
        """The lines around ``line`` with a marker on the offending one."""
        if self.source is None or self.line is None:
            return ""
        lines = self.source.splitlines()
        lo = max(1, self.line - context)
        hi = min(len(lines), self.line + context)
        width = len(str(hi))
        out = []
        for n in range(lo, hi + 1):
            mark = ">" if n == self.line else " "
            out.append(f"  {mark} {n:>{width}} | {lines[n - 1]}")
        return "\n".join(out)

    def render(self, path: Optional[str] = None) -> str:
        """``file:line: message`` and the offending lines; ``path`` overrides how the file is shown."""
        text = f"{self.location(path)}: {self.message}"
        excerpt = self.excerpt()
        return f"{text}\n{excerpt}" if excerpt else text

    def __str__(self) -> str:
        return self.render()
