"""The one error type for a user's bad input: which file, where, what was expected.

Every loader (suites, cassettes) raises :class:`InputError`; the pytest layer and
the CLI render it as ``file:line: message``, and never show a traceback from plugin code.

Only a file that is the expected format shows its lines (``source``): a suite, collected
because its name says it is one. A file that a suite merely names (a cassette, a catalog)
may be anything, ``/etc/passwd`` included, so errors about those give the line, column or
JSON pointer and never quote the file; the JSON readers in :mod:`pytest_mcptest.formats.files`
pass no ``source``. Quoted lines are clipped, so a one-line file cannot flood the output.
"""

from __future__ import annotations

from typing import Optional

EXCERPT_WIDTH = 160  # characters of each quoted line


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
            text = lines[n - 1]
            if len(text) > EXCERPT_WIDTH:
                text = text[:EXCERPT_WIDTH] + " ..."
            out.append(f"  {mark} {n:>{width}} | {text}")
        return "\n".join(out)

    def render(self, path: Optional[str] = None) -> str:
        """``file:line: message`` and the offending lines; ``path`` overrides how the file is shown.
        Control and bidi characters a file holds are shown escaped (it is printed)."""
        from .text import printable

        text = f"{self.location(path)}: {self.message}"
        excerpt = self.excerpt()
        return printable(f"{text}\n{excerpt}" if excerpt else text)

    def __str__(self) -> str:
        return self.render()


def start_failure(command: str, path: str, exc: Exception) -> str:
    """The one line (or the rendered file error) a command prints when its input is bad before
    it starts: a file's own error at its line, a file that cannot be read, or a usage problem."""
    if isinstance(exc, InputError):
        return exc.render()
    if isinstance(exc, OSError):
        return f"{command}: {path}: cannot read: {exc.strerror or exc}"
    from .text import printable

    return printable(f"{command}: error: {exc}")


def number_problem(exc: ValueError) -> str:
    """What is wrong with a number Python would not read, in a user's words: Python's own
    message for a long integer tells the reader to call ``sys.set_int_max_str_digits()``."""
    text = str(exc)
    if "integer string conversion" in text:
        digits = text.rsplit("value has ", 1)[-1].split(" ", 1)[0]
        return f"a number of {digits} digits; mcptest reads numbers of at most 4300 digits"
    return text


class RecordingError(Exception):
    """A recording could not be made: a live run did not complete, a cassette could not be
    written, or a recorder was asked what it cannot do (no cassette to replay, no recorded
    answer). One line; an old cassette is left as it was. The one name for "recording
    failed": the gates' live recording, the ``mcptest_recorder`` fixture and
    ``pytest_mcptest.Recorder`` all raise it."""
