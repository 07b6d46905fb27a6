"""What every ``mcptest`` command shares: the exit statuses, the parser that keeps them, the
check on a path to write, and judging one block as its pytest item would (the numbers options
take are ``option_types.py``'s, shared with the pytest options)."""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import InputError  # noqa: F401  (re-exported for the commands' except clauses)

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own exit code is 2 too; keep its text
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def cassette_path_problem(path: str) -> str:
    """Why a cassette cannot be written at ``path`` (a directory there, or a file where a
    folder above it should be), as one line; empty when it can. ``import`` and ``record``
    both write one."""
    from ..formats.files import file_above

    if os.path.isdir(path):
        return f"{path}: is a directory; name the cassette file to write"
    under = file_above(path)
    return f"{path}: cannot be written, {under} is a file, not a folder" if under is not None else ""


def judge(block, as_json: bool, describe) -> int:
    """Judge one block exactly as its pytest item would (the same evaluate() and the same
    failure text), then print it (:func:`print_verdict`)."""
    from ..gates.context import Context
    from ..gates.evaluate import evaluate

    return print_verdict(block, evaluate(block, Context(root=os.getcwd())), as_json, describe)


def print_verdict(block, verdict, as_json: bool, describe) -> int:
    """A judged block's ``describe(envelope)`` lines and failure text, or the JSON report of
    that one item. A recording that could not be had is bad input (exit 2)."""
    from ..report.document import build_report, dumps, item_entry
    from ..report.render import render_verdict
    from ..text import json_printable, printable

    if verdict.problems:  # what was to be judged could not be read: the reason, nothing else
        for problem in verdict.problems:
            print(printable(problem.message), file=sys.stderr)
        return EXIT_USAGE
    if as_json:
        entry = item_entry(f"{block.file}::{block.name}", block, verdict)
        entry["outcome"] = "passed" if verdict.passed else "failed"
        sys.stdout.write(json_printable(dumps(build_report([entry], {}))))
    else:
        for line in describe(verdict.envelope):
            print(printable(line))  # tool names and descriptions come from a server: escaped
        if not verdict.passed:
            print(render_verdict(verdict))
    return EXIT_OK if verdict.passed else EXIT_FAILED
