"""The ``mcptest`` command: the same model, engine and expect as the pytest items.

Both ``run`` and ``scenario run`` drive pytest with this plugin, so a block's outcome
(marks such as ``skip``, ``skipif`` and ``xfail`` included) is pytest's own and cannot
drift from what ``pytest`` says. Exit status: 0 all passed, 1 a gate failed, 2 bad
input or usage (the reason on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
import tempfile
from typing import Optional, Sequence

from .errors import InputError
from .report import dumps

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own exit code is 2 too; keep its text
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _pytest(targets: list[str], cassette_dir: Optional[str], as_json: bool, extra: Sequence[str] = ()) -> int:
    """Run pytest on ``targets`` (with ``extra`` pytest options); print its output (or,
    with ``as_json``, the report)."""
    import pytest

    with tempfile.TemporaryDirectory() as tmp:
        # The user's own --mcptest-report is the one read back (theirs, given last, wins in pytest).
        report_path = _report_option(extra) or os.path.join(tmp, "report.json")
        verbose = any(a == "--verbose" or (a.startswith("-v") and set(a[1:]) == {"v"}) for a in extra)
        argv = targets + ["-p", "no:cacheprovider", f"--mcptest-report={report_path}", "-o", "python_files=",
                          *([] if verbose else ["-q"]), *extra]  # -q would cancel the user's -v
        if cassette_dir:
            argv.append(f"--cassette-dir={os.path.abspath(cassette_dir)}")
        with contextlib.redirect_stdout(sys.stderr if as_json else sys.stdout):
            code = int(pytest.main(argv))
        report = None
        if os.path.exists(report_path):
            with open(report_path, encoding="utf-8") as fh:
                report = json.load(fh)
    if as_json and report is not None:
        sys.stdout.write(dumps(report))
    if code == 5:
        print(f"mcptest: no block to run in {', '.join(targets)} (no *.mcptest.yml suite there, or none "
              "selected)", file=sys.stderr)
        return EXIT_USAGE
    if report is None or code not in (0, 1):
        print(f"mcptest: pytest stopped with exit status {code} (see its output above)", file=sys.stderr)
        return EXIT_USAGE
    if report.get("errors"):
        for error in report["errors"]:
            print(f"mcptest: bad suite {error['file']}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK if code == 0 else EXIT_FAILED


def _report_option(extra: Sequence[str]) -> Optional[str]:
    """The path of the last ``--mcptest-report`` among the pytest options, if any."""
    found = None
    for i, arg in enumerate(extra):
        if arg.startswith("--mcptest-report="):
            found = arg.split("=", 1)[1]
        elif arg == "--mcptest-report" and i + 1 < len(extra):
            found = extra[i + 1]
    return found


def _run(args) -> int:
    """Every block of the suites, as pytest would run them."""
    from .files import regular_file_problem

    for suite in args.suites:
        if not os.path.exists(suite):
            print(f"{suite}: no such file or directory", file=sys.stderr)
            return EXIT_USAGE
        problem = None if os.path.isdir(suite) else regular_file_problem(suite)
        if problem:
            print(f"{suite}: {problem}", file=sys.stderr)
            return EXIT_USAGE
    extra = list(args.pytest_args)
    if args.record and not any(a.startswith("--mcptest-record-mode") for a in extra):
        extra.append("--mcptest-record-mode=once")  # record what has no cassette yet, replay the rest
    if args.dry_run:
        if not args.record and not any(a.startswith("--mcptest-record-mode") for a in extra):
            print("mcptest run: --dry-run goes with --record (or a record mode that records)", file=sys.stderr)
            return EXIT_USAGE
        extra.append("--mcptest-dry-run")
    return _pytest(list(args.suites), args.cassette_dir, args.json, extra)


def _scenario_run(args) -> int:
    """The scenarios of one suite (or those named), through pytest."""
    from .files import regular_file_problem
    from .suite.cache import load_suite_cached

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
    from .files import file_above

    if os.path.isdir(path):
        return f"{path}: is a directory; name the cassette file to write"
    under = file_above(path)
    return f"{path}: cannot be written, {under} is a file, not a folder" if under is not None else ""


def _import(args) -> int:
    """Turn an existing log into a cassette, checked by reading it back before it is written."""
    from .cassette import dump_cassette, parse_cassette, write_cassette
    from .files import read_text
    from .importers import import_text
    from .importers.common import catalog_file, parse_once, summary

    try:
        text = read_text(args.file)
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
    gc_was_enabled = gc.isenabled()
    gc.disable()  # a large log makes millions of small containers and no cycles: a third of the time went to the collector
    try:
        with parse_once():  # the log's JSON is parsed once, to guess its kind and to import it
            kind = _kind_to_import(args, text)
            if kind is None:
                return EXIT_USAGE
            cassette = import_text(kind, args.file, text)
        del text
        if args.tools is not None:
            cassette["catalog"] = catalog_file(args.tools, _side_file(args.tools))
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
    finally:
        if gc_was_enabled:
            gc.enable()
    print(f"{args.output}: {counts['runs']} runs, {counts['calls']} tool calls "
          f"({counts['errors']} errors, {counts['without_result']} without a result, "
          f"{counts['invalid_json_args']} with arguments that are not valid JSON, kept as text and flagged"
          + (f", {counts['unmatched_results']} results matching no call" if counts["unmatched_results"] else "")
          + f") from {args.file}" + (f", detected as {kind}" if args.kind == "auto" else ""))
    return EXIT_OK


def _kind_to_import(args, text: str) -> Optional[str]:
    """The kind to import ``args.file`` as: the one named, or with ``auto`` the one guessed;
    None (with the reason on stderr) when it cannot be guessed or the file is of another kind."""
    from .importers import IMPORTERS
    from .importers.detect import detect_kind

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
    from .files import read_text

    try:
        return read_text(path)
    except FileNotFoundError:
        raise InputError(path, "cannot read: no such file") from None


def _judge(block, as_json: bool, describe) -> int:
    """Judge one block exactly as its pytest item would (the same evaluate() and the same
    failure text), then print it: ``describe(envelope)`` lines and the failure text, or the
    JSON report of that one item. A recording that cannot be had is bad input (exit 2)."""
    from .context import Context
    from .evaluate import evaluate
    from .render import render_verdict
    from .report import build_report, item_entry
    from .text import printable

    verdict = evaluate(block, Context(root=os.getcwd()))
    if verdict.problems:  # what was to be judged could not be read: the reason, nothing else
        for problem in verdict.problems:
            print(printable(problem.message), file=sys.stderr)
        return EXIT_USAGE
    if as_json:
        entry = item_entry(f"{block.file}::{block.name}", block, verdict)
        entry["outcome"] = "passed" if verdict.passed else "failed"
        sys.stdout.write(dumps(build_report([entry], {})))
    else:
        for line in describe(verdict.envelope):
            print(printable(line))  # tool names and descriptions come from a server: escaped
        if not verdict.passed:
            print(render_verdict(verdict))
    return EXIT_OK if verdict.passed else EXIT_FAILED


def _record(args) -> int:
    """``mcptest record``: proxy one MCP host session to a stdio server and write it as a run."""
    from .record.proxy import record
    from .record.redact import redactor
    from .record.store import read_raw, reserved

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
            scrub = redactor(args.redact or (), where="mcptest record --redact")
            if args.append:
                read_raw(args.out)  # a cassette that cannot take another run is refused before the session
            return record(command, args.out, args.server_name, args.append, scrub, url=args.http)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except InputError as exc:
        print(f"mcptest record --append: {exc.render()}", file=sys.stderr)
        return EXIT_USAGE


def _record_out_problem(args) -> str:
    """Why ``mcptest record`` cannot write ``--out``, checked before the session starts."""
    from .files import output_problem

    if os.path.lexists(args.out) and not (args.append or args.force):  # a dangling link too
        return (f"{args.out}: already exists; pass --append to add this session as a new run, "
                f"or --force to replace it")
    problem = output_problem(args.out)
    return f"{args.out}: {problem}; nothing was recorded" if problem else ""



def _doctor_block(args):
    """The ``tool_quality`` block for ``--catalog FILE`` or ``--server NAME --config SUITE``."""
    from .gates.sources import resolve_server
    from .gates.tool_quality import for_server
    from .files import regular_file_problem
    from .suite.cache import load_suite_cached

    if args.catalog:
        return for_server(os.path.basename(args.catalog), {"catalog": os.path.abspath(args.catalog)}, args.catalog)
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
    return for_server(args.server, resolve_server(spec, os.path.dirname(os.path.abspath(args.config))), args.config)


def _doctor(args) -> int:
    """Every description finding, tool by tool, then the verdict of spec 001's default
    gates (the ``tool_quality`` item's): exit 1 when the catalog misses them."""
    from .gates.tool_quality import summary_lines

    if not args.lint_descriptions:
        print("mcptest doctor: nothing to do; pass --lint-descriptions", file=sys.stderr)
        return EXIT_USAGE
    try:
        block = _doctor_block(args)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    return _judge(block, args.json, summary_lines)


def _tool_bench(args) -> int:
    """Selection accuracy and how far each mutation drops it; exit 1 when below min_drop
    (``--min-drop`` or the spec's own), judged as the ``tool_bench`` item would be."""
    import attrs

    from .gates.tool_bench import from_spec_file, summary_lines

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


def _report(args) -> int:
    """A saved report at a glance, or (``--compare``) its deltas and floor flips against a
    baseline; ``--html`` also writes the HTML report (the same bytes ``--mcptest-html``
    writes for the same items). Exit 1 only with --compare, when something flipped to failed."""
    from .report import compare_reports, comparison_problem, load_report, render_comparison, render_summary

    try:
        current = load_report(args.current)
        baseline = load_report(args.compare) if args.compare else None
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    if args.html is not None:
        from .htmlreport import unavailable, write_html

        problem = unavailable() or (f"--html needs a file path, found {args.html!r}"
                                    if not args.html.strip() or os.path.isdir(args.html) else None)
        if problem:
            print(f"mcptest report: {problem}", file=sys.stderr)
            return EXIT_USAGE
        write_html(args.html, current, compare_reports(current, baseline) if baseline is not None else None,
                   os.path.basename(args.compare) if args.compare else "")
    if baseline is None:
        if args.json:
            sys.stdout.write(dumps(current))
        else:
            print(render_summary(current))
        return EXIT_OK
    comparison = compare_reports(current, baseline)
    if args.json:
        sys.stdout.write(json.dumps(comparison, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    else:
        print(render_comparison(comparison))
    problem = comparison_problem(comparison)
    if problem:
        print(f"mcptest report: {problem}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_FAILED if comparison["regressions"] else EXIT_OK


def _mock(args) -> int:
    """Serve the manifest or snapshot until stdin closes (exit 2 for bad input)."""
    from .mcp.mock_server import run

    return run(args.tools_from, args.fault)


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = _Parser(prog="mcptest", description="Replay recorded MCP agent runs and gate them offline.")
    parser.add_argument("--version", action="version", version=f"mcptest {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = sub.add_parser("run", help="run every block of the suites, as pytest would",
                         usage="mcptest run SUITE... [--cassette-dir DIR] [--json] [--record [--dry-run]] "
                               "[pytest options, e.g. -k X -m Y -x]")
    run.add_argument("suites", nargs="+", metavar="SUITE")
    run.add_argument("--cassette-dir", metavar="DIR")
    run.add_argument("--json", action="store_true", help="print the JSON report on stdout")
    run.add_argument("--record", action="store_true",
                     help="record live what has no cassette yet (record mode once; needs mcptest[live] and the "
                          "provider's key), then judge it")
    run.add_argument("--dry-run", action="store_true",
                     help="with --record: list which items would call which model how many times, calling nothing")
    run.set_defaults(func=_run)

    scenario = sub.add_parser("scenario", help="scenario worlds (spec 000)")
    scenario_sub = scenario.add_subparsers(dest="action", required=True, parser_class=_Parser)
    srun = scenario_sub.add_parser("run", help="replay a suite's scenarios against their worlds")
    srun.add_argument("suite", metavar="SUITE")
    srun.add_argument("--cassette-dir", metavar="DIR", help="resolve cassette: paths against DIR")
    srun.add_argument("--name", action="append", metavar="NAME", help="run only this scenario (repeatable)")
    srun.add_argument("--json", action="store_true", help="print the structured report instead of the summary")
    srun.set_defaults(func=_scenario_run)

    doctor = sub.add_parser("doctor", help="look at a server's tool catalog")
    doctor.add_argument("--lint-descriptions", action="store_true", help="every DESC/SCH finding, tool by tool")
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

    report = sub.add_parser("report", help="summarize a saved JSON report, or compare it with a baseline")
    report.add_argument("current", metavar="CURRENT.json", help="a report written by --mcptest-report or --json")
    report.add_argument("--compare", metavar="BASELINE.json", help="per-item deltas and floor flips against it")
    report.add_argument("--json", action="store_true", help="print the comparison (or the report) as JSON")
    report.add_argument("--html", metavar="PATH", help="also write the self-contained HTML report to PATH")
    report.set_defaults(func=_report)

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
    rec.add_argument("server_command", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]")
    rec.set_defaults(func=_record)

    imp = sub.add_parser("import", help="turn existing logs into a cassette")
    imp.add_argument("kind", choices=["auto", "openai-chat", "anthropic", "otel", "claude-code", "swe-agent"],
                     help="the log's format; auto guesses it from the content and says which it chose")
    imp.add_argument("file", metavar="FILE", help="the log to read (JSON or JSONL)")
    imp.add_argument("-o", "--output", required=True, metavar="CASSETTE", help="the cassette to write")
    imp.add_argument("--force", action="store_true", help="overwrite CASSETTE if it exists")
    imp.add_argument("--tools", metavar="TOOLS.json", help="tool definitions kept apart from the log, recorded "
                     "as the cassette's catalog (replacing any the log has)")
    imp.set_defaults(func=_import)
    return parser


# `mcptest run`'s own options; every other option goes to pytest.
_RUN_FLAGS = ("--json", "--record", "--dry-run", "-h", "--help")
_RUN_OPTIONS = ("--cassette-dir",)


def _split_run(argv: list[str]) -> tuple[list[str], list[str]]:
    """``mcptest run``'s arguments, and the pytest options among them (``-k widget``,
    ``-m smoke``, ``-x``, ``--junitxml=out.xml``, and all after ``--``), in their order.

    An option's value is taken with it when it does not name an existing path (so
    ``-k widget examples/`` passes ``-k widget`` and keeps ``examples/`` a suite).
    """
    ours: list[str] = []
    passed: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            passed += argv[i + 1:]
            break
        if arg in _RUN_FLAGS or arg.startswith(tuple(o + "=" for o in _RUN_OPTIONS)):
            ours.append(arg)
        elif arg in _RUN_OPTIONS:
            ours += argv[i:i + 2]
            i += 1
        elif arg.startswith("-"):
            passed.append(arg)
            value = argv[i + 1] if i + 1 < len(argv) else None
            if "=" not in arg and value is not None and not value.startswith("-") and not os.path.exists(value):
                passed.append(value)
                i += 1
        else:
            ours.append(arg)
        i += 1
    return ours, passed


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    passed: list[str] = []
    if argv[:1] == ["run"]:
        mine, passed = _split_run(argv[1:])
        argv = ["run"] + mine
    args = build_parser().parse_args(argv)
    args.pytest_args = passed
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
