"""Constant literals checked as XLA's parser reads them (``ParseLiteral``, ``ParseDenseLiteral``).

xladoctor keeps a constant's literal as text; this module only decides whether
XLA would take it, with XLA's message:

* structure: a tuple shape takes ``(lit, lit, ...)``, one per element; an array
  of rank 0 one value, of rank n values nested n braces deep with exactly the
  dimension's count at each level (``{...}`` stands for a whole first level);
* values: ``true``/``false`` only for ``pred``; integers (XLA's lexer: int64,
  else uint64 wrapped) for integral types, in the type's range (an unsigned type
  compares the value as uint64, so ``u64 -1`` is 2**64-1; ``pred`` takes any);
  decimals for floating types, finite in a double, and after rounding to the
  type within its finite range; ``nan(0x..)`` payloads within the type's
  mantissa; complex values as ``(re, im)`` with each part in range.
"""

from __future__ import annotations

import math
import re

from ..ir.shape import Shape
from .reader import lex_int64

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import NoReturn

_TOKEN = re.compile(r"""\s*(?:
    (?P<comment>/\*.*?\*/|//[^\n]*) | (?P<punct>[{}(),]) | (?P<dots>\.\.\.) |
    (?P<num>-?(?:nan(?:\(0x[0-9a-fA-F]+\))?|inf|(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?
             |[0-9]+[eE][-+]?[0-9]+|[0-9]+))(?![A-Za-z0-9_.]) |
    (?P<word>[A-Za-z_][A-Za-z0-9_]*) | (?P<other>\S))""", re.X)

_SCALARS_TAKEN: set[tuple[str, str]] = set()  # scalar literals already checked: a dump repeats constant(0)
_SCALAR = re.compile(r"\s*(-?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|true|false)\s*")

# Floating types: (largest finite value, mantissa bits, NaN payload bits; 0 = no payloads).
_FLOATS: dict[str, tuple[float, int, int]] = {
    "f16": (65504.0, 10, 10), "bf16": (3.3895313892515355e38, 7, 7), "f32": (3.4028234663852886e38, 23, 23),
    "f64": (1.7976931348623157e308, 52, 52), "f8e5m2": (57344.0, 2, 2), "f8e4m3": (240.0, 3, 3),
    "f8e3m4": (15.5, 4, 4), "f8e4m3fn": (448.0, 3, 0), "f8e4m3b11fnuz": (30.0, 3, 0),
    "f8e4m3fnuz": (240.0, 3, 0), "f8e5m2fnuz": (57344.0, 2, 0), "f8e8m0fnu": (2.0**127, 0, 0),
    "f4e2m1fn": (6.0, 1, 0), "f6e3m2fn": (28.0, 2, 0), "f6e2m3fn": (7.5, 3, 0),
}
_COMPLEX_PART = {"c64": "f32", "c128": "f64"}


class LiteralError(ValueError):
    """XLA's message for a literal it refuses, and the offset in the literal text where it stands."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


def check_literal(text: str, shape: Shape) -> None:
    """Raise :class:`LiteralError` where XLA's parser refuses ``text`` as a literal of ``shape``."""
    element_type = shape.element_type
    if not shape.dimensions and element_type.bits is not None:  # ``is_array``, no property call (a constant each)
        key = (text, element_type.name)
        if key in _SCALARS_TAKEN:
            return
        m = _SCALAR.fullmatch(text)
        if m is not None:  # the usual constant(0): one value, no tokens to walk
            _value(m.group(1), m.start(1), shape)
            if len(_SCALARS_TAKEN) >= 4096:
                _SCALARS_TAKEN.clear()
            _SCALARS_TAKEN.add(key)
            return
    tokens = [(m.lastgroup or "", m.group(m.lastgroup or 0), m.start(m.lastgroup or 0))
              for m in _TOKEN.finditer(text) if m.lastgroup and m.lastgroup != "comment"]
    at = _literal(tokens, 0, shape, len(text))
    if at < len(tokens):
        raise LiteralError("expects ')' after the literal", tokens[at][2])


def _literal(tokens: list[tuple[str, str, int]], at: int, shape: Shape, end: int) -> int:
    if shape.is_tuple:
        return _tuple(tokens, at, shape, end)
    if not shape.is_array or shape.element_type.name in ("token", "opaque"):
        raise LiteralError(f"a constant of shape {shape.human_string()} has no literal", 0)
    return _dense(tokens, at, shape, end)


def _tuple(tokens: list[tuple[str, str, int]], at: int, shape: Shape, end: int) -> int:
    at = _expect(tokens, at, "(", "expects '(' in front of tuple elements", end)
    if _peek(tokens, at) != ")":
        for i, element in enumerate(shape.tuple_shapes):
            if i:
                at = _expect(tokens, at, ",", "expects ',' to separate tuple elements", end)
            at = _literal(tokens, at, element, end)
    n = len(shape.tuple_shapes)
    return _expect(tokens, at, ")", f"expects ')' at the end of the tuple with {n}elements", end)


def _peek(tokens: list[tuple[str, str, int]], at: int) -> str | None:
    return tokens[at][1] if at < len(tokens) else None


def _expect(tokens: list[tuple[str, str, int]], at: int, want: str, message: str, end: int) -> int:
    if _peek(tokens, at) != want:
        raise LiteralError(message, tokens[at][2] if at < len(tokens) else end)
    return at + 1


def _dense(tokens: list[tuple[str, str, int]], at: int, shape: Shape, end: int) -> int:
    """``ParseDenseLiteral``: one pass over braces, commas and values, counting per dimension.

    A value at the wrong depth or one too many on the minor-most dimension is an error XLA records
    and reads on past (``add_one_elem_seen``'s result is dropped): the literal is refused only if a
    later check fails, with the first message; so ``f32[10] constant(1)`` is taken."""
    dims, rank = shape.dimensions, shape.rank
    state = _Dense(dims, shape)
    level = 0
    while True:
        if at >= len(tokens):
            state.fail("unexpected end of the literal", end)
        kind, tok, pos = tokens[at]
        if tok == "{":
            level += 1
            if level > rank:
                state.fail(f"expects nested array in rank {rank}, but sees larger", pos)
            if level > 1:
                state.seen[level - 2] += 1
                if state.seen[level - 2] > dims[level - 2]:
                    state.fail(f"expects {dims[level - 2]} elements in the {state.index(level - 2)}th "
                               "element, but sees more", pos)
        elif tok == "}":
            if level == 0:
                state.fail("unexpected '}' token", pos)
            level -= 1
            if state.seen[level] != dims[level]:
                state.fail(f"expects {dims[level]} elements in the {state.index(level)}th element, "
                           f"but sees {state.seen[level]}", pos)
            state.seen[level] = 0
        elif kind == "dots":
            if level != 1:
                state.fail(f"expects `...` at nest level 1, but sees it at nest level {level}", pos)
            state.seen[0] = dims[0]
        elif tok == "(":
            state.count(level, pos)
            at = _complex(tokens, at, shape, end)
            state.store(pos)
            if level == 0:
                return at
            continue
        elif tok != ",":
            if kind not in ("num", "word") or (kind == "word" and tok not in ("true", "false")):
                state.fail("unexpected token type in a literal", pos)
            state.count(level, pos)
            _value(tok, pos, shape)
            state.store(pos)
        at += 1
        if level == 0:
            return at


class _Dense:
    """What ``ParseDenseLiteral`` counts: sub-arrays seen per dimension, the linear index, and
    the first error it recorded and read past."""

    def __init__(self, dims: tuple[int, ...], shape: Shape):
        self.dims, self.shape = dims, shape
        self.seen = [0] * len(dims)
        self.linear = 0
        self.elements = math.prod(dims)
        self.first: LiteralError | None = None

    def fail(self, message: str, pos: int) -> NoReturn:
        raise self.first or LiteralError(message, pos)

    def index(self, dim: int) -> str:
        return "[" + ",".join(str(n - 1) for n in self.seen[:dim]) + "]"

    def count(self, level: int, pos: int) -> None:
        rank = len(self.dims)
        if rank == 0:
            return
        if level != rank:
            self.first = self.first or LiteralError(f"expects nested array in rank {rank}, but sees {level}", pos)
            return
        self.seen[rank - 1] += 1
        if self.seen[rank - 1] > self.dims[rank - 1]:
            self.first = self.first or LiteralError(
                f"expects {self.dims[rank - 1]} elements on the minor-most dimension, but sees more", pos)

    def store(self, pos: int) -> None:
        if self.linear >= self.elements:
            self.fail(f"tries to set a value to a literal in shape {self.shape.human_string()} at linear index "
                      f"{self.linear}, but the index is out of range", pos)
        self.linear += 1


def _complex(tokens: list[tuple[str, str, int]], at: int, shape: Shape, end: int) -> int:
    """``(re, im)`` for a complex type."""
    name = shape.element_type.name
    pos = tokens[at][2]
    if name not in _COMPLEX_PART:
        raise LiteralError("unexpected '(' in literal. Parens are only valid for complex literals", pos)
    parts = []
    at += 1
    for i in range(2):
        if i:
            at = _expect(tokens, at, ",", "expects ',' in a complex literal", end)
        if at >= len(tokens) or tokens[at][0] != "num":
            raise LiteralError("expects decimal or integer", tokens[at][2] if at < len(tokens) else end)
        parts.append(_double(tokens[at][1], tokens[at][2]))
        at += 1
    at = _expect(tokens, at, ")", "expects ')' at the end of a complex literal", end)
    top = _FLOATS[_COMPLEX_PART[name]][0]
    for label, v in zip(("real", "imaginary"), parts):
        if math.isfinite(v) and not -top <= v <= top:
            raise LiteralError(f"{label} part {v:g} is out of range for literal's primitive type "
                               f"{name.upper()}, namely [{-top:g}, {top:g}].", pos)
    return at


def _double(tok: str, pos: int) -> float:
    """``ParseDouble``: a decimal that overflows a double is refused; an integer token is an int64."""
    if "nan" in tok:
        return math.copysign(math.nan, -1.0 if tok.startswith("-") else 1.0)
    if "inf" in tok:
        return -math.inf if tok.startswith("-") else math.inf
    if re.fullmatch(r"-?[0-9]+", tok):
        as_int = lex_int64(tok)
        if as_int is None:
            raise LiteralError("expects decimal or integer", pos)
        return float(as_int)
    value = float(tok)
    if math.isinf(value):
        raise LiteralError("Constant is out of range for double (+/-1.79769e+308) and so is unparsable.", pos)
    return value


def _value(tok: str, pos: int, shape: Shape) -> None:
    t = shape.element_type
    if tok in ("true", "false"):
        if t.name != "pred":
            raise LiteralError(f"true/false is a {t.name} value only for pred (XLA's parser dies on it)", pos)
        return
    if t.kind in ("signed", "unsigned", "pred"):
        value = lex_int64(tok)
        if value is None:
            raise LiteralError(f"expects integer for primitive type: {t.name.upper()}", pos)
        _check_int(value, t.name, t.kind, t.bits or 0, pos)
        return
    if t.kind == "float":
        _check_float(tok, _double(tok, pos), t.name, shape, pos)
        return
    raise LiteralError(f"unsupported primitive type {t.name.upper()}", pos)


def _check_int(value: int, name: str, kind: str, bits: int, pos: int) -> None:
    if kind == "pred":
        return
    if kind == "unsigned":
        top = 2**bits - 1
        if value % 2**64 > top:
            raise LiteralError(f"value {value} is out of range for literal's primitive type {name.upper()} "
                               f"namely [0, {top}].", pos)
        return
    low, top = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    if not low <= value <= top:
        raise LiteralError(f"value {value} is out of range for literal's primitive type {name.upper()} namely "
                           f"[{low}, {top}].", pos)


def _check_float(tok: str, value: float, name: str, shape: Shape, pos: int) -> None:
    """Out of range once rounded to the type (round to nearest: up to max + half an ulp rounds to max)."""
    top, mantissa, payload_bits = _FLOATS.get(name, (math.inf, 0, 0))
    if math.isnan(value):
        m = re.search(r"\(0x([0-9a-fA-F]+)\)", tok)
        if m is not None:
            payload = int(m.group(1), 16)
            where = f"to a literal in shape {shape.human_string()} at linear index 0"
            if payload_bits == 0 and payload != 2**51:
                raise LiteralError(f"tries to set NaN payload 0x{payload:x} {where}, but {name} does not support "
                                   "payloads", pos)
            if payload_bits and payload != 2**51 and payload > 2**payload_bits - 1:
                raise LiteralError(f"tries to set NaN payload 0x{payload:x} {where}, but the NaN payload is out "
                                   f"of range (0x{2 ** payload_bits - 1:x})", pos)
        return
    if not math.isfinite(value) or name == "f64":
        return
    half_ulp = 2.0 ** (math.frexp(top)[1] - 1 - mantissa) / 2
    if abs(value) >= top + half_ulp:
        raise LiteralError(f"value {value:g} is out of range for literal's primitive type {name.upper()} namely "
                           f"[{-top:g}, {top:g}].", pos)
