"""``mcptest judge agreement LABELS``: how often the judge agrees with people, beyond chance,
and how often it changes its mind on the same input; ``mcptest judge record-labels``: a person
labels a sample of recorded criteria in the terminal, into a labels file."""

from __future__ import annotations

import json
import sys

from ..errors import InputError
from ..option_types import whole_number
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
    label = actions.add_parser("record-labels", help="label recorded criteria yourself, one by one in the terminal "
                               "(pass, fail, skip or quit), into a labels file; resumable")
    label.add_argument("cassettes", nargs="+", metavar="CASSETTE", help="cassettes whose recorded judgments to label")
    label.add_argument("--out", required=True, metavar="LABELS", help="the labels file to add to (created when "
                       "missing; .jsonl for JSON lines, else YAML); criteria it already labels are skipped")
    label.add_argument("--sample", type=whole_number, metavar="N", help="label N criteria drawn at random (seeded) "
                       "instead of every one")
    label.add_argument("--seed", type=int, default=0, metavar="S", help="the seed of --sample's draw (default 0): "
                       "the same seed draws the same criteria, so a stopped labelling resumes where it was")
    label.add_argument("--blind", action="store_true", help="do not show the judge's reason")
    label.set_defaults(func=record_labels)


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


# --------------------------------------------------------------------------- record-labels

ANSWERS = {"p": "pass", "pass": "pass", "f": "fail", "fail": "fail", "s": "skip", "skip": "skip",
           "q": "quit", "quit": "quit"}
SHOWN_CHARS = 4000  # of the run's final answer and of the judge's reason


def _clip(text: str) -> str:
    from ..text import printable

    text = text.strip()
    if len(text) > SHOWN_CHARS:
        text = text[:SHOWN_CHARS] + f" [... {len(text) - SHOWN_CHARS:,} more characters]"
    return printable(text) or "(none)"


def _indented(label: str, text: str) -> list[str]:
    lines = _clip(text).splitlines() or [""]
    return [f"  {label:<10} {lines[0]}"] + [f"  {'':<10} {line}" for line in lines[1:]]


def _show(pending, number: int, total: int, blind: bool) -> str:
    """One criterion as the person sees it: where, what was asked, the answer, the criterion
    and (unless ``blind``) the judge's reason; never the judge's verdict itself."""
    from ..text import printable

    lines = ["", f"[{number}/{total}] {printable(pending.cassette)}, run {pending.run}"]
    lines += _indented("asked:", pending.asked)
    lines += _indented("answer:", pending.answer)
    lines += _indented("criterion:", pending.criterion)
    if not blind:
        reasons = [r for r in dict.fromkeys(pending.reasons) if r.strip()]
        lines += _indented("judge:", "\n".join(reasons) if reasons else "(gave no reason)")
    return "\n".join(lines)


def _ask() -> str:
    """The person's answer: pass, fail, skip or quit (the end of the input is quit)."""
    while True:
        # The verdict is the test's outcome on the criterion, as the judge's is: for a criterion
        # that describes a failure ("refunds the wrong order"), pass means it did not happen.
        sys.stdout.write("on this criterion the run... [p]asses, [f]ails (a failure it describes happened), "
                         "[s]kip, [q]uit: ")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            sys.stdout.write("\n")
            return "quit"
        answer = ANSWERS.get(line.strip().lower())
        if answer is not None:
            return answer
        print(f"  expected p, f, s or q, found {line.strip()!r}")


def record_labels(args) -> int:
    """Ask a person about each recorded criterion (a seeded sample with ``--sample``) not yet in
    ``--out``, appending each answer as it is given. Exit 0 when done or stopped, 2 when a
    cassette or the labels file cannot be read."""
    import random

    from ..gates.labels import append_label, check_appendable, labelled, recorded_criteria

    try:
        check_appendable(args.out)
        done = labelled(args.out)
        found = [p for path in args.cassettes for p in recorded_criteria(path)]
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    if not found:
        print(f"mcptest judge record-labels: no recorded judgment in {', '.join(args.cassettes)}: nothing to label",
              file=sys.stderr)
        return EXIT_USAGE
    chosen = found if args.sample is None else random.Random(args.seed).sample(found, min(args.sample, len(found)))
    todo = [p for p in chosen if p.key() not in done]
    drawn = "" if args.sample is None else f" (a sample of {len(chosen)}, seed {args.seed})"
    print(f"{len(found)} recorded criteria in {len(args.cassettes)} cassette(s){drawn}: "
          f"{len(chosen) - len(todo)} already labelled in {args.out}, {len(todo)} to label")
    counts = {"pass": 0, "fail": 0, "skip": 0}
    for number, pending in enumerate(todo, start=1):
        print(_show(pending, number, len(todo), args.blind))
        answer = _ask()
        if answer == "quit":
            break
        counts[answer] += 1
        if answer != "skip":
            append_label(args.out, pending, answer)
    left = len(todo) - sum(counts.values())
    rest = (f"{left} not asked; run the same command again to go on (skipped ones are asked again)"
            if left or counts["skip"] else f"none left; measure the judge: mcptest judge agreement {args.out}")
    print(f"\nlabelled {counts['pass'] + counts['fail']} ({counts['pass']} pass, {counts['fail']} fail), skipped "
          f"{counts['skip']}, {rest}")
    return EXIT_OK
