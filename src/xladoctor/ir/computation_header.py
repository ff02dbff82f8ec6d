"""What a computation's header says, kept in two slots: its line, its execution thread, its signature.

Why: each of jax_entry's 105k computations (1M instructions) had its header line as an int of its
own, 32 bytes (every int over 256 is an object), 3.2 MiB of the parse; the thread and the signature
are None on nearly every computation.  The line is kept as an offset of at most 255 lines (one of
the ints Python shares) from a line the parser's ``(line, col)`` pairs share already
(:meth:`~.packed_fields.PackedFieldAccess.set_position` keeps instructions' positions so), and the
offset is the header's slot itself while the thread and the signature are None.
"""

from __future__ import annotations

from collections.abc import Iterable

from .packed_fields import MAX_LINE_OFFSET
from .shape import Shape

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

Signature = tuple[list[tuple[str, Shape]], Shape]
"""``(p: shape, ...) -> shape`` as a header writes it: each parameter's name and shape, the result's."""

HEADER_SLOTS: Final = ("_line", "_header")
""":class:`ComputationHeader`'s slots (named outside the class: a compiled core reads no ``__slots__``
through the class object)."""


class ComputationHeader:
    """:attr:`line`, :attr:`execution_thread` and :attr:`signature` of :class:`~.computation.HloComputation`."""

    __slots__ = HEADER_SLOTS
    _line: int
    """:attr:`line`, or a line it counts from (:meth:`set_line`)."""
    _header: tuple[str | None, Signature | None, int] | int | None
    """The line's offset from ``_line`` alone (None for 0) while the thread and the signature are
    None (nearly every computation: two slots of their own and a weak-reference slot nothing used
    made each computation 112 bytes, 96 now), else the thread, the signature and the offset."""

    @property
    def line(self) -> int:
        """1-based line of the computation header in the HLO text (0 if built in code)."""
        return self._line + self._offset()

    @line.setter
    def line(self, value: int) -> None:
        self.set_line(value)

    def set_line(self, line: int, near: Iterable[tuple[int, ...]] = ()) -> None:
        """Set :attr:`line`, counted from the line of the first ``(line, col)`` pair in ``near``
        within 255 lines before it, where there is one (the parser's, by column: a few)."""
        base = line
        for where in near:
            if 0 <= line - where[0] <= MAX_LINE_OFFSET:
                base = where[0]
                break
        self._line = base
        header = self._header  # (the parser's: nothing else set yet, no property call: +0.2% of a train step's offload)
        self._header = (header[0], header[1], line - base) if type(header) is tuple else line - base or None

    def _offset(self) -> int:
        header = self._header
        if header is None:
            return 0
        return header if type(header) is int else header[2]  # type: ignore[index]

    def _set(self, thread: str | None, signature: Signature | None, offset: int) -> None:
        self._header = (thread, signature, offset) if thread is not None or signature is not None else offset or None

    @property
    def execution_thread(self) -> str | None:
        """``execution_thread="host"`` printed after the closing brace, if any: the name, unquoted
        once by the parser (``host``), so the passes compare it as it is."""
        header = self._header
        return header[0] if type(header) is tuple else None

    @execution_thread.setter
    def execution_thread(self, value: str | None) -> None:
        self._set(value, self.signature, self._offset())

    @property
    def signature(self) -> Signature | None:
        """``(p: shape, ...) -> shape`` as written in the header, when it was."""
        header = self._header
        return header[1] if type(header) is tuple else None

    @signature.setter
    def signature(self, value: Signature | None) -> None:
        self._set(self.execution_thread, value, self._offset())
