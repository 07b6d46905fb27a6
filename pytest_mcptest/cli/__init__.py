"""The ``mcptest`` command: the same model, engine and expect as the pytest items.

Both ``run`` and ``scenario run`` drive pytest with this plugin, so a block's outcome
(marks such as ``skip``, ``skipif`` and ``xfail`` included) is pytest's own and cannot
drift from what ``pytest`` says. Exit status: 0 all passed, 1 a gate failed, 2 bad
input or usage (the reason on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from typing import Optional, Sequence

from ..errors import InputError
from ..gc_pause import paused_collector
from ..report.document import dumps
from ..text import plural

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own exit code is 2 too; keep its text
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _option_value(args: Sequence[str], name: str) -> Optional[str]:
    """The value the last ``name VALUE`` or ``name=VALUE`` among ``args`` gives (pytest's
    own rule: the last one wins), or None."""
    value = None
    for i, arg in enumerate(args):
        if arg.startswith(name + "="):
            value = arg[len(name) + 1:]
        elif arg == name and i + 1 < len(args):
            value = args[i + 1]
    return value


def _pytest(targets: list[str], cassette_dir: Optional[str], as_json: bool, extra: Sequence[str] = ()) -> int:
    """Run pytest on ``targets`` (with ``extra`` pytest options, any of pytest's, in the
    user's order); print its output (or, with ``as_json``, the report)."""
    import pytest

    from ..text import json_printable

    with tempfile.TemporaryDirectory() as tmp:
        # The user's own --mcptest-report (the last one wins in pytest) is the one read back.
        report_path = _option_value(extra, "--mcptest-report") or os.path.join(tmp, "report.json")
        verbose = any(a == "--verbose" or (a.startswith("-v") and set(a[1:]) == {"v"}) for a in extra)
        argv = targets + [f"--mcptest-report={report_path}", "-o", "python_files=",
                          *([] if verbose else ["-q"]), *extra]  # -q would cancel the user's -v
        if cassette_dir:
            argv.append(f"--cassette-dir={os.path.abspath(cassette_dir)}")
        with contextlib.redirect_stdout(sys.stderr if as_json else sys.stdout):
            code = int(pytest.main(argv))
        report = None
        if os.path.isfile(report_path):
            with open(report_path, encoding="utf-8") as fh:
                report = json.load(fh)
    if as_json and report is not None:
        sys.stdout.write(json_printable(dumps(report)))
    if code == 5:
        where = [a for a in [*targets, *extra] if not a.startswith("-") and os.path.exists(a)]
        print(f"mcptest: no block to run in {', '.join(where) or os.curdir} (no *.mcptest.yml suite there, or "
              "none selected)", file=sys.stderr)
        return EXIT_USAGE
    if report is None or code not in (0, 1):
        print(f"mcptest: pytest stopped with exit status {code} (see its output above)", file=sys.stderr)
        return EXIT_USAGE
    if report.get("errors"):
        for error in report["errors"]:
            print(f"mcptest: bad suite {error['file']}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK if code == 0 else EXIT_FAILED


def _run(args) -> int:
    """Every block of the suites, as pytest would run them: the suites (and ``--config``
    files) and every pytest option go to pytest as written."""
    from ..formats.files import regular_file_problem

    extra = list(args.pytest_args)
    targets = list(args.config or ())
    for suite in targets:
        if not os.path.exists(suite):
            print(f"{suite}: no such file or directory", file=sys.stderr)
            return EXIT_USAGE
    for path in targets + [a for a in extra if not a.startswith("-") and os.path.exists(a)]:
        problem = None if os.path.isdir(path) else regular_file_problem(path)
        if problem:
            print(f"{path}: {problem}", file=sys.stderr)
            return EXIT_USAGE
    if not targets and not any(not a.startswith("-") for a in extra):
        print("mcptest run: name the suites to run (files or folders), or --config FILE", file=sys.stderr)
        return EXIT_USAGE
    if args.record and not any(a.startswith("--mcptest-record-mode") for a in extra):
        extra.append("--mcptest-record-mode=once")  # record what has no cassette yet, replay the rest
    if args.dry_run:
        if not args.record and not any(a.startswith("--mcptest-record-mode") for a in extra):
            print("mcptest run: --dry-run goes with --record (or a record mode that records)", file=sys.stderr)
            return EXIT_USAGE
        extra.append("--mcptest-dry-run")
    return _pytest(targets, args.cassette_dir, args.json, extra)


def _scenario_run(args) -> int:
    """The scenarios of one suite (or those named), through pytest."""
    from ..formats.files import regular_file_problem
    from ..suite.cache import load_suite_cached

    problem = regular_file_problem(args.suite)
    if problem:
        print(f"{args.suite}: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        suite = load_suite_cached(args.suite)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    scenarios = [b.name for b in suite.blocks if b.kind == "scenario"]
    names = args.name or scenarios
    unknown = [n for n in names if n not in scenarios]
    if unknown:
        print(f"{args.suite}: no scenario named {unknown[0]!r}; scenarios: "
              f"{', '.join(repr(n) for n in scenarios) or 'none'}", file=sys.stderr)
        return EXIT_USAGE
    if not names:
        print(f"{args.suite}: no scenarios to run", file=sys.stderr)
        return EXIT_USAGE
    return _pytest([f"{args.suite}::{name}" for name in names], args.cassette_dir, args.json)


def _cassette_path_problem(path: str) -> str:
    """Why a cassette cannot be written at ``path`` (a directory there, or a file where a
    folder above it should be), as one line; empty when it can. ``import`` and ``record``
    both write one."""
    from ..formats.files import file_above

    if os.path.isdir(path):
        return f"{path}: is a directory; name the cassette file to write"
    under = file_above(path)
    return f"{path}: cannot be written, {under} is a file, not a folder" if under is not None else ""


def _import(args) -> int:
    """Turn an existing log into a cassette, checked by reading it back before it is written."""
    import attrs

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
    problem = _cassette_path_problem(args.output)
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
                kind = _kind_to_import(args, text)
                if kind is None:
                    return EXIT_USAGE
                cassette = import_text(kind, args.file, text)
            del text
            if args.tools is not None:
                cassette = attrs.evolve(cassette, catalog=catalog_file(args.tools, _side_file(args.tools)))
            written = dump_cassette(cassette)
            counts = summary(cassette)
            del cassette  # a large import holds its cassette once, as text, while it is read back
            parse_cassette(args.output, written)  # what replay will read, read once now
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


def _kind_to_import(args, text: str) -> Optional[str]:
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


def _side_file(path: str) -> str:
    """A side file's text (``--tools``), read as every user file is; missing is bad input."""
    from ..formats.files import read_text

    try:
        return read_text(path)
    except FileNotFoundError:
        raise InputError(path, "cannot read: no such file") from None


def _judge(block, as_json: bool, describe) -> int:
    """Judge one block exactly as its pytest item would (the same evaluate() and the same
    failure text), then print it: ``describe(envelope)`` lines and the failure text, or the
    JSON report of that one item. A recording that cannot be had is bad input (exit 2)."""
    from ..gates.context import Context
    from ..gates.evaluate import evaluate
    from ..report.render import render_verdict
    from ..report.document import build_report, item_entry
    from ..text import json_printable, printable

    verdict = evaluate(block, Context(root=os.getcwd()))
    if verdict.problems:  # what was to be judged could not be read: the reason, nothing else
        for problem in verdict.problems:
            print(printable(problem.message), file=sys.stderr)
        return EXIT_USAGE
    if as_json:
        entry = item_entry(f"{block.file}::{block.name}", block, verdict)
        entry["outcome"] = "passed" if verdict.passed else "failed"
        sys.stdout.write(json_printable(dumps(build_report([entry], {}))))
    else:
        for line in describe(verdict.envelope):
            print(printable(line))  # tool names and descriptions come from a server: escaped
        if not verdict.passed:
            print(render_verdict(verdict))
    return EXIT_OK if verdict.passed else EXIT_FAILED


def _record(args) -> int:
    """``mcptest record``: proxy one MCP host session to a stdio server and write it as a run."""
    from ..record.proxy import record  # only what the proxy needs: a host waits for its start
    from ..record.redact import redactor

    command = args.server_command[1:] if args.server_command[:1] == ["--"] else args.server_command
    if bool(command) == bool(args.http):
        print("mcptest record: give the server command after -- (mcptest record --out CASSETTE -- COMMAND "
              "[ARGS...]) or a Streamable HTTP endpoint (--http URL), not both", file=sys.stderr)
        return EXIT_USAGE
    problem = _cassette_path_problem(args.out)
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    try:
        with contextlib.ExitStack() as held:
            if not args.append:  # a second session writing this file anew is refused now, not after both ran
                from ..record.store import reserved

                try:
                    held.enter_context(reserved(args.out))
                except BlockingIOError:
                    print(f"{args.out}: another mcptest record session is writing it; wait for it to end, record "
                          f"into another file, or pass --append to both to add each session as a run",
                          file=sys.stderr)
                    return EXIT_USAGE
            problem = _record_out_problem(args)
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


def _record_out_problem(args) -> str:
    """Why ``mcptest record`` cannot write ``--out``, checked before the session starts."""
    from ..formats.files import output_problem

    if os.path.lexists(args.out) and not (args.append or args.force):  # a dangling link too
        return (f"{args.out}: already exists; pass --append to add this session as a new run, "
                f"or --force to replace it")
    problem = output_problem(args.out)
    return f"{args.out}: {problem}; nothing was recorded" if problem else ""


def _doctor_block(args, **how):
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


def _doctor(args) -> int:
    """Every description and security finding, tool by tool, then the verdict of the
    default gates and the security gate (the ``tool_quality`` item's): exit 1 when the
    catalog misses them. ``--security`` and ``--lock FILE`` judge only their own gate
    (see ``doctor.py``); ``--cassette`` lints a recording."""
    from . import doctor
    from ..gates.tool_quality import security_summary_lines, summary_lines

    if args.cassette:
        if args.catalog or args.server or args.lock or args.lint_descriptions:
            print("mcptest doctor --cassette: lints a recording on its own; give no --catalog, --server, --lock "
                  "or --lint-descriptions with it", file=sys.stderr)
            return EXIT_USAGE
        return doctor.cassette_security(args.cassette, args.json)
    if args.security and args.config and not args.server and not args.catalog and not args.lock:
        return doctor.suite_security(args.config, args.json)
    lint = args.lint_descriptions or not (args.security or args.lock)
    lock = os.path.abspath(args.lock) if args.lock else None
    try:
        block = _doctor_block(args, lint=lint, security=lint or args.security, lock=lock)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    if lock and not os.path.lexists(lock):
        return doctor.write_new_lock(block, args.lock)
    describe = summary_lines if lint else security_summary_lines if args.security else doctor.lock_summary_lines
    return _judge(block, args.json, describe)


def _tool_bench(args) -> int:
    """Selection accuracy and how far each mutation drops it; exit 1 when below min_drop
    (``--min-drop`` or the spec's own), judged as the ``tool_bench`` item would be."""
    import attrs

    from ..gates.tool_bench import from_spec_file, summary_lines

    try:
        block = from_spec_file(args.spec)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    if args.min_drop is not None:
        block = attrs.evolve(block, min_drop=args.min_drop)
    return _judge(block, args.json, summary_lines)


def _fraction(text: str) -> float:
    """``--min-drop``: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, found {text!r}") from None
    if not 0 <= value <= 1:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, found {text!r}")
    return value


def _seconds(text: str) -> float:
    """``--timeout``: a number of seconds above 0 (not infinite, not NaN)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, found {text!r}") from None
    if not 0 < value < float("inf"):  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, found {text!r}")
    return value


def _report(args) -> int:
    """A saved report at a glance, or (``--compare``) the verdict of the paired tests, the
    significant changes and the floor flips against a baseline; ``--html`` and
    ``--markdown`` also write those reports (the same bytes ``--mcptest-html`` and
    ``--mcptest-markdown`` write for the same items). Exit 1 when a floor flipped to failed
    against the baseline, or when a ``--fail-on`` condition holds."""
    from ..report.document import compare_reports, comparison_problem, failing, load_report, render_comparison, render_summary
    from ..text import json_printable, printable

    try:
        current = load_report(args.current)
        baseline = load_report(args.compare) if args.compare else None
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    comparison = compare_reports(current, baseline, correction=args.correction) if baseline is not None else None
    if args.html is not None:
        from ..report.html import unavailable, write_html

        problem = unavailable() or (f"--html needs a file path, found {args.html!r}"
                                    if not args.html.strip() or os.path.isdir(args.html) else None)
        if problem:
            print(f"mcptest report: {problem}", file=sys.stderr)
            return EXIT_USAGE
        try:
            write_html(args.html, current, comparison, os.path.basename(args.compare) if args.compare else "")
        except OSError as exc:  # a folder that takes no new file (/proc), a full disk
            print(f"mcptest report: {args.html}: cannot write: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_USAGE
    if args.markdown is not None:
        from ..report.markdown import write_markdown

        if not args.markdown.strip() or os.path.isdir(args.markdown):
            print(f"mcptest report: --markdown needs a file path, found {args.markdown!r}", file=sys.stderr)
            return EXIT_USAGE
        try:
            write_markdown(args.markdown, current, comparison, os.path.basename(args.compare) if args.compare else "")
        except OSError as exc:
            print(f"mcptest report: {args.markdown}: cannot write: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_USAGE
    if baseline is None:
        if "regression" in (args.fail_on or ()):
            print("mcptest report: --fail-on regression needs --compare BASELINE.json", file=sys.stderr)
            return EXIT_USAGE
        if args.json:
            sys.stdout.write(json_printable(dumps(current)))
        else:
            print(printable(render_summary(current)))
        return EXIT_FAILED if failing(args.fail_on, current, None) else EXIT_OK
    if args.json:
        sys.stdout.write(json_printable(json.dumps(comparison, indent=2, sort_keys=True, ensure_ascii=False)) + "\n")
    else:
        print(printable(render_comparison(comparison, every=args.all)))  # item names and paths: escaped
    problem = comparison_problem(comparison)
    if problem:
        print(f"mcptest report: {problem}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_FAILED if comparison["regressions"] or failing(args.fail_on, current, comparison) else EXIT_OK


def _power(args) -> int:
    from .power import run

    return run(args)


def _mock(args) -> int:
    """Serve the manifest or snapshot until stdin closes (exit 2 for bad input)."""
    from ..mcp.mock_server import run

    return run(args.tools_from, args.fault)


def _serve(args) -> int:
    """Play a recorded session back as an MCP server, or serve a scenario's world when the
    argument is ``SUITE::SCENARIO`` (exit 2 for bad input)."""
    world = "::" in args.cassette
    given = [o for o, v in (("--run", args.run), ("--match", args.match != "args"), ("--ignore-arg", args.ignore_arg))
             if v] if world else (["--record"] if args.record else [])
    if given:
        print(f"mcptest serve: error: {', '.join(given)} " + ("applies to a recording, not to a world (SUITE::SCENARIO)"
              if world else "applies to a world (SUITE::SCENARIO), not to a recording"), file=sys.stderr)
        return EXIT_USAGE
    if world:
        from ..mcp.world_server import run as serve_world

        return serve_world(args.cassette, args.http, args.fault, args.record)
    from ..mcp.replay_server import run

    return run(args.cassette, args.run, args.match, tuple(args.ignore_arg or ()), args.http, args.fault)


def _verify(args) -> int:
    """Re-send a recording's requests to a server and compare its answers (exit 0, 1 or 2)."""
    from ..record.verify import main as verify

    return verify(args)


def _init(args) -> int:
    """Write a starting suite from a cassette (``init_suite.py``)."""
    from ..authoring.init_suite import command

    return command(args.cassette, args.kind, args.output, args.force)


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = _Parser(prog="mcptest", description="Replay recorded MCP agent runs and gate them offline.")
    parser.add_argument("--version", action="version", version=f"mcptest {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = sub.add_parser("run", help="run every block of the suites, as pytest would", allow_abbrev=False,
                         usage="mcptest run SUITE... [--config FILE] [--cassette-dir DIR] [--json] "
                               "[--record [--dry-run]] [any pytest option, e.g. -k X -m Y -x --lf -n 2]",
                         description="Every other argument, suites and pytest options alike, goes to pytest "
                                     "in the order written (after a lone --, too).")
    run.add_argument("--config", action="append", metavar="FILE", help="a suite to run (repeatable)")
    run.add_argument("--cassette-dir", metavar="DIR")
    run.add_argument("--json", action="store_true", help="print the JSON report on stdout")
    run.add_argument("--record", action="store_true",
                     help="record live what has no cassette yet (record mode once; needs mcptest[live] and the "
                          "provider's key), then judge it")
    run.add_argument("--dry-run", action="store_true",
                     help="with --record: list which items would call which model how many times, calling nothing")
    run.set_defaults(func=_run)

    scenario = sub.add_parser("scenario", help="scenario worlds")
    scenario_sub = scenario.add_subparsers(dest="action", required=True, parser_class=_Parser)
    srun = scenario_sub.add_parser("run", help="replay a suite's scenarios against their worlds")
    srun.add_argument("suite", metavar="SUITE")
    srun.add_argument("--cassette-dir", metavar="DIR", help="resolve cassette: paths against DIR")
    srun.add_argument("--name", action="append", metavar="NAME", help="run only this scenario (repeatable)")
    srun.add_argument("--json", action="store_true", help="print the structured report instead of the summary")
    srun.set_defaults(func=_scenario_run)

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
    doctor.set_defaults(func=_doctor)

    bench = sub.add_parser("tool-bench", help="does each description carry the selection signal")
    bench_sub = bench.add_subparsers(dest="action", required=True, parser_class=_Parser)
    brun = bench_sub.add_parser("run", help="run a tool-bench spec")
    brun.add_argument("spec", metavar="SPEC", help="YAML or JSON: catalog|catalog_path, intents, mutations")
    brun.add_argument("--min-drop", type=_fraction, metavar="FRACTION", help="fail when the largest drop is below it")
    brun.add_argument("--json", action="store_true", help="print the report object")
    brun.set_defaults(func=_tool_bench)

    report = sub.add_parser("report", help="summarize a saved JSON report, or compare it with a baseline; "
                            "`mcptest report merge SHARD.json... -o OUT.json` merges CI shards")
    report.add_argument("current", metavar="CURRENT.json", help="a report written by --mcptest-report or --json")
    report.add_argument("--compare", metavar="BASELINE.json", help="per-item deltas and floor flips against it")
    report.add_argument("--json", action="store_true", help="print the comparison (or the report) as JSON")
    report.add_argument("--html", metavar="PATH", help="also write the self-contained HTML report to PATH")
    report.add_argument("--markdown", metavar="PATH", help="also write a Markdown summary to PATH (a pull-request "
                        "comment, $GITHUB_STEP_SUMMARY)")
    report.add_argument("--all", action="store_true", help="with --compare: every delta and every paired test, "
                        "not only the significant changes")
    report.add_argument("--correction", choices=["holm", "bh"], default="holm",
                        help="with --compare: adjust the paired tests' p-values by Holm (default) or "
                             "Benjamini-Hochberg")
    report.add_argument("--fail-on", action="append", choices=["failed", "regression", "floor"],
                        help="exit 1 when an item failed, when --compare finds a significant regression, or "
                             "when a floor failed (with --compare: flipped to failed); repeatable")
    report.set_defaults(func=_report)

    power = sub.add_parser("power", help="tasks and trials needed to detect a drop of the pass rate, or the drop "
                           "that a number of tasks detects")
    power.add_argument("--rate", type=_fraction, required=True, metavar="P", help="the pass rate now, 0 to 1")
    power.add_argument("--drop", type=_fraction, metavar="D", help="the drop to detect, 0 to 1 (0.1 = 10 points)")
    power.add_argument("--tasks", type=int, metavar="N", help="instead of --drop: which drop N tasks detect")
    power.add_argument("--trials", type=int, default=1, metavar="T", help="trials per task (default 1)")
    power.add_argument("--icc", type=_fraction, default=0.0, metavar="R",
                       help="ICC(1) of the trials (stability.icc); discounts repeated trials (default 0)")
    power.add_argument("--design", choices=["one-sample", "two-sample", "paired"], default="two-sample",
                       help="against a known rate, two independent runs (default), or the same tasks paired")
    power.add_argument("--discordant", type=_fraction, metavar="PSI",
                       help="paired: the share of pairs that differ (default: from --rate, --drop and --icc)")
    power.add_argument("--alpha", type=_fraction, default=0.05, help="two-sided significance level (default 0.05)")
    power.add_argument("--power", type=_fraction, default=0.8, help="the chance to detect the drop (default 0.8)")
    power.add_argument("--exact", action="store_true", help="one sample: the exact binomial test, not the normal "
                       "approximation")
    power.add_argument("--json", action="store_true", help="print the answer as JSON")
    power.set_defaults(func=_power)

    mock = sub.add_parser("mock", help="a real MCP server over stdio (newline-delimited JSON-RPC), from a YAML "
                          "manifest or a JSON tools/list snapshot, for tests and examples")
    mock.add_argument("--tools-from", metavar="FILE", required=True,
                      help="a manifest (mock_server: {...}) or a tools/list snapshot")
    mock.add_argument("--fault", metavar="SPEC", default="none",
                      help="on tools/call: none | hang | slow:<ms> | recover-after:<n> (default: none)")
    mock.set_defaults(func=_mock)

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
    rec.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                     help="with --http: how long one request may wait for the endpoint's answer before the host "
                          "gets an error instead (default 60)")
    rec.add_argument("server_command", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]")
    rec.set_defaults(func=_record)

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
    srv.set_defaults(func=_serve)

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
    ver.add_argument("--timeout", type=_seconds, default=30.0, metavar="SECONDS",
                     help="how long one answer may take (default 30)")
    ver.set_defaults(func=_verify, server_command=[])  # the command after -- (see main)

    from ..importers import IMPORTERS

    imp = sub.add_parser("import", help="turn existing logs into a cassette")
    imp.add_argument("kind", choices=["auto", *IMPORTERS],
                     help="the log's format; auto guesses it from the content and says which it chose")
    imp.add_argument("file", metavar="FILE", help="the log to read (JSON or JSONL; an inspect_ai .eval zip)")
    imp.add_argument("-o", "--output", required=True, metavar="CASSETTE", help="the cassette to write")
    imp.add_argument("--force", action="store_true", help="overwrite CASSETTE if it exists")
    imp.add_argument("--tools", metavar="TOOLS.json", help="tool definitions kept apart from the log, recorded "
                     "as the cassette's catalog (replacing any the log has)")
    imp.set_defaults(func=_import)

    init = sub.add_parser("init", help="write a starting suite from what a cassette recorded")
    init.add_argument("cassette", metavar="CASSETTE", help="the cassette to start from")
    init.add_argument("--kind", choices=["agent", "scenario"], help="the block to write (default: scenario when "
                      "the cassette was recorded for a scenario, else agent)")
    init.add_argument("-o", "--output", metavar="SUITE", help="write the suite there (default: print it)")
    init.add_argument("--force", action="store_true", help="overwrite SUITE if it exists")
    init.set_defaults(func=_init)
    return parser


def _merge_parser() -> argparse.ArgumentParser:
    """``mcptest report merge``: parsed apart, since ``report`` takes a report's path first."""
    merge = _Parser(prog="mcptest report merge", description="merge the JSON reports of CI shards into the "
                    "report of one run (byte for byte what one unsharded run writes)")
    merge.add_argument("shards", nargs="+", metavar="SHARD.json", help="the shards' reports")
    merge.add_argument("-o", "--output", required=True, metavar="OUT.json", help="the merged report to write")
    return merge


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] == ["report", "merge"]:
        from ..report.merge import run as merge

        args = _merge_parser().parse_args(argv[2:])
        return merge(args.shards, args.output)
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
