"""``python -m pytest_mcptest``: the ``mcptest`` command, for when its script is not on PATH
(a server command in a suite can name ``sys.executable`` and this module)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
