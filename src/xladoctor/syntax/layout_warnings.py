"""Layouts jaxlib's parser keeps and XLA's shape validation refuses: read, with a warning.

XLA's ``ParseShape`` checks a layout only where it builds a tuple (``ShapeUtil::MakeValidatedTupleShape``);
an array shape written on its own (an instruction's result, an operand's declared shape, a computation
signature) keeps a layout that ``LayoutUtil::ValidateLayoutForShape`` refuses: ``{9,0}``, ``{0,0}``,
``T(0)``, ``E(-1)``...  What happens next depends on where it was written, measured with libtpu
0.0.42.1 compile-only: an instruction's own shape makes the compile fail (INVALID_ARGUMENT, the same
words as the parser's message here); an operand's declared shape is only compared with the operand's
and then dropped, so the compile never sees it.

The shape parser asks :func:`refuse_or_warn` at each such check.  Outside a module parse, and inside a
tuple (where jaxlib refuses too), it raises as before; while :func:`collecting` (the module parser),
a top-level array shape is recorded here and read with the default layout for its rank, so every
analysis gets a layout it can index (the warning says so).  :func:`located` turns the records into
:class:`LayoutWarning` values once the parse is done (line, column, instruction, role).
"""

from __future__ import annotations

import re

from ..ir.value import FrozenValue
from .reader import Reader

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType

MAX_WARNINGS = 1000
"""Records kept per parse (a module with a million bad layouts costs no more; ``count`` says all)."""


class LayoutWarning(FrozenValue):
    """One layout XLA's shape validation refuses, read by the parser with the default layout."""

    _FIELDS = ("rule", "message", "line", "column", "instruction", "role")

    rule: str
    """Which of XLA's layout rules: ``minor-to-major``, ``tile``, ``element-size``, ..."""
    message: str
    """XLA's words for it (``LayoutUtil::ValidateLayoutForShape``'s, as the parser's message)."""
    line: int
    column: int
    instruction: str | None
    """The instruction whose line it is on (None in a header or a computation's signature)."""
    role: str
    """``result`` (the instruction's own shape: the compile fails), ``operand`` (a declared operand
    shape: XLA drops it) or ``signature`` (a computation's signature or the entry layout)."""

    def __init__(self, rule: str, message: str, line: int, column: int, instruction: str | None, role: str) -> None:
        set_ = object.__setattr__  # not __dict__: a dict made by hand slows every read 4x
        set_(self, "rule", rule)
        set_(self, "message", message)
        set_(self, "line", line)
        set_(self, "column", column)
        set_(self, "instruction", instruction)
        set_(self, "role", role)


class _Collector:
    __slots__ = ("records", "count", "tuples")

    def __init__(self) -> None:
        self.records: list[tuple[str, str, int]] = []
        self.count = 0
        self.tuples = 0
        """Tuple shapes open around the cursor: XLA validates their elements' layouts as it builds them."""


def tuple_entered() -> None:
    """The shape parser opens a tuple (``MakeValidatedTupleShape``: its elements' layouts are refused)."""
    if _active is not None:
        _active.tuples += 1


def tuple_left() -> None:
    if _active is not None:
        _active.tuples -= 1


_active: _Collector | None = None


class collecting:  # lower case: used as a function, `with collecting() as warnings:`
    """Record, instead of raising, what :func:`refuse_or_warn` is asked about top-level array shapes.

    A class rather than ``contextlib.contextmanager``, which ``xladoctor shape`` would import for it."""

    def __enter__(self) -> _Collector:
        global _active
        self.outer, _active = _active, _Collector()
        return _active

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        global _active
        _active = self.outer


def warned() -> int:
    """How many layouts were recorded so far in this parse (0 when not collecting): the shape parser
    compares it before and after a layout to know that it must read the default layout instead."""
    return _active.count if _active is not None else 0


def refuse_or_warn(r: Reader, rule: str, message: str, pos: int) -> None:
    """Raise XLA's refusal at ``pos``, or record it (a module parse, a shape not inside a tuple:
    ``b(f32[2,3]{0,0})`` is kept by jaxlib, ``(f32[2,3]{0,0})`` refused)."""
    if _active is None or _active.tuples:
        raise r.error(message, pos)
    _active.count += 1
    if len(_active.records) < MAX_WARNINGS:
        _active.records.append((rule, message, pos))


# An instruction's line up to its shape: 'ROOT name = ' (the shape that follows is its own).  These
# patterns are compiled where a warning is placed (re keeps them): `xladoctor shape` never needs them.
_RESULT = r"[ \t]*(?:ROOT[ \t]+)?%?([A-Za-z_][A-Za-z0-9_.\-]*):?[ \t]*=[ \t]*"
_NAME = r"[ \t]*(?:ROOT[ \t]+)?%?([A-Za-z_][A-Za-z0-9_.\-]*):?[ \t]*="


def located(collector: _Collector, text: str) -> tuple[LayoutWarning, ...]:
    """The records of one parse of ``text`` as warnings, in text order, each once (a shape reread
    by the parser's probe is recorded twice at the same offset)."""
    out: list[LayoutWarning] = []
    if not collector.records:  # the common case: no pattern to compile
        return ()
    seen: set[int] = set()
    result, named = re.compile(_RESULT), re.compile(_NAME)
    for rule, message, pos in sorted(collector.records, key=lambda x: x[2]):
        if pos in seen:
            continue
        seen.add(pos)
        start = text.rfind("\n", 0, pos) + 1
        line_no = text.count("\n", 0, pos) + 1
        head = _result_head(result, text, start, pos)
        name = head or named.match(text, start)
        if head is not None:
            role = "result"
        elif name is not None:
            role = "operand"
        else:
            role = "signature"
        out.append(LayoutWarning(rule, message, line_no, pos - start + 1, name.group(1) if name else None, role))
    return tuple(out)


_GAP = r"(?:\s|/\*(?:[^*]|\*(?!/))*\*/|//[^\n]*\n)*"
"""What XLA's lexer skips between two tokens: white space (line breaks too) and comments."""
_OWN_SHAPE = rf"(?:b\({_GAP})?[a-z][a-z0-9]*{_GAP}\[[^\]]*\]{_GAP}(?:\{{[^}}]*)?"
_LINES_BACK = 16
"""How many lines above a warned layout its instruction's head is looked for (a layout spelled
over lines, ``f32[2,3]{1,\n0:T(0)}``: jaxlib reads it as one)."""


def _result_head(result: re.Pattern[str], text: str, start: int, pos: int) -> re.Match[str] | None:
    """The head (``ROOT name = ``) of the instruction whose own shape holds ``pos``: on the line of
    ``pos`` or, for a shape spelled over lines, on one of the lines above it; None if ``pos`` lies
    elsewhere (an operand's declared shape, the signature)."""
    for _ in range(_LINES_BACK):
        head = result.match(text, start)
        if head is not None and _shape_starts(text, head.end(), pos):
            return head
        if start == 0:
            return None
        start = text.rfind("\n", 0, start - 1) + 1
    return None


def _shape_starts(text: str, shape_start: int, pos: int) -> bool:
    """Whether ``pos`` lies in the layout of the array shape written at ``shape_start``
    (``f32[2,3]{1,0:T(0)}``: a type, its dimensions, then the layout up to ``pos``)."""
    return re.compile(_OWN_SHAPE).fullmatch(text, shape_start, pos) is not None
