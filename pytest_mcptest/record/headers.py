"""The HTTP headers a recording or a verification sends to a Streamable HTTP server
(``--header 'NAME: VALUE'``): read from the command line, and hidden in what is written."""

from __future__ import annotations

from typing import Iterable, Optional

from ..redact import Redactor, redactor


def parse_headers(values: Optional[Iterable[str]]) -> dict:
    """``{name: value}`` from ``--header`` values; a value that is no ``NAME: VALUE`` is a
    ``ValueError`` that quotes it."""
    headers = {}
    for value in values or ():
        name, sep, text = value.partition(":")
        if not sep or not name.strip():
            raise ValueError(f"--header {value!r}: expected 'NAME: VALUE', as in 'Authorization: Bearer ...'")
        headers[name.strip()] = text.strip()
    return headers


def redactor_hiding(headers: dict, patterns: Iterable[str] = ()) -> Redactor:
    """The recording's redactor, with the values of the HTTP headers given (a bearer token)
    among the secrets: they never reach a written byte, even when a server echoes them."""
    base = redactor(patterns, where="mcptest record --redact")
    values = [v for v in headers.values() if v]
    values += [v.split(None, 1)[1] for v in values if len(v.split(None, 1)) == 2]  # "Bearer X": X alone too
    return Redactor([*base.known, *values], base.patterns, base.key) if headers else base
