"""A regular expression compiled by its first use (issue 36: start-up of ``xladoctor offload``).

Compiling costs ~0.05-0.5 ms a pattern; a module-level ``re.compile`` pays it on every process
that imports the module, though most runs never meet the text the pattern is for (a module
header's rare attributes, an escape in a string, a torch_xla tensors file).  :class:`LazyPattern`
stands in for the compiled pattern where it is used seldom: each call is one Python call more than
the compiled pattern's, so a pattern of a parser's inner loop stays a module-level ``re.compile``.
"""

from __future__ import annotations

import re
import sys

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any


class LazyPattern:
    """``re.compile(pattern, flags)``, done by the first method called; the methods are ``re.Pattern``'s."""

    __slots__ = ("_flags", "_pattern", "_text")

    def __init__(self, text: str, flags: int = 0) -> None:
        self._text = text
        self._flags = flags
        self._pattern: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern, compiled now if it was not."""
        pattern = self._pattern
        if pattern is None:
            pattern = self._pattern = re.compile(self._text, self._flags)
        return pattern

    @property
    def pattern(self) -> str:
        """The pattern's text (as ``re.Pattern.pattern``), without compiling it."""
        return self._text

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)
