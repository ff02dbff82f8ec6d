"""Which paths xladoctor reads, and how a directory is walked safely.

* A path named on the command line may be a regular file or a stream (a pipe or FIFO,
  e.g. ``<(zcat job.log.gz)``), read in blocks.  Devices and sockets are refused with a
  located message: ``/dev/zero`` would never end, a tape would be rewound.
* Inside a directory only regular files are read.  FIFOs, devices and sockets are listed
  as skipped (opening a FIFO with no writer would block forever); symlinks are followed
  only when their target stays inside the directory given (a symlink to a directory is
  never followed, so no cycle); an unreadable subdirectory is reported as an error, not
  skipped silently.  The order is that of ``os.walk`` with sorted names: a directory's
  files, then its subdirectories.
* What was read is UTF-8 text or a located error (:func:`decode_text`), and a size error
  about a shape of it points at that shape (:func:`located`).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

from .errors import InputError, UnboundedSizeError

_KINDS = ((stat.S_ISREG, "regular"), (stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "fifo"),
          (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"))


def mode_kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "special file"


def check_readable_kind(path: str) -> str:
    """``"regular"`` or ``"fifo"`` for a path named on the command line; else :class:`InputError`."""
    try:
        kind = mode_kind(os.stat(path).st_mode)
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror or e}", path, 1, 1) from None
    if kind == "directory":
        raise InputError("is a directory, expected a file", path, 1, 1)
    if kind not in ("regular", "fifo"):
        raise InputError(f"is a {kind}, not a file xladoctor reads (regular files, pipes and FIFOs)", path, 1, 1)
    return kind


class WalkEntry(NamedTuple):
    """One path met while walking: ``status`` is ``"file"`` (to check), ``"skipped"`` or ``"error"``.

    A NamedTuple, not a dataclass: ``dataclasses`` imports ``inspect`` (and ``ast``, ``dis``...), which
    every command that reads a file would pay for at start-up through this module.
    """

    path: str
    status: str
    note: str = ""


def walk(root: str) -> Iterator[WalkEntry]:
    """Every path under ``root`` in ``os.walk`` order (sorted), classified; never leaves ``root``."""
    real_root = os.path.realpath(root)
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            yield WalkEntry(directory, "error", f"cannot read directory: {e.strerror or e}")
            continue
        subdirs = []
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(entry.path)
                continue
            yield _classify(entry, real_root)
        stack.extend(reversed(subdirs))


def _classify(entry: os.DirEntry, real_root: str) -> WalkEntry:
    try:
        if entry.is_symlink():
            target = os.path.realpath(entry.path)
            if os.path.commonpath([real_root, target]) != real_root:
                return WalkEntry(entry.path, "skipped", "symlink that leads out of the directory (not followed)")
            mode = os.stat(target).st_mode
            if stat.S_ISDIR(mode):
                return WalkEntry(entry.path, "skipped", "symlink to a directory (not followed)")
        else:
            mode = entry.stat(follow_symlinks=False).st_mode
    except OSError as e:
        return WalkEntry(entry.path, "error", f"cannot read file: {e.strerror or e}")
    kind = mode_kind(mode)
    if kind != "regular":
        return WalkEntry(entry.path, "skipped", f"{kind}, not a regular file")
    return WalkEntry(entry.path, "file")


def open_regular(path: str) -> int:
    """A file descriptor for ``path`` if it is (still) a regular file; never blocks on a FIFO swapped in."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        kind = mode_kind(os.fstat(fd).st_mode)
        if kind != "regular":
            raise InputError(f"is a {kind}, not a regular file", path, 1, 1)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return fd
    except BaseException:
        os.close(fd)
        raise


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 text, or :class:`InputError` at the line and column of the first invalid byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        text = data[: e.start].decode("utf-8", "replace")
        line = text.count("\n") + 1
        col = len(text) - (text.rfind("\n") + 1) + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[e.start]:02x})", name, line, col) from None


_UNBOUNDED_DIM = re.compile(r"\[[^\]\n]*?(\?)")


@contextmanager
def located(text: str, source: str) -> Iterator[None]:
    """Errors about a shape of ``text`` (an unbounded ``?`` dimension has no byte size)
    become ``source:line:col:`` errors at the first ``?`` dimension, like parse errors."""
    try:
        yield
    except UnboundedSizeError as e:
        m = _UNBOUNDED_DIM.search(text)
        raise InputError.at(str(e), text, m.start(1) if m else 0, source) from None
