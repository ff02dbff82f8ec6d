"""Scanning and decoding HLO attribute values (``name=value`` after an instruction's operands).

Values are first captured as raw text by :func:`scan_value`, which respects nested
``{}``/``()``/``[]`` and quoted strings with escapes, so any attribute XLA prints
(``backend_config={"a":[1]}``, ``window={size=3x3 pad=1_1x1_1}``,
``replica_groups=[2,2]<=[4]``, ``dim_labels=b01f_01io->b01f``) is kept verbatim for
printing.  The handful of attributes analyses need are then decoded by the
functions below.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..base.errors import HloParseError
from ..base.lazy_pattern import LazyPattern
from .hlo_lexicon import number_token_end
from .reader import GAP, match_end

_PLAIN_TOP = re.compile(r'[^(){}\[\]",\s]+')
_PLAIN_NESTED = re.compile(r'[^(){}\[\]"\'/]+')
_SPACES = re.compile(r"\s+")
_CLOSE = {")": "(", "}": "{", "]": "["}
_NUMBER_START = frozenset("0123456789-?")


def scan_value(text: str, pos: int, source: str) -> int:
    """End offset of the attribute value starting at ``pos``.

    At nesting depth 0 the value ends at ``,``, an unmatched closer, or whitespace
    that is not followed by ``{`` (sharding-style values such as
    ``replica_groups=mesh['x'=2] {'x'}`` continue after a space).  Inside brackets,
    single-quoted mesh axis names are skipped as strings.  Unbalanced brackets and
    unterminated strings raise :class:`HloParseError` at the opening character.
    """
    stack: list[tuple[str, int]] = []
    i, n = pos, len(text)
    while i < n:
        c = text[i]
        if c in "({[":
            stack.append((c, i))
            i += 1
        elif c in ")}]":
            if not stack:
                return i
            opener, where = stack.pop()
            if opener != _CLOSE[c]:
                raise HloParseError.at(f"'{c}' does not match '{opener}' opened here", text, where, source)
            i += 1
            if not stack and where == pos and c == "}":
                return i  # XLA parses a '{...}' value to its closing brace: 'metadata={...}p.4 = ...' ends there
        elif c == '"':
            if not stack and i > pos:
                return i  # XLA's lexer ends the token before a quote: 'ent="x"' is not one value
            i = scan_string(text, i, source)
            if not stack:
                return i  # a string value is the whole value ('"x"9' is not one value in XLA)
        elif stack:
            if c == "'":
                end = _closing_quote(text, i, "'")
                i = i + 1 if end < 0 else end + 1
                continue
            if text.startswith(("//", "/*"), i):
                i = _comment_end(text, i, source)  # XLA's lexer skips comments inside brackets too
                continue
            m = _PLAIN_NESTED.match(text, i)
            i = m.end() if m else i + 1
        elif c.isspace():
            j = match_end(_SPACES, text, i)
            if j < n and text[j] == "{" and i > pos and text[i - 1] in "]}":
                i = j  # "mesh[...] {...}": one value with a space inside
                continue
            return i
        else:
            i, ends = _plain_top_end(text, i, pos)
            if ends:
                return i
    if stack:
        opener, where = stack[-1]
        raise HloParseError.at(f"unbalanced '{opener}': no matching closer before end of input", text, where, source)
    return i


def _plain_top_end(text: str, i: int, pos: int) -> tuple[int, bool]:
    """Where a run of plain characters outside brackets stops, and whether the value ends there."""
    if i == pos and text[i] in _NUMBER_START:
        end = number_token_end(text, i)
        if end > i:
            return end, True  # XLA's lexer ends a number there: '0dd.7' is 0, then the next token
    m = _PLAIN_TOP.match(text, i)
    if not m:
        return i, True
    comment = text.find("/", i, m.end())
    while comment >= 0 and text[comment + 1:comment + 2] not in ("/", "*"):
        comment = text.find("/", comment + 1, m.end())
    if comment >= 0:
        return comment, True  # a comment ends the value, as it ends any token in XLA's lexer
    return m.end(), False


def _comment_end(text: str, i: int, source: str) -> int:
    """Where the ``//`` (to the end of the line) or ``/* */`` comment at ``i`` ends."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    end = text.find("*/", i + 2)
    if end < 0:
        raise HloParseError.at("unterminated '/*' comment", text, i, source)
    return end + 2


def _closing_quote(text: str, i: int, q: str) -> int:
    """Offset of the quote closing the string opened at ``text[i]``, or -1.

    Found with ``str.find`` (no regex: a regex alternation per character needed
    ~120 bytes of backtracking state per byte, 1.2 GB for a 10 MB string); a quote
    preceded by an odd number of backslashes is escaped.
    """
    j = i
    while True:
        j = text.find(q, j + 1)
        if j < 0:
            return -1
        k = j
        while text[k - 1] == "\\":
            k -= 1
        if (j - k) % 2 == 0:
            return j


_PLAIN_STRING = re.compile(r'"[^"\\]*"')


def scan_string(text: str, i: int, source: str) -> int:
    """End offset of the ``"..."`` string at ``text[i]``; its escapes are checked as XLA's lexer does."""
    m = _PLAIN_STRING.match(text, i)
    if m is not None:
        return m.end()  # the common case: no escapes (one character class: linear time and memory)
    j = _closing_quote(text, i, '"')
    if j < 0:
        raise HloParseError.at("unterminated string", text, i, source)
    if text.find("\\", i, j) >= 0:
        bad = _bad_escape(text, i + 1, j)
        if bad is not None:
            pos, why = bad
            raise HloParseError.at(f"cannot unescape string: {why}", text, pos, source)
    return j + 1


# absl::CUnescape, which XLA's lexer applies to every string literal.
_ESCAPE = LazyPattern(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]*)|u([0-9a-fA-F]{0,4})|U([0-9a-fA-F]{0,8})|(.))", re.S)
_SIMPLE_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, "?": 63, "'": 39, '"': 34}


def _escape_value(m: re.Match[str]) -> tuple[bytes | None, str]:
    """The bytes one escape stands for, or None and why it is refused (absl's rules)."""
    octal, hexa, u4, u8, other = m.groups()
    if octal is not None:
        v = int(octal, 8)
        return (bytes([v]), "") if v <= 0xFF else (None, f"value of \\{octal} exceeds 0xff")
    if hexa is not None:
        if not hexa:
            return None, "\\x with no following hex digits"
        v = int(hexa[:9], 16) if len(hexa) <= 8 else 1 << 40
        return (bytes([v]), "") if v <= 0xFF else (None, f"value of \\x{hexa[:10]} exceeds 0xff")
    for digits, n in ((u4, 4), (u8, 8)):
        if digits is not None:
            if len(digits) != n:
                return None, f"\\{'u' if n == 4 else 'U'} must be followed by {n} hex digits"
            v = int(digits, 16)
            if v > 0x10FFFF or 0xD800 <= v <= 0xDFFF:
                return None, f"value of \\{'u' if n == 4 else 'U'}{digits} is not a Unicode scalar value"
            return chr(v).encode("utf-8"), ""
    code = _SIMPLE_ESCAPES.get(other)
    if code is None:
        return None, f"unknown escape sequence \\{other!r}"[:60]
    return bytes([code]), ""


def _bad_escape(text: str, start: int, end: int) -> tuple[int, str] | None:
    pos = text.find("\\", start, end)
    while pos >= 0:
        m = _ESCAPE.match(text, pos, end)
        if m is None:  # a backslash right before the closing quote cannot happen (it would escape it)
            return pos, "trailing backslash"
        value, why = _escape_value(m)
        if value is None:
            return pos, why
        pos = text.find("\\", m.end(), end)
    return None


def unquote(s: str) -> str:
    """Decode an HLO string literal as XLA does (absl::CUnescape, then the bytes as UTF-8).

    ``"\\347\\224\\250"`` is the UTF-8 of one character; bytes that are not
    UTF-8 are shown as U+FFFD.  Escapes XLA would refuse are kept as written.
    """
    if len(s) >= 2 and s[0] == '"' and s[-1] == '"':
        s = s[1:-1]
    if "\\" not in s:
        return s
    out = bytearray()
    pos = 0
    for m in _ESCAPE.finditer(s):
        out += s[pos:m.start()].encode("utf-8", "surrogatepass")
        value, _ = _escape_value(m)
        out += value if value is not None else m.group(0).encode("utf-8", "surrogatepass")
        pos = m.end()
    out += s[pos:].encode("utf-8", "surrogatepass")
    return out.decode("utf-8", "replace")


_CESCAPE_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "'": "\\'", "\\": "\\\\"}
_NEEDS_CESCAPE = re.compile(r'[^\x20-\x7e]|["\'\\]')


def quote(s: str) -> str:
    """Encode a string as XLA's printer does (absl::CEscape: octal for every byte outside printable ASCII)."""
    if not _NEEDS_CESCAPE.search(s):
        return '"' + s + '"'
    out = []
    for ch in s:
        named = _CESCAPE_NAMED.get(ch)
        if named is not None:
            out.append(named)
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.extend(f"\\{b:03o}" for b in ch.encode("utf-8", "surrogatepass"))
    return '"' + "".join(out) + '"'


_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_SEP = re.compile(r"[\s,]*")
_ONE_COMMA = re.compile(r"\s*,?\s*")


def parse_key_values(raw: str, sub_attributes: bool = False) -> list[tuple[str, str]]:
    """``{a="x" b=3 c={k = v}}`` (space- or comma-separated) -> [("a", '"x"'), ("b", "3"), ("c", "{k = v}")].

    Values stay raw: quoted strings keep their quotes, brace groups their braces.
    ``sub_attributes`` applies the separator rule of XLA's ``ParseSubAttributes`` (``metadata``):
    one optional comma before each pair, so no trailing comma (XLA: "expects attribute name")
    and no two commas in a row.
    """
    body = raw.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    out = []
    sep = _ONE_COMMA if sub_attributes else _SEP
    pos = match_end(sep, body, 0)
    if sub_attributes and pos >= len(body) and body.strip():
        raise ValueError("expects attribute name after ',' (XLA refuses a comma with no attribute)")
    while pos < len(body):
        m = _KEY.match(body, pos)
        if not m:
            raise ValueError(f"cannot read key=value pairs at: {body[pos:pos + 40]!r}")
        key = m.group(0)
        eq = _SEP_EQ.match(body, m.end())
        pos = eq.end() if eq else -1
        if pos < 0:
            raise ValueError(f"expected '=' after {key!r} at: {body[m.end():m.end() + 40]!r}")
        try:
            end = scan_value(body, pos, "<attribute>")
        except HloParseError as e:
            raise ValueError(e.message) from None
        if end == pos:
            raise ValueError(f"missing value for {key!r}")
        out.append((key, body[pos:end]))
        pos = match_end(sep, body, end)
        if sub_attributes and pos >= len(body) and "," in body[end:]:
            raise ValueError("expects attribute name after ',' (XLA refuses a trailing comma)")
    return out


# XLA's lexer reads 'key=' as one token: nothing may come between a key and its '='.
_SEP_EQ = re.compile(r"=\s*")


def parse_string_map(raw: str) -> dict[str, str]:
    """``frontend_attributes={_xla_buffer_placement="pinned_host"}`` -> dict of decoded values.

    Read as XLA's ParseFrontendAttributes reads it: ``{}``, or ``key=value`` pairs with one comma
    between each (no space-only separator, no trailing or doubled comma), each value a string
    (decoded here) or a ``{...}`` dict (``xla.sdy.meshes={mesh = #sdy.mesh<[]>}``, kept as
    written).  ``ValueError`` otherwise, worded as XLA's "expects '}' at the end of frontend
    attributes" where XLA's loop stops.
    """
    body = raw.strip()
    if not (body.startswith("{") and body.endswith("}")):
        raise ValueError("expected '{' to start frontend attributes")
    body = body[1:-1]
    out: dict[str, str] = {}
    pos = match_end(GAP, body, 0)
    if pos >= len(body):
        return out
    while True:
        m = _KEY.match(body, pos)
        eq = _SEP_EQ.match(body, m.end()) if m else None
        if m is None or eq is None:
            raise ValueError(f"expects attribute name=, found {body[pos:pos + 40]!r}")
        pos = eq.end()
        if not body.startswith(('"', "{"), pos):
            raise ValueError(f"expects string or JSON dict as frontend attribute value, found {body[pos:pos + 40]!r}")
        try:
            end = scan_value(body, pos, "<attribute>")
        except HloParseError as e:
            raise ValueError(e.message) from None
        value = body[pos:end]
        out[m.group(0)] = unquote(value) if value.startswith('"') else value
        pos = match_end(GAP, body, end)
        if pos >= len(body):
            return out
        if not body.startswith(",", pos):
            raise ValueError(f"expects '}}' at the end of frontend attributes, found {body[pos:pos + 40]!r}")
        pos = match_end(GAP, body, pos + 1)


def format_string_map(values: Mapping[str, str]) -> str:
    return "{" + ",".join(f"{k}={quote(v)}" for k, v in values.items()) + "}"


_INT_LIST = re.compile(r"-?\d+")


def parse_shape_index(raw: str) -> tuple[int, ...]:
    """``{1,0}`` -> (1, 0); ``{}`` -> ()."""
    return tuple(int(x) for x in _INT_LIST.findall(raw))


_ALIAS_ENTRY = LazyPattern(r"\{([\d,\s]*)\}\s*:\s*\(\s*(\d+)\s*,\s*\{([\d,\s]*)\}\s*(?:,\s*([A-Za-z\-]+)\s*)?\)")


def parse_aliasing(raw: str) -> list[tuple[tuple[int, ...], int, tuple[int, ...], str | None]]:
    """``{ {0}: (1, {}, may-alias), {}: (0, {1}) }`` -> [(out_index, param, param_index, kind)]."""
    return [(parse_shape_index(m.group(1)), int(m.group(2)), parse_shape_index(m.group(3)), m.group(4))
            for m in _ALIAS_ENTRY.finditer(raw)]


_DONOR = LazyPattern(r"\(\s*(\d+)\s*,\s*\{([\d,\s]*)\}\s*\)")


def parse_buffer_donors(raw: str) -> list[tuple[int, tuple[int, ...]]]:
    """``{ (0, {}), (1, {0}) }`` -> [(param, index)]."""
    return [(int(m.group(1)), parse_shape_index(m.group(2))) for m in _DONOR.finditer(raw)]


# One name token as XLA's ParseName takes it: '%name', or a bare name with an optional glued ':'
# (the label token).  '%name:' is '%name' then ':', which no list takes.  A name never starts
# with a digit: there XLA's lexer reads a number ('1comp' is 1, then 'comp').
_NAME_TOKEN = re.compile(r"%([A-Za-z_][A-Za-z0-9_.\-]*)(:?)|([A-Za-z_][A-Za-z0-9_.\-]*):?")


def parse_name_list(raw: str, braced: bool = False, empty: bool = True) -> list[str]:
    """``%a``, ``a:`` or ``{%a, b:}`` -> the names, read token by token as XLA's parser does.

    ``braced``: a list in braces is required (``branch_computations``, ``control-predecessors``);
    otherwise one name is, or a braced list where the caller allows one.  ``empty``: whether ``{}``
    is allowed (XLA's ParseInstructionNames wants at least one name).  ``ValueError`` otherwise,
    worded as XLA's "expects name", naming what stands there.
    """
    if not raw.startswith("{"):
        if braced:
            raise ValueError(f"expects a list starting with '{{', found {raw[:40]!r}")
        return [_name_token(raw, 0, len(raw))[0]]
    names: list[str] = []
    pos = match_end(GAP, raw, 1)
    if raw.startswith("}", pos) and empty:
        return names
    while True:
        name, pos = _name_token(raw, pos, None)
        names.append(name)
        pos = match_end(GAP, raw, pos)
        if raw.startswith(",", pos):
            pos = match_end(GAP, raw, pos + 1)
            continue
        if pos != len(raw) - 1:
            raise ValueError(f"expects ',' or '}}' in a name list, found {raw[pos:pos + 40]!r}")
        return names


def _name_token(raw: str, pos: int, end: int | None) -> tuple[str, int]:
    """The name token at ``raw[pos]`` and where it ends (which must be ``end`` when given)."""
    m = _NAME_TOKEN.match(raw, pos)
    if m is not None and m.group(2):
        raise ValueError(f"expected a name, found ':' after {m.group(0)[:-1]!r} ('name:' is a name, '%name:' is not)")
    if m is None or (end is not None and m.end() != end):
        what = raw[pos:pos + 40] if m is None else raw[m.end():m.end() + 40]
        raise ValueError(f"expects name, found {what!r} (a name starts with a letter or '_'; "
                         "XLA reads a leading digit as a number)")
    return m.group(1) or m.group(3), m.end()
