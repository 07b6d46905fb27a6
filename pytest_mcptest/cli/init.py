"""``mcptest init CASSETTE``: a starting suite written from what a cassette recorded."""

from __future__ import annotations

def add_parser(sub) -> None:
    init = sub.add_parser("init", help="write a starting suite from what a cassette recorded")
    init.add_argument("cassette", metavar="CASSETTE", help="the cassette to start from")
    init.add_argument("--kind", choices=["agent", "scenario"], help="the block to write (default: scenario when "
                      "the cassette was recorded for a scenario, else agent)")
    init.add_argument("-o", "--output", metavar="SUITE", help="write the suite there (default: print it)")
    init.add_argument("--force", action="store_true", help="overwrite SUITE if it exists")
    init.set_defaults(func=run)


def run(args) -> int:
    """Write a starting suite from a cassette (``init_suite.py``)."""
    from ..authoring.init_suite import command

    return command(args.cassette, args.kind, args.output, args.force)
