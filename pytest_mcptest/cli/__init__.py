"""The ``mcptest`` command: one module per command, each with ``add_parser(sub)`` and ``run(args)``
over the same model, engine and expect as the pytest items. Exit status: 0 all passed, 1 a gate
failed, 2 bad input or usage (the reason on stderr).

Only the named command's module is imported to build the parser (every one for ``--help``
or a name that is no command), and what a command runs (pytest, the proxy, a server, the
SDK) only when it runs: ``mcptest record`` and ``mcptest serve`` are started by a host that
waits for their first answer, and a ``mcptest run`` session should cost what ``pytest`` does.
"""

from __future__ import annotations

import importlib
import sys
from typing import Optional, Sequence

from .common import Parser

# Each command's name and its module, in the order ``mcptest --help`` lists them (``scenario``
# is added by ``run``'s module).
COMMANDS = {"run": "run", "scenario": "run", "doctor": "doctor", "tool-bench": "tool_bench", "report": "report",
            "power": "power", "mock": "mock", "record": "record", "serve": "serve", "verify": "verify",
            "import": "import_log", "init": "init", "conformance": "conformance", "probe": "probe",
            "judge": "judge"}


def _command(module: str):
    return importlib.import_module(f"{__name__}.{module}")


def build_parser(command: Optional[str] = None) -> Parser:
    """The parser of every command, or of ``command`` alone when it names one."""
    from .. import __version__

    parser = Parser(prog="mcptest", description="Replay recorded MCP agent runs and gate them offline.")
    parser.add_argument("--version", action="version", version=f"mcptest {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    modules = [COMMANDS[command]] if command in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for module in modules:
        _command(module).add_parser(sub)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] == ["report", "merge"]:
        return _command("report").merge(argv[2:])
    command: list[str] = []
    if argv[:1] == ["verify"] and "--" in argv:  # options may come after CASSETTE, the command after --
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1:]
    parser = build_parser(argv[0] if argv else None)
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
