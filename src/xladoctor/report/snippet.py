"""rustc-style source snippets: ``--> file:line:col``, the line's text and a caret under the span.

A finding's Python line (the user's frame of the offload, ``ir.module.user_frame_location``) is
shown as the line itself when the file can be read here; otherwise the HLO line of the checked
file.  The text comes from the input, so it is escaped (:func:`xladoctor.base.escape.escape_field`)
before it is drawn; tabs become spaces so the caret stays under its column.

The checked file's own lines (:func:`input_text`) are read through :mod:`linecache` too, which keeps
every file it reads for the life of the process: ~1 MiB per 10k-instruction module, and in ``check
DIR`` one such file per module checked (issue 36, h43g: 1.1 MiB more peak RSS per file).  A report
drops them once it is drawn (:func:`inputs_forgotten`); the Python sources of the frames stay cached
(a few files, shared by every module of a program).
"""

from __future__ import annotations

import linecache
from collections.abc import Iterator
from contextlib import contextmanager

from ..base.cells import cell_label, place
from ..base.collector import settle
from ..base.escape import escape_field

_MAX_WIDTH = 110
"""A longer line (an HLO instruction) is cut around the caret."""
_CLOSING = {"(": ")", "[": "]", "{": "}"}


def source_text(file: str | None, line: int | None) -> str | None:
    """The line's text (tabs as spaces, no newline), or None when the file cannot be read."""
    if not file or not line or line < 1 or (file.startswith("<") and cell_label(file) is None):
        return None  # "<string>" has no lines; an IPython cell ("<ipython-input-1-...>") has, in linecache
    try:
        text = linecache.getline(file, line)
    except (OSError, UnicodeDecodeError, ValueError):  # a directory, a file not UTF-8
        return None
    return text.rstrip("\r\n").expandtabs(4) or None


_INPUTS_READ: set[str] = set()
"""Checked files whose lines linecache holds because :func:`input_text` read them."""


def input_text(path: str | None, line: int | None) -> str | None:
    """:func:`source_text` of the checked file (an HLO module), its lines kept only until the report
    that reads them is drawn (:func:`inputs_forgotten`); an entry linecache had before is left to it."""
    if path is None or path in linecache.cache:
        return source_text(path, line)
    settle()  # the last module, if still garbage, is freed before its text is read whole
    text = source_text(path, line)
    if path in linecache.cache:
        _INPUTS_READ.add(path)
    return text


@contextmanager
def inputs_forgotten() -> Iterator[None]:
    """Drawing one report (a file's section of ``check``, ``offload``'s text): afterwards linecache
    holds none of the checked files' lines :func:`input_text` read for it (read once per report, not
    once per snippet, and not kept for the next file)."""
    try:
        yield
    finally:
        while _INPUTS_READ:
            linecache.cache.pop(_INPUTS_READ.pop(), None)


def span(text: str, column: int | None, word: str | None = None) -> tuple[int, int]:
    """Where the caret goes: at ``word`` when given and found, else from ``column`` (0-based, as
    JAX records it) over the call that starts there (to its closing bracket), else the line's
    statement (no indent, no trailing comment)."""
    if word:
        at = text.find(word)
        if at >= 0:
            return at, at + len(word)
    if column is None or not 0 <= column < len(text):  # no column recorded: the statement, without its comment
        body = text.split("  #", 1)[0].rstrip()
        return len(text) - len(text.lstrip()), max(len(body), 1)
    start = column
    depth, end = 0, start
    for i in range(start, len(text)):
        ch = text[i]
        if ch in _CLOSING:
            depth += 1
        elif ch in _CLOSING.values():
            depth -= 1
            if depth <= 0:
                return start, i + 1
        elif depth == 0 and (ch.isspace() or ch == "#") and i > start:
            end = i
            break
        end = i + 1
    return start, max(end, start + 1)


def snippet(file: str, line: int, text: str, where: tuple[int, int], note: str, indent: str = "") -> list[str]:
    """The four lines: arrow with ``file:line:col``, gutter, the numbered text, the caret and ``note``."""
    start, end = where
    if len(text) > _MAX_WIDTH:  # keep the caret's surroundings
        cut = max(0, min(start - 20, len(text) - _MAX_WIDTH))
        text = ("..." if cut else "") + text[cut:cut + _MAX_WIDTH] + "..."
        shift = cut - (3 if cut else 0)
        start, end = start - shift, min(end - shift, len(text))
    number = str(line)
    pad = " " * len(number)
    lines = [f"{indent}{pad}--> {escape_field(place(file, line, start + 1))}",
             f"{indent}{pad} |",
             f"{indent}{number} | {escape_field(text)}",
             f"{indent}{pad} | {' ' * start}{'^' * max(1, end - start)}"]
    if any("\u0590" <= ch <= "\u08ff" for ch in note):  # right to left: drawn on its own line, the caret stays put
        return [*lines, f"{indent}{pad} = {note}"]
    lines[-1] += f" {note}"
    return lines
