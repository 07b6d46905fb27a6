"""``mcptest probe --out FILE -- COMMAND...``: a session of deliberate edge requests sent to a
stdio server (``record/probe.py``), written as a cassette that ``mcptest conformance`` judges."""

from __future__ import annotations

import argparse
import os
import sys

from ..option_types import seconds
from .common import EXIT_OK, EXIT_USAGE, cassette_path_problem


def add_parser(sub) -> None:
    pro = sub.add_parser("probe", help="send a server the edge requests a host rarely sends and record the session",
                         usage="mcptest probe --out FILE [--force] [--protocol-version V] [--timeout SECONDS] "
                               "[--oversize-kb N] [--server-name NAME] [--call TOOL=JSON]... "
                               "(-- COMMAND [ARGS...] | --http URL [--header 'NAME: VALUE']...)")
    pro.add_argument("--out", required=True, metavar="FILE", help="the cassette to write")
    pro.add_argument("--force", action="store_true", help="replace FILE if it exists")
    pro.add_argument("--protocol-version", default="2025-11-25", metavar="V",
                     help="the version initialize asks for (default 2025-11-25)")
    pro.add_argument("--timeout", type=seconds, default=10.0, metavar="SECONDS",
                     help="how long one answer is waited for (default 10)")
    pro.add_argument("--oversize-kb", type=int, default=512, metavar="N",
                     help="the size of the oversized argument, in KiB (default 512)")
    pro.add_argument("--server-name", metavar="NAME", help="the server's name in the cassette")
    pro.add_argument("--call", action="append", metavar="TOOL[=JSON]",
                     help="also call TOOL with these arguments (a JSON object; default {}), after the lists "
                          "(repeatable): structuredContent is then checked against the tool's outputSchema")
    pro.add_argument("--redact", action="append", metavar="REGEX", help="also redact what REGEX matches (repeatable)")
    pro.add_argument("--http", metavar="URL", help="probe this Streamable HTTP endpoint instead of a stdio command "
                     "(each POST's status, content type and session id are kept for the http-transport check)")
    pro.add_argument("--header", action="append", metavar="'NAME: VALUE'",
                     help="with --http: send this header (repeatable); its value is redacted in the cassette")
    pro.add_argument("server_command", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]")
    pro.set_defaults(func=run)


def run(args) -> int:
    from ..errors import InputError
    from ..record.probe import ProbeError, probe_http, probe_session, write_probe
    from ..record.proxy import resolve_command
    from ..redact import redactor

    command = args.server_command[1:] if args.server_command[:1] == ["--"] else args.server_command
    if bool(command) == bool(args.http):
        print("mcptest probe: give the server command after -- (mcptest probe --out FILE -- COMMAND [ARGS...]) or a "
              "Streamable HTTP endpoint (--http URL), not both", file=sys.stderr)
        return EXIT_USAGE
    if args.header and not args.http:
        print("mcptest probe: --header goes with --http (a stdio server takes no headers)", file=sys.stderr)
        return EXIT_USAGE
    if not 0 <= args.oversize_kb <= 64 * 1024:
        print("mcptest probe: --oversize-kb takes 0 to 65536", file=sys.stderr)
        return EXIT_USAGE
    problem = cassette_path_problem(args.out)
    if not problem and os.path.lexists(args.out) and not args.force:
        problem = f"{args.out}: already exists; pass --force to replace it"
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    try:
        scrub = redactor(args.redact or (), where="mcptest probe --redact")
        calls = tuple(_call(text) for text in args.call or ())
        headers = {}
        if args.header:
            from ..record.headers import parse_headers, redactor_hiding

            headers = parse_headers(args.header)
            scrub = redactor_hiding(headers, args.redact or ())
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    options = dict(timeout=args.timeout, protocol_version=args.protocol_version, oversize_kb=args.oversize_kb,
                   server_name=args.server_name, calls=calls)
    try:
        if args.http:
            cassette = probe_http(args.http, headers, **options)
        else:
            cassette = probe_session(resolve_command(command), **options)
    except ProbeError as exc:
        print(f"mcptest probe: the MCP server `{args.http or ' '.join(command)}` {exc}; nothing written",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        write_probe(cassette, args.out, scrub, args.force)
    except InputError as exc:
        print(f"mcptest probe: not written: {exc.render()}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"mcptest probe: {args.out}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 1
    run = cassette.runs[0]
    print(f"mcptest probe: {args.out}: {len(run.messages or ())} messages, "
          f"{len(run.meta['probe']['deliberate'])} deliberate; {run.meta.get('ended')}", file=sys.stderr)
    return EXIT_OK


def _call(text: str) -> tuple:
    """``--call TOOL=JSON`` as (tool, arguments)."""
    import json

    name, _, arguments = text.partition("=")
    if not name:
        raise ValueError(f"mcptest probe --call {text!r}: name the tool (TOOL or TOOL={{...}})")
    try:
        value = json.loads(arguments) if arguments else {}
    except ValueError as exc:
        raise ValueError(f"mcptest probe --call {name}: the arguments are not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ValueError(f"mcptest probe --call {name}: the arguments must be a JSON object")
    return name, value
