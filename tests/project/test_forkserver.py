"""The fork server the integration tests start MCP servers through (``forkserver.py``): a
process it starts sees what a fresh interpreter would (argv, folder, environment, stdio,
``sys.path``, exit code) and ends on the signals its client gets."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from forkserver import forked

SHOW = textwrap.dedent("""\
    import json, os, sys
    print(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "env": os.environ.get("FORKED_TEST"),
                      "path0": sys.path[0], "main": __name__, "stdin": sys.stdin.read()}))
    sys.stderr.write("to stderr\\n")
    sys.exit(int(sys.argv[1]))
""")


def both(command: list[str], **kwargs) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    fresh = subprocess.run(command, capture_output=True, text=True, timeout=60, **kwargs)
    through = subprocess.run(forked(command), capture_output=True, text=True, timeout=60, **kwargs)
    return fresh, through


def test_a_script_sees_what_a_fresh_interpreter_gives_it(tmp_path):
    script = tmp_path / "show.py"
    script.write_text(SHOW)
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    fresh, through = both([sys.executable, str(script), "3", "two words"], cwd=folder, input="piped in",
                          env={**os.environ, "FORKED_TEST": "yes"})
    assert forked([sys.executable, str(script)])[:3] != [sys.executable, str(script)]  # it did go through
    assert (through.returncode, through.stdout, through.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert fresh.returncode == 3 and '"env": "yes"' in fresh.stdout and '"stdin": "piped in"' in fresh.stdout
    assert f'"cwd": "{folder}"' in fresh.stdout and f'"path0": "{tmp_path}"' in fresh.stdout


@pytest.mark.parametrize("module", ["pytest_mcptest.cli", "pytest_mcptest"])  # a module, a package's __main__
def test_a_module_runs_as_main_with_its_options_and_no_warning(tmp_path, module):
    fresh, through = both([sys.executable, "-m", module, "mock", "--tools-from", "missing.yml"], cwd=tmp_path)
    assert fresh.returncode == through.returncode == 2
    assert through.stderr == fresh.stderr == "missing.yml: cannot read the file: No such file or directory\n"
    plain = [sys.executable, "-u", "-c", "print(1)"]
    assert forked(plain) == plain  # an option it does not take: the command is started as it is


def test_a_signal_to_the_client_ends_the_process_and_the_client_ends_the_same_way(tmp_path):
    script = tmp_path / "wait.py"
    script.write_text("import os, sys, time\nprint(os.getpid(), flush=True)\ntime.sleep(60)\n")
    client = subprocess.Popen(forked([sys.executable, str(script)]), stdout=subprocess.PIPE, text=True)
    child = int(client.stdout.readline())
    assert child != client.pid
    client.send_signal(signal.SIGTERM)
    assert client.wait(timeout=30) == -signal.SIGTERM
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # reaped by the fork server once it ended
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"process {child} outlived its client")


def test_code_given_with_c_runs_as_main_with_its_arguments(tmp_path):
    code = "import sys; print(__name__, sys.argv, repr(sys.path[0])); sys.exit(4)"
    fresh, through = both([sys.executable, "-c", code, "a", "b"], cwd=tmp_path)
    assert (through.returncode, through.stdout, through.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert fresh.stdout == "__main__ ['-c', 'a', 'b'] ''\n" and fresh.returncode == 4


def test_the_environment_s_python_path_and_bytecode_settings_are_the_request_s(tmp_path):
    """``PYTHONPATH``, ``PYTHONDONTWRITEBYTECODE`` and ``PYTHONPYCACHEPREFIX`` of the request, not
    of the fork server, as a fresh interpreter started with that environment reads them."""
    code = "import sys; print(sys.path[1], sys.dont_write_bytecode, sys.pycache_prefix)"
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "lib"), "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPYCACHEPREFIX": str(tmp_path / "pyc")}
    fresh, through = both([sys.executable, "-c", code], cwd=tmp_path, env=env)
    assert (through.returncode, through.stdout, through.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert fresh.stdout == f"{tmp_path / 'lib'} True {tmp_path / 'pyc'}\n"


def test_a_pytest_started_here_starts_its_xdist_workers_here_too(tmp_path):
    """A forked pytest's xdist workers are forked too: they find the fork server's imports, and
    the run passes as a fresh one does."""
    pytest.importorskip("xdist")
    (tmp_path / "test_w.py").write_text(
        "import os, pathlib, sys\n"
        "def test_one():\n    assert os.environ['PYTEST_XDIST_WORKER']\n"
        "def test_two():\n"
        "    pathlib.Path(os.environ['SEEN']).write_text(str('openai' in sys.modules))\n")
    command = [sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider"]
    through = subprocess.run(forked(command), cwd=tmp_path, capture_output=True, text=True, timeout=60,
                             env={**os.environ, "SEEN": str(tmp_path / "seen")})
    assert through.returncode == 0 and "2 passed" in through.stdout, through.stdout + through.stderr
    # A fresh worker would not have imported a model SDK (test_lazy_imports): the fork server's imports
    assert (tmp_path / "seen").read_text() == "True"


def test_a_fork_server_that_is_gone_is_one_line_and_exit_1(tmp_path):
    command = forked([sys.executable, "-c", "pass"])
    command[command.index("-c") - 1] = str(tmp_path / "gone")  # the socket's place
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == f"forkserver_client: cannot reach the fork server at {tmp_path / 'gone'}: No such file or directory\n"
