"""``mcptest report``: a saved report at a glance, compared with a baseline, or written as HTML or
Markdown; ``mcptest report merge`` joins the reports of CI shards."""

from __future__ import annotations

import argparse
import json
import os
import sys

from .common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, Parser


def add_parser(sub) -> None:
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
    report.add_argument("--allow-basis-change", action="store_true",
                        help="with --compare: draw the significance verdict even when the two reports were graded "
                             "on a different basis (judge model or prompt, grading options, mcptest major version); "
                             "without it that is exit 2. Other basis differences (the agent's model) are listed "
                             "and allowed")
    report.add_argument("--fail-on", action="append", choices=["failed", "regression", "floor"],
                        help="exit 1 when an item failed, when --compare finds a significant regression, or "
                             "when a floor failed (with --compare: flipped to failed); repeatable")
    report.set_defaults(func=run)


def run(args) -> int:
    """A saved report at a glance, or (``--compare``) the verdict of the paired tests, the
    significant changes and the floor flips against a baseline; ``--html`` and
    ``--markdown`` also write those reports (the same bytes ``--mcptest-html`` and
    ``--mcptest-markdown`` write for the same items). Exit 1 when a floor flipped to failed
    against the baseline, or when a ``--fail-on`` condition holds."""
    from ..report.document import (compare_reports, comparison_problem, dumps, failing, load_report,
                                   render_comparison, render_summary)
    from ..text import json_printable, printable

    try:
        current = load_report(args.current)
        baseline = load_report(args.compare) if args.compare else None
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    comparison = (compare_reports(current, baseline, correction=args.correction,
                                  allow_basis_change=args.allow_basis_change) if baseline is not None else None)
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
    if comparison["basis"]["refused"]:  # the text above says why; the JSON does in its basis
        reason = comparison["basis"]["graded_apart"] if args.json else "the grading basis differs (see above)"
        print(f"mcptest report: no verdict: {reason}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_FAILED if comparison["regressions"] or failing(args.fail_on, current, comparison) else EXIT_OK


def merge_parser() -> argparse.ArgumentParser:
    """``mcptest report merge``: parsed apart, since ``report`` takes a report's path first."""
    merge = Parser(prog="mcptest report merge", description="merge the JSON reports of CI shards into the "
                    "report of one run (byte for byte what one unsharded run writes)")
    merge.add_argument("shards", nargs="+", metavar="SHARD.json", help="the shards' reports")
    merge.add_argument("-o", "--output", required=True, metavar="OUT.json", help="the merged report to write")
    return merge


def merge(argv) -> int:
    """``mcptest report merge SHARD.json... -o OUT.json``."""
    from ..report.merge import run as merge_reports

    args = merge_parser().parse_args(argv)
    return merge_reports(args.shards, args.output)
