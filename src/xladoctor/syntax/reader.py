"""A cursor over source text, shared by the shape and HLO parsers.

Positions are integer offsets; line and column are computed only when an error
is raised (see :meth:`xladoctor.base.errors.InputError.at`).  Whitespace and XLA's
comments (``/* ... */`` and ``// ...``) are insignificant between tokens, which is
why the printer's ``/*index=5*/`` annotations read back harmlessly.
"""

from __future__ import annotations

import re

from ..base.errors import HloParseError

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

    from mypy_extensions import i64  # a native int once compiled (no tag checks per character); never imported to run

# What XLA's lexer skips between tokens: white space and comments.
GAP = re.compile(r"(?:\s+|/\*.*?\*/|//[^\n]*)*", re.S)
_COMPILED: Final = not __file__.endswith(".py")
"""Whether this module runs compiled: :meth:`Reader.skip` then reads white space by :func:`gap_end`."""


def match_end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where ``pattern`` stops matching at ``pos``: for patterns that match the empty string, or
    that are only tried where they are known to match, so ``match`` cannot return ``None``."""
    m = pattern.match(text, pos)
    assert m is not None, (pattern.pattern, pos)
    return m.end()


def gap_end(text: str, pos: i64) -> i64:
    """``match_end(GAP, text, pos)`` with a run of ASCII white space read a character at a time.

    Why: the full reader skips the gap before each computation and each body's closing brace
    (``\\n\\n``, ``\\n``: three a computation), and the regex's call, match object and repeat
    machinery were ~3,000 instructions a gap, ~3% of the compiled ``offload`` on ``jax_entry`` 100k
    (~90M; issue 36 item 4).  Compiled this loop is native (``ord(text[i])`` on ``i64``).  The
    regex takes over where the run stops at anything but a plain token character: a comment
    (``/``), a control or non-ASCII character (``\\s`` is Unicode's white space) -- a gap from there
    is what the rest of the regex's match would have been, as its first iteration's ``\\s+`` takes
    the whole run.  Interpreted, the regex alone is faster (``_COMPILED`` picks, in :meth:`Reader.skip`)."""
    n: i64 = len(text)
    i = pos
    while i < n:
        c: i64 = ord(text[i])
        if c == 32 or 9 <= c <= 13:  # ' ', \t \n \v \f \r
            i += 1
        elif 33 <= c <= 126 and c != 47:  # a token's first character (not '/'): the gap ends here
            return i
        else:
            return match_end(GAP, text, i)
    return i


_SKIP_START = frozenset(" \t\r\n\f\v/")
_INT = re.compile(r"-?[0-9]+")
# An identifier token of XLA's lexer (a bare name, an opcode, a primitive type's name).
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
# XLA's lexer: a name is [a-zA-Z_][a-zA-Z0-9_.-]* with an optional '%' ('$' is not allowed).
_NAME = re.compile(r"%?([A-Za-z_][A-Za-z0-9_.\-]*)")
_TOKEN = re.compile(r"[A-Za-z0-9_.\-%]+|.", re.S)
# XLA lexes integers as 64-bit values (int64, or uint64 for large positives); longer
# digit strings are refused before int() sees them (int() of > 4300 digits raises).
_INT_MAX_DIGITS = 20
INT64_MIN, UINT64_MAX = -(2**63), 2**64 - 1
TOKEN_SHOWN = 40


def lex_int64(raw: str) -> int | None:
    """``raw`` read as XLA's lexer reads an integer token, or None where it is not one.

    XLA's lexer takes int64, then uint64 (bit-cast to int64: 2**64-1 is -1); anything longer
    is a lexer error.  Python's ``int()`` would also take '+1', '1_0' and any length.
    """
    m = _INT.fullmatch(raw)
    if m is None or len(raw) - (raw[0] == "-") > _INT_MAX_DIGITS:
        return None
    value = int(raw)
    if not INT64_MIN <= value <= UINT64_MAX:
        return None
    return value - 2**64 if value >= 2**63 else value


def show_token(tok: str, limit: int = TOKEN_SHOWN) -> str:
    """``repr`` of a token from the input, cut to ``limit`` characters (a 50 MB name stays one short line)."""
    if len(tok) <= limit:
        return repr(tok)
    return repr(tok[:limit]) + f"... ({len(tok):,} characters)"


class Reader:
    """Text plus an offset; every ``expect_*`` failure raises :class:`HloParseError` here."""

    __slots__ = ("text", "pos", "source", "depth")

    def __init__(self, text: str, source: str = "<input>", pos: int = 0):
        self.text = text
        self.source = source
        self.pos = pos
        self.depth = 0
        """Nesting of shapes being read (tuples, ``b(...)``, ``P(...)``), bounded by MAX_SHAPE_DEPTH."""

    # -- errors ------------------------------------------------------------------
    def error(self, message: str, pos: int | None = None) -> HloParseError:
        return HloParseError.at(message, self.text, self.pos if pos is None else pos, self.source)

    def describe_here(self) -> str:
        """What the text holds at the cursor, for 'expected X, found Y' messages."""
        if self.pos >= len(self.text):
            return "end of input"
        m = _TOKEN.match(self.text, self.pos)
        tok = m.group(0) if m else self.text[self.pos]
        return show_token(tok)

    # -- whitespace and single characters ------------------------------------------
    def skip(self) -> None:
        pos = self.pos
        c = self.text[pos:pos + 1]
        if c and c not in _SKIP_START:
            return  # the common case: already at a token
        self.pos = gap_end(self.text, pos) if _COMPILED else match_end(GAP, self.text, pos)

    def peek(self) -> str:
        """Next significant character ('' at end), after skipping whitespace/comments."""
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def at_end(self) -> bool:
        return self.peek() == ""

    def accept(self, s: str) -> bool:
        """Consume ``s`` if it comes next; report whether it did."""
        self.skip()
        if self.text.startswith(s, self.pos):
            self.pos += len(s)
            return True
        return False

    def expect(self, s: str, context: str = "") -> None:
        if not self.accept(s):
            where = f" {context}" if context else ""
            raise self.error(f"expected '{s}'{where}, found {self.describe_here()}")

    # -- tokens ------------------------------------------------------------------
    def accept_int(self) -> int | None:
        self.skip()
        m = _INT.match(self.text, self.pos)
        if not m:
            return None
        digits = m.end() - m.start() - (self.text[m.start()] == "-")
        if digits > _INT_MAX_DIGITS:
            raise self.error(f"integer {show_token(m.group(0))} does not fit in 64 bits", m.start())
        value = int(m.group(0))
        if not INT64_MIN <= value <= UINT64_MAX:
            raise self.error(f"integer {value} does not fit in 64 bits", m.start())
        self.pos = m.end()
        return value

    def expect_int(self, what: str = "an integer") -> int:
        v = self.accept_int()
        if v is None:
            raise self.error(f"expected {what}, found {self.describe_here()}")
        return v

    def accept_ident(self) -> str | None:
        self.skip()
        m = IDENT.match(self.text, self.pos)
        if not m:
            return None
        self.pos = m.end()
        return m.group(0)

    def accept_name(self) -> str | None:
        """An HLO name, with or without its ``%`` prefix (returned without it).

        As XLA's ``ParseName``, a bare name glued to a ``:`` (``x:``, the lexer's
        label token) is the same name and the ``:`` is consumed; ``%x:`` is the name
        ``x`` followed by a separate ``:`` token, so that ``:`` stays.
        """
        self.skip()
        m = _NAME.match(self.text, self.pos)
        if not m:
            return None
        end = m.end()
        if self.text.startswith(":", end) and m.start(1) == m.start():
            end += 1
        self.pos = end
        return m.group(1)

    def expect_name(self, what: str = "a name") -> str:
        v = self.accept_name()
        if v is None:
            raise self.error(f"expected {what}, found {self.describe_here()}")
        return v
