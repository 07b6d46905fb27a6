"""Plain-text layout shared by the failure text of every gate: aligned columns and
counted nouns, so that every kind of block reads alike."""

from __future__ import annotations

import re

from .engine.values import plural  # noqa: F401  (counted nouns: the engine's failures say them too)

INDENT = "  "


def table(rows: list[tuple[str, ...]], indent: str = INDENT * 2) -> list[str]:
    """Rows with every column but the last padded to its widest cell."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    out = []
    for row in rows:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + [row[-1]]
        out.append((indent + "   ".join(cells)).rstrip())
    return out


def findings(failures) -> list[str]:
    """A gate's own failures, one ``gate: message`` line each, after a blank line."""
    if not failures:
        return []
    return [""] + [f"{INDENT}{f.gate}: {f.message}" for f in failures]


# C0 controls but tab and newline, DEL, C1 controls, the bidi embeddings, overrides, isolates
# and marks, and the Unicode line separators: what could move a terminal's cursor, set its
# title, clear its screen or show text in another order than it is.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` safe to print to a terminal: each control or bidi character written as its
    escape (``\\x1b``, ``\\u202e``), newlines and tabs kept. Applied to every text that holds
    what a cassette, a catalog or a server said (tool names, ``meta.model``, descriptions)
    where it is printed: failure text, notes, ``mcptest doctor``."""
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def _escape(match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def html_text(value) -> str:
    """``value`` as HTML for the report page, for text a cassette, a catalog or a report file
    gave (item names, tool names, messages): escaped, isolated in a ``<bdi>`` so that its
    direction cannot reorder the words around it, and each control or bidi character shown
    as its escape in a marked ``<span class="ctl">`` instead of acting (the page's script
    does the same, in ``report.js``)."""
    from html import escape

    text = escape(str(value))
    if _UNSAFE.search(text):
        text = _UNSAFE.sub(lambda m: f'<span class="ctl">{_escape(m)}</span>', text)
    return f"<bdi>{text}</bdi>"


# What Markdown (GitHub's) would act on in a name or message: emphasis, links and images (no
# link forms without its brackets), code spans and fences, HTML, tables, strike-through; each
# is written backslash-escaped. An
# underscore inside a word (``tool_selection``) emphasizes nothing and is left as written.
_MARKDOWN = re.compile(r"([\\`*\[\]<>|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")


def markdown_text(value) -> str:
    """``value`` as inert Markdown text for a pull-request comment, from what a suite, a cassette
    or a report file gave (item names, messages, paths): one line, control and bidi characters
    escaped (:func:`printable`), Markdown punctuation backslash-escaped so that no link, image,
    fence or tag forms, and an ``@`` followed by a zero-width space so that no one is mentioned
    (GitHub finds mentions in the rendered text, after escapes are undone)."""
    line = printable(" ".join(str(value).split()))
    return _MARKDOWN.sub(r"\\\1", line).replace("@", "@\u200b")


def json_printable(text: str) -> str:
    """JSON text safe to print: each control or bidi character left raw inside a string
    (``json.dumps(..., ensure_ascii=False)`` leaves C1 controls and bidi overrides as they
    are) written as its ``\\uXXXX`` escape, which reads back as the same string."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _UNSAFE.search(text) else text


def exit_words(code) -> str:
    """A process's exit status in words: ``exited with code 1``, ``was killed by signal
    SIGSEGV`` (a negative status, as :mod:`subprocess` gives it), or "" while it runs."""
    if code is None:
        return ""
    if code < 0:
        import signal

        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"
