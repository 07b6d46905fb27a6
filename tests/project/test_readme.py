"""The README shows a suite and the failure text it gives: both are checked against what
the code does, so the first page a user reads cannot drift from the product."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _blocks(text: str) -> tuple[str, list[str]]:
    """The README's first YAML suite, and the failure text shown after 'A failure reads like this'."""
    suite = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    shown = text.split("A failure reads like this:", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    return suite, shown.rstrip("\n").splitlines()


def test_the_readme_failure_text_is_what_its_suite_prints(pytester):
    suite, shown = _blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    pytester.makefile(".mcptest.yml", shop=suite)
    (pytester.path / "cassettes").mkdir()
    # the cassette the README ships with its suite (docs/examples/readme/): four calls, two
    # refused by the server (no effect), a forbidden one and an invented one
    (pytester.path / "cassettes" / "restock.json").write_text(
        (ROOT / "docs" / "examples" / "readme" / "cassettes" / "restock.json").read_text(encoding="utf-8"))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = result.stdout.lines
    start = out.index(shown[0])
    assert out[start:start + len(shown)] == shown


def test_readme_command_1_needs_no_test_extra():
    """README command 1 installs the package alone (no pytest-xdist) and runs ``mcptest run
    examples/`` from the repository root, where pytest reads pyproject's ``addopts``: an option
    there that only a test extra understands (``--dist``) made it exit 2. ``.ci/run`` runs the
    command itself in a fresh venv; this says why it must hold, without the minutes of a venv."""
    import shlex

    try:
        import tomllib
    except ImportError:  # Python 3.10: pytest's own dependency
        import tomli as tomllib

    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    options = shlex.split(addopts.get("addopts", ""))
    assert [o for o in options if o.split("=")[0] not in {"--strict-markers", "--strict-config", "-ra", "-q"}] == []
    commands = (ROOT / "README.md").read_text(encoding="utf-8").split("```bash\n", 1)[1].split("```", 1)[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    first = next(line for line in commands.splitlines() if "mcptest run examples/" in line)
    assert first.replace(".venv", ".venv-run") in ci  # command 1 runs in CI, in a venv of its own
    second = next(line for line in commands.splitlines() if "pytest" in line and "[test]" in line)
    assert second in ci
