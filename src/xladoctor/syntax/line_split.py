"""jax's usual instruction line split by string operations, without the regex (the compiled core).

:data:`.instruction_line._LINE`, one regular expression, reads every line the fast path takes; in
the compiled core its match was ~18% of ``offload``'s instructions on ``jax_entry`` 100k (issue 36,
branch h50c): the regex engine steps through each character of the line, attributes included.
Most lines have one narrow form, ``  [ROOT ]name = HEAD(a, b), attrs`` or ``HEAD(0)``, with a HEAD
(shape and opcode) spelled on a line before.  :func:`split_line` finds its pieces with
``str.find`` (C scans) and checks the names a character at a time (``ord(text[i])``: a native loop
once compiled), and gives the groups and positions the regex gives, or None for any other form
(the regex then reads it, as before).  Pure Python keeps the regex alone: a loop per character is
slower interpreted (``COMPILED`` picks, in :func:`.instruction_line.read_fast`).
tests/test_line_split.py compares the two on every line of the corpora and on edge cases.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from mypy_extensions import i64  # a native int once compiled (no tag checks per character); never imported to run

    Split: TypeAlias = tuple[Any, Any, Any, Any, Any, Any, Any, Any, int, int]
    """The regex's groups (ROOT, %, name, head, operand names, None, other operand text, attributes: ``str``
    or None, typed as ``Match.groups()`` gives them), the instruction's start (ROOT's or the name's) and
    the match's end."""


def _name_end(text: str, i: i64, stop: i64) -> i64:
    """Where the name (``[A-Za-z_][A-Za-z0-9_.\\-]*``, the regex's) starting at ``text[i]`` ends, before
    ``stop``; ``i`` where none starts there."""
    if i >= stop:
        return i
    c: i64 = ord(text[i])
    if not (97 <= c <= 122 or 65 <= c <= 90 or c == 95):
        return i
    i += 1
    while i < stop:
        c = ord(text[i])
        if 97 <= c <= 122 or 48 <= c <= 57 or 65 <= c <= 90 or c == 95 or c == 46 or c == 45:
            i += 1
        else:
            return i
    return i


def _names_listed(text: str, start: i64, stop: i64) -> bool:
    """Whether ``text[start:stop]`` is names joined by ``', '`` (the regex's group 5, to the end)."""
    i = start
    while True:
        end = _name_end(text, i, stop)
        if end == i:
            return False
        if end == stop:
            return True
        if ord(text[end]) != 44 or ord(text[end + 1]) != 32:  # ', ' (text[stop] is ')': both are there)
            return False
        i = end + 2


def _line_continues(text: str, eol: i64) -> bool:
    """Whether the text after the newline at ``eol`` goes on with ``,`` or a comment (the regex's
    negative lookahead: ``[ \\t\\r\\n]*`` then ``,`` or ``/``)."""
    n: i64 = len(text)
    j = eol + 1
    while j < n:
        c: i64 = ord(text[j])
        if c == 32 or c == 9 or c == 10 or c == 13:
            j += 1
        else:
            return c == 44 or c == 47
    return False


def _head_end(text: str, start: i64, eol: i64) -> i64:
    """The ``(`` after the shape and opcode at ``text[start:]``, or -1: a tuple shape's own ``)`` is
    the first (no element spelling holds a parenthesis), an array's shape holds none."""
    if ord(text[start]) == 40:  # '('
        close: i64 = text.find(")", start, eol)
        if close < 0:
            return -1
        start = close
    return text.find("(", start, eol)


def split_line(text: str, pos: int, heads: dict[str, Any]) -> Split | None:
    """The regex's reading of the line at ``pos``, where the line has the narrow form and its head is
    in ``heads`` (only heads the regex matched are: its group 4 matches such a spelling wherever it
    stands); None otherwise.  Each piece is the regex's because each repeat of the regex stops where
    this stops: every one before the attributes is possessive or ends at a character it cannot hold."""
    n: i64 = len(text)
    i: i64 = pos
    while i < n:
        c: i64 = ord(text[i])
        if c == 32 or c == 10 or c == 9 or c == 13:
            i += 1
        else:
            break
    start, root = i, None
    if i + 4 < n and ord(text[i]) == 82 and text[i:i + 4] == "ROOT" and (ord(text[i + 4]) == 32 or ord(text[i + 4]) == 9):
        j = i + 5
        while j < n and (ord(text[j]) == 32 or ord(text[j]) == 9):
            j += 1
        root, i = text[i:j], j
    percent = "%" if i < n and ord(text[i]) == 37 else ""
    i += len(percent)
    eol: i64 = text.find("\n", i)
    name_end = _name_end(text, i, eol if eol >= 0 else 0)
    head_start = name_end + 3
    if name_end == i or head_start >= eol or ord(text[name_end]) != 32 or ord(text[name_end + 1]) != 61 \
            or ord(text[name_end + 2]) != 32:  # ' = ' (the name ends before the newline: all three are there)
        return None
    opening = _head_end(text, head_start, eol)
    if opening < 0:
        return None
    head = text[head_start:opening]
    close: i64 = text.find(")", opening, eol)
    if close < 0 or head not in heads:
        return None
    inside: str | None = text[opening + 1:close]
    plain = None
    if inside and not inside.isdigit():  # names (group 5), or what the regex reads
        if not _names_listed(text, opening + 1, close):
            return None
        plain, inside = inside, None
    after = close + 1
    if after == eol:
        attributes = ""
    elif ord(text[after]) == 44 and eol - after >= 2 and 32 < ord(text[eol - 1]) < 127:
        attributes = text[after:eol]  # ', ...' up to its last character, which is no white space
    else:
        return None
    if _line_continues(text, eol):
        return None
    return root, percent, text[i:name_end], head, plain, None, inside, attributes, start, after + len(attributes)


def call_span(text: str, start: i64, end: i64, roles: frozenset[str]) -> tuple[int, int, int] | None:
    """The first ``, role=name`` of ``text[start:end]`` as the regex :data:`.instruction_line._CALL`
    finds it (``roles``: its alternatives, spelled in ``[a-z_]``): the role's start, the name's start and
    end; None where there is none.  Each ``=`` is a candidate (``str.find``, a C scan), tried from the
    left: the role is the run of ``[a-z_]`` before it (a longer run holds no role the regex could
    start after a ``,`` and blanks), then blanks and a ``,`` before that, then a name whose end is the
    text's or blanks and a ``,`` (the regex's lookahead).  The regex's engine tried each role at each
    ``,`` (~1,800 instructions a search on ``jax_entry``'s attribute texts; issue 36, branch h51c)."""
    eq: i64 = text.find("=", start, end)
    while eq >= 0:
        r = eq
        while r > start:
            c: i64 = ord(text[r - 1])
            if 97 <= c <= 122 or c == 95:
                r -= 1
            else:
                break
        j = r
        while j > start and (ord(text[j - 1]) == 32 or ord(text[j - 1]) == 9):
            j -= 1
        if j > start and ord(text[j - 1]) == 44 and r < eq and text[r:eq] in roles:
            vs: i64 = eq + 1
            ve = _name_end(text, vs, end)
            if ve > vs:
                k = ve
                while k < end and (ord(text[k]) == 32 or ord(text[k]) == 9):
                    k += 1
                if ve == end or (k < end and ord(text[k]) == 44):
                    return r, vs, ve
        eq = text.find("=", eq + 1, end)
    return None


def split_names(plain: str) -> list[str]:
    """``plain.split(", ")``, natively: the operand names of a line (str.split is no primitive of
    mypyc's, so the method call went through Python's protocol: ~1,000 instructions a line)."""
    out: list[str] = []
    i: i64 = 0
    j: i64 = plain.find(", ")
    while j >= 0:
        out.append(plain[i:j])
        i = j + 2
        j = plain.find(", ", i)
    out.append(plain[i:])
    return out


def _literal_char(c: i64) -> bool:
    """``[-+0-9A-Za-z_.{]``: a character a scalar literal's text may start with (after blanks)."""
    return 97 <= c <= 122 or 48 <= c <= 57 or 65 <= c <= 90 or c == 95 or c == 46 or c == 45 or c == 43 or c == 123


def scalar_literal_form(inside: str) -> bool:
    """``_SCALAR_LITERAL.fullmatch(inside)`` of :mod:`.instruction_line` (``[ \\t]*[-+0-9A-Za-z_.{]``
    then ``[-+0-9A-Za-z_.{}, \\t]*``), natively: the regex was a method call a constant line.  The
    blanks before the first character are all of them (that character is no blank)."""
    n: i64 = len(inside)
    i: i64 = 0
    while i < n and (ord(inside[i]) == 32 or ord(inside[i]) == 9):
        i += 1
    if i == n or not _literal_char(ord(inside[i])):
        return False
    i += 1
    while i < n:
        c: i64 = ord(inside[i])
        if not (_literal_char(c) or c == 125 or c == 44 or c == 32 or c == 9):
            return False
        i += 1
    return True
