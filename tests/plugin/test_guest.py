"""The plugin is a guest: a user's own Python tests observe the same capture, logging and
``-x`` stop with suites beside them as without mcptest at all (``-p no:mcptest``)."""

from __future__ import annotations

import shutil

import pytest

from suites import PING_RUN, simple_scenario

USER_TESTS = '''
import logging
import sys

import pytest

log = logging.getLogger("user")


@pytest.fixture(autouse=True)
def noisy():
    print("FIXTURE-SETUP-OUT")
    yield
    print("FIXTURE-TEARDOWN-OUT")


def test_a_capsys(capsys):
    print("hello out")
    sys.stderr.write("hello err\\n")
    out, err = capsys.readouterr()
    assert out.endswith("hello out\\n") and err == "hello err\\n"


def test_b_capfd(capfd):
    import os
    os.write(1, b"fd out\\n")
    os.write(2, b"fd err\\n")
    out, err = capfd.readouterr()
    assert "fd out" in out and "fd err" in err


def test_c_caplog(caplog):
    caplog.set_level(logging.INFO)
    log.info("user record")
    assert [r.getMessage() for r in caplog.records] == ["user record"]


def test_d_fails_and_shows_its_output():
    print("CAPTURED-OF-THE-FAILURE")
    log.warning("LOGGED-OF-THE-FAILURE")
    assert False


def test_e_after_the_failure():
    pass
'''


@pytest.fixture
def mixed(pytester):
    """A suite file before and after the user's Python tests (collected in name order)."""
    pytester.makefile(".mcptest.yml", a_suite="scenarios:\n" + simple_scenario("one", "p.json")
                      + simple_scenario("two", "p.json"))
    pytester.makefile(".mcptest.yml", z_suite="scenarios:\n" + simple_scenario("three", "p.json"))
    (pytester.path / "p.json").write_text(PING_RUN)
    pytester.makepyfile(test_user=USER_TESTS)
    return pytester


def _python_outcomes(result) -> dict:
    """Each of the user's tests' outcome, from the short summary (``-rA``)."""
    outcomes = {}
    for line in result.stdout.lines:
        outcome, _, rest = line.partition(" ")
        if outcome in ("PASSED", "FAILED", "ERROR") and rest.startswith("test_user.py::"):
            outcomes.setdefault(rest.split(" ")[0], []).append(outcome)
    return outcomes


@pytest.mark.parametrize("options", [(), ("-x",), ("-s",), ("--capture=sys",), ("-p", "no:logging")])
def test_the_users_tests_see_the_same_with_and_without_mcptest(mixed, options):
    with_suites = mixed.runpytest("-rA", "-p", "no:cacheprovider", *options)
    alone = mixed.runpytest("-rA", "-p", "no:cacheprovider", "-p", "no:mcptest", *options)
    assert _python_outcomes(with_suites) == _python_outcomes(alone)
    assert _python_outcomes(alone)["test_user.py::test_d_fails_and_shows_its_output"] == ["FAILED"]
    for marker in ("CAPTURED-OF-THE-FAILURE", "FIXTURE-SETUP-OUT", "LOGGED-OF-THE-FAILURE"):
        assert with_suites.stdout.str().count(marker) == alone.stdout.str().count(marker), marker


def test_x_stops_at_the_users_failure_and_runs_no_suite_after_it(mixed):
    result = mixed.runpytest("-v", "-p", "no:cacheprovider", "-x")
    result.assert_outcomes(passed=5, failed=1)  # two scenarios and three Python tests before the failure
    out = result.stdout.str()
    assert "z_suite.mcptest.yml::three" not in out and "test_e_after_the_failure" not in out
    assert result.ret == 1


def test_a_failing_scenario_stops_the_session_under_x(mixed):
    (mixed.path / "p.json").write_text(PING_RUN.replace('"ping"', '"pong"'))
    result = mixed.runpytest("-p", "no:cacheprovider", "-x")
    result.assert_outcomes(failed=1)
    assert result.ret == 1


def _ran(result) -> list[str]:
    """The items a run ran, in order (``-v`` lines)."""
    return [line.split(" ")[0] for line in result.stdout.lines
            if line.split(" ")[0].count("::") == 1 and line.rstrip().endswith("]")]


@pytest.mark.parametrize("option", ["--lf", "--ff", "--sw"])
def test_last_failed_first_failed_and_stepwise_treat_python_and_yaml_items_alike(mixed, option):
    """pytest's cache options rerun the user's Python tests as they do without mcptest, and a
    failed scenario as one more failed item of the same session."""
    if option != "--sw":
        (mixed.path / "p.json").write_text(PING_RUN.replace('"ping"', '"pong"'))  # every scenario fails
    alone_first = mixed.runpytest("-v", "-p", "no:mcptest")
    alone_again = mixed.runpytest("-v", "-p", "no:mcptest", option)
    shutil.rmtree(mixed.path / ".pytest_cache")
    with_first = mixed.runpytest("-v")
    with_again = mixed.runpytest("-v", option)
    python = lambda ran: [item for item in ran if item.startswith("test_user.py")]  # noqa: E731
    assert python(_ran(with_first)) == python(_ran(alone_first))
    assert python(_ran(with_again)) == python(_ran(alone_again))
    again = _ran(with_again)
    failed_d = "test_user.py::test_d_fails_and_shows_its_output"
    failed = ["a_suite.mcptest.yml::one", "a_suite.mcptest.yml::two", failed_d, "z_suite.mcptest.yml::three"]
    if option == "--lf":
        assert again == failed
    elif option == "--ff":
        assert again[:4] == failed and sorted(again) == sorted(_ran(with_first))
    else:  # the scenarios pass: --sw stops at the user's failure, and the next run starts there
        assert again[-1] == failed_d and again[:2] == ["a_suite.mcptest.yml::one", "a_suite.mcptest.yml::two"]
        assert _ran(mixed.runpytest("-v", "--sw"))[0] == failed_d


# What pytester's in-process runs (``runpytest``, ``inline_run``, a test that calls ``mcptest
# run``'s ``main``) do to the process they run in: every module first imported by the run is
# dropped from sys.modules afterwards and imported afresh by the next one, while the modules
# that were there before (the package, the plugin) stay, holding what the run set on them.
DROP_AND_IMPORT_AGAIN = r'''
import functools, importlib, json, sys, tempfile, types
from pathlib import Path

import pytest_mcptest.plugin  # what pytest loads at its start (the pytest11 entry point)
import pytest_mcptest
import pytest_mcptest.gates as gates

package = Path(pytest_mcptest.__file__).resolve().parent
names = sorted({".".join(p.relative_to(package.parent).with_suffix("").parts).removesuffix(".__init__")
                for p in package.rglob("*.py") if p.stem != "__main__"})
exports = [(pytest_mcptest, n) for n in pytest_mcptest.__all__] + [(gates, n) for n in gates.__all__ if n != "register"]


def run():
    for name in names:
        importlib.import_module(name)
    for where, name in exports:  # a gate plugin's `from pytest_mcptest.gates import Block, Gate`
        getattr(where, name)


saved = dict(sys.modules)
run()
sys.modules.clear()
sys.modules.update(saved)
run()


def home(value):
    """The module a module or a class of the package is, or lives in, by name (None: not the package's)."""
    name = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
    return name if isinstance(name, str) and name.startswith("pytest_mcptest") else None


def now(value):
    """What sys.modules holds now under ``value``'s name."""
    module = sys.modules.get(home(value))
    if isinstance(value, types.ModuleType) or module is None:
        return module
    return functools.reduce(lambda at, part: getattr(at, part, None), value.__qualname__.split("."), module)


stale = [f"{name}.{attr}" for name in names for attr, value in vars(sys.modules[name]).items()
         if isinstance(value, (type, types.ModuleType)) and home(value) and now(value) is not value]
stale += [f"{where.__name__}.{name}" for where, name in exports
          if getattr(where, name) is not getattr(sys.modules[getattr(where, name).__module__], name)]
from pytest_mcptest.gates import suite_cache

folder = tempfile.mkdtemp()
for path in sorted(Path(sys.argv[1]).rglob("*.mcptest.yml")):  # built, pickled into the suite cache, loaded
    assert suite_cache.collect_suite(str(path), folder).suite() is not None
print(json.dumps(stale))
'''


def test_a_run_in_process_after_another_holds_no_stale_module_or_class(tmp_path):
    """A plugin is a guest in its user's process, where plugin authors test with pytester's
    in-process runs: after a run whose modules were dropped, no module of the package reaches
    a stale copy of another (``from . import distractors`` took the package's attribute, left
    from the dropped run, and the suite cache then could not pickle a block of a class that
    was not the one in sys.modules), and the lazy public names are the current ones."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    done = subprocess.run([sys.executable, "-c", DROP_AND_IMPORT_AGAIN, str(examples)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == []
