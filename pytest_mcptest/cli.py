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

from .errors import InputError
from .report import dumps

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own exit code is 2 too; keep its text
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _pytest(targets: list[str], cassette_dir: Optional[str], as_json: bool) -> int:
    """Run pytest on ``targets``; print its output (or, with ``as_json``, the report)."""
    import pytest

    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "report.json")
        argv = targets + ["-p", "no:cacheprovider", f"--mcptest-report={report_path}", "-o", "python_files=", "-q"]
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
    if report is None or code not in (0, 1):
        print(f"mcptest: pytest stopped with exit status {code} (see its output above)", file=sys.stderr)
        return EXIT_USAGE
    if report.get("errors"):
        for error in report["errors"]:
            print(f"mcptest: bad suite {error['file']}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK if code == 0 else EXIT_FAILED


def _run(args) -> int:
    """Every block of the suites, as pytest would run them."""
    missing = [s for s in args.suites if not os.path.exists(s)]
    if missing:
        print(f"{missing[0]}: no such file or directory", file=sys.stderr)
        return EXIT_USAGE
    return _pytest(list(args.suites), args.cassette_dir, args.json)


def _scenario_run(args) -> int:
    """The scenarios of one suite (or those named), through pytest."""
    from .suite.cache import load_suite_cached

    if not os.path.isfile(args.suite):
        print(f"{args.suite}: no such file", file=sys.stderr)
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


def _import(args) -> int:
    """Turn an existing log into a cassette, checked by reading it back before it is written."""
    from .cassette import dump_cassette, parse_cassette, write_cassette
    from .importers import import_text
    from .importers.common import summary

    try:
        with open(args.file, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        print(f"{args.file}: cannot read: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    if os.path.isdir(args.output):
        print(f"{args.output}: is a directory; name the cassette file to write", file=sys.stderr)
        return EXIT_USAGE
    if os.path.exists(args.output):
        if os.path.exists(args.file) and os.path.samefile(args.file, args.output):
            print(f"{args.output}: is the file being imported; write the cassette elsewhere", file=sys.stderr)
            return EXIT_USAGE
        if not args.force:
            print(f"{args.output}: already exists; pass --force to overwrite it", file=sys.stderr)
            return EXIT_USAGE
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        print(f"{args.file}: not UTF-8 text: {exc.reason} at byte {exc.start}", file=sys.stderr)
        return EXIT_USAGE
    try:
        cassette = import_text(args.kind, args.file, text)
        parse_cassette(args.output, dump_cassette(cassette))  # what replay will read, read once now
        write_cassette(args.output, cassette, overwrite=args.force)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    except FileExistsError:
        print(f"{args.output}: already exists; pass --force to overwrite it", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"{args.output}: cannot write: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    counts = summary(cassette)
    print(f"{args.output}: {counts['runs']} runs, {counts['calls']} tool calls "
          f"({counts['errors']} errors, {counts['without_result']} without a result, "
          f"{counts['invalid_json_args']} with arguments that are not valid JSON, kept as text and flagged"
          + (f", {counts['unmatched_results']} results matching no call" if counts["unmatched_results"] else "")
          + f") from {args.file}")
    return EXIT_OK


def _record(args) -> int:
    """``mcptest record``: proxy one MCP host session to a stdio server and write it as a run."""
    from .record.proxy import record
    from .record.redact import redactor
    from .record.store import read_raw

    command = args.server_command[1:] if args.server_command[:1] == ["--"] else args.server_command
    if bool(command) == bool(args.http):
        print("mcptest record: give the server command after -- (mcptest record --out CASSETTE -- COMMAND "
              "[ARGS...]) or a Streamable HTTP endpoint (--http URL), not both", file=sys.stderr)
        return EXIT_USAGE
    if os.path.isdir(args.out):
        print(f"{args.out}: is a directory; name the cassette file to write", file=sys.stderr)
        return EXIT_USAGE
    if os.path.exists(args.out) and not (args.append or args.force):
        print(f"{args.out}: already exists; pass --append to add this session as a new run, "
              f"or --force to replace it", file=sys.stderr)
        return EXIT_USAGE
    try:
        scrub = redactor(args.redact or (), where="mcptest record --redact")
        if args.append:
            read_raw(args.out)  # a cassette that cannot take another run is refused before the session
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except InputError as exc:
        print(f"mcptest record --append: {exc.render()}", file=sys.stderr)
        return EXIT_USAGE
    return record(command, args.out, args.server_name, args.append, scrub, url=args.http)


def _one_item_report(item_id: str, kind: str, name: str, envelope: dict, failures: list, passed: bool) -> dict:
    """The report object of a command that judges one thing (a catalog, a bench spec)."""
    return {"mcptest_report": 1, "items": [{"id": item_id, "name": name, "kind": kind, "file": item_id,
                                            "line": 1, "outcome": "passed" if passed else "failed",
                                            "envelope": envelope, "failures": failures}]}


def _catalog_from_args(args) -> tuple[str, object]:
    """(what was read, the catalog) for ``--catalog FILE`` or ``--server NAME --config SUITE``."""
    from .evaluate import read_catalog, server_catalog
    from .suite.build import resolve_server
    from .suite.cache import load_suite_cached

    if args.catalog:
        return args.catalog, read_catalog(args.catalog, args.catalog)
    if not (args.server and args.config):
        raise InputError("mcptest doctor", "give --catalog FILE, or --server NAME with --config SUITE")
    suite = load_suite_cached(args.config)
    spec = suite.servers.get(args.server)
    if spec is None:
        raise InputError(args.config, f"no server named {args.server!r} under servers: "
                         f"(servers: {', '.join(sorted(suite.servers)) or 'none'})")
    return server_catalog(args.server, resolve_server(spec, os.path.dirname(os.path.abspath(args.config))), None)


def _doctor(args) -> int:
    """Every description finding, tool by tool. Exit 1 when a Critical finding is there."""
    from .engine.quality import score_catalog

    if not args.lint_descriptions:
        print("mcptest doctor: nothing to do; pass --lint-descriptions", file=sys.stderr)
        return EXIT_USAGE
    try:
        source, catalog = _catalog_from_args(args)
        quality = score_catalog(catalog)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    except ValueError as exc:
        print(f"mcptest doctor: {exc}", file=sys.stderr)
        return EXIT_USAGE
    envelope = quality.to_dict()
    critical = envelope["critical_count"] > 0
    if args.json:
        sys.stdout.write(dumps(_one_item_report(source, "tool_quality", f"lint {source}", envelope,
                                                [], not critical)))
        return EXIT_FAILED if critical else EXIT_OK
    for tool in quality.tools:
        print(f"{tool.name}  score {tool.score:.2f}")
        for f in tool.findings + tool.schema_findings:
            where = f" [{f.argument}]" if getattr(f, "argument", None) else ""
            hint = f"  -> {f.suggestion}" if f.suggestion else ""
            print(f"  {f.rule:8} {f.severity:8} {f.message}{where}{hint}")
    print(f"{len(quality.tools)} tools: min score {envelope.get('min_score')}, mean {envelope.get('mean_score')}, "
          f"{envelope['critical_count']} critical, {envelope['warning_count']} warnings, "
          f"{envelope['schema_criticals']} schema critical, {envelope['schema_warnings']} schema warnings")
    return EXIT_FAILED if critical else EXIT_OK


def _tool_bench(args) -> int:
    """Selection accuracy and how far each mutation drops it; exit 1 when below --min-drop."""
    from .engine.toolbench import run_bench
    from .evaluate import read_catalog
    from .suite.build import read_text
    from .suite.loader import load_documents

    try:
        docs = load_documents(args.spec, read_text(args.spec))
        spec = docs[0][0] if docs else None
        if not isinstance(spec, dict) or ("catalog" in spec) == ("catalog_path" in spec):
            raise InputError(args.spec, "a tool-bench spec is an object with one of catalog: or catalog_path:, "
                             "and intents:, mutations:")
        catalog = spec.get("catalog")
        if "catalog_path" in spec:
            path = os.path.join(os.path.dirname(os.path.abspath(args.spec)), spec["catalog_path"])
            catalog = read_catalog(path, spec["catalog_path"])
        min_drop = args.min_drop if args.min_drop is not None else spec.get("min_drop")
        bench = run_bench(catalog, spec.get("intents") or [], spec.get("mutations") or [], min_drop)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, TypeError, KeyError) as exc:
        print(f"{args.spec}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    failed = bench.passed is False
    envelope = bench.to_dict()
    if args.json:
        failures = [{"gate": "min_drop", "message": f"largest drop {bench.max_drop} < {min_drop}"}] if failed else []
        sys.stdout.write(dumps(_one_item_report(args.spec, "tool_bench", f"tool-bench {args.spec}", envelope,
                                                failures, not failed)))
        return EXIT_FAILED if failed else EXIT_OK
    ci = f" (95% Wilson {envelope['ci_low']:.2f}-{envelope['ci_high']:.2f})" if "ci_low" in envelope else ""
    print(f"selection accuracy {bench.correct}/{bench.total}{ci}, TDQS mean {envelope.get('tdqs_mean')} "
          f"min {envelope.get('tdqs_min')}, catalog {bench.catalog_tokens} whitespace tokens")
    for m in envelope["mutations"]:
        print(f"  {m['tool']} {m['kind']}: drop {m['drop']}, smells introduced {m['smells_introduced']}, "
              f"tokens removed {m['tokens_removed']}")
    if min_drop is not None:
        verdict = "FAIL" if failed else "PASS"
        print(f"{verdict}: largest drop {bench.max_drop} against min-drop {min_drop}")
    return EXIT_FAILED if failed else EXIT_OK


def _report(args) -> int:
    """A saved report at a glance, or (``--compare``) its deltas and floor flips against a
    baseline. Exit 1 only with --compare, when something flipped to failed."""
    from .report import compare_reports, load_report, render_comparison, render_summary

    try:
        current = load_report(args.current)
        baseline = load_report(args.compare) if args.compare else None
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
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
    return EXIT_FAILED if comparison["regressions"] else EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="mcptest", description="Replay recorded MCP agent runs and gate them offline.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = sub.add_parser("run", help="run every block of the suites, as pytest would")
    run.add_argument("suites", nargs="+", metavar="SUITE")
    run.add_argument("--cassette-dir", metavar="DIR")
    run.add_argument("--json", action="store_true", help="print the JSON report on stdout")
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
    brun.add_argument("--min-drop", type=float, metavar="FRACTION", help="fail when the largest drop is below it")
    brun.add_argument("--json", action="store_true", help="print the report object")
    brun.set_defaults(func=_tool_bench)

    report = sub.add_parser("report", help="summarize a saved JSON report, or compare it with a baseline")
    report.add_argument("current", metavar="CURRENT.json", help="a report written by --mcptest-report or --json")
    report.add_argument("--compare", metavar="BASELINE.json", help="per-item deltas and floor flips against it")
    report.add_argument("--json", action="store_true", help="print the comparison (or the report) as JSON")
    report.set_defaults(func=_report)

    # Listed for `mcptest --help`; main() hands `mcptest mock ...` to the mock server's own parser.
    sub.add_parser("mock", help="a real MCP server over stdio: --tools-from FILE [--fault none|hang|slow:<ms>|"
                   "recover-after:<n>]")

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
    imp.add_argument("kind", choices=["openai-chat", "anthropic", "otel"], help="the log's format")
    imp.add_argument("file", metavar="FILE", help="the log to read (JSON or JSONL)")
    imp.add_argument("-o", "--output", required=True, metavar="CASSETTE", help="the cassette to write")
    imp.add_argument("--force", action="store_true", help="overwrite CASSETTE if it exists")
    imp.set_defaults(func=_import)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["mock"]:  # the mock server parses its own options (argparse would eat them)
        from .mcp.mock_server import main as mock_main

        return mock_main(argv[1:])
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
