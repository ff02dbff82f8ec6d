"""The catalogue as the log scanner first needs it: each anchor word and the patterns it opens.

A log scan looks for the catalogue's anchors (the literal word each pattern starts with) before
anything else, and most of a log holds none: a clean log needs no entry, no prose and no compiled
pattern at all.  Reading and validating the 32 TOML files and compiling their ~160 patterns was
~13 ms of every ``explain LOG``'s start-up, most of what the process cost beyond the scan on a
clean 500 MB log (issue 36 item 6).  So the anchors and their pattern sources are shipped
precomputed in :mod:`.scan_table_data`, with the CRC-32 of each data file they were derived from:
:func:`packaged` reads the files' bytes (no parsing, ~1 ms) and uses the table only when the
files are those, else derives it from the catalogue (a stale table can never change a finding).
``tests/test_scan_table.py`` checks the shipped table against the catalogue;
``python -m xladoctor.catalogue.generate`` rewrites it after a data file changes.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .loader import Catalogue

PatternTable = dict[str, tuple[tuple[str, str], ...]]
"""Anchor word -> the ``(code, pattern)`` pairs it opens, in catalogue order (code, then pattern)."""

# Compiled (and kept by re) on first use: a clean log's scan derives nothing.
_ANCHOR = r"^(?:\\b)?([A-Za-z0-9_:.\-]{3,})"


def pattern_anchor(pattern: str) -> str:
    """The literal word a catalogue pattern starts with; the scanner searches for it with str.find."""
    import re  # here and below: a clean log's start-up imports no re (h52s)

    m = re.match(_ANCHOR, pattern)
    if not m:
        raise ValueError(f"catalogue pattern must start with a literal word of 3+ characters: {pattern!r}")
    return m.group(1)


_HEAD = r"^(?:\\b)?([A-Za-z0-9_:\-]*)"


def literal_head(regex: str) -> str:
    """The literal text every match of ``regex`` starts with, as far as it can be read off plainly
    (letters, digits, ``_:-``; a character a quantifier follows is left out); empty where the
    regex is an alternation at its top level."""
    import re

    m = re.match(_HEAD, regex)
    assert m is not None  # every part of _HEAD is optional
    head = m.group(1)
    if regex[m.end():m.end() + 1] in ("?", "*", "+", "{"):
        head = head[:-1]
    return "" if _top_level_bar(regex) else head


def _top_level_bar(regex: str) -> bool:
    depth, i = 0, 0
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            i += 1
        elif c == "[":  # a class: up to its closing bracket (one right after the opening is literal)
            first = i + 2 if regex[i + 1:i + 2] == "^" else i + 1
            i = regex.find("]", first + 1)
            i = len(regex) if i < 0 else i
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return True
        i += 1
    return False


def derive(catalogue: Catalogue) -> PatternTable:
    """The table of ``catalogue``, as the scanner built it from the entries."""
    table: dict[str, list[tuple[str, str]]] = {}
    for entry in catalogue:
        for pattern in entry.patterns:
            table.setdefault(pattern_anchor(pattern), []).append((entry.code, pattern))
    return {anchor: tuple(pairs) for anchor, pairs in table.items()}


def data_sources() -> dict[str, int]:
    """Each data file's name and CRC-32 (read, not parsed): what the shipped table must come from."""
    from .data_files import _data_files, file_crc

    return {name: file_crc(data) for name, data in _data_files()}


def packaged() -> PatternTable:
    """The shipped table when it was derived from these data files, else the catalogue's own."""
    from . import scan_table_data

    if data_sources() == scan_table_data.SOURCES:
        return scan_table_data.PATTERNS
    from .loader import load_catalogue

    return derive(load_catalogue())
