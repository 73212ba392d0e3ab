"""Files the command line reads and writes, handled so that a user's data is never lost.

Reading: only regular files, with a size cap, so ``/dev/zero``, a FIFO or a directory is a
clear refusal instead of a hang or an exhausted memory.

Writing (`write_all`): all or nothing. Every output is first written to a temporary file in
its destination's directory, flushed to disk (fsync) and its size checked; only when every
temporary file is complete are they renamed over their destinations (``os.replace``, atomic
per file). Any failure before the renames removes the temporary files and leaves every
destination as it was. See docs/semantics.md, "Command line: files and limits".
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .errors import PtoError

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
TEMP_SUFFIX = ".ptosim-tmp"


class FileUsageError(PtoError):
    """A file cannot be used as asked: not a regular file, too large, not writable, a
    symbolic link where none is followed. A usage error (CLI exit status 2)."""


class WriteBackError(PtoError):
    """Writing the results failed (disk full, I/O error); no destination was changed unless
    the message says otherwise. CLI exit status 1."""


def parse_size(text: str) -> int:
    """``"16M"`` -> 16 MiB: a byte count with an optional K, M or G (binary) suffix."""
    units = {"": 1, "K": KIB, "M": MIB, "G": GIB}
    body = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = body[-1:] if body[-1:] in ("K", "M", "G") else ""
    try:
        value = int(body[: len(body) - len(unit)]) * units[unit]
    except ValueError:
        raise ValueError(f"expected a byte count such as 4096, 64K, 16M or 1G, got {text!r}") \
            from None
    if value < 0:
        raise ValueError(f"a byte count cannot be negative, got {text!r}")
    return value


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def read_regular(path: Path, limit: int | None, *, what: str = "",
                 limit_flag: str = "") -> tuple[bytearray, tuple[int, int]]:
    """The bytes of the regular file ``path`` (at most ``limit`` bytes; None: no cap) and its
    identity ``(st_dev, st_ino)``. ``what`` (" for a") and ``limit_flag`` shape messages.
    The bytes come in one writable buffer, read in place: a caller can make it an array
    without copying it again."""
    # O_NONBLOCK: opening a FIFO must not wait for a writer before fstat can refuse it
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        raise FileUsageError(f"cannot read {path}{what}: {err.strerror or err}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileUsageError(f"cannot read {path}{what}: it is {_kind(st.st_mode)}, not a "
                                 f"regular file")
        over = f"; {limit_flag} raises the limit" if limit_flag else ""
        if limit is not None and st.st_size > limit:
            raise FileUsageError(f"{path}{what} has {st.st_size:,} bytes, more than the limit "
                                 f"of {limit:,}{over}")
        data = bytearray(st.st_size)
        view, total = memoryview(data), 0
        while total < len(data):                # the size fstat gave, read in place
            n = os.readv(fd, [view[total:total + (64 << 20)]])
            if n == 0:                          # the file shrank while being read
                break
            total += n
        view.release()
        del data[total:]
        cap = limit + 1 if limit is not None else None   # one byte more shows growth
        while cap is None or len(data) < cap:
            chunk = os.read(fd, 1 << 20 if cap is None else min(1 << 20, cap - len(data)))
            if not chunk:
                break
            data += chunk
        if limit is not None and len(data) > limit:
            raise FileUsageError(f"{path}{what} grew beyond the limit of {limit:,} bytes while "
                                 f"being read{over}")
        return data, (st.st_dev, st.st_ino)
    except OSError as err:
        raise FileUsageError(f"cannot read {path}{what}: {err.strerror or err}") from None
    finally:
        os.close(fd)


@dataclass
class Destination:
    """Where one output goes. ``path`` is final: symbolic links of a file the user named
    are already resolved; a made-up name (``DIR/<name>.bin``) must not be a link."""

    label: str          # for messages: "c" (a parameter) or "--trace"
    path: Path


def named_destination(label: str, path: Path) -> Destination:
    """A file the user named (``--arg c=c.bin`` written in place, ``--trace t.json``):
    symbolic links are followed, so the file the link points to receives the data."""
    return Destination(label, Path(os.path.realpath(path)))


def _nearest_existing(path: Path) -> Path:
    p = path
    while not os.path.lexists(p) and p != p.parent:
        p = p.parent
    return p


def check_destination(dest: Destination, *, follow: bool, make_dirs: bool = False) -> None:
    """Refuse, before the run, a destination that cannot be written atomically: a directory,
    a device or FIFO, a read-only file, a directory where no temporary file can be made,
    a missing directory (unless ``make_dirs``: then its nearest existing ancestor must be
    writable) and (``follow=False``) a symbolic link."""
    path = dest.path
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as err:
        raise FileUsageError(f"cannot write {path} ({dest.label}): {err.strerror}") from None
    if st is not None:
        if stat.S_ISLNK(st.st_mode) and not follow:
            raise FileUsageError(f"refusing to write {path} ({dest.label}): it is a symbolic "
                                 f"link, which --out-dir does not follow; remove it or choose "
                                 f"another directory")
        if not stat.S_ISREG(os.stat(path).st_mode if stat.S_ISLNK(st.st_mode) else st.st_mode):
            raise FileUsageError(f"cannot write {path} ({dest.label}): it is "
                                 f"{_kind(os.stat(path).st_mode)}, not a regular file")
        if not os.access(path, os.W_OK):
            raise FileUsageError(f"cannot write {path} ({dest.label}): the file is read-only")
    parent = _nearest_existing(path.parent) if make_dirs else path.parent
    if not make_dirs and not os.path.lexists(parent):
        raise FileUsageError(f"cannot write {path} ({dest.label}): directory {parent} does "
                             f"not exist")
    if not parent.is_dir():
        raise FileUsageError(f"cannot write {path} ({dest.label}): {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise FileUsageError(f"cannot write {path} ({dest.label}): directory {parent} is not "
                             f"writable (results are written to a temporary file beside "
                             f"the destination, then renamed); --out-dir writes elsewhere")


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _write_temp(dest: Path, data: Any) -> str:
    """Write ``data`` (bytes or a buffer) to a new temporary file beside ``dest``; fsync it and
    check its size. Returns the temporary file's name; removes it on failure."""
    view = memoryview(data).cast("B")
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=TEMP_SUFFIX)
    try:
        try:
            old = os.stat(dest)
            os.fchmod(fd, stat.S_IMODE(old.st_mode))      # keep the file's permissions ...
            if (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
                with contextlib.suppress(OSError):         # ... and owner, where allowed
                    os.fchown(fd, old.st_uid, old.st_gid)
        except FileNotFoundError:
            os.fchmod(fd, _new_file_mode())
        done = 0
        while done < len(view):
            done += os.write(fd, view[done:done + (64 << 20)])
        os.fsync(fd)
        size = os.fstat(fd).st_size
        if size != len(view):
            raise OSError(0, f"wrote {size:,} of {len(view):,} bytes")
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    os.close(fd)
    return tmp


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_all(items: list[tuple[Destination, Any]], *,
              before_rename: Callable[[], None] | None = None,
              renaming: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext) -> None:
    """Write every ``(destination, data)`` all or nothing (see the module doc).

    ``before_rename`` runs once every temporary file is complete; ``renaming()`` is a context
    entered around the renames (the CLI defers SIGINT / SIGTERM there)."""
    temps: list[tuple[Destination, str]] = []
    made: list[Path] = []
    try:
        for dest, data in items:
            _make_dirs(dest.path.parent, made)
            try:
                temps.append((dest, _write_temp(dest.path, data)))
            except OSError as err:
                raise WriteBackError(f"cannot write {dest.path} ({dest.label}): "
                                     f"{err.strerror or err}; no file was changed") from None
        if before_rename is not None:
            before_rename()
    except BaseException:
        for _, tmp in temps:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        for d in reversed(made):
            with contextlib.suppress(OSError):
                os.rmdir(d)
        raise
    with renaming():
        for k, (dest, tmp) in enumerate(temps):
            try:
                os.replace(tmp, dest.path)
            except OSError as err:
                for _, rest in temps[k:]:
                    with contextlib.suppress(OSError):
                        os.unlink(rest)
                done = ", ".join(str(d.path) for d, _ in temps[:k]) or "none"
                raise WriteBackError(f"cannot replace {dest.path} ({dest.label}): "
                                     f"{err.strerror or err}; already replaced: {done}") \
                    from None
        for parent in dict.fromkeys(dest.path.parent for dest, _ in temps):
            _fsync_dir(parent)


def _make_dirs(path: Path, made: list[Path]) -> None:
    """``mkdir -p``; appends each directory it creates to ``made``, outermost first."""
    missing: list[Path] = []
    p = path
    while not os.path.lexists(p) and p != p.parent:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d)
        except OSError as err:
            raise WriteBackError(f"cannot create directory {d}: {err.strerror or err}; no file "
                                 f"was changed") from None
        made.append(d)


def write_atomic(path: str | Path, data: bytes) -> None:
    """Replace one file atomically (a trace from the Python API)."""
    write_all([(named_destination(str(path), Path(path)), data)])


@contextlib.contextmanager
def text_stream(dest: Destination) -> Iterator[TextIO]:
    """A text file that appears at ``dest`` in one piece when the block ends, normally or
    by an ``Exception`` (a log is wanted most when the run failed); an interrupt
    (KeyboardInterrupt, or any other BaseException) leaves ``dest`` as it was."""
    fd, tmp = tempfile.mkstemp(dir=dest.path.parent, prefix=f".{dest.path.name}.",
                               suffix=TEMP_SUFFIX)
    os.fchmod(fd, _new_file_mode())
    stream = os.fdopen(fd, "w", encoding="utf-8")
    try:
        yield stream
    except Exception:
        stream.close()
        os.replace(tmp, dest.path)
        raise
    except BaseException:
        stream.close()
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    stream.close()
    os.replace(tmp, dest.path)
