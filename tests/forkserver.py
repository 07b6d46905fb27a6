"""Server processes for the tests without an interpreter start each: a fork server.

Most tests that talk to an MCP server over stdio start one or more processes (a live run
starts one per run), and each start of an ``mcp``-based server costs 1.3-1.9 s of CPU, 1.2 s of
it importing the SDK: about 150 starts in one run of this suite, a third of its CPU time on
two cores. Here one process per test session (per xdist worker) imports the SDK and the
servers once, then forks a child per start. The child is still a separate process with its
own stdin, stdout and stderr (the caller's, passed over a Unix socket), its own working
folder, environment and argv, and it runs the same ``python -m module``, ``python -c code`` or
``python script`` a fresh interpreter would; only the imports are shared. The command a test hands to the
code under test is a small stdlib-only client (``forkserver_client.py``) that passes its
stdio on, forwards the signals it gets to the child and exits as the child did.

Tests whose point is the start of a fresh interpreter (what ``mcptest mock`` imports,
``mcptest`` commands run under this interpreter, a server that does not start) keep the
plain command.

Run as ``python forkserver.py SOCKET [MODULE...]``: it imports the MODULEs too, listens on
SOCKET and ends when its parent does.
"""

from __future__ import annotations

import atexit
import gc
import io
import os
import runpy
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import warnings

CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "forkserver_client.py")
PRELOAD = ("mcp", "mcp.server.lowlevel", "mcp.server.stdio", "mcp.client.stdio", "mcp_server_time.server",
           "pytest_mcptest.cli", "pytest_mcptest.mcp.mock_server", "pytest_mcptest.mcp.serving",
           "pytest_mcptest.record.proxy", "pytest", "openai", "execnet", "xdist.plugin", "xdist.dsession",
           "xdist.remote",
           # What each pytest started here (and each of its xdist workers) imports at start-up and
           # to read a suite: the other plugins (hypothesis's, anyio's), pytest's debugger and
           # JUnit modules, the suite reader and the gates' evaluation: 0.35 -> 0.09 s of CPU for
           # a forked `pytest examples/scenario-world`, measured.
           "hypothesis", "_hypothesis_pytestplugin", "anyio.pytest_plugin", "pdb", "unittest",
           "xml.etree.ElementTree", "_pytest.junitxml", "yaml", "jsonschema", "pytest_mcptest.plugin.collect",
           "pytest_mcptest.gates.evaluate", "pytest_mcptest.gates.suite_build")
EXECNET_BOOTSTRAP = "import sys;exec(eval(sys.stdin.readline()))"  # how execnet starts an xdist worker


_SOCKET: list[str] = []  # this process's fork server, once started
_SERVING: list[str] = []  # in the fork server and its children: the socket it listens on
_PYTHONPATH = os.environ.get("PYTHONPATH", "")  # the fork server's own, as it started
WORKERS = "--session-workers"  # the fork server of a session's own xdist workers (xdist_workers_forked)
_SESSION_WORKERS: list[bool] = []  # in that fork server: what it forks is a worker, left as a fresh one is


def forked(command: list[str] | tuple[str, ...]) -> list[str]:
    """``command`` (``[python, -m, module, ...]``, ``[python, -c, code, ...]`` or ``[python, script,
    ...]``) as started through this process's fork server (started at the first call); any other command is
    returned as it is, and so is every command where there is no ``fork`` (Windows)."""
    command = list(command)
    if not hasattr(os, "fork"):
        return command
    options = command[1:3] if command[1:2] == ["-W"] else []  # ``-W ignore``: the one option taken
    rest = command[1 + len(options):]
    if command[:1] != [sys.executable] or not rest:
        return command
    if rest[0].startswith("-") and (rest[0] not in ("-m", "-c") or len(rest) < 2):  # an option it does not take
        return command
    return [sys.executable, "-S", CLIENT, _socket(), *command[1:]]


def through_forkserver(pytester):
    """``pytester``, its ``runpytest_subprocess`` now starting ``python -m pytest`` through this
    process's fork server, and so the xdist workers of that pytest too (``-n``). Each run is
    still a process of its own, started in the test's folder with its environment; what it does
    not share with a fresh interpreter is the imports. Not for a test whose point is a fresh
    interpreter (what is imported, the garbage collector's state at start)."""
    pytester._getpytestargs = lambda: tuple(forked([sys.executable, "-m", "pytest"]))
    return pytester


PLUGIN_COMMAND = ("-m", "pytest_mcptest.cli")  # what the plugin runs for ``mcptest ...``, under sys.executable


def plugin_servers_forked(monkeypatch) -> None:
    """The servers the plugin starts itself in this process (``mcptest serve`` for a world or
    a cassette, ``mcptest mock`` for a catalog: a suite's ``[mcptest, ...]`` command, which the
    plugin resolves to ``[sys.executable, -m, pytest_mcptest.cli, ...]``), started through this
    process's fork server: ``anyio.open_process``, which the plugin's stdio client and the SDK's
    ``stdio_client`` call, gets that command through :func:`forked`. The plugin still works
    the command out, starts it as a process of its own in its own session with its pipes, and
    ends it as it ends any server (stdin closed, then the group's SIGTERM, which the client
    passes on); what the server does not do is import the SDK anew (about 1 s of CPU a start).
    Any other command starts as it would. For the tests about what a server does, not about
    the start of a fresh interpreter. A process forked from the fork server (a pytest started
    through it, its xdist workers) does the same from its start (:func:`_child`)."""
    import anyio

    monkeypatch.setattr(anyio, "open_process", _open_process_through(anyio.open_process, _socket))


def _open_process_through(plain, socket_path):
    """``anyio.open_process`` (``plain``) that starts the plugin's own command through the fork
    server at ``socket_path()``, and any other command as ``plain`` does."""
    async def open_process(command, *args, **kwargs):
        if isinstance(command, (list, tuple)) and tuple(command[:3]) == (sys.executable, *PLUGIN_COMMAND):
            command = [sys.executable, "-S", CLIENT, socket_path(), *command[1:]]
        return await plain(command, *args, **kwargs)

    open_process.plain = plain
    return open_process


def _socket(preload: tuple[str, ...] = (), workers: bool = False) -> str:
    if not _SOCKET:
        folder = tempfile.mkdtemp(prefix="forkserver-")
        path = os.path.join(folder, "s")
        command = [sys.executable, os.path.abspath(__file__), path, *([WORKERS] if workers else []), *preload]
        origin = _forked_from()
        if origin:  # started through that one: what it imported is imported here already
            command = [sys.executable, "-S", CLIENT, origin, *command[1:]]
        with open(os.path.join(folder, "stderr"), "w+b") as errors:  # its own, not the session's terminal
            server = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=errors, start_new_session=True)
            if server.stdout.readline() != b"ready\n":
                errors.seek(0)
                raise RuntimeError(f"the fork server did not start (exit code {server.wait()}): "
                                   f"{errors.read().decode(errors='replace')}")
        atexit.register(shutil.rmtree, folder, True)
        # Waited for once ended (atexit runs last-registered first), so the fork server and the
        # children it reaped count in this process's own CPU figures (time -v, os.wait4). One
        # started through another's client is ended by the SIGTERM the client passes on (a
        # SIGKILL would end the client alone), then reaped by that one, where it counts.
        atexit.register(server.wait)
        atexit.register(server.terminate if origin else server.kill)
        _SOCKET.append(path)
    return _SOCKET[0]


def _forked_from() -> str | None:
    """The socket of the fork server this process was forked from (this session's xdist
    workers are: ``xdist_workers_forked``), or None for a process started as a fresh
    interpreter. A process forked from a fork server still has that server's module as its
    ``__main__`` (a ``-c`` command runs in a namespace of its own)."""
    serving = getattr(sys.modules.get("__main__"), "_SERVING", None)
    return serving[0] if serving and os.path.exists(serving[0]) else None


def _child(request: dict, fds: list[int], *inherited: socket.socket) -> None:
    """In the forked child: become the requested process and run it; never returns."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for sock in inherited:
            sock.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        _python_path(request["env"].get("PYTHONPATH", ""))
        _xdist_workers_forked()
        if not _SESSION_WORKERS:  # the session's own workers run tests that start fresh servers
            _plugin_servers_here()
        sys.dont_write_bytecode = bool(request["env"].get("PYTHONDONTWRITEBYTECODE"))
        sys.pycache_prefix = request["env"].get("PYTHONPYCACHEPREFIX") or None
        argv = request["argv"]
        while argv[0] in ("-W", "-u"):
            if argv[0] == "-W":
                warnings.simplefilter(argv[1])
                argv = argv[2:]
            else:  # unbuffered stdout and stderr, as ``python -u`` has them
                for name in ("stdout", "stderr"):
                    stream = getattr(sys, name)
                    setattr(sys, name, io.TextIOWrapper(io.FileIO(stream.fileno(), "w", closefd=False),
                                                        encoding=stream.encoding, errors=stream.errors,
                                                        write_through=True))
                argv = argv[1:]
        try:
            if argv[0] == "-c":  # sys.path, argv and globals as a fresh ``python -c`` has them
                sys.path[0] = ""
                sys.argv = ["-c", *argv[2:]]
                if argv[1] == EXECNET_BOOTSTRAP:  # an xdist worker of a pytest started here: see below
                    _quiet_rewrite()
                exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
            elif argv[0] == "-m":  # sys.path as a fresh ``python -m`` or ``python script`` has it
                sys.path[0] = os.getcwd()
                if argv[1] == "pytest":
                    _quiet_rewrite()
                preloaded = sys.modules.get(argv[1])  # run anew as __main__, as a fresh start would
                sys.modules.pop(argv[1] + ".__main__" if hasattr(preloaded, "__path__") else argv[1], None)
                sys.argv = [argv[1], *argv[2:]]
                runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
            else:
                sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
                sys.argv = list(argv)
                runpy.run_path(argv[0], run_name="__main__")
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if not isinstance(exc.code, (int, type(None))):
                print(exc.code, file=sys.stderr)
        except BaseException:  # what a fresh interpreter would print before exiting 1
            import traceback

            traceback.print_exc()
            code = 1
        finally:
            # What a fresh interpreter runs as it exits, before it flushes its output: the exit
            # handlers (a process that started a fork server of its own kills and waits for it
            # there, so that server and what it started count in this one's CPU figures).
            atexit._run_exitfuncs()
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:  # noqa: BLE001 - a closed pipe: nothing more to say
                    pass
    finally:
        os._exit(code)


def _quiet_rewrite() -> None:
    """A ``python -m pytest`` forked from here finds its plugins' packages imported already
    (``pytest_mcptest``, and ``anyio`` under the SDK): pytest would warn that it cannot rewrite
    their asserts, a warning a fresh interpreter does not give. The tests that run pytest this
    way are about what the plugin does, not about assertion rewriting, so the warning is left out."""
    from _pytest.assertion.rewrite import AssertionRewritingHook

    AssertionRewritingHook._warn_already_imported = lambda self, name: None


def _python_path(requested: str) -> None:
    """``sys.path`` with the request's ``PYTHONPATH`` entries where the fork server has its own,
    as a fresh interpreter started with that environment would have them."""
    own = [os.path.abspath(entry) for entry in _PYTHONPATH.split(os.pathsep) if entry]
    if own and sys.path[1:1 + len(own)] == own:
        del sys.path[1:1 + len(own)]
    sys.path[1:1] = [os.path.abspath(entry) for entry in requested.split(os.pathsep) if entry]


def _xdist_workers_forked() -> None:
    """In a process forked from here (``python -m pytest``, ``mcptest run``): the xdist workers
    (``-n``) of the pytest it runs, which execnet starts as ``python -u -c BOOTSTRAP``, are
    started through this fork server too. Each is still its own process with its own pipes to
    the pytest that started it; only the imports (pytest, xdist, this plugin) are shared. A
    worker finds the plugin's package imported already, so the warning that it cannot be
    rewritten is left out there too."""
    _workers_through(lambda: _SERVING[0])


def _plugin_servers_here() -> None:
    """In a process forked from here: the servers the plugin starts itself (``mcptest serve``,
    ``mcptest mock``) are forked from this fork server too (:func:`plugin_servers_forked`)."""
    anyio = sys.modules.get("anyio")
    if anyio is not None:
        anyio.open_process = _open_process_through(getattr(anyio.open_process, "plain", anyio.open_process),
                                                   lambda: _SERVING[0])


def xdist_workers_forked(preload: tuple[str, ...] = ()) -> None:
    """In the pytest that starts this test session's own xdist workers (``-n``, its controller,
    which runs no test): each worker is started through this process's fork server, which
    imports ``preload`` (what every worker imports before its first test, or loads once
    anyway) besides its own list, once for all of them. Each worker is still its own process,
    with its own pipes to the controller, its environment and folder; it collects and runs its
    tests as a fresh one does, imports the test modules itself (their asserts rewritten), and
    has a fork server of its own for the processes its tests start (:func:`forked`), started
    through this one. Where there is no ``fork`` (Windows) the workers start as they would."""
    if hasattr(os, "fork"):
        _workers_through(lambda: _socket(preload, workers=True))


def _workers_through(socket_path) -> None:
    from execnet import gateway_io

    # execnet's own, also in a process forked from a fork server that was itself forked from
    # one (which had set its own here)
    plain = getattr(gateway_io.popen_args, "plain", gateway_io.popen_args)

    def popen_args(spec):
        args = plain(spec)
        if args[:1] != [sys.executable] or args[-2:] != ["-c", EXECNET_BOOTSTRAP]:
            return args
        return [sys.executable, "-S", CLIENT, socket_path(), *args[1:]]

    popen_args.plain = plain
    gateway_io.popen_args = popen_args


def read_request(message: bytes) -> dict:
    """A request as ``forkserver_client.request`` writes it: ``argv``, ``cwd`` and ``env``."""
    cwd, count, *words = message.decode(sys.getfilesystemencoding(), "surrogateescape").split("\0")
    argv, variables = words[:int(count)], words[int(count):]
    return {"argv": argv, "cwd": cwd, "env": dict(variable.split("=", 1) for variable in variables)}


def _distributions_read() -> None:
    import importlib.metadata

    import metadata_cache

    metadata_cache.install()
    for dist in importlib.metadata.distributions():
        for read in ("metadata", "entry_points", "files"):
            getattr(dist, read)


def serve(socket_path: str, preload: list[str]) -> None:
    _SERVING.append(socket_path)
    if preload[:1] == [WORKERS]:
        _SESSION_WORKERS.append(True)
        preload = preload[1:]
    for name in PRELOAD:
        __import__(name)
    for name in preload:  # the caller's own list: a library that is not installed is left to its tests
        try:
            __import__(name)
        except ImportError:
            pass
    # What each pytest started here reads of the installed distributions (its plugins' entry
    # points, their files, their versions), parsed once here (metadata_cache.py)
    _distributions_read()
    # What was imported lives as long as every child: out of the garbage collector's passes
    # (``gc.freeze``), which would otherwise walk it, and write to its pages, in each child.
    gc.collect()
    gc.freeze()
    parent = os.getppid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(64)
    print("ready", flush=True)
    waiting: dict[int, socket.socket] = {}
    # A child's end wakes the loop at once (SIGCHLD writes to ``woken``): its client is waiting.
    woken, wake = socket.socketpair()
    woken.setblocking(False)
    wake.setblocking(False)
    signal.set_wakeup_fd(wake.fileno())
    signal.signal(signal.SIGCHLD, lambda number, frame: None)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(woken, selectors.EVENT_READ)
    while os.getppid() == parent:  # the session that started it is gone: so is it
        for key, _ in selector.select(timeout=1.0):
            if key.fileobj is woken:
                woken.recv(4096)
                continue
            connection, _ = listener.accept()
            message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
            pid = os.fork()
            if pid == 0:
                _child(read_request(message), fds, connection, listener, woken, wake)
            for fd in fds:
                os.close(fd)
            connection.sendall(struct.pack("!i", pid))
            waiting[pid] = connection
        while waiting:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            connection = waiting.pop(pid, None)
            if connection is not None:
                code = os.waitstatus_to_exitcode(status)
                try:
                    connection.sendall(struct.pack("!i", code))
                except OSError:  # the client was killed: nobody waits for the code
                    pass
                connection.close()


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2:])
