"""``xladoctor shape SHAPE``: canonical spelling, both byte sizes and where the padding comes from."""

from __future__ import annotations

from ...base.errors import InputError, located
from ...base.labels import label
from ...base.units import bytes_text, ratio_text
from ...ir.jax_layout import jax_layout
from ...ir.shape import (
    COMBINE_DIMENSION,
    HOST_MEMORY_SPACE,
    Shape,
    format_shape_index,
)
from ...ir.sizes import (
    DYNAMIC_SUFFIX,
    dimension_padding,
    dynamic_metadata_bytes,
    leaf_sizes,
    logical_bytes,
    physical_bytes,
    runtime_bytes,
    runtime_kind,
    tail_padding_elements,
    uses_combine_rule,
)
from ...syntax.shape_plain import plain_shape

TYPE_CHECKING = False  # not typing's: argparse and typing are most of what this command would import
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from ...syntax.layout_warnings import LayoutWarning

NAME = "shape"
HELP = "cli.shape.help"
ORDER = 10
DESCRIPTION = "cli.shape.description"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ._common import help_text  # _common is imported for --json only on the plain path (start-up)

    p.add_argument("shape", metavar="SHAPE", help=help_text(p, "cli.shape.shape"))
    p.add_argument("--json", action="store_true", help=help_text(p, "cli.shape.json"))
    from ...ir.tpu_layouts import TPU_GENERATIONS

    p.add_argument("--tpu", metavar="GEN", choices=tuple(TPU_GENERATIONS),
                   help=help_text(p, "cli.shape.tpu"))
    from ...base.labels import LANGUAGES

    p.add_argument("--lang", choices=LANGUAGES, default=None, help=help_text(p, "cli.shape.lang"))
    p.add_argument("--bidi", choices=("auto", "visual", "logical"), default="auto",
                   help=help_text(p, "cli.shape.bidi"))


def run(args: argparse.Namespace) -> int:
    if args.shape == "-":
        reports = []
        from ._common import read_input  # bounded, like every input read whole

        for lineno, line in enumerate(read_input("-")[0].splitlines(), 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            shape, warnings = _parse_line(text, line, lineno)
            offset = len(line) - len(line.lstrip())
            try:
                with located(text, "<stdin>"):
                    reports.append(_warned(_with_tpu(shape, text, args.tpu), warnings, args, "<stdin>", lineno,
                                           offset))
            except InputError as e:  # located in the stripped line: put it on its line of stdin
                raise InputError(e.message, "<stdin>", lineno, e.col + offset) from None
        if args.json:
            from ._common import print_json

            print_json({"command": "shape", "shapes": reports}, schema="shape")
        else:
            print("\n\n".join(render_text(r) for r in reports))
        return 0
    shape, warnings = _read(args.shape, "<shape>")
    with located(args.shape, "<shape>"):
        report = _warned(_with_tpu(shape, args.shape, args.tpu), warnings, args, "<shape>")
    if args.json:
        from ._common import print_json

        print_json({"command": "shape", **report}, schema="shape")
    else:
        print(render_text(report))
    return 0


def _read(text: str, source: str) -> tuple[Shape, tuple[LayoutWarning, ...]]:
    """``text`` as ``shape_parser.parse_shape_warned`` reads it: the plain spellings by hand
    (``syntax/shape_plain.py``, proven the same by tests/test_shape_plain.py) so that the grammar's
    modules and their patterns are imported only for the rest, every error and warning included."""
    shape = plain_shape(text)
    if shape is not None:
        return shape, ()
    from ...syntax.shape_parser import parse_shape_warned

    return parse_shape_warned(text, source)


def _parse_line(text: str, line: str, lineno: int) -> tuple[Shape, tuple[LayoutWarning, ...]]:
    try:
        return _read(text, "<stdin>")
    except InputError as e:
        offset = len(line) - len(line.lstrip())
        raise InputError(e.message, "<stdin>", lineno, e.col + offset) from None


def _warned(report: dict[str, Any], warnings: tuple[LayoutWarning, ...], args: argparse.Namespace, source: str,
            line: int = 1, offset: int = 0) -> dict[str, Any]:
    """A layout jaxlib keeps and XLA's validation refuses, as ``hlo`` and ``offload`` say it: one
    stderr line each (``SOURCE:LINE:COL: warning: E0002 ...``, in the reader's language, ``--lang``
    else the locale's, XLA's message as XLA wrote it), and ``layout_warnings`` in the report
    (absent when there are none); the sizes are the default layout's, which the shape was read with."""
    if not warnings:
        return report
    import sys

    from ...base.escape import escape_field
    from ...base.labels import language_from_env
    from ...findings.from_layout import CODE, NAME  # the finding's code and name: imported only here
    from ._common import for_reader

    lang = args.lang or language_from_env()
    for w in warnings:
        said = label("finding.layout_line", lang, source=source, line=line, column=w.column + offset, code=CODE,
                     name=NAME, rule=w.rule, where="", message=escape_field(w.message))
        print(for_reader(said, lang, args.bidi, sys.stderr), file=sys.stderr)
    return {**report, "layout_warnings": [{"rule": w.rule, "line": line, "column": w.column + offset,
                                           "message": w.message} for w in warnings]}


def _with_tpu(shape: Shape, text: str, generation: str | None) -> dict[str, Any]:
    """The report, with ``--tpu``'s default layout on every array (sizing it when none was written)."""
    if generation is None:
        return _analyse(shape)
    from ...ir.tpu_layouts import tpu_default_shape  # only with --tpu: start-up (issue 36)
    from ...report.tpu_default import layout_written, tpu_info

    given = layout_written(text)
    if not given:
        shape = tpu_default_shape(shape, generation, strict=False)
    report = _analyse(shape)
    leaves = ([(r, shape.subshape(tuple(r["index"]))) for r in report["leaves"]] if shape.is_tuple
              else [(report, shape)])
    for leaf, leaf_shape in leaves:
        array = _wrapped_array(leaf_shape)
        if array.is_array:
            leaf["tpu"] = tpu_info(array, generation, given)
    return report


def _wrapped_array(shape: Shape) -> Shape:
    """The array a ``b(...)`` buffer holds (XLA sizes and lays out a buffer as that array); else ``shape``."""
    return shape.tuple_shapes[0] if shape.is_buffer else shape


def _leaf_report(shape: Shape) -> dict[str, Any]:
    """One non-tuple shape: an array's sizes and padding (a buffer's are its array's, under its own
    spelling), or a token's/opaque's fixed size."""
    array = _wrapped_array(shape)
    if not array.is_array:
        return _other_report(shape)
    report = _array_report(array)
    report.update(shape=str(shape), element_type=shape.element_type.name)
    return report


def _array_report(shape: Shape) -> dict[str, Any]:
    logical = logical_bytes(shape)
    physical = physical_bytes(shape)
    dims = []
    for d in dimension_padding(shape):
        dims.append({
            "dim": d.dim, "size": d.size, "padded_size": d.padded_size,
            "tile_entry": "*" if d.combined else d.tile_entry,
            "physical_position": d.physical_position, "wasted_bytes": d.wasted_bytes,
        })
    layout = shape.effective_layout
    return {
        "shape": str(shape),
        "element_type": shape.element_type.name,
        "logical_bytes": logical,
        "physical_bytes": physical,
        "padding_bytes": physical - logical,
        "expansion": round(physical / logical, 4) if logical else None,
        "memory_space": layout.memory_space,
        "tile": list(layout.tiles[0].dimensions) if layout.tiles else None,
        "tail_padding_elements": tail_padding_elements(shape),
        "uses_combine_rule": uses_combine_rule(shape),
        "runtime_bytes": _runtime_sizes(shape),
        "jax_layout": jax_layout(layout) if shape.rank or layout.tiles else None,
        "dims": dims,
    }


def _runtime_sizes(shape: Shape) -> dict[str, Any] | None:
    """PjRt's buffer size when it differs from ArraySize (xla/pjrt/dynamic_shapes.cc): a
    dynamic array carries its runtime sizes after the data on CPU/GPU (``suffix``); a TPU
    layout (tiled, or with ``M(n)``) carries its ``M(n)`` bytes in front (``prefix``)."""
    kind = runtime_kind(shape)
    extra = dynamic_metadata_bytes(shape, kind)
    if not extra:
        return None
    return {"kind": kind, "metadata_bytes": extra, "bytes": runtime_bytes(shape, kind)}


def _other_report(shape: Shape) -> dict[str, Any]:
    """A leaf that is not an array (``token[]``, ``opaque[]``): XLA gives it a fixed
    ByteSizeOf (0 for a token, a pointer for opaque) and no layout to pad."""
    size = logical_bytes(shape)
    return {"shape": str(shape), "element_type": shape.element_type.name, "logical_bytes": size,
            "physical_bytes": physical_bytes(shape), "padding_bytes": 0, "expansion": None, "memory_space": None,
            "tile": None, "tail_padding_elements": 0, "uses_combine_rule": False, "runtime_bytes": None,
            "jax_layout": None, "dims": []}


def _analyse(shape: Shape) -> dict[str, Any]:
    if not shape.is_tuple:
        return _leaf_report(shape)
    leaves = []
    for leaf in leaf_sizes(shape):
        entry = _leaf_report(leaf.shape)
        entry["index"] = list(leaf.index)
        leaves.append(entry)
    total_logical = sum(x["logical_bytes"] for x in leaves)
    total_physical = sum(x["physical_bytes"] for x in leaves)
    return {
        "shape": str(shape),
        "element_type": shape.element_type.name,
        "logical_bytes": logical_bytes(shape),
        "physical_bytes": total_physical,
        "leaves_logical_bytes": total_logical,
        "leaves_physical_bytes": total_physical,
        "expansion": round(total_physical / total_logical, 4) if total_logical else None,
        "dims": [],
        "leaves": leaves,
    }


def render_text(rep: dict[str, Any]) -> str:
    """The ``shape`` report; words from ``labels/en.toml`` ``[shape]`` (aligned in columns there)."""
    lines = [label("shape.shape", shape=rep["shape"])]
    if "leaves" in rep:
        lines.append(label("shape.tuple_table", bytes=bytes_text(rep["logical_bytes"])))
        lines.append(label("shape.leaves_logical", bytes=bytes_text(rep["leaves_logical_bytes"])))
        lines.append(label("shape.leaves_physical", bytes=bytes_text(rep["leaves_physical_bytes"]),
                           ratio=ratio_text(rep["leaves_physical_bytes"], rep["leaves_logical_bytes"])))
        for leaf in rep["leaves"]:
            lines.append("")
            lines.append(label("shape.leaf", index=format_shape_index(tuple(leaf["index"]))))
            lines.extend("  " + ln for ln in render_text(leaf).splitlines())
        return "\n".join(lines)
    if rep["element_type"] in ("token", "opaque"):
        lines.append(label("shape.token_bytes" if rep["element_type"] == "token" else "shape.opaque_bytes",
                           bytes=bytes_text(rep["logical_bytes"])))
        return "\n".join(lines)
    lines.append(label("shape.logical", bytes=bytes_text(rep["logical_bytes"])))
    lines.append(label("shape.physical_ratio", bytes=bytes_text(rep["physical_bytes"]),
                       ratio=ratio_text(rep["physical_bytes"], rep["logical_bytes"])) if rep["logical_bytes"]
                 else label("shape.physical", bytes=bytes_text(rep["physical_bytes"])))
    rt = rep.get("runtime_bytes")
    if rt:
        lines.append(label("shape.runtime_cpu_gpu" if rt["kind"] == DYNAMIC_SUFFIX else "shape.runtime_tpu",
                           bytes=bytes_text(rt["bytes"])))
    if rep["uses_combine_rule"]:
        lines.append(label("shape.combine_rule"))
    ms = rep["memory_space"]
    if ms:
        lines.append(label("shape.host_memory_space" if ms == HOST_MEMORY_SPACE else "shape.memory_space", space=ms))
    if rep["jax_layout"]:
        lines.append(label("shape.jax_layout", layout=rep["jax_layout"]))
    if rep["dims"] and rep["tile"] is not None:
        lines.extend(_padding_table(rep))
    if "tpu" in rep:
        from ...report.tpu_default import tpu_lines

        lines.extend(tpu_lines(rep["tpu"]))
    return "\n".join(lines)


def _padding_table(rep: dict[str, Any]) -> list[str]:
    """Per physical dimension, minor-most first: size, padded size, tile entry and the bytes its padding wastes."""
    tile = "(" + ",".join("*" if t == COMBINE_DIMENSION else str(t) for t in rep["tile"]) + ")"
    lines = [label("shape.padding_heading", tile=tile), "  " + label("shape.padding_columns")]
    for d in rep["dims"]:
        dim = "-" if d["dim"] is None else str(d["dim"])
        tile_entry = "-" if d["tile_entry"] is None else str(d["tile_entry"])
        mark = "  " + label("shape.padded_mark") if d["size"] != d["padded_size"] else ""
        lines.append(f"  {d['physical_position']:<5} {dim:<5} {d['size']:>8} {d['padded_size']:>9} {tile_entry:>6}"
                     f"   {d['wasted_bytes']:,}{mark}")
    if rep["tail_padding_elements"]:
        lines.append("  " + label("shape.tail_padding", n=f"{rep['tail_padding_elements']:,}"))
    return lines
