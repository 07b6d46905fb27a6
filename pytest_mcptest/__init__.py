"""pytest_mcptest: replay recorded MCP agent runs (cassettes) and gate them offline.

The public API is the engine's pure functions and their result types, plus the
loaders that turn files into the objects they take. The pytest plugin lives in
:mod:`pytest_mcptest.plugin` and the ``mcptest`` command in :mod:`pytest_mcptest.cli`.
Names are imported on first use, so that loading the plugin into a session without
suites costs next to nothing.

PYTEST_DONT_REWRITE: the ``mcptest`` command imports this package before it starts
pytest, and the plugin relies on no assert statement.
"""

from importlib import import_module

__version__ = "0.1.0"

_EXPORTS = {
    "Cassette": "formats.cassette", "load_cassette": "formats.cassette", "parse_cassette": "formats.cassette",
    "GoldenPath": "engine.golden", "PathScore": "engine.golden", "score_golden_path": "engine.golden",
    "Run": "engine.trace", "ToolCall": "engine.trace",
    "ExpectedCall": "engine.trace_match", "ExpectedTrace": "engine.trace_match", "TraceMismatch": "engine.trace_match",
    "TraceValidation": "engine.trace_match", "validate_trace": "engine.trace_match",
    "MalformedSchema": "engine.matching",
    "pass_hat_k": "engine.passk", "pass_hat_k_curve": "engine.passk", "selection_f1": "engine.selection",
    "clopper_pearson_lower": "engine.stats", "wilson_interval": "engine.stats",
    "Effect": "engine.world", "ForbiddenRule": "engine.world", "Guard": "engine.world",
    "Transition": "engine.world", "WorldResult": "engine.world", "WorldSpec": "engine.world",
    "replay_world": "engine.world",
    "InputError": "errors", "Recorder": "record.recorder", "RecordingError": "errors",
    "Context": "gates.context", "Verdict": "engine.verdict", "evaluate": "gates.evaluate",
    "check": "engine.expect", "compile_expectation": "engine.expect",
    "load_suite": "gates.suite_build",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_mcptest' has no attribute {name!r}")
    # Looked up at each ask, not kept in this module's globals: pytester's in-process runs drop
    # the modules a run imported, and a class kept from one run would be a stale one in the next.
    return getattr(import_module(f"pytest_mcptest.{module}"), name)


def __dir__():
    return sorted(list(globals()) + __all__)
