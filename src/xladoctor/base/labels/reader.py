"""Reading the label files (``en.toml``, ``fa.toml``): cut into areas, parsed and checked.

Apart from :mod:`xladoctor.base.labels` (the lookups) because most runs need none of it: the
areas of the fastest commands come from :mod:`.precomputed`, which this module writes
(``python -m xladoctor.base.labels.reader``; tests/test_labels.py checks that it is current), and
this code was most of the label module's bytecode (21 of 30 kB), loaded by every `xladoctor shape`
(issue 36 item 5).
"""

from __future__ import annotations

import os
import sys

from ..errors import InputError
from . import LANGUAGES, placeholders

TYPE_CHECKING = False  # not typing's (start-up, issue 36)
if TYPE_CHECKING:
    from typing import Any

PRECOMPUTED_AREAS = ("shape",)
"""The areas :mod:`.precomputed` holds, in every language: those of the commands that must start
fastest (issue 36: `xladoctor shape` within 2x a bare interpreter)."""

_CHUNKS: dict[str, tuple[str, dict[str, str]] | None] = {}


def read_labels(lang: str) -> dict[str, str]:
    """Every label of ``lang``'s file, flat dotted keys."""
    return parse_labels(_read(lang), f"labels/{lang}.toml")


def read_area(lang: str, area: str) -> dict[str, str]:
    """The labels of one area of ``lang``'s file: the file is cut at its table headers and only that
    area's tables are parsed; a file the cut cannot follow exactly is parsed whole."""
    chunks = _area_chunks(lang)
    if chunks is None:
        return read_labels(lang)
    prelude, areas = chunks
    return parse_labels((prelude + areas.get(area, "")).encode("utf-8"), f"labels/{lang}.toml")


# A plain table header: ``[area]`` or ``[area.sub]`` with bare keys, then maybe a comment.  The
# label files are read with str methods, not patterns: compiling them was ~0.6 ms of `xladoctor
# shape`'s start-up (issue 36 item 5); tests/test_labels.py checks both readers against these.
_HEADER = r"\[([A-Za-z0-9_-]+)(?:\.[A-Za-z0-9_-]+)*\][ \t]*(?:#.*)?"
_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _is_bare(key: str) -> bool:
    """A TOML bare key: ``[A-Za-z0-9_-]+``."""
    return bool(key) and _BARE.issuperset(key)


def _header_area(stripped: str) -> str | None:
    """The area (first key) of a plain table header line, stripped, or None: ``_HEADER``'s fullmatch."""
    close = stripped.find("]")
    if close < 0 or not all(_is_bare(k) for k in stripped[1:close].split(".")):
        return None
    rest = stripped[close + 1:].lstrip(" \t")
    if rest and (rest[0] != "#" or "\n" in rest):
        return None
    return stripped[1:close].split(".", 1)[0]


def _area_chunks(lang: str) -> tuple[str, dict[str, str]] | None:
    """The file's text before its first table, and each area's tables in file order; None when a
    line may not be what it looks like (a multi-line string, a quoted or array-of-tables header),
    so the area-by-area parse always equals the whole-file one (tests/test_labels.py checks)."""
    if lang not in _CHUNKS:
        _CHUNKS[lang] = _cut_areas(lang)
    return _CHUNKS[lang]


def _cut_areas(lang: str) -> tuple[str, dict[str, str]] | None:
    text = _read(lang).decode("utf-8", errors="replace")
    if '"""' in text or "'''" in text:
        return None
    if any(end in text for end in _OTHER_LINE_ENDS):
        return _chunks_by_line(text)
    return _chunks_by_bracket(text)


# Where str.splitlines ends a line besides '\n'; a file with none of them is cut at its '['s.
_OTHER_LINE_ENDS = ("\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def _chunks_by_bracket(text: str) -> tuple[str, dict[str, str]] | None:
    """:func:`_chunks_by_line` for a text whose lines end at '\\n' only, looking only at the lines
    that hold a '[' (~90 of a label file's ~900): a header is a line whose first non-blank
    character is one.  Looping over every line was ~0.4 ms of ``xladoctor shape`` (issue 36 item 5)."""
    headers: list[tuple[int, str]] = []
    pos = text.find("[")
    while pos >= 0:
        if pos and not text[pos - 1].isspace():  # text before it on its line (a value's ``f32[2]``): no header;
            pos = text.find("[", pos + 1)  # strip() below removes exactly the isspace() characters
            continue
        start = text.rfind("\n", 0, pos) + 1
        if text[start:pos].strip():
            pos = text.find("[", pos + 1)
            continue
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end + 1
        area = _header_area(text[start:end].strip())
        if area is None:
            return None
        headers.append((start, area))
        pos = text.find("[", end)
    areas: dict[str, list[str]] = {}
    for i, (start, area) in enumerate(headers):
        stop = headers[i + 1][0] if i + 1 < len(headers) else len(text)
        areas.setdefault(area, []).append(text[start:stop])
    prelude = text[:headers[0][0]] if headers else text
    return prelude, {area: "".join(chunks) for area, chunks in areas.items()}


def _chunks_by_line(text: str) -> tuple[str, dict[str, str]] | None:
    """The text cut line by line, at every line whose stripped text starts with '['."""
    prelude: list[str] = []
    areas: dict[str, list[str]] = {}
    current = prelude
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith("["):
            area = _header_area(stripped)
            if area is None:
                return None
            current = areas.setdefault(area, [])
        current.append(line)
    return "".join(prelude), {area: "".join(lines) for area, lines in areas.items()}


def _read(lang: str) -> bytes:
    """One label file's bytes, read beside this module (``importlib.resources`` costs start-up time;
    it is the fallback for an install where the package is not plain files, e.g. a zip)."""
    name = f"{lang}.toml"
    try:
        with open(os.path.join(os.path.dirname(__file__), name), "rb") as f:
            return f.read()
    except OSError:
        from importlib import resources

        return (resources.files(__package__) / name).read_bytes()


def parse_labels(data: bytes, source: str) -> dict[str, str]:
    """Flatten one label file (nested tables -> ``a.b.c`` keys); every leaf must be a string template."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not valid TOML: {e}", source) from None
    doc = _plain_toml(text)
    if doc is None:  # anything but plain tables of one-line strings: the TOML reader itself
        if sys.version_info >= (3, 11):  # imported here: a bare --version reads no label file
            import tomllib
        else:  # pragma: no cover - exercised on Python 3.10 only
            import tomli as tomllib
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise InputError(f"not valid TOML: {e}", source) from None
    flat: dict[str, str] = {}
    _flatten(doc, "", flat, source)
    return flat


# The label files' patterns are compiled when a file is read (re keeps them): `shape --json` reads none.
_PLAIN_LINE = (r'[ \t]*(?:(?P<key>[A-Za-z0-9_-]+)[ \t]*=[ \t]*"(?P<value>[^"\\\x00-\x08\x0a-\x1f\x7f]*'
               r'(?:\\.[^"\\\x00-\x08\x0a-\x1f\x7f]*)*)"|\[(?P<table>[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\])?'
               r'[ \t]*(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?')
_CONTROLS = tuple(chr(c) for c in (*range(0x09), *range(0x0b, 0x0d), *range(0x0e, 0x20), 0x7f))
"""The characters ``_PLAIN_LINE`` refuses anywhere but tab, line feed and a line's final carriage return."""


def _plain_line(line: str) -> dict[str, str | None] | None:
    """``_PLAIN_LINE``'s fullmatch of one line (no line feed; of the controls only a tab and carriage
    returns, the file is checked for the others first): its groups, or None."""
    groups: dict[str, str | None] = {"key": None, "value": None, "table": None}
    rest = line.lstrip(" \t")
    if rest.startswith("["):
        close = rest.find("]")
        if close < 0 or not all(_is_bare(k) for k in rest[1:close].split(".")):
            return None
        groups["table"], rest = rest[1:close], rest[close + 1:]
    elif rest and rest[0] in _BARE:
        key, eq, after = rest.partition("=")
        key = key.rstrip(" \t")
        after = after.lstrip(" \t")
        if not eq or not _is_bare(key) or not after.startswith('"'):
            return None
        end = _string_end(after)
        if end < 0:
            return None
        groups["key"], groups["value"], rest = key, after[1:end], after[end + 1:]
    rest = rest.lstrip(" \t")
    if rest and (rest[0] != "#" or "\r" in rest):
        return None
    return groups


def _string_end(text: str) -> int:
    """Offset of the quote closing the basic string that ``text`` opens (a backslash escapes the
    character after it, whatever it is), or -1 when the line ends first or a carriage return
    stands unescaped in it."""
    pos = 1
    while True:
        quote, slash = text.find('"', pos), text.find("\\", pos)
        if quote < 0:
            return -1
        stop = quote if slash < 0 or quote < slash else slash
        if "\r" in text[pos:stop]:
            return -1
        if stop == quote:
            return quote
        if slash + 1 >= len(text):
            return -1
        pos = slash + 2


# A basic string's escapes (TOML 1.0, as tomllib reads them); in a multi-line one also a backslash
# that ends a line, which takes the whitespace and newlines after it (a one-line string holds no
# newline, so it never matches there).  An empty match is an escape TOML refuses.
_ESCAPE = r"\\(?:([\"\\bfnrt])|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|([ \t]*\n[ \t\n]*)|)"
_ESCAPED = {'"': '"', "\\": "\\", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _plain_toml(text: str) -> dict[str, Any] | None:
    """``tomllib.loads(text)`` for a file of ``[a.b]`` tables and ``key = "..."`` one-line strings
    (every label file), or None for anything else, which the TOML reader then reads: importing
    ``tomllib`` (and the ``datetime`` it pulls) was a sixth of ``xladoctor shape``'s start-up.
    Built as tomllib builds it (nested tables, in order), so the flattened labels are the same
    (tests/test_labels.py compares the two on every label file)."""
    doc: dict[str, Any] = {}
    table, defined = doc, set()
    if any(c in text for c in _CONTROLS):  # none in any label file: no line below needs checking for them
        return None
    for line in text.split("\n"):
        m = _plain_line(line[:-1] if line.endswith("\r") else line)
        if m is None:
            return None
        if m["table"] is not None:
            if m["table"] in defined:
                return None
            defined.add(m["table"])
            table = doc
            for part in m["table"].split("."):
                table = table.setdefault(part, {})
                if not isinstance(table, dict):
                    return None
        elif m["key"] is not None:
            value = unescaped_basic_string(m["value"] or "")  # a key always has a value, "" at least
            if value is None or m["key"] in table:
                return None
            table[m["key"]] = value
    return doc


def unescaped_basic_string(raw: str) -> str | None:
    """A TOML basic string's value from its text between the quotes (one-line or multi-line); None
    for an escape TOML refuses.  The label files' reader and the catalogue's (``catalogue/plain_toml``)
    both read their strings with it.  Each escape is read as ``re.sub(_ESCAPE, ...)`` read it
    (tests/test_labels.py compares the two), without importing re: reading a label area with an
    escape was re's whole import (~25M instructions) in ``check LOG`` (h52s)."""
    if "\\" not in raw:
        return raw
    out: list[str] = []
    i = 0
    while True:
        j = raw.find("\\", i)
        if j < 0:
            out.append(raw[i:])
            return "".join(out)
        out.append(raw[i:j])
        text, i = _escape_at(raw, j + 1)
        if text is None:
            return None
        out.append(text)


_HEX = frozenset("0123456789abcdefABCDEF")


def _escape_at(raw: str, k: int) -> tuple[str | None, int]:
    """The value of the escape whose backslash stands before ``raw[k]``, and where the text after it
    starts; None where TOML refuses it (``_ESCAPE``'s empty match: a code point past U+10FFFF or
    of a surrogate, or a backslash before anything else)."""
    c = raw[k:k + 1]
    if c and c in _ESCAPED:
        return _ESCAPED[c], k + 1
    digits = 4 if c == "u" else 8 if c == "U" else 0
    if digits and len(raw) >= k + 1 + digits and all(d in _HEX for d in raw[k + 1:k + 1 + digits]):
        code = int(raw[k + 1:k + 1 + digits], 16)
        return (None if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF else chr(code)), k + 1 + digits
    end = k
    while raw[end:end + 1] in (" ", "\t"):
        end += 1
    if raw[end:end + 1] != "\n":  # a backslash ending a line takes the blanks and newlines after it
        return None, k
    while raw[end:end + 1] in (" ", "\t", "\n"):
        end += 1
    return "", end


def _flatten(table: dict[str, Any], prefix: str, out: dict[str, str], source: str) -> None:
    for key, value in table.items():
        full = prefix + key
        if isinstance(value, dict):
            _flatten(value, full + ".", out, source)
        elif isinstance(value, str):
            try:
                placeholders(value)
            except ValueError as e:
                raise InputError(f"{full}: bad template: {e}", source) from None
            out[full] = value
        else:
            raise InputError(f"{full}: must be a string, got {type(value).__name__}", source)


def precomputed_source() -> str:
    """The text of :mod:`.precomputed`: each of :data:`PRECOMPUTED_AREAS` in each language, as
    :func:`read_area` reads it now."""
    out = ['"""The label areas the fastest commands show, already read: GENERATED from en.toml and fa.toml by',
           "``python -m xladoctor.base.labels.reader`` (run it after editing them; tests/test_labels.py fails until",
           'then).  Reading and cutting a label file was ~0.65 ms of `xladoctor shape` (issue 36 item 5)."""',
           "", f"AREAS = {PRECOMPUTED_AREAS!r}", "", "TABLES: dict[tuple[str, str], dict[str, str]] = {"]
    for lang in LANGUAGES:
        for area in PRECOMPUTED_AREAS:
            table = read_area(lang, area)
            if not table:
                out.append(f"    ({lang!r}, {area!r}): {{}},")
                continue
            out.append(f"    ({lang!r}, {area!r}): {{")
            out.extend(f"        {key!r}: {value!r}," for key, value in table.items())
            out.append("    },")
    out.append("}")
    return "\n".join(out) + "\n"


def write_precomputed() -> str:
    """Rewrite :mod:`.precomputed` beside this module; returns its path."""
    path = os.path.join(os.path.dirname(__file__), "precomputed.py")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(precomputed_source())
    return path


if __name__ == "__main__":
    print(write_precomputed())
