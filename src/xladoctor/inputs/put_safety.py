"""Which layouts ``jax.device_put`` fills right on a TPU chip (measured: tests/data/chip/round1.jsonl).

On a TPU v5e chip (JAX 0.10.2, libtpu 0.0.42.1), ``jax.device_put(x, Format(Layout(order,
tiling)))`` wrote the right data for every dtype, shape and dimension order tried when the tiling
was left unset or was the chip's own default tiling for that physical shape (what the chip's
compiler gives an executable's inputs, so ``compiled.input_formats`` is always safe: 8 of 8
relayouts to them ran right).  Other tilings went one of three ways: refused with a bitcast check
(harmless), wrong data with no error (f32 and s32 ``T(1,128)``/``T(2,128)``/``T(4,128)`` on a
7-row array: 43-86% of the elements; bf16 ``T(1,128)``: all of them), or an abort of the whole
process (bf16/f16 ``T(16,128)(2,1)``, s8 and pred ``T(32,128)(4,1)`` on arrays the chip tiles by
8 rows).  8 other tilings happened to run right; a relayout does not bet on which.
"""

from __future__ import annotations

from ..ir.shape import Layout, Shape
from ..ir.tpu_layouts import NoTpuDefault, tpu_default_layout


def chip_tiling(shape: Shape) -> tuple[tuple[int, ...], ...] | None:
    """The tiles the TPU gives an array of ``shape``'s dimensions in its layout's order, or None."""
    layout = shape.layout
    order = layout.minor_to_major if layout is not None and layout.minor_to_major else \
        tuple(range(len(shape.dimensions) - 1, -1, -1))
    physical = [shape.dimensions[d] for d in reversed(order)]
    try:
        default = tpu_default_layout(shape.element_type, physical)
    except NoTpuDefault:
        return None
    return tuple(tuple(t.dimensions) for t in default.tiles)


def put_is_safe(shape: Shape) -> bool:
    """May ``jax.device_put`` fill an array of ``shape`` (layout included) on a TPU chip?"""
    layout: Layout | None = shape.layout
    if layout is None or not layout.tiles:
        return True
    return tuple(tuple(t.dimensions) for t in layout.tiles) == chip_tiling(shape)
