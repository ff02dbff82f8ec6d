"""Words for a :class:`~.compare.ParameterMismatch`: why the sizes differ, and how to fix it.

Kept apart from :mod:`.compare` (which is pure data) so other front ends (the JAX
integration, the log explainer) can reuse the data with their own wording.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..escape import escape_field
from ..ir.shape import Shape
from ..ir.sizes import DimensionPadding
from .compare import InputCheck, ParameterMismatch
from .jax_spelling import jax_format, memory_kind
from .messages import note_text, tpu_default_info, tpu_default_notes


@dataclass(frozen=True)
class Fix:
    """One way out, with code to paste where there is code."""

    kind: str
    """``device_put``, ``resave``, ``recompile``, ``config``, ``relayout_offline``, ``data``."""
    text: str
    code: str | None = None


def _slot(p: DimensionPadding) -> str:
    if p.physical_position == 0:
        return "minor-most"
    if p.physical_position == 1:
        return "second-minor"
    return f"physical position {p.physical_position} (from minor)"


def padding_phrase(padding: tuple[DimensionPadding, ...], shape: Shape) -> str:
    """``dimension 2 (40) is padded to 128 in the minor-most slot`` or ``no padding``."""
    parts = []
    for p in padding:
        if p.combined or not p.is_padded:
            continue
        if p.dim is None:
            parts.append(f"a virtual size-1 dimension is padded to {p.padded_size} in the {_slot(p)} slot "
                         "(the tile has more entries than the shape has dimensions)")
        else:
            parts.append(f"dimension {p.dim} ({p.size}) is padded to {p.padded_size} in the {_slot(p)} slot")
    if shape.is_array and shape.effective_layout.tiles and shape.effective_layout.tail_padding_alignment_in_elements != 1:
        parts.append(f"the element count is rounded up to a multiple of "
                     f"{shape.effective_layout.tail_padding_alignment_in_elements} (L)")
    return "; ".join(parts) if parts else "no padding"


def _minor_phrase(shape: Shape) -> str:
    if not shape.is_array or shape.rank == 0:
        return ""
    layout = shape.effective_layout
    return f"dimension {layout.minor_to_major[0]} minor-most (major_to_minor={layout.major_to_minor})"


def summary(m: ParameterMismatch) -> str:
    """One sentence: expected N because ..., supplied M ..., ratio."""
    exp, sup = m.expected.shape, m.supplied.shape
    if m.kind == "shape":
        diffs = ", ".join(f"{d.attribute} {d.expected} vs {d.supplied}" for d in m.differences
                          if d.attribute in ("element_type", "dimensions", "tuple_shapes"))
        return f"a different array, not a different layout: {diffs}"
    text = (f"expected {m.expected_physical_bytes:,} bytes because {padding_phrase(m.expected_padding, exp)}; "
            f"supplied {m.supplied_bytes:,} bytes")
    if m.supplied.actual_bytes is not None and m.supplied.actual_bytes != m.supplied_physical_bytes:
        text += f" (real size; its printed shape implies {m.supplied_physical_bytes:,})"
    else:
        text += f" with {padding_phrase(m.supplied_padding, sup)}"
    if m.expansion is not None and m.expected_physical_bytes != m.supplied_bytes:
        text += f"; {m.expansion:.2f}x"
    return text


RUNTIME_LABELS = {"tpu": "TPU runtime (PjRt)", "cpu_gpu": "CPU/GPU runtime (PjRt)",
                  "stream_executor": "StreamExecutor runtime"}
"""How a reader knows the runtimes of :data:`~xladoctor.inputs.compare.RUNTIMES`."""


def runtime_label(runtime: str) -> str:
    return RUNTIME_LABELS.get(runtime, runtime)


def _num(value: object) -> str:
    """Byte counts with thousands separators (they arrive as ints or digit strings)."""
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def explanation_lines(m: ParameterMismatch, behind_jax: bool = False) -> list[str]:
    """The full explanation of one mismatch, as lines of text.

    ``behind_jax``: the buffer is a committed JAX argument, so JAX refuses the call
    before any XLA runtime sees it; what the runtimes would do is then said for a
    caller that gets past JAX (a deserialized executable, another frontend).
    """
    exp, sup = m.expected.shape, m.supplied.shape
    lines = [summary(m)]
    if m.differences:
        lines.append("differs in: " + ", ".join(
            f"{d.attribute} ({d.expected} expected, {d.supplied} supplied)" for d in m.differences))
    if m.kind != "shape" and exp.is_array and sup.is_array and exp.effective_layout.minor_to_major != \
            sup.effective_layout.minor_to_major:
        lines.append(f"the executable wants {_minor_phrase(exp)}; the buffer has {_minor_phrase(sup)}")
    if m.kind != "shape":
        sides = (("expected", tpu_default_info(exp)), ("supplied", tpu_default_info(sup)))
        lines.extend(note_text(key, values, "en") for key, values in tpu_default_notes(sides))
    if m.expected_jax_layout and m.kind != "shape":
        lines.append(f"JAX: expected {m.expected_jax_layout}, supplied {m.supplied_jax_layout}")
    accepting = [v.runtime for v in m.verdicts if v.accepts]
    rejecting = [v.runtime for v in m.verdicts if not v.accepts]
    if behind_jax:
        lines.append("JAX refuses the call first; past JAX (a deserialized executable, another frontend) XLA's "
                     "runtimes would check:")
    for v in m.verdicts:
        lines.append(f"{'  ' if behind_jax else ''}{runtime_label(v.runtime)}: "
                     f"{'accepts' if v.accepts else 'rejects'} (compares {v.compares}: "
                     f"{_num(v.expected_value)} vs {_num(v.supplied_value)})")
    if m.kind in ("layout", "memory_space") and accepting:
        names = [runtime_label(r) for r in accepting]
        lines.append(("  past JAX, " if behind_jax else "") + f"{', '.join(names)} would run with this buffer"
                     + (" and read its elements in the wrong order" if m.kind == "layout" else "")
                     + (f"; {', '.join(runtime_label(r) for r in rejecting)} would not" if rejecting else ""))
    lines.extend(m.notes)
    if m.hidden_layout_candidates:
        lines.append("layouts of the supplied shape with that real size: " + ", ".join(m.hidden_layout_candidates))
    return lines


def fixes(m: ParameterMismatch) -> list[Fix]:
    """Ways out for one mismatch, most direct first."""
    exp, sup = m.expected.shape, m.supplied.shape
    who = m.expected.name or m.supplied.name or "x"
    var = who if who.isidentifier() or "[" in who else "x"
    if m.kind == "shape":
        return [Fix("data", "the buffer holds a different array (element type or dimensions differ), so no relayout "
                    "helps: check the batch size (partial last batch), the dtype (jax_enable_x64), and that "
                    "arguments line up (jax drops unused arguments unless keep_unused=True, which renumbers "
                    "parameters)")]
    out = [
        Fix("device_put", f"relayout {who} on the device to the layout the executable was compiled for: "
            "device_put it to the matching leaf of compiled.input_formats (or the whole argument tree at once)",
            f"{var} = jax.device_put({var}, {jax_format(exp)})\n"
            f"# or: args, kwargs = jax.device_put((args, kwargs), compiled.input_formats)"),
        Fix("resave", "re-save the checkpoint (or cached buffers) with the current compile configuration, so "
            "its arrays carry the layout this executable expects"),
        Fix("recompile", f"recompile with the checkpoint's layout for {who}, so the executable accepts the "
            "buffers as they are",
            f"jax.jit(f, in_shardings=...{jax_format(sup)}...)  # at {who}'s position"),
        Fix("config", "find out why two compiles chose different layouts: compare XLA_FLAGS, jax/jaxlib/libtpu "
            "versions and the TPU generation and topology (e.g. 4x4x4 vs 4x8) of the run that wrote the data "
            "and the run that reads it"),
    ]
    if exp.memory_space != sup.memory_space:
        kind = memory_kind(exp)
        out.insert(0, Fix("device_put", f"move {who} to memory space S({exp.memory_space})"
                          + (f" (memory kind {kind!r})" if kind else ""),
                          f"{var} = jax.device_put({var}, sharding.with_memory_kind({kind!r}))" if kind else None))
    if exp.is_array and sup.is_array:
        out.append(Fix("relayout_offline", "relayout saved raw bytes offline",
                       f"xladoctor relayout --from '{sup}' --to '{exp}' IN.bin OUT.bin"))
    return out


def report_lines(check: InputCheck, labels: dict[int, str] | None = None) -> list[str]:
    """The whole human-readable report for ``xladoctor inputs``."""
    lines = []
    if check.count_mismatch:
        lines.append(f"executable {check.executable} expects {check.expected_count} parameters, "
                     f"{check.supplied_count} supplied")
    if check.per_tuple_element:
        lines.append("the executable's single tuple parameter is compared element by element (as CPU/GPU do)")
    for m in check.mismatches:
        name = m.expected.name or m.supplied.name
        head = f"parameter {m.index}" + (f" ({escape_field(name)})" if name else "") + f": {m.kind} mismatch"
        lines.append(head)
        lines.append(f"  expected {m.expected.shape}  [{m.expected_physical_bytes:,} B physical, "
                     f"{m.expected_logical_bytes:,} B logical]")
        lines.append(f"  supplied {m.supplied.shape}  [{m.supplied_bytes:,} B physical, "
                     f"{m.supplied_logical_bytes:,} B logical]")
        lines.extend("  " + line for line in explanation_lines(m))
        lines.append("  fixes:")
        for i, f in enumerate(fixes(m), start=1):
            lines.append(f"    {i}. {f.text}")
            if f.code:
                lines.extend("       " + c for c in f.code.splitlines())
    if check.messages:
        lines.append("what each runtime would print (it stops at the first parameter it rejects):")
        for runtime, msg in check.messages.items():
            lines.append(f"  {runtime_label(runtime)}: {msg}")
    if check.ok:
        lines.append(f"all {check.expected_count} parameters match")
    return lines
