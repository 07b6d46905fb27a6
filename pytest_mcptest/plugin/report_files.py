"""The report files a pytest session writes when it ends, on the controller only:
``--mcptest-report`` (JSON), ``--mcptest-html`` and ``--mcptest-markdown``, each from the same
report document and, with ``--mcptest-compare``, the comparison with its baseline."""

from __future__ import annotations

import os
import sys
from typing import Optional

import pytest


def _json(path: str, report: dict, comparison: Optional[dict], baseline: str) -> None:
    from ..report.document import write_report

    write_report(path, report)


def _html(path: str, report: dict, comparison: Optional[dict], baseline: str) -> None:
    from ..report.html import write_html

    write_html(path, report, comparison, baseline)


def _markdown(path: str, report: dict, comparison: Optional[dict], baseline: str) -> None:
    from ..report.markdown import write_markdown

    write_markdown(path, report, comparison, baseline)


# (option, its dest, its writer), in the order they are written
OUTPUTS = (("--mcptest-report", "mcptest_report", _json), ("--mcptest-html", "mcptest_html", _html),
           ("--mcptest-markdown", "mcptest_markdown", _markdown))


def write_session_reports(config: pytest.Config, session: pytest.Session, report: dict,
                          comparison: Optional[dict]) -> None:
    """Write every report file the session's options ask for. A disk that filled up during
    the session is said in one line and the session fails (exit 2), never a traceback or a
    green run without its report."""
    compare = config.getoption("mcptest_compare")
    baseline = os.path.basename(compare) if compare else ""
    for flag, dest, write in OUTPUTS:
        given = config.getoption(dest)
        if not given:
            continue
        path = os.path.join(str(config.invocation_params.dir), given)
        try:
            write(path, report, comparison, baseline)
        except OSError as exc:
            sys.stderr.write(f"mcptest: {flag} {path}: not written: {exc.strerror or exc}\n")
            session.exitstatus = pytest.ExitCode.INTERRUPTED
