"""JSON Schema validation of suite documents, with errors a person can act on.

The schema ships in the package (``pytest_mcptest/schema/v1.json``) so editors can
use it too. A valid document (the common case) costs one pass of the compiled fast
check (see :mod:`.fastcheck`); jsonschema is imported and run only for a document it
rejects, to explain it at its line: an unknown key with a "did you mean", a missing
key, a wrong type.
"""

from __future__ import annotations

import difflib
import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

from ..engine.paths import format_path
from ..engine.values import show, type_name
from ..errors import InputError
from .loader import line_of


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(resources.files("pytest_mcptest").joinpath("schema/v1.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def fast_check():
    from .fastcheck import compile_schema

    return compile_schema(schema())


@lru_cache(maxsize=1)
def validator():
    import jsonschema

    return jsonschema.Draft202012Validator(schema())


def validate_document(doc: Any, path: str, source: str, first_line: int = 1) -> None:
    """Raise :class:`InputError` at the offending line when ``doc`` breaks the schema.

    ``first_line`` is where the document starts, for a document with no lines of its own
    (a bare scalar).
    """
    if fast_check()(doc):
        return
    import jsonschema

    v = validator()
    if v.is_valid(doc):
        return  # the fast check is stricter than the reference here; the reference decides

    error = jsonschema.exceptions.best_match(v.iter_errors(doc))
    _explain_expect_entry(doc, list(error.absolute_path), path, source)
    while error.context and error.validator in ("anyOf", "oneOf"):
        error = jsonschema.exceptions.best_match(error.context)
    parts = list(error.absolute_path)
    message, parts = _explain(error, parts)
    raise InputError(path, message, line=line_of(doc, parts) or first_line, source=source)


def _explain_expect_entry(doc: Any, parts: list, path: str, source: str) -> None:
    """Inside an ``expect:`` entry the grammar explains itself better than two schema shapes."""
    from ..expect import ExpectSyntaxError, compile_expectation

    for k in range(len(parts) - 2, -1, -1):
        if parts[k] == "expect" and isinstance(parts[k + 1], int):
            entry_parts = parts[: k + 2]
            entry = doc
            for part in entry_parts:
                entry = entry[part]
            try:
                compile_expectation(entry)
            except ExpectSyntaxError as exc:
                raise InputError(path, f"{_where(entry_parts)}: {exc}", line=line_of(doc, entry_parts),
                                 source=source) from None
            return


def _where(parts) -> str:
    return format_path(parts) or "the document"


def _explain(error, parts):
    kind = error.validator
    instance = error.instance
    where = _where(parts)
    if kind == "additionalProperties" and isinstance(instance, dict):
        allowed = sorted(error.schema.get("properties", {}))
        patterns = list(error.schema.get("patternProperties", {}))
        extra = [k for k in instance if k not in allowed and not any(re.search(p, str(k)) for p in patterns)]
        key = extra[0] if extra else "?"
        close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return (f"unknown key {key!r} in {where}; {hint}expected one of: {', '.join(allowed)}", parts + [key])
    if kind == "required":
        missing = re.match(r"'(.*)' is a required property", error.message)
        name = missing.group(1) if missing else error.message
        return f"{where} is missing the required key {name!r}", parts
    if kind == "type":
        wanted = error.validator_value
        wanted = " or ".join(wanted) if isinstance(wanted, list) else wanted
        return f"{where} must be {wanted}, found {type_name(instance)} {show(instance, 40)}", parts
    if kind == "pattern" and error.validator_value == "\\S":
        return f"{where} must not be empty or only whitespace, found {show(instance)}", parts
    if kind == "pattern" and parts and parts[-1] == "name":
        edges = ", nor start or end with a space" if "(?!\\s)" in error.validator_value else ""
        return (f"{where}: a name may not contain '::' (pytest's node-id separator) or control characters"
                f"{edges}; found {show(instance)}", parts)
    if kind in ("enum", "const"):
        allowed = error.validator_value if kind == "enum" else [error.validator_value]
        return f"{where} must be one of {', '.join(show(a) for a in allowed)}, found {show(instance)}", parts
    if kind == "propertyNames":
        return f"{where}: {error.message}", parts
    return f"{where}: {error.message}", parts
