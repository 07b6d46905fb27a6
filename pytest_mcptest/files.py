"""Writing files so that a reader never sees half of one."""

from __future__ import annotations

import os


def atomic_write(path: str, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it into place."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        # A full disk or an interrupt mid-write: the old file stays as it was and no
        # half-written temporary is left beside it.
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
