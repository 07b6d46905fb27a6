"""``mcptest doctor``: a catalog's descriptions, security and lock, judged through the ``tool_quality`` gate.

``--security`` and ``--lock FILE`` judge a catalog through the ``tool_quality`` gate, like
``--lint-descriptions``, but with only their own gate; ``--security --config SUITE`` with no
``--server`` lints every server of the suite together (live ones are started), so names
clashing across servers and descriptions naming another server's tool are found;
``--cassette FILE`` lints what a cassette recorded: the catalog of each server and every
tool result (SEC-013). Exit status: 0 passed, 1 a gate failed (a Critical finding,
a locked tool that changed), 2 bad input.

``--judge MODEL`` adds the second tier (``docs/security.md``): the model's recorded verdict
on each tool (and, with ``--cassette``, each tool result) is replayed from the verdicts
file (``<catalog>.security-verdicts.json``, or the cassette's ``meta.security_verdicts``),
and the model is asked, through the live tier, only for the verdicts that are missing
(``--judge recorded`` asks nothing). Both tiers are printed side by side with their
agreement, and ``--require`` says which must pass.
"""

from __future__ import annotations

import os
import sys
from typing import Optional

import attrs
import msgspec

from ..errors import InputError
from ..text import json_printable, printable
from ..option_types import positive, whole_number
from .common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, judge, print_verdict

RECORDED = "recorded"  # --judge recorded: replay the verdicts, ask no model


def write_new_lock(block, path: str) -> int:
    """``--lock FILE`` when FILE does not exist yet: pin the catalog there."""
    from ..gates.sources import RecordingUnavailable
    from ..gates.tool_quality import open as open_catalog
    from ..gates.context import Context
    from ..formats.lockfile import write_lock

    try:
        source = open_catalog(block, Context(root=os.getcwd()))
        count = write_lock(path, path, source.items[0])
    except RecordingUnavailable as exc:
        print(printable(exc.message), file=sys.stderr)
        return EXIT_USAGE
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    print(printable(f"{path}: pinned {count} tool{'s' if count != 1 else ''} of {source.shown}; commit it, and check "
          f"later with mcptest doctor --lock {path} (or lock: {path} in a suite)"))
    return EXIT_OK


def _in_cassette(finding, server: str):
    """A catalog finding with its pointer into the cassette (``/catalog/<server>/tools/...``)."""
    from ..engine.paths import json_pointer

    return attrs.evolve(finding, pointer=json_pointer(["catalog", server]) + finding.pointer)


def cassette_security(path: str, as_json: bool, args=None) -> int:
    """The security lint of a cassette: its recorded catalogs and tool results; with
    ``--judge``, the judge's verdicts on each of them beside the rules'."""
    from ..formats.cassette import load_cassette
    from ..engine.catalog import CatalogError
    from ..engine.security_rules import lint_results, lint_servers_security, security_counts
    from ..report.document import dumps

    try:
        cassette = load_cassette(path, path, keep=False)
    except FileNotFoundError:
        print(f"{path}: cannot read the cassette: no such file", file=sys.stderr)
        return EXIT_USAGE
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    try:
        by_server = lint_servers_security(cassette.catalog)
    except CatalogError as exc:
        print(printable(f"{path}: the recorded catalog: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    findings = [_in_cassette(f, server) for server, fs in by_server.items() for f in fs]
    findings += lint_results(cassette.runs)
    counts = security_counts(findings)
    judged = None
    if args is not None and args.judge:
        judged = _cassette_judge(path, cassette, findings, args)
        if isinstance(judged, int):
            return judged
    report = {**counts, "findings": [f.to_dict() for f in findings]}
    if judged is not None:
        report["judge"] = judged.envelope
    if as_json:
        sys.stdout.write(json_printable(dumps({"cassette": path, "security": report})))
    else:
        _print_findings(findings)
        print(f"security: {counts['critical_count']} critical, {counts['warning_count']} warnings in "
              f"{len(cassette.catalog)} recorded catalogs and {sum(len(r.tool_calls) for r in cassette.runs)} "
              f"tool results of {path}")
        if judged is not None:
            from ..gates.tool_quality import judge_lines

            for line in judge_lines(judged.envelope):
                print(printable(line))
            for failure in judged.failures:
                print(printable(f"FAILED {failure.gate}: {failure.message}"))
    if judged is not None:
        rules_fail = counts["critical_count"] and args.require != "either"
        return EXIT_FAILED if judged.failures or rules_fail else EXIT_OK
    return EXIT_FAILED if counts["critical_count"] else EXIT_OK


def _cassette_judge(path: str, cassette, findings, args):
    """``--cassette FILE --judge``: the verdicts on every recorded catalog's tools and every
    result, asked for (into the cassette, or ``--verdicts FILE``) when missing, then read
    against the rules' findings. An int is an exit status (a dry run, bad input)."""
    import shlex

    from ..engine.security_verdicts import distinct, find, result_subjects, tool_subjects
    from ..gates.tool_quality import judge_tier
    import pytest_mcptest.formats.security_verdicts as sv
    import pytest_mcptest.live.security_judge as sj
    from ..live.provider import LiveError

    subjects = [s for server in sorted(cassette.catalog)
                for s in tool_subjects(cassette.catalog[server], server, ["catalog", server], server)]
    subjects += result_subjects(cassette.runs)
    target = args.verdicts or path
    recording = None
    try:
        entries = (sv.read_verdicts(args.verdicts, args.verdicts) if args.verdicts
                   else sv.cassette_verdicts(cassette.meta, path))
        missing = distinct([s for s in subjects if find(s, entries)[0] is None])
        if missing and args.judge != RECORDED:
            task = sj.JudgeTask(args.judge, tuple(missing), target, len(distinct(subjects)) - len(missing))
            if args.dry_run:
                print(task.dry_run())
                return EXIT_OK
            recording = sj.judge_subjects(task, _models(args, None), concurrency=args.concurrency)
            save = sv.save_verdicts if args.verdicts else sv.save_into_cassette
            save(target, target, subjects, recording.entries)
            _say_recording(recording, args.judge, target, args.json)
            entries = (sv.read_verdicts(args.verdicts, args.verdicts) if args.verdicts
                       else sv.cassette_verdicts(_meta_of(path), path))
        elif not missing:
            _say(f"security judge: every verdict replayed from {target} (no model called)", args.json)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    except LiveError as exc:  # no key, no SDK, a bad models: setting: one line, no traceback
        print(printable(f"security judge: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    if recording is not None and recording.stopped:
        return EXIT_USAGE
    how = (f"record with mcptest doctor --cassette {shlex.quote(path)} --security --judge MODEL"
           + (f" --verdicts {shlex.quote(args.verdicts)}" if args.verdicts else ""))
    return judge_tier(subjects, entries, findings, target, "critical", args.require, False, how)


def _meta_of(path: str) -> dict:
    from ..formats.cassette import load_cassette

    return load_cassette(path, path, keep=False).meta


def _say(line: str, as_json: bool) -> None:
    """A line about the recording: on stdout, or on stderr beside a JSON report."""
    print(printable(line), file=sys.stderr if as_json else sys.stdout)


def _say_recording(recording, model: str, target: str, as_json: bool) -> None:
    from ..live.security_judge import spend_lines

    _say(f"security judge: recorded {len(recording.entries)} security verdict(s) of {model} into {target}", as_json)
    for line in list(recording.notes) + spend_lines(recording):
        _say(f"  {line}", as_json)
    if recording.stopped:
        print(printable(f"security judge: asking stopped: {recording.stopped}"), file=sys.stderr)


def _models(args, config: Optional[str]) -> dict:
    """The ``models:`` block for the judge: the suite's (with ``--config``), with
    ``--max-tokens`` and ``--max-cost-usd`` as the judge model's ``item_max_tokens`` and
    ``item_max_cost_usd`` (the live tier's per-item budget)."""
    from ..live.provider import parse_model

    models: dict = {}
    if config:
        from ..suite.doc import plain
        from ..suite.loader import load_documents, read_text

        for root, _ in load_documents(config, read_text(config)):
            if isinstance(root, dict) and isinstance(root.get("models"), dict):
                models.update(plain(root["models"]))
    key = str(parse_model(args.judge))
    entry = dict(models.get(key) or {})
    if args.max_tokens is not None:
        entry["item_max_tokens"] = args.max_tokens
    if args.max_cost_usd is not None:
        entry["item_max_cost_usd"] = args.max_cost_usd
    if entry:
        models[key] = entry
    return models


def _print_findings(findings) -> None:
    """Each finding; the tool's name and what it quotes come from a server: escaped."""
    for f in findings:
        print(printable(f"{f.rule:8} {f.severity:8} {f.tool}  {f.pointer}"))
        print(printable(f"  {f.message}"))
        print(printable(f"  why: {f.why}  -> {f.suggestion}"))


def suite_security(config: str, as_json: bool) -> int:
    """The security lint of every server of a suite, together."""
    from ..engine.catalog import CatalogError
    from ..engine.security_rules import lint_servers_security, security_counts
    from ..formats.files import regular_file_problem
    from ..gates.server_entries import resolve_server, server_catalog
    from ..report.document import dumps
    from ..gates.suite_cache import load_suite_cached

    try:
        problem = regular_file_problem(config)
        if problem:
            raise InputError(config, problem)
        suite = load_suite_cached(config)
        if not suite.servers:
            raise InputError(config, "no servers: to lint")
        folder = os.path.dirname(os.path.abspath(config))
        catalogs = {name: server_catalog(name, resolve_server(spec, folder), os.getcwd())[1]
                    for name, spec in sorted(suite.servers.items())}
        by_server = lint_servers_security(catalogs)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    except CatalogError as exc:
        print(printable(f"{config}: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    findings = [f for fs in by_server.values() for f in fs]
    counts = security_counts(findings)
    if as_json:
        sys.stdout.write(json_printable(dumps({"suite": config, "security": {
            **counts, "servers": {name: [f.to_dict() for f in fs] for name, fs in by_server.items()}}})))
    else:
        for name, fs in by_server.items():
            print(f"server {name}: {len(fs)} finding{'s' if len(fs) != 1 else ''}")
            _print_findings(fs)
        print(f"security: {counts['critical_count']} critical, {counts['warning_count']} warnings in "
              f"{len(by_server)} servers of {config}")
    return EXIT_FAILED if counts["critical_count"] else EXIT_OK


def lock_summary_lines(envelope: dict) -> list[str]:
    """``--lock`` alone: what the lock comparison found (the diff is in the failure text)."""
    lock = envelope.get("lock") or {}
    lines = [f"lock {lock.get('file')}: {lock.get('changed_count', 0)} changed, {lock.get('added_count', 0)} new, "
             f"{lock.get('removed_count', 0)} removed ({envelope.get('tool_count', 0)} tools served)"]
    if lock.get("added"):
        lines.append(f"new tools, not in the lock (not failed; review them, then lock again): "
                     f"{', '.join(lock['added'])}")
    if lock.get("removed"):
        lines.append(f"locked tools no longer served: {', '.join(lock['removed'])}")
    return lines


def add_parser(sub) -> None:
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
    judge_options = doctor.add_argument_group("the security judge (a second, semantic tier, recorded once)")
    judge_options.add_argument("--judge", metavar="MODEL", help="with --security: replay each tool's (and result's) "
                               "recorded verdict and ask MODEL (provider:name, through the live tier) for the missing "
                               "ones; 'recorded' asks no model")
    judge_options.add_argument("--verdicts", metavar="FILE", help="the verdicts file (default: <catalog>"
                               ".security-verdicts.json, <server>.security-verdicts.json beside the suite, or the "
                               "cassette itself)")
    judge_options.add_argument("--require", choices=("both", "either", "rules"), default="both",
                               help="which tiers must pass each tool: both (default: a tool either flags fails), "
                               "either (only a tool both flag fails), rules (the verdicts are only compared)")
    judge_options.add_argument("--dry-run", action="store_true", help="say what the judge would be asked, call nothing")
    judge_options.add_argument("--max-tokens", type=whole_number, metavar="N", help="stop asking once N tokens are "
                               "spent (the live tier's item_max_tokens)")
    judge_options.add_argument("--max-cost-usd", type=positive, metavar="USD", help="stop asking once this is "
                               "spent (item_max_cost_usd)")
    judge_options.add_argument("--concurrency", type=whole_number, default=4, metavar="N",
                               help="requests at once (default 4), within the models: block's rate limits")
    doctor.set_defaults(func=run)


def doctor_block(args, **how):
    """The ``tool_quality`` block for ``--catalog FILE`` or ``--server NAME --config SUITE``
    (``how``: which of its gates apply, see ``for_server``)."""
    from ..gates.server_entries import resolve_server
    from ..gates.tool_quality import for_server
    from ..formats.files import regular_file_problem
    from ..gates.suite_cache import load_suite_cached

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


def run(args) -> int:
    """Every description and security finding, tool by tool, then the verdict of the
    default gates and the security gate (the ``tool_quality`` item's): exit 1 when the
    catalog misses them. ``--security`` and ``--lock FILE`` judge only their own gate
    (see ``doctor.py``); ``--cassette`` lints a recording."""
    from ..gates.tool_quality import security_summary_lines, summary_lines

    problem = _judge_usage(args)
    if problem:
        print(f"mcptest doctor: {problem}", file=sys.stderr)
        return EXIT_USAGE
    if args.cassette:
        if args.catalog or args.server or args.lock or args.lint_descriptions:
            print("mcptest doctor --cassette: lints a recording on its own; give no --catalog, --server, --lock "
                  "or --lint-descriptions with it", file=sys.stderr)
            return EXIT_USAGE
        return cassette_security(args.cassette, args.json, args)
    if args.security and args.config and not args.server and not args.catalog and not args.lock:
        if args.judge:
            print("mcptest doctor --judge: judges one catalog; name it with --server NAME (or --catalog FILE)",
                  file=sys.stderr)
            return EXIT_USAGE
        return suite_security(args.config, args.json)
    lint = args.lint_descriptions or not (args.security or args.lock)
    lock = os.path.abspath(args.lock) if args.lock else None
    try:
        block = doctor_block(args, lint=lint, security=lint or args.security, lock=lock)
        if args.judge:
            block = _with_judge(block, args)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_USAGE
    if lock and not os.path.lexists(lock):
        return write_new_lock(block, args.lock)
    describe = summary_lines if lint else security_summary_lines if args.security else lock_summary_lines
    if args.judge:
        return _judge_recorded(block, args, describe)
    return judge(block, args.json, describe)


def _judge_usage(args) -> str:
    """What is wrong with the judge's options, or empty."""
    judge_only = [name for name, given in (("--verdicts", args.verdicts), ("--dry-run", args.dry_run),
                                           ("--max-tokens", args.max_tokens is not None),
                                           ("--max-cost-usd", args.max_cost_usd is not None)) if given]
    if judge_only and not args.judge:
        return f"{judge_only[0]} goes with --judge MODEL"
    asking = [name for name in judge_only if name != "--verdicts"]
    if asking and args.judge == RECORDED:
        return f"{asking[0]} goes with a model to ask: --judge recorded asks none"
    if args.judge and not (args.security or args.cassette):
        return "--judge is the security lint's second tier: give it with --security (or --cassette)"
    if args.judge and args.judge != RECORDED:
        from ..live.provider import LiveError, parse_model

        try:
            parse_model(args.judge)
        except LiveError as exc:
            return f"--judge: {exc} (or 'recorded' to replay without asking)"
    return ""


def _with_judge(block, args):
    """The doctor's block with the judge's tier: the verdicts file, ``--require``, and the
    model to ask for what is missing (none with ``--judge recorded``)."""
    from ..gates.tool_quality import default_verdicts

    verdicts = os.path.abspath(args.verdicts) if args.verdicts else default_verdicts(
        block.server, block.source, os.path.dirname(os.path.abspath(args.config)) if args.config else os.getcwd())
    model = None if args.judge == RECORDED else args.judge
    return msgspec.structs.replace(block, judge=verdicts, require=args.require, judge_model=model,
                                   models=_models(args, args.config) if model else {})


def _judge_recorded(block, args, describe) -> int:
    """Judge the block as its pytest item would, in record mode ``once`` when a model is
    named (the gate asks it for the missing verdicts first, ``gates/tool_quality.py``):
    what the recording did is said first, then the lines and the failure text, or the JSON
    report (what the recording did then goes to stderr)."""
    from ..gates.context import Context
    from ..gates.evaluate import evaluate
    from ..gates.sources import NOTES
    from ..record.modes import RecordMode

    ctx = Context(root=os.getcwd(), record_mode=RecordMode.ONCE if block.judge_model else RecordMode.NONE,
                  dry_run=args.dry_run, live_concurrency=args.concurrency)
    verdict = evaluate(block, ctx)
    if verdict.skipped is not None:  # --dry-run
        print(printable(verdict.skipped))
        return EXIT_OK
    said = [line for section, line in verdict.summary if section == NOTES]
    for line in said:
        _say(f"security judge: {line}", args.json)
    judged = ((verdict.envelope or {}).get("security") or {}).get("judge") or {}
    if not said and judged.get("status") == "judged":
        _say(f"security judge: every verdict replayed from {judged['verdicts']} (no model called)", args.json)
    if args.dry_run and not verdict.problems:
        print(f"nothing to ask: every verdict is recorded in {os.path.relpath(block.judge)}")
        return EXIT_OK
    return print_verdict(block, verdict, args.json, describe)
