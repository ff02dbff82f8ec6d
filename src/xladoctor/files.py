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
* Every input read whole (an HLO module, a shapes file, ``relayout``'s IN, stdin, a FIFO,
  a decompressed stream) goes through one bounded reader, :func:`read_bounded`: at most
  :data:`MAX_INPUT_BYTES` (1 GiB; ``XLADOCTOR_MAX_INPUT_BYTES`` sets another), or the
  exact size a caller expects, plus one byte to tell "too big" from "just fits".  A
  regular file is refused from its ``fstat`` size before anything is read; a stream is
  refused as soon as it passes the limit, so ``/dev/zero``, ``/dev/urandom`` or an endless
  pipe costs at most the limit, never a MemoryError.  Logs are not read whole: they are
  streamed in blocks and bounded by the scanner (:mod:`xladoctor.catalogue.scanner`).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO, NamedTuple

from .errors import InputError, UnboundedSizeError

_KINDS = ((stat.S_ISREG, "regular"), (stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "fifo"),
          (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"))


MAX_INPUT_BYTES = 1 << 30
"""The most bytes xladoctor reads whole from one input (the largest module benchmarked is 173 MB)."""

_BLOCK = 1 << 20


def max_input_bytes() -> int:
    """:data:`MAX_INPUT_BYTES`, or ``XLADOCTOR_MAX_INPUT_BYTES`` when set to a positive integer."""
    value = os.environ.get("XLADOCTOR_MAX_INPUT_BYTES", "")
    return int(value) if value.isdigit() and int(value) > 0 else MAX_INPUT_BYTES


def too_big(name: str, limit: int, what: str = "") -> InputError:
    """The one error for an input past its bound (``what``: why this bound, if not the general one)."""
    why = what or f"the most xladoctor reads whole (XLADOCTOR_MAX_INPUT_BYTES={limit} sets another)"
    return InputError(f"input is larger than {limit:,} bytes, {why}", name, 1, 1)


def read_bounded(f: BinaryIO, name: str, limit: int | None = None, head: bytes = b"",
                 what: str = "") -> bytearray:
    """All of ``f`` (after ``head``, already read from it) if it holds at most ``limit`` bytes;
    else :func:`too_big`, raised before a regular file is read and as soon as a stream passes it."""
    limit = max_input_bytes() if limit is None else limit
    size = _remaining(f)
    if size is not None and len(head) + size > limit:
        raise too_big(name, limit, what)
    buf = bytearray(head)
    if size is not None:  # one buffer of the known size, filled in place (no second copy)
        buf.extend(bytes(size))
        view = memoryview(buf)
        got = len(head)
        while got < len(buf):
            n = f.readinto(view[got:])  # type: ignore[attr-defined]
            if not n:
                break
            got += n
        view.release()
        del buf[got:]
    while True:  # a stream, or a regular file that grew since fstat
        block = f.read(min(_BLOCK, limit + 1 - len(buf)) or 1)
        if not block:
            return buf
        buf += block
        if len(buf) > limit:
            raise too_big(name, limit, what)


def _remaining(f: BinaryIO) -> int | None:
    """Bytes left in a regular file from fstat; None for a pipe, FIFO, terminal or in-memory stream."""
    try:
        st = os.fstat(f.fileno())
        return max(0, st.st_size - f.tell()) if stat.S_ISREG(st.st_mode) else None
    except (AttributeError, OSError, ValueError):
        return None


def read_path(path: str, limit: int | None = None, what: str = "") -> tuple[bytearray, str]:
    """``(bytes, source name)`` of a path named by the user, or of stdin for ``-``, bounded.

    Devices and sockets are refused (:func:`check_readable_kind`) before they are opened.
    """
    import sys

    if path == "-":
        return read_bounded(sys.stdin.buffer, "<stdin>", limit, what=what), "<stdin>"
    check_readable_kind(path)
    try:
        with open(path, "rb") as f:
            return read_bounded(f, path, limit, what=what), path
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror or e}", path, 1, 1) from None


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


def decode_text(data: bytes | bytearray, name: str) -> str:
    """UTF-8 text, or :class:`InputError` at the line and column of the first invalid byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        text = data[: e.start].decode("utf-8", "replace")
        line = text.count("\n") + 1
        col = len(text) - (text.rfind("\n") + 1) + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[e.start]:02x})", name, line, col) from None


def text_argument(value: object, func: str, source: str) -> str:
    """The text an API function (``parse_module``) was given: a ``str``, or ``bytes`` decoded as UTF-8
    (a located :class:`InputError` if they are not); anything else is a TypeError naming what to pass."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return decode_text(bytes(value), source)
    raise TypeError(f"{func}() takes the text as str (or UTF-8 bytes), not {type(value).__name__}")


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
