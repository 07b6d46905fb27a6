"""The ``expect:`` grammar: a path into a report envelope and one matcher.

Every gate reuses this module. An entry is ``{target: <path>, matcher: {<kind>: <value>}}``
or the short form ``{<path>: {<kind>: <value>}}``. An entry is compiled once, at
collection (a bad path, regex or JSON Schema is an input error there, never a pass
later), and checked against each run's envelope. Compiled regexes and validators
live in per-process caches, so an expectation itself is plain, picklable data.
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Optional

import msgspec

from .matching import MalformedSchema, contains, schema_validator
from .paths import Missing, PathError, Segment, format_path, parse_path, resolve
from .values import SCALARS, NestingError, is_number, json_equal, show, type_name

COMPARISONS = (">=", ">", "<=", "<", "==", "!=")
KINDS = ("exact", "contains", "contains-all", "regex", "schema") + COMPARISONS


class ExpectSyntaxError(ValueError):
    """An ``expect:`` entry that cannot be compiled; the message says what was expected."""


class Expectation(msgspec.Struct, frozen=True):
    """One compiled ``expect:`` entry."""

    target: str
    path: tuple[Segment, ...]
    kind: str
    value: Any
    line: Optional[int] = None

    def describe(self) -> str:
        return f"{self.kind} {show(self.value)}"


class ExpectResult(msgspec.Struct, frozen=True):
    """The outcome of one expectation against one envelope (one per expectation per run)."""

    expectation: Expectation
    passed: bool
    actual: Any
    found: bool
    message: str

    @property
    def why(self) -> str:
        """The message without the value it ends with (``schema`` and ``contains-all`` end
        with ``; got VALUE``), for a place that shows the value beside it."""
        return self.message.removesuffix(f"{_GOT}{show(self.actual)}") if self.found else self.message

    def to_dict(self) -> dict:
        out = {"target": self.expectation.target, "matcher": {self.expectation.kind: self.expectation.value},
               "passed": self.passed, "message": self.message}
        if self.found:
            out["actual"] = self.actual
        return out


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
        try:
            schema_validator(value)
        except MalformedSchema as exc:
            raise ExpectSyntaxError(str(exc)) from None
    elif kind == "contains-all" and not isinstance(value, list):
        raise ExpectSyntaxError(f"contains-all takes a list, found {type_name(value)}")
    elif kind in COMPARISONS[:4] and not is_number(value):
        raise ExpectSyntaxError(f"{kind!r} compares numbers, found {type_name(value)} {show(value)}")
    return Expectation(target=target, path=path, kind=kind, value=value, line=line)


_GOT = "; got "  # how the messages that say why before what end with the value found (ExpectResult.why)

_COMPARE = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, "<": lambda a, b: a < b}


def _mismatch(exp: Expectation, actual: Any) -> Optional[str]:
    """None when ``actual`` satisfies the matcher, else why not (built only then)."""
    kind, value = exp.kind, exp.value
    if kind == "exact":
        return None if json_equal(actual, value) else f"expected exactly {show(value)}, got {show(actual)}"
    if kind == "contains":
        return None if contains(actual, value) else f"expected to contain {show(value)}, got {show(actual)}"
    if kind == "contains-all":
        missing = [v for v in value if not contains(actual, v)]
        if not missing:
            return None
        return f"expected to contain all of {show(value)}, missing {show(missing)}{_GOT}{show(actual)}"
    if kind == "regex":
        if not isinstance(actual, str):
            return f"expected a string matching /{value}/, got {type_name(actual)} {show(actual)}"
        return None if re.search(value, actual) else f"expected to match /{value}/, got {show(actual)}"
    if kind == "schema":
        from referencing.exceptions import Unresolvable

        try:
            errors = sorted(schema_validator(value).iter_errors(actual), key=lambda e: list(e.absolute_path))
        except Unresolvable as exc:
            return f"the schema could not be applied: {exc}"
        if not errors:
            return None
        where = format_path(list(errors[0].absolute_path))
        return (f"does not match the schema: {errors[0].message}" + (f" at {where}" if where else "")
                + f"{_GOT}{show(actual)}")
    if kind == "==":
        return None if json_equal(actual, value) else f"expected == {show(value)}, got {show(actual)}"
    if kind == "!=":
        return None if not json_equal(actual, value) else f"expected != {show(value)}, got {show(actual)}"
    if not is_number(actual):
        return f"expected a number {kind} {show(value)}, got {type_name(actual)} {show(actual)}"
    return None if _COMPARE[kind](actual, value) else f"expected {kind} {show(value)}, got {show(actual)}"


def _nearest(missing: Missing, path: tuple) -> str:
    """The keys where the path broke off, the most alike to the missing one first."""
    if not missing.keys:
        return "none"
    wanted = path[len(missing.found)] if len(path) > len(missing.found) else ""
    alike = difflib.get_close_matches(str(wanted), missing.keys, n=3, cutoff=0.5)
    keys = alike + [k for k in missing.keys if k not in alike]
    return ", ".join(keys[:12]) + (", ..." if len(keys) > 12 else "")


def check(exp: Expectation, envelope: Any) -> ExpectResult:
    """Resolve ``exp.path`` in ``envelope`` and apply the matcher. Never raises for data."""
    actual = resolve(envelope, exp.path)
    if isinstance(actual, Missing):
        message = f"{exp.target} resolves to nothing: {actual.reason}; nearest keys: {_nearest(actual, exp.path)}"
        return ExpectResult(exp, False, None, False, message)
    kind = type(actual)
    if exp.kind == "exact" and kind is type(exp.value) and kind in SCALARS and actual == exp.value:
        return ExpectResult(exp, True, actual, True, "passed")  # most expectations: json_equal's first step, inline
    try:
        message = _mismatch(exp, actual)
    except (NestingError, RecursionError):
        message = f"{exp.target}: the value is nested too deeply to compare"
    return ExpectResult(exp, message is None, actual, True, message or "passed")
