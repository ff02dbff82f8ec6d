"""How JAX spells an XLA :class:`Layout` (``jax.experimental.layout.Layout``): dimensions major to minor,
tiles in XLA's order, ``E(n)`` as ``sub_byte_element_size_in_bits``.

Why here and not in ``inputs/jax_spelling`` (which re-exports it, with the rest of JAX's spellings):
``xladoctor shape`` prints it for every array, and importing the ``inputs`` package and that module
was ~0.2 ms of its start-up (issue 36 item 5).

>>> from xladoctor.syntax.shape_parser import parse_shape
>>> jax_layout(parse_shape("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}").layout)
'Layout(major_to_minor=(0, 1, 2), tiling=((8, 128), (2, 1)))'
"""

from __future__ import annotations

from .shape import COMBINE_DIMENSION, Layout


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
