"""``mcptest tool-bench run SPEC``: does each description carry the selection signal, judged as
the ``tool_bench`` item would be."""

from __future__ import annotations

import sys

from ..errors import InputError
from ..option_types import fraction
from .common import EXIT_USAGE, Parser, judge


def add_parser(sub) -> None:
    bench = sub.add_parser("tool-bench", help="does each description carry the selection signal")
    bench_sub = bench.add_subparsers(dest="action", required=True, parser_class=Parser)
    brun = bench_sub.add_parser("run", help="run a tool-bench spec")
    brun.add_argument("spec", metavar="SPEC", help="YAML or JSON: catalog|catalog_path, intents, mutations")
    brun.add_argument("--min-drop", type=fraction, metavar="FRACTION", help="fail when the largest drop is below it")
    brun.add_argument("--json", action="store_true", help="print the report object")
    brun.set_defaults(func=run)


def run(args) -> int:
    """Selection accuracy and how far each mutation drops it; exit 1 when below min_drop
    (``--min-drop`` or the spec's own), judged as the ``tool_bench`` item would be."""
    import msgspec

    from ..gates.tool_bench import from_spec_file, summary_lines

    try:
        block = from_spec_file(args.spec)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    if args.min_drop is not None:
        block = msgspec.structs.replace(block, min_drop=args.min_drop)
    return judge(block, args.json, summary_lines)
