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
_PLAIN_NESTED = re.compile(r'[^(){}\[\]"]+')
_CLOSE = {")": "(", "}": "{", "]": "["}


def scan_value(text: str, pos: int, source: str) -> int:
    """End offset of the attribute value starting at ``pos``.

    At nesting depth 0 the value ends at whitespace, ``,`` or an unmatched closer.
    Unbalanced brackets and unterminated strings raise :class:`HloParseError` at
    the opening character.
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
            if not stack and i < n and text[i] not in "({[":
                # a closed group followed by more plain text (e.g. [2,2]<=[4]) continues the value
                m = _PLAIN_TOP.match(text, i)
                if not m:
                    return i
                i = m.end()
        elif c == '"':
            m = _STRING.match(text, i)
            if not m:
                raise HloParseError.at("unterminated string", text, i, source)
            i = m.end()
        elif not stack:
            m = _PLAIN_TOP.match(text, i)
            if not m:
                return i
            i = m.end()
        else:
            m = _PLAIN_NESTED.match(text, i)
            i = m.end() if m else i + 1
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


_KV = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,}]+)\s*,?', re.S)


def parse_key_values(raw: str) -> list[tuple[str, str]]:
    """``{a="x" b=3}`` or ``{a="x", b=3}`` -> [("a", '"x"'), ("b", "3")] (values raw)."""
    body = raw.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    out = []
    pos = 0
    while pos < len(body):
        if body[pos:].strip() == "":
            break
        m = _KV.match(body, pos)
        if not m:
            raise ValueError(f"cannot read key=value pairs at: {body[pos:pos + 40]!r}")
        out.append((m.group(1), m.group(2)))
        pos = m.end()
    return out


def parse_string_map(raw: str) -> dict[str, str]:
    """``frontend_attributes={_xla_buffer_placement="pinned_host"}`` -> dict of decoded values."""
    return {k: unquote(v) for k, v in parse_key_values(raw)}


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
