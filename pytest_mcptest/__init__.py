"""pytest_mcptest: replay recorded MCP agent runs (cassettes) and gate them offline.

The public API is the engine's pure functions and their result types, plus the
loaders that turn files into the objects they take. The pytest plugin lives in
:mod:`pytest_mcptest.plugin` and the ``mcptest`` command in :mod:`pytest_mcptest.cli`.
"""

from .cassette import Cassette, load_cassette, parse_cassette
from .engine.golden import GoldenPath, PathScore, score_golden_path
from .engine.trace import Run, ToolCall
from .engine.world import Effect, ForbiddenRule, Guard, Transition, WorldResult, WorldSpec, replay_world
from .errors import InputError
from .evaluate import Context, Verdict, evaluate
from .expect import check, compile_expectation
from .suite.build import load_suite

__version__ = "0.1.0"

__all__ = [
    "Cassette", "Context", "Effect", "ForbiddenRule", "GoldenPath", "Guard", "InputError", "PathScore",
    "Run", "ToolCall", "Transition", "Verdict", "WorldResult", "WorldSpec", "check", "compile_expectation",
    "evaluate", "load_cassette", "load_suite", "parse_cassette", "replay_world", "score_golden_path",
]
