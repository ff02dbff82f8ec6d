"""One log, file or stream, scanned to its distinct findings (``explain FILE``, a log in ``check``)."""

from __future__ import annotations

import os
import stat
import sys

from ..base.errors import InputError
from ..base.plain_dataclass import MutableDataclass
from .scanner import LogMatch, LogScanner

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import BinaryIO, cast
else:
    def cast(_type: object, value: object) -> object:
        """``typing.cast``: the value itself."""
        return value


class LogScan(MutableDataclass):
    """What scanning one log found: distinct findings, and messages not kept once MAX_DISTINCT were
    (a dataclass written out: :mod:`xladoctor.base.plain_dataclass`)."""

    findings: list[LogMatch]
    source: str
    not_shown: dict[str, int]

    def __init__(self, findings: list[LogMatch], source: str, not_shown: dict[str, int]) -> None:
        self.findings = findings
        self.source = source
        self.not_shown = not_shown


def scan_file(target: str, parallel: bool = True, stdin: BinaryIO | None = None) -> LogScan:
    """Findings in a file or stdin, in bounded memory; a big regular file uses every core.

    Regular files and streams (stdin, pipes, FIFOs named on the command line) are read;
    devices and sockets are refused (``/dev/zero`` would never end).
    """
    from ..base.files import check_readable_kind, compression_in, compression_of, open_input
    from .fastscan import scan_descriptor, scan_path, scan_stream

    scanner = LogScanner()
    if target == "-":
        # stdin: a big regular file is mapped as a named file is; else streamed, with what explain
        # already read of it to tell a module from a log first (``stdin``)
        fd = _stdin_file() if stdin is None else None
        if fd is not None:
            scan_descriptor(fd, scanner)
        else:
            scan_stream(_maybe_compressed(stdin or sys.stdin.buffer, "<stdin>"), scanner)
        return LogScan(scanner.finish(), "<stdin>", scanner.not_shown)
    if compression_of(target):  # job.log.gz: decompressed as it is read, bounded (files.open_input)
        with open_input(target) as stream:
            scan_stream(stream, scanner)
        return LogScan(scanner.finish(), target, scanner.not_shown)
    head = _regular_head(target)  # read once: compression, an archive and a wide encoding are asked of it
    if head is not None and compression_in(head[:16]) is not None:  # a compressed file without its suffix
        with open_input(target) as raw:
            scan_stream(_maybe_compressed(raw, target), scanner)
        return LogScan(scanner.finish(), target, scanner.not_shown)
    kind = check_readable_kind(target)
    if kind == "regular":
        _refuse_zip(target, head)
    try:
        if kind == "regular":
            scan_path(target, scanner, parallel, head)
        else:
            with open(target, "rb", buffering=0) as stream:
                scan_stream(stream, scanner)
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", target, 1, 1) from None
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror or e}", target, 1, 1) from None
    return LogScan(scanner.finish(), target, scanner.not_shown)


def _stdin_file() -> int | None:
    """stdin's descriptor when it is an uncompressed regular file of ``MAP_MIN_BYTES`` or more, still
    at its start (``explain - < job.log``): it is mapped as a named file is, not streamed."""
    from ..base.files import compression_in
    from .fastscan import MAP_MIN_BYTES

    try:
        fd = sys.stdin.fileno()
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size < max(1, MAP_MIN_BYTES):
            return None
        if os.lseek(fd, 0, os.SEEK_CUR) != 0 or compression_in(os.pread(fd, 16, 0)) is not None:
            return None
    except (OSError, ValueError, AttributeError):  # no descriptor (a test's stdin), not seekable
        return None
    return fd


def _maybe_compressed(stream: BinaryIO, name: str) -> BinaryIO:
    """``stream``, decompressed if its first bytes show compression (``explain - < job.log.gz``)."""
    from ..base.files import Prefixed, compression_in, decompressing, refuse_archive

    head = stream.read(16) or b""
    refuse_archive(head, name, decompressed=False)
    ext = compression_in(head)
    return decompressing(head, stream, name, ext) if ext else cast("BinaryIO", Prefixed(head, stream))


def _regular_head(path: str) -> bytes | None:
    """A regular file's first ``WIDE_SNIFF`` bytes (None for anything else: read without blocking on
    a FIFO, or unreadable).  One read answers compression magic, an archive and a wide encoding:
    each was its own open and read, ~21 syscalls of a clean log's run (issue 36, h53s)."""
    from ..base.wide_text import WIDE_SNIFF

    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            return f.read(WIDE_SNIFF)
    except OSError:
        return None


def _refuse_zip(path: str, head: bytes | None) -> None:
    """A zip archive named to ``explain`` is refused as ``check`` refuses it (its deflated members
    match no message: it was "no XLA error found"); ``head``: the file's first bytes, if read."""
    from ..base.files import refuse_archive

    if head is None:
        try:
            with open(path, "rb") as f:
                head = f.read(16)
        except OSError:
            return  # the scan says why it cannot read it
    refuse_archive(head[:16], path, decompressed=False)
