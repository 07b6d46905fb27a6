"""``mcptest power``: how many tasks and trials a change of the pass rate needs to be seen,
or which drop the runs at hand can see; every answer names its formula.

The arithmetic is :mod:`.engine.power`; this module reads the options and writes the lines.
"""

from __future__ import annotations

import json
import math
import sys

import pytest_mcptest.engine.power as pw
from ..option_types import fraction

EXACT_LIMIT = 1_000_000  # runs the exact search tries before it gives up (engine.power's own limit)

DESIGNS = {
    "one-sample": "one sample against a known rate",
    "two-sample": "two independent samples (a baseline run and a new run)",
    "paired": "paired runs (the same tasks and trials before and after)",
}


def _discordant(args, drop: float) -> float:
    """The share of pairs that differ: given, or from the two rates and the correlation
    ``icc`` between a run and its pair, ``p1 + p2 - 2 p1 p2 - 2 icc sqrt(p1 q1 p2 q2)``."""
    if args.discordant is not None:
        return args.discordant
    p1, p2 = args.rate, args.rate - drop
    both = 2 * max(0.0, args.icc) * math.sqrt(p1 * (1 - p1) * p2 * (1 - p2))
    return max(drop, p1 + p2 - 2 * p1 * p2 - both)


def _formula(args) -> str:
    if args.design == "paired":
        return ("McNemar's test, Connor (1987): n = (z_a sqrt(psi) + z_b sqrt(psi - D^2))^2 / D^2, "
                "psi the share of discordant pairs; pairs counted as independent")
    if args.exact:
        return "the exact binomial test (lower tail at alpha/2), power summed over the binomial; runs independent"
    ratio = "one sample" if args.design == "one-sample" else "two samples of equal size"
    deff = (f"; runs discounted by Kish's design effect 1 + ({args.trials} - 1) x {args.icc:g} = "
            f"{pw.design_effect(args.trials, args.icc):g}") if args.trials > 1 else ""
    return (f"normal approximation on Cohen's h = 2 asin(sqrt p1) - 2 asin(sqrt p2), two-sided, {ratio} "
            f"(statsmodels' NormalIndPower){deff}")


def _problem(args) -> str | None:
    if (args.drop is None) == (args.tasks is None):
        return "give either --drop D (how many tasks are needed) or --tasks N (which drop N tasks detect)"
    if args.drop is not None and not 0 < args.drop <= args.rate:
        return f"--drop must be above 0 and at most --rate ({args.rate:g}), found {args.drop:g}"
    if args.tasks is not None and args.tasks < 1:
        return f"--tasks must be at least 1, found {args.tasks}"
    if args.trials < 1:
        return f"--trials must be at least 1, found {args.trials}"
    if args.exact and args.design != "one-sample":
        return "--exact is the exact binomial test of one sample: add --design one-sample"
    if args.exact and args.icc:
        return "--exact counts independent runs: leave out --icc"
    if args.discordant is not None and args.design != "paired":
        return "--discordant is the paired design's share of differing pairs: add --design paired"
    if not 0 < args.rate <= 1:
        return f"--rate must be above 0 and at most 1, found {args.rate:g}"
    for name in ("alpha", "power"):
        if not 0 < getattr(args, name) < 1:
            return f"--{name} must be strictly between 0 and 1, found {getattr(args, name):g}"
    if args.power <= args.alpha:  # no runs at all already "detect" any drop, none included, that often
        return (f"--power must be above --alpha ({args.alpha:g}): a test flags a change with chance alpha even "
                f"when nothing changed, found --power {args.power:g}")
    return None


def _runs_for(args, drop: float) -> float:
    """Runs (pairs, for the paired design) per side that detect ``drop``."""
    if args.design == "paired":
        return pw.paired_runs_needed(drop, _discordant(args, drop), args.alpha, args.power)
    if args.exact:  # searched upward from a little below the normal answer, which is close
        normal = pw.runs_needed(pw.cohen_h(args.rate, args.rate - drop), args.alpha, args.power, 0.0)
        if not normal <= EXACT_LIMIT:  # inf too: the search would never start, or run for hours
            raise ValueError(f"more than {EXACT_LIMIT:,} runs needed for an exact test of a drop of {drop:g} "
                             f"from {args.rate:g}; drop --exact for the normal approximation")
        return pw.exact_runs_needed(args.rate, drop, args.alpha, args.power, start=int(0.9 * normal),
                                    limit=EXACT_LIMIT)
    ratio = 0.0 if args.design == "one-sample" else 1.0
    effective = pw.runs_needed(pw.cohen_h(args.rate, args.rate - drop), args.alpha, args.power, ratio)
    return effective * pw.design_effect(args.trials, args.icc)


def _drop_for(args, runs: int) -> float:
    """The smallest drop that ``runs`` runs (pairs) per side detect."""
    if args.design == "paired":
        return _smallest(lambda d: _runs_for(args, d) <= runs, args.rate)
    if args.exact:
        return _smallest(lambda d: pw.exact_power(runs, args.rate, d, args.alpha) >= args.power, args.rate)
    ratio = 0.0 if args.design == "one-sample" else 1.0
    effective = runs / pw.design_effect(args.trials, args.icc)
    return pw.drop_for_h(args.rate, pw.detectable_h(effective, args.alpha, args.power, ratio))


def _smallest(detects, limit: float) -> float:
    """The smallest drop in ``(0, limit]`` that ``detects`` (monotone), or nan when none does."""
    if not detects(limit):
        return math.nan
    low, high = 0.0, limit
    for _ in range(60):
        middle = (low + high) / 2
        if detects(middle):
            high = middle
        else:
            low = middle
    return high


def answer(args) -> dict:
    """What ``mcptest power`` prints, as data."""
    out = {"design": args.design, "rate": args.rate, "alpha": args.alpha, "power": args.power,
           "trials": args.trials, "icc": args.icc, "formula": _formula(args),
           "asked": "drop" if args.drop is not None else "tasks"}
    if args.drop is not None:
        runs = _runs_for(args, args.drop)
        if math.isinf(runs):
            out.update(drop=args.drop, runs=None, tasks=None)
        else:
            runs = max(1, math.ceil(runs - 1e-9))  # a drop as large as the rate still needs one run
            out.update(drop=args.drop, runs=runs, tasks=math.ceil(runs / args.trials))
    else:
        runs = args.tasks * args.trials
        drop = _drop_for(args, runs)
        out.update(tasks=args.tasks, runs=runs, drop=None if math.isnan(drop) else round(drop, 6))
    return out


def _pct(value: float) -> str:
    return f"{100 * value:.4g}%"


def render(result: dict) -> str:
    """The answer first (tasks x trials = runs, and the drop), then the design and the formula."""
    side = "" if result["design"] in ("one-sample", "paired") else " per side"
    unit = "pairs of runs" if result["design"] == "paired" else "runs"
    rate = result["rate"]
    test = f"at alpha {result['alpha']:g} (two-sided) with power {result['power']:g}"
    if result["runs"] is None:
        head = f"no number of runs detects a drop of {_pct(result['drop'])} from {_pct(rate)} {test}"
    else:
        trials = f"{result['trials']} trial{'' if result['trials'] == 1 else 's'}"
        whole = result["tasks"] * result["trials"]  # whole tasks: a few more runs than needed, said so
        size = f"{result['tasks']} tasks x {trials} = {whole} {unit}{side}" + (
            f" ({result['runs']} needed)" if whole != result["runs"] else "")
        if result["drop"] is None:
            head = f"{size} detect no drop from {_pct(rate)} {test}"
        else:
            verb = "to detect" if result["asked"] == "drop" else "detect"
            more = "" if result["asked"] == "drop" else " or more"
            head = (f"{size} {verb} a drop from {_pct(rate)} to {_pct(rate - result['drop'])} "
                    f"({100 * result['drop']:.4g} points){more} {test}")
    return "\n".join([head, f"design: {DESIGNS[result['design']]}", f"formula: {result['formula']}"])


def run(args) -> int:
    """The ``mcptest power`` command: 0, or 2 with the reason for options that do not fit."""
    problem = _problem(args)
    if problem:
        print(f"mcptest power: {problem}", file=sys.stderr)
        return 2
    try:
        result = answer(args)
    except ValueError as exc:  # an exact search past its limit, a paired drop above the discordant share
        print(f"mcptest power: {exc}", file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(json.dumps(result, indent=2, sort_keys=True) + "\n")
    else:
        print(render(result))
    return 0


def add_parser(sub) -> None:
    power = sub.add_parser("power", help="tasks and trials needed to detect a drop of the pass rate, or the drop "
                           "that a number of tasks detects")
    power.add_argument("--rate", type=fraction, required=True, metavar="P", help="the pass rate now, 0 to 1")
    power.add_argument("--drop", type=fraction, metavar="D", help="the drop to detect, 0 to 1 (0.1 = 10 points)")
    power.add_argument("--tasks", type=int, metavar="N", help="instead of --drop: which drop N tasks detect")
    power.add_argument("--trials", type=int, default=1, metavar="T", help="trials per task (default 1)")
    power.add_argument("--icc", type=fraction, default=0.0, metavar="R",
                       help="ICC(1) of the trials (stability.icc); discounts repeated trials (default 0)")
    power.add_argument("--design", choices=["one-sample", "two-sample", "paired"], default="two-sample",
                       help="against a known rate, two independent runs (default), or the same tasks paired")
    power.add_argument("--discordant", type=fraction, metavar="PSI",
                       help="paired: the share of pairs that differ (default: from --rate, --drop and --icc)")
    power.add_argument("--alpha", type=fraction, default=0.05, help="two-sided significance level (default 0.05)")
    power.add_argument("--power", type=fraction, default=0.8, help="the chance to detect the drop (default 0.8)")
    power.add_argument("--exact", action="store_true", help="one sample: the exact binomial test, not the normal "
                       "approximation")
    power.add_argument("--json", action="store_true", help="print the answer as JSON")
    power.set_defaults(func=run)

