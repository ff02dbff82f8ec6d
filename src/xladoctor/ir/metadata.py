"""What an instruction's ``metadata={...}`` says: XLA's ``OpMetadata``, the Python source
location it names, and the codec that reads and writes its text (kept apart from
:mod:`.instruction` so the instruction class reads as the graph it is)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class OpMetadata:
    """``metadata={op_type=... op_name=... source_file=... source_line=... stack_frame_id=...}``."""

    op_type: str | None = None
    op_name: str | None = None
    source_file: str | None = None
    source_line: int | None = None
    source_end_line: int | None = None
    source_column: int | None = None
    stack_frame_id: int | None = None
    extra: tuple[tuple[str, str], ...] = ()
    """Any other ``key=value`` pairs, raw, in order (e.g. ``deduplicated_name``, ``scheduling_name``)."""


@dataclass(frozen=True)
class SourceLocation:
    """Where in the user's Python program an instruction came from."""

    file: str
    line: int
    function: str | None = None
    column: int | None = None

    def __str__(self) -> str:
        """Display form; the file and function come from the input, so controls are escaped."""
        from ..base.cells import place
        from ..base.escape import escape_field
        where = escape_field(place(self.file, self.line))
        return f"{where} ({escape_field(self.function)})" if self.function else where


class MetadataCodec(Protocol):
    """Reads and writes the text of a ``metadata={...}`` attribute."""

    def decode(self, raw: str) -> OpMetadata: ...

    def encode(self, md: OpMetadata) -> str: ...
