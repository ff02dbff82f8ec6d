"""What an instruction's ``metadata={...}`` says: XLA's ``OpMetadata``, the Python source
location it names, and the codec that reads and writes its text (kept apart from
:mod:`.instruction` so the instruction class reads as the graph it is)."""

from __future__ import annotations

from .value import FrozenValue

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Protocol


class OpMetadata(FrozenValue):
    """``metadata={op_type=... op_name=... source_file=... source_line=... stack_frame_id=...}``.

    Written out, not generated (:mod:`.value`: start-up, issue 36); compared and hashed by its
    fields as the frozen dataclass it was."""

    _FIELDS = ("op_type", "op_name", "source_file", "source_line", "source_end_line", "source_column",
               "stack_frame_id", "extra")

    op_type: str | None
    op_name: str | None
    source_file: str | None
    source_line: int | None
    source_end_line: int | None
    source_column: int | None
    stack_frame_id: int | None
    extra: tuple[tuple[str, str], ...]
    """Any other ``key=value`` pairs, raw, in order (e.g. ``deduplicated_name``, ``scheduling_name``)."""

    def __init__(self, op_type: str | None = None, op_name: str | None = None, source_file: str | None = None,
                 source_line: int | None = None, source_end_line: int | None = None,
                 source_column: int | None = None, stack_frame_id: int | None = None,
                 extra: tuple[tuple[str, str], ...] = ()) -> None:
        object.__setattr__(self, "op_type", op_type)
        object.__setattr__(self, "op_name", op_name)
        object.__setattr__(self, "source_file", source_file)
        object.__setattr__(self, "source_line", source_line)
        object.__setattr__(self, "source_end_line", source_end_line)
        object.__setattr__(self, "source_column", source_column)
        object.__setattr__(self, "stack_frame_id", stack_frame_id)
        object.__setattr__(self, "extra", extra)


class SourceLocation(FrozenValue):
    """Where in the user's Python program an instruction came from."""

    _FIELDS = ("file", "line", "function", "column")

    file: str
    line: int
    function: str | None
    column: int | None

    def __init__(self, file: str, line: int, function: str | None = None, column: int | None = None) -> None:
        object.__setattr__(self, "file", file)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "function", function)
        object.__setattr__(self, "column", column)

    # Written out: locations are compared and hashed per finding and per source line, where
    # FrozenValue's generic ones are twice as slow; the values are the same.
    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.file, self.line, self.function, self.column) == (
            other.file, other.line, other.function, other.column)

    def __hash__(self) -> int:
        return hash((self.file, self.line, self.function, self.column))

    def __str__(self) -> str:
        """Display form; the file and function come from the input, so controls are escaped."""
        from ..base.cells import place
        from ..base.escape import escape_field
        where = escape_field(place(self.file, self.line))
        return f"{where} ({escape_field(self.function)})" if self.function else where


if TYPE_CHECKING:  # a protocol for the type checker: typing stays off the way (issue 36)
    class MetadataCodec(Protocol):
        """Reads and writes the text of a ``metadata={...}`` attribute."""

        def decode(self, raw: str) -> OpMetadata: ...

        def encode(self, md: OpMetadata) -> str: ...
