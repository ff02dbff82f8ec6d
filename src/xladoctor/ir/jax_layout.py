"""JAX's spelling of an XLA layout: ``Layout(major_to_minor=..., _tiling=...)``.

JAX's ``major_to_minor`` is XLA's ``minor_to_major`` reversed; the hidden
``_tiling`` argument takes the tiles as tuples; ``E(n)`` is
``_sub_byte_element_size_in_bits``.
"""

from __future__ import annotations

from .shape import COMBINE_DIMENSION, Layout


def jax_layout_spelling(layout: Layout) -> str:
    """``{2,1,0:T(8,128)(2,1)}`` -> ``Layout(major_to_minor=(0, 1, 2), _tiling=((8, 128), (2, 1)))``."""
    parts = [f"major_to_minor={_tuple(layout.major_to_minor)}"]
    if layout.tiles:
        tiles = ", ".join(_tuple(tuple(-1 if d == COMBINE_DIMENSION else d for d in t.dimensions))
                          for t in layout.tiles)
        parts.append(f"_tiling=({tiles}{',' if len(layout.tiles) == 1 else ''})")
    if layout.element_size_in_bits:
        parts.append(f"_sub_byte_element_size_in_bits={layout.element_size_in_bits}")
    return "Layout(" + ", ".join(parts) + ")"


def _tuple(values: tuple[int, ...]) -> str:
    if len(values) == 1:
        return f"({values[0]},)"
    return "(" + ", ".join(str(v) for v in values) + ")"
