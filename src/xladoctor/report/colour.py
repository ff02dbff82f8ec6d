"""Colour on a terminal, as users of ruff and rustc expect, and nowhere else.

The rule (https://no-color.org, https://force-color.org): ``--color always|never`` decides;
else (``auto``) ``NO_COLOR`` set to anything non-empty turns colour off; else ``FORCE_COLOR``
non-empty (and not ``0``) turns it on, even into a pipe (CI logs that render ANSI); else colour
only when the stream is a terminal and ``TERM`` is not ``dumb``.  Coloured text is written past
the terminal-safe wrapper (:attr:`xladoctor.base.escape.TerminalSafeStream.controls`), so every
input-derived piece must be escaped (:func:`xladoctor.base.escape.escape_field`) before it is painted;
:class:`PaintingStream` escapes a whole text report first and then paints its lines.
"""

from __future__ import annotations

import io
import os
from functools import cache

from ..base.escape import escape_stream_text

TYPE_CHECKING = False  # not typing's: start-up (issue 36)
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Mapping
    from typing import Any

_STYLES = {"bold": "1", "red": "1;31", "yellow": "1;33", "cyan": "36", "dim": "2", "green": "32",
           "blue": "1;34"}


def colour_enabled(stream: Any, environ: Mapping[str, str] | None = None, mode: str = "auto") -> bool:
    if mode in ("always", "never"):
        return mode == "always"
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    force = env.get("FORCE_COLOR")
    if force:
        return force != "0"
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and env.get("TERM") != "dumb"


class Painter:
    """Wraps text in ANSI styles when colour is on, returns it unchanged otherwise.

    A style never spans a line end: text with newlines (or a carriage return before one) is
    painted line by line, each reset before its ``\r``/``\n``, as rustc and ruff write it.  A reset
    after the newline leaves the style on at the start of the next line for any reader that
    takes the output a line at a time (``less -R``, CI log viewers, a pane captured by lines)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, text: str, style: str) -> str:
        if not (self.enabled and text):
            return text
        if "\n" in text or "\r" in text:
            return "".join(self._one(body, style) + end for body, end in _line_ends().findall(text) if body or end)
        return self._one(text, style)

    @staticmethod
    def _one(text: str, style: str) -> str:
        return f"\x1b[{_STYLES[style]}m{text}\x1b[0m" if text else text


@cache
def _line_ends() -> re.Pattern[str]:
    """A text's lines and what ends each (``\r\n``, ``\n``, ``\r`` or the end of the text); compiled,
    with re itself, when text is first painted: every text command imports this module to ask
    whether colour is on, and re's import is ~25M instructions of a clean log's run (issue 36)."""
    import re

    return re.compile(r"([^\r\n]*)(\r?\n|\r|$)")


def _whole(style: str) -> Callable[[re.Match[str], Painter], str]:
    return lambda m, paint: m.group(1) + paint(m.group(2), style) + m.group(3)


# Compiled when a line is first painted (re keeps them): every text command imports this module to
# ask whether colour is on, and most write to a file or a pipe (start-up, issue 36).
_LINE_STYLES: tuple[tuple[str, Callable[[re.Match[str], Painter], str]], ...] = (
    (r"^()(== .*)()$", _whole("bold")),                                   # a file's section
    (r"^(\s*)(\S*\d+ (?:files?|modules?) checked.*)()$", _whole("bold")),   # the tally
    (r"^(\s*(?:line \d+: )?)(E\d{4})(\b.*)$", _whole("red")),               # a finding's code
    (r"^(\s*)(-->|->)( .*)$", _whole("blue")),                              # path hops, snippet arrow
    (r"^(\s*)(\|)( +\^+.*)$", lambda m, paint: _caret(m, paint)),             # the caret
    (r"^(\s*)(\d+ \||\|)(.*)$", _whole("blue")),                            # the snippet's gutter
    (r"^(\s*)(fix(?: \([^)]*\))?)(:? .*)$", _whole("green")),               # fixes
    (r"^(\s*)(warning:|note:)( .*)$", _whole("yellow")),
)


@cache
def _line_styles() -> tuple[tuple[re.Pattern[str], Callable[[re.Match[str], Painter], str]], ...]:
    import re

    return tuple((re.compile(pattern), draw) for pattern, draw in _LINE_STYLES)


def _caret(m: re.Match[str], paint: Painter) -> str:
    import re

    spaces, carets, note = re.match(r"( +)(\^+)(.*)", m.group(3)).groups()  # type: ignore[union-attr]
    return m.group(1) + paint(m.group(2), "blue") + spaces + paint(carets, "red") + note


def paint_line(line: str, paint: Painter) -> str:
    """One line of an (escaped) text report in the colours rustc uses: codes red, fixes green,
    locations blue, warnings yellow, headings bold."""
    for pattern, draw in _line_styles():
        m = pattern.match(line)
        if m is not None:
            return draw(m, paint)
    return line


class PaintingStream(io.TextIOBase):
    """The terminal-safe stdout (``cli.main``) that paints a text report line by line: each line is
    escaped as the safe stream would, painted, and written to the raw stream."""

    def __init__(self, safe: Any):
        self._safe = safe
        self._raw = getattr(safe, "controls", safe)
        self._paint = Painter(True)
        self._pending = ""

    def write(self, s: str) -> int:
        text = self._pending + escape_stream_text(s)
        *lines, self._pending = text.split("\n")
        if lines:
            self._raw.write("".join(paint_line(ln, self._paint) + "\n" for ln in lines))
        return len(s)

    def flush(self) -> None:
        if self._pending:
            self._raw.write(paint_line(self._pending, self._paint))
            self._pending = ""
        self._safe.flush()

    @property
    def controls(self) -> Any:
        return self._raw

    def isatty(self) -> bool:
        return bool(self._safe.isatty())

    def fileno(self) -> int:
        return int(self._safe.fileno())

    @property
    def buffer(self) -> Any:
        return self._safe.buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(self._safe.encoding)

    def writable(self) -> bool:
        return True
