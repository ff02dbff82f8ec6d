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

from ..errors import HloParseError

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_PLAIN_TOP = re.compile(r'[^(){}\[\]",\s]+')
_PLAIN_NESTED = re.compile(r'[^(){}\[\]"\']+')
_SQ_STRING = re.compile(r"'(?:[^'\\]|\\.)*'")
_SPACES = re.compile(r"\s+")
_CLOSE = {")": "(", "}": "{", "]": "["}


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
        elif c == '"':
            m = _STRING.match(text, i)
            if not m:
                raise HloParseError.at("unterminated string", text, i, source)
            i = m.end()
        elif stack:
            if c == "'":
                m = _SQ_STRING.match(text, i)
                i = m.end() if m else i + 1
                continue
            m = _PLAIN_NESTED.match(text, i)
            i = m.end() if m else i + 1
        elif c.isspace():
            j = _SPACES.match(text, i).end()
            if j < n and text[j] == "{" and i > pos and text[i - 1] in "]}":
                i = j  # "mesh[...] {...}": one value with a space inside
                continue
            return i
        else:
            m = _PLAIN_TOP.match(text, i)
            if not m:
                return i
            i = m.end()
    if stack:
        opener, where = stack[-1]
        raise HloParseError.at(f"unbalanced '{opener}': no matching closer before end of input", text, where, source)
    return i


def unquote(s: str) -> str:
    """Decode an HLO string literal (C-style escapes) to its value."""
    if len(s) >= 2 and s[0] == '"' and s[-1] == '"':
        s = s[1:-1]
    if "\\" not in s:
        return s
    out = []
    i = 0
    escapes = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "0": "\0"}
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            nxt = s[i + 1]
            if nxt == "x" and re.match(r"[0-9a-fA-F]{2}", s[i + 2:i + 4]):
                out.append(chr(int(s[i + 2:i + 4], 16)))
                i += 4
                continue
            out.append(escapes.get(nxt, nxt))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def quote(s: str) -> str:
    """Encode a string as XLA's printer does (CEscape)."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_SEP = re.compile(r"[\s,]*")


def parse_key_values(raw: str) -> list[tuple[str, str]]:
    """``{a="x" b=3 c={k = v}}`` (space- or comma-separated) -> [("a", '"x"'), ("b", "3"), ("c", "{k = v}")].

    Values stay raw: quoted strings keep their quotes, brace groups their braces.
    """
    body = raw.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    out = []
    pos = _SEP.match(body, 0).end()
    while pos < len(body):
        m = _KEY.match(body, pos)
        if not m:
            raise ValueError(f"cannot read key=value pairs at: {body[pos:pos + 40]!r}")
        key = m.group(0)
        pos = _SEP_EQ.match(body, m.end()).end() if _SEP_EQ.match(body, m.end()) else -1
        if pos < 0:
            raise ValueError(f"expected '=' after {key!r} at: {body[m.end():m.end() + 40]!r}")
        try:
            end = scan_value(body, pos, "<attribute>")
        except HloParseError as e:
            raise ValueError(e.message) from None
        if end == pos:
            raise ValueError(f"missing value for {key!r}")
        out.append((key, body[pos:end]))
        pos = _SEP.match(body, end).end()
    return out


_SEP_EQ = re.compile(r"\s*=\s*")


def parse_string_map(raw: str) -> dict[str, str]:
    """``frontend_attributes={_xla_buffer_placement="pinned_host"}`` -> dict of decoded values.

    Quoted values are decoded; unquoted ones (``xla.sdy.meshes={mesh = #sdy.mesh<[]>}``)
    are kept as written.
    """
    return {k: unquote(v) if v.startswith('"') else v for k, v in parse_key_values(raw)}


def format_string_map(values: dict[str, str]) -> str:
    return "{" + ",".join(f"{k}={quote(v)}" for k, v in values.items()) + "}"


_INT_LIST = re.compile(r"-?\d+")


def parse_shape_index(raw: str) -> tuple[int, ...]:
    """``{1,0}`` -> (1, 0); ``{}`` -> ()."""
    return tuple(int(x) for x in _INT_LIST.findall(raw))


_ALIAS_ENTRY = re.compile(r"\{([\d,\s]*)\}\s*:\s*\(\s*(\d+)\s*,\s*\{([\d,\s]*)\}\s*(?:,\s*([A-Za-z\-]+)\s*)?\)")


def parse_aliasing(raw: str) -> list[tuple[tuple[int, ...], int, tuple[int, ...], str | None]]:
    """``{ {0}: (1, {}, may-alias), {}: (0, {1}) }`` -> [(out_index, param, param_index, kind)]."""
    return [(parse_shape_index(m.group(1)), int(m.group(2)), parse_shape_index(m.group(3)), m.group(4))
            for m in _ALIAS_ENTRY.finditer(raw)]


_DONOR = re.compile(r"\(\s*(\d+)\s*,\s*\{([\d,\s]*)\}\s*\)")


def parse_buffer_donors(raw: str) -> list[tuple[int, tuple[int, ...]]]:
    """``{ (0, {}), (1, {0}) }`` -> [(param, index)]."""
    return [(int(m.group(1)), parse_shape_index(m.group(2))) for m in _DONOR.finditer(raw)]


_NAMES = re.compile(r"%?([A-Za-z_$][A-Za-z0-9_.\-$]*)")


def parse_name_list(raw: str) -> list[str]:
    """``%a`` or ``{%a, %b}`` -> ["a", "b"]."""
    return _NAMES.findall(raw)
