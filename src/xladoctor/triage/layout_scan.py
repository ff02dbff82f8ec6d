"""Whether a module's text holds a layout XLA's shape validation refuses, before parsing it.

``check`` without ``--full`` parses only the modules an analysis applies to (:mod:`.hlo_triage`);
a module the triage passes over was never read by the shape parser, so the layout warnings the
parser gives (E0002 ``layout-warning``, :mod:`xladoctor.syntax.layout_warnings`) were missing
from ``check`` while ``offload`` and ``hlo`` showed them.  This scan finds each distinct array
shape written with a layout (``f32[8,128]{1,0:T(8,128)}``) and asks the same shape parser, while
collecting warnings, whether it would warn; one that does sends the module to the parse, where the
warnings are made with their lines and roles exactly as ``offload`` makes them.

XLA's layout rules (``ValidateLayoutForShape``) depend on the dimensions and the layout, not on the
element type, so the scan reads each distinct ``[dimensions]{layout}`` spelling (one
regular-expression pass; a pattern that starts at a literal bracket, 8x faster than one that starts
at the type name) and parses each once behind the narrowest type, ``pred``.  A spelling that does
not read as a shape at all (text in metadata) sends the module to the parse too, which says what
it is.  Measured on bench_parse's synthetic modules (CPU time, load ~11): 38 ms for 100k instructions
(16.9 MB), 2% of their parse (1.65 s), no list of matches kept; the offload-token scan costs 9 ms.
"""

from __future__ import annotations

import re

_LAID_OUT = re.compile(rb"\[[^\[\]{}()]*\][ \t\r\n]*\{[ \t\r\n]*(?:[0-9:][^{}]*)?\}")
"""An array shape's dimensions (``<=8``, ``?`` included) and the layout written after them: minor-to-major
numbers or ``:`` first (a computation's body after ``-> f32[] {`` is none), white space between them
as XLA's lexer skips it (space, tab, CR and LF: ``f32[2,3]`` at a line's end and ``{0,0}`` on the
next is one shape to XLA's parser; a scan of single lines missed it)."""

_COMMENT = re.compile(rb"/\*(?:[^*]|\*(?!/))*(?:\*/|\Z)|//[^\n]*")
"""XLA's comments (``/* */``, ``//`` to the line's end), which its lexer skips wherever a token may
start, so inside a shape too (``f32[2,3]/*x*/{0,0}``).  One linear pass: an unclosed ``/*`` runs to
the end, as in XLA's lexer."""


def has_warned_layout(data: bytes | bytearray) -> bool:
    """True when some array shape in ``data`` has a layout the shape parser would warn of (or a
    spelling that does not read as a shape: the parse is left to say what it is).

    The text is scanned as written, then, where it has comments, each stretch from the last ``[``
    before a comment to the first ``}`` after it once more with its comments blanked (a shape
    spelled across a comment holds no other ``[`` and ends at that ``}``).  The blanking does not
    know strings, so a ``//`` or ``/*`` inside a string could hide a shape from the second look,
    never from the first."""
    seen: set[bytes] = set()
    if _warns(data, seen, 0, len(data)):
        return True
    spans: list[tuple[int, int]] = []

    def blank(m: re.Match[bytes]) -> bytes:
        spans.append(m.span())
        return b" " * (m.end() - m.start())  # the same length: the spans stay where they were

    # one pass of the comment pattern: 8 ms on 17 MB without comments, 12 ms with 4,000 of them
    # (`b"//" in data` alone took 30 ms: `/` is frequent in metadata)
    blanked = _COMMENT.sub(blank, data)
    for start, end in spans:
        opening = blanked.rfind(b"[", 0, start)
        closing = blanked.find(b"}", end)
        if opening >= 0 and closing >= 0 and _warns(blanked, seen, opening, closing + 1):
            return True
    return False


def _warns(data: bytes | bytearray, seen: set[bytes], start: int, end: int) -> bool:
    """Whether a laid-out spelling in ``data[start:end]`` not in ``seen`` warns (or reads as no shape)."""
    for m in _LAID_OUT.finditer(data, start, end):  # not findall: a list of every match is 6 MB on a 17 MB module
        spelling = m.group()
        if spelling in seen:
            continue
        seen.add(spelling)
        if _spelling_warns(spelling):
            return True
    return False


def _spelling_warns(spelling: bytes) -> bool:
    from ..base.errors import InputError
    from ..syntax.layout_warnings import collecting
    from ..syntax.shape_parser import parse_shape

    with collecting() as collector:
        try:
            parse_shape("pred" + spelling.decode("utf-8", "replace"))
        except InputError:
            return True
    return bool(collector.count)
