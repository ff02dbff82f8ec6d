"""Newlines counted and pages handed back in a log that is read whole or mapped (:mod:`.fastscan`).

Line numbers are part of every finding, so a log's newlines are counted up to each line recorded,
and only that far (:class:`NewlineCounter`); a mapped log's pages are handed back as the scan passes
them (:func:`release`), so the resident size stays bounded whatever the log's size.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from collections.abc import Callable
    from mmap import mmap

    Mapped = bytes | mmap


def _load_native() -> Callable[[object, int, int], int] | None:
    """The compiled core's count (setup.py, ``XLADOCTOR_COMPILE=1``): SSE2 or AVX2, over any buffer, no copy;
    None in the pure-Python package."""
    try:
        from ._newline_count import count
    except ImportError:
        return None
    return count


_native_count = _load_native()

COUNT_PIECE = 1 << 17
"""Newlines of a mapped file are counted this many bytes at a time: the copy stays in the core's own
cache (``pread`` and count of 400 MB: 0.153 CPU-s at 128 kB, 0.173 at 1 MB, 0.159-0.166 at 32-64 kB)."""

RELEASE_COUNTED = 8 << 20
"""A mapped file's counted pages are handed back every this many bytes (fastscan's RELEASE_EVERY)."""

NATIVE = _native_count is not None
"""Whether the compiled count runs: ``_newline_count.c``, built with the compiled core.  Without it
``bytes.count`` gives the same answers at CPython's scalar ~3.4 GB/s (500 MB: 0.29 against 0.08
CPU-s, ``pread`` included; tests/test_newline_count.py compares the two)."""


class NewlineCounter:
    """Newlines in ``data[origin:pos)``, for ``pos`` increasing (or a little behind what :meth:`ahead`
    counted), counted only when asked.

    A file that is mapped stays addressable, so newlines are counted only up to where a region
    starts: a log without errors is never counted, and nothing after its last error is.  The bytes
    are copied out of the mapping into one reused buffer (:func:`count_newlines`).  They were read
    with ``pread`` instead until stop 50: the same CPU here (0.110 against 0.095 CPU-s for 200 MB,
    the copy ahead), but on the device machine's CPU, whose kernel charges 15-40x a syscall, a
    500 MB ``read`` took 0.40 s where faulting the mapping's pages back in takes ~0.05."""

    def __init__(self, data: Mapped, origin: int):
        self.data, self.at, self.count = data, origin, 0
        self.buf: bytearray | None = None
        self.resident = False
        """Set by :meth:`ahead`: the planner counts each stretch as it has searched it, so a count
        reads the mapping in place (its pages are still there) and hands nothing back."""

    def to(self, pos: int) -> int:
        if pos > self.at:
            self.count += self._between(self.at, pos)
            self.at = pos
        elif pos < self.at:  # behind a block counted ahead: a region's start, at most BACK + ALIGN back
            return self.count - self._between(pos, self.at)
        return self.count

    def ahead(self, pos: int) -> None:
        """Count up to ``pos`` now, while the planner's search has just read the bytes (compiled count
        only: :data:`NATIVE`): they are read from the core's cache, where counting them later
        read them again from the page cache (the sparse 500 MB log, whose last error is at its
        end: ~0.07 CPU-s)."""
        self.resident = True
        self.to(pos)

    def _between(self, start: int, stop: int) -> int:
        if self.resident and _native_count is not None:
            return _native_count(self.data, start, stop)
        if self.buf is None and not isinstance(self.data, bytes):
            self.buf = bytearray(COUNT_PIECE)
        return count_newlines(self.data, start, stop, self.buf)


def count_newlines(data: Mapped, start: int, stop: int, buf: bytearray | None = None) -> int:
    """Newlines in ``data[start:stop)``.  A mapped file is counted a cache-sized piece at a time, in
    place by the compiled count, else copied into ``buf`` (one reused buffer: a new ``bytes`` per
    piece cost more than the count), and the pages counted are handed back every
    :data:`RELEASE_COUNTED` bytes (one ``madvise`` per piece was a syscall per 128 kB)."""
    if isinstance(data, bytes):
        return data.count(b"\n", start, stop) if _native_count is None else _native_count(data, start, stop)
    if buf is None:
        buf = bytearray(COUNT_PIECE)
    n, released, piece = 0, start, len(buf)
    view, into = memoryview(data), memoryview(buf)
    try:
        for a in range(start, stop, piece):
            b = min(stop, a + piece)
            if _native_count is None:
                into[:b - a] = view[a:b]
                n += buf.count(b"\n", 0, b - a)
            else:
                n += _native_count(data, a, b)  # in place: no copy
            if b - released >= RELEASE_COUNTED:
                release(data, released, b)
                released = b
    finally:
        view.release()
        into.release()
    release(data, released, stop - (stop - start) % piece)  # whole pieces only, as counted
    return n


def release(data: Mapped, start: int, stop: int) -> None:
    """Drop the whole pages of ``data[start:stop)`` from this process when ``data`` is a mapped file:
    they stay in the page cache and are read back if touched again, and the resident size of a
    scan stays bounded on a log of any size (as a stream's buffer is)."""
    madvise = getattr(data, "madvise", None)
    if madvise is None:
        return
    import mmap

    first = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE
    length = (stop - first) // mmap.PAGESIZE * mmap.PAGESIZE
    if length > 0:
        madvise(mmap.MADV_DONTNEED, first, length)
