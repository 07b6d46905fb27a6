"""``mcptest record --out CASSETTE -- COMMAND``: a proxy between an MCP host and its server that
writes the session as a cassette run."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from ..errors import InputError
from ..option_types import seconds
from .common import EXIT_USAGE, cassette_path_problem


def add_parser(sub) -> None:
    rec = sub.add_parser("record", help="proxy an MCP stdio server and record the session as a cassette run")
    rec.add_argument("--out", required=True, metavar="CASSETTE", help="the cassette to write")
    rec.add_argument("--server-name", metavar="NAME", help="the server's name in the cassette "
                     "(default: the name it gives at initialize)")
    rec.add_argument("--append", action="store_true", help="add this session as a new run to CASSETTE")
    rec.add_argument("--force", action="store_true", help="replace CASSETTE if it exists")
    rec.add_argument("--redact", action="append", metavar="REGEX", help="also redact what REGEX matches (repeatable)")
    rec.add_argument("--http", metavar="URL", help="proxy this Streamable HTTP endpoint instead of a stdio command")
    rec.add_argument("--header", action="append", metavar="'NAME: VALUE'",
                     help="with --http: send this header (repeatable); its value is redacted in the cassette")
    rec.add_argument("--timeout", type=seconds, metavar="SECONDS",
                     help="with --http: how long one request may wait for the endpoint's answer before the host "
                          "gets an error instead (default 60)")
    rec.add_argument("server_command", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]")
    rec.set_defaults(func=run)


def run(args) -> int:
    """``mcptest record``: proxy one MCP host session to a stdio server and write it as a run."""
    from ..record.proxy import record  # only what the proxy needs: a host waits for its start
    from ..redact import redactor

    command = args.server_command[1:] if args.server_command[:1] == ["--"] else args.server_command
    if bool(command) == bool(args.http):
        print("mcptest record: give the server command after -- (mcptest record --out CASSETTE -- COMMAND "
              "[ARGS...]) or a Streamable HTTP endpoint (--http URL), not both", file=sys.stderr)
        return EXIT_USAGE
    problem = cassette_path_problem(args.out)
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    try:
        with contextlib.ExitStack() as held:
            if not args.append:  # a second session writing this file anew is refused now, not after both ran
                from ..formats.files import locked  # not the cassette writer: the server starts first

                try:
                    held.enter_context(locked(args.out, wait=False))
                except BlockingIOError:
                    print(f"{args.out}: another mcptest record session is writing it; wait for it to end, record "
                          f"into another file, or pass --append to both to add each session as a run",
                          file=sys.stderr)
                    return EXIT_USAGE
            problem = out_problem(args)
            if problem:
                print(problem, file=sys.stderr)
                return EXIT_USAGE
            headers = {}
            scrub = redactor(args.redact or (), where="mcptest record --redact")
            if args.header:
                from ..record.headers import parse_headers, redactor_hiding

                headers = parse_headers(args.header)
                if not args.http:
                    raise ValueError("mcptest record: --header goes with --http (a stdio server takes no headers)")
                scrub = redactor_hiding(headers, args.redact or ())
            if args.timeout is not None and not args.http:
                raise ValueError("mcptest record: --timeout goes with --http (over stdio the host's own timeout "
                                 "applies, as without the proxy)")
            if args.append:
                from ..record.store import read_existing

                read_existing(args.out)  # a cassette that cannot take another run is refused before the session
            return record(command, args.out, args.server_name, args.append, scrub, url=args.http, headers=headers,
                          timeout=args.timeout)  # None: the default, HTTP_TIMEOUT
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except InputError as exc:
        print(f"mcptest record --append: {exc.render()}", file=sys.stderr)
        return EXIT_USAGE


def out_problem(args) -> str:
    """Why ``mcptest record`` cannot write ``--out``, checked before the session starts."""
    from ..formats.files import output_problem

    if os.path.lexists(args.out) and not (args.append or args.force):  # a dangling link too
        return (f"{args.out}: already exists; pass --append to add this session as a new run, "
                f"or --force to replace it")
    problem = output_problem(args.out)
    return f"{args.out}: {problem}; nothing was recorded" if problem else ""
