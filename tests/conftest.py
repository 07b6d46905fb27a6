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
    """The heavy libraries the plugin imports only when a run needs them (the model SDKs to
    record live, matplotlib to draw an HTML report), imported once into this process.

    pytester drops from ``sys.modules`` every module first imported while a test (and each
    in-process run) ran, so without this every inner run that records or writes HTML would
    import them again: about 3 s for ``openai`` and ``anthropic``, 1.5 s for matplotlib.
    A session fixture is set up before ``pytester`` takes its snapshot, so the import stays.
    Neither holds state a run could leave behind: the plugin builds a new SDK client per
    model and draws on a new matplotlib ``Figure`` inside ``rc_context``."""
    import anthropic  # noqa: F401
    import matplotlib.figure  # noqa: F401
    import openai  # noqa: F401
    from matplotlib.backends import backend_svg  # noqa: F401


@pytest.fixture
def pytester(pytester, lazy_libraries):
    """pytester, with :func:`lazy_libraries` loaded before its snapshot of ``sys.modules``."""
    return pytester
