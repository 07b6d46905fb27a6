"""``python -S forkserver_client.py SOCKET (-m MODULE | SCRIPT) ARGS...``: have the fork
server (``forkserver.py``) start the process with this one's stdin, stdout, stderr, working
folder and environment, pass it the signals this one gets, and exit as it exits.

Only the standard library's smallest parts, so this starts in milliseconds: the C modules
under ``socket`` and ``signal`` (whose own modules import ``enum`` to name their constants),
and no ``json`` (the request is NUL-separated text, :func:`request`). About 250 of these start
in one run of the suite: 29 -> 16 ms of CPU each, measured."""

import _signal
import _socket
import os
import sys
from array import array

FORWARDED = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP, _signal.SIGQUIT)


def request(argv: list[str], cwd: str, env: dict) -> bytes:
    """What the fork server reads (``forkserver.read_request``): the folder, the number of
    arguments, the arguments and ``NAME=value`` per variable, NUL-separated (none of them can
    hold a NUL), in the file system's encoding, undecodable bytes as they came."""
    words = [cwd, str(len(argv)), *argv, *(f"{name}={value}" for name, value in env.items())]
    return "\0".join(words).encode(sys.getfilesystemencoding(), "surrogateescape")


def _exact(connection, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise SystemExit("forkserver_client: the fork server went away")
        data += chunk
    return data


def _int(data: bytes) -> int:
    return int.from_bytes(data, "big", signed=True)  # struct's "!i"


def main() -> None:
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.connect(sys.argv[1])
    except OSError as exc:  # the session that started the fork server has ended: say so, in one line
        raise SystemExit(f"forkserver_client: cannot reach the fork server at {sys.argv[1]}: {exc.strerror}") from None
    # Handlers first: the child may run (and be signalled through this process) before its pid
    # is here; a signal that comes before it is passed on as soon as it is.
    child: list[int] = []
    pending: list[int] = []

    def forward(number, frame):
        if child:
            os.kill(child[0], number)
        else:
            pending.append(number)

    for sig in FORWARDED:
        _signal.signal(sig, forward)
    message = request(sys.argv[2:], os.getcwd(), dict(os.environ))
    # socket.send_fds, without the socket module: the message and this process's stdio
    connection.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array("i", [0, 1, 2]))])
    child.append(_int(_exact(connection, 4)))
    for number in pending:
        os.kill(child[0], number)
    os.close(0)  # the child holds the pipes now: an end of input reaches it alone
    code = _int(_exact(connection, 4))
    if code < 0:  # ended by a signal: end the same way
        _signal.signal(-code, _signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


if __name__ == "__main__":
    main()
