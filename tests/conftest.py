"""Test-session setup.

pytester's in-process runs restore ``sys.modules`` afterwards, so a module first
imported inside an inner run is dropped again. numpy and pandas (under statsmodels)
refuse to be loaded twice in one process, so they are imported once, at the session's
configuration, before any inner run can be the first to import them.

The ``mcp`` SDK's ``stdio_client`` binds ``sys.stderr`` as its default ``errlog`` when it
is imported; imported first inside an inner run (the recorder fixture's tests), it would
keep that run's capture file, closed afterwards, and every later server start in this
process would fail. Imported at the configuration, it binds the session's own stderr.

Under xdist (the README's ``-n auto``) the controller runs no test and imports neither: its
workers are forked from a fork server that imported them, and the model SDKs and matplotlib
(:func:`lazy_libraries`), once for all of them (``forkserver.xdist_workers_forked``).
"""

import gc
import importlib
import os
import sys
import tempfile


def _bytecode_outside_the_tree() -> None:
    """Where the environment forbids writing bytecode (``PYTHONDONTWRITEBYTECODE``, as this
    project's CI machines set it), let this session and every Python it starts write it, but
    under a folder of the temporary directory (``PYTHONPYCACHEPREFIX``), never beside the sources.

    Each ``pytest`` the tests start (about 80: pytester's subprocess runs, xdist's workers,
    the examples) otherwise parses, rewrites the assertions of and compiles again every
    module of every installed pytest plugin (xdist, hypothesis, anyio, this one): 1.5 s of CPU
    each, measured, about 40 s of a fresh clone's run on 2 cores. The tests that are about
    bytecode set the variable themselves (plugin/test_plugin.py, gates/test_cache.py)."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return
    user = os.getuid() if hasattr(os, "getuid") else "user"
    prefix = os.environ.setdefault("PYTHONPYCACHEPREFIX", os.path.join(tempfile.gettempdir(), f"mcptest-tests-bytecode-{user}"))
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    sys.pycache_prefix = prefix
    sys.dont_write_bytecode = False


_bytecode_outside_the_tree()

from forkserver import plugin_servers_forked, xdist_workers_forked  # noqa: E402
import metadata_cache  # noqa: E402
from reports_of_examples import docs_example_reports, example_reports  # noqa: E402,F401  (session fixtures)

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# What every pytest reads of the installed distributions, parsed once in this process and kept
# (tests/metadata_cache.py): each of pytester's in-process sessions reads it all again.
metadata_cache.install()

# `pytest tests/engine --hypothesis-profile=dev`: a tenth of each property test's examples
# (tests/hypothesis_budget.py), for an answer in seconds while working; CI runs the default.
settings.register_profile("dev", max_examples=10)

# What every test process imports before its first test (see above).
BEFORE_ANY_TEST = ("mcp.client.stdio", "statsmodels.stats.proportion")
# What each xdist worker loads anyway, at its first test (hypothesis's engine, scipy's
# distributions for the statistics' reference values, :func:`lazy_libraries`'s SDKs and
# matplotlib): imported once in the fork server the workers are forked from.
WORKERS_LOAD = ("hypothesis.strategies", "scipy.stats", "openai", "anthropic", "matplotlib.figure",
                "matplotlib.backends.backend_svg")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    if _starts_xdist_workers(config):
        xdist_workers_forked(BEFORE_ANY_TEST + WORKERS_LOAD)
        return
    for name in BEFORE_ANY_TEST:
        importlib.import_module(name)


def _starts_xdist_workers(config) -> bool:
    """Whether this process is the controller of an xdist run (xdist's own test for it:
    a distribution mode and workers to start), not a worker or a plain session."""
    return (not hasattr(config, "workerinput") and not config.getoption("collectonly")
            and config.getoption("dist", "no") != "no" and bool(config.getoption("tx", None)))


def _freeze_what_is_built() -> None:
    """Leave every object alive now out of the garbage collector's full passes (``gc.freeze``).

    A test process holds a large heap that lives until its end: the SDK, numpy and scipy,
    hypothesis, pytest's and xdist's thousands of collected items, the session fixtures.
    Python's automatic full collections walk all of it, again and again (0.2-0.3 s each on
    this suite's workers: 11 s of a worker's 75 s of CPU over tests/engine, formats and suite,
    measured). Frozen, they walk only what tests make; garbage a test makes is collected as
    before. Collected once first, so no garbage is frozen."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session):
    _freeze_what_is_built()  # after collection: the items live as long as the session
    return (yield)


@pytest.fixture
def gc_unfrozen():
    """The garbage collector as a fresh process has it (nothing frozen) for a test that
    looks at it in this process; frozen again afterwards."""
    gc.unfreeze()
    try:
        yield
    finally:
        _freeze_what_is_built()


@pytest.fixture(scope="session")
def lazy_libraries():
    """The heavy libraries the plugin imports only when a run needs them (the model SDKs and
    their HTTP stack to record live, matplotlib to draw an HTML report), loaded once into
    this process.

    pytester drops from ``sys.modules`` every module first imported while a test (and each
    in-process run) ran, so without this every inner run that records or writes HTML would
    import them again: about 3 s for ``openai`` and ``anthropic``, 1.5 s for matplotlib.
    Importing a package is not enough: the SDKs import their HTTP transport (httpcore2,
    h11, anyio's backend) and API resources on the first request, and a transport module
    dropped and imported anew holds new exception classes the SDK no longer recognises (a
    timeout came out as a bare ``ReadTimeout``). So one request of each kind the live tests
    make is sent to a loopback fake here, before any test's snapshot. A session fixture is
    set up before ``pytester`` takes its snapshot, so all of it stays. Neither holds state
    a run could leave behind: the plugin builds a new SDK client per model and draws on a
    new matplotlib ``Figure`` inside ``rc_context``."""
    from importlib.util import find_spec

    from live_fake import ANTHROPIC_KEY, OPENAI_KEY, FakeProvider, reply
    from pytest_mcptest.live.runner import AgentTask, record_agent

    if find_spec("matplotlib"):  # without it (or an SDK) only the tests that need it fail, as they would anyway
        import matplotlib.figure  # noqa: F401
        from matplotlib.backends import backend_svg  # noqa: F401
    with FakeProvider(lambda seen: reply(seen, text="ok")) as fake, pytest.MonkeyPatch.context() as env:
        env.setenv("OPENAI_API_KEY", OPENAI_KEY)
        env.setenv("OPENAI_BASE_URL", fake.url + "/v1")
        env.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
        env.setenv("ANTHROPIC_BASE_URL", fake.url)
        env.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
        kinds = [("openai", "openai:gpt-4o-mini", False), ("openai", "openai:gpt-4o-mini", True),
                 ("openai", "openai-responses:gpt-4o-mini", False), ("openai", "openai-responses:gpt-4o-mini", True),
                 ("anthropic", "anthropic:claude-haiku-4-5", False)]
        for sdk, model, stream in kinds:
            if find_spec(sdk):
                provider = model.partition(":")[0]
                record_agent(AgentTask(model=model, prompt="hi"), models={provider: {"stream": stream}})
    _freeze_what_is_built()  # what was just loaded lives as long as the session


@pytest.fixture
def servers_forked(monkeypatch):
    """The servers the plugin starts in this process (``mcptest serve``, ``mcptest mock``)
    started through the fork server (``forkserver.plugin_servers_forked``), for this test."""
    plugin_servers_forked(monkeypatch)


@pytest.fixture
def pytester(pytester, lazy_libraries):
    """pytester, with :func:`lazy_libraries` loaded before its snapshot of ``sys.modules``."""
    return pytester
