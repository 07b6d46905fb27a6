"""A transition's guards and effects, and a forbidden rule's guards, as one Python function.

A replay asks for every call: which forbidden rule holds, which transition's guards hold,
what its effects write. Asked of the rule objects (a method per guard and per effect,
each walking its path in a loop), that costs about 2 us a call. Written out as straight
lines for the rule's own paths, it costs a third of that. This module writes those lines.

Only the common case is written out, exactly as ``Guard.holds`` and ``Effect.planned``
take it: a path of keys through plain dicts, a scalar compared with a scalar of its type,
a number added to a number. Everything else is handed, unchanged, to the rule objects:
a guard whose way leads through something that is not a plain dict asks the guard itself;
effects that cannot all be planned (a key to create, a list, ``from_arg``, a value that
is not a number) go to ``world._careful_effects``, which applies them all or nothing and
says why one failed. So a compiled rule decides and writes what the rule objects would
(``tests/test_properties.py`` holds both to a plain reading of the scenario rules).

The text of a function depends only on the rule's shape (its paths, operators and the
kinds of its values); the values themselves are bound by name. Shapes are compiled once
per process, so a suite of many scenarios with the same rules compiles a handful.
"""

from __future__ import annotations

from types import FunctionType
from typing import Any, Callable, Union

from .values import SCALARS, copy_json, is_number, json_equal

_NOTHING = object()  # what a missing key reads as

# Compiled code by the text of the function: shapes repeat across scenarios and files.
_CODE: dict[str, Any] = {}
_MAX_SHAPES = 4096


def compile_transition(transition: Any, careful: Callable) -> Callable[[dict, Any, bool], Union[None, bool, str]]:
    """``fire(state, args, error)``: None when a guard of ``transition`` fails; otherwise its
    effects are applied (unless the call returned an ``error``) and the result is True, or
    the reason they could not be (nothing is written then). ``careful(state, transition,
    args)`` applies them the way of the rule objects, for what is not written out here, and
    answers the same."""
    names: dict[str, Any] = {"_careful": careful, "_t": transition}
    lines = ["def fire(state, args, error):"]
    lines += _guard_lines(transition.when, names, "return None")
    lines.append("    if error: return True")
    effects = transition.effects
    if not effects:
        lines.append("    return True")
    elif not transition._direct or not all(map(_plannable, effects)):
        lines.append("    return _careful(state, _t, args)")
    else:
        for i, effect in enumerate(effects):
            lines += _effect_lines(i, effect, names)
        lines += [f"    p{i}[{effect._key!r}] = v{i}" for i, effect in enumerate(effects)]
        lines.append("    return True")
    return _function(lines, names, "fire")


def compile_rule(rule: Any) -> Callable[[dict], bool]:
    """``holds(state)``: whether every guard of the forbidden ``rule`` holds (True without guards)."""
    names: dict[str, Any] = {}
    lines = ["def holds(state):"] + _guard_lines(rule.when, names, "return False") + ["    return True"]
    return _function(lines, names, "holds")


def _guard_lines(guards: Any, names: dict, fail: str) -> list[str]:
    """Lines that run ``fail`` unless every guard holds, as ``Guard.holds`` decides."""
    lines = []
    for i, guard in enumerate(guards):
        g, v = f"_g{i}", f"_v{i}"
        names[g], names[v] = guard, guard.value
        if guard._head is None or guard.op not in ("eq", "min", "max"):
            lines.append(f"    if not {g}.holds(state): {fail}")
            continue
        lines.append("    p = state")
        lines += [f"    p = p.get({seg!r}) if type(p) is dict else None" for seg in guard._head]
        kind = type(guard.value)
        if guard.op == "eq" and kind in SCALARS:
            names[f"_k{i}"] = kind
            test = f"(a == {v} if type(a) is _k{i} else _json_equal(a, {v}))"
        elif guard.op == "eq":
            test = f"_json_equal(a, {v})"
        else:
            compare = ">=" if guard.op == "min" else "<="
            test = f"((type(a) is int or type(a) is float or _is_number(a)) and a {compare} {v})"
        lines += ["    if type(p) is dict:",
                  f"        a = p.get({guard._key!r}, _NOTHING)",
                  f"        if a is _NOTHING or not {test}: {fail}",
                  f"    elif not {g}.holds(state): {fail}"]
    return lines


def _plannable(effect: Any) -> bool:
    """Whether :func:`_effect_lines` writes ``effect`` out (``Effect.planned`` has a plan for it)."""
    return effect.op in ("set", "inc", "dec") and (effect.amount_arg is None or all(
        type(seg) is str or type(seg) is int for seg in effect.amount_arg))


def _effect_lines(i: int, effect: Any, names: dict) -> list[str]:
    """Lines that put in ``p{i}`` and ``v{i}`` the dict to write into and the value, as
    ``Effect.planned`` works them out, or hand the whole transition to ``_careful``."""
    careful = "return _careful(state, _t, args)"
    p, value = f"p{i}", f"_e{i}"
    names[value] = effect.value
    lines = [f"    {p} = state"]
    lines += [f"    {p} = {p}.get({seg!r}) if type({p}) is dict else None" for seg in effect._head]
    lines.append(f"    if type({p}) is not dict: {careful}")
    if effect.op == "set":
        lines.append(f"    v{i} = {value}" if type(effect.value) in SCALARS else f"    v{i} = _copy_json({value})")
        return lines
    amount = value
    if effect.amount_arg is not None:
        amount = "n"
        lines.append("    n = args")
        for j, seg in enumerate(effect.amount_arg):
            key = repr(seg) if type(seg) is str else f"_a{i}_{j}"
            if type(seg) is not str:  # an int, bound by name: Python refuses the repr of one over 4300 digits
                names[key] = seg
            lines += [f"    if type(n) is dict and {key} in n: n = n[{key}]",
                      f"    else: {careful}"]
        lines.append(f"    if type(n) is not int and type(n) is not float: {careful}")
    sign = "+" if effect.op == "inc" else "-"
    lines += [f"    c = {p}.get({effect._key!r})",
              "    if c is None: c = 0",
              f"    elif type(c) is not int and type(c) is not float: {careful}",
              f"    v{i} = c {sign} {amount}"]
    return lines


def _function(lines: list[str], names: dict, name: str) -> Callable:
    """The function the lines define, its free names bound to ``names``."""
    text = "\n".join(lines)
    code = _CODE.get(text)
    if code is None:
        namespace: dict = {}
        exec(compile(text, f"<mcptest {name}>", "exec"), namespace)  # noqa: S102 - keys written by repr()
        if len(_CODE) >= _MAX_SHAPES:  # a suite of ever new keys does not grow this without end
            _CODE.clear()
        code = _CODE[text] = namespace[name].__code__
    scope = {"__builtins__": __builtins__, "_NOTHING": _NOTHING, "_json_equal": json_equal,
             "_is_number": is_number, "_copy_json": copy_json, **names}
    return FunctionType(code, scope, name)
