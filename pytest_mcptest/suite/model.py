"""The suite model: validated, frozen objects, each remembering its file and line.

What every block has lives here; each kind's own block class lives with its gate
(``gates/<kind>.py``), with the engine's rule types (``WorldSpec`` and friends) inside.
"""

from __future__ import annotations

import re
from typing import Optional

import attrs

from ..engine.expect import Expectation


@attrs.frozen
class Mark:
    """A pytest mark to put on the item: its name, positional and keyword arguments."""

    name: str
    args: tuple = ()
    kwargs: dict = attrs.field(factory=dict)


@attrs.frozen
class Block:
    """One item-producing block of a suite: a scenario, an agent test, ..."""

    kind: str
    name: str
    file: str
    line: int
    marks: tuple[Mark, ...] = ()
    tags: tuple[str, ...] = ()
    cassette: Optional[str] = None
    expect: tuple[Expectation, ...] = ()

    @property
    def cassette_slug(self) -> str:
        """The default cassette file name: the block's name, slugged, plus ``.json``."""
        return slugify(self.name) + ".json"


@attrs.frozen
class Suite:
    """One suite file: every block of every document, in written order."""

    path: str
    blocks: tuple[Block, ...]
    servers: dict = attrs.field(factory=dict)
    warnings: tuple[tuple[int, str], ...] = ()  # (line, message) said at each collection


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug or "unnamed"
