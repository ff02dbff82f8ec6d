"""Text wider than UTF-8 (UTF-16/32 with a byte-order mark): told from its first bytes and read
as UTF-8, in blocks.  Windows PowerShell 5's ``>`` writes UTF-16-LE; XLA's parser reads UTF-8, so a
module so written is refused (:func:`wide_text_error`) and a log transcoded (:class:`Transcoded`).
"""

from __future__ import annotations

import io

from .errors import InputError

TYPE_CHECKING = False  # not typing's (start-up)
if TYPE_CHECKING:
    from typing import Any, BinaryIO

_BLOCK = 1 << 20
"""Bytes read from the wide stream per refill."""


WIDE_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32-LE"), (b"\x00\x00\xfe\xff", "UTF-32-BE"),
             (b"\xff\xfe", "UTF-16-LE"), (b"\xfe\xff", "UTF-16-BE"))
"""Byte-order marks of text wider than UTF-8, longest first (UTF-32-LE's starts as UTF-16-LE's).
Windows PowerShell 5's ``>`` and ``Out-File`` write UTF-16-LE with its mark: a log captured there
read as UTF-8 bytes showed no message at all, and ``check`` called it clean."""


WIDE_SNIFF = 4096
"""The bytes :func:`wide_encoding` wants to see (fewer at a short input's end)."""


def wide_encoding(head: bytes | bytearray) -> str | None:
    """The encoding whose byte-order mark starts ``head`` (``UTF-16-LE``, ...), else None.

    The mark alone is not enough: a log may begin with the bytes FF FE and go on as UTF-8 (binary
    garbage, then messages).  So the bytes after it (the first :data:`WIDE_SNIFF`) must hold a NUL
    (the high byte of every ASCII character in UTF-16) or not read as UTF-8.  And FF FE 00 00 is
    also UTF-16-LE's mark before a NUL character: UTF-32 only where the bytes after it read as
    UTF-32 (a UTF-16 character pair is a code point past U+10FFFF as one UTF-32 unit)."""
    import codecs

    for bom, encoding in WIDE_BOMS:
        if head.startswith(bom):
            rest = bytes(head[len(bom):WIDE_SNIFF])
            if encoding.startswith("UTF-32") and not _reads_as(rest[:len(rest) & ~3], encoding):
                continue  # UTF-16-LE's mark, then a NUL (the fuzzing campaign's find, stop 46)
            if b"\x00" in rest:
                return encoding
            try:
                codecs.getincrementaldecoder("utf-8")().decode(rest, final=False)  # a cut last character is fine
            except UnicodeDecodeError:
                return encoding
            return None
    return None


def _reads_as(data: bytes, encoding: str) -> bool:
    """Whether ``data`` decodes strictly as ``encoding``."""
    try:
        data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def wide_text_error(encoding: str, name: str) -> InputError:
    """An HLO module in UTF-16/32: XLA's parser reads UTF-8 (``hlo``, ``offload`` and ``check`` all say so)."""
    return InputError(f"{encoding} text (byte-order mark); HLO text is read as UTF-8, as XLA reads it: "
                      f"convert it first (iconv -f {encoding} -t UTF-8)", name, 1, 1)


class Transcoded(io.RawIOBase):
    """A UTF-16/32 stream (its byte-order mark in ``head``) read as UTF-8 bytes, in blocks: a log is
    scanned as it would be in UTF-8, same lines, never held whole.  Undecodable units become U+FFFD."""

    def __init__(self, head: bytes, rest: BinaryIO, encoding: str):
        import codecs

        self._rest = rest
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        self._out = bytearray(self._decoder.decode(head[len(_bom_of(encoding)):]).encode("utf-8", "surrogatepass"))
        self._ended = False

    def readable(self) -> bool:
        return True

    def readinto(self, view: Any) -> int:
        while not self._out and not self._ended:
            raw = self._rest.read(_BLOCK) or b""
            self._ended = not raw
            self._out += self._decoder.decode(raw, final=self._ended).encode("utf-8", "surrogatepass")
        n = min(len(view), len(self._out))
        view[:n] = self._out[:n]
        del self._out[:n]
        return n


def _bom_of(encoding: str) -> bytes:
    return next(bom for bom, name in WIDE_BOMS if name == encoding)
