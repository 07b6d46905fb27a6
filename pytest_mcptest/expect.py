"""The ``expect:`` grammar: a path into a report envelope and one matcher.

Every gate reuses this module. An entry is ``{target: <path>, matcher: {<kind>: <value>}}``
or the short form ``{<path>: {<kind>: <value>}}``. An entry is compiled once, at
collection (a bad path, regex or JSON Schema is an input error there, never a pass
later), and checked against each run's envelope. Compiled regexes and validators
live in per-process caches, so an expectation itself is plain, picklable data.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

import attrs

from .engine.paths import Missing, PathError, Segment, format_path, parse_path, resolve
from .engine.values import is_number, json_equal, show, type_name

COMPARISONS = (">=", ">", "<=", "<", "==", "!=")
KINDS = ("exact", "contains", "contains-all", "regex", "schema") + COMPARISONS


class ExpectSyntaxError(ValueError):
    """An ``expect:`` entry that cannot be compiled; the message says what was expected."""


@attrs.frozen
class Expectation:
    """One compiled ``expect:`` entry."""

    target: str
    path: tuple[Segment, ...]
    kind: str
    value: Any
    line: Optional[int] = None

    def describe(self) -> str:
        return f"{self.kind} {show(self.value)}"


@attrs.frozen
class ExpectResult:
    """The outcome of one expectation against one envelope."""

    expectation: Expectation
    passed: bool
    actual: Any
    found: bool
    message: str

    def to_dict(self) -> dict:
        out = {"target": self.expectation.target, "matcher": {self.expectation.kind: self.expectation.value},
               "passed": self.passed, "message": self.message}
        if self.found:
            out["actual"] = self.actual
        return out


_VALIDATORS: dict[str, Any] = {}


def _schema_validator(schema: Any):
    """A checked, compiled validator for ``schema``; one per distinct schema per process."""
    key = json.dumps(schema, sort_keys=True)
    validator = _VALIDATORS.get(key)
    if validator is None:
        validator = _VALIDATORS[key] = _compile_schema(schema)
    return validator


def _compile_schema(schema: Any):
    import jsonschema

    if not isinstance(schema, (dict, bool)):
        raise ExpectSyntaxError(f"the schema matcher takes a JSON Schema object, found {type_name(schema)}")
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = format_path(list(exc.path)) or "the schema"
        raise ExpectSyntaxError(f"malformed JSON Schema at {where}: {exc.message}") from None
    return cls(schema)


def compile_expectation(entry: Any, line: Optional[int] = None) -> Expectation:
    """Turn one YAML entry into an :class:`Expectation`, or raise :class:`ExpectSyntaxError`."""
    if not isinstance(entry, dict):
        raise ExpectSyntaxError(f"an expect entry must be an object, found {type_name(entry)}")
    if "target" in entry or "matcher" in entry:
        extra = sorted(set(entry) - {"target", "matcher", "description"})
        if extra:
            raise ExpectSyntaxError(f"unexpected key {extra[0]!r} beside target/matcher")
        if "target" not in entry or "matcher" not in entry:
            raise ExpectSyntaxError("an expect entry needs both 'target' and 'matcher'")
        target, matcher = entry["target"], entry["matcher"]
    elif len(entry) == 1:
        (target, matcher), = entry.items()
    else:
        raise ExpectSyntaxError(
            f"the short form takes exactly one '<path>: {{<kind>: <value>}}' pair, found {len(entry)} keys")
    if not isinstance(target, str):
        raise ExpectSyntaxError(f"a target must be a path string, found {type_name(target)}")
    try:
        path = parse_path(target)
    except PathError as exc:
        raise ExpectSyntaxError(str(exc)) from None
    if not isinstance(matcher, dict) or len(matcher) != 1:
        raise ExpectSyntaxError(f"a matcher is one '<kind>: <value>' pair with kind one of {', '.join(KINDS)}")
    (kind, value), = matcher.items()
    if kind not in KINDS:
        import difflib

        close = difflib.get_close_matches(str(kind), KINDS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ExpectSyntaxError(f"unknown matcher {kind!r}{hint}; expected one of {', '.join(KINDS)}")
    if kind == "regex":
        if not isinstance(value, str):
            raise ExpectSyntaxError(f"the regex matcher takes a string, found {type_name(value)}")
        try:
            re.compile(value)
        except re.error as exc:
            raise ExpectSyntaxError(f"invalid regular expression {value!r}: {exc}") from None
    elif kind == "schema":
        _schema_validator(value)
    elif kind == "contains-all" and not isinstance(value, list):
        raise ExpectSyntaxError(f"contains-all takes a list, found {type_name(value)}")
    elif kind in COMPARISONS[:4] and not is_number(value):
        raise ExpectSyntaxError(f"{kind!r} compares numbers, found {type_name(value)} {show(value)}")
    return Expectation(target=target, path=path, kind=kind, value=value, line=line)


def subset(actual: Any, expected: Any) -> bool:
    """Object subset with multiset arrays: every expected key/item is in ``actual``."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and subset(actual[k], v) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and _multiset_match(actual, expected)
    return json_equal(actual, expected)


def _multiset_match(actual: list, expected: list) -> bool:
    """Each expected item pairs with a distinct actual item (a maximum bipartite matching)."""
    if len(expected) > len(actual):
        return False
    owner: dict[int, int] = {}

    def place(e: int, seen: set) -> bool:
        for a in range(len(actual)):
            if a in seen or not subset(actual[a], expected[e]):
                continue
            seen.add(a)
            if a not in owner or place(owner[a], seen):
                owner[a] = e
                return True
        return False

    return all(place(e, set()) for e in range(len(expected)))


def contains(actual: Any, expected: Any) -> bool:
    """Substring for strings, membership for a list and a non-list, subset otherwise."""
    if isinstance(actual, str) and isinstance(expected, str):
        return expected in actual
    if isinstance(actual, list) and not isinstance(expected, list):
        return any(subset(item, expected) for item in actual)
    return subset(actual, expected)


def _match(exp: Expectation, actual: Any) -> tuple[bool, str]:
    kind, value = exp.kind, exp.value
    got = show(actual)
    if kind == "exact":
        return json_equal(actual, value), f"expected exactly {show(value)}, got {got}"
    if kind == "contains":
        return contains(actual, value), f"expected to contain {show(value)}, got {got}"
    if kind == "contains-all":
        missing = [v for v in value if not contains(actual, v)]
        return not missing, f"expected to contain all of {show(value)}, missing {show(missing)}; got {got}"
    if kind == "regex":
        if not isinstance(actual, str):
            return False, f"expected a string matching /{value}/, got {type_name(actual)} {got}"
        return re.search(value, actual) is not None, f"expected to match /{value}/, got {got}"
    if kind == "schema":
        errors = sorted(_schema_validator(value).iter_errors(actual), key=lambda e: list(e.absolute_path))
        if not errors:
            return True, f"valid against the schema: {got}"
        first = errors[0]
        where = format_path(list(first.absolute_path))
        return False, f"does not match the schema: {first.message}" + (f" at {where}" if where else "") + f"; got {got}"
    if kind == "==":
        return json_equal(actual, value), f"expected == {show(value)}, got {got}"
    if kind == "!=":
        return not json_equal(actual, value), f"expected != {show(value)}, got {got}"
    if not is_number(actual):
        return False, f"expected a number {kind} {show(value)}, got {type_name(actual)} {got}"
    ok = {">=": actual >= value, ">": actual > value, "<=": actual <= value, "<": actual < value}[kind]
    return ok, f"expected {kind} {show(value)}, got {got}"


def check(exp: Expectation, envelope: Any) -> ExpectResult:
    """Resolve ``exp.path`` in ``envelope`` and apply the matcher. Never raises for data."""
    actual = resolve(envelope, exp.path)
    if isinstance(actual, Missing):
        near = ", ".join(actual.keys[:12]) if actual.keys else "none"
        if len(actual.keys) > 12:
            near += ", ..."
        message = f"{exp.target} resolves to nothing: {actual.reason}; nearest keys: {near}"
        return ExpectResult(exp, False, None, False, message)
    passed, message = _match(exp, actual)
    return ExpectResult(exp, passed, actual, True, message)
