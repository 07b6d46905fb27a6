"""From a suite file to its blocks: read, validate each document against the schema,
and hand each block's YAML to the gate of its kind (``gates/<kind>.py``), which builds
it with line-accurate errors. Names must be unique within a file.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from . import GateError, document_gate, section_gate, suite_schema
from ..suite.doc import Doc, plain
from ..suite.loader import LineDict, load_documents, read_text
from ..suite.model import Block, Suite
from ..suite.validate import Problem, problems_error, validate_document


def build_document(path: str, source: str, root: Any, warnings: list | None = None) -> list[Block]:
    """The blocks of one validated document, in written order."""
    doc = Doc(path, source, root, warnings)
    whole = document_gate(root)
    if whole is not None:
        return [whole.build(doc, [], root)]
    blocks: list[Block] = []
    errors: list[InputError] = []  # the first of each block: a file with five bad blocks says so in one run
    for section, entries in root.items():
        found = section_gate(section)
        if found is None or found.build is None:
            continue
        for i, raw in enumerate(entries):
            try:
                built = found.build(doc, [section, i], raw)  # a block, or a tuple of blocks (an agent and its distractors)
            except InputError as exc:
                errors.append(exc)
                continue
            if isinstance(built, tuple):
                blocks.extend(built)
            else:
                blocks.append(built)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise problems_error(path, source, [Problem(e.line, (), e.message) for e in errors])
    return blocks


def load_suite(path: str, text: str | None = None) -> Suite:
    """Read, validate and build one suite file. Raises :class:`InputError` at the first problem."""
    if text is None:
        text = read_text(path)
    blocks: list[Block] = []
    servers: dict = {}
    seen: dict[str, int] = {}
    warnings: list[tuple[int, str]] = []
    for root, first_line in load_documents(path, text):
        if root is None:
            continue  # an empty document (a trailing '---')
        try:
            schema_name = suite_schema(root)
        except GateError as exc:  # a plugin's gate that cannot be used
            raise InputError(path, str(exc), line=first_line, source=text) from None
        validate_document(root, path, text, first_line, schema_name=schema_name)
        for block in build_document(path, text, root, warnings):
            if block.name in seen:
                raise InputError(path, f"two blocks are named {block.name!r} (the first at line "
                                 f"{seen[block.name]}); names must be unique within a file",
                                 line=block.line, source=text)
            seen[block.name] = block.line
            blocks.append(block)
        if isinstance(root, LineDict):
            servers.update(plain(root.get("servers") or {}))
    return Suite(path=path, blocks=tuple(blocks), servers=servers, warnings=tuple(warnings))
