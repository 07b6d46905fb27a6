"""``mcptest import KIND FILE -o CASSETTE``: an existing log turned into a cassette, read back
before it is written so that what replay will read is what was checked."""

from __future__ import annotations

import os
import sys
from typing import Optional

from ..errors import InputError
from ..gc_pause import paused_collector
from ..text import plural
from .common import EXIT_OK, EXIT_USAGE, cassette_path_problem


def add_parser(sub) -> None:
    from ..importers import IMPORTERS

    imp = sub.add_parser("import", help="turn existing logs into a cassette")
    imp.add_argument("kind", choices=["auto", *IMPORTERS],
                     help="the log's format; auto guesses it from the content and says which it chose")
    imp.add_argument("file", metavar="FILE", help="the log to read (JSON or JSONL; an inspect_ai .eval zip)")
    imp.add_argument("-o", "--output", required=True, metavar="CASSETTE", help="the cassette to write")
    imp.add_argument("--force", action="store_true", help="overwrite CASSETTE if it exists")
    imp.add_argument("--tools", metavar="TOOLS.json", help="tool definitions kept apart from the log, recorded "
                     "as the cassette's catalog (replacing any the log has)")
    imp.set_defaults(func=run)


def run(args) -> int:
    """Turn an existing log into a cassette, checked by reading it back before it is written."""
    import msgspec

    from ..formats.cassette import dump_cassette, parse_cassette, write_cassette
    from ..importers import import_text, read_log
    from ..importers.common import catalog_file, parse_once, summary

    try:
        text = read_log(args.file)
    except FileNotFoundError:
        print(f"{args.file}: cannot read: no such file", file=sys.stderr)
        return EXIT_USAGE
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    problem = cassette_path_problem(args.output)
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    if os.path.lexists(args.output):  # a dangling symbolic link is there too: replaced only with --force
        if os.path.exists(args.output) and os.path.samefile(args.file, args.output):
            print(f"{args.output}: is the file being imported; write the cassette elsewhere", file=sys.stderr)
            return EXIT_USAGE
        if not args.force:
            dangling = "" if os.path.exists(args.output) else " (a symbolic link to nothing)"
            print(f"{args.output}: already exists{dangling}; pass --force to overwrite it", file=sys.stderr)
            return EXIT_USAGE
    # A large log makes millions of small containers and no cycles: a third of the time went to the collector.
    with paused_collector():
        try:
            with parse_once():  # the log's JSON is parsed once, to guess its kind and to import it
                kind = kind_to_import(args, text)
                if kind is None:
                    return EXIT_USAGE
                cassette = import_text(kind, args.file, text)
            del text
            if args.tools is not None:
                cassette = msgspec.structs.replace(cassette, catalog=catalog_file(args.tools, side_file(args.tools)))
            written = dump_cassette(cassette)
            counts = summary(cassette)
            del cassette  # a large import holds its cassette once, as text, while it is read back
            try:
                parse_cassette(args.output, written)  # what replay will read, read once now
            except InputError as exc:  # the log's fault, so the log is named (the cassette was never written)
                raise InputError(args.file, f"imported, this log makes a cassette that cannot be read back: "
                                            f"{exc.message}" + (f" (cassette {exc.pointer or '/'})"
                                                                if exc.pointer is not None else "")) from None
            write_cassette(args.output, None, overwrite=args.force, text=written)
        except InputError as exc:
            print(exc.render(), file=sys.stderr)
            return EXIT_USAGE
        except FileExistsError:
            print(f"{args.output}: already exists; pass --force to overwrite it", file=sys.stderr)
            return EXIT_USAGE
        except OSError as exc:
            print(f"{args.output}: cannot write: {exc.strerror}", file=sys.stderr)
            return EXIT_USAGE
    print(f"{args.output}: {plural(counts['runs'], 'run')}, {plural(counts['calls'], 'tool call')} "
          f"({plural(counts['errors'], 'error')}, {counts['without_result']} without a result, "
          f"{counts['invalid_json_args']} with arguments that are not valid JSON, kept as text and flagged"
          + (f", {counts['unmatched_results']} results matching no call" if counts["unmatched_results"] else "")
          + f") from {args.file}" + (f", detected as {kind}" if args.kind == "auto" else ""))
    return EXIT_OK


def kind_to_import(args, text: str) -> Optional[str]:
    """The kind to import ``args.file`` as: the one named, or with ``auto`` the one guessed;
    None (with the reason on stderr) when it cannot be guessed or the file is of another kind."""
    from ..importers import IMPORTERS
    from ..importers.detect import detect_kind

    kind = args.kind
    try:
        guessed = detect_kind(args.file, text)
    except InputError as exc:
        if kind == "auto":
            print(exc.render(), file=sys.stderr)
            return None
        guessed = None  # the named kind's importer says what is wrong, in its terms
    if kind == "auto" and guessed is None:
        print(f"{args.file}: cannot tell which kind of log this is; name it: mcptest import "
              f"({'|'.join(IMPORTERS)}) FILE -o CASSETTE", file=sys.stderr)
        return None
    if kind != "auto" and guessed not in (None, kind):
        print(f"{args.file}: this looks like a log of kind {guessed}, not {kind}; import it with "
              f"`mcptest import {guessed}` (or `mcptest import auto`)", file=sys.stderr)
        return None
    return guessed if kind == "auto" else kind


def side_file(path: str) -> str:
    """A side file's text (``--tools``), read as every user file is; missing is bad input."""
    from ..formats.files import read_text

    try:
        return read_text(path)
    except FileNotFoundError:
        raise InputError(path, "cannot read: no such file") from None
