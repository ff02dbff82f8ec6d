"""How XLA places a logical array in memory: the pad/reshape/transpose steps of a layout.

XLA's docs/tiled_layout.md defines a tiled layout as a sequence of plain array
operations on the *physical* shape (the logical dimensions ordered major to minor
by ``minor_to_major``):

1. for each tile, pad every dimension the tile covers up to a multiple of the tile
   extent, split it into ``(number of tiles, tile extent)`` and move the tile-extent
   dimensions to the minor end, keeping their order;
2. a later tile applies to the *already tiled* shape (so ``(8,128)(2,1)`` on bf16
   pairs rows inside each 8x128 tile, and ``(8,128)(2,1,1,1)`` pairs whole tiles);
3. a ``*`` entry first merges its dimension into the next more-minor one.

This module computes those steps without numpy, so the same plan serves the
numpy relayout (:mod:`.relayout`), the position of one element
(:func:`linear_index`, XLA's ``LayoutUtil::LinearIndex`` generalised to tiles),
and the explanation of how many bytes each step adds.

Two decisions where XLA is silent or inconsistent:

* **Padding added by a later tile.**  XLA's ``ShapeUtil::ArraySize`` counts only
  the first tile ("sub-tiles won't cause additional padding").  A later tile that
  does not divide what it covers (``(2,1)`` on the single tile row of
  ``bf16[128]{0:T(128)(2,1)}``) would need bytes ArraySize does not count, so no
  runtime that sizes buffers with ArraySize can hold such a buffer.  The plan
  records those elements in :attr:`PhysicalPlan.subtile_padding_elements`; the
  relayout refuses a layout whose stored size then exceeds ``physical_bytes``
  (:class:`SubtilePaddingError`) unless asked to pad anyway (the buffer is then
  larger than ``physical_bytes``, and says so).  When ``L(n)`` tail padding absorbs
  the extra elements the size still matches and the layout is accepted.
* **L(n) on an untiled layout** is ignored, as ArraySize ignores it, so that the
  byte count of a relayout always equals :func:`~xladoctor.ir.sizes.physical_bytes`.

Unsupported (refused with :class:`RelayoutError`): tuples, sparse layouts, split
configs ``SC`` (the data is split across memories), unbounded dimensions, ``*`` in
a tile other than the first, and ``E(n)`` that would drop bits of an element.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from ..base.errors import XlaDoctorError
from ..ir.shape import COMBINE_DIMENSION, Shape


class RelayoutError(XlaDoctorError):
    """A layout the relayout cannot represent losslessly, or data that does not fit it."""


class SubtilePaddingError(RelayoutError):
    """A later tile needs padding that XLA's ArraySize does not count (see module docstring)."""

    def __init__(self, shape: Shape, needed_bytes: int, array_size: int, tile_number: int):
        self.shape = shape
        self.needed_bytes = needed_bytes
        self.array_size = array_size
        self.tile_number = tile_number
        super().__init__(
            f"{shape}: tile #{tile_number + 1} ({_tile_text(shape, tile_number)}) does not divide the "
            f"already-tiled shape, so storing it needs {needed_bytes} bytes, but XLA's ArraySize counts "
            f"{array_size} (it assumes later tiles add no padding); no runtime sizes a buffer this way. "
            f"Pass allow_subtile_padding=True (CLI: --allow-subtile-padding) to pad anyway.")


def _tile_text(shape: Shape, i: int) -> str:
    return str(shape.effective_layout.tiles[i]).strip("()")


@dataclass(frozen=True)
class Step:
    """One array operation from the logical array towards the stored order.

    ``kind`` is ``transpose`` (``perm`` as numpy's), ``pad`` (``pad`` elements added at
    the end of each dimension) or ``reshape`` (row-major, a bitcast).
    """

    kind: str
    before: tuple[int, ...]
    after: tuple[int, ...]
    perm: tuple[int, ...] = ()
    pad: tuple[int, ...] = ()
    tile_number: int | None = None
    """Which tile (0-based) introduced the step; ``None`` for the minor_to_major transpose."""


@dataclass(frozen=True)
class PhysicalPlan:
    """Everything needed to move one array between logical order and its stored bytes."""

    shape: Shape
    steps: tuple[Step, ...]
    element_bytes: int
    """Bytes of one unpacked element (what a numpy array of this type holds)."""
    element_bits: int
    """Bits one element occupies in storage (``E(n)``, else ``8 * element_bytes``)."""
    tiled_elements: int
    """Elements after every tile, padding included."""
    stored_elements: int
    """``tiled_elements`` rounded up by ``L(n)`` (tiled layouts only)."""
    subtile_padding_elements: int
    """Elements added by tiles after the first, which ArraySize does not count."""
    first_subtile_padding_tile: int | None
    """The first tile (0-based) that adds such padding."""

    @property
    def stored_bytes(self) -> int:
        return -(-self.stored_elements * self.element_bits // 8)

    @property
    def array_size_bytes(self) -> int:
        """What ArraySize would count: the stored size without sub-tile padding."""
        n = self.tiled_elements - self.subtile_padding_elements
        layout = self.shape.effective_layout
        if layout.tiles and layout.tail_padding_alignment_in_elements != 1:
            a = layout.tail_padding_alignment_in_elements
            n = -(-n // a) * a
        return -(-n * self.element_bits // 8)

    @property
    def final_dims(self) -> tuple[int, ...]:
        return self.steps[-1].after if self.steps else self.shape.dimensions


def _round_up(a: int, b: int) -> int:
    return -(-a // b) * b


def _element_bits(shape: Shape) -> tuple[int, int]:
    width = shape.element_type.byte_width
    if width is None:
        raise RelayoutError(f"{shape}: only arrays hold data to relayout")
    e = shape.effective_layout.element_size_in_bits
    if e == 0 or e == 8 * width:
        return width, 8 * width
    if e > 8 * width and e % 8 == 0:
        return width, e
    if e < 8 and width == 1:
        return width, e
    raise RelayoutError(f"{shape}: E({e}) cannot hold a {shape.element_type.name} element "
                        f"({shape.element_type.bits} bits in {width} byte(s)) without losing bits")


def _check_supported(shape: Shape) -> None:
    if not shape.is_array:
        raise RelayoutError(f"{shape}: relayout works on one array at a time, not a tuple/token/opaque")
    if any(shape.is_unbounded(i) for i in range(shape.rank)):
        raise RelayoutError(f"{shape}: an unbounded dimension ('?') has no size to lay out")
    layout = shape.effective_layout
    if layout.is_sparse:
        raise RelayoutError(f"{shape}: sparse layouts are not supported")
    if layout.split_configs:
        raise RelayoutError(f"{shape}: split configs (SC) spread the array over several memories; "
                            "relayout handles one contiguous buffer")
    for i, t in enumerate(layout.tiles[1:], start=1):
        if COMBINE_DIMENSION in t.dimensions:
            raise RelayoutError(f"{shape}: '*' is only supported in the first tile (tile #{i + 1} has one)")


def _combine(cur: tuple[int, ...], tile: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Apply tiled_layout.md's ``*`` rule: merge each starred dim into the next more-minor one.

    ``cur`` already has at least ``len(tile)`` dims.  A ``*`` on the most-minor dim has
    nothing to merge into and tiles by 1 (as :mod:`xladoctor.ir.sizes` counts it).
    """
    k = len(tile)
    prefix, covered = cur[: len(cur) - k], cur[len(cur) - k:]
    new_dims: list[int] = []
    new_tile: list[int] = []
    carry = 1
    for j, (d, t) in enumerate(zip(covered, tile)):
        if t == COMBINE_DIMENSION and j < k - 1:
            carry *= d
            continue
        new_dims.append(d * carry)
        new_tile.append(1 if t == COMBINE_DIMENSION else t)
        carry = 1
    return prefix + tuple(new_dims), tuple(new_tile)


def plan_for(shape: Shape) -> PhysicalPlan:
    """The steps that take ``shape``'s logical array to its stored element order.

    Raises :class:`RelayoutError` for layouts the relayout does not support.
    """
    _check_supported(shape)
    width, bits = _element_bits(shape)
    layout = shape.effective_layout
    steps: list[Step] = []
    logical = shape.dimensions
    perm = tuple(reversed(layout.minor_to_major))
    cur = tuple(logical[p] for p in perm)
    if perm != tuple(range(shape.rank)):
        steps.append(Step("transpose", logical, cur, perm=perm))

    subtile_pad = 0
    first_subtile_tile: int | None = None
    for ti, tile_obj in enumerate(layout.tiles):
        tile = tile_obj.dimensions
        k = len(tile)
        if k > len(cur):  # a longer tile covers virtual size-1 major dimensions
            new = (1,) * (k - len(cur)) + cur
            steps.append(Step("reshape", cur, new, tile_number=ti))
            cur = new
        if COMBINE_DIMENSION in tile:
            new, tile = _combine(cur, tile)
            if new != cur:
                steps.append(Step("reshape", cur, new, tile_number=ti))
            cur = new
            k = len(tile)
        p = len(cur) - k
        prefix, covered = cur[:p], cur[p:]
        padded = tuple(_round_up(d, t) for d, t in zip(covered, tile))
        if padded != covered:
            added = prod(padded) - prod(covered)
            if ti > 0 and added:
                subtile_pad += added * prod(prefix)
                if first_subtile_tile is None:
                    first_subtile_tile = ti
            new = prefix + padded
            steps.append(Step("pad", cur, new, pad=(0,) * p + tuple(a - b for a, b in zip(padded, covered)),
                              tile_number=ti))
            cur = new
        counts = tuple(d // t for d, t in zip(padded, tile))
        split = prefix + tuple(x for q, t in zip(counts, tile) for x in (q, t))
        steps.append(Step("reshape", cur, split, tile_number=ti))
        tperm = tuple(range(p)) + tuple(p + 2 * i for i in range(k)) + tuple(p + 2 * i + 1 for i in range(k))
        cur = prefix + counts + tuple(tile)
        steps.append(Step("transpose", split, cur, perm=tperm, tile_number=ti))

    tiled = prod(cur)
    stored = tiled
    if layout.tiles and layout.tail_padding_alignment_in_elements != 1:
        stored = _round_up(tiled, layout.tail_padding_alignment_in_elements)
    return PhysicalPlan(shape, tuple(steps), width, bits, tiled, stored, subtile_pad, first_subtile_tile)


def _ravel(index: tuple[int, ...], dims: tuple[int, ...]) -> int:
    n = 0
    for i, d in zip(index, dims):
        n = n * d + i
    return n


def _unravel(n: int, dims: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for d in reversed(dims):
        out.append(n % d if d else 0)
        n = n // d if d else 0
    return tuple(reversed(out))


def linear_index(shape: Shape, index: tuple[int, ...] | list[int]) -> int:
    """Position (in elements) of logical element ``index`` in the stored buffer.

    Without tiles this is XLA's ``LayoutUtil::LinearIndex``; with tiles it is
    tiled_layout.md's ``linear_index_with_tile`` applied once per tile.

    >>> from xladoctor.syntax.shape_parser import parse_shape
    >>> linear_index(parse_shape("f32[3,5]{1,0:T(2,2)}"), (2, 3))
    17
    """
    index = tuple(index)
    if len(index) != shape.rank or any(not 0 <= i < d for i, d in zip(index, shape.dimensions)):
        raise RelayoutError(f"index {list(index)} is out of bounds for {shape}")
    plan = plan_for(shape)
    cur = index
    for step in plan.steps:
        if step.kind == "transpose":
            cur = tuple(cur[p] for p in step.perm)
        elif step.kind == "reshape":
            cur = _unravel(_ravel(cur, step.before), step.after)
        # pad: the element keeps its coordinates
    return _ravel(cur, plan.final_dims)
