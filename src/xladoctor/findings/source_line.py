"""A line of the user's Python program, as reports name it: ``file:line in function: text``.

It lives beside the findings model because a finding from ``xladoctor.jax`` names the program's
own lines (where the tensor went to host, the lines of its path, where the output is returned)
and the text renderer draws them; ``fields["jax"]`` holds them as JSON (:meth:`SourceLine.to_json`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..base.cells import place
from ..base.plain_dataclass import FrozenDataclass
from ..ir.metadata import SourceLocation  # not ir.instruction: a log needs no IR (issue 36 item 6)

TYPE_CHECKING = False  # not typing's (issue 36, start-up)
if TYPE_CHECKING:
    from typing import Any


class SourceLine(FrozenDataclass):
    """A line of the user's program, with its text when the file can be read (a frozen dataclass
    without ``__slots__``, as it was: :mod:`xladoctor.base.plain_dataclass`)."""

    file: str
    line: int
    function: str | None
    text: str

    def __init__(self, file: str, line: int, function: str | None = None, text: str = "") -> None:
        object.__setattr__(self, "file", file)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "function", function)
        object.__setattr__(self, "text", text)

    @staticmethod
    def of(loc: SourceLocation | None) -> SourceLine | None:
        if loc is None:
            return None
        import linecache  # with tokenize: only for a finding that names a Python line (issue 36, start-up)

        return SourceLine(loc.file, loc.line, loc.function, linecache.getline(loc.file, loc.line).strip())

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "function": self.function, "text": self.text}

    @staticmethod
    def from_json(value: object) -> SourceLine | None:
        """The line :meth:`to_json` wrote (None for anything else, as a finding's absent line)."""
        if not isinstance(value, Mapping) or not isinstance(value.get("file"), str) or \
                not isinstance(value.get("line"), int):
            return None
        function = value.get("function")
        return SourceLine(value["file"], value["line"], function if isinstance(function, str) else None,
                          str(value.get("text") or ""))

    def __str__(self) -> str:
        where = place(self.file, self.line) + (f" in {self.function}" if self.function else "")
        return f"{where}: {self.text}" if self.text else where


def line_json(s: SourceLine | None) -> dict[str, Any] | None:
    """A Python line as ``to_json()`` and ``fields["jax"]`` write it."""
    return None if s is None else s.to_json()


def distinct_lines(lines: Iterable[SourceLine | None]) -> list[SourceLine]:
    """The lines in order, absent ones left out and consecutive repeats (same file and line) folded:
    the Python lines a tensor's path travels through, one per line of code."""
    out: list[SourceLine] = []
    for s in lines:
        if s is not None and (not out or (out[-1].file, out[-1].line) != (s.file, s.line)):
            out.append(s)
    return out
