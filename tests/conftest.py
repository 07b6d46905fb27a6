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

from hypothesis import settings  # noqa: E402

# `pytest tests/unit --hypothesis-profile=dev`: a tenth of each property test's examples
# (tests/hypothesis_budget.py), for an answer in seconds while working; CI runs the default.
settings.register_profile("dev", max_examples=10)
