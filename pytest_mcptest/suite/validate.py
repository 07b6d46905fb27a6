"""JSON Schema validation of user files, with errors a person can act on.

The schemas ship in the package (``pytest_mcptest/schema/``: ``v1.json`` for suites,
``cassette-v1.json``, ``manifest-v1.json`` for ``mcptest mock``) so editors can use them
too. Whether a document is valid is decided by ``jsonschema-rs`` (a compiled validator:
about a fifth of the time a hand-written check in Python took on realistic suites, and
there is no such check of ours any more). ``jsonschema`` is imported and run only for a
document it rejects, to explain it: every problem of the document at once, each at its
line (or JSON pointer, for a document read from JSON), with a "did you mean" for a
misspelled key or value, which the compiled validator's messages do not give.
"""

from __future__ import annotations

import difflib
import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any, NamedTuple, Optional

from ..engine.paths import format_path, json_pointer
from ..engine.values import show, type_name
from ..errors import InputError
from .yamlcore import line_of

SUITE = "v1.json"
CASSETTE = "cassette-v1.json"
MANIFEST = "manifest-v1.json"

# A document with more problems than this lists the first ones and counts the rest.
MAX_LISTED = 50


_MADE: dict[str, dict] = {}  # schemas made at run time: the suite's with plugin gates' sections (gates/__init__.py)


def add_schema(name: str, made: dict) -> str:
    """Make ``made`` known as the schema ``name`` (a new name for each new schema)."""
    _MADE[name] = made
    return name


@lru_cache(maxsize=None)
def schema(name: str = SUITE) -> dict:
    if name in _MADE:
        return _MADE[name]
    return json.loads(resources.files("pytest_mcptest").joinpath(f"schema/{name}").read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def compiled(name: str = SUITE):
    """The compiled validator of a shipped schema (``is_valid`` is all that is asked of it)."""
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(schema(name))


def is_valid(doc: Any, schema_name: str = SUITE) -> bool:
    """Whether ``doc`` is valid against the shipped schema. A value the compiled validator
    cannot take in (an integer past 64 bits) is left to ``jsonschema``'s explanation,
    which then decides: no problem found means valid."""
    try:
        return compiled(schema_name).is_valid(doc)
    except (ValueError, OverflowError, TypeError):
        return False


@lru_cache(maxsize=None)
def validator(name: str = SUITE):
    import jsonschema

    return jsonschema.Draft202012Validator(schema(name))


class Problem(NamedTuple):
    """One thing wrong with a document: where (``parts`` into it, and its line if known) and what."""

    line: Optional[int]
    parts: tuple
    message: str


def validate_document(doc: Any, path: str, source: Optional[str], first_line: int = 1,
                      schema_name: str = SUITE) -> None:
    """Raise one :class:`InputError` listing every problem when ``doc`` breaks the schema.

    ``first_line`` is where the document starts, for a document with no lines of its own
    (a bare scalar). A document loaded from JSON has no lines: problems carry JSON pointers.
    """
    if is_valid(doc, schema_name):
        return
    problems = schema_problems(doc, schema_name)
    if problems:
        raise problems_error(path, source, problems, first_line)


def schema_problems(doc: Any, schema_name: str = SUITE) -> list[Problem]:
    """Every problem jsonschema finds in ``doc``, explained, in document order (by line, else pointer)."""
    found: dict[tuple, Problem] = {}
    for error in validator(schema_name).iter_errors(doc):
        for message, parts in _explain_error(doc, error, schema_name):
            problem = Problem(line_of(doc, parts), tuple(parts), message)
            found.setdefault((problem.parts, message), problem)
    return sorted(found.values(), key=lambda p: (p.line or 0, json_pointer(p.parts), p.message))


def problems_error(path: str, source: Optional[str], problems: list[Problem], first_line: int = 1) -> InputError:
    """One error for a list of problems: alone, it reads as any other error (with the offending
    lines shown); several are listed one a line, each with its line or JSON pointer."""
    first = problems[0]
    line = first.line if first.line is not None else (first_line if source is not None and not first.parts else None)
    pointer = None if first.line is not None else json_pointer(first.parts)
    if len(problems) == 1:
        return InputError(path, first.message, line=line, pointer=pointer if line is None else None,
                          source=source)
    text = source.splitlines() if source is not None else []
    rows = [f"{len(problems)} problems in this document:"]
    for problem in problems[:MAX_LISTED]:
        if problem.line is not None:
            rows.append(f"  line {problem.line}: {problem.message}")
            if 0 < problem.line <= len(text):
                rows.append(f"    {problem.line:>5} | {text[problem.line - 1]}")
        else:
            rows.append(f"  at {json_pointer(problem.parts) or '/'}: {problem.message}")
    if len(problems) > MAX_LISTED:
        rows.append(f"  ... and {len(problems) - MAX_LISTED} more")
    return InputError(path, "\n".join(rows), line=line, pointer=pointer if line is None else None)


def _explain_error(doc: Any, error, schema_name: str) -> list[tuple[str, list]]:
    """(message, parts) for one jsonschema error, descending into anyOf/oneOf to the branch meant."""
    if schema_name.startswith(SUITE):  # the suite's, or with plugin gates' sections in it
        entry = _explain_expect_entry(doc, list(error.absolute_path))
        if entry is not None:
            return [entry]
    import heapq

    from jsonschema.exceptions import relevance

    either = _either_or(error)
    while either is None and error.validator in ("anyOf", "oneOf") and error.context:
        fitting = _fitting_branch(error)
        if fitting is not None:
            return [found for sub in fitting for found in _explain_error(doc, sub, schema_name)]
        # Otherwise the branch meant is the one whose error goes deepest (jsonschema's best_match).
        first, *second = heapq.nsmallest(2, error.context, key=relevance)
        if second and relevance(first) == relevance(second[0]):
            return [_no_branch(error)]
        error = first
        either = _either_or(error)
    if either is not None:
        return [(either, list(error.absolute_path))]
    return _explain(error, list(error.absolute_path), schema(schema_name))


def _explain_expect_entry(doc: Any, parts: list) -> Optional[tuple[str, list]]:
    """Inside an ``expect:`` entry the grammar explains itself better than two schema shapes."""
    from ..engine.expect import ExpectSyntaxError, compile_expectation

    for k in range(len(parts) - 2, -1, -1):
        if parts[k] == "expect" and isinstance(parts[k + 1], int):
            entry_parts = parts[: k + 2]
            entry = doc
            for part in entry_parts:
                entry = entry[part]
            try:
                compile_expectation(entry)
            except ExpectSyntaxError as exc:
                return f"{_where(entry_parts)}: {exc}", entry_parts
            return None
    return None


def _either_or(error) -> Optional[str]:
    """Keys that exclude each other said in those words: a oneOf over "this key or that key"
    (a server's ``catalog`` or ``command``), or a ``not`` of both keys together."""
    if not isinstance(error.instance, dict):
        return None
    if error.validator == "not" and set(error.validator_value) == {"required"}:
        keys = list(error.validator_value["required"])
    elif error.validator == "oneOf":
        keys = []
        for branch in error.validator_value:
            if set(branch) != {"required"} or len(branch["required"]) != 1:
                return None
            keys.append(branch["required"][0])
    else:
        return None
    named = " or ".join(filter(None, [", ".join(f"`{k}`" for k in keys[:-1]), f"`{keys[-1]}`"]))
    where = _where(list(error.absolute_path))
    present = [k for k in keys if k in error.instance]
    if len(present) == 2:  # of however many it may take, the two it has
        return f"{where} takes either `{present[0]}` or `{present[1]}`, not both"
    if len(present) > 2:
        return f"{where} takes one of {named}, not {len(present)} of them"
    return f"{where} needs one of {named}"


def _fitting_branch(error) -> Optional[list]:
    """The errors of the one anyOf/oneOf branch whose type fits the value, if exactly one does
    (``source: {from: near_duplicate}`` meant the object form, not the word form)."""
    here = list(error.absolute_path)
    branches: dict[int, list] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    fitting = [subs for subs in branches.values()
               if not any(s.validator in ("type", "enum", "const") and list(s.absolute_path) == here for s in subs)]
    return fitting[0] if len(fitting) == 1 else None


def _no_branch(error) -> tuple[str, list]:
    """No branch of an anyOf/oneOf comes closer than another: name what each would take."""
    parts = list(error.absolute_path)
    wanted = []
    for sub in error.context:
        if sub.validator == "type" and list(sub.absolute_path) == parts:
            names = sub.validator_value if isinstance(sub.validator_value, list) else [sub.validator_value]
            wanted += [n for n in names if n not in wanted]
        elif sub.validator in ("enum", "const") and list(sub.absolute_path) == parts:
            values = sub.validator_value if sub.validator == "enum" else [sub.validator_value]
            wanted += [show(v) for v in values if show(v) not in wanted]
        else:
            return f"{_where(parts)}: {error.message}", parts
    return f"{_where(parts)} must be {' or '.join(wanted)}, found {type_name(error.instance)} " \
           f"{show(error.instance, 40)}", parts


def _where(parts) -> str:
    return format_path(parts) or "the document"


def _near(word: Any, names) -> str:
    close = difflib.get_close_matches(str(word), [str(n) for n in names], n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}? " if close else ""


def _condition(error, root: dict) -> str:
    """Why a key is required, when an ``if``/``then`` requires it: " (needed when kind is truncate)"."""
    path = list(error.absolute_schema_path)
    if "then" not in path:
        return ""
    cut = len(path) - 1 - path[::-1].index("then")
    node: Any = root
    try:
        for step in path[:cut]:  # jsonschema leaves the $ref hops out of the path: follow them
            while isinstance(node, dict) and step not in node and "$ref" in node:
                node = _resolve(root, node["$ref"])
            node = node[step]
        while "if" not in node and "$ref" in node:
            node = _resolve(root, node["$ref"])
    except (KeyError, IndexError, TypeError):
        return ""  # a path this walk cannot follow: the plain message is still right
    rules = [f"{key} is {value['const']}" for key, value in node.get("if", {}).get("properties", {}).items()
             if isinstance(value, dict) and "const" in value]
    return f" (needed when {' and '.join(rules)})" if rules else ""


def _resolve(root: dict, ref: str) -> Any:
    node: Any = root
    for step in ref.lstrip("#/").split("/"):
        node = node[step]
    return node


def _explain(error, parts: list, root: dict) -> list[tuple[str, list]]:
    kind = error.validator
    instance = error.instance
    where = _where(parts)
    if kind == "additionalProperties" and isinstance(instance, dict):
        allowed = sorted(error.schema.get("properties", {}))
        patterns = list(error.schema.get("patternProperties", {}))
        extra = [k for k in instance if k not in allowed and not any(re.search(p, str(k)) for p in patterns)]
        return [(f"unknown key {key!r} in {where}; {_near(key, allowed)}expected one of: {', '.join(allowed)}",
                 parts + [key]) for key in extra]
    if kind == "required":
        missing = re.match(r"'(.*)' is a required property", error.message)
        name = missing.group(1) if missing else error.message
        return [(f"{where} is missing the required key {name!r}{_condition(error, root)}", parts)]
    if kind == "type":
        wanted = error.validator_value
        wanted = " or ".join(wanted) if isinstance(wanted, list) else wanted
        return [(f"{where} must be {wanted}, found {type_name(instance)} {show(instance, 40)}", parts)]
    if kind == "pattern" and error.validator_value == "\\S":
        return [(f"{where} must not be empty or only whitespace, found {show(instance)}", parts)]
    if kind == "pattern" and parts and parts[-1] == "name":
        edges = ", nor start or end with a space" if "(?!\\s)" in error.validator_value else ""
        return [(f"{where}: a name may not contain '::' (pytest's node-id separator) or control characters"
                 f"{edges}; found {show(instance)}", parts)]
    if kind in ("enum", "const"):
        allowed = error.validator_value if kind == "enum" else [error.validator_value]
        hint = _near(instance, allowed).rstrip() if isinstance(instance, str) else ""
        return [(f"{where} must be one of {', '.join(show(a) for a in allowed)}, found {show(instance)}"
                 + (f"; {hint}" if hint else ""), parts)]
    if kind in ("minItems", "minLength") and error.validator_value == 1:
        return [(f"{where} must not be empty", parts)]
    if kind in ("minimum", "maximum", "exclusiveMinimum"):
        word = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">"}[kind]
        return [(f"{where} must be {word} {error.validator_value}, found {show(instance)}", parts)]
    return [(f"{where}: {error.message}", parts)]
