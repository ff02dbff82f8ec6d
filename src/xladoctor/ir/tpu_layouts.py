"""The TPU compiler's default layout of an array, per TPU generation, without libtpu.

A TPU buffer made without an explicit layout (``jax.device_put``, a restored
checkpoint, an executable parameter left to the runtime) gets what the TPU
client's ``PjRtClient::GetDefaultLayout(element_type, dims)`` returns.  E0102
("expected parameter ... but got buffer with incompatible size") is very often
one side carrying that default and the other a layout the compiler chose, so
naming the default explains the message.  libtpu is closed source; the rules
below were inferred from it and are checked against it.

Evidence (``tests/tpu_layout_oracle.py``, ``docs/tpu-default-layouts.md``): libtpu
0.0.42.1 under jax 0.10.2, ``get_default_layout`` on the compile-only topologies
v2:2x2, v3:2x2, v4:2x2x1, v5e:2x2, v5p:2x2x1 and v6e:2x2 (bigger v4..v6e
topologies and other devices of a topology give the same), for every element type the client
accepts (pred, s1..s64, u1..u64, f16, bf16, f32, f64, the f8 types, f4e2m1fn,
c64, c128; it rejects the f6 types), ranks 0 to 8, dimensions 0 to 2**33: over
400,000 probes, every one equal to this model.  v4, v5e, v5p and v6e give
identical defaults, and so do v2 and v3; the two families differ.  The committed
table ``tests/data/tpu_layouts/default_layouts.jsonl`` and a live test keep it honest.

The rules, in XLA's terms (Shape, Layout, Tile, minor_to_major), for v4 and later
(the v2/v3 differences follow):

* **Storage width** ``w``: the element's bit width, except ``pred`` (one byte on
  TPU).  64- and 128-bit types tile like 32-bit ones.  Types narrower than 32
  bits pack ``p = 32 / w`` elements into a 32-bit word: a trailing tile ``(p,1)``
  and, below a byte, ``E(w)``.
* **No elements** (a dimension is 0): XLA's plain row-major layout, no tiles.
* **Scalar**: ``T(128 p)``.  **Rank 1**: ``T(n')(128)(p,1)`` where ``n'`` is the
  smallest of 128, 256, 512, 1024 not below the size (1024 for anything larger),
  but at least ``128 p``.
* **Rank 2 and up**: one dimension goes minor-most (padded to 128 lanes), one
  second-minor (padded to the tile's rows); the rest keep their row-major order.
  The pair is chosen by the padded element count, with the second-minor rounded
  to at most 8 rows for the count (so 1- and 2-bit types, whose tiles have 32 and
  16 rows, are costed as if they had 8), minor-most candidates tried from the
  highest dimension down and second-minor likewise; a pair that needs no padding
  at all under its real tile wins outright, otherwise the smallest count, the
  first found on a tie.  The tile's rows depend on ``w`` and the second-minor
  size ``e``: 32 bits and wider: 1, 2, 4 (``e`` = 1, 2, 3..4) else 8; 16 bits:
  2, 4 else 8; 8 bits: 4 (``e`` <= 4), 32 when ``e`` is a multiple of 32, else 8;
  below 8 bits: ``8 p`` when ``e`` is a multiple of it, else ``p``.

v2 and v3 keep sub-byte types one per byte (``(4,1)``, no ``E``) but with 8, 16
and 32 rows for 4-, 2- and 1-bit types; their smallest tiles are twice as tall
(32 bits and wider: 2, 4 else 8; 16 bits: 4 else 8; 8 bits: always 8; no 32-row
tiles); scalars take ``T(256)``, ``T(512)``, ``T(1024)`` for 32-, 16- and 8-bit
and narrower types, and rank 1 steps through 256 .. 1024 (up to 4096 for 1-bit)
from that floor.  The choice of dimensions is the same.

So ``bf16[16,1280,40]`` gets ``{1,2,0:T(8,128)(2,1)}`` everywhere (1280 lanes, 40
rows: no padding); ``s8[3,5,7]`` gets ``{2,0,1:T(4,128)(4,1)}`` on v4 and later
(``{2,1,0:T(8,128)(4,1)}`` on v2/v3) and ``s4[33,65]`` gets
``{1,0:T(8,128)(8,1)E(4)}`` (``{1,0:T(8,128)(4,1)}``).
"""

from __future__ import annotations

from collections.abc import Sequence

from .primitive import PRIMITIVE_TYPES, PrimitiveType
from .shape import UNBOUNDED_SIZE, Layout, Shape, Tile
from .value import replace

TPU_GENERATIONS: dict[str, str] = {
    "v2": "v2:2x2",
    "v3": "v3:2x2",
    "v4": "v4:2x2x1",
    "v5e": "v5e:2x2",
    "v5p": "v5p:2x2x1",
    "v6e": "v6e:2x2",
}
"""Generation name -> the compile-only topology its defaults were read from."""

_FAMILY = {"v2": "v2", "v3": "v2", "v4": "v4", "v5e": "v4", "v5p": "v4", "v6e": "v4"}
"""Generations whose defaults are identical share a family: v2 = v2, v3; v4 = v4, v5e, v5p, v6e."""

LIBTPU_VERSION = "0.0.42.1"
"""The libtpu whose ``get_default_layout`` this module reproduces."""
LIBTPU = f"libtpu {LIBTPU_VERSION}"
"""How reports name it: the compiler whose later failures and warnings were measured."""

UNSUPPORTED_TYPES = frozenset({"f6e2m3fn", "f6e3m2fn"})
"""Array types the TPU client rejects ("Unknown NumPy dtype"): no default to model."""

_LANES = 128
_INT64_MAX = 2**63 - 1


class NoTpuDefault(ValueError):
    """The TPU client has no default layout for this shape (type it rejects, unbounded, overflow)."""


def check_generation(generation: str) -> str:
    """``generation`` if it is one this module knows (``v2`` ... ``v6e``)."""
    if generation not in TPU_GENERATIONS:
        raise NoTpuDefault(f"unknown TPU generation {generation!r} (known: {', '.join(TPU_GENERATIONS)})")
    return generation


def storage_bits(element_type: PrimitiveType) -> int:
    """Bits one element takes in a TPU buffer: pred is a byte, everything else its bit width."""
    if element_type.bits is None or element_type.name in UNSUPPORTED_TYPES:
        raise NoTpuDefault(f"the TPU client has no default layout for {element_type.name}")
    return 8 if element_type.kind == "pred" else element_type.bits


def _tile_rows(family: str, bits: int, second_minor: int) -> int:
    """Rows of the first tile for a second-minor dimension of ``second_minor`` elements."""
    e = second_minor
    if family == "v2":
        if bits >= 32:
            return 2 if e <= 2 else 4 if e <= 4 else 8
        if bits == 16:
            return 4 if e <= 4 else 8
        return 32 // bits if bits < 8 else 8
    if bits >= 32:
        return 1 if e == 1 else 2 if e == 2 else 4 if e <= 4 else 8
    if bits == 16:
        return 2 if e <= 2 else 4 if e <= 4 else 8
    if bits == 8:
        return 4 if e <= 4 else 32 if e % 32 == 0 else 8
    pack = 32 // bits
    return 8 * pack if e % (8 * pack) == 0 else pack


def _round_up(n: int, m: int) -> int:
    return -(-n // m) * m


def _word_packing(family: str, bits: int) -> int:
    """Elements per 32-bit word: v2/v3 store sub-byte types one per byte, later chips pack them."""
    if bits >= 32:
        return 1
    return 32 // max(bits, 8) if family == "v2" else 32 // bits


def _choose_minor_pair(family: str, dims: Sequence[int], bits: int) -> tuple[tuple[int, ...], int]:
    """minor_to_major and tile rows for rank >= 2 (see the module docstring)."""
    rank = len(dims)
    order = range(rank - 1, -1, -1)
    best: tuple[tuple[bool, int], tuple[int, ...], int] | None = None
    for minor in order:
        lanes = _round_up(dims[minor], _LANES)
        for second in order:
            if second == minor:
                continue
            rest = tuple(d for d in order if d != minor and d != second)
            size = dims[second]
            rows = _tile_rows(family, bits, size)
            count = lanes * _round_up(size, min(rows, 8))
            for d in rest:
                count *= dims[d]
            exact = lanes == dims[minor] and size % rows == 0
            key = (not exact, count)
            if best is None or key < best[0]:
                best = (key, (minor, second) + rest, rows)
    assert best is not None
    return best[1], best[2]


def _vector_tile(family: str, bits: int, size: int) -> int:
    """The one tile entry of a rank-1 (and, for size 1, a scalar) default layout."""
    if family == "v2":
        floor = 256 * _word_packing(family, bits)
        ceiling = max(1024, _LANES * 32 // bits)
        span = next((t for t in (256, 512, 1024, 2048, 4096) if t >= size), ceiling)
    else:
        floor = _LANES * _word_packing(family, bits)
        ceiling = max(1024, floor)
        span = next((t for t in (128, 256, 512, 1024) if t >= size), 1024)
    return min(max(span, floor), ceiling)


def tpu_default_layout(element_type: PrimitiveType | str, dimensions: Sequence[int],
                       generation: str = "v5e") -> Layout:
    """What ``client.get_default_layout(dtype, dimensions, device)`` returns on that TPU generation."""
    family = _FAMILY[check_generation(generation)]
    et = PRIMITIVE_TYPES[element_type] if isinstance(element_type, str) else element_type
    bits = storage_bits(et)
    dims = tuple(dimensions)
    if any(d == UNBOUNDED_SIZE or d < 0 for d in dims):
        raise NoTpuDefault("an unbounded dimension has no TPU layout")
    element_bits = bits if bits < 8 and family != "v2" else 0
    rank = len(dims)
    if 0 in dims:
        return Layout(minor_to_major=tuple(range(rank - 1, -1, -1)), element_size_in_bits=element_bits)
    pack = _word_packing(family, bits)
    packing = (Tile((pack, 1)),) if pack > 1 else ()
    if rank == 0:
        return Layout(tiles=(Tile((_vector_tile(family, bits, 1),)),), element_size_in_bits=element_bits)
    if rank == 1:
        first = Tile((_vector_tile(family, bits, dims[0]),))
        rest = (Tile((_LANES,)),) + packing if packing else ()
        return Layout(minor_to_major=(0,), tiles=(first,) + rest, element_size_in_bits=element_bits)
    minor_to_major, rows = _choose_minor_pair(family, dims, bits)
    layout = Layout(minor_to_major=minor_to_major, tiles=(Tile((rows, _LANES)),) + packing,
                    element_size_in_bits=element_bits)
    _check_size(et, dims, layout)
    return layout


def _check_size(et: PrimitiveType, dims: tuple[int, ...], layout: Layout) -> None:
    """libtpu refuses (aborts, in fact) when the padded size may overflow int64; refuse the same shapes."""
    from ..base.errors import XlaDoctorError
    from .sizes import physical_bytes

    try:
        size = physical_bytes(Shape.array(et, dims, layout))
    except XlaDoctorError as e:  # physical_bytes itself refuses a size past int64, as XLA does
        raise NoTpuDefault(f"{et.name}{list(dims)} size may overflow int64") from e
    if size > _INT64_MAX:
        raise NoTpuDefault(f"{et.name}{list(dims)} size may overflow int64")


def tpu_default_shape(shape: Shape, generation: str = "v5e", strict: bool = True) -> Shape:
    """``shape`` with each array's TPU default layout (its memory space kept).

    Dynamic dimensions are laid out by their bounds, as the buffer is allocated
    (``get_default_layout`` takes static dimensions only, so this is not checked).
    Without ``strict``, an array that has no TPU default keeps its layout.
    """
    if shape.is_tuple or shape.is_buffer:
        return replace(shape, tuple_shapes=tuple(tpu_default_shape(s, generation, strict)
                                                 for s in shape.tuple_shapes))
    if not shape.is_array:
        return shape
    try:
        layout = tpu_default_layout(shape.element_type, shape.dimensions, generation)
    except NoTpuDefault:
        if strict:
            raise
        return shape
    return shape.with_layout(replace(layout, memory_space=shape.memory_space))


def is_tpu_default(shape: Shape, generation: str) -> bool:
    """Whether an array shape's layout is exactly that generation's default (memory space ignored)."""
    if not shape.is_array or shape.layout is None:
        return False
    try:
        default = tpu_default_layout(shape.element_type, shape.dimensions, generation)
    except NoTpuDefault:
        return False
    return str(replace(shape.layout, memory_space=0)) == str(default)


def default_for_generations(shape: Shape) -> tuple[str, ...]:
    """The TPU generations whose default layout ``shape`` (an array with a layout) carries."""
    return tuple(g for g in TPU_GENERATIONS if is_tpu_default(shape, g))
