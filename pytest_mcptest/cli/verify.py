"""``mcptest verify CASSETTE -- COMMAND``: a recording's requests sent again to a server, its
answers compared with the recorded ones."""

from __future__ import annotations

from ..option_types import seconds


def add_parser(sub) -> None:
    ver = sub.add_parser("verify", help="re-send a recording's requests to a server and compare its answers",
                         usage="mcptest verify CASSETTE [--run N] [--ignore PATH]... [--update] "
                               "[--header 'NAME: VALUE']... (-- COMMAND... | --http URL)")
    ver.add_argument("cassette", metavar="CASSETTE")
    ver.add_argument("--run", type=int, metavar="N", help="which run to verify against (from 1; default: the last)")
    ver.add_argument("--ignore", action="append", metavar="PATH",
                     help="a path of the answers left out, e.g. result.content[0].text.datetime (repeatable)")
    ver.add_argument("--update", action="store_true", help="append the new answers to CASSETTE as a new run")
    ver.add_argument("--http", metavar="URL", help="a Streamable HTTP endpoint instead of a command")
    ver.add_argument("--header", action="append", metavar="'NAME: VALUE'", help="with --http: send this header")
    ver.add_argument("--timeout", type=seconds, default=30.0, metavar="SECONDS",
                     help="how long one answer may take (default 30)")
    ver.set_defaults(func=run, server_command=[])  # the command after -- (see main)


def run(args) -> int:
    """Re-send a recording's requests to a server and compare its answers (exit 0, 1 or 2)."""
    from ..record.verify import main as verify_recording

    return verify_recording(args)
