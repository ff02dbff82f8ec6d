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

import dataclasses
import re
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
            return None
    groups = m.groupdict()
    fields: dict[str, Any] = {}
    for name in FIELD_NAMES:
        value = groups.get(name)
        if value is not None and name in ("parameter", "expected_size", "actual_size", "replica", "partition"):
            value = int(value)
        fields[name] = value
    fields["format"] = {"size": "tpu" if fields["expected_shape"] else "cpu_gpu", "shape": "stream_executor"}[form]
    fields["_span"] = m.span()
    return fields


def _parse(shape_text: str):
    from ..errors import InputError
    from ..syntax.shape_parser import parse_shape

    try:
        return parse_shape(shape_text, source="<message>")
    except InputError:
        return None


def explain_shape(shape_text: str, printed_size: int | None) -> dict[str, Any]:
    """Sizes of one printed shape, its padded dimensions, and tilings that explain a mismatching size."""
    from ..ir.sizes import dimension_padding, logical_bytes, physical_bytes

    shape = _parse(shape_text)
    if shape is None:
        return {"shape": shape_text, "parsed": False}
    info: dict[str, Any] = {"shape": str(shape), "parsed": True}
    if shape.is_tuple:
        info["logical_bytes"] = logical_bytes(shape)
        return info
    phys = physical_bytes(shape)
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
    info.update(_tpu_default(shape))
    if printed_size is not None:
        info["printed_size"] = printed_size
        info["size_matches_shape"] = printed_size == phys
        if printed_size != phys:
            info["tilings_matching_printed_size"] = tilings_for_size(shape, printed_size)
    return info


def _tpu_default(shape) -> dict[str, Any]:
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


def _tpu_default_notes(sides) -> list[tuple[str, dict[str, Any]]]:
    """The side that carries the TPU default layout, then the other side, when one does."""
    defaults = [(side, info) for side, info in sides if info.get("tpu_default_for")]
    if not defaults:
        return []
    notes = [("tpu_default", {"side": side, "gens": ", ".join(info["tpu_default_for"])}) for side, info in defaults]
    notes += [("tpu_not_default", {"side": side, "default": _defaults_text(info["tpu_defaults"])})
              for side, info in sides if "tpu_default_for" in info and not info["tpu_default_for"]]
    if len(defaults) == 2 and not set(defaults[0][1]["tpu_default_for"]) & set(defaults[1][1]["tpu_default_for"]):
        notes.append(("tpu_generations_differ", {}))
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
        candidate = dataclasses.replace(shape, layout=dataclasses.replace(
            base, tiles=tuple(Tile(t) for t in tiles)))
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
            notes.append(("order", {"e": exp.get("minor_to_major"), "ej": exp.get("jax_major_to_minor"),
                                    "a": act.get("minor_to_major"), "aj": act.get("jax_major_to_minor")})
                         if same_logical else ("logical", {}))
        if exp.get("tiling") != act.get("tiling"):
            notes.append(("tiling", {"e": exp.get("tiling"), "a": act.get("tiling")}))
        for side, info in (("expected", exp), ("buffer", act)):
            for p in info.get("padded_dimensions", []):
                notes.append(("padded", {"side": side, "dim": p["dim"], "size": p["size"], "padded": p["padded_size"],
                                         "tile": p["tile_entry"], "pos": p["physical_position"]}))
            if info.get("size_matches_shape") is False:
                cands = info.get("tilings_matching_printed_size") or []
                values = {"side": side, "printed": info["printed_size"], "shape": info["shape"],
                          "bytes": info["physical_bytes"], "cands": ", ".join(cands)}
                notes.append(("hidden_tiling" if cands else "hidden_tiling_unknown", values))
        notes.extend(_tpu_default_notes((("buffer", act), ("expected", exp))))
    elif fields.get("format") == "cpu_gpu" and es and as_:
        notes.append(("dense", {"ratio": analysis["size_ratio"]}))
    analysis["notes"] = [_note(key, values, "en") for key, values in notes]
    analysis["notes_fa"] = [_note(key, values, "fa") for key, values in notes]
    return analysis


# Each analysis note in both languages (the Persian follows the vocabulary of the seed pages:
# طرح‌بندی for layout, کاشی‌کاری for tiling, بافر for buffer).
_NOTES = {
    "order": (
        "same logical array, different dimension order: expected minor_to_major {e} (JAX major_to_minor {ej}), "
        "buffer has {a} (JAX major_to_minor {aj})",
        "همان آرایه منطقی با ترتیب ابعاد متفاوت: طرح‌بندی مورد انتظار minor_to_major {e} است "
        "(در JAX major_to_minor {ej}) و بافر minor_to_major {a} دارد (در JAX major_to_minor {aj})"),
    "logical": ("different logical shapes or element types", "شکل منطقی یا نوع عناصر دو طرف متفاوت است"),
    "tiling": ("different tiling: expected {e}, buffer has {a}",
               "کاشی‌کاری متفاوت: مورد انتظار {e} است و بافر {a} دارد"),
    "padded": ("{side}: dimension {dim} ({size}) is padded to {padded} (tile entry {tile}, physical position {pos} "
               "from minor)",
               "{side}: بعد {dim} با اندازه {size} تا {padded} پر (padding) می‌شود (ورودی کاشی {tile}، "
               "جایگاه فیزیکی {pos} از کم‌اهمیت‌ترین بعد)"),
    "hidden_tiling": (
        "{side}: printed size {printed} cannot come from printed shape {shape} ({bytes} bytes): the layout was "
        "printed without its tiling; tilings that give exactly {printed}: {cands}",
        "{side}: اندازه چاپ‌شده {printed} از شکل چاپ‌شده {shape} ({bytes} بایت) به دست نمی‌آید: طرح‌بندی "
        "بدون کاشی‌کاری‌اش چاپ شده است؛ کاشی‌کاری‌هایی که دقیقاً {printed} می‌دهند: {cands}"),
    "hidden_tiling_unknown": (
        "{side}: printed size {printed} cannot come from printed shape {shape} ({bytes} bytes): the layout was "
        "printed without its tiling; none of the common TPU tilings gives that size",
        "{side}: اندازه چاپ‌شده {printed} از شکل چاپ‌شده {shape} ({bytes} بایت) به دست نمی‌آید: طرح‌بندی "
        "بدون کاشی‌کاری‌اش چاپ شده است؛ هیچ‌یک از کاشی‌کاری‌های رایج TPU این اندازه را نمی‌دهد"),
    "tpu_default": (
        "{side}: this layout is the TPU default for the shape ({gens}; libtpu's get_default_layout), the one a "
        "buffer gets when it is made without a layout (device_put, a restored checkpoint)",
        "{side}: این طرح‌بندی، طرح‌بندی پیش‌فرض TPU برای این شکل است ({gens}؛ get_default_layout در libtpu)، "
        "همان که بافری که بدون طرح‌بندی ساخته شود (device_put یا بازیابی checkpoint) می‌گیرد"),
    "tpu_generations_differ": (
        "the two layouts are the defaults of different TPU generations: the buffer was laid out for another chip "
        "generation than the executable was compiled for",
        "دو طرح‌بندی، پیش‌فرض نسل‌های متفاوت TPU هستند: بافر برای نسل دیگری از تراشه چیده شده است تا نسلی که "
        "برنامه برای آن کامپایل شده"),
    "tpu_not_default": (
        "{side}: this layout is not a TPU default for the shape ({default}): it was chosen (a layout given to "
        "jit, Layout.AUTO, or another compiler version; plain jax.jit gives parameters the default)",
        "{side}: این طرح‌بندی هیچ‌یک از پیش‌فرض‌های TPU برای این شکل ({default}) نیست: انتخاب شده است "
        "(طرح‌بندی داده‌شده به jit یا Layout.AUTO یا نسخه دیگری از کامپایلر؛ jax.jit ساده به پارامترها پیش‌فرض را "
        "می‌دهد)"),
    "dense": ("CPU/GPU runtimes compare dense sizes: the buffer's shape or element type differs from the compiled "
              "parameter (ratio {ratio})",
              "زمان اجرای CPU/GPU اندازه‌های متراکم را مقایسه می‌کند: شکل یا نوع عناصر بافر با پارامتر "
              "برنامه کامپایل‌شده فرق دارد (نسبت {ratio})"),
}
_SIDES_FA = {"expected": "مورد انتظار", "buffer": "بافر"}


def _note(key: str, values: dict[str, Any], lang: str) -> str:
    en, fa = _NOTES[key]
    if lang == "fa":
        values = {**values, "side": _SIDES_FA.get(values.get("side", ""), values.get("side", ""))}
        return fa.format(**values)
    return en.format(**values)
