"""Where in the scanner's buffer a message can start, found in bounded time and memory.

The scanner looks for the literal word each catalogue pattern starts with (its anchor)
and tries that anchor's patterns where it occurs.  A log made of one anchor word
(``got`` repeated, 25 million times in 100 MB) made that one Python step per
occurrence, with every offset of a 4 MB chunk in one list: 138 s and 394 MB.  Here the
buffer is looked at in spans of :data:`SPAN` characters; a span whose first
:data:`PROBE` characters hold few anchor hits is handled hit by hit as before, while in
a dense span each anchor's patterns are searched for as one regular expression (the anchor as its literal
prefix), so only places where a pattern really matches reach Python.  The scanner still
confirms each place with the pattern itself, so the findings are the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

SPAN = 1 << 16
"""Characters looked at per step: bounds the offsets held at once (~22,000 for 3-letter words)."""


def pattern_search(anchor: str, patterns: list[re.Pattern[str]]) -> re.Pattern[str]:
    """One regex finding where any of ``patterns`` (each starting with ``anchor``) may match; the
    anchor is its literal prefix, so the regex engine skips to it at C speed."""
    rests = []
    for p in patterns:
        src = p.pattern[2:] if p.pattern.startswith("\\b") else p.pattern
        rests.append(src[len(anchor):])
    return re.compile(re.escape(anchor) + "(?:" + "|".join(f"(?:{r})" for r in rests) + ")")


PROBE = 1024
"""Characters looked at first in each span: this many anchor hits in them mark the span dense."""


class Candidates:
    """Sorted candidate offsets for one scanner (its anchors, its automaton, its patterns)."""

    def __init__(self, anchors: list[str], finder: Any, patterns: Callable[[str], list[re.Pattern[str]]], window: int):
        self.anchors, self.finder, self.window = anchors, finder, window
        self.patterns = patterns
        self._searches: list[re.Pattern[str]] | None = None

    @property
    def searches(self) -> list[re.Pattern[str]]:
        """One regex per anchor (:func:`pattern_search`), compiled when a dense span first needs them:
        most logs have none, and compiling them was ~8 ms of every scan's start-up (issue 36).
        Anchors without patterns (the error URL, the trace header): each occurrence is a candidate."""
        if self._searches is None:
            self._searches = [pattern_search(a, compiled) if (compiled := self.patterns(a)) else re.compile(re.escape(a))
                              for a in self.anchors]
        return self._searches

    def positions(self, buf: str, start: int, stop: int) -> Iterator[int]:
        if stop - start <= SPAN:
            # One span (a region of a mapped log is ~48,000 characters): its hits are found once, the
            # probe counted among them; a dense one costs at most one span's hits more, once per call.
            hits = self._hits(buf, start, stop)
            probe_end, anchors = start + PROBE, self.anchors  # words wholly in the probe, as below
            if sum(1 for i, p in hits if p + len(anchors[i]) <= probe_end) >= PROBE // 128:
                yield from self._dense(buf, start, stop)
            else:
                yield from sorted(p for _, p in hits)
            return
        for s0 in range(start, stop, SPAN):
            s1 = min(stop, s0 + SPAN)
            if len(self._hits(buf, s0, min(s1, s0 + PROBE))) >= PROBE // 128:
                yield from self._dense(buf, s0, s1)
            else:
                yield from sorted(p for _, p in self._hits(buf, s0, s1))

    def _hits(self, buf: str, s0: int, s1: int) -> list[tuple[int, int]]:
        """(anchor index, offset) of every anchor occurrence in [s0, s1)."""
        if self.finder is not None and buf.isascii():  # isascii() is O(1) on str
            data = buf[s0:s1].encode("ascii")
            return [(i, s0 + s) for i, s, _ in self.finder.find(data, overlapping=True)]
        found = []
        for i, anchor in enumerate(self.anchors):
            p = buf.find(anchor, s0, s1)
            while p != -1:
                found.append((i, p))
                p = buf.find(anchor, p + 1, s1)
        return found

    def _dense(self, buf: str, s0: int, s1: int) -> list[int]:
        """Where each anchor's patterns match in [s0, s1): one C search per match, none per anchor word."""
        out: list[int] = []
        end = min(len(buf), s1 + self.window)
        for search in self.searches:
            pos = s0
            while True:
                m = search.search(buf, pos, end)
                if m is None or m.start() >= s1:
                    break
                out.append(m.start())
                pos = m.start() + 1
        out.sort()
        return out
