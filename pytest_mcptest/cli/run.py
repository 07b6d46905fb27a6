"""``mcptest run`` and ``mcptest scenario run``: the suites through pytest with this plugin, so a
block's outcome (marks such as ``skip``, ``skipif`` and ``xfail`` included) is pytest's own and
cannot drift from what ``pytest`` says."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from typing import Optional, Sequence

from ..errors import InputError
from .common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, Parser


def add_parser(sub) -> None:
    parser = sub.add_parser("run", help="run every block of the suites, as pytest would", allow_abbrev=False,
                         usage="mcptest run SUITE... [--config FILE] [--cassette-dir DIR] [--json] "
                               "[--record [--dry-run]] [any pytest option, e.g. -k X -m Y -x --lf -n 2]",
                         description="Every other argument, suites and pytest options alike, goes to pytest "
                                     "in the order written (after a lone --, too).")
    parser.add_argument("--config", action="append", metavar="FILE", help="a suite to run (repeatable)")
    parser.add_argument("--cassette-dir", metavar="DIR")
    parser.add_argument("--json", action="store_true", help="print the JSON report on stdout")
    parser.add_argument("--record", action="store_true",
                     help="record live what has no cassette yet (record mode once; needs mcptest[live] and the "
                          "provider's key), then judge it")
    parser.add_argument("--dry-run", action="store_true",
                     help="with --record: list which items would call which model how many times, calling nothing")
    parser.set_defaults(func=run)
    scenario = sub.add_parser("scenario", help="scenario worlds")
    scenario_sub = scenario.add_subparsers(dest="action", required=True, parser_class=Parser)
    srun = scenario_sub.add_parser("run", help="replay a suite's scenarios against their worlds")
    srun.add_argument("suite", metavar="SUITE")
    srun.add_argument("--cassette-dir", metavar="DIR", help="resolve cassette: paths against DIR")
    srun.add_argument("--name", action="append", metavar="NAME", help="run only this scenario (repeatable)")
    srun.add_argument("--json", action="store_true", help="print the structured report instead of the summary")
    srun.set_defaults(func=scenario_run)


def option_value(args: Sequence[str], name: str) -> Optional[str]:
    """The value the last ``name VALUE`` or ``name=VALUE`` among ``args`` gives (pytest's
    own rule: the last one wins), or None."""
    value = None
    for i, arg in enumerate(args):
        if arg.startswith(name + "="):
            value = arg[len(name) + 1:]
        elif arg == name and i + 1 < len(args):
            value = args[i + 1]
    return value


def run_pytest(targets: list[str], cassette_dir: Optional[str], as_json: bool, extra: Sequence[str] = ()) -> int:
    """Run pytest on ``targets`` (with ``extra`` pytest options, any of pytest's, in the
    user's order); print its output (or, with ``as_json``, the report)."""
    import pytest

    from ..report.document import dumps
    from ..text import json_printable

    with tempfile.TemporaryDirectory() as tmp:
        # The user's own --mcptest-report (the last one wins in pytest) is the one read back.
        report_path = option_value(extra, "--mcptest-report") or os.path.join(tmp, "report.json")
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


def run(args) -> int:
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
    return run_pytest(targets, args.cassette_dir, args.json, extra)


def scenario_run(args) -> int:
    """The scenarios of one suite (or those named), through pytest."""
    from ..formats.files import regular_file_problem
    from ..gates.suite_cache import load_suite_cached

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
    return run_pytest([f"{args.suite}::{name}" for name in names], args.cassette_dir, args.json)
