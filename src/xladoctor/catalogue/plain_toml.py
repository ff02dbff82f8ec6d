"""The catalogue files' TOML, read without ``tomllib`` (issue 36, start-up).

Importing ``tomllib`` costs more than the rest of ``xladoctor explain E1200``: it imports ``typing``
and ``datetime`` and compiles its number and date patterns, about as much CPU as a bare Python
start.  The catalogue files use a small part of TOML: ``[table]`` headers with bare names, bare
keys, strings of the four kinds (basic, literal and their multi-line forms), arrays of strings
and ``true``/``false``, with comments.  :func:`loads` reads exactly that part and returns None for
anything else (a number, a date, an inline table, a dotted key, a control character, a key
defined twice, a form it is not sure of), where the caller reads the file with ``tomllib``; so a
file it reads gives what ``tomllib.loads`` gives (tests/test_plain_toml.py checks every catalogue
file, and random texts made of TOML's own punctuation), and a file it refuses gets ``tomllib``'s
answer and error message.
"""

from __future__ import annotations

import re
from functools import cache

from ..base.labels.reader import unescaped_basic_string

TYPE_CHECKING = False  # not typing's: see the module's docstring
if TYPE_CHECKING:
    from typing import Any

# Characters no TOML string or comment may hold (tab and newline aside), and carriage returns and a
# byte-order mark, whose handling is left to tomllib.
_REFUSED = "[\x00-\x08\x0b-\x1f\x7f\ufeff]"
_BLANK = r"(?:[ \t\n]|#[^\n]*)*"  # between array elements: whitespace, newlines, comments
_END = r"[ \t]*(?:#[^\n]*)?(?:\n|\Z)"  # the rest of a line after a value or a header
_HEADER = r"[ \t]*\[[ \t]*([A-Za-z0-9_-]+)[ \t]*\]" + _END
_KEY = r"[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*"
_SKIP = r"(?:[ \t]*(?:#[^\n]*)?(?:\n|\Z))*"  # blank and comment lines
_BASIC = r'"((?:[^"\\\n]|\\[^\n])*)"'
_LITERAL = r"'([^'\n]*)'"
_BOOL = r"(true|false)(?![A-Za-z0-9_-])"


class _Refused(Exception):
    """Something :func:`loads` does not read: tomllib reads the file instead."""


def loads(text: str) -> dict[str, Any] | None:
    """``tomllib.loads(text)`` for a file of the part of TOML described above, else None."""
    if _compiled(_REFUSED).search(text) or "\r" in text:
        return None
    try:
        return _Reader(text).document()
    except _Refused:
        return None


class _Reader:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def match(self, pattern: str) -> re.Match[str] | None:
        m = _compiled(pattern).match(self.text, self.pos)
        if m is not None:
            self.pos = m.end()
        return m

    def document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {}
        table = doc
        while True:
            self.match(_SKIP)
            if self.pos >= len(self.text):
                return doc
            header = self.match(_HEADER)
            if header is not None:
                if header[1] in doc:
                    raise _Refused
                table = doc[header[1]] = {}
                continue
            key = self.match(_KEY)
            if key is None or key[1] in table:
                raise _Refused
            table[key[1]] = self.value(multi_line=True)
            if self.match(_END) is None:
                raise _Refused

    def value(self, multi_line: bool) -> Any:
        text, pos = self.text, self.pos
        if text.startswith('"""', pos) and multi_line:
            return self.multi_line('"""', basic=True)
        if text.startswith("'''", pos) and multi_line:
            return self.multi_line("'''", basic=False)
        if text.startswith('"', pos):
            m = self.match(_BASIC)
            if m is None:
                raise _Refused
            return _unescaped(m[1])
        if text.startswith("'", pos):
            m = self.match(_LITERAL)
            if m is None:
                raise _Refused
            return m[1]
        if text.startswith("[", pos) and multi_line:
            return self.array()
        m = self.match(_BOOL)
        if m is None:
            raise _Refused
        return m[1] == "true"

    def multi_line(self, quotes: str, basic: bool) -> str:
        start = self.pos + 3
        if self.text.startswith("\n", start):  # a newline right after the quotes is not part of it
            start += 1
        end = self.text.find(quotes, start)
        # Closing quotes that may be escaped, or quotes just inside them (""""): tomllib decides.
        if end < 0 or self.text.startswith(quotes[0], end + 3) or (basic and self.text[end - 1:end] == "\\"):
            raise _Refused
        self.pos = end + 3
        raw = self.text[start:end]
        return _unescaped(raw) if basic else raw

    def array(self) -> list[Any]:
        self.pos += 1
        items: list[Any] = []
        while True:
            self.match(_BLANK)
            if self.text.startswith("]", self.pos):
                self.pos += 1
                return items
            items.append(self.value(multi_line=False))
            self.match(_BLANK)
            if self.text.startswith(",", self.pos):
                self.pos += 1
            elif not self.text.startswith("]", self.pos):
                raise _Refused


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """The patterns above, compiled on first use (a command that reads no catalogue file compiles none)."""
    return re.compile(pattern)


def _unescaped(raw: str) -> str:
    """A basic string's value from its text between the quotes (the labels' reader's, one escape rule)."""
    value = unescaped_basic_string(raw)
    if value is None:
        raise _Refused
    return value
