"""The suite model: validated, frozen objects, each remembering its file and line.

The pytest layer and the CLI only ever see these; the engine's own rule types
(``WorldSpec`` and friends) sit inside them, free of any file format.
"""

from __future__ import annotations

import re
from typing import Optional

import attrs

from ..engine.conversation import ConversationSpec
from ..engine.golden import GoldenOracle
from ..engine.trace_match import ExpectedTrace
from ..engine.world import WorldSpec
from ..expect import Expectation

@attrs.frozen
class Mark:
    """A pytest mark to put on the item: its name, positional and keyword arguments."""

    name: str
    args: tuple = ()
    kwargs: dict = attrs.field(factory=dict)


@attrs.frozen
class Block:
    """One item-producing block of a suite: a scenario, an agent test, ..."""

    kind: str
    name: str
    file: str
    line: int
    marks: tuple[Mark, ...] = ()
    tags: tuple[str, ...] = ()
    cassette: Optional[str] = None
    expect: tuple[Expectation, ...] = ()

    @property
    def cassette_slug(self) -> str:
        """The default cassette file name: the block's name, slugged, plus ``.json``."""
        return slugify(self.name) + ".json"


@attrs.frozen
class ScenarioBlock(Block):
    """A scenario world (spec 000)."""

    world: WorldSpec = attrs.field(factory=WorldSpec)


@attrs.frozen
class ClassGate:
    """``equal_function_sets:`` or ``token_efficiency:``: the classes and the gate's own
    ``expect:`` (spec 001's default already applied when it was empty or omitted)."""

    classes: tuple = ()  # engine FunctionClass values
    expect: tuple[Expectation, ...] = ()


@attrs.frozen
class SelectionFloor:
    """``tool_selection:``: the pass^k floor over every run of the cassette (spec 001)."""

    expected_tool: str
    min_selection_rate: float
    max_total_tokens: Optional[int] = None


@attrs.frozen
class OrchestrationGate:
    """``orchestration:``: the five diagnostics' ``expect:`` (classes come from
    ``equal_function_sets:``, else ``token_efficiency:``)."""

    expect: tuple[Expectation, ...] = ()


@attrs.frozen
class AgentBlock(Block):
    """An agent test (spec 001/004): a recorded agent run gated on its calls and path."""

    model: Optional[str] = None
    prompt: Optional[str] = None
    servers: tuple[str, ...] = ()
    trace: Optional[ExpectedTrace] = None
    golden: Optional[GoldenOracle] = None
    unsupported: tuple[str, ...] = ()  # gates declared here that a later version evaluates
    # Gates over all runs of the cassette, evaluated once per item (None: not declared).
    equal_function_sets: Optional[ClassGate] = None
    tool_selection: Optional[SelectionFloor] = None
    orchestration: Optional[OrchestrationGate] = None
    token_efficiency: Optional[ClassGate] = None
    discovery: dict = attrs.field(factory=dict)  # {name_free: bool}: metadata, judged via the classes

    @property
    def has_aggregates(self) -> bool:
        return any(g is not None for g in (self.equal_function_sets, self.tool_selection,
                                            self.orchestration, self.token_efficiency))

    @property
    def classes(self) -> tuple:
        """The declared equal-function classes (orchestration's discovery and efficiency read them)."""
        for gate in (self.equal_function_sets, self.token_efficiency):
            if gate is not None:
                return gate.classes
        return ()


@attrs.frozen
class DistractorsBlock(Block):
    """An agent's ``distractors:`` block, its own item ``<agent> [distractors]`` (spec 001):
    the agent's cassette scored over every run against injected look-alike tools."""

    agent: str = ""
    servers: tuple[str, ...] = ()  # the agent's declared servers (whose catalog tools are the real ones)
    count: int = 0
    source: str = "catalog"  # catalog | near_duplicate
    of: tuple[str, ...] = ()
    correct: tuple[str, ...] = ()
    complexity: Optional[str] = None


@attrs.frozen
class ConversationBlock(Block):
    """An MCProbe-shaped conversation scenario (spec 002), with spec 002's defaults applied."""

    description: str = ""
    spec: ConversationSpec = attrs.field(factory=ConversationSpec)
    synthetic_user: dict = attrs.field(factory=dict)
    config: dict = attrs.field(factory=dict)


@attrs.frozen
class ToolQualityBlock(Block):
    """A ``tool_quality:`` entry: a server's catalog scored and linted (spec 001)."""

    server: str = ""
    source: dict = attrs.field(factory=dict)  # {"catalog": path} or {"command": [...], ...}


@attrs.frozen
class ToolBenchBlock(Block):
    """A ``tool_bench:`` entry: does each description carry the selection signal (spec 001)."""

    catalog: object = None  # inline tools/list, or None with catalog_path
    catalog_path: Optional[str] = None
    intents: tuple = ()
    mutations: tuple = ()
    min_drop: Optional[float] = None


@attrs.frozen
class Suite:
    """One suite file: every block of every document, in written order."""

    path: str
    blocks: tuple[Block, ...]
    servers: dict = attrs.field(factory=dict)


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug or "unnamed"
