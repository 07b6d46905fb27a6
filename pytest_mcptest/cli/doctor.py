"""``mcptest doctor``: a catalog's descriptions, security and lock, judged through the ``tool_quality`` gate.

``--security`` and ``--lock FILE`` judge a catalog through the ``tool_quality`` gate, like
``--lint-descriptions``, but with only their own gate; ``--security --config SUITE`` with no
``--server`` lints every server of the suite together (live ones are started), so names
clashing across servers and descriptions naming another server's tool are found;
``--cassette FILE`` lints what a cassette recorded: the catalog of each server and every
tool result (SEC-013). Exit status: 0 passed, 1 a gate failed (a Critical finding,
a locked tool that changed), 2 bad input.
"""

from __future__ import annotations

import os
import sys

import attrs

from ..errors import InputError
from ..text import json_printable, printable
from .common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, judge




def write_new_lock(block, path: str) -> int:
    """``--lock FILE`` when FILE does not exist yet: pin the catalog there."""
    from ..gates.sources import RecordingUnavailable
    from ..gates.tool_quality import open as open_catalog
    from ..gates.context import Context
    from ..formats.lockfile import write_lock

    try:
        source = open_catalog(block, Context(root=os.getcwd()))
        count = write_lock(path, path, source.items[0])
    except RecordingUnavailable as exc:
        print(printable(exc.message), file=sys.stderr)
        return EXIT_USAGE
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    print(printable(f"{path}: pinned {count} tool{'s' if count != 1 else ''} of {source.shown}; commit it, and check "
          f"later with mcptest doctor --lock {path} (or lock: {path} in a suite)"))
    return EXIT_OK


def _in_cassette(finding, server: str):
    """A catalog finding with its pointer into the cassette (``/catalog/<server>/tools/...``)."""
    from ..engine.paths import json_pointer

    return attrs.evolve(finding, pointer=json_pointer(["catalog", server]) + finding.pointer)


def cassette_security(path: str, as_json: bool) -> int:
    """The security lint of a cassette: its recorded catalogs and tool results."""
    from ..formats.cassette import load_cassette
    from ..engine.catalog import CatalogError
    from ..engine.security_rules import lint_results, lint_servers_security, security_counts
    from ..report.document import dumps

    try:
        cassette = load_cassette(path, path, keep=False)
    except FileNotFoundError:
        print(f"{path}: cannot read the cassette: no such file", file=sys.stderr)
        return EXIT_USAGE
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    try:
        by_server = lint_servers_security(cassette.catalog)
    except CatalogError as exc:
        print(printable(f"{path}: the recorded catalog: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    findings = [_in_cassette(f, server) for server, fs in by_server.items() for f in fs]
    findings += lint_results(cassette.runs)
    counts = security_counts(findings)
    if as_json:
        sys.stdout.write(json_printable(dumps({"cassette": path, "security": {
            **counts, "findings": [f.to_dict() for f in findings]}})))
    else:
        _print_findings(findings)
        print(f"security: {counts['critical_count']} critical, {counts['warning_count']} warnings in "
              f"{len(cassette.catalog)} recorded catalogs and {sum(len(r.tool_calls) for r in cassette.runs)} "
              f"tool results of {path}")
    return EXIT_FAILED if counts["critical_count"] else EXIT_OK


def _print_findings(findings) -> None:
    """Each finding; the tool's name and what it quotes come from a server: escaped."""
    for f in findings:
        print(printable(f"{f.rule:8} {f.severity:8} {f.tool}  {f.pointer}"))
        print(printable(f"  {f.message}"))
        print(printable(f"  why: {f.why}  -> {f.suggestion}"))


def suite_security(config: str, as_json: bool) -> int:
    """The security lint of every server of a suite, together."""
    from ..engine.catalog import CatalogError
    from ..engine.security_rules import lint_servers_security, security_counts
    from ..formats.files import regular_file_problem
    from ..gates.server_entries import resolve_server, server_catalog
    from ..report.document import dumps
    from ..suite.cache import load_suite_cached

    try:
        problem = regular_file_problem(config)
        if problem:
            raise InputError(config, problem)
        suite = load_suite_cached(config)
        if not suite.servers:
            raise InputError(config, "no servers: to lint")
        folder = os.path.dirname(os.path.abspath(config))
        catalogs = {name: server_catalog(name, resolve_server(spec, folder), os.getcwd())[1]
                    for name, spec in sorted(suite.servers.items())}
        by_server = lint_servers_security(catalogs)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    except CatalogError as exc:
        print(printable(f"{config}: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    findings = [f for fs in by_server.values() for f in fs]
    counts = security_counts(findings)
    if as_json:
        sys.stdout.write(json_printable(dumps({"suite": config, "security": {
            **counts, "servers": {name: [f.to_dict() for f in fs] for name, fs in by_server.items()}}})))
    else:
        for name, fs in by_server.items():
            print(f"server {name}: {len(fs)} finding{'s' if len(fs) != 1 else ''}")
            _print_findings(fs)
        print(f"security: {counts['critical_count']} critical, {counts['warning_count']} warnings in "
              f"{len(by_server)} servers of {config}")
    return EXIT_FAILED if counts["critical_count"] else EXIT_OK


def lock_summary_lines(envelope: dict) -> list[str]:
    """``--lock`` alone: what the lock comparison found (the diff is in the failure text)."""
    lock = envelope.get("lock") or {}
    lines = [f"lock {lock.get('file')}: {lock.get('changed_count', 0)} changed, {lock.get('added_count', 0)} new, "
             f"{lock.get('removed_count', 0)} removed ({envelope.get('tool_count', 0)} tools served)"]
    if lock.get("added"):
        lines.append(f"new tools, not in the lock (not failed; review them, then lock again): "
                     f"{', '.join(lock['added'])}")
    if lock.get("removed"):
        lines.append(f"locked tools no longer served: {', '.join(lock['removed'])}")
    return lines


def add_parser(sub) -> None:
    doctor = sub.add_parser("doctor", help="look at a server's tool catalog")
    doctor.add_argument("--lint-descriptions", action="store_true", help="every DESC/SCH/SEC finding, tool by tool "
                        "(the default)")
    doctor.add_argument("--security", action="store_true", help="only the security lint (SEC rules): exit 1 on a "
                        "critical finding")
    doctor.add_argument("--lock", metavar="FILE", help="pin each tool's description and schema in FILE (when it does "
                        "not exist), else check the catalog against it: exit 1 when a pinned tool changed")
    doctor.add_argument("--cassette", metavar="FILE", help="security lint of a recording: its catalogs and every "
                        "tool result")
    doctor.add_argument("--catalog", metavar="FILE", help="a saved tools/list answer (JSON)")
    doctor.add_argument("--server", metavar="NAME", help="a server of --config's servers:")
    doctor.add_argument("--config", metavar="SUITE", help="the suite that declares --server")
    doctor.add_argument("--json", action="store_true", help="print the report object")
    doctor.set_defaults(func=run)


def doctor_block(args, **how):
    """The ``tool_quality`` block for ``--catalog FILE`` or ``--server NAME --config SUITE``
    (``how``: which of its gates apply, see ``for_server``)."""
    from ..gates.server_entries import resolve_server
    from ..gates.tool_quality import for_server
    from ..formats.files import regular_file_problem
    from ..suite.cache import load_suite_cached

    if args.catalog:
        return for_server(os.path.basename(args.catalog), {"catalog": os.path.abspath(args.catalog)}, args.catalog,
                          **how)
    if not (args.server and args.config):
        raise InputError("mcptest doctor", "give --catalog FILE, or --server NAME with --config SUITE")
    problem = regular_file_problem(args.config)  # the suite cache reads what it is given: a FIFO would block it
    if problem:
        raise InputError(args.config, problem)
    suite = load_suite_cached(args.config)
    spec = suite.servers.get(args.server)
    if spec is None:
        raise InputError(args.config, f"no server named {args.server!r} under servers: "
                         f"(servers: {', '.join(sorted(suite.servers)) or 'none'})")
    folder = os.path.dirname(os.path.abspath(args.config))
    return for_server(args.server, resolve_server(spec, folder), args.config, **how)


def run(args) -> int:
    """Every description and security finding, tool by tool, then the verdict of the
    default gates and the security gate (the ``tool_quality`` item's): exit 1 when the
    catalog misses them. ``--security`` and ``--lock FILE`` judge only their own gate
    (see ``doctor.py``); ``--cassette`` lints a recording."""
    from ..gates.tool_quality import security_summary_lines, summary_lines

    if args.cassette:
        if args.catalog or args.server or args.lock or args.lint_descriptions:
            print("mcptest doctor --cassette: lints a recording on its own; give no --catalog, --server, --lock "
                  "or --lint-descriptions with it", file=sys.stderr)
            return EXIT_USAGE
        return cassette_security(args.cassette, args.json)
    if args.security and args.config and not args.server and not args.catalog and not args.lock:
        return suite_security(args.config, args.json)
    lint = args.lint_descriptions or not (args.security or args.lock)
    lock = os.path.abspath(args.lock) if args.lock else None
    try:
        block = doctor_block(args, lint=lint, security=lint or args.security, lock=lock)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    if lock and not os.path.lexists(lock):
        return write_new_lock(block, args.lock)
    describe = summary_lines if lint else security_summary_lines if args.security else lock_summary_lines
    return judge(block, args.json, describe)

