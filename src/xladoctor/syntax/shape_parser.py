"""Parser for XLA's shape and layout notation (``hlo_parser.cc`` ParseShape/ParseLayout).

Grammar (layouts.md §2)::

    shape   ::= '(' [shape {',' shape}] ')' | 'b' '(' shape ')' | type '[' [dim {',' dim}] ']' [layout]
    dim     ::= int | '<=' int | '?'
    layout  ::= '{' [int {',' int}] [':' attrs] '}'     -- only if '{' is followed by an int or ':'
    attrs   ::= [D(..)] [T(..)(..)..] [L(n)] [#(t)] [*(t)] [E(n)] [S(n)] [SC(d:i,..)..] [P(shape)] [M(n)]

Attributes must come in that fixed order, as in XLA.  Layouts are validated the
way ``LayoutUtil::ValidateLayoutForShape`` does, with its wording, plus the checks
XLA performs with a CHECK crash (``L(0)``, empty or zero tiles), turned into
ordinary errors here.

An array shape written without a layout gets XLA's default (row-major) layout, as
XLA's parser does; computation signatures, which XLA prints without layouts, are
printed with :meth:`Shape.human_string`.  ``D(...)`` is parsed and kept on
:class:`Layout`, but jaxlib (0.10.2) drops it when printing, so ``str`` omits it too.
"""

from __future__ import annotations

import re

from ..ir.primitive import ARRAY_TYPE_NAMES, primitive_type
from ..ir.shape import UNBOUNDED_SIZE, Shape, default_layout
from .layout_parser import read_layout, validate_layout
from .layout_warnings import LayoutWarning, collecting, located, tuple_entered, tuple_left, warned
from .reader import GAP, Reader, match_end

_TYPE_OR_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT64_MAX = 2**63 - 1
# Tuples nest without limit in XLA's grammar, but its recursive-descent parser dies of a
# stack overflow between 5,000 and 10,000 levels (jaxlib 0.10.2: SIGSEGV at 10,000), and
# every walk over a Shape here recurses.  Real programs nest a handful of levels.
MAX_SHAPE_DEPTH = 200

# A common array shape with a simple layout, used to find the text of a shape
# cheaply so parsed shapes can be cached by their spelling.
_FAST_ARRAY = re.compile(r"[a-z][a-z0-9]*\[[0-9,]*\](?:\{[0-9,]*(?::(?:[A-Z#*]*\([a-z0-9,:*]*\))+)?\})?")
# A '{' after a shape that cannot open a layout (the body of a computation after '-> f32[8]'):
# the shape ends before it, so the spelling can be cached.
_NOT_A_LAYOUT = re.compile(r"\{[ \t\r\n]*[^:\-0-9/ \t\r\n]")
_CACHE: dict[str, Shape] = {}
# Real modules repeat a few hundred spellings, so a small cache keeps every hit; it is emptied
# when full rather than left to grow, because the process may be long-lived (a Dask worker, a
# notebook, the fuzz campaign's workers, which hit their 256 MB cap after ~180k distinct inputs
# when this held 200,000 entries).
_CACHE_LIMIT = 4096


def parse_shape(text: object, source: str = "<shape>") -> Shape:
    """Parse one shape string, e.g. ``bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}``.

    Raises :class:`~xladoctor.base.errors.HloParseError` (line/col into ``text``) for
    anything XLA would not accept, including trailing text, and a TypeError naming what to pass
    for what is not a ``str``: ``text`` is declared ``object`` so that the compiled core lets it
    in and the refusal is worded here in both builds (as :func:`~.hlo_parser.parse_module`'s).
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_shape() takes the shape as str, not {type(text).__name__}")
    r = Reader(text, source)
    shape = read_shape(r)
    if not r.at_end():
        raise r.error(f"unexpected {r.describe_here()} after shape")
    return shape


def parse_shape_warned(text: str, source: str = "<shape>") -> tuple[Shape, tuple[LayoutWarning, ...]]:
    """One shape string as jaxlib's ``ParseShape`` reads it: a top-level array whose layout XLA's
    shape validation refuses (``f32[2,3]{0,0}``, ``T(0)``) is kept, read with the default layout,
    and each such layout returned as a warning (``role`` ``signature``: nothing validates it); in a
    tuple it is refused, as jaxlib refuses it.  ``xladoctor shape`` reads its argument here, so it
    accepts what ``hlo`` and ``offload`` accept in a module, with the same warning."""
    with collecting() as collector:
        shape = parse_shape(text, source)
    return shape, located(collector, text)


def read_shape(r: Reader) -> Shape:
    """Read a shape at the cursor (cached by spelling for the common array case)."""
    r.skip()
    text, pos = r.text, r.pos
    m = _FAST_ARRAY.match(text, pos)
    if m:
        end = m.end()
        j = match_end(GAP, text, end)
        if text[j:j + 1] != "{" or _NOT_A_LAYOUT.match(text, j):
            key = m.group(0)
            shape = _CACHE.get(key)
            if shape is None:
                before = warned()
                shape = _read_shape_slow(r)
                if r.pos != end or warned() != before:  # the fast pattern and the grammar disagree (trust the
                    return shape  # grammar), or a warned layout: it warns, or is refused, at every read
                if len(_CACHE) >= _CACHE_LIMIT:
                    _CACHE.clear()
                _CACHE[key] = shape
            r.pos = end
            return shape
    return _read_shape_slow(r)


def _read_shape_slow(r: Reader) -> Shape:
    r.skip()
    if r.depth >= MAX_SHAPE_DEPTH:
        raise r.error(f"shape nested more than {MAX_SHAPE_DEPTH} levels deep: xladoctor's limit (XLA's "
                      "recursive parser has none and overflows its stack a few thousand levels down)")
    r.depth += 1
    try:
        return _read_shape_nested(r)
    finally:
        r.depth -= 1


def _read_shape_nested(r: Reader) -> Shape:
    start = r.pos
    if r.accept("("):
        tuple_entered()  # XLA validates a tuple's element layouts: refused there, never a warning
        try:
            return Shape.tuple(read_shape_list(r, "tuple shape"))  # no extra frame per nesting level
        finally:
            tuple_left()
    m = _TYPE_OR_IDENT.match(r.text, r.pos)
    if not m:
        raise r.error(f"expected a shape, found {r.describe_here()}")
    name = m.group(0)
    r.pos = m.end()
    if name == "b" and r.peek() == "(":
        r.expect("(")
        inner = read_shape(r)
        if not inner.is_array:
            raise r.error(f"a b(...) buffer must wrap an array shape, not {inner}", start)
        r.expect(")", "to close b(...)")
        return Shape.buffer(inner)
    if name not in ARRAY_TYPE_NAMES:
        raise r.error(f"unknown primitive type '{name}'", start)
    et = primitive_type(name)
    r.expect("[", f"after element type '{name}'")
    dims, dynamic = _read_dimensions(r)
    if not et.is_array_type and dims:
        raise r.error(f"{name} shapes have no dimensions", start)
    if len(dims) > 1 or (dims and dims[0] > _INT64_MAX // 16):
        _check_dense_size(r, et.byte_width or 0, dims, dynamic, name, start)
    layout = None
    if r.peek() == "{":
        save = r.pos
        r.pos += 1
        c = r.peek()
        r.pos = save
        if c == ":" or c.isdigit() or c == "-":
            before = warned()
            layout = read_layout(r)
            validate_layout(r, name, dims, dynamic, layout, save)
            if warned() != before:  # a layout XLA's validation refuses, kept by jaxlib's parser: a
                layout = None  # warning (layout_warnings.py), and the default layout for the analyses
    if layout is None and et.is_array_type:
        layout = default_layout(len(dims))  # XLA's parser fills missing layouts the same way
    return Shape(et, tuple(dims), tuple(dynamic), (), layout)


def read_shape_list(r: Reader, what: str) -> list[Shape]:
    """Shapes separated by ',' up to the ')' (after the '('): a tuple's elements, a program's parameters."""
    shapes: list[Shape] = []
    if not r.accept(")"):
        while True:
            shapes.append(read_shape(r))
            if r.accept(")"):
                break
            r.expect(",", f"or ')' in {what}")
    return shapes


_LEADING_ZEROS = re.compile(r"0+(?=[0-9])")


def _read_dimensions(r: Reader) -> tuple[list[int], list[bool]]:
    """``[8,<=4,?]`` after its '[': sizes (``?`` is unbounded) and which are dynamic."""
    dims: list[int] = []
    dynamic: list[bool] = []
    if r.accept("]"):
        return dims, dynamic
    while True:
        if r.accept("?"):
            dims.append(UNBOUNDED_SIZE)
            dynamic.append(True)
        else:
            bounded = r.accept("<=")
            r.skip()
            here = r.pos
            zeros = _LEADING_ZEROS.match(r.text, r.pos)
            if zeros is not None:
                r.pos = zeros.end()  # XLA reads a size with SimpleAtoi: leading zeros of any number are taken
            d = r.expect_int("a dimension size")
            if d < 0:
                raise r.error(f"dimension size must not be negative, got {d}", here)
            if d > _INT64_MAX:
                raise r.error(f"dimension size {d} does not fit in int64", here)
            dims.append(d)
            dynamic.append(bounded)
        if r.accept("]"):
            return dims, dynamic
        r.expect(",", "or ']' in dimensions")


def _check_dense_size(r: Reader, width: int, dims: list[int], dynamic: list[bool], name: str, start: int) -> None:
    """XLA's ShapeUtil::ValidateShapeSize: the dense byte size must fit in int64."""
    size = width
    for d in dims:
        if d == UNBOUNDED_SIZE:
            continue
        size *= d
        if size > _INT64_MAX:
            text = str(Shape(primitive_type(name), tuple(dims), tuple(dynamic), (), None))
            raise r.error(f"Shape {text} size may overflow int64.", start)
