"""How far a message found in a log goes: its own line, the lines that continue it, its See-URL line.

:class:`~.scanner.LogScanner` finds where a message starts; what follows decides where it ends (a
wrapped message's next lines hold a piece another pattern of its entry recognises, E2002's two
sentences; a coded message ends at its ``See https://openxla.org/...`` line; E0102's and E01xx's
parsers read their own extent, :func:`.fields.message_end`).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from .model import Entry

SEE_URL = r"See\s+https://openxla\.org/xla/errors/error_(\w+)\s+for\s+more\s+details\.?"
"""Compiled (and kept by re) when a message is first handled: a clean log's scan compiles none."""


def message_end_in(window: str, rel: int, entry: Entry, heads: tuple[str, ...]) -> int:
    """End offset in ``window`` (the message's first line onwards, at most its 40 lines) of the message
    of ``entry`` whose match starts at ``rel``.  ``heads``: the literal head of each of
    ``entry.matchers`` (:func:`.scan_table.literal_head`); a matcher is searched only where its head
    can start a match (tests/test_scan_table.py): most of a window holds none, and each search
    went through it."""
    from .fields import SPAN_CODES, message_end  # not at import: a clean log's scan needs none of it

    code = entry.code
    first_nl = window.find("\n", rel)
    end = len(window) if first_nl < 0 else first_nl
    # A wrapped uncoded message: the next lines continue it when they hold a piece that
    # another pattern of the same entry recognises (E2002's two sentences).  A piece
    # matched by an already-used pattern starts a new message instead.
    used = {i for i, mt in enumerate(entry.matchers) if heads[i] in window[rel:end] and mt.search(window, rel, end)}
    while code not in SPAN_CODES:  # their own parsers decide how far their messages go (below)
        stop = _line_end_after(window, end, 4)
        best = None
        for i, matcher in enumerate(entry.matchers):
            if i in used or not 0 <= window.find(heads[i], end) < stop:
                continue
            later = matcher.search(window, end)
            if later and later.start() < stop and (best is None or later.start() < best[1].start()):
                best = (i, later)
        if best is None:
            break
        used.update(i for i, mt in enumerate(entry.matchers)
                    if heads[i] in window[end:best[1].end()] and mt.search(window, end, best[1].end()))
        used.add(best[0])
        nl = window.find("\n", best[1].end())
        end = len(window) if nl < 0 else nl
    import re  # here: a clean log's start-up imports no re (h52s)

    see = re.compile(SEE_URL).search(window, rel)
    if see and ("E" + see.group(1) == code or code.endswith("xx")):
        end = max(end, see.end())
    span = message_end(code, window[rel:])
    if span is not None:
        nl = window.find("\n", rel + span)
        end = max(end, len(window) if nl < 0 else nl)
    return end


def _line_end_after(text: str, pos: int, lines: int) -> int:
    """Offset of the end of the ``lines``-th line after ``pos`` (or the end of ``text``)."""
    for _ in range(lines):
        nl = text.find("\n", pos + 1)
        if nl < 0:
            return len(text)
        if text[pos + 1:nl].strip() == "":  # a blank line ends a message
            return pos
        pos = nl
    return pos
