"""A fast yes/no check of a document against the shipped JSON Schema.

jsonschema is the reference: it explains every error. But a full jsonschema pass
over a suite costs more than parsing its YAML, and nearly every document is valid.
So the schema is compiled once into plain closures that only answer "valid?", and
jsonschema runs only on a document they reject, to say why. The compiler knows the
keywords the schema uses and refuses any other, so the two cannot silently drift;
a property test checks that they agree.
"""

from __future__ import annotations

import re
import threading
from typing import Any, Callable, Optional

from ..engine.values import is_number, json_equal
from .yamlcore import span_key

Check = Callable[[Any], bool]

REMEMBERED_MAX = 10_000  # texts remembered as passed; emptied when full, as fastyaml's caches

ANNOTATIONS = {"$schema", "$id", "$comment", "title", "description", "default", "examples", "$defs"}


def _is_integer(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": is_number,
    "integer": _is_integer,
}


class UnsupportedSchema(ValueError):
    """The schema uses a keyword this compiler does not know."""


class _Compiler:
    def __init__(self, root: dict, remembered: frozenset = frozenset()):
        self.root = root
        self.refs: dict[str, Check] = {}
        self.remembered = remembered
        self.lines: Optional[list[str]] = None  # the lines of the file whose document is being checked
        self.passed: set[tuple[str, tuple]] = set()  # (pointer, span key) of what passed a remembered $ref

    def remember(self, pointer: str, check: Check) -> Check:
        """``check``, answered once per text: a block collection the fast YAML reader read
        from the same lines as one that passed is the same value (see ``yamlcore.span_key``),
        so it passes again. Any other value (a flow collection, a JSON document, what libyaml
        read) is checked each time."""
        passed = self.passed

        def remembered(v):
            lines = self.lines
            span = None if lines is None else span_key(v, lines)
            if span is None:
                return check(v)
            key = (pointer, span)
            if key in passed:
                return True
            if not check(v):
                return False
            if len(passed) >= REMEMBERED_MAX:
                passed.clear()
            passed.add(key)
            return True

        return remembered

    def ref(self, pointer: str) -> Check:
        if pointer not in self.refs:
            if not pointer.startswith("#/"):
                raise UnsupportedSchema(f"only local $ref is supported, found {pointer!r}")
            target: Any = self.root
            for part in pointer[2:].split("/"):
                target = target[part]
            slot: list[Check] = []
            self.refs[pointer] = lambda v: slot[0](v)  # late binding, while compiling: refs may recurse
            compiled = self.compile(target)
            slot.append(self.remember(pointer, compiled) if pointer in self.remembered else compiled)
            self.refs[pointer] = slot[0]  # compiled: later uses call it directly
        return self.refs[pointer]

    def compile(self, schema: Any) -> Check:
        if schema is True:
            return lambda v: True
        if schema is False:
            return lambda v: False
        checks: list[Check] = []
        object_checks: list[Check] = []
        for key, value in schema.items():
            if key in ANNOTATIONS or key.startswith("x-") or key in ("then", "else", "properties",
                                                                     "patternProperties", "additionalProperties"):
                continue
            make = getattr(self, "k_" + key.replace("$", "").replace("Of", "_of"), None)
            if make is None:
                raise UnsupportedSchema(f"keyword {key!r} is not supported by the fast check")
            checks.append(make(value, schema))
        if any(k in schema for k in ("properties", "patternProperties", "additionalProperties")):
            object_checks.append(self.k_properties_all(schema))
        return self.all_of(tuple(checks + object_checks))

    # Each k_<keyword> returns the check of one keyword.
    def k_ref(self, value, schema):
        return self.ref(value)

    def k_type(self, value, schema):
        names = value if isinstance(value, list) else [value]
        tests = tuple(TYPES[n] for n in names)
        if len(tests) == 1:
            return tests[0]
        return lambda v: any(t(v) for t in tests)

    def k_if(self, value, schema):
        cond = self.compile(value)
        then = self.compile(schema.get("then", True))
        other = self.compile(schema.get("else", True))
        return lambda v: then(v) if cond(v) else other(v)

    def k_any_of(self, value, schema):
        subs = tuple(self.compile(s) for s in value)

        def any_of(v):
            for s in subs:
                if s(v):
                    return True
            return False

        return any_of

    def k_all_of(self, value, schema):
        return self.all_of(tuple(self.compile(s) for s in value))

    @staticmethod
    def all_of(checks: tuple) -> Check:
        if len(checks) == 1:
            return checks[0]

        def every(v):
            for c in checks:
                if not c(v):
                    return False
            return True

        return every

    def k_one_of(self, value, schema):
        subs = tuple(self.compile(s) for s in value)
        return lambda v: sum(1 for s in subs if s(v)) == 1

    def k_not(self, value, schema):
        sub = self.compile(value)
        return lambda v: not sub(v)

    def k_enum(self, value, schema):
        if all(isinstance(e, str) for e in value):  # the common case: a set of words
            words = frozenset(value)
            return lambda v: isinstance(v, str) and v in words
        return lambda v: any(json_equal(v, e) for e in value)

    def k_const(self, value, schema):
        if isinstance(value, str):
            return lambda v: v == value and isinstance(v, str)
        return lambda v: json_equal(v, value)

    def k_required(self, value, schema):
        names = tuple(value)
        if len(names) == 1:
            (name,) = names
            return lambda v: not isinstance(v, dict) or name in v
        return lambda v: not isinstance(v, dict) or all(n in v for n in names)

    def k_minLength(self, value, schema):
        return lambda v: not isinstance(v, str) or len(v) >= value

    def k_pattern(self, value, schema):
        rx = re.compile(value)
        return lambda v: not isinstance(v, str) or rx.search(v) is not None

    def k_minItems(self, value, schema):
        return lambda v: not isinstance(v, list) or len(v) >= value

    def k_items(self, value, schema):
        sub = self.compile(value)

        def items(v):
            if isinstance(v, list):
                for i in v:
                    if not sub(i):
                        return False
            return True

        return items

    def k_minProperties(self, value, schema):
        return lambda v: not isinstance(v, dict) or len(v) >= value

    def k_maxProperties(self, value, schema):
        return lambda v: not isinstance(v, dict) or len(v) <= value

    def k_propertyNames(self, value, schema):
        sub = self.compile(value)
        return lambda v: not isinstance(v, dict) or all(sub(k) for k in v)

    def k_minimum(self, value, schema):
        return lambda v: not is_number(v) or v >= value

    def k_maximum(self, value, schema):
        return lambda v: not is_number(v) or v <= value

    def k_exclusiveMinimum(self, value, schema):
        return lambda v: not is_number(v) or v > value

    def k_properties_all(self, schema):
        props = {k: self.compile(s) for k, s in schema.get("properties", {}).items()}
        patterns = tuple((re.compile(p), self.compile(s)) for p, s in schema.get("patternProperties", {}).items())
        extra = self.compile(schema.get("additionalProperties", True))
        extra_free = schema.get("additionalProperties", True) is True

        def check(v):
            if not isinstance(v, dict):
                return True
            for key, item in v.items():
                sub = props.get(key)
                matched = sub is not None
                if matched and not sub(item):
                    return False
                if patterns and isinstance(key, str):
                    for rx, psub in patterns:
                        if rx.search(key):
                            matched = True
                            if not psub(item):
                                return False
                if not matched and not extra_free and not extra(item):
                    return False
            return True

        return check


def compile_schema(schema: dict, remembered: tuple[str, ...] = ()) -> Callable[..., bool]:
    """Compile ``schema`` (with its ``$defs``) into a function ``(doc, lines=None) -> bool``.

    The ``$ref`` pointers in ``remembered`` (the parts suites repeat: a scenario's rules,
    copied into each) are checked once per text when ``lines`` is given: the text of the
    file the document was read from, split at newlines (its values' lines index it)."""
    compiler = _Compiler(schema, frozenset(remembered))
    for pointer in remembered:
        compiler.ref(pointer)  # a pointer to nothing fails here, not at the first document
    check = compiler.compile(schema)

    lock = threading.Lock()  # the lines are the compiler's while one document is checked

    def check_document(doc: Any, lines: Optional[list[str]] = None) -> bool:
        with lock:
            compiler.lines = lines
            try:
                return check(doc)
            finally:
                compiler.lines = None

    return check_document
