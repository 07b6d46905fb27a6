"""From validated YAML documents to model objects, with line-accurate errors.

The schema checks shapes; this module checks what a schema cannot: guard and
effect forms, paths, matchers, regexes and JSON Schemas inside ``expect:``, and
names that repeat within a file.
"""

from __future__ import annotations

import difflib
import os
import re
from typing import Any, Callable

from ..engine.conversation import ConversationSpec
from ..engine.golden import GoldenOracle, GoldenPath
from ..engine.matching import MalformedSchema, schema_validator
from ..engine.trace_match import ExpectedCall, ExpectedTrace
from ..engine.paths import PathError, parse_path
from ..engine.values import is_number, show, type_name
from ..engine.world import EFFECT_OPS, GUARD_OPS, Effect, ForbiddenRule, Guard, Transition, WorldSpec
from ..errors import InputError
from ..expect import ExpectSyntaxError, compile_expectation
from .loader import LineDict, load_documents, line_of
from .model import (AgentBlock, Block, ClassGate, ConversationBlock, DistractorsBlock, Mark, OrchestrationGate, ScenarioBlock,
                    SelectionFloor, Suite, ToolBenchBlock, ToolQualityBlock)
from .validate import validate_document


class _Doc:
    """One document being built: where errors point."""

    def __init__(self, path: str, source: str, root: Any):
        self.path, self.source, self.root = path, source, root

    def error(self, parts, message: str) -> InputError:
        return InputError(self.path, message, line=line_of(self.root, parts), source=self.source)


def _path(doc: _Doc, parts, text: Any):
    try:
        return parse_path(text)
    except PathError as exc:
        raise doc.error(parts, f"bad path {text!r}: {exc}") from None


def _near_operator(doc: _Doc, parts, key: str, value: Any, ops, literal_hint: str) -> None:
    """Refuse a one-key object whose key looks like a misspelled operator (``mn``, ``decr``)."""
    if isinstance(value, dict) and len(value) == 1:
        (word,) = value
        close = difflib.get_close_matches(str(word), ops, n=1, cutoff=0.5)
        if close and word not in ops:
            raise doc.error(parts + [key, word], f"{key!r}: unknown operator {word!r}; did you mean {close[0]!r}? "
                            f"(operators: {', '.join(ops)}; {literal_hint})")


def _guards(doc: _Doc, parts, raw) -> tuple[Guard, ...]:
    guards = []
    for key, value in (raw or {}).items():
        path = _path(doc, parts + [key], key)
        if isinstance(value, dict) and value and set(value) <= set(GUARD_OPS):
            for op, operand in value.items():
                if op in ("min", "max") and not is_number(operand):
                    raise doc.error(parts + [key, op], f"guard {key!r}: {op} takes a number, found "
                                    f"{type_name(operand)} {show(operand)}")
                guards.append(Guard(path, op, operand))
        else:
            _near_operator(doc, parts, key, value, GUARD_OPS, "to compare with an object, write {eq: {...}}")
            guards.append(Guard(path, "eq", value))
    return tuple(guards)


def _effects(doc: _Doc, parts, raw) -> tuple[Effect, ...]:
    effects = []
    for key, value in (raw or {}).items():
        path = _path(doc, parts + [key], key)
        if not (isinstance(value, dict) and len(value) == 1 and next(iter(value)) in EFFECT_OPS):
            _near_operator(doc, parts, key, value, EFFECT_OPS, "to set an object, write {set: {...}}")
            effects.append(Effect(path, "set", value))
            continue
        (op, operand), = value.items()
        here = parts + [key, op]
        if op in ("inc", "dec"):
            if isinstance(operand, dict) and set(operand) == {"from_arg"} and isinstance(operand["from_arg"], str):
                effects.append(Effect(path, op, None, amount_arg=_path(doc, here, operand["from_arg"])))
                continue
            if not is_number(operand):
                raise doc.error(here, f"effect {key!r}: {op} takes a number or {{from_arg: \"<dotted>\"}}, "
                                f"found {type_name(operand)} {show(operand)}")
        if op == "from_arg":
            if not isinstance(operand, str):
                raise doc.error(here, f"effect {key!r}: from_arg takes a dotted argument path, "
                                f"found {type_name(operand)}")
            operand = _path(doc, here, operand)
        effects.append(Effect(path, op, operand))
    return tuple(effects)


def _expectations(doc: _Doc, parts, raw) -> tuple:
    out = []
    for i, entry in enumerate(raw or ()):
        try:
            out.append(compile_expectation(entry, line=line_of(doc.root, parts + [i])))
        except ExpectSyntaxError as exc:
            raise doc.error(parts + [i], f"{_fmt(parts + [i])}: {exc}") from None
    return tuple(out)


def _fmt(parts) -> str:
    from ..engine.paths import format_path

    return format_path(parts)


def _marks(doc: _Doc, parts, raw: dict) -> tuple[tuple[Mark, ...], tuple[str, ...]]:
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
        if isinstance(entry, str):
            marks.append(Mark(entry))
            continue
        (name, value), = entry.items()
        if isinstance(value, dict):
            marks.append(Mark(name, (), dict(value)))
        elif isinstance(value, list):
            marks.append(Mark(name, tuple(value), {}))
        elif value is None:
            marks.append(Mark(name))
        else:
            marks.append(Mark(name, (value,), {}))
    for i, mark in enumerate(marks):
        if not mark.name.isidentifier():
            raise doc.error(parts + ["marks"], f"mark name {mark.name!r} is not a valid identifier")
        if mark.name in MEANINGLESS_MARKS:
            raise doc.error(parts + ["marks"], f"the mark {mark.name!r} means nothing on a suite block "
                            "(it has no fixtures and no parameters)")
    tags = tuple(raw.get("tags") or ())
    for i, tag in enumerate(tags):
        if not _SELECTABLE.fullmatch(tag) or tag in ("and", "or", "not"):
            raise doc.error(parts + ["tags", i], f"tag {tag!r} could not be selected with `-m` or `-k` "
                            "(use letters, digits and _ - . + / without spaces, and not and/or/not)")
        if tag in BEHAVIOUR_MARKS:
            raise doc.error(parts + ["tags", i], f"tag {tag!r} is one of pytest's own marks and would change how "
                            f"the item runs; use `{tag}:` or `marks:` for that, or pick another tag")
    return tuple(marks), tags


# What pytest's `-m` and `-k` expressions read as one name.
_SELECTABLE = re.compile(r"[\w+\-./]+")  # no ':' either: it ends a marker's name in the ini
# pytest marks that act on an item: a tag of that name would silently skip or xfail it.
BEHAVIOUR_MARKS = frozenset({"skip", "skipif", "xfail", "usefixtures", "parametrize", "filterwarnings"})
# pytest marks that only make sense on Python test functions.
MEANINGLESS_MARKS = frozenset({"usefixtures", "parametrize"})


def _common(doc: _Doc, parts, raw: dict, kind: str, name: str | None = None) -> dict:
    marks, tags = _marks(doc, parts, raw)
    return dict(kind=kind, name=name or raw["name"], file=doc.path, line=line_of(doc.root, parts) or 1,
                marks=marks, tags=tags, cassette=raw.get("cassette"),
                expect=_expectations(doc, parts + ["expect"], raw.get("expect")))


def _golden(raw: Any) -> GoldenOracle | None:
    if raw is None:
        return None
    return GoldenOracle(
        path=GoldenPath(calls=tuple(raw["calls"]), allow_extra_steps=raw.get("allow_extra_steps", False),
                        penalize_backtracking=raw.get("penalize_backtracking", True),
                        penalize_repeated_tools=raw.get("penalize_repeated_tools", True)),
        alternates=tuple(tuple(a) for a in raw.get("alternates") or ()),
    )


def _expected_trace(doc: _Doc, parts, raw: Any) -> ExpectedTrace | None:
    if raw is None:
        return None
    calls = []
    for i, entry in enumerate(raw["calls"]):
        here = parts + ["calls", i]
        if isinstance(entry, str):
            calls.append(ExpectedCall(entry))
            continue
        args = entry.get("args", "any")
        if isinstance(args, str) and args in ("any", "ignore"):
            calls.append(ExpectedCall(entry["name"], args))
            continue
        if not (isinstance(args, dict) and len(args) == 1 and next(iter(args)) in ("exact", "subset", "schema")):
            raise doc.error(here + ["args"], "args must be any, ignore, {exact: ...}, {subset: ...} or "
                            f"{{schema: ...}}, found {show(args)}")
        (kind, value), = args.items()
        if kind == "schema":
            try:
                schema_validator(value)
            except MalformedSchema as exc:
                raise doc.error(here + ["args", "schema"], str(exc)) from None
        calls.append(ExpectedCall(entry["name"], kind, _plain(value)))
    return ExpectedTrace(raw.get("mode", "strict"), calls)


# Agent-test gates that a later version evaluates; declared now, they fail the item plainly.
# (`distractors:` used to be one; it is now its own item, see `_distractors`.)
LATER_GATES: tuple[str, ...] = ()

# Spec 001's default gate of a `distractors:` block whose `expect:` is empty or omitted.
DISTRACTORS_DEFAULT = {"distractors.accuracy": {">=": 50}}
DISTRACTORS_SUFFIX = " [distractors]"

# Spec 001's default gate of a class gate whose `expect:` is empty or omitted.
CLASS_GATE_DEFAULTS = {"equal_function_sets": {"tool_selection.f1": {">=": 50}},
                       "token_efficiency": {"token_efficiency.f1": {">=": 50}}}


def _class_gate(doc: _Doc, parts, raw: dict, key: str) -> ClassGate | None:
    from ..engine.selection import FunctionClass

    gate = raw.get(key)
    if gate is None:
        return None
    here = parts + [key]
    classes = tuple(FunctionClass(str(c["name"]), tuple(c["members"])) for c in gate["classes"])
    expect = _expectations(doc, here + ["expect"], gate.get("expect"))
    if not expect:
        expect = (compile_expectation(CLASS_GATE_DEFAULTS[key], line=line_of(doc.root, here)),)
    return ClassGate(classes, expect)


def _aggregate_gates(doc: _Doc, parts, raw: dict) -> dict:
    """The gates judged once per item over every run: equal_function_sets, tool_selection,
    orchestration, token_efficiency (and discovery, kept as metadata)."""
    floor = raw.get("tool_selection")
    orchestration = raw.get("orchestration")
    return dict(
        equal_function_sets=_class_gate(doc, parts, raw, "equal_function_sets"),
        token_efficiency=_class_gate(doc, parts, raw, "token_efficiency"),
        tool_selection=None if floor is None else SelectionFloor(
            floor["expected_tool"], floor["min_selection_rate"], floor.get("max_total_tokens")),
        orchestration=None if orchestration is None else OrchestrationGate(
            _expectations(doc, parts + ["orchestration", "expect"], orchestration.get("expect"))),
        discovery=_plain(raw.get("discovery") or {}),
    )


# What a `tests:` entry takes from the `agents:` entry it names: the agent, not its gates.
AGENT_DEFINITION = ("model", "prompt", "system_prompt", "servers", "runs")


def _distractors(doc: _Doc, parts, raw: dict, agent: AgentBlock) -> DistractorsBlock:
    """The ``distractors:`` block of an agent as its own item, ``<agent name> [distractors]``,
    replaying the agent's cassette. Checked here: count, source, of, correct, complexity."""
    from ..engine.distractors import CATALOG, SOURCES, near_duplicates

    here = parts + ["distractors"]
    gate = raw["distractors"]
    if not isinstance(gate, dict):
        raise doc.error(here, f"distractors: expected an object {{count, source, correct, ...}}, "
                        f"found {type_name(gate)}")
    count = gate.get("count", 0)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise doc.error(here + (["count"] if "count" in gate else []),
                        f"distractors.count: expected an integer >= 0, found {show(count)}")
    source = gate.get("source", {"from": "catalog"})
    if isinstance(source, str):  # `source: catalog` reads as `source: {from: catalog}`
        source = {"from": source}
    if not isinstance(source, dict):
        raise doc.error(here + ["source"], f"distractors.source: expected {{from: catalog | near_duplicate, "
                        f"of: [...]}}, found {type_name(source)}")
    kind = source.get("from", "catalog")
    if kind not in SOURCES:
        raise doc.error(here + ["source"], f"distractors.source.from: expected one of {', '.join(SOURCES)}, "
                        f"found {show(kind)}{_near(str(kind), SOURCES)}")
    of = source.get("of")
    if kind == "near_duplicate":
        if not of:
            raise doc.error(here + ["source"], "distractors.source: `of:` is required with from: near_duplicate "
                            "(the real tool names to derive look-alikes from)")
    if of is not None and not (isinstance(of, list) and all(isinstance(n, str) and n for n in of)):
        raise doc.error(here + ["source", "of"], f"distractors.source.of: expected a list of tool names, "
                        f"found {show(_plain(of))}")
    if kind == "catalog" and count > len(CATALOG):
        raise doc.error(here + ["count"], f"distractors.count: the bundled catalog has {len(CATALOG)} "
                        f"distractors; {count} were asked for")
    if kind == "near_duplicate":
        try:
            near_duplicates(of, count)
        except ValueError as exc:
            raise doc.error(here + ["count"], f"distractors.count: {exc}") from None
    correct = gate.get("correct", [])
    if not (isinstance(correct, list) and all(isinstance(c, str) and c for c in correct)):
        raise doc.error(here + (["correct"] if "correct" in gate else []),
                        f"distractors.correct: expected a list of tool ids (server.tool or tool), "
                        f"found {show(_plain(correct))}")
    complexity = gate.get("complexity")
    if complexity is not None and complexity not in ("serial", "parallel"):
        raise doc.error(here + ["complexity"], f"distractors.complexity: expected serial or parallel, "
                        f"found {show(complexity)}")
    marks, tags = _marks(doc, here, gate)
    line = line_of(doc.root, here) or agent.line
    expect = _expectations(doc, here + ["expect"], gate.get("expect"))
    if not expect:
        expect = (compile_expectation(DISTRACTORS_DEFAULT, line=line),)
    return DistractorsBlock(
        kind="distractors", name=agent.name + DISTRACTORS_SUFFIX, file=doc.path, line=line, marks=marks,
        tags=tuple(dict.fromkeys(agent.tags + tags)), cassette=agent.cassette or agent.cassette_slug,
        expect=expect, agent=agent.name, servers=agent.servers, count=count, source=kind,
        of=tuple(of or ()), correct=tuple(correct), complexity=complexity)


def _agent(doc: _Doc, parts, raw: dict) -> AgentBlock | tuple[AgentBlock, DistractorsBlock]:
    """An agent test; with ``distractors:``, the agent and its ``[distractors]`` item."""
    agent = _agent_only(doc, parts, raw)
    if raw.get("distractors") is None:
        return agent
    return agent, _distractors(doc, parts, raw, agent)


def _agent_only(doc: _Doc, parts, raw: dict) -> AgentBlock:
    base: dict = {}
    if raw.get("type") == "agent":  # `tests:` spelling: inherit from the named `agents:` entry
        agents = {a.get("name"): a for a in (doc.root.get("agents") or []) if isinstance(a, dict)}
        base = agents.get(raw["agent"])
        if base is None:
            close = difflib.get_close_matches(str(raw["agent"]), [str(n) for n in agents], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise doc.error(parts + ["agent"], f"no agent named {raw['agent']!r} under agents: in this "
                            f"document{hint}")
    merged = {**{k: v for k, v in base.items() if k in AGENT_DEFINITION}, **raw}
    return AgentBlock(
        model=merged.get("model"), prompt=merged.get("prompt"), servers=tuple(merged.get("servers") or ()),
        trace=_expected_trace(doc, parts + ["expected_trace"], merged.get("expected_trace")),
        golden=_golden(merged.get("golden")),
        unsupported=tuple(g for g in LATER_GATES if merged.get(g) is not None),
        **_aggregate_gates(doc, parts, raw), **_common(doc, parts, raw, "agent"))


def _scenario(doc: _Doc, parts, raw: dict) -> ScenarioBlock:
    transitions = tuple(
        Transition(tool=t["tool"], effects=_effects(doc, parts + ["transitions", i, "effect"], t.get("effect")),
                   when=_guards(doc, parts + ["transitions", i, "when"], t.get("when")))
        for i, t in enumerate(raw.get("transitions") or ())
    )
    forbidden = tuple(
        ForbiddenRule(tool=f["tool"], reason=f["reason"], when=_guards(doc, parts + ["forbidden", i, "when"], f.get("when")))
        for i, f in enumerate(raw.get("forbidden") or ())
    )
    golden = _golden(raw.get("golden"))
    expect_state = tuple((_path(doc, parts + ["expect_state", k], k), v) for k, v in (raw.get("expect_state") or {}).items())
    escalation = raw.get("escalation") or {}
    world = WorldSpec(
        seed=_plain(raw.get("seed") or {}),
        transitions=transitions,
        forbidden=forbidden,
        refusal_markers=tuple((raw.get("refusal") or {}).get("markers") or ()),
        escalation_tools=tuple(escalation.get("tools") or ()),
        escalation_markers=tuple(escalation.get("markers") or ()),
        golden=golden,
        expect_state=expect_state,
        rubric=_plain(raw.get("rubric")),
    )
    return ScenarioBlock(world=world, **_common(doc, parts, raw, "scenario"))


def _plain(value: Any) -> Any:
    """Loader containers back to plain dicts and lists, for the engine and the report."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


TRAIT_DEFAULTS = {"patience": "medium", "verbosity": "concise", "expertise": "novice"}


def _conversation(doc: _Doc, parts, raw: dict) -> ConversationBlock:
    """Spec 002's scenario: strings trimmed, defaults applied (max_turns 10, medium/concise/novice)."""
    user = _plain(raw["synthetic_user"])
    behaviour = user.setdefault("clarification_behavior", {})
    behaviour.setdefault("known_facts", [])
    behaviour.setdefault("unknown_facts", [])
    behaviour["traits"] = {**TRAIT_DEFAULTS, **behaviour.get("traits", {})}
    user.setdefault("max_turns", 10)
    for key in ("persona", "initial_query"):
        user[key] = user[key].strip()
    evaluation = raw["evaluation"]
    usage = evaluation.get("tool_usage") or {}
    efficiency = evaluation.get("efficiency") or {}
    spec = ConversationSpec(
        correctness=tuple(c.strip() for c in evaluation["correctness_criteria"]),
        failure=tuple(c.strip() for c in evaluation.get("failure_criteria") or ()),
        tool_call_criteria=tuple((c["tool"].strip(), tuple(c.get("assertions") or ()))
                                 for c in usage.get("tool_call_criteria") or ()),
        required_tools=tuple(usage.get("required_tools") or ()),
        optional_tools=tuple(usage.get("optional_tools") or ()),
        prohibited_tools=tuple(usage.get("prohibited_tools") or ()),
        max_tool_calls=efficiency.get("max_tool_calls"),
        max_llm_tokens=efficiency.get("max_llm_tokens"),
        max_conversation_turns=efficiency.get("max_conversation_turns"),
        max_turns=user["max_turns"],
    )
    return ConversationBlock(description=raw["description"].strip(), spec=spec, synthetic_user=user,
                             config=_plain(raw.get("config") or {}),
                             **_common(doc, parts, raw, "conversation", name=raw["name"].strip()))


def _near(word: str, names) -> str:
    close = difflib.get_close_matches(str(word), [str(n) for n in names], n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _suite_path(doc: _Doc, path: str) -> str:
    """A path written in a suite, relative to the suite's folder."""
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(doc.path)), path))


def resolve_server(spec: dict, suite_dir: str) -> dict:
    """A ``servers:`` entry with its paths made absolute against the suite's folder: the
    snapshot file, or the folder a live server starts in (so `servers/shop.yml` means
    what it says)."""
    spec = dict(spec)
    if "catalog" in spec:
        spec["catalog"] = os.path.normpath(os.path.join(suite_dir, spec["catalog"]))
    else:
        spec["cwd"] = os.path.normpath(os.path.join(suite_dir, spec.get("cwd", ".")))
    return spec


def _tool_quality(doc: _Doc, parts, raw: dict) -> ToolQualityBlock:
    servers = doc.root.get("servers") or {}
    name = raw["server"]
    if name not in servers:
        raise doc.error(parts + ["server"], f"no server named {name!r} under servers: in this document"
                        f"{_near(name, servers)}")
    spec = resolve_server(_plain(servers[name]), os.path.dirname(os.path.abspath(doc.path)))
    common = _common(doc, parts, raw, "tool_quality")
    if not common["expect"]:  # spec 001's defaults: min_score >= 0.50, mean_score >= 0.70, no critical
        from ..engine.quality import DEFAULT_GATES

        common["expect"] = tuple(compile_expectation(g, line=common["line"]) for g in DEFAULT_GATES)
    return ToolQualityBlock(server=name, source=spec, **common)


def _tool_bench(doc: _Doc, parts, raw: dict) -> ToolBenchBlock:
    from ..engine.toolbench import Intent, Mutation

    if ("catalog" in raw) == ("catalog_path" in raw):
        raise doc.error(parts, "a tool_bench entry takes exactly one of catalog: (inline) or catalog_path:")
    checked = {}
    for key, cls in (("intents", Intent), ("mutations", Mutation)):
        for i, entry in enumerate(raw.get(key) or ()):
            try:
                cls.from_dict(entry)
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                raise doc.error(parts + [key, i], f"{key}[{i}]: {exc}") from None
        checked[key] = tuple(_plain(raw.get(key) or ()))
    path = raw.get("catalog_path")
    return ToolBenchBlock(catalog=_plain(raw.get("catalog")), catalog_path=_suite_path(doc, path) if path else None,
                          min_drop=raw.get("min_drop"), **checked, **_common(doc, parts, raw, "tool_bench"))


# Which top-level list holds which kind of block, and how each is built. Later
# gates add their builders here.
SECTIONS: dict[str, tuple[str, Callable]] = {
    "scenarios": ("scenario", _scenario),
    "agents": ("agent", _agent),
    "tests": ("agent", _agent),
    "conversations": ("conversation", _conversation),
    "tool_quality": ("tool_quality", _tool_quality),
    "tool_bench": ("tool_bench", _tool_bench),
}


def build_document(path: str, source: str, root: Any) -> list[Block]:
    """The blocks of one validated document, in written order."""
    doc = _Doc(path, source, root)
    if isinstance(root, dict) and "synthetic_user" in root and "evaluation" in root:
        return [_conversation(doc, [], root)]
    blocks: list[Block] = []
    for section, entries in root.items():
        if section not in SECTIONS:
            continue
        _, builder = SECTIONS[section]
        for i, raw in enumerate(entries):
            built = builder(doc, [section, i], raw)  # a block, or a tuple of blocks (an agent and its distractors)
            if isinstance(built, tuple):
                blocks.extend(built)
            else:
                blocks.append(built)
    return blocks


def read_text(path: str, data: bytes | None = None) -> str:
    """A suite's text; an unreadable or non-UTF-8 file is an :class:`InputError`."""
    try:
        if data is None:
            with open(path, "rb") as fh:
                data = fh.read()
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    except OSError as exc:
        raise InputError(path, f"cannot read the file: {exc.strerror or exc}") from None


def load_suite(path: str, text: str | None = None) -> Suite:
    """Read, validate and build one suite file. Raises :class:`InputError` at the first problem."""
    if text is None:
        text = read_text(path)
    blocks: list[Block] = []
    servers: dict = {}
    seen: dict[str, int] = {}
    for root, first_line in load_documents(path, text):
        if root is None:
            continue  # an empty document (a trailing '---')
        validate_document(root, path, text, first_line)
        for block in build_document(path, text, root):
            if block.name in seen:
                raise InputError(path, f"two blocks are named {block.name!r} (the first at line "
                                 f"{seen[block.name]}); names must be unique within a file",
                                 line=block.line, source=text)
            seen[block.name] = block.line
            blocks.append(block)
        if isinstance(root, LineDict):
            servers.update(_plain(root.get("servers") or {}))
    return Suite(path=path, blocks=tuple(blocks), servers=servers)
