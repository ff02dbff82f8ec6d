"""A line of the user's Python program, as ``xladoctor.jax`` names it: ``file:line in function: text``."""

from __future__ import annotations

import linecache
from dataclasses import dataclass

from ..ir.instruction import SourceLocation


@dataclass(frozen=True)
class SourceLine:
    """A line of the user's program, with its text when the file can be read."""

    file: str
    line: int
    function: str | None = None
    text: str = ""

    @staticmethod
    def of(loc: SourceLocation | None) -> SourceLine | None:
        if loc is None:
            return None
        return SourceLine(loc.file, loc.line, loc.function, linecache.getline(loc.file, loc.line).strip())

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" + (f" in {self.function}" if self.function else "")
        return f"{where}: {self.text}" if self.text else where
