"""JAX's view of a buffer (shape, dtype, ``Format``, memory kind) as an XLA :class:`Shape`.

Everything the E0102 explainer computes (physical sizes, padded dimensions,
runtime verdicts) works on XLA shapes such as ``f32[256,40]{0,1:T(8,128)}``; this
module converts JAX values, ``jax.ShapeDtypeStruct`` and checkpoint metadata dicts
into them, and adds the tiling a TPU would typically give the same array, so a
mismatch found on CPU (untiled layouts) can also be sized as a TPU would size it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..inputs.jax_spelling import DTYPE_TO_XLA as _DTYPE_TO_XLA
from ..inputs.jax_spelling import tpu_tiled
from ..ir.shape import HOST_MEMORY_KINDS, HOST_MEMORY_SPACE, Layout, Shape, Tile, default_layout
from ..syntax.shape_parser import parse_shape

__all__ = ["LeafFormat", "expected_leaf", "supplied_leaf", "tpu_tiled", "xla_type", "layout_from_jax"]


@dataclass(frozen=True)
class LeafFormat:
    """One array as a runtime sees it."""

    shape: Shape
    """With layout and memory space (``S(5)`` for host memory kinds)."""
    memory_kind: str | None
    committed: bool
    """JAX only insists on the layout of committed arrays; others it relays out itself."""
    has_layout: bool
    """False when the value carried no layout (numpy, Python scalars, metadata without one)."""


def xla_type(dtype: Any) -> str:
    import numpy as np
    name = np.dtype(dtype).name
    if name not in _DTYPE_TO_XLA:
        raise ValueError(f"no XLA element type known for dtype {name}")
    return _DTYPE_TO_XLA[name]


def layout_from_jax(jax_layout: Any, rank: int) -> Layout:
    """``jax.experimental.layout.Layout`` -> XLA layout (``major_to_minor`` reversed)."""
    if jax_layout is None or getattr(jax_layout, "major_to_minor", None) is None:
        return default_layout(rank)
    tiles = tuple(Tile(tuple(t)) for t in (getattr(jax_layout, "tiling", None) or ()))
    bits = getattr(jax_layout, "sub_byte_element_size_in_bits", 0) or 0
    return Layout(minor_to_major=tuple(reversed(tuple(jax_layout.major_to_minor))), tiles=tiles,
                  element_size_in_bits=bits)


def memory_space(kind: str | None) -> int:
    return HOST_MEMORY_SPACE if kind in HOST_MEMORY_KINDS else 0


def make_shape(dims: tuple[int, ...], dtype: Any, layout: Layout | None, kind: str | None) -> Shape:
    lay = layout if layout is not None else default_layout(len(dims))
    return Shape.array(xla_type(dtype), tuple(dims), lay.with_memory_space(memory_space(kind)))


def _format_parts(fmt: Any) -> tuple[Any, Any]:
    """(layout, sharding) of a Format, a bare Layout, or None."""
    if fmt is None:
        return None, None
    if hasattr(fmt, "layout") and hasattr(fmt, "sharding"):
        return fmt.layout, fmt.sharding
    return fmt, None


def expected_leaf(fmt: Any, shape: tuple[int, ...], dtype: Any) -> LeafFormat:
    """An entry of ``compiled.input_formats`` (with the argument's aval)."""
    layout, sharding = _format_parts(fmt)
    kind = getattr(sharding, "memory_kind", None)
    return LeafFormat(make_shape(shape, dtype, layout_from_jax(layout, len(shape)), kind), kind, True,
                      layout is not None)


def _layout_from_text(text: str, dims: tuple[int, ...], dtype: Any) -> Layout:
    text = text.strip()
    if not text.startswith("{"):
        return parse_shape(text).effective_layout
    return parse_shape(f"{xla_type(dtype)}[{','.join(map(str, dims))}]{text}").effective_layout


def supplied_leaf(value: Any) -> LeafFormat:
    """A ``jax.Array``, a ``jax.ShapeDtypeStruct`` (with ``format``/``sharding``), a metadata dict
    ``{"shape", "dtype", "layout"[, "memory_kind"]}`` or anything numpy can read."""
    import numpy as np
    if isinstance(value, dict):
        dims = tuple(value["shape"])
        dtype = value["dtype"]
        raw = value.get("layout")
        if raw is None:
            layout = None
        elif isinstance(raw, str):
            layout = _layout_from_text(raw, dims, dtype)
        elif isinstance(raw, (tuple, list)):
            layout = Layout(minor_to_major=tuple(reversed(tuple(raw))))
        else:
            layout = layout_from_jax(raw, len(dims))
        kind = value.get("memory_kind")
        return LeafFormat(make_shape(dims, dtype, layout, kind), kind, True, raw is not None)
    if hasattr(value, "shape") and hasattr(value, "dtype") and (hasattr(value, "format") or
                                                                 hasattr(value, "sharding")):
        fmt = getattr(value, "format", None)
        layout, fsharding = _format_parts(fmt)
        sharding = fsharding if fsharding is not None else getattr(value, "sharding", None)
        kind = getattr(sharding, "memory_kind", None)
        committed = bool(getattr(value, "committed", True))
        dims = tuple(value.shape)
        return LeafFormat(make_shape(dims, value.dtype, layout_from_jax(layout, len(dims)), kind), kind,
                          committed, layout is not None)
    arr = np.asarray(value)
    return LeafFormat(make_shape(arr.shape, arr.dtype, None, None), None, False, False)
