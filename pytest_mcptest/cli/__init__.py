"""The ``mcptest`` command: one module per command, each with ``add_parser(sub)`` and ``run(args)``
over the same model, engine and expect as the pytest items. Exit status: 0 all passed, 1 a gate
failed, 2 bad input or usage (the reason on stderr).

A command's module is imported to build the parser; what it runs (pytest, the proxy, a server,
the SDK) is imported only when it runs, so ``mcptest record`` starts a host's server at once.
"""

from __future__ import annotations

import sys
from typing import Optional, Sequence

from . import (conformance, doctor, import_log, init, judge, mock, power, probe, record, report, run, serve, tool_bench,
               verify)
from .common import Parser

COMMANDS = (run, doctor, tool_bench, report, power, mock, record, serve, verify, import_log, init, conformance, probe,
            judge)


def build_parser() -> Parser:
    from .. import __version__

    parser = Parser(prog="mcptest", description="Replay recorded MCP agent runs and gate them offline.")
    parser.add_argument("--version", action="version", version=f"mcptest {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] == ["report", "merge"]:
        return report.merge(argv[2:])
    command: list[str] = []
    if argv[:1] == ["verify"] and "--" in argv:  # options may come after CASSETTE, the command after --
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1:]
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if args.command != "run" and rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if "--" in rest:  # options after a lone -- are pytest's too
        rest.remove("--")
    args.pytest_args = rest
    if command:
        args.server_command = command
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
