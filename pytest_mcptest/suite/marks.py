"""The marks a suite block may carry, checked at collection.

A suite is data, and must stay data: pytest evaluates a *string* condition of ``skipif``
and ``xfail`` as Python (``condition: "open('PWNED', 'w')"`` would run), and a
``filterwarnings`` entry naming a category that does not exist aborts the whole session.
So, at collection, with the file and line:

- a condition is ``true``/``false`` or a *named condition*, never a string:
  ``{platform: linux}`` (``sys.platform`` starts with it), ``{env: NAME}`` (the variable is
  set and not empty), ``{python: ">=3.12"}`` (the running version compared), ``{not: ...}``;
- ``skip`` takes a reason (a string) or nothing; ``xfail: "text"`` is a reason, as on the
  block itself;
- ``filterwarnings`` takes ``action:message:category:module:lineno`` filters whose category
  is one of Python's built-in warnings (naming any other would import a module);
- ``usefixtures`` and ``parametrize`` mean nothing on a block.

A named condition is a :class:`Condition` object in the mark's arguments. pytest calls
``bool()`` on a condition that is not a string, so it is evaluated when the item runs,
never at collection: a cached suite stays right when the environment changes.
"""

from __future__ import annotations

import builtins
import os
import re
import sys
from typing import Any, Callable

import msgspec

from .model import Mark

CONDITION_MARKS = ("skipif", "xfail")
CONDITION_KINDS = ("platform", "env", "python", "not")
_MARK_KEYS = {"skipif": ("condition", "reason"), "xfail": ("condition", "reason", "strict", "run")}
_PYTHON = re.compile(r"\s*(>=|<=|==|!=|>|<)\s*(\d+(?:\.\d+){0,2})\s*")
_VERSION_TESTS = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
                  "!=": lambda a, b: a != b, ">": lambda a, b: a > b, "<": lambda a, b: a < b}
_FILTER_ACTIONS = ("default", "error", "ignore", "always", "all", "module", "once")

# What pytest's `-m` and `-k` expressions read as one name.
_SELECTABLE = re.compile(r"[\w+\-./]+")  # no ':' either: it ends a marker's name in the ini
# pytest marks that act on an item: a tag of that name would silently skip or xfail it.
BEHAVIOUR_MARKS = frozenset({"skip", "skipif", "xfail", "usefixtures", "parametrize", "filterwarnings"})
# pytest marks that only make sense on Python test functions.
MEANINGLESS_MARKS = frozenset({"usefixtures", "parametrize"})

CONDITION_HELP = ("use true or false, or a named condition: {platform: linux}, {env: NAME}, "
                  "{python: \">=3.12\"} or {not: <condition>}")


class Condition(msgspec.Struct, frozen=True):
    """A named condition, evaluated by ``bool()`` when pytest asks (as the item runs)."""

    kind: str
    value: Any

    def __bool__(self) -> bool:
        if self.kind == "platform":
            return sys.platform.startswith(self.value)
        if self.kind == "env":
            return bool(os.environ.get(self.value))
        if self.kind == "python":
            op, version = _PYTHON.fullmatch(self.value).groups()
            wanted = tuple(int(p) for p in version.split("."))
            return _VERSION_TESTS[op](sys.version_info[: len(wanted)], wanted)
        return not bool(self.value)

    def describe(self) -> str:
        if self.kind == "not":
            inner = self.value.describe() if isinstance(self.value, Condition) else str(self.value).lower()
            return f"not ({inner})"
        return {"platform": "platform is {}", "env": "${} is set", "python": "python {}"}[self.kind].format(self.value)


def build_marks(raw: dict, fail: Callable[[list, str], Exception]) -> tuple[tuple[Mark, ...], tuple[str, ...]]:
    """The marks and tags of one block. ``fail(parts, message)`` makes the error for the
    place ``parts`` (relative to the block) to raise."""
    marks = []
    skip = raw.get("skip")
    if skip is True or (isinstance(skip, str) and skip):
        marks.append(Mark("skip", (), {"reason": skip} if isinstance(skip, str) else {}))
    xfail = raw.get("xfail")
    if xfail is True:
        marks.append(Mark("xfail"))
    elif isinstance(xfail, str):
        marks.append(Mark("xfail", (), {"reason": xfail}))
    elif isinstance(xfail, dict):
        marks.append(Mark("xfail", (), dict(xfail)))
    for i, entry in enumerate(raw.get("marks") or ()):
        marks.append(_mark(entry, ["marks", i], fail))
    tags = tuple(raw.get("tags") or ())
    for i, tag in enumerate(tags):
        if not _SELECTABLE.fullmatch(tag) or tag in ("and", "or", "not"):
            raise fail(["tags", i], f"tag {tag!r} could not be selected with `-m` or `-k` "
                       "(use letters, digits and _ - . + / without spaces, and not and/or/not)")
        if tag in BEHAVIOUR_MARKS:
            raise fail(["tags", i], f"tag {tag!r} is one of pytest's own marks and would change how "
                       f"the item runs; use `{tag}:` or `marks:` for that, or pick another tag")
    return tuple(marks), tags


def _mark(entry: Any, here: list, fail) -> Mark:
    if isinstance(entry, str):
        name, value = entry, None
    elif isinstance(entry, dict) and len(entry) == 1:
        (name, value), = entry.items()
    else:
        raise fail(here, f"a mark is a name or a one-key object {{name: arguments}}, found {_shown(entry)}")
    if not isinstance(name, str) or not name.isidentifier():
        raise fail(here, f"mark name {name!r} is not a valid identifier")
    if name in MEANINGLESS_MARKS:
        raise fail(here, f"the mark {name!r} means nothing on a suite block (it has no fixtures and no parameters)")
    where = here + ([] if isinstance(entry, str) else [name])
    if name in CONDITION_MARKS:
        return _condition_mark(name, value, where, fail)
    if name == "skip":
        if isinstance(value, dict) and set(value) <= {"reason"} and isinstance(value.get("reason", ""), str):
            return Mark("skip", (), dict(value))
        if value is None or isinstance(value, str):
            return Mark("skip", (), {} if value is None else {"reason": value})
        raise fail(where, f"skip takes a reason (a string) or {{reason: ...}}, found {_shown(value)}")
    if name == "filterwarnings":
        filters = value if isinstance(value, list) else [] if value is None else [value]
        for n, text in enumerate(filters):
            problem = _filter_problem(text)
            if problem:
                raise fail(where + ([n] if isinstance(value, list) else []), f"filterwarnings {_shown(text)}: {problem}")
        return Mark("filterwarnings", tuple(filters), {})
    if isinstance(value, dict):
        return Mark(name, (), dict(value))
    if isinstance(value, list):
        return Mark(name, tuple(value), {})
    return Mark(name) if value is None else Mark(name, (value,), {})


def _condition_mark(name: str, value: Any, where: list, fail) -> Mark:
    """``skipif`` / ``xfail`` with every condition a boolean or a :class:`Condition`."""
    if value is None:
        return Mark(name)
    if isinstance(value, str):
        if name == "xfail":
            return Mark(name, (), {"reason": value})
        raise fail(where, f"{name}: a string condition ({_shown(value)}) would be run as Python by pytest, and a "
                   f"suite is data; {CONDITION_HELP}")
    kwargs: dict = {}
    if isinstance(value, dict) and not (set(value) & set(CONDITION_KINDS)):
        unknown = sorted(set(value) - set(_MARK_KEYS[name]), key=str)
        if unknown:
            raise fail(where + [unknown[0]], f"{name}: unknown key {unknown[0]!r}; expected "
                       f"{', '.join(_MARK_KEYS[name])} (a condition, or {{platform|env|python|not: ...}})")
        for key in ("reason",):
            if key in value and not isinstance(value[key], str):
                raise fail(where + [key], f"{name}: 'reason' must be a string, found {_shown(value[key])}")
        for key in ("strict", "run"):
            if key in value and not isinstance(value[key], bool):
                raise fail(where + [key], f"{name}: {key!r} must be true or false, found {_shown(value[key])}")
        kwargs = {k: v for k, v in value.items() if k != "condition"}
        conditions = [value["condition"]] if "condition" in value else []
        parts = [where + ["condition"]]
    elif isinstance(value, list):
        conditions, parts = value, [where + [n] for n in range(len(value))]
    else:
        conditions, parts = [value], [where]
    built = tuple(_condition(c, p, name, fail) for c, p in zip(conditions, parts))
    if built and "reason" not in kwargs and all(isinstance(c, bool) for c in built):
        # As pytest refuses a boolean condition without a reason: a skip that says only "true"
        # would hide an item with no word why.
        raise fail(where, f"{name}: a condition of true or false needs a reason: "
                   f"{{{name}: {{condition: {str(built[0]).lower()}, reason: \"why\"}}}}")
    if built and "reason" not in kwargs:
        # pytest wants a reason with a non-string condition; say which condition held.
        kwargs["reason"] = " or ".join(c.describe() if isinstance(c, Condition) else str(c).lower() for c in built)
    return Mark(name, built, kwargs)


def _condition(value: Any, where: list, name: str, fail):
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        raise fail(where, f"{name}: a string condition ({_shown(value)}) would be run as Python by pytest, and a "
                   f"suite is data; {CONDITION_HELP}")
    if not (isinstance(value, dict) and len(value) == 1 and next(iter(value)) in CONDITION_KINDS):
        raise fail(where, f"{name}: a condition must be true, false or a named condition, found {_shown(value)}; "
                   f"{CONDITION_HELP}")
    (kind, arg), = value.items()
    if kind == "not":
        return Condition("not", _condition(arg, where + ["not"], name, fail))
    if not isinstance(arg, str) or not arg.strip():
        raise fail(where + [kind], f"{name}: {{{kind}: ...}} takes a non-empty string, found {_shown(arg)}")
    if kind == "python" and not _PYTHON.fullmatch(arg):
        raise fail(where + [kind], f"{name}: {{python: {arg!r}}} must be an operator and a version, "
                   "such as \">=3.12\" or \"<3.11\"")
    return Condition(kind, arg.strip())


def _filter_problem(text: Any) -> str | None:
    """Why pytest could not use ``text`` as a warnings filter, or None."""
    if not isinstance(text, str):
        return f"a filter is a string such as \"ignore::DeprecationWarning\", found {_shown(text)}"
    parts = [p.strip() for p in text.split(":")]
    if len(parts) > 5:
        return "a filter has at most five parts: action:message:category:module:lineno"
    parts += [""] * (5 - len(parts))
    action, message, category, module, lineno = parts
    if action not in _FILTER_ACTIONS:
        return f"unknown action {action!r}; expected one of {', '.join(_FILTER_ACTIONS)}"
    for what, pattern in (("message", message), ("module", module)):
        try:
            re.compile(pattern)
        except re.error as exc:
            return f"the {what} is not a valid regular expression: {exc}"
    if category:
        found = getattr(builtins, category, None)
        if not (isinstance(found, type) and issubclass(found, Warning)):
            known = ", ".join(sorted(n for n, v in vars(builtins).items()
                                     if isinstance(v, type) and issubclass(v, Warning))[:6])
            return (f"unknown warning category {category!r}; a suite may name Python's built-in categories "
                    f"({known}, ...), since any other would have to be imported")
    if lineno and not (lineno.isdigit()):
        return f"the line number must be a whole number, found {lineno!r}"
    return None


def _shown(value: Any) -> str:
    from ..engine.values import show, type_name

    return f"{type_name(value)} {show(value, 60)}" if not isinstance(value, str) else repr(value[:60])

