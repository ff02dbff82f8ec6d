"""Where raw log bytes can hold an XLA error: the offsets of the catalogue's anchor words.

Every message the scanner reports contains one of its anchors (the literal word each
catalogue pattern starts with, the openxla.org error URL, the host_offloader trace
header), so bytes without any anchor need neither decoding nor scanning.  The anchors
are ASCII, so searching the undecoded bytes finds exactly what searching the text would.

The search is one pass of a multi-pattern automaton (``ahocorasick_rs``: SIMD, several
GB/s per core); 19 separate ``bytes.find`` passes run at about 45 MB/s on this
machine's logs.  Without the package a bytes regex alternation gives the same offsets,
slowly.

The automaton is fastest with few patterns of four bytes or more (its SIMD search, Teddy,
takes 32 at most in one vector and compares as many leading bytes as the shortest pattern
has): with the catalogue's 39 words, four of them three letters long, it ran at ~3.8 GB/s,
the speed of ``rg -F -f`` with the same words.  So a buffer is searched first for
:func:`needles`, fewer and shorter words that each anchor contains (``harding`` for
``Sharding`` and ``sharding``), in two automata (the three-letter words apart), at ~7-13
GB/s; only around what they find is the exact automaton run (:class:`Prefiltered`), and
it returns what it returns over the whole buffer.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    import re
    from mmap import mmap

    from ahocorasick_rs import MatchKind

    Buffer = bytes | bytearray | memoryview | mmap
WIDE = 1 << 18
"""Bytes searched in one automaton call: at most ~87,000 hits (3-byte words), a few MB of tuples."""
DENSE_WINDOWS = 8
"""After a stretch dense with anchor words, this many are searched span by span before trying wide again."""


MIN_NEEDLE = 4
"""Needles are at least this long (the anchors shorter than it are searched for as they are)."""
MAX_SEGMENTS = 24
"""Needle hits in one buffer past which the exact automaton searches all of it (as cheap, then)."""


@functools.lru_cache(maxsize=8)
def needles(words: tuple[bytes, ...], min_len: int = MIN_NEEDLE) -> list[bytes]:
    """Fewer words, each a substring of some of ``words``, such that every word holds one.

    The longest substring of ``min_len`` bytes or more that two needles or more hold replaces
    them (ties: the one more needles hold, then the bytes' order), until no two share one; a
    needle holding another is dropped.  Deterministic, so every process derives the same set;
    cached, as a scanner and its planner ask for the same words.  The packaged catalogue's words
    come derived (:mod:`.scan_table_data`, by :mod:`.generate`): deriving them was ~20M
    instructions of every log scan's start-up (issue 36 item 6); any other words are derived here."""
    if min_len == MIN_NEEDLE:
        from .scan_table_data import NEEDLE_WORDS, NEEDLES

        if tuple(sorted(set(words))) == NEEDLE_WORDS:  # the result depends on the set of words only
            return list(NEEDLES)
    return derive_needles(words, min_len)


def derive_needles(words: tuple[bytes, ...], min_len: int = MIN_NEEDLE) -> list[bytes]:
    """:func:`needles`, derived."""
    current = set(_minimal(words))

    def pieces(w: bytes) -> set[bytes]:
        return {w[i:j] for i in range(len(w) - min_len + 1) for j in range(i + min_len, len(w) + 1)}

    held: dict[bytes, int] = {}
    for w in current:
        for piece in pieces(w):
            held[piece] = held.get(piece, 0) + 1
    # A merge only lowers counts (the needles replaced hold every piece of the new one), so the
    # pieces shared now are all that can be shared later.
    shared = {piece for piece, n in held.items() if n > 1}
    while shared:
        best = max((len(piece), held[piece], piece) for piece in shared)[2]
        for w in [w for w in current if best in w]:  # best holds no needle: they were minimal
            current.remove(w)
            for piece in pieces(w):
                held[piece] -= 1
        current.add(best)
        for piece in pieces(best):
            held[piece] += 1
        shared = {piece for piece in shared if held[piece] > 1}
    return sorted(current)


def _minimal(words: Sequence[bytes]) -> list[bytes]:
    """The distinct words that hold no other word (a word holding another is covered by it)."""
    distinct = sorted(set(words))
    return [w for w in distinct if not any(v != w and v in w for v in distinct)]


class Prefiltered:
    """An automaton over ``words`` whose searches return exactly what it would return, found faster.

    A buffer is first searched for :func:`needles` (two automata: the words of
    :data:`MIN_NEEDLE` bytes or more, merged, and the shorter ones as they are).  None found:
    no word is there.  Otherwise each needle hit ``[s, e)`` bounds where a word holding it can
    lie, ``[s - longest, e + longest)`` (a needle found starts inside a reported one: the
    leftmost-first search skips only what overlaps a match), those spans are merged, and the
    exact automaton searches each merged span alone.  Every word lies inside one span, so no
    match crosses from one span to the next, and the leftmost-first and the overlapping
    searches report over the spans, in order, what they report over the whole buffer.
    """

    def __init__(self, words: Sequence[bytes], matchkind: MatchKind):
        from ahocorasick_rs import BytesAhoCorasick, MatchKind

        self.exact = BytesAhoCorasick(list(words), matchkind=matchkind)
        self.longest = max(len(w) for w in words)
        short = sorted({w for w in words if len(w) < MIN_NEEDLE})
        groups = [needles(tuple(w for w in words if len(w) >= MIN_NEEDLE)), short]
        self.needles = [BytesAhoCorasick(g, matchkind=MatchKind.LeftmostFirst) for g in groups if g]

    def find(self, haystack: Buffer, overlapping: bool = False) -> list[tuple[int, int, int]]:
        """``(word index, start, end)`` of the matches in ``haystack``, as the exact automaton's
        ``find_matches_as_indexes`` returns them."""
        hits: list[tuple[int, int, int]] = []
        for automaton in self.needles:
            hits.extend(automaton.find_matches_as_indexes(haystack))
        if not hits:
            return []
        if len(hits) > MAX_SEGMENTS:
            return self.exact.find_matches_as_indexes(haystack, overlapping=overlapping)
        if len(self.needles) > 1:
            hits.sort(key=lambda h: h[1])
        size, longest = len(haystack), self.longest
        view = memoryview(haystack)
        out: list[tuple[int, int, int]] = []
        try:
            lo, hi = -1, -1
            for _, s, e in hits:
                a, b = max(0, s - longest), min(size, e + longest)
                if a <= hi:
                    hi = max(hi, b)
                    continue
                if hi >= 0:
                    out.extend(self._span(view, lo, hi, overlapping))
                lo, hi = a, b
            out.extend(self._span(view, lo, hi, overlapping))
        finally:
            view.release()
        return out

    def _span(self, view: memoryview, lo: int, hi: int, overlapping: bool) -> list[tuple[int, int, int]]:
        part = view[lo:hi]
        try:
            return [(i, lo + s, lo + e) for i, s, e in self.exact.find_matches_as_indexes(part, overlapping=overlapping)]
        finally:
            part.release()


class AnchorFinder:
    """Offsets of anchor words in a byte buffer (leftmost-first, non-overlapping).

    A word that overlaps an earlier match is not reported separately; it lies within
    :attr:`longest` bytes of that match, which callers' context margins cover.
    """

    def __init__(self, anchors: Sequence[str]):
        words = [a.encode("ascii") for a in anchors]
        if not words:
            raise ValueError("no anchors")
        self.longest = max(len(n) for n in words)
        try:
            from ahocorasick_rs import MatchKind
        except ImportError:  # pragma: no cover - exercised by forcing the fallback in tests
            self._ac: Prefiltered | None = None
        else:
            self._ac = Prefiltered(words, MatchKind.LeftmostFirst)
        self._words = words
        self._regex: re.Pattern[bytes] | None = None

    @property
    def _rx(self) -> re.Pattern[bytes]:
        """The fallback's alternation, compiled when first used (the automaton is there on every
        supported platform; compiling it was start-up spent for nothing)."""
        if self._regex is None:
            import re

            self._regex = re.compile(b"|".join(re.escape(n) for n in sorted(self._words, key=len, reverse=True)))
        return self._regex

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
                return [start + s for _, s, _ in self._ac.find(view) if start + s < stop]
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
        return [h for _, hits in self.iter_thinned(data, start, stop, span) for h in hits]

    def iter_thinned(self, data: Buffer, start: int, stop: int, span: int) -> Iterator[tuple[int, list[int]]]:
        """:meth:`find_thinned`'s offsets a :data:`WIDE` stretch at a time, as ``(stretch end, offsets)``:
        a caller may read each stretch again while the search has left it in the core's cache
        (fastscan's newline count)."""
        dense = 0
        for a in range(start, stop, WIDE):
            b = min(stop, a + WIDE)
            if not dense:
                hits = self.find(data, a, b)
                if len(hits) <= (b - a) // span + 16:
                    yield b, hits
                    continue
                dense = DENSE_WINDOWS + 1  # this stretch and the next DENSE_WINDOWS
            dense -= 1
            yield b, self._thinned(data, a, b, span)

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
        twin.longest, twin._ac, twin._words, twin._regex = self.longest, None, self._words, self._regex
        return twin
