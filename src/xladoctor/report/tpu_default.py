"""What the ``--tpu GEN`` option of ``xladoctor shape`` adds: the generation's default layout.

Kept out of :mod:`xladoctor.cli.commands.shape` so the command only wires it in; the
layout itself comes from :mod:`xladoctor.ir.tpu_layouts`.
"""

from __future__ import annotations

from ..base.labels import label
from ..base.units import bytes_text, ratio_text
from ..ir.shape import Shape
from ..ir.sizes import logical_bytes, physical_bytes
from ..ir.tpu_layouts import LIBTPU_VERSION, NoTpuDefault, default_for_generations, is_tpu_default, tpu_default_shape

TYPE_CHECKING = False  # not typing's: `xladoctor shape` imports this module (issue 36, start-up)
if TYPE_CHECKING:
    from typing import Any


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
    """The text lines for one array's ``tpu`` object (words: ``labels/en.toml`` ``[shape]``)."""
    gen = info["generation"]
    head = f"{label('shape.tpu_default', generation=gen):<15} "
    if info["default_layout"] is None:
        return [head + label("shape.tpu_none", reason=info["reason"])]
    lines = [head + label("shape.tpu_layout", layout=info["default_layout"], libtpu=info["libtpu"],
                          same=", ".join(info["same_default_on"]))]
    indent = " " * 16
    if not info["layout_given"]:
        lines.append(indent + label("shape.tpu_no_layout_given"))
    elif info["is_default"]:
        lines.append(indent + label("shape.tpu_is_default", generation=gen))
    else:
        others = info["default_for_generations"]
        lines.append(indent + (label("shape.tpu_not_default_elsewhere", generation=gen, others=", ".join(others))
                               if others else label("shape.tpu_not_default", generation=gen)))
        lines.append(indent + label("shape.tpu_default_takes", bytes=bytes_text(info["default_physical_bytes"]),
                                    ratio=ratio_text(info["default_physical_bytes"], info["default_logical_bytes"])))
    return lines

