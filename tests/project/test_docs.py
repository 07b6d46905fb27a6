"""Every suite written in the README and the docs loads as written, and every ``mcptest``
command shown there is one the command line accepts: a user pastes them, so they are
checked the way pytest checks its own documentation's examples."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml
from forkserver import forked

from pytest_mcptest.cli import build_parser
from pytest_mcptest.cli.report import merge_parser as _merge_parser
from pytest_mcptest.errors import InputError
from pytest_mcptest.mcp.mock_server import load_spec
from pytest_mcptest.gates.suite_build import load_suite

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").glob("*/README.md"))]
_FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```", re.M | re.S)
_SCHEMA = json.loads((ROOT / "pytest_mcptest" / "schema" / "v1.json").read_text(encoding="utf-8"))["$defs"]


# Pages whose examples need more than mcptest: another test runs them whole.
RUN_ELSEWHERE = {ROOT / "docs" / "gates.md": "tests/gates/test_gate_plugin.py (the suite needs the page's gate)"}


def _blocks(languages: tuple[str, ...]) -> list:
    found = []
    for page in (p for p in PAGES if p not in RUN_ELSEWHERE):
        text = page.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            if match.group(1) in languages:
                line = text.count("\n", 0, match.start()) + 2
                found.append(pytest.param(match.group(2), id=f"{page.relative_to(ROOT)}:{line}"))
    return found


def _keys(name: str) -> set:
    return set(_SCHEMA[name].get("properties", {}))


def _as_suite(data) -> object:
    """The block as a whole suite document: a suite stays as written; the keys of one agent
    test or one scenario (a block that shows part of one) are put in a block of that kind."""
    if not isinstance(data, dict):
        raise AssertionError(f"a YAML block that is not a mapping: {data!r}")
    keys = set(data)
    if keys <= _keys("suite") or {"synthetic_user", "evaluation"} <= keys:
        return data
    for kind, plural in (("agent", "agents"), ("scenario", "scenarios")):
        if keys <= _keys(kind):
            return {plural: [{"name": "from the docs", **data}]}
    raise AssertionError(f"a YAML block whose keys {sorted(keys)} are neither a suite's nor one block's")


@pytest.mark.parametrize("text", _blocks(("yaml", "yml")))
def test_every_yaml_block_of_the_docs_loads(text, tmp_path):
    data = yaml.safe_load(text)
    if isinstance(data, dict) and "mock_server" in data:
        path = tmp_path / "manifest.yml"
        path.write_text(text, encoding="utf-8")
        load_spec(path)
        return
    suite = _as_suite(data)
    path = tmp_path / "doc.mcptest.yml"
    path.write_text(text if suite is data else yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
    try:
        load_suite(str(path))
        problem = None
    except InputError as exc:
        problem = exc.render()
    if problem:
        pytest.fail(problem, pytrace=False)


SHIPPED = ROOT / "docs" / "examples"


def _complete_suites() -> list:
    """The YAML blocks that are whole suites naming files (a cassette, a catalog, a manifest):
    what a user pastes beside those files and runs."""
    found = []
    for param in _blocks(("yaml", "yml")):
        data = yaml.safe_load(param.values[0])
        if (isinstance(data, dict) and set(data) <= _keys("suite") and "mock_server" not in data
                and re.search(r"\.(json|ya?ml|jsonl)\b", param.values[0])):
            found.append(param)
    return found


def _shipped_copies() -> dict:
    """Each suite file under ``docs/examples/``, by its folder, as YAML values."""
    return {path: yaml.safe_load(path.read_text(encoding="utf-8")) for path in sorted(SHIPPED.rglob("*.mcptest.yml"))}


@pytest.mark.parametrize("text", _complete_suites())
def test_every_complete_suite_of_the_docs_is_shipped_with_its_files_and_run_by_its_page(text, request):
    """Pasted beside the files it names, a suite runs: each is shipped under ``docs/examples/``
    (the same YAML; a comment such as the schema's path may differ), and its page holds a
    command that runs its folder with the outcome it should have (checked, with the folder
    run, by the command test below). A suite that fails there prints the failure text its page
    shows (the first plain block after it), line by line, in order."""
    data = yaml.safe_load(text)
    page = ROOT / request.node.callspec.id.split(":")[0]
    copies = [path for path, value in _shipped_copies().items() if value == data]
    assert copies, (f"{request.node.callspec.id}: ship this suite under docs/examples/<folder>/ with the files "
                    f"it names, and run the folder in a command of the page (pytest docs/examples/<folder>  "
                    f"# N passed)")
    commands = [words for block in _shell_blocks() if block.id.split(":")[0] == str(page.relative_to(ROOT))
                for words, _ in _commands(block.values[0])]
    folders = {str(path.parent.relative_to(ROOT)) for path in copies}
    assert any(set(_in_the_session_run(words)) & (folders | {str(p.relative_to(ROOT)) for p in copies})
               for words in commands), f"{page.name}: no command runs {sorted(folders)}"
    run = request.getfixturevalue("docs_example_reports")
    if _outcomes_of(run.report, sorted(folders))["failed"]:  # shown failing: with the page's failure text
        page_text = page.read_text(encoding="utf-8")
        after = page_text.index("```", page_text.index(text) + len(text)) + 3  # past the suite's closing fence
        shown = next(m.group(2) for m in _FENCE.finditer(page_text, after) if not m.group(1))
        printed = run.output
        for folder in folders:  # the run is from the repository's root, the page's from the suite's folder
            printed = printed.replace(f"{folder}/", "")
        out = iter(line.strip() for line in printed.splitlines())
        for line in filter(None, (line.strip() for line in shown.splitlines())):
            assert any(line in got for got in out), f"{page.name}: the run does not print, in this order:\n{shown}"


_PLACEHOLDER = re.compile(r"\[|\(|\.\.\.|<|\b[A-Z][A-Z_]{2,}\b(?!=)")


_COMMAND = re.compile(r"^\s*(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:\S*/)?(?:mcptest|pytest)(?:\s|$)")


def _commands(text: str) -> list[tuple[list[str], str]]:
    """The ``mcptest`` and ``pytest`` command lines of a shell block, each as its words and
    its comment; usage lines (``[--json]``, ``SUITE...``, ``(A | B)``) are not commands."""
    commands = []
    for line in text.replace("\\\n", " ").splitlines():
        line = line.strip().removeprefix("$ ")
        command, _, comment = line.partition("  #")
        for part in re.split(r"&&|;", command):
            if not _COMMAND.match(part) or _PLACEHOLDER.search(part):
                continue
            words = shlex.split(part, comments=True)
            while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
                words.pop(0)  # VAR=value before the command
            if words[1:] and words[1].endswith(":"):
                continue  # what a command printed ("mcptest record: ..."), shown after it
            if words and words[0].rsplit("/", 1)[-1] in ("mcptest", "pytest"):
                commands.append((words, comment))
    return commands


def _shell_blocks() -> list:
    return [block for block in _blocks(("", "bash", "sh", "shell", "console")) if _commands(block.values[0])]


def _in_the_session_run(words: list[str]) -> list[str]:
    """The example folders or suites a command runs when it is only ``pytest PATH...`` or
    ``mcptest run PATH...`` on them (a quiet or verbose flag aside), all in ``examples/`` or all
    in ``docs/examples/``: the session's one run of those (``reports_of_examples.py``) already
    ran them, with these options. Empty for any other command."""
    name = words[0].rsplit("/", 1)[-1]
    if name == "pytest":
        rest = words[1:]
    elif name == "mcptest" and words[1:2] == ["run"]:
        rest = words[2:]
    else:
        return []
    rest = [w for w in rest if w not in ("-q", "-v")]
    for shipped in ("examples", "docs/examples"):
        if rest and all(w.startswith(shipped) and "::" not in w for w in rest):
            return rest
    return []


def _outcomes_of(report: dict, paths: list[str]) -> Counter:
    """How many items under ``paths`` (folders or suite files) had each outcome."""
    folders = [p.rstrip("/") + "/" for p in paths]
    return Counter(item["outcome"] for item in report["items"]
                   if item["file"] in paths or item["file"].startswith(tuple(folders)))


@pytest.mark.parametrize("text", _shell_blocks())
def test_every_command_of_the_docs_is_accepted_and_those_on_the_examples_run(text, pytester, monkeypatch, capsys,
                                                                              request, servers_forked):
    """Every ``mcptest`` command parses; every command on the shipped examples runs, with the
    counts its comment promises. A plain run of example folders or suites is read from the
    session's one run of the examples (which fails unless every example passes); any other
    runs in this process from the repository's root (a ``pytest`` command as pytester's
    in-process run, an ``mcptest`` one through ``main``), except under xdist (``-n``), which
    starts its own worker processes anyway (a process of its own, through the fork server)."""
    from pytest_mcptest.cli import main

    monkeypatch.chdir(ROOT)
    parser = build_parser()
    for words, comment in _commands(text):
        shown = shlex.join(words)
        if words[0].endswith("mcptest"):
            try:
                if words[1:3] == ["report", "merge"]:  # its own parser, as main() reads it
                    args, rest = _merge_parser().parse_args(words[3:]), []
                elif words[1:2] == ["verify"] and "--" in words:  # the server's command after --, as main() cuts it
                    args, rest = parser.parse_known_args(words[1:words.index("--")])
                else:
                    args, rest = parser.parse_known_args(words[1:])
            except SystemExit:
                pytest.fail(f"{shown}: refused by the command line", pytrace=False)
            assert not rest or args.command == "run", f"{shown}: unrecognized {rest}"
        paths = [w for w in words[1:] if w.startswith(("examples/", "docs/examples/")) and "/cassettes" not in w]
        if not paths or "--record" in words or "record" in words[1:2]:
            continue
        shared = _in_the_session_run(words)
        if shared:
            run = "docs_example_reports" if shared[0].startswith("docs/") else "example_reports"
            counts = _outcomes_of(request.getfixturevalue(run).report, shared)
            assert sum(counts.values()), f"{shown}: no item of the examples' run is under {shared}"
            for count in re.findall(r"\d+ (?:passed|failed|skipped|xfailed|xpassed)", comment):
                number, outcome = count.split()
                assert counts[outcome] == int(number), f"{shown}: the docs say {count}, the run had {dict(counts)}"
            continue
        if "-n" in words:
            program = [sys.executable, "-m", "pytest"] if words[0] == "pytest" else [sys.executable, "-m",
                                                                                       "pytest_mcptest.cli"]
            done = subprocess.run(forked(program + words[1:]), cwd=ROOT, capture_output=True, text=True, timeout=300)
            code, out, err = done.returncode, done.stdout, done.stderr
        elif words[0] == "pytest":
            result = pytester.runpytest(*words[1:])
            code, out, err = result.ret, result.stdout.str(), result.stderr.str()
        else:
            capsys.readouterr()
            code = main(words[1:])
            out, err = capsys.readouterr()
        assert code in (0, 1), f"{shown}: exit {code}\n{out}{err}"
        for count in re.findall(r"\d+ (?:passed|failed|skipped|xfailed|xpassed)", comment):
            assert count in out, f"{shown}: the docs say {count}\n{out[-2000:]}"
