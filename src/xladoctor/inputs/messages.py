"""Read E0102 "program input mismatch" messages and recompute their sizes from the shapes.

The runtime prints one of three messages when a buffer does not fit a compiled
program's parameter (layouts.md §8):

* TPU (E0102), with shapes and usually a replica/partition suffix::

    Executable(NAME) expected parameter P of size E (SHAPE) but got buffer with
    incompatible size A (SHAPE): while running replica R and partition Q of a
    replicated computation (other replicas may have failed as well).

* CPU/GPU PJRT, sizes only (the GPU text ends with a space)::

    Executable expected parameter P of size E but got buffer with incompatible size A

* PjRtStreamExecutor, shapes only::

    Executable expected shape SHAPE for argument P but got incompatible shape SHAPE

TPU sizes are ``ShapeUtil::ArraySize`` of the printed shapes (tiles pad the
minor dimensions), so they can be recomputed.  When a printed size cannot come
from its printed shape, the runtime printed a layout without its tiling (seen
with Reactant: ``f32[5,4,3]{2,1,0}`` reported as 10240 bytes, which is that
layout under ``T(4,128)``); :func:`explain_size` then lists the usual TPU tilings
that give exactly the printed size.
"""

from __future__ import annotations

import re

from ..base.errors import XlaDoctorError
from ..base.labels import Text, text

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

# A shape+layout token: no spaces, parentheses nested one level (T(8,128)(2,1)).
_SHAPE = r"[^\s()]*(?:\([^()\s]*\)[^\s()]*)*"
_TUPLE_OR_SHAPE = rf"(?:\((?:[^()]|\([^()]*\))*\)|{_SHAPE})"

SIZE_MESSAGE = re.compile(
    r"(?:Executable(?:\((?P<executable>[^()\s]*)\))?\s+)?"
    r"expected\s+parameter\s+(?P<parameter>\d+)\s+of\s+size\s+(?P<expected_size>\d+)"
    rf"(?:\s*\((?P<expected_shape>{_SHAPE})\))?"
    r"\s+but\s+got\s+buffer\s+with\s+incompatible\s+size\s+(?P<actual_size>\d+)"
    rf"(?:\s*\((?P<actual_shape>{_SHAPE})\))?"
    r"(?::?\s*while\s+running\s+replica\s+(?P<replica>\d+)\s+and\s+partition\s+(?P<partition>\d+)"
    r"(?:\s+of\s+a\s+replicated\s+computation(?:\s+\(other\s+replicas\s+may\s+have\s+failed\s+as\s+well\)\.?)?)?)?"
)
SHAPE_MESSAGE = re.compile(
    rf"Executable\s+expected\s+shape\s+(?P<expected_shape>{_TUPLE_OR_SHAPE})\s+for\s+argument\s+"
    rf"(?P<parameter>\d+)\s+but\s+got\s+incompatible\s+shape\s+(?P<actual_shape>{_TUPLE_OR_SHAPE})"
)

# PjRt's other checks (CommonPjRtLoadedExecutable::CheckBufferCompatibilities): with
# TPU's prefix-metadata dynamic shapes the runtime compares element type, rank, layout
# and bounds instead of sizes; every runtime also checks the memory space.
VARIANT_MESSAGES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("element_type", re.compile(
        r"Executable(?:\((?P<executable>[^()\s]*)\))?\s+expected\s+parameter\s+(?P<parameter>\d+)\s+to\s+have\s+"
        r"element\s+type\s+(?P<expected>\S+)\s+but\s+got\s+buffer\s+with\s+element\s+type\s+(?P<actual>\w+)")),
    ("rank", re.compile(
        r"Executable(?:\((?P<executable>[^()\s]*)\))?\s+expected\s+parameter\s+(?P<parameter>\d+)\s+to\s+have\s+"
        r"rank\s+(?P<expected>\d+)\s+but\s+got\s+buffer\s+with\s+rank\s+(?P<actual>\d+)")),
    ("layout", re.compile(
        r"Executable(?:\((?P<executable>[^()\s]*)\))?\s+expected\s+parameter\s+(?P<parameter>\d+)\s+to\s+have\s+"
        rf"layout\s+(?P<expected>{_SHAPE})\s+but\s+got\s+buffer\s+with\s+layout\s+(?P<actual>{_SHAPE})")),
    ("dynamic_bound", re.compile(
        r"Executable(?:\((?P<executable>[^()\s]*)\))?\s+expected\s+parameter\s+(?P<parameter>\d+)\s+dimension\s+"
        r"(?P<dimension>\d+)\s+runtime\s+size\s+<=\s*(?P<expected>\d+),\s+but\s+got\s+buffer\s+with\s+size\s+"
        r"(?P<actual>\d+)")),
    ("memory_space", re.compile(
        r"Executable(?:\((?P<executable>[^()\s]*)\))?\s+got\s+a\s+parameter\s+buffer\s+for\s+parameter\s+"
        r"(?P<parameter>\d+)\s+in\s+an\s+unexpected\s+memory\s+space\s+'(?P<actual>[^']*)'")),
)

FIELD_NAMES = ("executable", "parameter", "expected_size", "actual_size", "expected_shape", "actual_shape",
               "replica", "partition")

# (label, tiles) tried on the printed minor_to_major when a printed size does not fit
# its printed layout.  From layouts.md §6: documented and observed TPU tilings.
CANDIDATE_TILINGS: tuple[tuple[str, tuple[tuple[int, ...], ...]], ...] = (
    ("T(8,128)", ((8, 128),)),
    ("T(4,128)", ((4, 128),)),
    ("T(2,128)", ((2, 128),)),
    ("T(8,128)(2,1)", ((8, 128), (2, 1))),
    ("T(16,128)(2,1)", ((16, 128), (2, 1))),
    ("T(4,128)(2,1)", ((4, 128), (2, 1))),
    ("T(2,128)(2,1)", ((2, 128), (2, 1))),
    ("T(8,128)(4,1)", ((8, 128), (4, 1))),
    ("T(32,128)(4,1)", ((32, 128), (4, 1))),
    ("T(4,128)(4,1)", ((4, 128), (4, 1))),
    ("T(128)", ((128,),)),
    ("T(256)", ((256,),)),
    ("T(512)", ((512,),)),
    ("T(1024)", ((1024,),)),
    ("T(1024)(128)(2,1)", ((1024,), (128,), (2, 1))),
    ("T(256)(128)(2,1)", ((256,), (128,), (2, 1))),
)


def parse_e0102(text: str) -> dict[str, Any] | None:
    """Fields of the first E0102-family message in ``text`` (line breaks allowed), or None.

    Integers are ints; absent parts (no shapes on CPU/GPU, no sizes in the
    StreamExecutor form, no replica suffix on one device) are None.
    """
    m = SIZE_MESSAGE.search(text)
    form = "size"
    if m is None:
        m = SHAPE_MESSAGE.search(text)
        form = "shape"
        if m is None:
            return _parse_variant(text)
    groups = m.groupdict()
    fields: dict[str, Any] = {}
    for name in FIELD_NAMES:
        value = groups.get(name)
        if value is not None and name in ("parameter", "expected_size", "actual_size", "replica", "partition"):
            value = int(value)
        fields[name] = value
    fields["format"] = {"size": "tpu" if fields["expected_shape"] else "cpu_gpu", "shape": "stream_executor"}[form]
    fields["variant"] = "size" if form == "size" else "shape"
    fields["_span"] = m.span()
    return fields


def _parse_variant(text: str) -> dict[str, Any] | None:
    """Fields of PjRt's element-type, rank, layout, dynamic-bound or memory-space message."""
    for variant, pattern in VARIANT_MESSAGES:
        m = pattern.search(text)
        if m is None:
            continue
        fields: dict[str, Any] = {name: None for name in FIELD_NAMES}
        groups = m.groupdict()
        fields["executable"] = groups.get("executable")
        fields["parameter"] = int(groups["parameter"])
        fields["variant"] = variant
        if variant == "dynamic_bound":
            fields["dimension"] = int(groups["dimension"])
            fields["expected_bound"], fields["actual_dimension_size"] = int(groups["expected"]), int(groups["actual"])
        elif variant == "memory_space":
            fields["actual_memory_space"] = groups["actual"]
        else:
            fields[f"expected_{variant}"], fields[f"actual_{variant}"] = groups["expected"], groups["actual"]
        fields["format"] = "pjrt"
        fields["_span"] = m.span()
        return fields
    return None


def _parse(shape_text: str):
    from ..base.errors import InputError
    from ..syntax.shape_parser import parse_shape

    try:
        return parse_shape(shape_text, source="<message>")
    except InputError:
        return None


def explain_shape(shape_text: str, printed_size: int | None) -> dict[str, Any]:
    """Sizes of one printed shape, its padded dimensions, and tilings that explain a mismatching size."""
    from ..ir.sizes import dimension_padding, logical_bytes, physical_bytes, runtime_bytes

    shape = _parse(shape_text)
    if shape is None:
        return {"shape": shape_text, "parsed": False}
    info: dict[str, Any] = {"shape": str(shape), "parsed": True}
    if shape.is_tuple:
        info["logical_bytes"] = logical_bytes(shape)
        return info
    try:
        phys = physical_bytes(shape)
    except XlaDoctorError as e:  # a size past int64 (a huge tile): no buffer has it, nothing to compare
        return {"shape": shape_text, "parsed": False, "invalid": str(e)}
    info["logical_bytes"] = logical_bytes(shape)
    info["physical_bytes"] = phys
    layout = shape.layout
    if layout is not None and layout.minor_to_major:
        info["minor_to_major"] = list(layout.minor_to_major)
        info["jax_major_to_minor"] = list(reversed(layout.minor_to_major))
        info["tiling"] = ("T" + "".join("(" + ",".join(map(str, t.dimensions)) + ")" for t in layout.tiles)
                          if layout.tiles else None)
    info["padded_dimensions"] = [
        {"dim": p.dim, "size": p.size, "padded_size": p.padded_size, "tile_entry": p.tile_entry,
         "physical_position": p.physical_position}
        for p in dimension_padding(shape) if p.padded_size != p.size
    ]
    runtime = runtime_bytes(shape)
    if runtime != phys:  # dynamic-shape metadata (M(n) on TPU, sizes after the data on CPU/GPU)
        info["runtime_bytes"] = runtime
    info.update(tpu_default_info(shape))
    if printed_size is not None:
        info["printed_size"] = printed_size
        info["size_matches_shape"] = printed_size in (phys, runtime)
        if printed_size not in (phys, runtime):
            info["tilings_matching_printed_size"] = tilings_for_size(shape, printed_size)
    return info


def tpu_default_info(shape) -> dict[str, Any]:
    """Which TPU generations' default layout (``get_default_layout``) the printed layout is, and the defaults.

    A buffer made without a layout (``device_put``, a restored checkpoint) carries the
    default; an executable's parameter carries what the compiler chose.
    """
    from ..ir.tpu_layouts import TPU_GENERATIONS, NoTpuDefault, default_for_generations, tpu_default_layout

    if shape.layout is None or not shape.layout.tiles:
        return {}  # an untiled layout is a CPU/GPU one, or printed without its tiling
    try:
        defaults = {g: str(tpu_default_layout(shape.element_type, shape.dimensions, g)) for g in TPU_GENERATIONS}
    except NoTpuDefault:
        return {}
    groups: dict[str, list[str]] = {}
    for g, layout in defaults.items():
        groups.setdefault(layout, []).append(g)
    return {"tpu_default_for": list(default_for_generations(shape)),
            "tpu_defaults": [{"generations": gs, "layout": layout} for layout, gs in groups.items()]}


def _defaults_text(defaults: list[dict[str, Any]]) -> str:
    """``v2, v3: {..}; v4, v5e, v5p, v6e: {..}``."""
    return "; ".join(f"{', '.join(d['generations'])}: {d['layout']}" for d in defaults)


def tpu_default_notes(sides) -> list[tuple[str, dict[str, Any]]]:
    """The side that carries the TPU default layout, then the other side, when one does.

    ``sides``: ``(name, info)`` pairs, ``info`` holding :func:`tpu_default_info`'s keys.  Shared
    by ``explain`` (a logged E0102) and ``inputs`` (two modules' layouts); render with :func:`note_text`.
    """
    defaults = [(side, info) for side, info in sides if info.get("tpu_default_for")]
    if not defaults:
        return []
    notes = [("e0102.note.tpu_default", {"side": side, "gens": ", ".join(info["tpu_default_for"])}) for side, info in defaults]
    notes += [("e0102.note.tpu_not_default", {"side": side, "default": _defaults_text(info["tpu_defaults"])})
              for side, info in sides if "tpu_default_for" in info and not info["tpu_default_for"]]
    if len(defaults) == 2 and not set(defaults[0][1]["tpu_default_for"]) & set(defaults[1][1]["tpu_default_for"]):
        notes.append(("e0102.note.tpu_generations_differ", {}))
    return notes


def tilings_for_size(shape, size: int) -> list[str]:
    """Common TPU tilings that, put on the printed ``minor_to_major``, give exactly ``size`` bytes."""
    from ..ir.shape import Layout, Tile
    from ..ir.sizes import physical_bytes

    base = shape.layout or Layout(minor_to_major=tuple(range(shape.rank - 1, -1, -1)))
    found = []
    bits = (shape.element_type.byte_width or 4) * 8
    for label, tiles in CANDIDATE_TILINGS:
        # Sub-tiles pack narrow types into 32-bit words: (2,1) is for 16-bit, (4,1) for 8-bit types.
        if any(t in ((2, 1),) for t in tiles[1:]) and bits != 16:
            continue
        if any(t in ((4, 1),) for t in tiles[1:]) and bits != 8:
            continue
        candidate = shape.replace(layout=base.replace(tiles=tuple(Tile(t) for t in tiles)))
        try:
            if physical_bytes(candidate) == size:
                found.append(f"{label} on {{{','.join(map(str, base.minor_to_major))}}}")
        except Exception:  # a tiling the size rules reject for this shape: not a candidate
            continue
    return found


def analyze_e0102(fields: dict[str, Any]) -> dict[str, Any]:
    """Recompute both sides of an E0102 message and say where the bytes differ."""
    analysis: dict[str, Any] = {}
    exp = act = None
    if fields.get("expected_shape"):
        exp = explain_shape(fields["expected_shape"], fields.get("expected_size"))
        analysis["expected"] = exp
        if "physical_bytes" in exp:
            analysis["expected_physical_bytes"] = exp["physical_bytes"]
    if fields.get("actual_shape"):
        act = explain_shape(fields["actual_shape"], fields.get("actual_size"))
        analysis["actual"] = act
        if "physical_bytes" in act:
            analysis["actual_physical_bytes"] = act["physical_bytes"]
    es, as_ = fields.get("expected_size"), fields.get("actual_size")
    if es and as_:
        analysis["size_ratio"] = round(es / as_, 4)
    notes: list[tuple[str, dict[str, Any]]] = []
    if exp and act and exp.get("parsed") and act.get("parsed"):
        same_logical = exp.get("logical_bytes") == act.get("logical_bytes")
        if exp.get("minor_to_major") != act.get("minor_to_major"):
            notes.append(("e0102.note.order", {"e": exp.get("minor_to_major"), "ej": exp.get("jax_major_to_minor"),
                                    "a": act.get("minor_to_major"), "aj": act.get("jax_major_to_minor")})
                         if same_logical else ("e0102.note.logical", {}))
        if exp.get("tiling") != act.get("tiling"):
            notes.append(("e0102.note.tiling", {"e": exp.get("tiling"), "a": act.get("tiling")}))
        for side, info in (("expected", exp), ("buffer", act)):
            for p in info.get("padded_dimensions", []):
                notes.append(("e0102.note.padded", {"side": side, "dim": p["dim"], "size": p["size"], "padded": p["padded_size"],
                                         "tile": p["tile_entry"], "where": _where_in_memory(p["physical_position"])}))
            if info.get("size_matches_shape") is False:
                cands = info.get("tilings_matching_printed_size") or []
                values = {"side": side, "printed": info["printed_size"], "shape": info["shape"],
                          "bytes": info["physical_bytes"], "cands": ", ".join(cands)}
                notes.append(("e0102.note.hidden_tiling" if cands else "e0102.note.hidden_tiling_unknown", values))
        notes.extend(tpu_default_notes((("buffer", act), ("expected", exp))))
    elif fields.get("format") == "cpu_gpu" and es and as_:
        notes.append(("e0102.note.dense", {"ratio": analysis["size_ratio"]}))
    # Words are chosen when the finding is shown (text, JSON or HTML, in the reader's language).
    analysis["notes"] = [note(key, values) for key, values in notes]
    analysis["fixes_first"] = [text(k, **v) for k, v in _advice(fields, exp, act)]
    # A buffer in the wrong memory space, of another type, rank or bound is not a layout problem:
    # the catalogue's generic fixes (re-export, relayout) would mislead.
    analysis["replaces_fixes"] = fields.get("variant") in ("memory_space", "element_type", "rank", "dynamic_bound")
    # Markers (in every language's text) of catalogue fixes this analysis already covers or rules out.
    analysis["skips_fixes_with"] = ["input_formats", "with_memory_kind"]
    return analysis


def _advice(fields: dict[str, Any], exp: dict[str, Any] | None, act: dict[str, Any] | None,
            ) -> list[tuple[str, dict[str, Any]]]:
    """The fixes this particular message supports, most direct first."""
    p = fields.get("parameter")
    variant = fields.get("variant")
    if variant == "memory_space":
        return [("e0102.advice.memory_space", {"p": p, "kind": fields.get("actual_memory_space")})]
    if variant == "element_type":
        return [("e0102.advice.element_type", {"p": p, "e": fields.get("expected_element_type"),
                                  "a": fields.get("actual_element_type")})]
    if variant == "rank":
        return [("e0102.advice.rank", {"p": p, "e": fields.get("expected_rank"), "a": fields.get("actual_rank")})]
    if variant == "dynamic_bound":
        return [("e0102.advice.bound", {"p": p, "d": fields.get("dimension"), "e": fields.get("expected_bound"),
                           "a": fields.get("actual_dimension_size")})]
    if variant == "layout":
        return [("e0102.advice.device_put", {"p": p}), ("e0102.advice.relayout_layout", {})]
    if exp and act and exp.get("parsed") and act.get("parsed"):
        if exp.get("logical_bytes") != act.get("logical_bytes"):
            return [("e0102.advice.logical", {"p": p})]
        return [("e0102.advice.device_put", {"p": p}),
                ("e0102.advice.relayout", {"a": act["shape"], "e": exp["shape"]})]
    if variant == "size" and fields.get("format") == "cpu_gpu":
        return [("e0102.advice.logical", {"p": p})]
    return [("e0102.advice.device_put", {"p": p})]


_SIDE_LABELS = {"expected": "e0102.side.expected", "buffer": "e0102.side.buffer", "supplied": "e0102.side.supplied"}


def _where_in_memory(pos: int) -> Text:
    """Where a padded dimension lies, as a sentence: "tile entry 128, physical position 0 from
    minor" was the jargon a reader had to decode (issue 22, item 8)."""
    if pos == 0:
        return text("e0102.where.minor")
    return text("e0102.where.second_minor") if pos == 1 else text("e0102.where.other", pos=pos)


def note(key: str, values: dict[str, Any]) -> Text:
    """One analysis note (a key of ``[e0102.note]`` in ``labels/*.toml``), its side (expected or buffer) a word too."""
    if "side" in values:
        values = {**values, "side": text(_SIDE_LABELS[values["side"]])}
    return text(key, **values)


def note_text(key: str, values: dict[str, Any], lang: str) -> str:
    """One analysis note's text in ``lang``."""
    return note(key, values).render(lang)
