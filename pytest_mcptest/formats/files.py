"""Reading and writing the user's files: bounded reads, strict JSON, atomic writes.

Every file a user names (a cassette, a catalog, a report, a log to import) is read by
:func:`read_text`, so each gets the same treatment:

- regular files only: a directory, a FIFO, a device (``/dev/zero``) or a socket is refused
  with a message saying what it is, and never blocks (a FIFO is opened non-blocking);
- at most :data:`MAX_FILE_BYTES` (100 MB): a larger file is refused before it is read;
- UTF-8, with one leading byte-order mark dropped (editors on Windows write one); other
  bytes are refused naming the byte offset.

:func:`loads_json` is the strict JSON reader behind cassettes, catalogs and reports: no
``NaN`` or ``Infinity``, no number too large for a float, and at most
:data:`MAX_JSON_DEPTH` levels of nesting (serde_json's default), so nothing a file holds
can exhaust the stack of the code that walks it later. Errors never quote the file: a
file that is not JSON may be anything (``cassette: /etc/passwd``), so a message gives
the line and column, never the text.

A missing file raises :class:`FileNotFoundError` unchanged, so a caller can say how to
create it; every other problem is an :class:`~pytest_mcptest.errors.InputError`.

:func:`watch_reads` lists every file read through here while it is open, with a hash of
the bytes read (or that it was absent): what a verdict depends on, which the verdict
cache checks before it reuses one (``plugin/verdict_cache.py``).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import stat
from typing import Any, Optional

from ..engine.paths import json_pointer
from ..engine.values import NestingError
from ..errors import InputError, number_problem

MAX_FILE_BYTES = 100 * 1024 * 1024
MAX_JSON_DEPTH = 128
_TOO_DEEP = f"nested more than {MAX_JSON_DEPTH} levels deep"
POINTER_PARTS = 12  # how much of the way to a too-deep part a message shows

_FILE_TYPES = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def read_text(path: str, name: Optional[str] = None, limit: Optional[int] = None) -> str:
    """The text of the regular file at ``path``; errors name it as ``name`` (default ``path``)."""
    shown = name or path
    return decode_text(read_bytes(path, shown, limit), shown)


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)  # a FIFO never blocks


def read_bytes(path: str, name: Optional[str] = None, limit: Optional[int] = None) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` (default
    :data:`MAX_FILE_BYTES`): a FIFO, a device or a directory is refused before any read, so
    nothing blocks or reads without end. ``FileNotFoundError`` passes through (raised too
    when a part of the path is a file, not a folder)."""
    return read_or_map(path, name, limit)


def read_or_map(path: str, name: Optional[str] = None, limit: Optional[int] = None,
                map_from: Optional[int] = None, noted: bool = True) -> Any:
    """:func:`read_bytes`, or with ``map_from`` set, a regular file of at least that many
    bytes mapped read-only (an ``mmap``; the caller closes it) instead of read: its pages
    are the operating system's file cache, which a reader can hand back as it goes
    (``madvise``), where a read would hold a copy of the whole file until it is parsed.
    ``noted`` False leaves the read out of :func:`watch_reads` (a cache of mcptest's own,
    or a caller that notes the digest it works out anyway: :func:`note_digest`)."""
    shown = name or path
    note = note_read if noted else _unnoted
    limit = MAX_FILE_BYTES if limit is None else limit
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        note(path, None)
        raise
    except NotADirectoryError:  # a file where a folder should be: nothing lies at ``path`` either
        note(path, None)
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path) from None
    except IsADirectoryError:
        raise InputError(shown, "is a directory, not a regular file; mcptest reads only regular files") from None
    except OSError as exc:
        raise InputError(shown, f"cannot read: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = next((text for test, text in _FILE_TYPES if test(st.st_mode)), "not a regular file")
            raise InputError(shown, f"is {what}, not a regular file; mcptest reads only regular files")
        if st.st_size > limit:
            raise InputError(shown, f"is {_size(st.st_size)}, over the {_size(limit)} limit for one file")
        if map_from is not None and st.st_size >= max(map_from, 1):
            import mmap

            # The size checked, not the size when mapped (a file that grew stays bounded); a
            # file that shrank since, or a file system that cannot map, is read instead.
            with contextlib.suppress(OSError, ValueError):
                mapped = mmap.mmap(fd, st.st_size, access=mmap.ACCESS_READ)
                note(path, mapped)
                return mapped
        chunks = []
        left = limit + 1  # a file that grows (or a /proc file that claims size 0) is still bounded
        want = min(left, st.st_size + 1)  # the whole file and one byte more: its end in one read
        while left > 0:
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
            if len(chunk) < want and st.st_size:
                break  # a regular file's short read is its end (a /proc file, size 0, reads on)
            want = min(left, 1 << 20)
        if left <= 0:
            raise InputError(shown, f"is over the {_size(limit)} limit for one file")
    except OSError as exc:
        raise InputError(shown, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    note(path, data)
    return data


def _unnoted(path: str, data: Any) -> None:
    """What :func:`read_or_map` notes of a read it is told to leave out: nothing."""


_WATCHED: Optional[list] = None  # inside watch_reads: (absolute path, digest or None) of each read


@contextlib.contextmanager
def watch_reads():
    """The files read inside this block, as a list of ``(absolute path, digest)`` (``digest``
    of the bytes read, :func:`digest`; None for a file that was not there), filled as they
    are read. A block inside another adds its reads to the outer one's too."""
    global _WATCHED
    outer, _WATCHED = _WATCHED, []
    try:
        yield _WATCHED
    finally:
        if outer is not None:
            outer.extend(_WATCHED)
        _WATCHED = outer


def watching() -> bool:
    """Whether reads are being listed (a reader that keeps what it read between calls must
    then say what it hands out again: :func:`note_digest`)."""
    return _WATCHED is not None


def digest(data: Any) -> str:
    """What a file's content is known by: the SHA-1 of its bytes (or of a mapped file)."""
    return hashlib.sha1(data).hexdigest()


def note_read(path: str, data: Any) -> None:
    """``path`` was read and gave ``data`` (None: it was not there), while reads are watched."""
    if _WATCHED is not None:
        _WATCHED.append((os.path.abspath(path), None if data is None else digest(data)))


def note_digest(path: str, known: str) -> None:
    """``path`` was used again with the content ``known`` (its :func:`digest`) without a read."""
    if _WATCHED is not None:
        _WATCHED.append((os.path.abspath(path), known))


def regular_file_problem(path: str) -> Optional[str]:
    """What keeps mcptest from reading ``path`` as a file, in words for a message after
    its name ("no such file", "is a directory, ..."), or None for a regular file within the
    size limit. For callers that hand the path to a reader of their own."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if not stat.S_ISREG(st.st_mode):
        what = next((text for test, text in _FILE_TYPES if test(st.st_mode)), "not a regular file")
        return f"is {what}, not a regular file; mcptest reads only regular files"
    if st.st_size > MAX_FILE_BYTES:
        return f"is {_size(st.st_size)}, over the {_size(MAX_FILE_BYTES)} limit for one file"
    return None


def decode_text(data: bytes, shown: str) -> str:
    """UTF-8 text, one leading byte-order mark dropped."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(shown, f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    return text[1:] if text.startswith("\ufeff") else text


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB" if n >= 1024 * 1024 else f"{n} bytes"


def read_json(path: str, name: Optional[str] = None, unique_keys: bool = False) -> Any:
    """:func:`read_text` then :func:`loads_json`."""
    shown = name or path
    return loads_json(read_text(path, shown), shown, unique_keys=unique_keys)


class DuplicateKey(ValueError):
    """An object that names one key twice; ``path`` leads to that object."""

    def __init__(self, key: str, path: Optional[list] = None):
        super().__init__(f"the key {key!r} appears twice in one object (JSON keeps only the last: which was meant?)")
        self.key, self.path = key, path


def _unique_object(pairs: list) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set = set()
        raise DuplicateKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return obj


class _Pairs(list):
    """An object parsed as its list of pairs, duplicates kept: to find where one is."""


def _duplicate_path(value: Any, path: list) -> Optional[list]:
    """The path to the first object (depth first) in a :class:`_Pairs` parse that repeats a key."""
    if isinstance(value, _Pairs):
        keys = [k for k, _ in value]
        if len(set(keys)) != len(keys):
            return path
        children = [(k, v) for k, v in value]
    elif isinstance(value, list):
        children = list(enumerate(value))
    else:
        return None
    for key, child in children:
        found = _duplicate_path(child, path + [key])
        if found is not None:
            return found
    return None


def strict_json(text: str, unique_keys: bool = False) -> Any:
    """``json.loads`` refusing NaN, Infinity, numbers beyond a float and deep nesting; with
    ``unique_keys``, an object that names a key twice too (JSON parsers keep the last one
    silently, so a report shard, a lock or a catalog edited by hand could say two things).

    Raises ``json.JSONDecodeError`` for bad syntax, :class:`NestingError` for depth,
    :class:`DuplicateKey` for a repeated key and ``ValueError`` for numbers.
    """
    data = _UNDECIDED if unique_keys else _fast_loads(text)
    if data is _UNDECIDED:
        try:
            data = (_UNIQUE_DECODER if unique_keys else _DECODER).decode(text)
        except DuplicateKey as exc:
            pairs = json.JSONDecoder(object_pairs_hook=_Pairs, parse_constant=_refuse_constant).decode(text)
            raise DuplicateKey(exc.key, _duplicate_path(pairs, [])) from None
        except RecursionError:
            raise NestingError(_TOO_DEEP) from None
        except json.JSONDecodeError:
            raise
        except ValueError as exc:  # a number: infinite, or an integer of thousands of digits
            raise ValueError(number_problem(exc)) from None
    if not brackets_within(text, MAX_JSON_DEPTH):
        where = too_deep(data, MAX_JSON_DEPTH)
        if where is not None:
            raise NestingError(_TOO_DEEP, where)
    return data


_UNDECIDED = object()
_FAST_DECODER = None


def _fast_loads(text: str) -> Any:
    """msgspec's parse of ``text`` (about twice as fast as ``json.loads`` on a cassette, and
    faster than orjson once orjson's integers are checked: it reads those beyond 64 bits as
    floats, msgspec keeps them exact), or ``_UNDECIDED`` when the standard library must
    decide. msgspec refuses what ``json`` refuses and more (lone surrogates, infinities,
    deep nesting), so any refusal is handed back and the standard parser gives the value or
    the usual message."""
    global _FAST_DECODER
    if _FAST_DECODER is None:  # imported here, not at the top: the plugin imports this module at every start
        import msgspec

        _FAST_DECODER = msgspec.json.Decoder()
    try:
        return _FAST_DECODER.decode(text)
    except Exception:  # msgspec.DecodeError, or a RecursionError on deep nesting
        return _UNDECIDED


NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_NOT_OPENING = bytes(b for b in range(256) if b not in b"[{")
_ONE_PASS = 1 << 20  # up to this size, the opening brackets are counted in one pass (see brackets_within)
_ONE_KIND = bytes.maketrans(b"{}", b"[]")  # depth does not care which kind of bracket
_ROUNDS = 32
_RUNS = re.compile(rb"\[+|\]+")
_COUNTED = 1 << 20  # bytes of brackets left after the rounds that are counted one run at a time


def brackets_within(text: str | bytes, limit: int) -> bool:
    """A cheap proof that ``text`` nests at most ``limit`` deep, counting its brackets
    (both kinds read as one, quoted ones too).

    Rounds of removing ``[]`` take off the innermost levels in C, while a round still
    removes a quarter of what is left (at most 32 rounds); the deepest rise of what is left,
    if that is at most a megabyte, is then counted run by run. Each removed level may have
    stood above what is left, so the proof adds the rounds to that rise: it may say False
    for a text a few levels under ``limit``, never True for one above it. Time stays linear
    in the text whatever its shape (a round per level took minutes on 50 MB of deep
    brackets).

    False means "not proven" (deep, a string holding unbalanced brackets, or a megabyte of
    brackets that do not pair up); the parsed value is then walked or, for YAML, the text
    refused. About 20 times cheaper than the walk on a 50 MB cassette. A file's UTF-8 bytes
    are read as they are (no copy of a large text is made).
    """
    if isinstance(text, str):
        if len(text) <= limit or text.count("[") + text.count("{") <= limit:
            return True  # too few opening brackets to go deeper (every argument string of an import)
        text = text.encode("utf-8", "surrogatepass")
    elif len(text) <= limit or (len(text.translate(None, _NOT_OPENING)) if len(text) <= _ONE_PASS
                                else text.count(b"[") + text.count(b"{")) <= limit:
        # One pass that keeps only the opening brackets is a third cheaper than two counts
        # (3.6 against 5.4 us on a 7 kB cassette), but it makes a copy as long as the text
        # first: a large text is counted twice instead.
        return True
    return _brackets_proven(text.translate(_ONE_KIND, NOT_BRACKETS), limit)


def mapped_brackets_within(mapped: Any, limit: int) -> bool:
    """:func:`brackets_within` of a mapped file (an ``mmap``), which has no ``translate``: its
    brackets are gathered a megabyte at a time, so no copy of the whole file is made."""
    step = 1 << 20
    brackets = b"".join(mapped[at:at + step].translate(_ONE_KIND, NOT_BRACKETS)
                        for at in range(0, len(mapped), step))
    return brackets.count(b"[") <= limit or _brackets_proven(brackets, limit)


def _brackets_proven(brackets: bytes, limit: int) -> bool:
    """The rounds of :func:`brackets_within` over a text's brackets alone, one kind."""
    rounds = 0
    while brackets and rounds < min(limit, _ROUNDS):
        shorter = brackets.replace(b"[]", b"")
        removed = len(brackets) - len(shorter)
        brackets, rounds = shorter, rounds + (removed > 0)
        if removed * 4 < len(brackets) + removed:
            break
    if not brackets:
        return True
    return len(brackets) <= _COUNTED and rounds + _deepest_rise(brackets) <= limit


def _deepest_rise(brackets: bytes) -> int:
    """The most levels opened at any point above the lowest point before it."""
    depth = lowest = highest = 0
    for run in _RUNS.findall(brackets):
        if run[0] == 0x5B:  # [
            depth += len(run)
            highest = max(highest, depth - lowest)
        else:
            depth -= len(run)
            lowest = min(lowest, depth)
    return highest


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is too large for a JSON number")
    return number


# One decoder for every call: json.loads with options builds a new one each time, which
# cost more than the parse for an import's 133,000 small argument strings.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)
_UNIQUE_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float,
                                   object_pairs_hook=_unique_object)


def strict_decoder() -> json.JSONDecoder:
    """A decoder that refuses what :func:`strict_json` refuses, for values written back to
    back (``raw_decode``); the caller bounds the depth by catching ``RecursionError``."""
    return json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


def loads_json(text: str, shown: str, what: str = "JSON", unique_keys: bool = False) -> Any:
    """:func:`strict_json` with each problem as an :class:`InputError` for the file ``shown``."""
    try:
        return strict_json(text, unique_keys)
    except DuplicateKey as exc:
        raise InputError(shown, f"invalid {what}: {exc}", pointer=json_pointer(exc.path or [])) from None
    except json.JSONDecodeError as exc:
        raise InputError(shown, f"invalid {what}: {exc.msg} (column {exc.colno})", line=exc.lineno) from None
    except NestingError as exc:
        if exc.path is None:
            raise InputError(shown, f"invalid {what}: {exc}") from None
        raise InputError(shown, f"invalid {what}: {exc} (below this point)",
                         pointer=json_pointer(exc.path[:POINTER_PARTS])) from None
    except ValueError as exc:  # a number JSON cannot hold, or an integer of thousands of digits
        raise InputError(shown, f"invalid {what}: {exc}") from None


def too_deep(value: Any, limit: int) -> Optional[list]:
    """The path to the first container nested deeper than ``limit``, or None.

    Walks with an explicit stack (only containers are visited); the path is rebuilt
    only when something is too deep.
    """
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return _path_to_depth(value, limit + 1)
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, (dict, list)))
    return None


def _path_to_depth(value: Any, depth: int) -> Optional[list]:
    stack: list = [(value, [])]
    while stack:
        node, path = stack.pop()
        if len(path) == depth:
            return path
        if isinstance(node, dict):
            stack.extend((v, path + [k]) for k, v in reversed(list(node.items())) if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, path + [i]) for i, v in reversed(list(enumerate(node))) if isinstance(v, (dict, list)))
    return None  # pragma: no cover - only called when something is that deep


def file_above(path: str) -> Optional[str]:
    """The first existing part of ``path``'s folder that is not a folder (so nothing can be
    written under it), or None."""
    folder = os.path.dirname(os.path.abspath(path))
    while folder and not os.path.exists(folder):
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return folder if folder and not os.path.isdir(folder) else None


def utf8_safe(text: str) -> str:
    """JSON ``text`` that UTF-8 can write: a lone surrogate (a file name that is not UTF-8,
    read by Python as ``caf\udce9``) becomes its JSON escape, which reads back as itself."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


_KIND_WORDS = {stat.S_IFDIR: "a directory", stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket"}


def atomic_write(path: str, data: str | bytes, exclusive: bool = False) -> None:
    """Write ``data`` (text as UTF-8) to ``path``, the one way every writer of mcptest does.

    - A regular file (or nothing) at ``path``: the data goes to a temporary file beside it,
      then is renamed into place, so a full disk or a kill leaves the old file as it was. The
      old file's permission bits are kept (a 0600 cassette stays 0600); a new file is made
      with the umask's bits, never wider.
    - A symbolic link is followed: its target is written (the same way) and the link kept,
      so a cassette shared through a link stays shared.
    - A character device or a FIFO (``/dev/null``, ``/dev/stdout``, ``>(gzip)``) is written
      in place, as a shell redirection would: it is never replaced by a file.
    - A directory, a block device or a socket is refused with an ``OSError`` saying so.

    ``exclusive``: the write fails with :class:`FileExistsError` if anything stands at
    ``path`` when the file is put in place (a hard link, not a rename: two writers cannot
    both win).
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        st: Optional[os.stat_result] = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        if exclusive:
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), path)
        _write_in_place(path, payload)
        return
    if st is not None and not stat.S_ISREG(st.st_mode):
        what = _KIND_WORDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
        raise OSError(errno.EISDIR if stat.S_ISDIR(st.st_mode) else errno.EINVAL,
                      f"is {what}; mcptest writes only regular files, character devices and FIFOs", path)
    if exclusive and os.path.lexists(path):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), path)
    target = real_target(path)
    directory = os.path.dirname(target)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = _temporary(directory, os.path.basename(target))
    try:
        with os.fdopen(fd, "wb") as fh:
            if st is not None:  # the old file's bits (and owner, for root), not the defaults of a new one
                os.fchmod(fh.fileno(), stat.S_IMODE(st.st_mode))
                if os.geteuid() == 0 and (st.st_uid, st.st_gid) != (0, 0):
                    with contextlib.suppress(OSError):
                        os.fchown(fh.fileno(), st.st_uid, st.st_gid)
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        if exclusive:
            try:
                os.link(tmp, target)
            except FileExistsError:
                raise
            except OSError:  # a file system without hard links: the check above, then a rename
                if os.path.lexists(target):
                    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), path) from None
                os.replace(tmp, target)
        else:
            os.replace(tmp, target)
    finally:
        # A full disk or an interrupt mid-write: the old file stays as it was and no
        # half-written temporary is left beside it.
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def real_target(path: str) -> str:
    """The absolute path ``path`` leads to once every symbolic link is followed (a dangling
    link leads to the file it names, which a write then creates)."""
    return os.path.realpath(os.path.abspath(path))


def _temporary(directory: str, name: str) -> tuple[int, str]:
    """A new file beside the target, unpredictable name, created with mode 0666 so the
    kernel applies the umask itself (no process-wide ``os.umask`` call to read it)."""
    import secrets

    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    while True:
        tmp = os.path.join(directory, f".{name}.tmp-{secrets.token_hex(6)}")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue


def _write_in_place(path: str, payload: bytes) -> None:
    """Write to a character device or a FIFO as a shell redirection does (a FIFO waits for a
    reader); ``/dev/full`` raises its ``OSError`` (no space left) like any full disk."""
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def output_problem(path: str) -> Optional[str]:
    """Why ``path`` cannot be written, in words for a message after its name, or None: checked
    before a session starts, so a read-only folder or a full disk is said at once rather
    than after the whole run (the write at the end still fails cleanly if things change)."""
    try:
        st: Optional[os.stat_result] = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):  # the walk below names a file where a folder should be
        st = None
    except OSError as exc:
        return f"cannot be written: {exc.strerror or exc}"
    if st is not None and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        return None if os.access(path, os.W_OK) else "cannot be written: permission denied"
    if st is not None and not stat.S_ISREG(st.st_mode):
        return f"is {_KIND_WORDS.get(stat.S_IFMT(st.st_mode), 'not a regular file')}; name a file to write"
    folder = os.path.dirname(real_target(path))
    while not os.path.lexists(folder):
        folder = os.path.dirname(folder)
    if not os.path.isdir(folder):
        return f"cannot be written, {folder} is a file, not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot be written: the folder {folder} is read-only for this user"
    if st is not None and not os.access(path, os.W_OK) and os.geteuid() != 0:
        return "cannot be written: the file is read-only for this user"
    with contextlib.suppress(OSError):
        fs = os.statvfs(folder)
        if fs.f_bavail == 0 and os.geteuid() != 0 or fs.f_bfree == 0:
            return f"cannot be written: no space left on the disk of {folder}"
    return None


_HELD: dict = {}  # lock file -> [fd, depth]: a lock already held by this process is taken again at once


@contextlib.contextmanager
def locked(path: str, wait: bool = True):
    """Hold an advisory lock for ``path`` (``fcntl.flock`` on a lock file beside its real
    target) across a read-merge-write, so writers in other processes wait their turn.

    The lock file is removed on release, checked by inode after locking so a waiter that
    opened a removed one tries again, and named after the target, not a shared folder, so
    no other user can hold it. Nested use in one process is free. With ``wait`` False a
    lock held elsewhere raises :class:`BlockingIOError` at once. Where ``fcntl`` is
    missing (Windows) or the folder cannot hold the lock file, nothing is locked.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    target = real_target(path)
    lock = os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.mcptest-lock")
    held = _HELD.get(lock)
    if held is not None:
        held[1] += 1
        try:
            yield
        finally:
            held[1] -= 1
        return
    fd = _acquire(fcntl, lock, wait)
    if fd is None:
        yield
        return
    _HELD[lock] = [fd, 1]
    try:
        yield
    finally:
        del _HELD[lock]
        with contextlib.suppress(OSError):
            os.unlink(lock)
        os.close(fd)


def _acquire(fcntl, lock: str, wait: bool) -> Optional[int]:
    """The locked descriptor of ``lock`` (None when the folder cannot hold it)."""
    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(lock), exist_ok=True)
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0),
                         0o600)
        except OSError:
            return None  # a read-only folder: the write that follows says so itself
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            mine = os.fstat(fd)
            now = os.stat(lock, follow_symlinks=False)
            if (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino):
                return fd
        except FileNotFoundError:
            pass  # removed by the holder before us: take the next one
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
