"""What a JAX layout/memory-kind error (``E01xx``, read by :mod:`.jax_messages`) means, and its fix.

Where the message gives a value's type and two layouts (jit's and the argument's, or the
executable's and the argument's), both are sized as XLA would store them and the E0102
explainer (:func:`.messages.analyze_e0102`) tells which dimension order, tiling and padding
differ.  Layouts printed without tiling (CPU, GPU) are also sized under the tiling a TPU
typically gives (:func:`.jax_spelling.tpu_tiled`, an assumption the note says), so a CPU run
tells what the same call costs on a TPU.  Every form gets its own concrete fix, in the
argument's own name where the message has it.
"""

from __future__ import annotations

import re
from typing import Any

from ..base.labels import Text, text
from .jax_messages import aval_shape, xla_layout
from .jax_spelling import tpu_tiled

# Forms whose fix has nothing to do with relayout: the catalogue's general fixes would mislead.
_OWN_FIXES_ONLY = ("unknown_memory_kind", "invalid_memory_kind", "format_without_sharding", "device_local_layout",
                   "layout_rank", "layout_constraint", "ref_memory_space",
                   # two operands of one op inside jit: no argument's format is at fault, so the
                   # catalogue's argument advice (in_shardings=x.format) would keep the error
                   "mixed_memory_spaces")


def analyze(fields: dict[str, Any]) -> dict[str, Any]:
    """Notes (the size story), numbers, and the fixes first in line for one parsed message."""
    form = fields.get("variant")
    analysis: dict[str, Any] = {}
    notes: list[Text] = []
    fixes: list[Text] = []
    if form == "compiled":
        _compiled(fields, analysis, notes, fixes)
    elif form in ("jit_layout", "layout_override") and fields.get("jit_layout") != "AUTO":
        required, passed = ((fields["jit_layout"], fields["arg_layout"]) if form == "jit_layout"
                            else (fields["xla_layout"], fields["user_layout"]))
        sizes = layout_sizes(fields["aval"], required, passed)
        if sizes is not None:
            analysis.update(sizes[0])
            notes.extend(sizes[1])
        fixes.append(_advice(fields))
    else:
        if form == "jit_memory_kind":
            notes.append(memory_kind_note(fields["aval"], fields["aval"], fields["arg_memory_kind"],
                                          fields["jit_memory_kind"]))
        fixes.append(_advice(fields))
    analysis["notes"] = notes
    analysis["fixes_first"] = fixes
    analysis["replaces_fixes"] = form in _OWN_FIXES_ONLY
    # The catalogue's own device_put / with_memory_kind fixes, said here in the argument's terms.
    analysis["skips_fixes_with"] = ["input_formats", "with_memory_kind"]
    return analysis


def layout_sizes(aval: str, required: str, passed: str) -> tuple[dict[str, Any], list[Text]] | None:
    """Both sides of a layout mismatch as XLA shapes, sized, with the E0102 notes; None if unsized."""
    from ..ir.sizes import physical_bytes
    from .messages import analyze_e0102

    exp, act = aval_shape(aval, xla_layout(required)), aval_shape(aval, xla_layout(passed))
    if exp is None or act is None:
        return None
    tiled = bool(exp.effective_layout.tiles or act.effective_layout.tiles)
    notes: list[Text] = []
    numbers: dict[str, Any] = {"expected_shape": str(exp), "passed_shape": str(act),
                               "expected_bytes": physical_bytes(exp), "passed_bytes": physical_bytes(act)}
    if tiled:  # a side printed with tiling=None gets the tiling the TPU gives it by default
        exp = exp if exp.effective_layout.tiles else tpu_tiled(exp)
        act = act if act.effective_layout.tiles else tpu_tiled(act)
        numbers.update(expected_shape=str(exp), passed_shape=str(act),
                       expected_bytes=physical_bytes(exp), passed_bytes=physical_bytes(act))
    else:
        exp, act = tpu_tiled(exp), tpu_tiled(act)
        numbers.update(tpu_expected_shape=str(exp), tpu_passed_shape=str(act),
                       tpu_expected_bytes=physical_bytes(exp), tpu_passed_bytes=physical_bytes(act))
    story = analyze_e0102({"expected_shape": str(exp), "actual_shape": str(act), "format": "jax", "variant": "size"})
    key = "jax_layout.note.sizes" if tiled else "jax_layout.note.tpu_sizes"
    notes.append(text(key, e=str(exp), eb=f"{physical_bytes(exp):,}", a=str(act), ab=f"{physical_bytes(act):,}"))
    notes.extend(story.get("notes") or ())
    numbers["expected"], numbers["passed"] = story.get("expected"), story.get("actual")
    return numbers, notes


def memory_kind_note(argument: str, aval: str, passed: str, required: str) -> Text:
    """Where the argument is, where the program takes it, and how many bytes moving it copies."""
    from ..ir.sizes import logical_bytes

    shape = aval_shape(aval)
    size = f"{logical_bytes(shape):,}" if shape is not None else "?"
    return text("jax_layout.note.memory_kind", arg=argument, passed=passed, required=required, bytes=size)


def _compiled(fields: dict[str, Any], analysis: dict[str, Any], notes: list[Text], fixes: list[Text]) -> None:
    """Per argument of "Computation was compiled for input ... that disagree": sizes, then one fix each."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    arguments = []
    for entry in fields.get("mismatches") or ():
        record: dict[str, Any] = {"argument": entry["argument"], "kind": entry["kind"]}
        if entry["kind"] == "layout":
            key = (entry["aval"], entry["required"], entry["passed"])
            if key not in groups:
                sizes = layout_sizes(*key)
                if sizes is not None:
                    record.update(sizes[0])
                    notes.extend(sizes[1])
            groups.setdefault(key, []).append(entry["argument"])
        elif entry["kind"] == "memory_kind":
            notes.append(memory_kind_note(entry["argument"], entry["aval"], entry["passed_memory_kind"],
                                          entry["required_memory_kind"]))
        arguments.append(record)
        fixes.append(_entry_advice(entry))
    for names in groups.values():
        if len(names) > 1:
            notes.append(text("jax_layout.note.same_mismatch", args=", ".join(names), n=len(names)))
    if fields.get("total") and fields["total"] > len(arguments):
        notes.append(text("jax_layout.note.more", n=fields["total"] - len(arguments)))
    analysis["arguments"] = arguments
    if any(e["kind"] == "layout" for e in fields.get("mismatches") or ()):
        fixes.append(text("jax_layout.advice.fix_inputs"))


def _entry_advice(entry: dict[str, Any]) -> Text:
    name = entry["argument"]
    var = _variable(name)
    where = _input_index(name)
    if entry["kind"] == "layout":
        return text("jax_layout.advice.compiled_layout", arg=name, x=var, where=where, layout=entry["required"])
    if entry["kind"] == "memory_kind":
        return text("jax_layout.advice.compiled_memory_kind", arg=name, x=var, passed=entry["passed_memory_kind"],
                    required=entry["required_memory_kind"])
    return text("jax_layout.advice.compiled_sharding", arg=name, x=var, sharding=entry["required"],
                where=_input_index(name, "input_shardings"))


def _variable(argument: str) -> str:
    """A Python name to write the fix with: ``'x'`` -> ``x``, ``args[0]`` -> ``args[0]``."""
    return argument.strip("'\"") or "x"


def _input_index(argument: str, attribute: str = "input_formats") -> str:
    """Where the argument's entry is in ``compiled.input_formats`` (args, kwargs), as code."""
    m = re.fullmatch(r"args\[(\d+)\](.*)", argument)
    if m:
        return f"compiled.{attribute}[0][{m.group(1)}]{m.group(2)}"
    m = re.fullmatch(r"kwargs\[(.+?)\](.*)", argument)
    if m:
        return f"compiled.{attribute}[1][{m.group(1)}]{m.group(2)}"
    return f"compiled.{attribute}[0][i]"


def _advice(fields: dict[str, Any]) -> Text:
    """The fix for every form but ``compiled``, filled from the message's own values."""
    form = fields["variant"]
    if form == "jit_layout":
        if fields.get("jit_layout") == "AUTO":
            return text("jax_layout.advice.jit_auto")
        return text("jax_layout.advice.jit_layout", layout=fields["jit_layout"], aval=fields["aval"])
    if form == "layout_rank":
        shape = re.search(r"shape=\(([^)]*)\)", fields.get("reason", ""))
        rank = len([d for d in shape.group(1).split(",") if d.strip()]) if shape else None
        order = "(" + ", ".join(str(i) for i in range(rank)) + ("," if rank == 1 else "") + ")" if rank else "(...)"
        return text("jax_layout.advice.layout_rank", order=order, rank=rank if rank is not None else "?")
    if form == "buffer_memory_kind" and fields.get("between"):  # two arrays or buffers, no sharding
        return text("jax_layout.advice.arrays_memory_kind", a=fields["memory_kind"], b=fields["other_memory_kind"])
    values = {k: v for k, v in fields.items() if k in _ADVICE_VALUES}
    form = {"invalid_memory_kind": "unknown_memory_kind", "device_put_auto": "auto_not_concrete"}.get(form, form)
    return text(_ADVICE_KEYS[form], **values)


_ADVICE_KEYS = {
    "jit_memory_kind": "jax_layout.advice.jit_memory_kind", "unknown_memory_kind": "jax_layout.advice.unknown_memory_kind",
    "mixed_memory_spaces": "jax_layout.advice.mixed_memory_spaces",
    "buffer_memory_kind": "jax_layout.advice.buffer_memory_kind",
    "device_local_layout": "jax_layout.advice.device_local_layout",
    "donated_layout": "jax_layout.advice.donated_layout",
    "format_without_sharding": "jax_layout.advice.format_without_sharding",
    "auto_not_concrete": "jax_layout.advice.auto_not_concrete", "layout_override": "jax_layout.advice.layout_override",
    "reshard_memory_kind": "jax_layout.advice.reshard_memory_kind",
    "donation_memory_kinds": "jax_layout.advice.donation_memory_kinds",
    "ref_memory_space": "jax_layout.advice.ref_memory_space", "layout_constraint": "jax_layout.advice.layout_constraint"}
"""The advice of each remaining form, its label key spelt out (tests/test_labels.py reads them)."""


_ADVICE_VALUES = ("jit_memory_kind", "arg_memory_kind", "memory_kind", "available", "primitive", "other_memory_kind",
                  "layout", "memory_space", "requested")
