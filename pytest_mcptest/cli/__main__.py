"""``python -m pytest_mcptest.cli``: the ``mcptest`` command, as ``python -m pytest_mcptest`` is
(suites written before the command became a package name this module in their server commands)."""

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
