"""``python -S forkserver_client.py SOCKET (-m MODULE | SCRIPT) ARGS...``: have the fork
server (``forkserver.py``) start the process with this one's stdin, stdout, stderr, working
folder and environment, pass it the signals this one gets, and exit as it exits.

Only the standard library's smallest parts, so this starts in milliseconds."""

import json
import os
import signal
import socket
import struct
import sys


def _exact(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise SystemExit("forkserver_client: the fork server went away")
        data += chunk
    return data


def main() -> None:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
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

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, forward)
    request = {"argv": sys.argv[2:], "cwd": os.getcwd(), "env": dict(os.environ)}
    socket.send_fds(connection, [json.dumps(request).encode()], [0, 1, 2])
    child.extend(struct.unpack("!i", _exact(connection, 4)))
    for number in pending:
        os.kill(child[0], number)
    os.close(0)  # the child holds the pipes now: an end of input reaches it alone
    (code,) = struct.unpack("!i", _exact(connection, 4))
    if code < 0:  # ended by a signal: end the same way
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


if __name__ == "__main__":
    main()
