"""The suite model: validated, frozen objects, each remembering its file and line.

What every block has lives here; each kind's own block class lives with its gate
(``gates/<kind>.py``), with the engine's rule types (``WorldSpec`` and friends) inside.

The model's classes are msgspec Structs: a class is made in C when its module loads (a
session of one item makes some twenty of them before its first answer), an object is made,
compared and pickled in C (the suite cache keeps built blocks as a pickle).
"""

from __future__ import annotations

import re
from typing import Optional

import msgspec

from ..engine.expect import Expectation


class Mark(msgspec.Struct, frozen=True):
    """A pytest mark to put on the item: its name, positional and keyword arguments."""

    name: str
    args: tuple = ()
    kwargs: dict = msgspec.field(default_factory=dict)


class _BlockMeta(msgspec.StructMeta):
    """Says what to write when a gate plugin decorates its ``Block`` subclass with attrs, as
    ``Block`` once asked (attrs builds the class again with an ``__init__``, which a Struct
    refuses with words that do not say why)."""

    def __new__(mcls, name, bases, namespace, **options):
        if "__attrs_attrs__" in namespace:
            raise TypeError(f"{name}: a Block is a msgspec Struct; declare it as `class {name}(Block, frozen=True)` "
                            "with fields that have defaults, without an attrs decorator (docs/gates.md)")
        return super().__new__(mcls, name, bases, namespace, **options)


class Block(msgspec.Struct, frozen=True, metaclass=_BlockMeta):
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


class Suite(msgspec.Struct, frozen=True):
    """One suite file: every block of every document, in written order."""

    path: str
    blocks: tuple[Block, ...]
    servers: dict = msgspec.field(default_factory=dict)
    warnings: tuple[tuple[int, str], ...] = ()  # (line, message) said at each collection


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug or "unnamed"
