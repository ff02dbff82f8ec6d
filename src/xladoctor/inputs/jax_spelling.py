"""How JAX spells an XLA layout, so an explanation can say what to type.

JAX's ``jax.experimental.layout.Layout`` lists dimensions *major to minor*, the
reverse of XLA's ``minor_to_major``; tiles are a tuple of tuples in XLA's order;
``E(n)`` is ``sub_byte_element_size_in_bits``.  The keyword names changed: jax
0.10.2 (checked with ``inspect.signature``) takes ``tiling=`` and
``sub_byte_element_size_in_bits=``; jax 0.6.2-0.7.x took the private ``_tiling=`` and
``_sub_byte_element_size_in_bits=``.  Memory spaces are not part of a JAX Layout:
they travel on the sharding as a memory kind (``S(5)`` is ``pinned_host``).

>>> from xladoctor.syntax.shape_parser import parse_shape
>>> jax_layout(parse_shape("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}").layout)
'Layout(major_to_minor=(0, 1, 2), tiling=((8, 128), (2, 1)))'
>>> jax_layout(parse_shape("bf16[16,1280,40]{1,2,0}").layout, legacy=True)
'Layout(major_to_minor=(0, 2, 1))'
"""

from __future__ import annotations

from ..ir.jax_layout import jax_layout  # defined in ir/ for shape's start-up; inputs.compare imports it here
from ..ir.shape import HOST_MEMORY_SPACE, Shape, Tile
from ..ir.value import replace

DTYPE_TO_XLA = {
    "bool": "pred", "int8": "s8", "int16": "s16", "int32": "s32", "int64": "s64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "complex64": "c64", "complex128": "c128", "int4": "s4", "uint4": "u4",
    "float8_e4m3fn": "f8e4m3fn", "float8_e5m2": "f8e5m2",
}
"""numpy dtype name -> XLA element type (as JAX prints an aval, ``float32[8,256]``)."""

MEMORY_KINDS = {0: "device", HOST_MEMORY_SPACE: "pinned_host"}
"""XLA memory space -> JAX memory kind (XLA does not tell pinned from unpinned host)."""


def memory_kind(shape: Shape) -> str | None:
    """The JAX memory kind for the shape's memory space, or ``None`` if JAX has no name for it."""
    return MEMORY_KINDS.get(shape.memory_space)


def jax_format(shape: Shape, sharding: str = "sharding", legacy: bool = False) -> str:
    """``Format(Layout(...), sharding)``, with ``.with_memory_kind(...)`` when not device memory."""
    kind = memory_kind(shape)
    if shape.memory_space != 0 and kind is not None:
        sharding = f"{sharding}.with_memory_kind({kind!r})"
    return f"Format({jax_layout(shape.effective_layout, legacy)}, {sharding})"


def tpu_tiled(shape: Shape) -> Shape:
    """The same array with the tiling TPUs typically give it (an assumption, not a query).

    Rank >= 2: ``T(8,128)`` on the two most-minor physical dimensions, ``(2,128)`` or
    ``(4,128)`` when the second-minor one is <= 2 or <= 4, plus ``(2,1)`` / ``(4,1)``
    packing for 16-bit / 8-bit types; rank 1: ``T(256)`` (``(256)(2,1)``...); scalars
    untiled.  Real TPU layouts vary by generation and by what the compiler chose;
    ``compiled.input_formats`` on the TPU itself is the authority.
    """
    if not shape.is_array or shape.rank == 0:
        return shape
    layout = shape.effective_layout
    bits = shape.element_type.bits or 32
    pack = () if bits >= 32 else ((Tile((32 // bits, 1)),) if bits >= 8 else ())
    if shape.rank == 1:
        tiles = (Tile((256,)),) + pack
    else:
        second_minor = shape.dimensions[layout.minor_to_major[1]]
        rows = 2 if second_minor <= 2 else 4 if second_minor <= 4 else 8
        tiles = (Tile((rows, 128)),) + pack
    return shape.with_layout(replace(layout, tiles=tiles))
