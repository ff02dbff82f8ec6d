"""What the ``--tpu GEN`` option of ``xladoctor shape`` adds: the generation's default layout.

Kept out of :mod:`xladoctor.commands.shape` so the command only wires it in; the
layout itself comes from :mod:`xladoctor.ir.tpu_layouts`.
"""

from __future__ import annotations

from typing import Any

from ..ir.shape import Shape
from ..ir.sizes import logical_bytes, physical_bytes
from ..ir.tpu_layouts import (LIBTPU_VERSION, NoTpuDefault, default_for_generations,
                              is_tpu_default, tpu_default_shape)
from .units import bytes_text, ratio_text


def layout_written(text: str) -> bool:
    """Whether shape text spells any layout (XLA's parser fills in row-major when it does not)."""
    return "{" in text


def tpu_info(shape: Shape, generation: str, layout_given: bool) -> dict[str, Any]:
    """The ``tpu`` object of an array's ``shape --json`` report (docs/json.md#shape)."""
    info: dict[str, Any] = {"generation": generation, "libtpu": LIBTPU_VERSION, "layout_given": layout_given}
    try:
        default = tpu_default_shape(shape, generation)
    except NoTpuDefault as e:
        info.update(default_layout=None, reason=str(e))
        return info
    info["default_layout"] = str(default.layout)
    info["default_physical_bytes"] = physical_bytes(default)
    info["default_logical_bytes"] = logical_bytes(default)
    info["is_default"] = is_tpu_default(shape, generation)
    info["default_for_generations"] = list(default_for_generations(shape))
    info["same_default_on"] = list(default_for_generations(default))
    return info


def tpu_lines(info: dict[str, Any]) -> list[str]:
    """The text lines for one array's ``tpu`` object."""
    gen = info["generation"]
    label = f"{'TPU ' + gen + ' default':<15} "
    if info["default_layout"] is None:
        return [f"{label}none: {info['reason']}"]
    lines = [f"{label}{info['default_layout']}  (as libtpu {info['libtpu']}'s get_default_layout; "
             f"the same on {', '.join(info['same_default_on'])})"]
    if not info["layout_given"]:
        lines.append(" " * 16 + "no layout was given, so the sizes above are for this default")
    elif info["is_default"]:
        lines.append(" " * 16 + f"the given layout is the {gen} default")
    else:
        others = info["default_for_generations"]
        lines.append(" " * 16 + f"the given layout is not the {gen} default"
                     + (f" (it is the default on {', '.join(others)})" if others else ""))
        lines.append(" " * 16 + f"the default takes {bytes_text(info['default_physical_bytes'])} physical "
                     f"({ratio_text(info['default_physical_bytes'], info['default_logical_bytes'])} of logical)")
    return lines


def default_layout_lines(expected: Shape, supplied: Shape) -> list[str]:
    """For an E0102 mismatch: which side carries the TPU default layout, when one does.

    The usual story behind E0102 on TPU: the buffer was made without a layout and got
    the runtime's default, while the executable was compiled with a layout the compiler
    chose.  Says nothing when neither side is a default (two compiler choices).
    """
    # Only tiled layouts are TPU layouts; an untiled one was printed without its tiling (or is CPU/GPU's).
    sides = tuple((name, s) for name, s in (("expected", expected), ("supplied", supplied))
                  if s.is_array and s.layout is not None and s.layout.tiles)
    gens = {name: default_for_generations(s) for name, s in sides}
    if not any(gens.values()):
        return []
    lines = []
    for name, s in sides:
        if gens[name]:
            lines.append(f"the {name} layout {s.layout} is the TPU default for {s.human_string()} on "
                         f"{', '.join(gens[name])} (libtpu's get_default_layout): what a buffer made without a "
                         "layout (device_put, a restored checkpoint) gets")
        else:
            lines.append(f"the {name} layout {s.layout} is not the TPU default: it was chosen (a layout given "
                         "to jit, Layout.AUTO, or another compiler version; plain jax.jit gives parameters the "
                         "default)")
    found = [set(g) for g in gens.values() if g]
    if len(found) == 2 and not found[0] & found[1]:
        lines.append("they are the defaults of different TPU generations: the buffer was laid out for another "
                     "chip generation than the executable was compiled for")
    return lines
