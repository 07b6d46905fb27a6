"""``mcptest judge agreement LABELS``: how often the judge agrees with people, beyond chance,
and how often it changes its mind on the same input."""

from __future__ import annotations

import json
import sys

from ..errors import InputError
from .common import EXIT_OK, EXIT_USAGE, Parser


def add_parser(sub) -> None:
    judge = sub.add_parser("judge", help="measure a judge against people's verdicts")
    actions = judge.add_subparsers(dest="action", required=True, parser_class=Parser)
    agree = actions.add_parser("agreement", help="people's verdicts (a labels file) against the judge's: "
                               "agreement, Cohen's kappa with its 95%% interval, flip rate, position bias")
    agree.add_argument("labels", metavar="LABELS", help="YAML (a list of records) or JSONL: {cassette, run, "
                       "criterion, human: pass|fail} or {criterion, human, judge: pass|fail|[...]}")
    agree.add_argument("--json", action="store_true", help="print the figures as JSON")
    agree.set_defaults(func=run)


def _percent(value) -> str:
    return f"{100 * value:.1f}%"


def render(result: dict, source: str) -> str:
    """The figures in words: agreement and kappa first, then the judge's own consistency."""
    kappa = ("undefined (every verdict the same: nothing to agree on beyond chance)" if result["kappa"] is None
             else f"{result['kappa']:.3f} (95% CI {result['kappa_ci'][0]:.3f} to {result['kappa_ci'][1]:.3f})")
    (ff, fp), (pf, pp) = result["table"]
    lines = [f"judge agreement: {result['n']} items ({source})",
             f"  agreement {_percent(result['agreement'])}, Cohen's kappa {kappa}",
             f"  people pass: judge pass {pp}, judge fail {pf}; people fail: judge pass {fp}, judge fail {ff}"]
    lines.append(f"  flip rate {_percent(result['flip_rate'])} of {result['repeated']} inputs judged more than once"
                 if result["flip_rate"] is not None else "  flip rate: not measured (no input judged more than once)")
    lines.append(f"  position bias {_percent(result['position_bias'])} of {result['swapped']} inputs judged in both "
                 f"orders" if result["position_bias"] is not None
                 else "  position bias: not measured (no input judged in both orders)")
    return "\n".join(lines)


def run(args) -> int:
    """Exit 0 with the figures, 2 when the labels cannot be read (the reason at its line)."""
    from ..engine.agreement import agreement
    from ..gates.labels import read_labels

    try:
        labels = read_labels(args.labels)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    result = agreement([x.human for x in labels], [x.judge for x in labels], [x.swapped for x in labels]).to_dict()
    if args.json:
        sys.stdout.write(json.dumps(result, indent=2, sort_keys=True) + "\n")
    else:
        print(render(result, args.labels))
    return EXIT_OK
