"""The ``mcptest_recorder`` fixture and the ``mcptest_cassette`` marker.

Registered by the plugin at configure time; it imports neither ``mcp`` nor the recorder
until a test asks for the fixture.

The cassette is, first that applies: ``mcptest_recorder.use(path)`` in the test,
``@pytest.mark.mcptest_cassette("path", runs=N, run=I)`` (relative to the test file's folder), else
``<--cassette-dir or ini mcptest_cassette_dir or the test file's folder>/<slug of the test
name>.json``. The record mode is ``--mcptest-record-mode`` (default ``none``: replay only).

The run is written at teardown when the test body finished, passed or failed on an
assertion; a test that broke off with another exception (the agent loop crashed) or was
interrupted leaves the cassette as it was.
"""

from __future__ import annotations

import os

import pytest

MARKER = "mcptest_cassette(path=None, *, runs=None, run=0): the cassette the mcptest_recorder fixture uses"
_OUTCOME = pytest.StashKey[tuple]()


def _settings(config) -> dict:
    from .stash import CONTEXT_KEY

    ctx = config.stash.get(CONTEXT_KEY, None)
    return ctx._asdict() if ctx is not None else {}


def default_path(request) -> str:
    from ..suite.model import slugify

    settings = _settings(request.config)
    folder = settings.get("cassette_dir") or os.path.dirname(str(request.node.path))
    return os.path.join(folder, slugify(request.node.name) + ".json")


@pytest.fixture
def mcptest_recorder(request):
    """Record (or replay) the MCP calls of your own agent loop: ``session = mcptest_recorder.wrap(session,
    server="shop")``, then ``mcptest_recorder.final_response(text)`` and ``.tokens(input=..., output=...)``."""
    from ..record.recorder import Recorder

    marker = request.node.get_closest_marker("mcptest_cassette")
    path, runs, run = default_path(request), None, 0
    if marker is not None:
        given = marker.args[0] if marker.args else marker.kwargs.get("path")
        if given:
            path = os.path.join(os.path.dirname(str(request.node.path)), given)
        runs, run = marker.kwargs.get("runs"), marker.kwargs.get("run", 0)
    settings = _settings(request.config)

    def fail(message: str):
        pytest.fail(message, pytrace=False)

    try:
        recorder = Recorder(path, mode=settings.get("record_mode", "none"), runs=runs, run=run,
                            redact=settings.get("redact", ()), fail=fail)
    except ValueError as exc:
        pytest.fail(f"mcptest_recorder: {exc}", pytrace=False)
    yield recorder
    outcome = request.node.stash.get(_OUTCOME, None)
    drift = settings.get("drift", "warn")
    if outcome is not None and outcome[0] and drift != "ignore":  # as docs/recording.md promises
        changed = recorder.drift(request.node.nodeid)
        if changed and drift == "fail":
            pytest.fail(f"mcptest_recorder: {changed}", pytrace=False)
        if changed:
            request.node.warn(pytest.PytestWarning(f"mcptest_recorder: {changed}"))
    if outcome is not None and outcome[0] and recorder._decision is not None:
        try:
            written = recorder.save()
        except Exception as exc:  # noqa: BLE001 - a failed write is reported, the old cassette stays
            pytest.fail(f"mcptest_recorder: {path}: not written ({exc}); the old cassette is unchanged", pytrace=False)
        if written:
            request.node.add_report_section("teardown", "mcptest", f"recorded {written}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Remember whether the test body finished (passed, or failed on an assertion)."""
    report = yield
    if call.when == "call":
        finished = call.excinfo is None or call.excinfo.errisinstance(AssertionError)
        item.stash[_OUTCOME] = (finished,)
    return report


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", MARKER)
