"""What the ``--tpu GEN`` option of ``xladoctor shape`` adds: the generation's default layout.

Kept out of :mod:`xladoctor.commands.shape` so the command only wires it in; the
layout itself comes from :mod:`xladoctor.ir.tpu_layouts`.
"""

from __future__ import annotations

from typing import Any

from ..ir.shape import Shape
from ..ir.sizes import logical_bytes, physical_bytes
from ..ir.tpu_layouts import LIBTPU_VERSION, NoTpuDefault, default_for_generations, is_tpu_default, tpu_default_shape
from ..units import bytes_text, ratio_text


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

