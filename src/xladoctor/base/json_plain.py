"""``json.dumps(doc, indent=2, ensure_ascii=False)`` for plain documents, without importing ``json``.

Why: ``json``'s import (its scanner and encoder modules and their patterns) is ~1.5 ms of
``xladoctor shape --json``'s start-up (issue 36), and with ``indent`` ``json.dumps`` writes
through its pure-Python encoder anyway.  :func:`plain_dumps` writes the same text for documents
made only of ``dict`` or a subclass (``str`` keys), ``list``, ``tuple``, ``str``, ``int``, ``float``, ``bool``
and ``None``, and answers ``None`` for anything else (an ``int`` subclass, a spool, a non-``str``
key), so the caller falls back to ``json`` itself.  tests/test_json_plain.py compares the two on
every ``shape`` document of the corpora and on generated ones.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: this module is on `shape --json`'s start-up path
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
"""``json.encoder.ESCAPE_DCT``'s short escapes; every other character below U+0020 is ``\\u00XX``."""


class _NotPlain(Exception):
    """A value ``plain_dumps`` does not write: the caller uses ``json.dumps``."""


class Streamed:
    """A JSON array whose items are made only as it is written (:func:`plain_stream`, or
    :func:`plain_dumps` whole): ``hlo --json``'s one entry per instruction, which held as dicts
    cost ~20x the module's text (issue 36 item 3).  ``items`` is called once per writing."""

    __slots__ = ("_items",)

    def __init__(self, items: Callable[[], Iterable[object]]) -> None:
        self._items = items

    def __iter__(self) -> Iterator[object]:
        return iter(self._items())


_FLUSH = 4096
"""Pieces :func:`plain_stream` gathers before one write (tens of kB): few writes through a
checking stream, and never more than that of the document held at once."""


def plain_stream(doc: object, write: Callable[[str], object]) -> None:
    """``json.dumps(doc, indent=2, ensure_ascii=False)``'s text (a :class:`Streamed` as its list),
    handed to ``write`` in pieces as it is made, so the whole text is never held.  A value that
    :func:`plain_dumps` leaves to ``json`` is written by ``json`` at its own place (its text
    indented to that depth: the same bytes ``json`` writes for the whole)."""
    out: list[str] = []
    _write(doc, out, "\n", write)
    if out:
        write("".join(out))


def plain_dumps(doc: object) -> str | None:
    """``json.dumps(doc, indent=2, ensure_ascii=False)`` where ``doc`` is plain (see the module); else ``None``."""
    out: list[str] = []
    try:
        _write(doc, out, "\n")
    except _NotPlain:
        return None
    return "".join(out)


def _write(o: Any, out: list[str], newline: str, flush: Callable[[str], object] | None = None) -> None:
    """Append ``o`` at one nesting level (``newline``: a line end and that level's indent);
    ``flush``: :func:`plain_stream`'s writer (what is gathered goes to it after each list item,
    and a value that is not plain is written by ``json`` rather than refused)."""
    t = type(o)
    if t is str:
        out.append(_string(o))
    elif o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif t is int:
        out.append(int.__repr__(o))
    elif t is float:
        out.append(_float(o))
    elif isinstance(o, dict) and (flush is None or all(type(key) is str for key in o)):
        # a dict subclass as json's (pure-Python, indented) encoder writes it: its items() (findings/
        # wire.Diagnostics, in every document with findings: `explain LOG --json` imported json for it)
        if not o:
            out.append("{}")
            return
        inner = newline + "  "
        first = True
        for key, value in o.items():
            if type(key) is not str:
                raise _NotPlain
            out.append(("{" if first else ",") + inner + _string(key) + ": ")
            first = False
            _write(value, out, inner, flush)
        out.append(newline + "}")
    elif t is list or t is tuple or t is Streamed:
        inner = newline + "  "
        first = True
        for value in o:
            out.append(("[" if first else ",") + inner)
            first = False
            _write(value, out, inner, flush)
            if flush is not None and len(out) > _FLUSH:
                flush("".join(out))
                out.clear()
        out.append("[]" if first else newline + "]")
    elif flush is not None:  # streaming: nothing can be taken back, so json writes this value here
        out.append(_json_value(o, newline))
    else:
        raise _NotPlain


def _float(f: float) -> str:
    """``json``'s ``floatstr`` with ``allow_nan``: ``NaN``, ``Infinity``, ``-Infinity``, else ``repr``."""
    if f != f:
        return "NaN"
    if f == float("inf"):
        return "Infinity"
    if f == -float("inf"):
        return "-Infinity"
    return float.__repr__(f)


def _string(s: str) -> str:
    """``json``'s ``encode_basestring`` (``ensure_ascii=False``): ``"``, ``\\`` and the controls
    below U+0020 escaped, every other character as it is."""
    if s.isprintable() and '"' not in s and "\\" not in s:  # printable: no character below U+0020
        return '"' + s + '"'
    return '"' + "".join(_SHORT.get(c) or (f"\\u{ord(c):04x}" if c < " " else c) for c in s) + '"'


def _json_value(o: object, newline: str) -> str:
    """``json``'s text of ``o`` at the depth ``newline`` indents to: its own text with every line
    end indented (a JSON string holds no raw line end, so only the layout's are)."""
    import json  # only for a value plain_dumps does not write: start-up paths never get here

    return json.dumps(o, indent=2, ensure_ascii=False, default=_listed).replace("\n", newline)


def _listed(o: object) -> list[object]:
    """A :class:`Streamed` inside a value ``json`` writes: its items, as a list."""
    if type(o) is Streamed:
        return list(o)
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")
