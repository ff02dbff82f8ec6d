"""Words for a :class:`~.compare.ParameterMismatch`: why the sizes differ, and how to fix it.

Kept apart from :mod:`.compare` (which is pure data) so other front ends (the JAX
integration, the log explainer) can reuse the data with their own wording.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..escape import escape_field
from ..ir.shape import Shape
from ..ir.sizes import DimensionPadding
from ..labels import glossary, label
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
        return label("inputs.slot_minor_most")
    if p.physical_position == 1:
        return label("inputs.slot_second_minor")
    return label("inputs.slot_position", pos=p.physical_position)


def padding_phrase(padding: tuple[DimensionPadding, ...], shape: Shape) -> str:
    """``dimension 2 (40) is padded to 128 in the minor-most slot`` or ``no padding``."""
    parts = []
    for p in padding:
        if p.combined or not p.is_padded:
            continue
        if p.dim is None:
            parts.append(label("inputs.padded_virtual", padded=p.padded_size, slot=_slot(p)))
        else:
            parts.append(label("inputs.padded_dimension", dim=p.dim, size=p.size, padded=p.padded_size, slot=_slot(p)))
    if shape.is_array and shape.effective_layout.tiles and shape.effective_layout.tail_padding_alignment_in_elements != 1:
        parts.append(label("inputs.tail_rounded", n=shape.effective_layout.tail_padding_alignment_in_elements))
    return "; ".join(parts) if parts else label("inputs.no_padding")


def _minor_phrase(shape: Shape) -> str:
    if not shape.is_array or shape.rank == 0:
        return ""
    layout = shape.effective_layout
    return label("inputs.minor_phrase", dim=layout.minor_to_major[0], order=layout.major_to_minor)


def summary(m: ParameterMismatch) -> str:
    """One sentence: expected N because ..., supplied M ..., ratio."""
    exp, sup = m.expected.shape, m.supplied.shape
    if m.kind == "shape":
        diffs = ", ".join(label("inputs.versus", what=d.attribute, expected=d.expected, supplied=d.supplied)
                          for d in m.differences if d.attribute in ("element_type", "dimensions", "tuple_shapes"))
        return label("inputs.different_array", diffs=diffs)
    text = label("inputs.summary", expected=f"{m.expected_physical_bytes:,}",
                 padding=padding_phrase(m.expected_padding, exp), supplied=f"{m.supplied_bytes:,}")
    if m.supplied.actual_bytes is not None and m.supplied.actual_bytes != m.supplied_physical_bytes:
        text += " " + label("inputs.summary_real_size", implied=f"{m.supplied_physical_bytes:,}")
    else:
        text += " " + label("inputs.summary_padding", padding=padding_phrase(m.supplied_padding, sup))
    if m.expansion is not None and m.expected_physical_bytes != m.supplied_bytes:
        text += f"; {m.expansion:.2f}x"
    return text


RUNTIME_LABELS = {"tpu": "inputs.runtime_tpu", "cpu_gpu": "inputs.runtime_cpu_gpu",
                  "stream_executor": "inputs.runtime_stream_executor"}
"""Label keys of how a reader knows the runtimes of :data:`~xladoctor.inputs.compare.RUNTIMES`."""


def runtime_label(runtime: str) -> str:
    return label(RUNTIME_LABELS[runtime]) if runtime in RUNTIME_LABELS else runtime


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
        lines.append(label("inputs.differs_in", items=", ".join(
            label("inputs.difference", what=d.attribute, expected=d.expected, supplied=d.supplied)
            for d in m.differences)))
    if m.kind != "shape" and exp.is_array and sup.is_array and exp.effective_layout.minor_to_major != \
            sup.effective_layout.minor_to_major:
        lines.append(label("inputs.wants", expected=_minor_phrase(exp), supplied=_minor_phrase(sup)))
    if m.kind != "shape":
        sides = (("expected", tpu_default_info(exp)), ("supplied", tpu_default_info(sup)))
        lines.extend(note_text(key, values, "en") for key, values in tpu_default_notes(sides))
    if m.expected_jax_layout and m.kind != "shape":
        lines.append(label("inputs.jax_layouts", expected=m.expected_jax_layout, supplied=m.supplied_jax_layout))
    lines.extend(_runtime_lines(m, behind_jax))
    lines.extend(m.notes)
    if m.hidden_layout_candidates:
        lines.append(label("inputs.hidden_layouts", layouts=", ".join(m.hidden_layout_candidates)))
    return lines


def _runtime_lines(m: ParameterMismatch, behind_jax: bool) -> list[str]:
    """What each XLA runtime's input check does with the buffer, and who would run with it anyway."""
    accepting = [v.runtime for v in m.verdicts if v.accepts]
    rejecting = [v.runtime for v in m.verdicts if not v.accepts]
    lines = [label("inputs.behind_jax")] if behind_jax else []
    indent = "  " if behind_jax else ""
    for v in m.verdicts:
        lines.append(indent + label("inputs.verdict", runtime=runtime_label(v.runtime),
                                    verdict=label("inputs.accepts" if v.accepts else "inputs.rejects"),
                                    compares=v.compares, expected=_num(v.expected_value),
                                    supplied=_num(v.supplied_value)))
    if m.kind in ("layout", "memory_space") and accepting:
        names = ", ".join(runtime_label(r) for r in accepting)
        line = label("inputs.would_run_past_jax" if behind_jax else "inputs.would_run", runtimes=names)
        if m.kind == "layout":
            line += " " + label("inputs.wrong_order")
        if rejecting:
            line += "; " + label("inputs.would_not", runtimes=", ".join(runtime_label(r) for r in rejecting))
        lines.append(indent + line)
    return lines


def fixes(m: ParameterMismatch) -> list[Fix]:
    """Ways out for one mismatch, most direct first."""
    exp, sup = m.expected.shape, m.supplied.shape
    who = m.expected.name or m.supplied.name or "x"
    var = who if who.isidentifier() or "[" in who else "x"
    if m.kind == "shape":
        return [Fix("data", label("inputs.fix_data"))]
    out = [
        Fix("device_put", label("inputs.fix_device_put", who=who),
            f"{var} = jax.device_put({var}, {jax_format(exp)})\n"
            f"# or: args, kwargs = jax.device_put((args, kwargs), compiled.input_formats)"),
        Fix("resave", label("inputs.fix_resave")),
        Fix("recompile", label("inputs.fix_recompile", who=who),
            f"jax.jit(f, in_shardings=...{jax_format(sup)}...)  # at {who}'s position"),
        Fix("config", label("inputs.fix_config")),
    ]
    if exp.memory_space != sup.memory_space:
        kind = memory_kind(exp)
        text = (label("inputs.fix_move_kind", who=who, space=exp.memory_space, kind=repr(kind)) if kind
                else label("inputs.fix_move", who=who, space=exp.memory_space))
        out.insert(0, Fix("device_put", text,
                          f"{var} = jax.device_put({var}, sharding.with_memory_kind({kind!r}))" if kind else None))
    if exp.is_array and sup.is_array:
        out.append(Fix("relayout_offline", label("inputs.fix_relayout_offline"),
                       f"xladoctor relayout --from '{sup}' --to '{exp}' IN.bin OUT.bin"))
    return out


def report_lines(check: InputCheck, labels: dict[int, str] | None = None) -> list[str]:
    """The whole human-readable report for ``xladoctor inputs``."""
    lines = []
    if check.count_mismatch:
        lines.append(label("inputs.count_mismatch", executable=check.executable, expected=glossary.count(check.expected_count, "parameter"),
                           supplied=check.supplied_count))
    if check.per_tuple_element:
        lines.append(label("inputs.per_tuple_element"))
    for m in check.mismatches:
        name = m.expected.name or m.supplied.name
        lines.append(label("inputs.parameter_named", index=m.index, name=escape_field(name), kind=m.kind) if name
                     else label("inputs.parameter", index=m.index, kind=m.kind))
        lines.append("  " + label("inputs.expected_sizes", shape=m.expected.shape,
                                  physical=f"{m.expected_physical_bytes:,}", logical=f"{m.expected_logical_bytes:,}"))
        lines.append("  " + label("inputs.supplied_sizes", shape=m.supplied.shape,
                                  physical=f"{m.supplied_bytes:,}", logical=f"{m.supplied_logical_bytes:,}"))
        lines.extend("  " + line for line in explanation_lines(m))
        lines.append("  " + label("inputs.fixes"))
        for i, f in enumerate(fixes(m), start=1):
            lines.append(f"    {i}. {f.text}")
            if f.code:
                lines.extend("       " + c for c in f.code.splitlines())
    if check.messages:
        lines.append(label("inputs.runtime_messages"))
        for runtime, msg in check.messages.items():
            lines.append(f"  {runtime_label(runtime)}: {msg}")
    if check.ok:
        lines.append(label("inputs.one_matches") if check.expected_count == 1 else
                     label("inputs.all_match", parameters=glossary.count(check.expected_count, "parameter")))
    return lines
