"""Scan a log at page-cache speed: decode and scan only the regions around anchor words.

:class:`~.scanner.LogScanner` finds a message from one of its anchors, looking at most
``BACK_CHARS`` back (the coded header above a body) and ``WINDOW_CHARS`` forward (a
wrapped message).  So a log is read as raw bytes, the anchors are located without
decoding (:mod:`.prefilter`), and only *regions* — each anchor with :data:`BACK` bytes
before and :data:`FORWARD` bytes after, starting at a line start when one is within
:data:`ALIGN` bytes — are decoded and fed to the scanner, which restarts at each
region's line number.  Regions closer than ``BACK + ALIGN`` bytes are merged.  The rest
is only counted for newlines (line numbers), at memory speed.

A regular file is mapped (read whole under :data:`MAP_MIN_BYTES`) and planned in one pass of
the automaton (:func:`iter_regions`), each region fed to the scanner as it is complete; since the
bytes stay addressable, newlines are counted only up to a region where a message's line is
recorded (a log without errors is never counted, nor anything after the last recorded line),
and the pages are handed back as they are passed, so the resident size stays bounded.  Files of
:data:`PARALLEL_MIN_BYTES` or more, where :data:`PARALLEL_MIN_CPUS` cores can be used, use every
core twice over (:mod:`.parallel_scan`): worker processes find the
regions of one chunk each (same rules, same offsets) and count newlines up to their last
region, the parent has the rest of a chunk counted only where a later chunk has a region,
merges the regions, workers scan batches of consecutive regions with fresh scanners, and
the parent folds their findings together in file order
(:meth:`~.scanner.LogScanner.absorb`: counts, first lines, the distinct cap and
host_offloader traces across batches come out as in one pass).  A stream (stdin, a pipe, a
compressed log) is planned and scanned in one pass (:class:`_Planner`), counting as it reads:
it holds at most a block (:data:`BLOCK`) plus the margins in memory, whatever the log's size
or line lengths.
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Callable, Iterator

from ..base.plain_dataclass import MutableDataclass
from .newlines import NATIVE, NewlineCounter, release
from .prefilter import AnchorFinder
from .scanner import BACK_CHARS, WINDOW_CHARS, LogScanner

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from mmap import mmap
    from typing import Protocol

    Mapped = bytes | mmap

BLOCK = 8 << 20
BACK = 2 * BACK_CHARS
"""Bytes kept before an anchor: the scanner looks BACK_CHARS characters back (2 bytes each for Persian)."""
FORWARD = 2 * WINDOW_CHARS
"""Bytes kept after an anchor: the scanner reads a message WINDOW_CHARS characters ahead."""
ALIGN = 16 << 10
"""How far before a region's start to look for a line start."""
FEED = 4 << 20
BATCH_BYTES = 16 << 20
"""Region bytes scanned per worker task (dense logs); each batch's findings travel back, not its text."""
PARALLEL_MIN_BYTES = 1 << 30
"""Smaller files are scanned in one process (starting workers costs more than it saves).  Since the
needle prefilter and lazy line counting, one process scans 500 MB in 0.10-0.36 CPU-s and the worker
pool took 1.5-2x that CPU and more wall time on 2 cores, at 2 GB too (bench/README.md)."""
PARALLEL_MIN_CPUS = 4
"""Fewer usable cores than this: one process whatever the size (two workers never won on 2 cores)."""
MAP_MIN_BYTES = 1 << 20
"""Smaller files are read whole (one read is cheaper than mapping); bigger ones are mapped."""
RELEASE_EVERY = 8 << 20
"""A mapped file's pages are handed back every this many bytes planned (resident size stays bounded)."""


class Region(MutableDataclass):
    """Bytes ``[start, end)`` of the log to scan; ``first_hit`` is the anchor that opened it (a
    dataclass written out: :mod:`xladoctor.base.plain_dataclass`)."""

    start: int
    end: int
    first_hit: int
    newlines_before: int
    """Newlines in the log before ``start`` (relative to the planned range's origin until merged)."""

    def __init__(self, start: int, end: int, first_hit: int, newlines_before: int) -> None:
        self.start = start
        self.end = end
        self.first_hit = first_hit
        self.newlines_before = newlines_before


class _Planner:
    """The region rules, over a sequence of blocks from absolute offset ``origin``.

    Hits are taken only at offsets in ``[search_from, search_to)``; bytes before
    ``search_from`` are context (for line starts).  ``on_start(region)`` is called when a
    region opens, ``on_bytes(data, upto)`` with each piece of region bytes (when
    ``want_bytes``), ``on_end(region)`` when it is complete.
    """

    def __init__(self, finder: AnchorFinder, origin: int, search_from: int, search_to: int | None,
                 on_start: Callable[[Region], None], on_end: Callable[[Region], None],
                 on_bytes: Callable[[memoryview], None] | None = None, block: int = BLOCK):
        self.finder = finder
        self.block = block
        # One buffer for the whole run: filled with readinto, so no new pages per block.
        self.buf = bytearray(block + BACK + ALIGN + FORWARD + finder.longest)
        self.used = 0
        self.base = origin
        self.searched = search_from
        self.search_to = search_to
        self.nl_at, self.newlines = origin, 0      # newlines counted in [origin, nl_at)
        self.region: Region | None = None
        self.fed = 0
        self.on_start, self.on_end, self.on_bytes = on_start, on_end, on_bytes

    def fill(self, readinto: Callable[[memoryview], int | None], limit: int | None = None) -> bool:
        """Read one block (at most ``limit`` bytes) with ``readinto`` and plan it; False at the end."""
        room = len(self.buf) - self.used
        want = room if limit is None else min(room, limit)
        got = 0
        if want > 0:
            view = memoryview(self.buf)[self.used:self.used + want]
            try:
                got = readinto(view) or 0
            finally:
                view.release()
        self.used += got
        self._plan(eof=got == 0)
        return got != 0

    def _plan(self, eof: bool) -> None:
        buf_end = self.base + self.used
        stop = buf_end if eof else buf_end - (self.finder.longest - 1)
        if self.search_to is not None:
            stop = min(stop, self.search_to)
        if stop > self.searched:
            # Hits closer than FORWARD merge into one region, so each FORWARD bytes' first and last suffice.
            for rel in self.finder.find_thinned(memoryview(self.buf)[:self.used], self.searched - self.base,
                                                stop - self.base, FORWARD):
                self._hit(self.base + rel)
            self.searched = stop
        region = self.region
        if region is not None:
            self._feed(min(region.end, buf_end))
            if eof or (self.fed >= region.end and region.end < self.searched - BACK - ALIGN):
                self._close()
        self._trim()

    def _hit(self, h: int) -> None:
        region = self.region
        if region is not None and h - BACK - ALIGN <= region.end:
            region.end = max(region.end, h + FORWARD)
            return
        if region is not None:
            self._feed(region.end)
            self._close()
        start = max(self.base, h - BACK)
        lo = max(self.base, h - BACK - ALIGN)
        nl = self.buf.rfind(b"\n", lo - self.base, start - self.base)
        if nl >= 0:
            start = self.base + nl + 1
        self._count_to(start)
        self.region = Region(start, h + FORWARD, h, self.newlines)
        self.fed = start
        self.on_start(self.region)

    def _feed(self, upto: int) -> None:
        if upto > self.fed:
            if self.on_bytes is not None:
                view = memoryview(self.buf)[self.fed - self.base:upto - self.base]
                try:
                    self.on_bytes(view)
                finally:
                    view.release()
            self.fed = upto

    def _close(self) -> None:
        region, self.region = self.region, None
        if region is not None:
            self.on_end(region)

    def _count_to(self, pos: int) -> None:
        if pos > self.nl_at:
            self.newlines += self.buf.count(b"\n", self.nl_at - self.base, pos - self.base)
            self.nl_at = pos

    def _trim(self) -> None:
        """Keep only what a later hit or the open region can still need; make room for the next block."""
        keep = self.searched - BACK - ALIGN
        if self.region is not None:
            keep = min(keep, self.fed)
        keep = max(keep, self.base)
        if keep > self.base:
            self._count_to(keep)
            rel = keep - self.base
            tail = self.used - rel
            self.buf[:tail] = self.buf[rel:self.used]
            self.used = tail
            self.base = keep
        if self.used >= len(self.buf) - self.finder.longest:  # an open region holds the buffer: grow it
            self.buf.extend(bytes(self.block))


class _RegionFeeder:
    """Decodes region bytes incrementally and feeds them to the scanner, restarting at each region."""

    def __init__(self, scanner: LogScanner, first_line: int = 1):
        self.scanner = scanner
        self.first_line = first_line
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def start(self, region: Region, line: Callable[[], int] | None = None) -> None:
        """Restart at ``region``'s line: ``line`` (asked only when a message's line is recorded),
        else its ``newlines_before``."""
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.scanner.restart_at(line or self.first_line + region.newlines_before)

    def feed(self, data: memoryview | bytes) -> None:
        for i in range(0, len(data), FEED):
            self.scanner.feed(self.decoder.decode(data[i:i + FEED]))

    def feed_range(self, data: Mapped, start: int, stop: int) -> None:
        """Bytes ``[start, stop)`` of a file read whole or mapped; the pages of each whole ``FEED``
        bytes are handed back once fed (a long region's), a short region's by the caller with its
        neighbours' (one ``madvise`` per region was ~5% of a dense log's scan)."""
        for i in range(start, stop, FEED):
            j = min(stop, i + FEED)
            self.scanner.feed(self.decoder.decode(data[i:j]))
            if j - i == FEED:
                release(data, i, j)

    def end(self, region: Region) -> None:
        self.scanner.feed(self.decoder.decode(b"", final=True))


if TYPE_CHECKING:  # a protocol for the type checker: typing stays off the way (issue 36)
    class ByteStream(Protocol):
        """What :func:`scan_stream` reads: ``read(n)``; ``readinto`` is used instead when the stream has it."""

        def read(self, size: int = ..., /) -> bytes | None: ...


def scan_stream(stream: ByteStream, scanner: LogScanner | None = None, finder: AnchorFinder | None = None,
                block: int = BLOCK) -> LogScanner:
    """Plan and scan a stream in one pass; returns the scanner (call ``finish()``)."""
    scanner = scanner or LogScanner()
    finder = finder or AnchorFinder(scanner.anchors)
    feeder = _RegionFeeder(scanner)
    planner = _Planner(finder, 0, 0, None, feeder.start, feeder.end, feeder.feed, block)
    readinto = _as_utf8(stream)
    while planner.fill(readinto):
        pass
    return scanner


def _as_utf8(stream: ByteStream) -> Callable[[memoryview], int]:
    """The ``readinto`` of ``stream`` as UTF-8 bytes: a UTF-16/32 log (its byte-order mark first;
    Windows PowerShell's ``>`` writes UTF-16) is transcoded as it is read, so its messages are found
    on their lines.  Read as it was, not one of them matched and ``check`` called the log clean."""
    from ..base.files import WIDE_SNIFF, Transcoded, wide_encoding

    readinto = getattr(stream, "readinto", None) or _readinto_from_read(stream)
    first = bytearray(WIDE_SNIFF)
    got = 0
    while got < WIDE_SNIFF:
        n = readinto(memoryview(first)[got:]) or 0
        if not n:
            break
        got += n
    head = bytes(first[:got])
    wide = wide_encoding(head)
    if wide:
        return Transcoded(head, stream, wide).readinto  # type: ignore[arg-type]
    pending = memoryview(head)

    def headed(view: memoryview) -> int:
        nonlocal pending
        if pending:
            n = min(len(view), len(pending))
            view[:n] = pending[:n]
            pending = pending[n:]
            return n
        return readinto(view) or 0

    return headed


def _readinto_from_read(stream: ByteStream) -> Callable[[memoryview], int]:
    def readinto(view: memoryview) -> int:
        data = stream.read(len(view)) or b""  # a raw stream's None (no data yet) reads as end
        view[:len(data)] = data
        return len(data)
    return readinto


def plan_mapped(data: Mapped, lo: int, hi: int, finder: AnchorFinder, origin: int = 0
                ) -> tuple[list[Region], NewlineCounter]:
    """Regions whose first anchor lies in ``data[lo:hi)``, by :class:`_Planner`'s rules, over a file
    that is whole in memory or mapped (``origin``: the first byte a region may start at).

    ``Region.newlines_before`` counts from ``origin``, up to each region's start only (the counter
    returned says how far it got).  A mapped file's pages are handed back as they are passed
    (:func:`release`), so its bytes do not stay resident: memory is bounded as with a stream.
    """
    counter = NewlineCounter(data, origin)
    return list(iter_regions(data, lo, hi, finder, origin, counter)), counter


def iter_regions(data: Mapped, lo: int, hi: int, finder: AnchorFinder, origin: int = 0,
                 counter: NewlineCounter | None = None, ahead: bool = False) -> Iterator[Region]:
    """:func:`plan_mapped`'s regions, each yielded once complete, before the block it was completed in
    is handed back (so feeding it finds its pages still mapped).  Without ``counter`` their
    ``newlines_before`` is left -1, for a caller that counts only where a line is recorded.  With
    ``ahead``, once a region is found ``counter`` counts each stretch the finder has just searched
    (:meth:`NewlineCounter.ahead`, 256 kB still in the core's cache; a whole 8 MB block counted
    before its release came from memory, 0.09 CPU-s per 500 MB): a log without one is never counted."""
    region: Region | None = None
    for a in range(lo, hi, RELEASE_EVERY):
        b = min(hi, a + RELEASE_EVERY)
        # Regions completed in this block are yielded once it is searched (yielding each as the search
        # went, the consumer's feeding between stretches cost the dense log ~0.015 CPU-s).
        done: list[Region] = []
        # data runs on past b: a word straddling b is found whole (AnchorFinder.find)
        for searched, hits in finder.iter_thinned(data, a, b, FORWARD):
            for h in hits:
                if region is not None and h - BACK - ALIGN <= region.end:
                    region.end = max(region.end, h + FORWARD)
                    continue
                if region is not None:
                    done.append(region)
                start = max(origin, h - BACK)
                nl = data.rfind(b"\n", max(origin, h - BACK - ALIGN), start)
                if nl >= 0:
                    start = nl + 1
                region = Region(start, h + FORWARD, h, -1 if counter is None else counter.to(start))
            if ahead and region is not None and counter is not None:
                counter.ahead(searched)  # the stretch just searched, still in the core's cache
        yield from done
        release(data, a, b)
    if region is not None:
        yield region


class _mapped:
    """``with _mapped(path) as data``: the file mapped read-only, or its bytes when it is small.

    A mapped file must not shrink while it is read (the kernel then ends the process with
    SIGBUS), as for every tool that maps its input (``rg``): logs are appended to, not cut."""

    def __init__(self, path: str):
        self.path = path
        self.map: mmap | None = None

    def __enter__(self) -> Mapped:
        f = open(self.path, "rb", buffering=0)
        try:
            size = os.fstat(f.fileno()).st_size
            if size < MAP_MIN_BYTES or size == 0:  # an empty file cannot be mapped
                with f:
                    return f.readall()
            import mmap

            self.map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except BaseException:
            f.close()
            raise
        self.file = f
        return self.map

    def __exit__(self, *exc: object) -> None:
        if self.map is not None:
            self.map.close()
            self.file.close()


def usable_cpus() -> int:
    """Cores this process may use for worker processes: 1 in a daemonic process, which may not start any."""
    # Only a process that has multiprocessing loaded can be a daemonic worker; asking costs a
    # small check's start-up the import of multiprocessing (~20 ms) otherwise.
    if "multiprocessing" in sys.modules:
        from ..base.parallel import can_start_workers

        if not can_start_workers():
            return 1
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def scan_path(path: str, scanner: LogScanner | None = None, parallel: bool = True,
              head: bytes | None = None) -> LogScanner:
    """Scan a regular file: in worker processes when it is big and there are cores to use, else in one
    pass; ``head``: its first bytes, when the caller has read them (whether it is UTF-16/32)."""
    scanner = scanner or LogScanner()
    # The size first: a small log never imports multiprocessing (~20 ms of a small scan's start-up).
    wide = _wide(path, head)
    workers = usable_cpus() if parallel and os.path.getsize(path) >= PARALLEL_MIN_BYTES and not wide else 1
    if workers >= PARALLEL_MIN_CPUS:
        from ..base.parallel import pool
        from .parallel_scan import scan_file_parallel

        with pool(workers) as executor:
            return scan_file_parallel(path, scanner, executor, workers)
    if wide:
        with open(path, "rb", buffering=0) as f:
            # A UTF-16/32 log is transcoded as it is read (a mapping would hand the anchors raw code units).
            return scan_stream(f, scanner, block=min(BLOCK, max(1 << 16, os.fstat(f.fileno()).st_size)))
    mapping = _mapped(path)
    with mapping as data:
        return _scan_data(data, scanner)


def scan_descriptor(fd: int, scanner: LogScanner | None = None) -> LogScanner:
    """Scan a regular file open as ``fd`` from its start (``explain - < job.log``), mapped, in one
    pass; the caller checks that it is one (:func:`.logscan.scan_file`)."""
    import mmap

    scanner = scanner or LogScanner()
    data = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    try:
        return _scan_data(data, scanner)
    finally:
        data.close()


def _scan_data(data: Mapped, scanner: LogScanner) -> LogScanner:
    """Plan a file read whole or mapped and feed each region to ``scanner`` as it is planned, in one
    process.  Newlines are counted only up to a region where a message's line is recorded: after
    the last one, or from where every finding has its MAX_LINES_RECORDED lines until a new one
    turns up, nothing is counted (``bytes.count`` at ~3.4 GB/s was a third of a dense log's scan)."""
    counter = NewlineCounter(data, 0)
    # The compiled count is fast enough to count all of a mapped log once it has an error, each
    # stretch as the planner has searched it (iter_regions); bytes.count is not (0.29 CPU-s per 500 MB).
    ahead = NATIVE and not isinstance(data, bytes)

    def line_at(start: int) -> Callable[[], int]:
        return lambda: 1 + counter.to(start)

    feeder = _RegionFeeder(scanner)
    released = 0
    finder = AnchorFinder(scanner.anchors)
    for region in iter_regions(data, 0, len(data), finder, 0, counter if ahead else None, ahead):
        feeder.start(region, None if ahead else line_at(region.start))
        end = min(region.end, len(data))
        feeder.feed_range(data, region.start, end)
        feeder.end(region)
        if end - released >= RELEASE_EVERY:  # the pages fed since the last time, in one call
            release(data, released, end)
            released = end
    scanner.settle()  # the last region's line is asked for while ``data`` is still open
    return scanner


def _wide(path: str, head: bytes | None = None) -> bool:
    """A UTF-16/32 log: scanned in one pass, transcoded (its chunks would split code units);
    ``head``: the file's first ``WIDE_SNIFF`` bytes if already read."""
    from ..base.files import WIDE_SNIFF, wide_encoding

    if head is None:
        with open(path, "rb") as f:
            head = f.read(WIDE_SNIFF)
    return wide_encoding(head[:WIDE_SNIFF]) is not None
