"""The tool-description lint: rules DESC-001..013.

``lint_tool`` reads one tool of a ``tools/list`` answer and returns its findings; a tool
no rule fires on gets one synthetic Pass finding (rule ``DESC-000``) so a report shows
every checked tool. ``lint_catalog`` does the same for each tool, in catalog order.
The same findings feed the ``tool_quality:`` counts and smells (:mod:`.quality`), so
the gate and ``mcptest doctor --lint-descriptions`` never disagree.

Severities. Critical means "violates a research-backed quality rule; the
agent will likely struggle to use the tool reliably" and names exactly two such tools:
one that "duplicates its name (DESC-003)" and one that "ships a one-word description
(DESC-001)"; the description is the only selection signal an agent gets beyond the
name (Hasan et al., arXiv:2602.14878), and both rules mean there is none. So:

- Critical: DESC-001, DESC-003.
- Warning: every other rule. DESC-009..013 are Warning by definition (advice, not defects).
  DESC-002, 004, 005, 007, 008 are heuristics over prose ("imperfect but workable").
  DESC-006 (a required argument without description) is Warning too: the argument
  still has a name and a type, no research names it a selection failure, and a
  Critical there would fail the default gate (``critical_count <= 0``) of most
  published servers (filesystem, git) on a point the scores already weigh.

Reading of each rule (``description`` is stripped; a non-string reads as empty; only
the top-level ``inputSchema.properties`` are arguments):

- DESC-001: the description is empty or shorter than 20 characters.
- DESC-002: the description is longer than 500 characters.
- DESC-003: the description equals the tool name once both are case-folded and ``_``,
  ``-``, ``.``, camelCase boundaries and trailing punctuation are ignored
  (``get_weather`` vs ``"Get weather."``). Not checked on an empty description.
- DESC-004: a non-empty description contains no word from :data:`COMMON_VERBS`,
  counting inflections (``returns``, ``created``, ``listing``).
- DESC-005: the description contains a positional phrase from
  :data:`POSITIONAL_PHRASES` (``see above``, ``previous tool``, ...).
- DESC-006: a name in ``required`` whose property has no non-blank ``description``
  (also when the property is missing altogether). One finding per argument.
- DESC-007: a property with an ``enum`` and a non-blank description that does not
  mention every enum value (whole word, case-insensitive; non-strings by their JSON
  spelling). The message names the missing values. One finding per argument.
- DESC-008: an argument's description is longer (in characters) than the tool's.
  One finding per argument.
- DESC-009: a non-trivial input schema (more than one property, or a single property
  that is required or not a plain string; a plain string is ``type: "string"`` with no
  ``enum``, ``const``, ``format`` or ``pattern``) and no examples: no non-empty
  ``examples`` array on the tool or on its ``inputSchema``, and no property with a
  non-empty ``examples`` array, an ``example`` or a ``default``.
- DESC-010: a non-empty description with no word starting with ``return``, ``output``
  or ``result``, on a tool without ``outputSchema``.
- DESC-011: ``annotations.readOnlyHint|destructiveHint|idempotentHint|openWorldHint``
  present with a non-boolean value. One finding per hint.
- DESC-012: ``annotations`` is absent, null or not an object (an empty object passes).
- DESC-013: a property whose type is ``string`` or undeclared, with no ``enum``, whose
  description spells out a closed set of at least two values: after a cue such as
  "one of", "either", "allowed/valid/possible/supported values", "must/can be",
  "options:", a list of single words or quoted values joined by commas, "or", "|"
  or "/"; or two or more quoted values joined by "|". "e.g." / "for example" / "such
  as" lists are examples, not allowed values, and do not fire; items that are names of
  sibling arguments ("either text or regex") and words like "not", "both" do not count.
  One finding per argument.

Argument findings carry ``argument``; the others have ``argument`` None.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Optional

import attrs

from .catalog import (
    catalog_tools,
    has_output_schema,
    input_schema,
    prop_description,
    properties,
    required_names,
    tool_description,
    tool_name,
    type_names,
)

CRITICAL = "Critical"
WARNING = "Warning"
PASS = "Pass"
SEVERITIES = (CRITICAL, WARNING, PASS)

MIN_CHARS = 20
MAX_CHARS = 500
PASS_RULE = "DESC-000"

#: rule id -> (severity, what it catches).
RULES: dict[str, tuple[str, str]] = {
    "DESC-001": (CRITICAL, "Description is empty or under 20 chars"),
    "DESC-002": (WARNING, "Description over 500 chars (probably missing inputSchema constraints)"),
    "DESC-003": (CRITICAL, "Description equals the tool name (no signal)"),
    "DESC-004": (WARNING, "Description contains no common verb (agent cannot categorize)"),
    "DESC-005": (WARNING, "Description uses positional phrases that mean nothing in a flat catalog"),
    "DESC-006": (WARNING, "A required argument has no description"),
    "DESC-007": (WARNING, "An enum-typed argument has a description but does not mention the enum values"),
    "DESC-008": (WARNING, "An argument description is longer than the tool description"),
    "DESC-009": (WARNING, "A tool with a non-trivial input schema provides no usage examples"),
    "DESC-010": (WARNING, "The description never says what the tool returns"),
    "DESC-011": (WARNING, "An annotation hint is present with a non-boolean value"),
    "DESC-012": (WARNING, "The tool declares no annotations object"),
    "DESC-013": (WARNING, "A string argument lists its allowed values in the description but declares no enum"),
}

ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")

#: Base forms; inflections (-s, -es, -ies, -ed, -ing, doubled consonants) are folded back.
#: Words far more often nouns than verbs in a description ("order", "index", "log",
#: "snapshot") are left out, so "The order index." does not pass as an action.
COMMON_VERBS = frozenset("""
    accept activate add aggregate analyze analyse append apply approve archive assign attach
    authenticate authorize begin block browse build calculate call cancel capture change check
    choose clean clear click clone close collect combine commit compare compile compose compute
    configure confirm connect convert copy count create crop decode decrypt delete demonstrate
    deploy describe detect diff disable disconnect display download drag draw drop dump duplicate
    echo edit emit enable encode encrypt enqueue ensure enumerate evaluate execute exit expand
    export extract fetch fill filter find finish fix flush follow fork format generate get give go
    grant handle hide hover identify import infer insert inspect install invite invoke join keep
    kill launch link list load locate lock login logout look make manage mark match measure merge
    migrate modify monitor mount move navigate notify obtain open optimize overwrite paginate parse
    paste pause perform pick ping play post predict prepare press preview print process produce
    provide publish pull push put query queue read rebase receive record redo refresh register
    reject release reload remove rename render reorder replace reply report request reset resize
    resolve restart restore resume retrieve return revert review revoke rotate run save scan
    schedule scrape scroll search select send serve set share show sign simulate sleep sort split
    start stop store stream submit subscribe summarize summarise suspend swap switch sync take test
    tell toggle trace track transfer transform translate trigger truncate type undo unlock unstage
    unsubscribe update upgrade upload upsert use validate verify view visit wait watch write
""".split())

#: Positional references that only make sense in an ordered document, never in a flat catalog.
POSITIONAL_PHRASES = (
    "see above", "see below", "as above", "as below", "mentioned above", "described above",
    "listed above", "shown above", "mentioned below", "described below", "listed below",
    "previous tool", "preceding tool", "prior tool", "next tool", "following tool",
    "tool above", "tool below", "above tool", "below tool", "last tool", "earlier tool",
    "the tool before", "the tool after", "previous function", "next function",
)
_POSITIONAL = re.compile(r"\b(" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in POSITIONAL_PHRASES) + r")\b",
                         re.IGNORECASE)

_WORD = re.compile(r"[A-Za-z]+")
_RETURN = re.compile(r"\b(return|output|result)", re.IGNORECASE)

# DESC-013: a cue, then a closed list of at least two single-word or quoted items.
_ITEM = r"""(?:"[^"\n]{1,40}"|'[^'\n]{1,40}'|`[^`\n]{1,40}`|[\w.:+-]+)"""
_SEP = r"""(?:\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s*\|\s*|\s*/\s*)"""
_CUE = (r"\b(?:(?:must|should|can|may)\s+be\s+(?:either\s+|one\s+of\s*:?\s*)?|one\s+of|any\s+of|either|"
        r"(?:allowed|valid|possible|accepted|supported|available)\s+(?:values?|options?)(?:\s+(?:are|is|include))?|"
        r"options?\s*(?:are|:)|choices?\s*(?:are|:)|values?\s*:)")
_ALLOWED_LIST = re.compile(_CUE + r"\s*[:(\[]?\s*(" + _ITEM + r"(?:" + _SEP + _ITEM + r")+)", re.IGNORECASE)
_QUOTED_ALTS = re.compile(r"""(?:"[^"\n]{1,40}"|'[^'\n]{1,40}')(?:\s*\|\s*(?:"[^"\n]{1,40}"|'[^'\n]{1,40}'))+""")
_ITEM_SPLIT = re.compile(_SEP, re.IGNORECASE)
_EXAMPLE_ASIDE = re.compile(r"(?:\be\.\s?g\.|\bfor example\b|\bsuch as\b).*?(?:\)|$)",
                            re.IGNORECASE | re.DOTALL)
# Words that end a cue's list without being a value ("must be a path or a URL").
_NOT_VALUES = frozenset("a an the this that any some all not both neither nor none".split())


@attrs.frozen
class Finding:
    """One lint finding. ``severity`` is Critical, Warning or Pass."""

    rule: str
    severity: str
    message: str
    tool: str
    suggestion: Optional[str] = None
    argument: Optional[str] = None

    def to_dict(self) -> dict:
        return {"rule": self.rule, "severity": self.severity, "tool": self.tool, "argument": self.argument,
                "message": self.message, "suggestion": self.suggestion}


def _finding(rule: str, tool: str, message: str, suggestion: Optional[str] = None,
             argument: Optional[str] = None) -> Finding:
    return Finding(rule=rule, severity=RULES[rule][0], message=message, tool=tool, suggestion=suggestion,
                   argument=argument)


# --------------------------------------------------------------------------- helpers

def _normal_words(text: str) -> str:
    """Case-folded words of a name or sentence: ``getWeather``, ``get-weather`` and
    ``"Get weather."`` all read ``get weather``."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return " ".join(w.lower() for w in re.findall(r"[A-Za-z0-9]+", text))


def _verb_forms(word: str) -> Iterable[str]:
    yield word
    if word.endswith("ies"):
        yield word[:-3] + "y"
    if word.endswith("es"):
        yield word[:-2]
    if word.endswith("s"):
        yield word[:-1]
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            yield stem
            yield stem + "e"
            if len(stem) > 2 and stem[-1] == stem[-2]:
                yield stem[:-1]
            if suffix == "ed" and stem.endswith("i"):
                yield stem[:-1] + "y"


def has_common_verb(text: str) -> bool:
    """True when some word of ``text`` is a :data:`COMMON_VERBS` verb or an inflection of one."""
    for word in _WORD.findall(text):
        word = word.lower()
        if any(form in COMMON_VERBS for form in _verb_forms(word)):
            return True
    return False


def mentions_return(text: str) -> bool:
    """True when a word starts with return, output or result (DESC-010's keywords)."""
    return _RETURN.search(text) is not None


def _mentions(text: str, value: Any) -> bool:
    if isinstance(value, bool):
        spelled = "true" if value else "false"
    elif value is None:
        spelled = "null"
    else:
        spelled = str(value)
    if not spelled.strip():
        return False
    pattern = r"(?<![\w])" + re.escape(spelled) + r"(?![\w])"
    return re.search(pattern, text, re.IGNORECASE) is not None


def listed_values(text: str) -> list[str]:
    """The closed set of values a description spells out (DESC-013), or ``[]``."""
    text = _EXAMPLE_ASIDE.sub(" ", text)  # "e.g. 'UTC', 'Europe/London'" lists examples, not allowed values
    for match in _ALLOWED_LIST.finditer(text):
        items = [i.strip().strip("\"'`").strip() for i in _ITEM_SPLIT.split(match.group(1))]
        items = [i for i in items if i and i.lower() not in _NOT_VALUES]
        if len(items) >= 2:
            return items
    match = _QUOTED_ALTS.search(text)
    if match:
        return [i.strip().strip("\"'") for i in match.group(0).split("|")]
    return []


def is_plain_string(prop: Mapping) -> bool:
    return prop.get("type") == "string" and not any(k in prop for k in ("enum", "const", "format", "pattern"))


def is_non_trivial(schema: Mapping) -> bool:
    """DESC-009's "non-trivial input schema": more than one property, or a single property
    that is required or not a plain string."""
    props = properties(schema)
    raw = schema.get("properties")
    count = len(raw) if isinstance(raw, dict) else 0
    if count > 1:
        return True
    if count == 1:
        (name, prop), = raw.items()
        return name in required_names(schema) or not isinstance(prop, dict) or not is_plain_string(props[name])
    return False


def _nonempty_list(value: Any) -> bool:
    return isinstance(value, list) and len(value) > 0


def has_examples(tool: Mapping) -> bool:
    """DESC-009's "documented": examples on the tool or its schema, or a property with
    ``examples``, ``example`` or ``default``."""
    schema = input_schema(tool)
    if _nonempty_list(tool.get("examples")) or _nonempty_list(schema.get("examples")):
        return True
    for prop in properties(schema).values():
        if _nonempty_list(prop.get("examples")) or "example" in prop or "default" in prop:
            return True
    return False


# --------------------------------------------------------------------------- the rules

def lint_tool(tool: Mapping) -> tuple[Finding, ...]:
    """Every DESC finding for one tool, in rule order; one ``DESC-000`` Pass when none fires."""
    name = tool_name(tool)
    desc = tool_description(tool).strip()
    schema = input_schema(tool)
    props = properties(schema)
    required = required_names(schema)
    out: list[Finding] = []

    if len(desc) < MIN_CHARS:
        what = "is empty" if not desc else f"is {len(desc)} characters, under {MIN_CHARS}"
        out.append(_finding("DESC-001", name, f"the description {what}",
                            "say what the tool does, to what, and what it returns, in one or two sentences"))
    if len(desc) > MAX_CHARS:
        out.append(_finding("DESC-002", name, f"the description is {len(desc)} characters, over {MAX_CHARS}",
                            "move argument rules into inputSchema (enum, pattern, maxLength) and keep the "
                            "description to what the tool does and returns"))
    if desc and name and _normal_words(desc) == _normal_words(name):
        out.append(_finding("DESC-003", name, f"the description {desc!r} only repeats the tool name",
                            "describe the action, its object and the result instead of restating the name"))
    if desc and not has_common_verb(desc):
        out.append(_finding("DESC-004", name, "the description contains no common verb",
                            "start with what the tool does: 'Search ...', 'Create ...', 'Return ...'"))
    match = _POSITIONAL.search(desc)
    if match:
        out.append(_finding("DESC-005", name, f"the description says {match.group(0)!r}, which means nothing "
                            "in a flat catalog", "name the other tool or repeat the information"))

    for arg in required:
        if not prop_description(props.get(arg, {})):
            out.append(_finding("DESC-006", name, f"required argument {arg!r} has no description",
                                f"describe what {arg!r} is and which values it accepts", arg))
    for arg, prop in props.items():
        text = prop_description(prop)
        enum = prop.get("enum")
        if text and isinstance(enum, list) and enum:
            missing = [v for v in enum if not _mentions(text, v)]
            if missing:
                shown = ", ".join(str(v) for v in missing[:8]) + (", ..." if len(missing) > 8 else "")
                out.append(_finding("DESC-007", name, f"argument {arg!r} has an enum but its description does not "
                                    f"mention {shown}", "say what each allowed value means", arg))
    for arg, prop in props.items():
        text = prop_description(prop)
        if len(text) > len(desc):
            out.append(_finding("DESC-008", name, f"argument {arg!r}'s description ({len(text)} chars) is longer "
                                f"than the tool's ({len(desc)} chars)",
                                "put the tool's purpose in the tool description and keep argument text short", arg))
    if is_non_trivial(schema) and not has_examples(tool):
        out.append(_finding("DESC-009", name, "the input schema is non-trivial but the tool provides no examples",
                            "add an 'examples' array, or 'examples'/'default' on the arguments"))
    if desc and not mentions_return(desc) and not has_output_schema(tool):
        out.append(_finding("DESC-010", name, "the description never says what the tool returns",
                            "add what comes back, e.g. 'Returns a list of order objects with id and status', "
                            "or declare an outputSchema"))
    annotations = tool.get("annotations")
    if isinstance(annotations, dict):
        for hint in ANNOTATION_HINTS:
            if hint in annotations and not isinstance(annotations[hint], bool):
                out.append(_finding("DESC-011", name, f"annotations.{hint} is {annotations[hint]!r}, not a boolean",
                                    f"set {hint} to true or false"))
    else:
        what = "no annotations object" if annotations is None else \
            f"annotations that is not an object ({type(annotations).__name__})"
        out.append(_finding("DESC-012", name, f"the tool declares {what}",
                            "declare annotations with readOnlyHint, destructiveHint, idempotentHint and openWorldHint"))
    for arg, prop in props.items():
        types = type_names(prop)
        if "enum" in prop or (types and "string" not in types):
            continue
        # "provide either text or regex, not both" names sibling arguments, not values
        values = [v for v in listed_values(prop_description(prop)) if v not in props]
        if len(values) >= 2:
            out.append(_finding("DESC-013", name, f"argument {arg!r} lists allowed values "
                                f"({', '.join(values[:8])}) in its description but declares no enum",
                                f"add \"enum\": {values[:8]!r} to the schema".replace("'", '"'), arg))

    if not out:
        out.append(Finding(rule=PASS_RULE, severity=PASS, message="no description rule fired", tool=name))
    return tuple(out)


def lint_catalog(catalog: Any) -> tuple[Finding, ...]:
    """Every tool's findings, tool by tool in catalog order (see :func:`lint_tool`)."""
    return tuple(f for tool in catalog_tools(catalog) for f in lint_tool(tool))
