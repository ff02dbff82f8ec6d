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
from ..ir.shape import (
    COMBINE_DIMENSION,
    DIM_LEVEL_BY_ABBREV,
    UNBOUNDED_SIZE,
    DimLevel,
    Layout,
    Shape,
    SplitConfig,
    Tile,
    default_layout,
)
from .reader import _SKIP, Reader, match_end

_TYPE_OR_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ATTR_NAME = re.compile(r"SC|[DTL#*ESPM]")
_ATTR_ORDER = {"D": 0, "T": 1, "L": 2, "#": 3, "*": 4, "E": 5, "S": 6, "SC": 7, "P": 8, "M": 9}
_INT64_MAX = 2**63 - 1
_ATTR_ORDER_TEXT = "D, T, L, #, *, E, S, SC, P, M"
# Tuples nest without limit in XLA's grammar, but its recursive-descent parser dies of a
# stack overflow between 5,000 and 10,000 levels (jaxlib 0.10.2: SIGSEGV at 10,000), and
# every walk over a Shape here recurses.  Real programs nest a handful of levels.
MAX_SHAPE_DEPTH = 200

# A common array shape with a simple layout, used to find the text of a shape
# cheaply so parsed shapes can be cached by their spelling.
_FAST_ARRAY = re.compile(r"[a-z][a-z0-9]*\[[0-9,]*\](?:\{[0-9,]*(?::(?:[A-Z#*]*\([a-z0-9,:*]*\))+)?\})?")
_CACHE: dict[str, Shape] = {}
_CACHE_LIMIT = 200_000


def parse_shape(text: str, source: str = "<shape>") -> Shape:
    """Parse one shape string, e.g. ``bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}``.

    Raises :class:`~xladoctor.errors.HloParseError` (line/col into ``text``) for
    anything XLA would not accept, including trailing text.
    """
    r = Reader(text, source)
    shape = read_shape(r)
    if not r.at_end():
        raise r.error(f"unexpected {r.describe_here()} after shape")
    return shape


def read_shape(r: Reader) -> Shape:
    """Read a shape at the cursor (cached by spelling for the common array case)."""
    r.skip()
    text, pos = r.text, r.pos
    m = _FAST_ARRAY.match(text, pos)
    if m:
        end = m.end()
        j = match_end(_SKIP, text, end)
        if text[j:j + 1] != "{":
            key = m.group(0)
            shape = _CACHE.get(key)
            if shape is None:
                shape = _read_shape_slow(r)
                if r.pos != end:  # the fast pattern and the real grammar disagree: trust the grammar
                    return shape
                if len(_CACHE) < _CACHE_LIMIT:
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
        elems: list[Shape] = []
        if not r.accept(")"):
            while True:
                elems.append(read_shape(r))
                if r.accept(")"):
                    break
                r.expect(",", "or ')' in tuple shape")
        return Shape.tuple(elems)
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
    dims: list[int] = []
    dynamic: list[bool] = []
    if not r.accept("]"):
        while True:
            if r.accept("?"):
                dims.append(UNBOUNDED_SIZE)
                dynamic.append(True)
            else:
                bounded = r.accept("<=")
                here = r.pos
                d = r.expect_int("a dimension size")
                if d < 0:
                    raise r.error(f"dimension size must not be negative, got {d}", here)
                if d > _INT64_MAX:
                    raise r.error(f"dimension size {d} does not fit in int64", here)
                dims.append(d)
                dynamic.append(bounded)
            if r.accept("]"):
                break
            r.expect(",", "or ']' in dimensions")
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
            layout = _read_layout(r)
            _validate_layout(r, name, dims, dynamic, layout, save)
    if layout is None and et.is_array_type:
        layout = default_layout(len(dims))  # XLA's parser fills missing layouts the same way
    return Shape(et, tuple(dims), tuple(dynamic), (), layout)


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


def _check_tiles(r: Reader, tiles: list[Tile], pos: int) -> None:
    if not tiles[-1].dimensions:
        raise r.error("a tile must have at least one dimension", pos)


def _wrap_int64(v: int) -> int:
    """XLA reads layout integers as uint64 and stores them in int64: 2**64-1 becomes -1."""
    return v - 2**64 if v > _INT64_MAX else v


def _read_layout(r: Reader) -> Layout:
    r.expect("{")
    m2m: list[int] = []
    if r.peek() not in (":", "}"):
        while True:
            m2m.append(r.expect_int("a dimension number in minor_to_major"))
            if not r.accept(","):
                break
    fields: dict = {"minor_to_major": tuple(m2m)}
    if r.accept(":"):
        last = -1
        while r.peek() != "}":
            here = r.pos
            m = _ATTR_NAME.match(r.text, r.pos)
            if not m:
                raise r.error(f"expected a layout attribute ({_ATTR_ORDER_TEXT}) or '}}', found {r.describe_here()}")
            attr = m.group(0)
            order = _ATTR_ORDER[attr]
            if order <= last:
                raise r.error(f"layout attribute '{attr}' is out of order or repeated; XLA requires the order "
                              f"{_ATTR_ORDER_TEXT}", here)
            last = order
            r.pos = m.end()
            _read_layout_attribute(r, attr, fields, here)
    r.expect("}", "to end the layout")
    return Layout(**fields)


def _read_layout_attribute(r: Reader, attr: str, fields: dict, here: int) -> None:
    if attr == "T":
        tiles = []
        if r.peek() != "(":
            tiles.append(Tile(()))  # XLA reads a bare 'T' as one empty tile, which validation refuses
            _check_tiles(r, tiles, here)
        while r.peek() == "(":
            tile_pos = r.pos
            r.expect("(")
            dims = []
            # As XLA's tile parser: an entry that is not a number or '*', or a missing ')', ends the
            # tile list there without an error (the tile read so far is kept: 'T(8' is T(8), 'T(8,'
            # too); whatever follows must then be another layout attribute or the closing '}'.
            closed = True
            while True:
                if r.accept("*"):
                    dims.append(COMBINE_DIMENSION)
                else:
                    p = r.pos
                    d = r.accept_int()
                    if d is None:
                        closed = False
                        break
                    d = _wrap_int64(d)
                    if d <= 0 or d > _INT64_MAX:
                        raise r.error(f"tile dimensions must be positive int64 values, got {d}", p)
                    dims.append(d)
                if not r.accept(","):
                    break
            closed = closed and r.accept(")")
            tiles.append(Tile(tuple(dims)))
            _check_tiles(r, tiles, tile_pos)
            if not closed:
                break
        fields["tiles"] = tuple(tiles)
    elif attr == "SC":
        splits = []
        if r.peek() != "(":
            raise r.error("expected '(' after SC", r.pos)
        while r.peek() == "(":
            r.expect("(")
            dim = r.expect_int("a physical dimension number")
            r.expect(":", "in split config")
            idx = []
            if r.peek() != ")":
                while True:
                    idx.append(r.expect_int("a split index"))
                    if not r.accept(","):
                        break
            r.expect(")", "to close the split config")
            splits.append(SplitConfig(dim, tuple(idx)))
        fields["split_configs"] = tuple(splits)
    elif attr == "D":
        r.expect("(", "after D")
        levels = []
        while True:
            p = r.pos
            r.skip()
            c = r.text[r.pos:r.pos + 1]
            if c not in DIM_LEVEL_BY_ABBREV:
                raise r.error(f"expected a dimension level type (D, C, S or H), found {r.describe_here()}", p)
            r.pos += 1
            unique = not r.accept("+")
            ordered = not r.accept("~")
            levels.append(DimLevel(DIM_LEVEL_BY_ABBREV[c], unique, ordered))
            if not r.accept(","):
                break
        r.expect(")", "to close D(...)")
        fields["dim_levels"] = tuple(levels)
    elif attr in ("#", "*"):
        # XLA's layout parser ignores the result of each of the three steps here ('(', the
        # type, ')'), so each is optional: '*()', '*)' and a bare '*' leave the type unset
        # (printed as nothing), '*u32' reads as '*(u32)'.  A type that is not unsigned is
        # kept by the parser and refused by layout validation, which is refused here at once.
        r.accept("(")
        p = r.pos
        m = _TYPE_OR_IDENT.match(r.text, r.pos)
        if m is not None and m.group(0) in ARRAY_TYPE_NAMES:
            t = m.group(0)
            r.pos = m.end()
            if primitive_type(t).kind != "unsigned":
                which = "index" if attr == "#" else "pointer"
                raise r.error(f"{which}_primitive_type must be an unsigned integer type, found {t}", p)
            fields["index_primitive_type" if attr == "#" else "pointer_primitive_type"] = t
        r.accept(")")
    elif attr == "P":
        r.expect("(", "after P")
        fields["physical_shape"] = read_shape(r)
        r.expect(")", "to close P(...)")
    else:
        # XLA reads 'S', 'S(' and 'S(}' as no value at all (the attribute is dropped), and does
        # not insist on the ')' after a value ('E(4}' reads as E(4)).
        if not r.accept("("):
            return
        p = r.pos
        v = r.accept_int()
        if v is None:
            if r.peek() == ")":  # but 'S()' is refused there ("expects integer")
                raise r.error(f"expected an integer in {attr}(...), found ')'", p)
            return
        r.accept(")")
        v = _wrap_int64(v)
        if attr == "L":
            if v <= 0:
                raise r.error(f"L(n) tail padding alignment must be positive, got {v}", p)
            fields["tail_padding_alignment_in_elements"] = v
        elif attr == "E":
            if v < 0:
                raise r.error(f"E(n) element size in bits must not be negative, got {v}", p)
            fields["element_size_in_bits"] = v
        elif attr == "S":
            # XLA's Layout keeps the memory space in an int8_t: S(261) is S(5), S(191) is S(-65).
            fields["memory_space"] = (v + 128) % 256 - 128
        elif attr == "M":
            if v < 0:
                raise r.error(f"M(n) metadata prefix bytes must not be negative, got {v}", p)
            fields["dynamic_shape_metadata_prefix_bytes"] = v


def _validate_layout(r: Reader, type_name: str, dims: list[int], dynamic: list[bool], layout: Layout,
                     pos: int) -> None:
    """XLA's checks, with XLA's wording (hlo_parser.cc, layout_util.cc ValidateLayoutForShape)."""
    rank = len(dims)
    m2m = layout.minor_to_major
    shape_text = str(Shape(primitive_type(type_name), tuple(dims), tuple(dynamic), (), layout))
    if len(m2m) != rank:
        raise r.error(f"Dimensions size is {rank}, but minor to major size is {len(m2m)}.", pos)
    seen = set()
    joined = ", ".join(str(d) for d in m2m)
    for d in m2m:
        if not 0 <= d < rank:
            raise r.error(f"layout minor_to_major field has out-of-bounds value: {{{joined}}}; shape: {shape_text}", pos)
        if d in seen:
            raise r.error(f"layout minor_to_major field has duplicate values: {{{joined}}}; shape: {shape_text}", pos)
        seen.add(d)
    if layout.dim_levels and len(layout.dim_levels) != rank:
        raise r.error(f"layout dim_level_types field contains {len(layout.dim_levels)} elements, but shape is "
                      f"rank {rank}; shape: {shape_text}", pos)
    if layout.physical_shape is not None and not layout.is_sparse:
        raise r.error(f"Layout has physical shape, but is not for a sparse array: {layout}", pos)
    for sc in layout.split_configs:
        if not 0 <= sc.dimension < rank:
            raise r.error(f"split config dimension {sc.dimension} is out of range for rank {rank}: {shape_text}", pos)
        size = dims[m2m[rank - 1 - sc.dimension]]
        if any(not 0 < i < size for i in sc.split_indices) or list(sc.split_indices) != sorted(set(sc.split_indices)):
            raise r.error(f"split indices {list(sc.split_indices)} must be increasing and inside physical dimension "
                          f"{sc.dimension} (size {size}): {shape_text}", pos)
