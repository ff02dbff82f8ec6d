"""Where raw log bytes can hold an XLA error: the offsets of the catalogue's anchor words.

Every message the scanner reports contains one of its anchors (the literal word each
catalogue pattern starts with, the openxla.org error URL, the host_offloader trace
header), so bytes without any anchor need neither decoding nor scanning.  The anchors
are ASCII, so searching the undecoded bytes finds exactly what searching the text would.

The search is one pass of a multi-pattern automaton (``ahocorasick_rs``: SIMD, several
GB/s per core); 19 separate ``bytes.find`` passes run at about 45 MB/s on this
machine's logs.  Without the package a bytes regex alternation gives the same offsets,
slowly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mmap import mmap

    Buffer = bytes | bytearray | memoryview | mmap
WIDE = 1 << 18
"""Bytes searched in one automaton call: at most ~87,000 hits (3-byte words), a few MB of tuples."""
DENSE_WINDOWS = 8
"""After a stretch dense with anchor words, this many are searched span by span before trying wide again."""


class AnchorFinder:
    """Offsets of anchor words in a byte buffer (leftmost-first, non-overlapping).

    A word that overlaps an earlier match is not reported separately; it lies within
    :attr:`longest` bytes of that match, which callers' context margins cover.
    """

    def __init__(self, anchors: Sequence[str]):
        needles = [a.encode("ascii") for a in anchors]
        if not needles:
            raise ValueError("no anchors")
        self.longest = max(len(n) for n in needles)
        try:
            from ahocorasick_rs import BytesAhoCorasick, MatchKind
        except ImportError:  # pragma: no cover - exercised by forcing the fallback in tests
            self._ac = None
        else:
            self._ac = BytesAhoCorasick(needles, matchkind=MatchKind.LeftmostFirst)
        self._rx = re.compile(b"|".join(re.escape(n) for n in sorted(needles, key=len, reverse=True)))

    @property
    def engine(self) -> str:
        return "aho-corasick" if self._ac is not None else "regex"

    def find(self, data: Buffer, start: int, stop: int) -> list[int]:
        """Offsets in ``data`` of matches that start in ``[start, stop)``.

        ``data`` may run on past ``stop``: a word straddling ``stop`` is then found whole.
        """
        end = min(len(data), stop + self.longest - 1)
        if start >= end:
            return []
        if self._ac is not None:
            view = memoryview(data)[start:end]
            try:
                return [start + s for _, s, _ in self._ac.find_matches_as_indexes(view) if start + s < stop]
            finally:
                view.release()
        return [m.start() for m in self._rx.finditer(data, start, end) if m.start() < stop]

    def find_thinned(self, data: Buffer, start: int, stop: int, span: int) -> list[int]:
        """Offsets of :meth:`find` in ``[start, stop)``, of which only the first and last in each ``span``
        bytes are needed.

        For a consumer that merges hits closer than ``span`` (fastscan's regions), the hits in
        between change nothing.  A log has few anchors, so :data:`WIDE` bytes are searched in one
        automaton call and every hit returned; a stretch that holds more than about one per
        ``span`` (a log made of one anchor word, ``got`` repeated) is searched span by span
        instead, and the next :data:`DENSE_WINDOWS` stretches too, keeping it linear at C speed
        and in bounded memory (:meth:`_thinned`)."""
        out: list[int] = []
        dense = 0
        for a in range(start, stop, WIDE):
            b = min(stop, a + WIDE)
            if not dense:
                hits = self.find(data, a, b)
                if len(hits) <= (b - a) // span + 16:
                    out.extend(hits)
                    continue
                dense = DENSE_WINDOWS + 1  # this stretch and the next DENSE_WINDOWS
            dense -= 1
            out.extend(self._thinned(data, a, b, span))
        return out

    def _thinned(self, data: Buffer, start: int, stop: int, span: int) -> list[int]:
        """The first and last offsets of :meth:`find` in each ``span`` bytes of ``[start, stop)``: each
        span is probed at its two ends first, and searched whole only when an end holds no hit."""
        out: list[int] = []
        probe = 4 * self.longest + 64
        for a in range(start, stop, span):
            b = min(stop, a + span)
            head = self.find(data, a, min(b, a + probe))
            tail = self.find(data, max(a, b - probe), b) if head else []
            if not (head and tail):
                hits = self.find(data, a, b)
                head, tail = hits[:1], hits[-1:]
            out.extend(head[:1])
            if tail and tail[-1] != head[0]:
                out.append(tail[-1])
        return out

    def without_automaton(self) -> AnchorFinder:
        """The same finder using the regex fallback (tests prove both give the same findings)."""
        twin = object.__new__(AnchorFinder)
        twin.longest, twin._ac, twin._rx = self.longest, None, self._rx
        return twin
