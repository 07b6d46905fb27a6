"""Keeping secrets out of cassettes: every string written is scrubbed first.

Three sources of secrets, each replaced by ``"<redacted>"``:

- the values of environment variables whose names look like credentials
  (``OPENAI_API_KEY``, ``GITHUB_TOKEN``, ``DB_PASSWORD``, ``AWS_SECRET_ACCESS_KEY``, ...);
- ``Authorization`` values: a ``Bearer``/``Basic``/``Token`` credential anywhere in a
  string, and the whole value of any object key named like ``authorization``,
  ``api_key``, ``x-api-key``, ``token``, ``password`` or ``secret``;
- the user's own regular expressions (``--mcptest-redact``, ``mcptest record --redact``,
  ``redact:`` in a suite's server entry): every match is replaced.

Short environment values (under 6 characters, such as ``AUTH_MODE=1``) are left alone:
replacing every ``1`` in a cassette would destroy it and protect nothing.
"""

from __future__ import annotations

import os
import re
from typing import Iterable, Mapping, Optional

REDACTED = "<redacted>"
MIN_SECRET_LENGTH = 6

SECRET_NAME = re.compile(r"(?i)(key|token|secret|passw(or)?d|passphrase|credential|auth|cookie|session_?id|private)")
SECRET_KEY = re.compile(r"(?i)^(authorization|proxy-authorization|x-api-key|api[-_]?key|access[-_]?token|"
                        r"refresh[-_]?token|token|password|passwd|secret|client[-_]?secret|cookie|set-cookie)$")
CREDENTIAL = re.compile(r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{6,}")


class Redactor:
    """Replaces secrets in every string of a JSON value. Build one with :func:`redactor`."""

    def __init__(self, secrets: Iterable[str] = (), patterns: Iterable[re.Pattern] = ()):
        # Longest first, so that a secret containing another is replaced whole.
        self.secrets = sorted({s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=lambda s: (-len(s), s))
        self.patterns = list(patterns)

    def text(self, value: str) -> str:
        for secret in self.secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        value = CREDENTIAL.sub(lambda m: f"{m.group(1)} {REDACTED}", value)
        for pattern in self.patterns:
            value = pattern.sub(REDACTED, value)
        return value

    def value(self, value):
        """A copy of a JSON value with every secret replaced (keys included)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                new_key = self.text(key) if isinstance(key, str) else key
                if isinstance(key, str) and SECRET_KEY.match(key) and isinstance(item, str) and item:
                    out[new_key] = REDACTED
                else:
                    out[new_key] = self.value(item)
            return out
        if isinstance(value, list):
            return [self.value(item) for item in value]
        return value


def compile_patterns(patterns: Iterable[str], where: str = "--mcptest-redact") -> list[re.Pattern]:
    """The user's patterns, compiled; a bad one raises ``ValueError`` naming it and ``where``."""
    out = []
    for pattern in patterns:
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{where}: {pattern!r} is not a valid regular expression: {exc}") from None
        if compiled.match(""):
            raise ValueError(f"{where}: {pattern!r} matches the empty string; it would redact nothing useful")
        out.append(compiled)
    return out


def secret_env_values(environ: Optional[Mapping[str, str]] = None) -> list[str]:
    """Values of the environment variables whose names look like credentials."""
    environ = os.environ if environ is None else environ
    return [value for name, value in environ.items() if SECRET_NAME.search(name) and value]


def redactor(patterns: Iterable[str] = (), environ: Optional[Mapping[str, str]] = None,
             where: str = "--mcptest-redact") -> Redactor:
    """The redactor for a recording: this environment's secrets plus the user's patterns."""
    return Redactor(secret_env_values(environ), compile_patterns(patterns, where))
