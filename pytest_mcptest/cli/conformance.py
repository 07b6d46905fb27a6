"""``mcptest conformance CASSETTE [--run N] [--json] [--known-failures FILE] [--skip ID[=REASON]]...``:
the MCP conformance checks read from a recorded session (``gates/conformance.py``, the gate a
suite's ``conformance:`` entry uses). Exit 0 no check failed, 1 a check failed (or a known
failure no longer fails), 2 bad usage or a cassette that cannot be read."""

from __future__ import annotations

import os
import sys

from .common import EXIT_FAILED, EXIT_OK, EXIT_USAGE


def add_parser(sub) -> None:
    con = sub.add_parser("conformance", help="check a recorded MCP session against the specification",
                         usage="mcptest conformance CASSETTE [--run N] [--json] [--known-failures FILE] "
                               "[--skip CHECK[=REASON]]...")
    con.add_argument("cassette", metavar="CASSETTE", help="a cassette of mcptest record or mcptest probe")
    con.add_argument("--run", type=int, metavar="N", help="judge only run N (from 1; default: every run)")
    con.add_argument("--json", action="store_true", help="print the checks as JSON (checks.json-like)")
    con.add_argument("--known-failures", metavar="FILE",
                     help="a YAML or JSON list of check ids (or id: reason) that may fail; one that passes fails the run")
    con.add_argument("--skip", action="append", metavar="CHECK[=REASON]", help="leave a check out (repeatable)")
    con.add_argument("--list-checks", action="store_true", help="print the checks (id, what, spec link) and exit")
    con.set_defaults(func=run)


def run(args) -> int:
    from ..engine.conformance import ConformanceError, check_table, known_ids
    from ..errors import InputError
    import pytest_mcptest.gates.conformance as gate
    from ..gates.sources import RecordingUnavailable
    from ..text import json_printable, printable

    if args.list_checks:
        for check_id, title, reads, link in check_table():
            print(f"{check_id:42} {title}\n{'':42} reads: {reads}\n{'':42} {link}")
        return EXIT_OK
    if args.run is not None and args.run < 1:
        print("mcptest conformance: --run counts from 1", file=sys.stderr)
        return EXIT_USAGE
    skip = {}
    try:
        if args.skip:
            skip = known_ids(dict(s.partition("=")[::2] for s in args.skip), "--skip")
        known = {}
        source = "known_failures"
        if args.known_failures:
            source = args.known_failures
            known = gate.read_known(args.known_failures, args.known_failures)
    except ConformanceError as exc:
        print(f"mcptest conformance: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    block = gate.for_cassette(args.cassette, args.run, known, skip)
    ctx = _context()
    try:
        evidence = gate.open(block, ctx)
    except RecordingUnavailable as exc:
        print(printable(exc.message), file=sys.stderr)
        return EXIT_USAGE
    results = []
    for session in evidence.items:
        if session.run.messages:
            results.append((session.index + 1, gate.judge_session(block, session, ctx)))
    passed = all(r.passed for _, r in results)
    if args.json:
        document = {"cassette": evidence.shown, "passed": passed,
                    "runs": [{"run": number, **result.to_dict()} for number, result in results]}
        sys.stdout.write(json_printable(_dumps(document)))
    else:
        for number, result in results:
            if len(evidence.items) > 1:
                print(f"== run {number}")
            for line in gate.report_lines(result, source):
                print(printable(line))
            if not result.passed:
                for line in gate.failure_lines(result, source, indent=""):
                    print(printable(line))
    return EXIT_OK if passed else EXIT_FAILED


def _context():
    from ..gates.context import Context

    return Context(root=os.getcwd())


def _dumps(document: dict) -> str:
    import json

    return json.dumps(document, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
