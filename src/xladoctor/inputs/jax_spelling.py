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

from ..ir.shape import COMBINE_DIMENSION, HOST_MEMORY_SPACE, Layout, Shape

MEMORY_KINDS = {0: "device", HOST_MEMORY_SPACE: "pinned_host"}
"""XLA memory space -> JAX memory kind (XLA does not tell pinned from unpinned host)."""


def _tuple_text(values: tuple[int, ...]) -> str:
    items = ["-1" if v == COMBINE_DIMENSION else str(v) for v in values]
    return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"


def jax_layout(layout: Layout, legacy: bool = False) -> str:
    """``Layout(major_to_minor=..., tiling=..., sub_byte_element_size_in_bits=...)``.

    ``legacy`` gives the jax 0.6.2-0.7 keyword names (``_tiling``).
    """
    text = f"Layout(major_to_minor={_tuple_text(layout.major_to_minor) if layout.major_to_minor else '()'}"
    prefix = "_" if legacy else ""
    if layout.tiles:
        tiles = ", ".join(_tuple_text(t.dimensions) for t in layout.tiles)
        tiles = f"({tiles},)" if len(layout.tiles) == 1 else f"({tiles})"
        text += f", {prefix}tiling={tiles}"
    if layout.element_size_in_bits:
        text += f", {prefix}sub_byte_element_size_in_bits={layout.element_size_in_bits}"
    return text + ")"


def memory_kind(shape: Shape) -> str | None:
    """The JAX memory kind for the shape's memory space, or ``None`` if JAX has no name for it."""
    return MEMORY_KINDS.get(shape.memory_space)


def jax_format(shape: Shape, sharding: str = "sharding", legacy: bool = False) -> str:
    """``Format(Layout(...), sharding)``, with ``.with_memory_kind(...)`` when not device memory."""
    kind = memory_kind(shape)
    if shape.memory_space != 0 and kind is not None:
        sharding = f"{sharding}.with_memory_kind({kind!r})"
    return f"Format({jax_layout(shape.effective_layout, legacy)}, {sharding})"
