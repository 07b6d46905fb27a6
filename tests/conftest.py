"""Test-session setup.

pytester's in-process runs restore ``sys.modules`` afterwards, so a module first
imported inside an inner run is dropped again. numpy and pandas (under statsmodels)
refuse to be loaded twice in one process, so they are imported here, once, before any
inner run can be the first to import them.

The ``mcp`` SDK's ``stdio_client`` binds ``sys.stderr`` as its default ``errlog`` when it
is imported; imported first inside an inner run (the recorder fixture's tests), it would
keep that run's capture file, closed afterwards, and every later server start in this
process would fail. Imported here, it binds the session's own stderr.
"""

import mcp.client.stdio  # noqa: F401
import statsmodels.stats.proportion  # noqa: F401
from reports_of_examples import example_reports  # noqa: E402,F401  (a session fixture for the report tests)

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# `pytest tests/unit --hypothesis-profile=dev`: a tenth of each property test's examples
# (tests/hypothesis_budget.py), for an answer in seconds while working; CI runs the default.
settings.register_profile("dev", max_examples=10)


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


@pytest.fixture
def pytester(pytester, lazy_libraries):
    """pytester, with :func:`lazy_libraries` loaded before its snapshot of ``sys.modules``."""
    return pytester
