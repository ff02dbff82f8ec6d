"""What ``check`` keeps of each file until its report is written (issue 20: memory of ``check DIR``).

A file's document holds its module's summary (every instruction as a dict: ~2 MB of JSON and
~4 MB of Python objects for 10,000 instructions) and the whole ``offload`` document.  Kept for
every file, they made ``check DIR`` grow with the number of files, and ``--json`` built the whole
document as one string on top.  Each file's document is now reduced as soon as it is checked to
what the report still needs: the lines of the text report (:func:`~xladoctor.report.check_text.file_piece`),
its JSON written to a spool file (:class:`JsonSpool`, copied into the document at the end: the
same bytes), and a small entry for the totals, ``diagnostics`` and the stderr lines
(:func:`slim`; with ``--html`` the page's entry, the instruction lists left out).
"""

from __future__ import annotations

import codecs
import io

from ..base.escape import json_text
from ..ir.record import MutableValue
from ..ir.value import FrozenValue

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any, TextIO

_KEEP = ("path", "kind", "findings", "note", "companion_of", "error", "verdict", "confirm", "diagnostics", "parsed",
         "provenance")
_CHUNK = 1 << 20
IN_MEMORY = 1 << 18
"""Bytes of a :class:`JsonSpool` kept in memory before it moves to a temporary file."""


class Wanted(FrozenValue):
    """Which outputs the run writes, so each file keeps only what they read (this module's records
    are written out, not dataclasses: :mod:`..ir.value`, start-up, issue 36)."""

    _FIELDS = ("text", "json", "html", "lang")

    text: bool
    json: bool
    html: bool
    lang: str

    def __init__(self, text: bool, json: bool, html: bool, lang: str = "en") -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "json", json)
        object.__setattr__(self, "html", html)
        object.__setattr__(self, "lang", lang)


class Kept(MutableValue):
    """What is kept of one checked file: its slimmed entry and its piece of the page or text."""

    _FIELDS = ("entry", "piece")

    entry: dict[str, Any]
    piece: tuple[str, Any] | None

    def __init__(self, entry: dict[str, Any], piece: tuple[str, Any] | None = None) -> None:
        self.entry = entry
        self.piece = piece


def slim(entry: dict[str, Any], html: bool = False) -> dict[str, Any]:
    """``entry`` without what only its own section or JSON shows: for the totals, ``diagnostics``
    and the stderr lines, its findings (serialised and typed) and few keys; for the page (``html``),
    all of it but the summary's instruction lists (their count stays)."""
    hlo = entry.get("hlo")
    if html:
        if not isinstance(hlo, dict) or "computations" not in hlo:
            return entry
        summary = {k: v for k, v in hlo.items() if k != "computations"}
        return {**entry, "hlo": {**summary, "computation_count": len(hlo["computations"] or ())}}
    out = {k: entry[k] for k in _KEEP if k in entry}
    for key in ("offload", "explain"):
        inner = entry.get(key)
        if isinstance(inner, dict) and "diagnostics" in inner:
            out[key] = {"diagnostics": inner["diagnostics"]}
    return out


def keep(entry: dict[str, Any], want: Wanted, index: int, spool: JsonSpool | None) -> Kept:
    """What is kept of file ``index``'s ``entry``: its JSON goes to ``spool``, its lines are drawn."""
    piece = None
    if want.text:
        from ..report.check_text import file_piece

        piece = file_piece(entry, want.lang)
    if spool is not None:
        spool.add(index, entry)
    return Kept(slim(entry, want.html), piece)


class JsonSpool:
    """The ``files`` array of a JSON document, written one entry at a time to an unnamed temporary
    file (in any order: each entry is placed by its index) and copied out where the document has
    it, as ``json.dumps(..., indent=2)`` would have written it at that depth.

    The first :data:`IN_MEMORY` bytes are kept in memory, and only a bigger array moves to the
    temporary file: ``check LOG --json`` writes a few hundred bytes, and the file cost it the
    import of tempfile (shutil, random, bz2, lzma: ~18 modules) and the probe of the temporary
    folder (a file created, written and removed), ~300 system calls (issue 36 item 6)."""

    def __init__(self, depth: int = 2) -> None:
        self._file: Any = io.BytesIO()  # the temporary file once past IN_MEMORY bytes (_spill)
        self._spilled = False
        self._at: dict[int, tuple[int, int]] = {}
        self._end = 0
        self._indent = "\n" + "  " * depth
        self._close = "\n" + "  " * (depth - 1) + "]"

    def add(self, index: int, entry: Any) -> None:
        """Write ``entry`` as ``json.dumps(entry, indent=2, ensure_ascii=False)`` at this depth, in
        the pieces :func:`~xladoctor.base.json_plain.plain_stream` hands over (the same text, without
        importing json and re, ~30M instructions of ``check LOG --json``, h52s): with ``indent``
        ``json.dumps`` runs the Python encoder and joins every piece at once (a list of ~3M strings
        and three copies of the 30 MB text for a 100k-instruction module's summary, the peak of
        ``check --json``)."""
        from ..base.json_plain import plain_stream

        self._file.seek(self._end)
        size = [0]

        def write(piece: str) -> None:
            # A JSON text holds no newline but the indent's, and a piece is whole tokens (a string
            # with its escapes, so never half a surrogate pair): re-indenting and escaping each
            # piece is the same as doing it to the whole text.
            data = json_text(piece.replace("\n", self._indent)).encode("utf-8", "surrogatepass")
            self._file.write(data)
            size[0] += len(data)
            if not self._spilled and self._end + size[0] > IN_MEMORY:
                self._spill()

        plain_stream(entry, write)
        self._at[index] = (self._end, size[0])
        self._end += size[0]

    def _spill(self) -> None:
        """Move what is written to an unnamed temporary file, where the rest is written too."""
        import tempfile  # here: it imports shutil, random, bz2 and lzma (~4 ms of check's start-up)

        spilled = tempfile.TemporaryFile()  # noqa: SIM115  (closed by close(), after the document)
        position = self._file.tell()
        with self._file.getbuffer() as view:
            spilled.write(view)
        spilled.seek(position)
        self._file.close()
        self._file, self._spilled = spilled, True

    def write_to(self, out: TextIO) -> None:
        """The array, entries in index order, written to ``out`` in pieces of at most 1 MiB."""
        if not self._at:
            out.write("[]")
            return
        out.write("[")
        for n, index in enumerate(sorted(self._at)):
            out.write(("," if n else "") + self._indent)
            start, size = self._at[index]
            self._file.seek(start)
            decode = codecs.getincrementaldecoder("utf-8")("surrogatepass")
            while size > 0:
                data = self._file.read(min(size, _CHUNK))
                size -= len(data)
                out.write(decode.decode(data, final=size <= 0 or not data))
                if not data:
                    break
        out.write(self._close)

    def close(self) -> None:
        self._file.close()
