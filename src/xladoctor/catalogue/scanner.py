"""Find every XLA error in arbitrary text (logs, tracebacks), streaming, in bounded memory.

How it works, and why:

* All catalogue patterns are compiled into one alternation and run over large
  decoded blocks of the input (regex search over a block runs in C; a Python
  loop per line would cost more than reading the disk).
* Only a sliding window is kept: the unprocessed tail of the previous block,
  at most :data:`WINDOW_CHARS` characters, so a match always has that much
  text after it to pick up messages wrapped over several lines.  Memory is the
  window plus one dictionary entry per *distinct* error.
* Each hit is grown into a message: its own line, up to the ``See
  https://openxla.org/xla/errors/error_NNNN for more details.`` line of coded
  messages, and as far as the E0102 or E01xx parser reads (a wrapped line, JAX's list of arguments).
* Findings are keyed by code plus the message with replica/partition/node
  numbers, timestamps and log prefixes removed, so the same error printed by
  256 replicas is one finding with ``count == 256``.
* ``Instruction trace leading to error:`` blocks (``--vmodule=host_offloader=1``)
  are kept and attached to the next E1200 finding.
* Memory is bounded for any input: a line with no newline is cut inside the line
  once the window is passed, and at most :data:`MAX_DISTINCT` distinct findings are
  kept; later messages that are none of them are counted in :attr:`LogScanner.not_shown`
  (by code) instead of being stored.
* :meth:`LogScanner.restart_at` lets a caller feed only the parts of a log that can
  hold an error (see :mod:`.fastscan`), each starting at a known line.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Iterator

from .extent import message_end_in
from .log_match import LogMatch, ScanPart
from .scan_table import literal_head, pattern_anchor

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    import re
    from typing import Any, BinaryIO

    from .loader import Catalogue
    from .model import Entry

WINDOW_CHARS = 16384
"""Lookahead kept after a match: the longest message (plus wrapping) we expect."""
MAX_MESSAGE_LINES = 40
MAX_TEXT_CHARS = 4000
CHUNK_BYTES = 1 << 22
MAX_LINES_RECORDED = 20
DEFER_COUNT_CHARS = 1 << 18
"""A buffer this short, trimmed, is kept until its dropped text's newlines are needed (a region's
buffer is ~48,000 characters); a longer one (a stream's 4 MB blocks) is counted as it is trimmed."""
MAX_DISTINCT = 1000
"""Distinct findings kept (each holds up to MAX_TEXT_CHARS of message and its fields): ~10 MB at most."""

_URL_ANCHOR = "openxla.org/xla/errors/error_"
# Compiled (and kept by re) when a message is first handled: a clean log's scan compiles none.
_ANY_HEADER = r"\bE(\d\d[\dx][\dx]): (\w+):?"
BACK_CHARS = 8192
"""Text kept before the scan position, to find the coded header above a message body."""
_TRACE_START = "Instruction trace leading to error:"
_UNBUILT = object()
_TRACE_LINE = r"\{Instr:\s*(?P<name>[^,}]+),\s*ShapeIndex:\s*\{(?P<index>[^}]*)\}\}"


class LogScanner:
    """Streaming scanner over one input; call :meth:`feed` with text, then :meth:`finish`.

    >>> s = LogScanner()
    >>> s.feed("INVALID_ARGUMENT: Tensor which is moved to host (starting from tuple.64) "
    ...        "is returned from the entry computation but the layout for this output is not set to host memory.\\n")
    >>> [(f.code, f.fields["start"]) for f in s.finish()]
    [('E1200', 'tuple.64')]
    """

    def __init__(self, catalogue: Catalogue | None = None):
        from .scan_table import derive, packaged

        # Each uncoded pattern starts with a literal word (its anchor); coded messages are found
        # by the openxla.org URL every coded message ends with.  The packaged catalogue's anchors
        # come precomputed (:mod:`.scan_table`): the catalogue itself is read, and an anchor's
        # patterns compiled, only when a log holds an anchor (most of a log, all of a clean one,
        # holds none).
        self._catalogue = catalogue
        self._patterns = derive(catalogue) if catalogue is not None else packaged()
        self._by_anchor: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
        self._anchors = sorted(self._patterns, key=len, reverse=True) + [_URL_ANCHOR, _TRACE_START]
        # _anchor_at tries only the anchors that start with the text's first 3 characters (every
        # anchor has 3 or more), in the same longest-first order.
        self._by_head: dict[str, list[str]] = {}
        for anchor in self._anchors:
            self._by_head.setdefault(anchor[:3], []).append(anchor)
        self._every_anchor: Any = _UNBUILT  # built with the first text fed (None: str.find per anchor)
        self._finder: Any = None
        self._specific: list[tuple[str, tuple[re.Pattern[str], ...]]] | None = None
        self._entry_heads: dict[str, tuple[str, ...]] = {}
        self._buf = ""
        self._origin: int | Callable[[], int] = 1
        """The line the text fed since the last restart starts at; a callable is asked only when a
        line is recorded (:meth:`restart_at`)."""
        self._buf_line = 0          # lines from the origin to self._buf[0]
        self._count_pos = 0         # incremental newline counting inside the buffer
        self._count_line = 0
        self._dropped: tuple[str, int, int] | None = None
        """Text :meth:`_trim` dropped whose newlines are not counted yet: ``(old buffer, from, to)``."""
        self._scan_from = 0
        self._consumed = 0
        self._findings: dict[tuple[str, str], LogMatch] = {}
        self.not_shown: dict[str, int] = {}
        """Messages by code that matched no kept finding once MAX_DISTINCT were kept."""
        self._pending_trace: list[dict[str, str]] | None = None
        self._first_event: tuple | None = None

    @property
    def catalogue(self) -> Catalogue:
        """The catalogue, read when a message is first handled (a clean log never reads it)."""
        if self._catalogue is None:
            from .loader import load_catalogue  # with a message only: a clean log needs no loader

            self._catalogue = load_catalogue()
        return self._catalogue

    def _matchers(self, anchor: str) -> list[tuple[str, re.Pattern[str]]]:
        """``(code, compiled pattern)`` for each pattern ``anchor`` opens, compiled when first asked."""
        found = self._by_anchor.get(anchor)
        if found is None:
            from .loader import compile_pattern

            found = self._by_anchor[anchor] = [(code, compile_pattern(p)) for code, p in self._patterns.get(anchor, ())]
        return found

    @property
    def anchors(self) -> list[str]:
        """Every literal a message can be found by; text without any of them holds no finding."""
        return list(self._anchors)

    # -- input -------------------------------------------------------------------------------

    def feed(self, text: str) -> None:
        self._buf += text
        self._process(final=False)

    def restart_at(self, line: int | Callable[[], int]) -> None:
        """Finish the text fed so far and continue with text that starts at ``line`` (a later part of the log).

        Findings, their counts and a pending host_offloader trace carry over, as in one continuous scan.
        ``line`` may be a callable, called once, when a message's line is first recorded: a mapped
        log's newlines are then counted only as far as a recorded line needs (a finding keeps the
        first MAX_LINES_RECORDED lines of its messages, so most of a dense log needs none).
        """
        self._process(final=True)
        self._buf = ""
        self._origin = line
        self._buf_line = self._count_line = 0
        self._count_pos = self._scan_from = self._consumed = 0
        self._dropped = None

    def settle(self) -> None:
        """Scan all the text fed so far now: a caller whose :meth:`restart_at` line reads a mapped
        file calls this before closing it (else :meth:`finish` would ask for the line too late)."""
        self._process(final=True)

    def finish(self) -> list[LogMatch]:
        self._process(final=True)
        return sorted(self._findings.values(), key=lambda f: f.line)

    def scan_binary(self, stream: BinaryIO, chunk_bytes: int = CHUNK_BYTES) -> list[LogMatch]:
        """Scan a binary stream (a file, stdin) block by block; invalid UTF-8 is replaced, not fatal."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while True:
            data = stream.read(chunk_bytes)
            if not data:
                break
            self.feed(decoder.decode(data))
        self.feed(decoder.decode(b"", final=True))
        return self.finish()

    def scan_lines(self, lines: Iterable[str]) -> list[LogMatch]:
        for line in lines:
            self.feed(line)
        return self.finish()

    # -- core --------------------------------------------------------------------------------

    def _absolute(self, line: int) -> int:
        """A line counted from the origin, as the log's line number (the origin asked for once)."""
        if not isinstance(self._origin, int):
            self._origin = self._origin()
        return self._origin + line

    def _line_of(self, pos: int) -> int:
        """Lines from the origin to ``pos`` in the buffer (0 on the origin's own line)."""
        if self._dropped is not None:
            self._count_dropped()
        if pos < self._count_pos:  # only happens after a reset; recount from the start
            self._count_pos, self._count_line = 0, self._buf_line
        self._count_line += self._buf.count("\n", self._count_pos, pos)
        self._count_pos = pos
        return self._count_line

    def _count_dropped(self) -> None:
        """Count the newlines of the text :meth:`_trim` dropped last (asked for only when a line is
        recorded: after a finding's MAX_LINES_RECORDED lines, most of a dense log's regions need none)."""
        if self._dropped is not None:
            old, start, stop = self._dropped
            self._dropped = None
            n = old.count("\n", start, stop)
            self._buf_line += n
            self._count_line += n

    def _candidates(self, start: int, stop: int) -> Iterator[int]:
        """Offsets in [start, stop) where a message may start, in bounded time and memory (:mod:`.candidates`)."""
        from .candidates import Candidates

        if self._every_anchor is _UNBUILT:
            self._every_anchor = _overlapping_finder(self._anchors)
        if self._finder is None or self._finder.finder is not self._every_anchor:
            self._finder = Candidates(self._anchors, self._every_anchor,
                                      lambda a: [m for _, m in self._matchers(a)], WINDOW_CHARS)
        return self._finder.positions(self._buf, start, stop)

    def _process(self, final: bool) -> None:
        buf = self._buf
        limit = len(buf) if final else len(buf) - WINDOW_CHARS
        if limit <= self._scan_from:
            return
        for pos in self._candidates(self._scan_from, limit):
            if pos < self._consumed:
                continue
            if buf.startswith(_URL_ANCHOR, pos):
                self._handle_coded(pos)
                continue
            if buf.startswith(_TRACE_START, pos):
                self._consumed = self._read_trace(pos + len(_TRACE_START))
                continue
            for code, matcher in self._matchers(self._anchor_at(pos)):
                if matcher.match(buf, pos):
                    self._handle(code, pos)
                    break
        self._scan_from = max(limit, self._consumed)
        if not final:
            self._trim()

    def _anchor_at(self, pos: int) -> str:
        for anchor in self._by_head.get(self._buf[pos:pos + 3], ()):
            if self._buf.startswith(anchor, pos):
                return anchor
        return ""

    def _trim(self) -> None:
        """Drop what is fully processed, keeping the window; positions shift by the cut."""
        keep_from = min(self._scan_from, len(self._buf), self._consumed_or_scan()) - BACK_CHARS
        cut = self._buf.rfind("\n", 0, max(0, keep_from))
        cut = cut + 1 if cut >= 0 else 0
        if keep_from - cut > WINDOW_CHARS:
            cut = keep_from  # a very long line: cut inside it, or memory grows with the line
        if cut <= 0:
            return
        self._count_dropped()  # at most one dropped text is held, and only a small one (below)
        if len(self._buf) <= DEFER_COUNT_CHARS and self._count_pos <= cut:
            self._dropped = (self._buf, self._count_pos, cut)
            self._buf_line = self._count_line
        else:
            self._line_of(cut)
            self._buf_line = self._count_line
        self._buf = self._buf[cut:]
        self._count_pos, self._count_line = 0, self._buf_line
        self._scan_from -= cut
        self._consumed = max(0, self._consumed - cut)

    def _consumed_or_scan(self) -> int:
        return max(self._consumed, self._scan_from)

    def _header_above(self, line_start: int, code: str | None, max_lines: int) -> tuple[int, str] | None:
        """Start offset and code of a coded header ``EXXXX: Name`` on this line or up to ``max_lines`` above.

        ``code`` restricts the search to that code or a generic one (``E00xx``), which may wrap any message.
        """
        buf = self._buf
        pos = line_start
        import re  # here, as below: a clean log's start-up imports no re (~25M instructions, h52s)

        any_header = re.compile(_ANY_HEADER)  # re's cache, asked once per message, not per line
        for _ in range(max_lines + 1):
            if pos < self._consumed:
                return None
            end = buf.find("\n", pos)
            end = len(buf) if end < 0 else end
            m = any_header.search(buf, pos, end)
            if m:
                found = "E" + m.group(1)
                entry = self.catalogue.get(found)
                if entry is not None and (code is None or entry.code == code or entry.generic):
                    return m.start(), entry.code
            if pos == 0:
                return None
            pos = buf.rfind("\n", 0, pos - 1) + 1
        return None

    def _handle_coded(self, url_pos: int) -> None:
        """A ``See https://openxla.org/xla/errors/error_NNNN`` line: the end of a coded message."""
        import re

        buf = self._buf
        m = re.match(r"(\w+)", buf[url_pos + len(_URL_ANCHOR):url_pos + len(_URL_ANCHOR) + 8])
        entry = self.catalogue.get("E" + m.group(1)) if m else None
        line_start = buf.rfind("\n", 0, url_pos) + 1
        if entry is None:
            return
        header = self._header_above(line_start, entry.code, MAX_MESSAGE_LINES)
        start = header[0] if header else line_start
        self._handle(entry.code, start, coded=True)

    def _read_trace(self, start: int) -> int:
        buf = self._buf
        end = buf.find("\n", start)
        end = len(buf) if end < 0 else end + 1
        hops = []
        import re

        trace_line = re.compile(_TRACE_LINE)
        while end < len(buf):
            nxt = buf.find("\n", end)
            nxt = len(buf) if nxt < 0 else nxt + 1
            m = trace_line.search(buf, end, nxt)
            if not m:
                break
            hops.append({"instruction": m.group("name").strip(), "shape_index": "{" + m.group("index") + "}"})
            end = nxt
        self._pending_trace = hops
        if self._first_event is None:
            self._first_event = ("trace",)
        return end

    def _extent(self, code: str, line_start: int, match_start: int) -> tuple[int, str]:
        """End offset of the message starting at ``line_start`` and the window text after it."""
        buf = self._buf
        window_end = min(len(buf), line_start + WINDOW_CHARS)
        # At most MAX_MESSAGE_LINES lines of the WINDOW_CHARS after line_start, copied once.
        cut = line_start
        for _ in range(MAX_MESSAGE_LINES):
            nl = buf.find("\n", cut, window_end)
            if nl < 0:
                cut = window_end
                break
            cut = nl + 1
        window = buf[line_start:cut]
        entry = self.catalogue.entries[code]
        return line_start + message_end_in(window, match_start - line_start, entry, self._heads(entry)), window

    def _heads(self, entry: Entry) -> tuple[str, ...]:
        """The literal word each of ``entry.matchers`` starts with (its patterns', then its header's)."""
        heads = self._entry_heads.get(entry.code)
        if heads is None:
            heads = self._entry_heads[entry.code] = tuple(
                literal_head(p) for p in (*entry.patterns, entry.header_regex()))
        return heads

    def _handle(self, code: str, match_start: int, coded: bool = False) -> None:
        from .fields import fields_or_none
        from .message_identity import message_identity

        buf = self._buf
        line_start = buf.rfind("\n", 0, match_start) + 1
        extra: dict[str, Any] = {}
        if not coded:
            # The body of a coded message: its header is on this line or just above.
            header = self._header_above(line_start, code, 2)
            if header is not None:
                match_start = header[0]
                line_start = buf.rfind("\n", 0, match_start) + 1
                if header[1] != code:
                    extra["coded_as"] = header[1]
        end, window = self._extent(code, line_start, match_start)
        entry = self.catalogue.entries[code]
        if entry.generic:
            # A generic header (E0002: InvalidArgument:) around a message we know better.
            body = buf[match_start:end]
            if self._specific is None:
                from .loader import compile_pattern

                self._specific = [(e.code, tuple(compile_pattern(p) for p in e.patterns))
                                  for e in self.catalogue if not e.generic]
            for specific, matchers in self._specific:
                if any(m.search(body) for m in matchers):
                    extra["coded_as"] = code
                    code, entry = specific, self.catalogue.entries[specific]
                    break
        self._consumed = max(self._consumed, end)
        text = buf[line_start:end]
        # Identity from where the message itself starts: what precedes it on the line
        # ("Execution failed: ", "jaxlib...XlaRuntimeError: ", log prefixes) differs between
        # the copies of one error that different replicas and layers print.
        key = message_identity(code, buf[match_start:end])
        if self._first_event is None and code == "E1200":
            self._first_event = ("e1200", key)
        found = self._findings.get(key)
        if found is not None:
            found.count += 1
            if len(found.lines) < MAX_LINES_RECORDED:  # lines counted only for a line recorded
                found.lines.append(self._absolute(self._line_of(line_start)))
            self._attach_trace(found)
            return
        if len(self._findings) >= MAX_DISTINCT:
            self.not_shown[code] = self.not_shown.get(code, 0) + 1
            self._pending_trace = None if code == "E1200" else self._pending_trace
            return
        fields, analysis = fields_or_none(code, window)
        fields.update(extra)
        line = self._absolute(self._line_of(line_start))
        finding = LogMatch(code=code, name=entry.name, line=line, text=text.strip()[:MAX_TEXT_CHARS],
                          fields=fields, analysis=analysis, lines=[line])
        self._attach_trace(finding)
        self._findings[key] = finding

    def part(self) -> ScanPart:
        """Everything found so far, for :meth:`absorb` in another scanner (call once, at the end)."""
        self._process(final=True)
        return ScanPart(list(self._findings.items()), dict(self.not_shown), self._first_event, self._pending_trace)

    def absorb(self, part: ScanPart) -> None:
        """Fold in the next stretch of the log, scanned by a fresh scanner, with this scanner's result.

        Counts add up, the first MAX_LINES_RECORDED lines are kept, new errors are kept in order
        until MAX_DISTINCT (the rest count in ``not_shown``), and a host_offloader trace still pending
        here goes to the stretch's first E1200 unless a trace of its own came first.  The part must
        not have hit MAX_DISTINCT itself (it could not tell which dropped errors are kept here).
        """
        assert not part.not_shown, "rescan a part that hit MAX_DISTINCT in the whole-log scanner"
        self._process(final=True)
        incoming, event = self._pending_trace, part.first_event
        new = {key for key, _ in part.findings if key not in self._findings}
        if incoming is not None and event is not None and event[0] == "e1200":
            key = event[1]
            if key in self._findings:
                self._findings[key].analysis.setdefault("trace", incoming)
            elif key in new:
                dict(part.findings)[key].analysis["trace"] = incoming  # set at its first occurrence
        for key, f in part.findings:
            found = self._findings.get(key)
            if found is not None:
                found.count += f.count
                found.lines = (found.lines + f.lines)[:MAX_LINES_RECORDED]
                if "trace" in f.analysis:
                    found.analysis.setdefault("trace", f.analysis["trace"])
            elif len(self._findings) >= MAX_DISTINCT:
                self.not_shown[f.code] = self.not_shown.get(f.code, 0) + f.count
            else:
                self._findings[key] = f
        if event is not None:
            self._pending_trace = part.pending_trace
        if self._first_event is None:
            self._first_event = event

    def _attach_trace(self, finding: LogMatch) -> None:
        if finding.code == "E1200" and self._pending_trace is not None:
            finding.analysis.setdefault("trace", self._pending_trace)
            self._pending_trace = None


def _overlapping_finder(anchors: list[str]):
    """Every occurrence of every anchor, its automaton run only around the needles that each anchor
    holds (:class:`.prefilter.Prefiltered`: the overlapping search without a prefilter ran at ~0.5 GB/s,
    a fifth of the planner's).  None without ``ahocorasick_rs``: then one ``str.find`` loop per
    anchor, 5-10x slower on dense logs, same offsets."""
    try:
        from ahocorasick_rs import MatchKind
    except ImportError:  # pragma: no cover
        return None
    from .prefilter import Prefiltered

    return Prefiltered([a.encode("ascii") for a in anchors], MatchKind.Standard)


def scan_text(text: str, catalogue: Catalogue | None = None) -> list[LogMatch]:
    """Findings in an in-memory string (tests, small inputs)."""
    scanner = LogScanner(catalogue)
    scanner.feed(text)
    return scanner.finish()


__all__ = ["LogMatch", "LogScanner", "scan_text", "pattern_anchor"]  # compile_pattern: from .loader
