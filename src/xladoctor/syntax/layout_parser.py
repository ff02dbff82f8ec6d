"""XLA's layout notation after a shape's dimensions: ``{minor_to_major:attributes}`` (hlo_parser.cc ParseLayout).

Attributes come in XLA's fixed order (``D, T, L, #, *, E, S, SC, P, M``), each read by
one function below with XLA's tolerance (its tile and integer readers stop quietly where
XLA's stop) and XLA's refusals; :func:`validate_layout` then applies
``LayoutUtil::ValidateLayoutForShape`` with its wording, plus the checks XLA makes with a
CHECK crash (``L(0)``, empty or zero tiles), turned into ordinary errors here.
"""

from __future__ import annotations

import re

from ..ir.primitive import ARRAY_TYPE_NAMES, primitive_type
from ..ir.shape import COMBINE_DIMENSION, DIM_LEVEL_BY_ABBREV, DimLevel, Layout, Shape, SplitConfig, Tile
from .layout_warnings import refuse_or_warn
from .reader import Reader, show_token

TYPE_CHECKING = False  # not typing's: `xladoctor shape` imports this module
if TYPE_CHECKING:
    from collections.abc import Callable

_TYPE_OR_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# XLA's lexer reads a whole identifier ([A-Za-z_][A-Za-z0-9_.-]*, with a ':' or '=' glued on: a
# label or attribute-name token) before ParseLayout compares it with 'T', 'E', 'SC'...: 'ES(5)',
# 'T8' or 'E:' is one token that names no attribute.  '#' and '*' are tokens of their own.
_ATTR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*[:=]?|[#*]")
_ATTR_ORDER = {"D": 0, "T": 1, "L": 2, "#": 3, "*": 4, "E": 5, "S": 6, "SC": 7, "P": 8, "M": 9}
_INT64_MAX = 2**63 - 1
_ATTR_ORDER_TEXT = "D, T, L, #, *, E, S, SC, P, M"


def _check_tiles(r: Reader, tiles: list[Tile], pos: int) -> None:
    if not tiles[-1].dimensions:
        refuse_or_warn(r, "tile", "a tile must have at least one dimension", pos)


def _wrap_int64(v: int) -> int:
    """XLA reads layout integers as uint64 and stores them in int64: 2**64-1 becomes -1."""
    return v - 2**64 if v > _INT64_MAX else v


def read_layout(r: Reader) -> Layout:
    """The ``{...}`` layout at the cursor, attributes in XLA's order."""
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
            order = _ATTR_ORDER.get(attr)
            if order is None:
                raise r.error(f"expected a layout attribute ({_ATTR_ORDER_TEXT}) or '}}', found {show_token(attr)}")
            if order <= last:
                raise r.error(f"layout attribute '{attr}' is out of order or repeated; XLA requires the order "
                              f"{_ATTR_ORDER_TEXT}", here)
            last = order
            r.pos = m.end()
            _READERS.get(attr, _read_int_attribute)(r, attr, fields, here)
    r.expect("}", "to end the layout")
    return Layout(**fields)


def _read_tiles(r: Reader, attr: str, fields: dict, here: int) -> None:
    """``T(8,128)(2,1)``: tiles, with XLA's quiet stop at an entry that is not a number."""
    tiles = []
    if r.peek() != "(":
        tiles.append(Tile(()))  # XLA reads a bare 'T' as one empty tile, which validation refuses
        _check_tiles(r, tiles, here)
    while r.peek() == "(":
        tile_pos = r.pos
        r.expect("(")
        if r.accept(")"):  # 'T()': an empty tile, which validation refuses (a warning at the top level)
            tiles.append(Tile(()))
            _check_tiles(r, tiles, tile_pos)
            continue
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
                    refuse_or_warn(r, "tile", f"tile dimensions must be positive int64 values, got {d}", p)
                dims.append(d)
            if not r.accept(","):
                break
        closed = closed and r.accept(")")
        tiles.append(Tile(tuple(dims)))
        _check_tiles(r, tiles, tile_pos)
        if not closed:
            break
    fields["tiles"] = tuple(tiles)


def _read_split_configs(r: Reader, attr: str, fields: dict, here: int) -> None:
    """``SC(0:4,8)(1:2)``: split configs (physical dimension, split indices).

    ParseLayout ignores ParseSplitConfigs' result, so each step stops quietly where it fails,
    keeping what it read: a bare ``SC`` and ``SC(}`` add nothing, ``SC(0}`` is ``SC(0:)``,
    ``SC(0:4,}`` is ``SC(0:4)``; whatever follows must then be another attribute or '}'.
    """
    splits: list[SplitConfig] = []
    while r.accept("("):
        dim = r.accept_int()
        if dim is None:
            break
        idx: list[int] = []
        closed = _read_split_indices(r, idx)
        splits.append(SplitConfig(_wrap_int64(dim), tuple(idx)))  # kept, closed or not, as XLA keeps it
        if not closed:
            break
    fields["split_configs"] = tuple(splits)


def _read_split_indices(r: Reader, idx: list[int]) -> bool:
    """XLA's ``ParseList(':', ')', ',')`` of split indices into ``idx``; False where a step failed."""
    if not r.accept(":"):
        return False
    if r.accept(")"):
        return True
    while True:
        i = r.accept_int()
        if i is None:
            return False
        idx.append(_wrap_int64(i))
        if not r.accept(","):
            return r.accept(")")


def _read_dim_levels(r: Reader, attr: str, fields: dict, here: int) -> None:
    """``D(D,C+,S~)``: dimension level types of a sparse layout."""
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


def _read_index_type(r: Reader, attr: str, fields: dict, here: int) -> None:
    """``#(u32)`` and ``*(u64)``: index and pointer types, every step optional as in XLA."""
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
            refuse_or_warn(r, "index-type", f"{which}_primitive_type must be an unsigned integer type, found {t}", p)
        fields["index_primitive_type" if attr == "#" else "pointer_primitive_type"] = t
    r.accept(")")


_P_EXTRA_DEPTH = 1


def _read_physical_shape(r: Reader, attr: str, fields: dict, here: int) -> None:
    """``P(shape)``: the physical shape of a sparse layout (a whole shape, read by the shape reader)."""
    from .shape_parser import MAX_SHAPE_DEPTH
    from .shape_parser import read_shape as _read_shape  # the shape reader imports this module

    r.expect("(", "after P")
    # A P(...) level costs the recursive reader five Python frames (shape, layout, P, shape ...)
    # where a tuple level costs three, so it counts twice against MAX_SHAPE_DEPTH: 196 P levels
    # then stop here with a message instead of a RecursionError (issue 23 item 4).
    if r.depth + _P_EXTRA_DEPTH >= MAX_SHAPE_DEPTH:
        raise r.error(f"shape nested more than {MAX_SHAPE_DEPTH} levels deep, a layout physical shape P(...) "
                      f"counting {_P_EXTRA_DEPTH + 1}: xladoctor's limit (XLA's recursive parser has none)", here)
    r.depth += _P_EXTRA_DEPTH
    try:
        fields["physical_shape"] = _read_shape(r)
    finally:
        r.depth -= _P_EXTRA_DEPTH
    r.expect(")", "to close P(...)")


def _read_int_attribute(r: Reader, attr: str, fields: dict, here: int) -> None:
    """``L(n)``, ``E(n)``, ``S(n)``, ``M(n)``: one integer each, read as XLA reads them."""
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
            refuse_or_warn(r, "element-size", f"E(n) element size in bits must not be negative, got {v}", p)
        fields["element_size_in_bits"] = v
    elif attr == "S":
        # XLA's Layout keeps the memory space in an int8_t: S(261) is S(5), S(191) is S(-65).
        fields["memory_space"] = (v + 128) % 256 - 128
    elif attr == "M":
        if v < 0:
            refuse_or_warn(r, "metadata-prefix", f"M(n) metadata prefix bytes must not be negative, got {v}", p)
        fields["dynamic_shape_metadata_prefix_bytes"] = v


_READERS: dict[str, Callable[[Reader, str, dict, int], None]] = {
    "T": _read_tiles, "SC": _read_split_configs, "D": _read_dim_levels, "#": _read_index_type,
    "*": _read_index_type, "P": _read_physical_shape}


def validate_layout(r: Reader, type_name: str, dims: list[int], dynamic: list[bool], layout: Layout,
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
            return refuse_or_warn(r, "minor-to-major", f"layout minor_to_major field has out-of-bounds value: "
                                  f"{{{joined}}}; shape: {shape_text}", pos)
        if d in seen:
            return refuse_or_warn(r, "minor-to-major", f"layout minor_to_major field has duplicate values: "
                                  f"{{{joined}}}; shape: {shape_text}", pos)
        seen.add(d)
    if layout.dim_levels and len(layout.dim_levels) != rank:
        return refuse_or_warn(r, "dim-level-types", f"layout dim_level_types field contains {len(layout.dim_levels)} "
                              f"elements, but shape is rank {rank}; shape: {shape_text}", pos)
    if layout.physical_shape is not None and not layout.is_sparse:
        raise r.error(f"Layout has physical shape, but is not for a sparse array: {layout}", pos)
    for sc in layout.split_configs:
        if not 0 <= sc.dimension < rank:
            return refuse_or_warn(r, "split-config", f"split config dimension {sc.dimension} is out of range for "
                                  f"rank {rank}: {shape_text}", pos)
        size = dims[m2m[rank - 1 - sc.dimension]]
        if any(not 0 < i < size for i in sc.split_indices) or list(sc.split_indices) != sorted(set(sc.split_indices)):
            return refuse_or_warn(r, "split-config", f"split indices {list(sc.split_indices)} must be increasing "
                                  f"and inside physical dimension {sc.dimension} (size {size}): {shape_text}", pos)
