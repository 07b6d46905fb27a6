"""The ``mcptest`` command: the same model, engine and expect as the pytest items.

Exit status: 0 all passed, 1 a gate failed, 2 bad input or usage (reason on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from typing import Optional, Sequence

from .errors import InputError
from .evaluate import Context, Verdict, evaluate
from .render import render_verdict, summary_line
from .report import build_report, dumps, item_entry

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own exit code is 2 too; keep its text
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _display(path: str) -> str:
    rel = os.path.relpath(path)
    return (path if rel.startswith("..") else rel).replace(os.sep, "/")


def _outcome(verdict: Verdict) -> str:
    """The outcome pytest would give this block, marks included."""
    marks = {m.name: m for m in verdict.block.marks}
    if "skip" in marks:
        return "skipped"
    if "xfail" in marks:
        if not verdict.passed:
            return "xfailed"
        return "failed" if marks["xfail"].kwargs.get("strict") else "xpassed"
    return "passed" if verdict.passed else "failed"


def _scenario_run(args) -> int:
    from .suite.cache import load_suite_cached

    try:
        suite = load_suite_cached(args.suite)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"{args.suite}: cannot read: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    scenarios = [b for b in suite.blocks if b.kind == "scenario"]
    if args.name:
        known = {b.name for b in scenarios}
        unknown = [n for n in args.name if n not in known]
        if unknown:
            print(f"{args.suite}: no scenario named {unknown[0]!r}; scenarios: "
                  f"{', '.join(repr(b.name) for b in scenarios) or 'none'}", file=sys.stderr)
            return EXIT_USAGE
        scenarios = [b for b in scenarios if b.name in args.name]
    if not scenarios:
        print(f"{args.suite}: no scenarios to run", file=sys.stderr)
        return EXIT_USAGE
    cassette_dir = os.path.abspath(args.cassette_dir) if args.cassette_dir else None
    ctx = Context(cassette_dir=cassette_dir)
    shown = _display(args.suite)
    entries, counts = [], {}
    for block in scenarios:
        verdict = evaluate(block, ctx)
        outcome = _outcome(verdict)
        counts[outcome] = counts.get(outcome, 0) + 1
        entries.append(dict(item_entry(f"{shown}::{block.name}", block, verdict), outcome=outcome))
        if not args.json:
            print(f"{outcome.upper():8} {block.name}" + (f"  ({summary_line(verdict)})" if not verdict.passed else ""))
            if outcome == "failed" and not verdict.passed:
                print(render_verdict(verdict, file=shown))
                print()
    if args.json:
        sys.stdout.write(dumps(build_report(entries, {})))
    else:
        order = ("passed", "failed", "skipped", "xfailed", "xpassed")
        print(", ".join(f"{counts.get(k, 0)} {k}" for k in order if k in ("passed", "failed") or counts.get(k)))
    return EXIT_FAILED if counts.get("failed") else EXIT_OK


def _run(args) -> int:
    """Every block of the suites, through pytest with this plugin."""
    import json

    import pytest

    missing = [s for s in args.suites if not os.path.exists(s)]
    if missing:
        print(f"{missing[0]}: no such file or directory", file=sys.stderr)
        return EXIT_USAGE
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "report.json")
        argv = list(args.suites) + ["-p", "no:cacheprovider", f"--mcptest-report={report_path}",
                                    "-o", "python_files=", "-q"]
        if args.cassette_dir:
            argv.append(f"--cassette-dir={os.path.abspath(args.cassette_dir)}")
        out = sys.stderr if args.json else sys.stdout
        with contextlib.redirect_stdout(out):
            code = int(pytest.main(argv))
        report = None
        if os.path.exists(report_path):
            with open(report_path, encoding="utf-8") as fh:
                report = json.load(fh)
    if args.json and report is not None:
        sys.stdout.write(dumps(report))
    if report is None or report.get("errors") or code not in (0, 1):
        return EXIT_USAGE
    return EXIT_OK if code == 0 else EXIT_FAILED


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
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
