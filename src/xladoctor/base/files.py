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

import io
import os
import stat
import sys
from collections import namedtuple

from .errors import InputError

# re-exported: every reader imports its file helpers from here
from .wide_text import WIDE_BOMS, WIDE_SNIFF, Transcoded, wide_encoding, wide_text_error  # noqa: F401

TYPE_CHECKING = False  # not typing's: every command that reads a file imports this module (issue 36, start-up)
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, BinaryIO, NamedTuple

    class _WalkFields(NamedTuple):
        path: str
        status: str
        note: str = ""
else:  # the same fields, without importing typing (tests/test_startup.py checks that they agree)
    _WalkFields = namedtuple("WalkEntry", ("path", "status", "note"), defaults=("",))

_KINDS = ((stat.S_ISREG, "regular"), (stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "fifo"),
          (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"))


MAX_INPUT_BYTES = 1 << 30
"""The most bytes xladoctor reads whole from one input (the largest module benchmarked is 173 MB)."""

_BLOCK = 1 << 20


def max_input_bytes() -> int:
    """:data:`MAX_INPUT_BYTES`, or ``XLADOCTOR_MAX_INPUT_BYTES`` when set to a positive integer."""
    value = os.environ.get("XLADOCTOR_MAX_INPUT_BYTES", "").strip()
    if not (value.isascii() and value.isdigit()):  # `isdigit` alone takes '²' and Arabic-Indic digits
        return MAX_INPUT_BYTES
    # past 18 digits it is more than any input (and int() refuses past 4,300 digits: an internal error)
    limit = int(value) if len(value) <= 18 else sys.maxsize
    return limit if limit > 0 else MAX_INPUT_BYTES


def too_big(name: str, limit: int, what: str = "") -> InputError:
    """The one error for an input past its bound (``what``: why this bound, if not the general one)."""
    why = what or f"the most xladoctor reads whole (XLADOCTOR_MAX_INPUT_BYTES={limit} sets another)"
    return InputError(f"input is larger than {limit:,} bytes, {why}", name, 1, 1)


_HOLD_FROM = 4 << 20
"""``malloc_threshold.HOLD_FROM``, read here so a small input imports nothing more."""


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
            if len(buf) >= _HOLD_FROM:  # before the buffer is freed (base/malloc_threshold says why)
                from .malloc_threshold import hold_for

                hold_for(len(buf))
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
        with (open_input(path) if compression_of(path) else open(path, "rb")) as f:
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


class WalkEntry(_WalkFields):
    """One path met while walking: ``status`` is ``"file"`` (to check), ``"skipped"`` or ``"error"``;
    then a ``note``.

    A named tuple, not a dataclass: ``dataclasses`` imports ``inspect`` (and ``ast``, ``dis``...), which
    every command that reads a file would pay for at start-up through this module; and
    ``collections.namedtuple``'s, not ``typing.NamedTuple``'s, as typing costs a third of a bare start.
    """

    __slots__ = ()


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
        wide = wide_encoding(data[:WIDE_SNIFF])
        if wide:
            raise wide_text_error(wide, name) from None
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


COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma", ".zst": "compression.zstd"}
"""The compressed inputs every command reads (by suffix), and the module that decompresses each
(``compression.zstd`` is the standard library's from Python 3.14, its backport before:
``backports.zstd``, the ``[zstd]`` extra, so there is one code path)."""

DECOMPRESSED_RATIO = 200
"""A compressed input may expand to this many times its size, or to max_input_bytes() if more:
past that it is refused as a decompression bomb (logs compress 5-20x; zeros 1000x)."""

_DECOMPRESS_STEP = 1 << 20


def compression_of(path: str) -> str | None:
    """The suffix of a compressed input (``.gz``, ``.bz2``, ``.xz``, ``.zst``), or None."""
    ext = os.path.splitext(path)[1].lower()
    return ext if ext in COMPRESSIONS else None


_MAGIC = ((b"\x1f\x8b\x08", ".gz"), (b"\xfd7zXZ\x00", ".xz"), (b"\x28\xb5\x2f\xfd", ".zst"))
"""gzip, xz and zstd magic; bzip2's (``BZh`` + block size 1-9 + ``1AY&SY``) is tested apart.  Plain
comparisons: the regex alternation they replace cost its compile (~0.3 ms) in every ``explain LOG``."""


def compression_in(head: bytes) -> str | None:
    """The compression a stream's first bytes show (gzip, bzip2, xz, zstd magic), or None: stdin
    (``xladoctor check - < job.log.gz``) and a compressed file without its suffix are read too."""
    for magic, ext in _MAGIC:
        if head.startswith(magic):
            return ext
    if head.startswith(b"BZh") and len(head) >= 10 and 0x31 <= head[3] <= 0x39 and head[4:10] == b"1AY&SY":
        return ".bz2"
    return None


_ZIP = (b"PK\x03\x04", b"PK\x05\x06")


def refuse_archive(head: bytes, name: str, decompressed: bool) -> None:
    """One located line for what xladoctor would otherwise read as a log and find nothing in, so
    call clean: a zip archive (its members are deflated, no message matches), and a stream still
    compressed after the one level xladoctor decompresses (``job.log.gz.gz``; ``fleet`` read two levels
    where ``check`` and ``explain`` read one, as a log)."""
    if head.startswith(_ZIP):
        raise InputError("a zip archive: xladoctor reads text and gzip, bzip2, xz or zstd streams; extract it "
                         "first (unzip -p ARCHIVE | xladoctor check -)", name, 1, 1)
    inner = compression_in(head) if decompressed else None
    if inner:
        raise InputError(f"compressed twice ({inner} inside): xladoctor decompresses one level; decompress "
                         "it once first", name, 1, 1)


def _one_level(stream: Any, name: str, raw: Any = None) -> BinaryIO:
    """``stream`` (decompressed) once its first bytes are known not to be another archive."""
    try:
        refuse_archive(stream.peek(16)[:16], name, decompressed=True)
    except BaseException:
        (raw or stream).close()
        raise
    return _binary(stream)


class Prefixed(io.RawIOBase):
    """Bytes already read from a stream (its sniffed head), then the rest of the stream."""

    def __init__(self, head: bytes, rest: BinaryIO):
        self._head, self._rest = memoryview(head), rest

    def readable(self) -> bool:
        return True

    def readinto(self, view: Any) -> int:
        if self._head:
            n = min(len(view), len(self._head))
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        return self._rest.readinto(view) or 0  # type: ignore[attr-defined]


def _binary(stream: Any) -> BinaryIO:
    """``stream`` as the type checker's BinaryIO (``typing.cast`` without importing typing)."""
    return stream


def decompressing(head: bytes, rest: BinaryIO, name: str, ext: str) -> BinaryIO:
    """The stream whose first bytes ``head`` showed compression ``ext``, decompressed and bounded
    (to :func:`max_input_bytes`: a stream tells no compressed size)."""
    raw = Prefixed(head, rest)
    return _one_level(io.BufferedReader(_Bounded(_decompressor(ext, _binary(raw), name), name,
                                                 _decompress_limit(None), raw)), name)


class _Bounded(io.RawIOBase):
    """A decompressing stream that stops with a located error past its limit (never a MemoryError)."""

    def __init__(self, inner: Any, path: str, limit: int, raw: Any = None):
        self._inner, self._path, self._limit, self._got, self._raw = inner, path, limit, 0, raw

    def readable(self) -> bool:
        return True

    def readinto(self, view: Any) -> int:
        # At most 1 MiB a call: the decompressor allocates an output buffer of the size asked for,
        # and fastscan asks for 8 MiB blocks (twice the memory for nothing, near a memory cap).
        try:
            n = self._inner.readinto(memoryview(view)[:_DECOMPRESS_STEP])
        except _stream_errors() as e:  # a corrupt or cut stream (zlib, lzma, bz2, zstd errors)
            if isinstance(e, InputError):
                raise
            raise InputError(f"cannot decompress: {e}", self._path, 1, 1) from None
        self._got += n or 0
        if self._got > self._limit:
            raise InputError(f"decompressed input passes {self._limit:,} bytes ({DECOMPRESSED_RATIO}x its "
                             "compressed size, and over the size xladoctor reads whole): refusing it as a "
                             "decompression bomb", self._path, 1, 1)
        return n or 0

    def close(self) -> None:
        self._inner.close()
        if self._raw is not None:  # GzipFile(fileobj=...) leaves the file it reads open
            self._raw.close()
        super().close()


def _stream_errors() -> tuple[type[BaseException], ...]:
    """What a decompressor raises on a corrupt stream: gzip and bz2 raise OSError/EOFError, but
    lzma raises ``LZMAError`` and zstandard ``ZstdError``, subclasses of Exception only (a garbage
    ``.xz`` was an internal error).  Looked up once the decompressor's module is imported."""
    import sys

    errors: list[type[BaseException]] = [OSError, EOFError, ValueError]
    for module, name in (("lzma", "LZMAError"), ("zstandard", "ZstdError")):
        error = getattr(sys.modules.get(module), name, None)
        if isinstance(error, type) and issubclass(error, BaseException):
            errors.append(error)
    return tuple(errors)


def bounded_decompressed(f: Any, name: str, compressed_size: int | None) -> BinaryIO:
    """An already decompressing stream (fsspec's), bounded like :func:`open_input`'s."""
    return _one_level(io.BufferedReader(_Bounded(f, name, _decompress_limit(compressed_size))), name, f)


def _decompress_limit(compressed: int | None) -> int:
    return max(max_input_bytes(), DECOMPRESSED_RATIO * (compressed or 0))


def _decompressor(ext: str, raw: BinaryIO, name: str) -> Any:
    if ext == ".gz":
        import gzip
        import zlib
        return _CodecErrors(gzip.GzipFile(fileobj=raw, mode="rb"), zlib.error)
    if ext == ".bz2":
        import bz2
        return bz2.BZ2File(raw)  # its corrupt-stream error is an OSError
    if ext == ".xz":
        import lzma
        return _CodecErrors(lzma.LZMAFile(raw), lzma.LZMAError)
    zstd = _zstd(name)
    return _CodecErrors(zstd.ZstdFile(raw), zstd.ZstdError)


def _zstd(name: str) -> Any:
    """``compression.zstd`` (Python 3.14+) or its backport; without either, one line naming the extra."""
    try:
        if sys.version_info >= (3, 14):
            from compression import zstd  # type: ignore[import-not-found, unused-ignore]
        else:
            from backports import zstd  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise InputError("is zstd-compressed: reading .zst needs backports.zstd before Python 3.14, "
                         "pip install 'xladoctor[zstd]' (or decompress it first: zstd -dc FILE | xladoctor ... -)",
                         name, 1, 1) from None
    return zstd


class _CodecErrors(io.RawIOBase):
    """A decompressing file whose codec's own error (``zlib.error``, ``lzma.LZMAError``, ``ZstdError``:
    each an ``Exception``, not an ``OSError`` as bz2's is) reads as a corrupt stream (ValueError), so
    :class:`_Bounded` locates it in one line instead of an internal error (found by the fuzz campaign's
    compressed-stdin inputs: a corrupt .xz or .gz body, a valid header)."""

    def __init__(self, inner: Any, error: type[Exception]):
        self._inner, self._error = inner, error

    def readable(self) -> bool:
        return True

    def readinto(self, view: Any) -> int:
        try:
            return int(self._inner.readinto(view))
        except self._error as e:
            raise ValueError(str(e)) from None

    def close(self) -> None:
        self._inner.close()
        super().close()


def open_input(path: str, explicit: bool = True) -> BinaryIO:
    """A binary stream of a file named on the command line (``explicit``: a FIFO is allowed) or
    met in a walk (a regular file only); a compressed one (:data:`COMPRESSIONS`) decompressed as it is
    read, bounded to :data:`DECOMPRESSED_RATIO` times its size (at least :func:`max_input_bytes`)."""
    if explicit:
        check_readable_kind(path)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError as e:
            raise InputError(f"cannot read file: {e.strerror or e}", path, 1, 1) from None
    else:
        fd = open_regular(path)
    raw = os.fdopen(fd, "rb")
    ext = compression_of(path)
    if ext is None:
        return raw
    try:
        st = os.fstat(fd)
        limit = _decompress_limit(st.st_size if stat.S_ISREG(st.st_mode) else None)
        stream = io.BufferedReader(_Bounded(_decompressor(ext, raw, path), path, limit, raw))
    except BaseException:
        raw.close()
        raise
    return _one_level(stream, path, raw)
