"""Read a list of supplied buffer shapes, one per line (``--supplied-shapes FILE``).

Format::

    # comments run from '#' to the end of the line; blank lines are skipped
    bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}
    params['w']: f32[4,3]{0,1}              # optional name (argument path) before ':'
    f32[5,4,3]{2,1,0} size=10240            # optional real byte size of the buffer

The name ends at the first ``:`` outside brackets, so paths like ``params['w'][0]``
work and a layout's own ``:`` (inside ``{...}``) is never mistaken for it.  Errors
carry the file's line and column.
"""

from __future__ import annotations

import re

from ..base.errors import HloParseError, InputError
from ..syntax.reader import Reader
from ..syntax.shape_parser import read_shape
from .compare import SuppliedBuffer

_SIZE = re.compile(r"\s*(?:size|bytes)\s*=\s*([0-9]+)\s*$")


def _name_split(line: str) -> int | None:
    """Offset of the name-ending ':' (depth 0), or ``None`` when the line has no name."""
    depth = 0
    for i, ch in enumerate(line):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ":" and depth == 0:
            return i
    return None


def _strip_comment(line: str) -> str:
    depth = 0
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and depth == 0:
            return line[:i]
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
    return line


def parse_shapes_file(text: str, source: str = "<shapes>") -> list[SuppliedBuffer]:
    """One :class:`SuppliedBuffer` per non-blank line; :class:`InputError` at the bad line/col."""
    out: list[SuppliedBuffer] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = _strip_comment(raw)
        if not line.strip():
            continue
        name = None
        start = 0
        split = _name_split(line)
        if split is not None:
            name = line[:split].strip()
            if not name:
                raise InputError("empty name before ':'", source, lineno, split + 1)
            start = split + 1
        size = None
        end = len(line)
        m = _SIZE.search(line, start)
        if m:
            digits = m.group(1)
            value = digits.lstrip("0") or "0"
            if len(value) > 19 or int(value) >= 1 << 63:  # before int(): it refuses 4,300+ digits
                raise InputError(f"size {digits[:40]}{'...' if len(digits) > 40 else ''} does not fit in 64 bits",
                                 source, lineno, m.start(1) + 1)
            size = int(value)
            end = m.start()
        body = line[start:end]
        lead = len(body) - len(body.lstrip())
        body = body.strip()
        col0 = start + lead
        if not body:
            raise InputError("expected a shape", source, lineno, col0 + 1)
        r = Reader(body, source)
        try:
            shape = read_shape(r)
            r.skip()
            if not r.at_end():
                raise r.error(f"unexpected {r.describe_here()} after shape (expected 'size=N' or end of line)")
        except HloParseError as err:
            raise InputError(err.message, source, lineno, col0 + err.col) from None
        out.append(SuppliedBuffer(shape, name, size))
    return out
