"""Byte sizes exactly as XLA computes them (layouts.md §4–5).

Two different sizes matter and are easy to confuse:

* :func:`logical_bytes` is ``ShapeUtil::ByteSizeOf``: dense elements, ``E(n)``
  packing applied, tiles/``L``/``SC``/``M`` ignored.  CPU/GPU runtimes compare this.
* :func:`physical_bytes` is ``ShapeUtil::ArraySize``: the first tile pads the
  most-minor physical dimensions, ``L`` rounds the element count, ``SC`` keeps the
  largest split.  TPU's "expected parameter ... of size N" numbers are this.

>>> from xladoctor.syntax.shape_parser import parse_shape
>>> s = parse_shape("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}")
>>> logical_bytes(s), physical_bytes(s)
(1638400, 5242880)
>>> [(p.dim, p.size, p.padded_size) for p in dimension_padding(s)]
[(2, 40, 128), (1, 1280, 1280), (0, 16, 16)]
"""

from __future__ import annotations

from itertools import pairwise

from ..base.errors import UnboundedSizeError, XlaDoctorError
from .shape import COMBINE_DIMENSION, UNBOUNDED_SIZE, Layout, Shape
from .value import FrozenValue

POINTER_SIZE = 8
"""``sizeof(void*)`` on the 64-bit hosts XLA runs on; the size of a tuple's index table entry."""


_INT64_MAX = 2**63 - 1


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _round_up(a: int, b: int) -> int:
    return _ceil_div(a, b) * b


def _dim_extent(shape: Shape, dim: int) -> int:
    d = shape.dimensions[dim]
    if d == UNBOUNDED_SIZE:
        raise UnboundedSizeError(f"dimension {dim} of {shape} is unbounded ('?'), so it has no byte size")
    return d


def _bytes_for_elements(shape: Shape, elements: int) -> int:
    """Bytes of ``elements`` elements; XLA computes sizes in int64, so a size past it is an error
    (``T(4611686018427387904)`` or ``E(9223372036854775807)`` would overflow in XLA, not be 16 EiB)."""
    e = shape.layout.element_size_in_bits if shape.layout is not None else 0
    width = shape.element_type.byte_width
    if width is None:
        raise XlaDoctorError(f"{shape.element_type.name} elements have no byte size")
    size = _ceil_div(elements * e, 8) if e else elements * width
    if size > _INT64_MAX:
        raise XlaDoctorError(f"{shape}: its size ({size:,} bytes) overflows int64, in which XLA computes sizes; "
                             "no buffer can have this layout")
    return size


def element_count(shape: Shape) -> int:
    """Product of the dimensions (bounds for dynamic ones); 1 for a scalar."""
    n = 1
    for i in range(shape.rank):
        n *= _dim_extent(shape, i)
    return n


def logical_bytes(shape: Shape, pointer_size: int = POINTER_SIZE) -> int:
    """XLA's ``ShapeUtil::ByteSizeOf``.

    A tuple counts only its index table (``pointer_size`` per element), as in XLA;
    use :func:`leaf_sizes` for the leaves.
    """
    if shape.is_tuple:
        return pointer_size * len(shape.tuple_shapes)
    if shape.is_buffer:
        return logical_bytes(shape.tuple_shapes[0], pointer_size)
    name = shape.element_type.name
    if name == "token":
        return 0
    if name == "opaque":
        return pointer_size
    return _bytes_for_elements(shape, element_count(shape))


def max_split_size(shape: Shape, dim: int) -> int:
    """``LayoutUtil::MaxSplitSize``: the largest piece of ``dim`` under ``SC`` split configs."""
    size = _dim_extent(shape, dim)
    layout = shape.effective_layout
    m2m = layout.minor_to_major
    for sc in layout.split_configs:
        if m2m[shape.rank - 1 - sc.dimension] == dim:
            points = [0, *sc.split_indices, size]
            return max(b - a for a, b in pairwise(points))
    return size


class DimensionPadding(FrozenValue):
    """How one physical dimension is padded by the first tile."""

    _FIELDS = ("dim", "size", "padded_size", "tile_entry", "physical_position", "wasted_bytes", "combined")

    dim: int | None
    """Logical dimension number; ``None`` for a virtual size-1 dimension a longer tile adds."""
    size: int
    """Logical extent (bound if dynamic, largest split under ``SC``)."""
    padded_size: int
    """Extent after rounding up to the tile entry."""
    tile_entry: int | None
    """The tile extent applied to this dimension; ``None`` when the tile does not reach it."""
    physical_position: int
    """0 is the most-minor physical dimension (the 128-lane slot of TPU tiles)."""
    wasted_bytes: int
    """Extra bytes if only this dimension were padded: ``elements/size * (padded-size) * bytes``."""
    combined: bool
    """True when the tile entry is ``*`` and this dimension was folded into the next more-minor one."""

    def __init__(self, dim: int | None, size: int, padded_size: int, tile_entry: int | None, physical_position: int,
                 wasted_bytes: int, combined: bool = False) -> None:
        set_ = object.__setattr__  # not __dict__: a dict made by hand slows every read 4x
        set_(self, "dim", dim)
        set_(self, "size", size)
        set_(self, "padded_size", padded_size)
        set_(self, "tile_entry", tile_entry)
        set_(self, "physical_position", physical_position)
        set_(self, "wasted_bytes", wasted_bytes)
        set_(self, "combined", combined)

    @property
    def is_padded(self) -> bool:
        return self.padded_size != self.size


def _physical_extents(shape: Shape) -> list[tuple[int | None, int]]:
    """(logical dim, extent) from minor to major, with SC max-split extents."""
    m2m = shape.effective_layout.minor_to_major
    return [(d, max_split_size(shape, d)) for d in m2m]


def _tiled_extents(shape: Shape) -> tuple[list[DimensionPadding], bool]:
    """Per-physical-dimension padding under the first tile, plus whether ``*`` was used."""
    layout: Layout = shape.effective_layout
    phys = _physical_extents(shape)
    n_logical = 1
    for _, ext in phys:
        n_logical *= ext
    tile = layout.tiles[0].dimensions if layout.tiles else ()
    k = len(tile)
    uses_combine = COMBINE_DIMENSION in tile
    rows: list[tuple[int | None, int, int | None, bool]] = []  # dim, extent, entry, combined

    if uses_combine:
        # tiled_layout.md: walking major -> minor, a '*' dimension is multiplied into the
        # next more-minor dimension and dropped, then tiling proceeds as usual.
        carry = 1
        for i in range(max(k, len(phys)) - 1, -1, -1):  # physical index from major to minor
            dim, ext = phys[i] if i < len(phys) else (None, 1)
            entry = tile[k - 1 - i] if i < k else None
            if entry == COMBINE_DIMENSION and i > 0:
                carry *= ext
                rows.append((dim, ext, None, True))
                continue
            rows.append((dim, ext * carry, entry if entry != COMBINE_DIMENSION else None, False))
            carry = 1
        rows.reverse()
    else:
        for i in range(max(k, len(phys))):
            dim, ext = phys[i] if i < len(phys) else (None, 1)
            entry = tile[k - 1 - i] if i < k else None
            rows.append((dim, ext, entry, False))

    out = []
    for pos, (dim, ext, entry, combined) in enumerate(rows):
        padded = _round_up(ext, entry) if entry else ext
        others = n_logical // ext if ext else 0
        extra_elems = others * (padded - ext)
        wasted = _bytes_for_elements(shape, extra_elems) if extra_elems else 0
        out.append(DimensionPadding(dim, ext, padded, entry, pos, wasted, combined))
    return out, uses_combine


def physical_bytes(shape: Shape) -> int:
    """XLA's ``ShapeUtil::ArraySize`` for an array; the sum over leaves for a tuple.

    Only the first tile pads (XLA assumes "sub-tiles won't cause additional padding").
    ``*`` tile entries use the combine rule of tiled_layout.md, which XLA's ArraySize
    itself does not implement (see :func:`uses_combine_rule`).
    """
    if shape.is_tuple:
        return sum(physical_bytes(s) for s in shape.tuple_shapes)
    if shape.is_buffer:
        return physical_bytes(shape.tuple_shapes[0])
    if not shape.is_array:
        return logical_bytes(shape)
    layout = shape.effective_layout
    if not layout.tiles:
        return _bytes_for_elements(shape, element_count(shape))
    rows, _ = _tiled_extents(shape)
    n = 1
    for r in rows:
        if not r.combined:
            n *= r.padded_size
    if layout.tail_padding_alignment_in_elements != 1:
        n = _round_up(n, layout.tail_padding_alignment_in_elements)
    return _bytes_for_elements(shape, n)


def uses_combine_rule(shape: Shape) -> bool:
    """True when a ``*`` tile entry makes :func:`physical_bytes` rely on the documented
    combine rule rather than code XLA runs (XLA's ArraySize does not support ``*``)."""
    return any(
        s.is_array and s.layout is not None and s.layout.tiles and COMBINE_DIMENSION in s.layout.tiles[0].dimensions
        for _, s in shape.leaves()
    )


def dimension_padding(shape: Shape) -> list[DimensionPadding]:
    """Per-dimension padding of an array, minor-most physical dimension first.

    Untiled layouts report every dimension unpadded.  Virtual dimensions (``dim is
    None``) appear when the first tile has more entries than the shape has dimensions.
    """
    if not shape.is_array:
        raise XlaDoctorError(f"padding is defined for array shapes, not {shape}")
    return _tiled_extents(shape)[0]


def tail_padding_elements(shape: Shape) -> int:
    """Elements added by ``L(n)`` after tiling (0 when there is no ``L`` or no tiles)."""
    layout = shape.effective_layout
    if not layout.tiles or layout.tail_padding_alignment_in_elements == 1:
        return 0
    n = 1
    for r in _tiled_extents(shape)[0]:
        if not r.combined:
            n *= r.padded_size
    return _round_up(n, layout.tail_padding_alignment_in_elements) - n


class LeafSize(FrozenValue):
    """Sizes of one array leaf of a (possibly tuple) shape."""

    _FIELDS = ("index", "shape", "logical_bytes", "physical_bytes")

    index: tuple[int, ...]
    shape: Shape
    logical_bytes: int
    physical_bytes: int

    def __init__(self, index: tuple[int, ...], shape: Shape, logical_bytes: int, physical_bytes: int) -> None:
        set_ = object.__setattr__  # not __dict__: a dict made by hand slows every read 4x
        set_(self, "index", index)
        set_(self, "shape", shape)
        set_(self, "logical_bytes", logical_bytes)
        set_(self, "physical_bytes", physical_bytes)

    @property
    def expansion(self) -> float:
        return self.physical_bytes / self.logical_bytes if self.logical_bytes else 1.0


def leaf_sizes(shape: Shape) -> list[LeafSize]:
    """Logical and physical bytes of every leaf (one entry for a non-tuple shape)."""
    return [LeafSize(i, s, logical_bytes(s), physical_bytes(s)) for i, s in shape.leaves()]


DYNAMIC_SUFFIX = "suffix"
"""PjRt's ``PjRtDynamicShapeKind::kSuffix`` (CPU; GPU's transfer manager does the same):
one ``int32`` runtime size per dimension is stored *after* the data."""
DYNAMIC_PREFIX = "prefix"
"""PjRt's ``kPrefix`` (TPU): the layout's ``M(n)`` bytes of metadata are stored *before* the data."""


def dynamic_metadata_bytes(shape: Shape, kind: str) -> int:
    """Bytes PjRt adds to an array buffer for its runtime dimension sizes.

    ``PjRtShapeAndMetadataTransferRequirements::Get`` (xla/pjrt/dynamic_shapes.cc):
    with ``kSuffix`` a non-static array gets ``sizeof(int32) * rank`` bytes after the
    data; with ``kPrefix`` every array gets its layout's ``M(n)`` bytes (0 when the
    layout prints no ``M``) in front.  A static array on a suffix runtime gets none.
    """
    if not shape.is_array:
        return 0
    if kind == DYNAMIC_SUFFIX:
        return 4 * shape.rank if shape.is_dynamic else 0
    if kind == DYNAMIC_PREFIX:
        return shape.layout.dynamic_shape_metadata_prefix_bytes if shape.layout is not None else 0
    raise ValueError(f"unknown dynamic-shape kind {kind!r}")


def runtime_kind(shape: Shape) -> str:
    """The PjRt dynamic-shape kind a printed shape implies: tiled (``T``) or ``M(n)``
    layouts are TPU's (prefix), anything else CPU/GPU's (suffix)."""
    for _, leaf in shape.leaves():
        layout = leaf.layout
        if layout is not None and (layout.tiles or layout.dynamic_shape_metadata_prefix_bytes):
            return DYNAMIC_PREFIX
    return DYNAMIC_SUFFIX


def runtime_bytes(shape: Shape, kind: str | None = None) -> int:
    """The on-device buffer size PjRt allocates and compares (``GetOnDeviceSizeInBytes``):
    ``ArraySize`` plus the dynamic-shape metadata of :func:`dynamic_metadata_bytes`.

    >>> from xladoctor.syntax.shape_parser import parse_shape
    >>> runtime_bytes(parse_shape("f32[<=10,4]"))      # 160 of data + 2 x int32 sizes after it
    168
    >>> runtime_bytes(parse_shape("f32[<=10,4]{0,1:T(4,128)M(1024)}"))  # 2048 + M(1024) in front
    3072
    """
    kind = kind or runtime_kind(shape)
    if shape.is_tuple:
        return sum(runtime_bytes(s, kind) for s in shape.tuple_shapes)
    if shape.is_buffer:
        return runtime_bytes(shape.tuple_shapes[0], kind)
    return physical_bytes(shape) + dynamic_metadata_bytes(shape, kind)
