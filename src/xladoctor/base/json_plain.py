"""``json.dumps(doc, indent=2, ensure_ascii=False)`` for plain documents, without importing ``json``.

Why: ``json``'s import (its scanner and encoder modules and their patterns) is ~1.5 ms of
``xladoctor shape --json``'s start-up (issue 36), and with ``indent`` ``json.dumps`` writes
through its pure-Python encoder anyway.  :func:`plain_dumps` writes the same text for documents
made only of ``dict`` (``str`` keys), ``list``, ``tuple``, ``str``, ``int``, ``float``, ``bool``
and ``None``, and answers ``None`` for anything else (an ``int`` subclass, a spool, a non-``str``
key), so the caller falls back to ``json`` itself.  tests/test_json_plain.py compares the two on
every ``shape`` document of the corpora and on generated ones.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: this module is on `shape --json`'s start-up path
if TYPE_CHECKING:
    from typing import Any

_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
"""``json.encoder.ESCAPE_DCT``'s short escapes; every other character below U+0020 is ``\\u00XX``."""


class _NotPlain(Exception):
    """A value ``plain_dumps`` does not write: the caller uses ``json.dumps``."""


def plain_dumps(doc: object) -> str | None:
    """``json.dumps(doc, indent=2, ensure_ascii=False)`` where ``doc`` is plain (see the module); else ``None``."""
    out: list[str] = []
    try:
        _write(doc, out, "\n")
    except _NotPlain:
        return None
    return "".join(out)


def _write(o: Any, out: list[str], newline: str) -> None:
    """Append ``o`` at one nesting level (``newline``: a line end and that level's indent)."""
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
    elif t is dict:
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
            _write(value, out, inner)
        out.append(newline + "}")
    elif t is list or t is tuple:
        if not o:
            out.append("[]")
            return
        inner = newline + "  "
        first = True
        for value in o:
            out.append(("[" if first else ",") + inner)
            first = False
            _write(value, out, inner)
        out.append(newline + "]")
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
