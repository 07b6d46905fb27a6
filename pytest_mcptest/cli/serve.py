"""``mcptest serve``: a recorded session played back as an MCP server, or a scenario's world
served (``SUITE::SCENARIO``), over stdio or Streamable HTTP."""

from __future__ import annotations

import sys

from .common import EXIT_USAGE


def add_parser(sub) -> None:
    srv = sub.add_parser("serve", help="play a recorded session back as an MCP server (stdio, or --http); "
                         "SUITE.mcptest.yml::SCENARIO serves the scenario's world")
    srv.add_argument("cassette", metavar="CASSETTE | SUITE::SCENARIO")
    srv.add_argument("--run", type=int, metavar="N", help="which run to play (from 1; default: the last)")
    srv.add_argument("--match", choices=["args", "name", "strict-order"], default="args",
                     help="how a tools/call finds its recorded answer (default: args, the name and arguments)")
    srv.add_argument("--ignore-arg", action="append", metavar="PATH",
                     help="an argument left out of matching, e.g. filters.date (repeatable)")
    srv.add_argument("--http", metavar="HOST:PORT", help="serve Streamable HTTP at http://HOST:PORT/mcp")
    srv.add_argument("--fault", metavar="SPEC", default="none",
                     help="on tools/call, as mcptest mock: none | hang | slow:<ms> | recover-after:<n>")
    srv.add_argument("--record", metavar="CASSETTE", help="SUITE::SCENARIO only: write each session as a run "
                     "of CASSETTE (a new file), after every call")
    srv.set_defaults(func=run)


def run(args) -> int:
    """Play a recorded session back as an MCP server, or serve a scenario's world when the
    argument is ``SUITE::SCENARIO`` (exit 2 for bad input)."""
    world = "::" in args.cassette
    given = [o for o, v in (("--run", args.run), ("--match", args.match != "args"), ("--ignore-arg", args.ignore_arg))
             if v] if world else (["--record"] if args.record else [])
    if given:
        print(f"mcptest serve: error: {', '.join(given)} " + ("applies to a recording, not to a world (SUITE::SCENARIO)"
              if world else "applies to a world (SUITE::SCENARIO), not to a recording"), file=sys.stderr)
        return EXIT_USAGE
    if not world and args.cassette.endswith((".yml", ".yaml")):  # a suite where a cassette goes: name a scenario
        from ..errors import InputError, start_failure
        from ..gates.world_server import name_a_scenario

        try:
            problem: Exception = name_a_scenario(args.cassette)
        except (InputError, OSError) as exc:
            problem = exc
        print(start_failure("mcptest serve", args.cassette, problem), file=sys.stderr)
        return EXIT_USAGE
    if world:
        from ..gates.world_server import run as serve_world

        return serve_world(args.cassette, args.http, args.fault, args.record)
    from ..mcp.replay_server import run

    return run(args.cassette, args.run, args.match, tuple(args.ignore_arg or ()), args.http, args.fault)
