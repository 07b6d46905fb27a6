"""Writing files so that a reader never sees half of one."""

from __future__ import annotations

import contextlib
import os


def atomic_write(path: str, data: str | bytes) -> None:
    """Write ``data`` (text is written as UTF-8) to a temporary file beside ``path``, then
    rename it into place; on any failure the temporary file goes and ``path`` is untouched."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
