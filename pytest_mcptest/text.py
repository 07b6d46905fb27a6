"""Plain-text layout shared by the failure text of every gate: aligned columns and
counted nouns, so that every kind of block reads alike."""

from __future__ import annotations

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


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 run``, ``2 runs``; ``many`` for nouns that do not just take an s."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def findings(failures) -> list[str]:
    """A gate's own failures, one ``gate: message`` line each, after a blank line."""
    if not failures:
        return []
    return [""] + [f"{INDENT}{f.gate}: {f.message}" for f in failures]
