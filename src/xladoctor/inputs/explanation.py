"""Words for a :class:`~.compare.ParameterMismatch`: why the sizes differ, and how to fix it.

Kept apart from :mod:`.compare` (which is pure data) so other front ends (the JAX
integration, the log explainer) can reuse the data with their own wording.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base.escape import escape_field
from ..base.labels import glossary, in_lang, label
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


def _slot(p: DimensionPadding, lang: str = "en") -> str:
    if p.physical_position == 0:
        return label("inputs.slot_minor_most", lang)
    if p.physical_position == 1:
        return label("inputs.slot_second_minor", lang)
    return label("inputs.slot_position", lang, pos=p.physical_position)


def padding_phrase(padding: tuple[DimensionPadding, ...], shape: Shape, lang: str = "en") -> str:
    """``dimension 2 (40) is padded to 128 in the minor-most slot`` or ``no padding``."""
    parts = []
    for p in padding:
        if p.combined or not p.is_padded:
            continue
        if p.dim is None:
            parts.append(label("inputs.padded_virtual", lang, padded=p.padded_size, slot=_slot(p, lang)))
        else:
            parts.append(label("inputs.padded_dimension", lang, dim=p.dim, size=p.size, padded=p.padded_size, slot=_slot(p, lang)))
    if shape.is_array and shape.effective_layout.tiles and shape.effective_layout.tail_padding_alignment_in_elements != 1:
        parts.append(label("inputs.tail_rounded", lang, n=shape.effective_layout.tail_padding_alignment_in_elements))
    return "; ".join(parts) if parts else label("inputs.no_padding", lang)


def _minor_phrase(shape: Shape, lang: str = "en") -> str:
    if not shape.is_array or shape.rank == 0:
        return ""
    layout = shape.effective_layout
    return label("inputs.minor_phrase", lang, dim=layout.minor_to_major[0], order=layout.major_to_minor)


def summary(m: ParameterMismatch, lang: str = "en") -> str:
    """One sentence: expected N because ..., supplied M ..., ratio."""
    exp, sup = m.expected.shape, m.supplied.shape
    if m.kind == "shape":
        diffs = ", ".join(label("inputs.versus", lang, what=d.attribute, expected=d.expected, supplied=d.supplied)
                          for d in m.differences if d.attribute in ("element_type", "dimensions", "tuple_shapes"))
        return label("inputs.different_array", lang, diffs=diffs)
    text = label("inputs.summary", lang, expected=f"{m.expected_physical_bytes:,}",
                 padding=padding_phrase(m.expected_padding, exp, lang), supplied=f"{m.supplied_bytes:,}")
    if m.supplied.actual_bytes is not None and m.supplied.actual_bytes != m.supplied_physical_bytes:
        text += " " + label("inputs.summary_real_size", lang, implied=f"{m.supplied_physical_bytes:,}")
    else:
        text += " " + label("inputs.summary_padding", lang, padding=padding_phrase(m.supplied_padding, sup, lang))
    if m.expansion is not None and m.expected_physical_bytes != m.supplied_bytes:
        text += f"; {m.expansion:.2f}x"
    return text


RUNTIME_LABELS = {"tpu": "inputs.runtime_tpu", "cpu_gpu": "inputs.runtime_cpu_gpu",
                  "stream_executor": "inputs.runtime_stream_executor"}
"""Label keys of how a reader knows the runtimes of :data:`~xladoctor.inputs.compare.RUNTIMES`."""


def runtime_label(runtime: str, lang: str = "en") -> str:
    return label(RUNTIME_LABELS[runtime], lang) if runtime in RUNTIME_LABELS else runtime


def _num(value: object) -> str:
    """Byte counts with thousands separators (they arrive as ints or digit strings)."""
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def explanation_lines(m: ParameterMismatch, behind_jax: bool = False, lang: str = "en") -> list[str]:
    """The full explanation of one mismatch, as lines of text.

    ``behind_jax``: the buffer is a committed JAX argument, so JAX refuses the call
    before any XLA runtime sees it; what the runtimes would do is then said for a
    caller that gets past JAX (a deserialized executable, another frontend).
    """
    exp, sup = m.expected.shape, m.supplied.shape
    lines = [summary(m, lang)]
    if m.differences:
        lines.append(label("inputs.differs_in", lang, items=", ".join(
            label("inputs.difference", lang, what=d.attribute, expected=d.expected, supplied=d.supplied)
            for d in m.differences)))
    if m.kind != "shape" and exp.is_array and sup.is_array and exp.effective_layout.minor_to_major != \
            sup.effective_layout.minor_to_major:
        lines.append(label("inputs.wants", lang, expected=_minor_phrase(exp, lang), supplied=_minor_phrase(sup, lang)))
    if m.kind != "shape":
        sides = (("expected", tpu_default_info(exp)), ("supplied", tpu_default_info(sup)))
        lines.extend(note_text(key, values, lang) for key, values in tpu_default_notes(sides))
    if m.expected_jax_layout and m.kind != "shape":
        lines.append(label("inputs.jax_layouts", lang, expected=m.expected_jax_layout, supplied=m.supplied_jax_layout))
    lines.extend(_runtime_lines(m, behind_jax, lang))
    lines.extend(in_lang(n, lang) for n in m.notes)
    if m.hidden_layout_candidates:
        lines.append(label("inputs.hidden_layouts", lang, layouts=", ".join(m.hidden_layout_candidates)))
    return lines


def _runtime_lines(m: ParameterMismatch, behind_jax: bool, lang: str = "en") -> list[str]:
    """What each XLA runtime's input check does with the buffer, and who would run with it anyway."""
    accepting = [v.runtime for v in m.verdicts if v.accepts]
    rejecting = [v.runtime for v in m.verdicts if not v.accepts]
    lines = [label("inputs.behind_jax", lang)] if behind_jax else []
    indent = "  " if behind_jax else ""
    for v in m.verdicts:
        lines.append(indent + label("inputs.verdict", lang, runtime=runtime_label(v.runtime, lang),
                                    verdict=label("inputs.accepts" if v.accepts else "inputs.rejects", lang),
                                    compares=in_lang(v.compares, lang), expected=_num(v.expected_value),
                                    supplied=_num(v.supplied_value)))
    if m.kind in ("layout", "memory_space") and accepting:
        names = ", ".join(runtime_label(r, lang) for r in accepting)
        line = label("inputs.would_run_past_jax" if behind_jax else "inputs.would_run", lang, runtimes=names)
        if m.kind == "layout":
            line += " " + label("inputs.wrong_order", lang)
        if rejecting:
            line += "; " + label("inputs.would_not", lang, runtimes=", ".join(runtime_label(r, lang) for r in rejecting))
        lines.append(indent + line)
    return lines


def fixes(m: ParameterMismatch, lang: str = "en") -> list[Fix]:
    """Ways out for one mismatch, most direct first."""
    exp, sup = m.expected.shape, m.supplied.shape
    who = m.expected.name or m.supplied.name or "x"
    var = who if who.isidentifier() or "[" in who else "x"
    if m.kind == "shape":
        return [Fix("data", label("inputs.fix_data", lang))]
    out = [
        Fix("device_put", label("inputs.fix_device_put", lang, who=who),
            f"{var} = jax.device_put({var}, {jax_format(exp)})\n"
            + label("inputs.code_or", lang, code="args, kwargs = jax.device_put((args, kwargs), compiled.input_formats)")),
        Fix("resave", label("inputs.fix_resave", lang)),
        Fix("recompile", label("inputs.fix_recompile", lang, who=who),
            f"jax.jit(f, in_shardings=...{jax_format(sup)}...)  " + label("inputs.code_at_position", lang, who=who)),
        Fix("config", label("inputs.fix_config", lang)),
    ]
    if exp.memory_space != sup.memory_space:
        kind = memory_kind(exp)
        text = (label("inputs.fix_move_kind", lang, who=who, space=exp.memory_space, kind=repr(kind)) if kind
                else label("inputs.fix_move", lang, who=who, space=exp.memory_space))
        out.insert(0, Fix("device_put", text,
                          f"{var} = jax.device_put({var}, sharding.with_memory_kind({kind!r}))" if kind else None))
    if exp.is_array and sup.is_array:
        out.append(Fix("relayout_offline", label("inputs.fix_relayout_offline", lang),
                       f"xladoctor relayout --from '{sup}' --to '{exp}' IN.bin OUT.bin"))
    return out


def report_lines(check: InputCheck, labels: dict[int, str] | None = None, lang: str = "en") -> list[str]:
    """The whole human-readable report for ``xladoctor inputs``."""
    lines = []
    if check.count_mismatch:
        lines.append(label("inputs.count_mismatch", lang, executable=check.executable, expected=glossary.count(check.expected_count, "parameter", lang),
                           supplied=check.supplied_count))
    if check.per_tuple_element:
        lines.append(label("inputs.per_tuple_element", lang))
    for m in check.mismatches:
        name = m.expected.name or m.supplied.name
        lines.append(label("inputs.parameter_named", lang, index=m.index, name=escape_field(name), kind=m.kind) if name
                     else label("inputs.parameter", lang, index=m.index, kind=m.kind))
        lines.append("  " + label("inputs.expected_sizes", lang, shape=m.expected.shape,
                                  physical=f"{m.expected_physical_bytes:,}", logical=f"{m.expected_logical_bytes:,}"))
        lines.append("  " + label("inputs.supplied_sizes", lang, shape=m.supplied.shape,
                                  physical=f"{m.supplied_bytes:,}", logical=f"{m.supplied_logical_bytes:,}"))
        lines.extend("  " + line for line in explanation_lines(m, lang=lang))
        lines.append("  " + label("inputs.fixes", lang))
        for i, f in enumerate(fixes(m, lang), start=1):
            lines.append(f"    {i}. {f.text}")
            if f.code:
                lines.extend("       " + c for c in f.code.splitlines())
    if check.messages:
        lines.append(label("inputs.runtime_messages", lang))
        for runtime, msg in check.messages.items():
            # libtpu's text is three lines (code, Executable line, XLA's page): each quoted as
            # printed, under the runtime's name, so the block reads as one message
            first, *rest = msg.splitlines()
            lines.append(f"  {runtime_label(runtime, lang)}: {first}")
            lines.extend(f"    {line}" for line in rest)
    if check.ok:
        lines.append(label("inputs.one_matches", lang) if check.expected_count == 1 else
                     label("inputs.all_match", lang, parameters=glossary.count(check.expected_count, "parameter", lang)))
    return lines
