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

_LAID_OUT = re.compile(rb"\[[^\[\]{}()\n]*\][ \t]*\{[ \t]*(?:[0-9:][^{}\n]*)?\}")
"""An array shape's dimensions (``<=8``, ``?`` included) and the layout written after them, on one
line: minor-to-major numbers or ``:`` first (a computation's body after ``-> f32[] {`` is none)."""


def has_warned_layout(data: bytes | bytearray) -> bool:
    """True when some array shape in ``data`` has a layout the shape parser would warn of (or a
    spelling that does not read as a shape: the parse is left to say what it is)."""
    from ..base.errors import InputError
    from ..syntax.layout_warnings import collecting
    from ..syntax.shape_parser import parse_shape

    seen: set[bytes] = set()
    for m in _LAID_OUT.finditer(data):  # not findall: a list of every match is 6 MB on a 17 MB module
        spelling = m.group()
        if spelling in seen:
            continue
        seen.add(spelling)
        with collecting() as collector:
            try:
                parse_shape("pred" + spelling.decode("utf-8", "replace"))
            except InputError:
                return True
        if collector.count:
            return True
    return False
