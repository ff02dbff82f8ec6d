"""Printing an HloModule back to HLO text that XLA (jaxlib) parses.

The printer mirrors :mod:`.hlo_parser`: raw attribute text is reproduced as read,
and the fields analyses may change are regenerated from the IR
(``entry_computation_layout``, ``custom_call_target``, ``index``,
``frontend_attributes``, called computations, operands, shapes).  Instructions
created by a rewrite print like any other.  Names get a ``%`` prefix when the
input used one (compiled dumps do, ``Lowered.as_text("hlo")`` does not).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..ir.computation import HloComputation
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule, ProgramShape
from ..ir.opcodes import CONSTANT, PARAMETER
from .attributes import format_string_map, parse_string_map, quote
from .hlo_lexicon import KEYWORDS


def print_module(module: HloModule, entry_layout: ProgramShape | None = None) -> str:
    """The whole module as HLO text (header, source tables, computations).

    ``entry_layout``: print this explicit entry layout instead of the module's, so a fix that only
    changes the layout (``offload --fix host``) is printed without copying the module."""
    # A keyword read as a name ('%true', or the label 'ENTRY:') reads back only with its '%'.
    keyword_named = any(c.name in KEYWORDS or any(i.name in KEYWORDS for i in c.instructions)
                        for c in module.computations)
    pct = "%" if module.print_percent or keyword_named else ""
    header = [f"HloModule {'%' if module.name in KEYWORDS else ''}{module.name}"]
    attrs = dict(module.attributes)
    if entry_layout is not None:
        attrs["entry_computation_layout"] = "{" + str(entry_layout) + "}"
    elif module.has_explicit_entry_layout and module.entry_computation_layout is not None:
        attrs["entry_computation_layout"] = "{" + str(module.entry_computation_layout) + "}"
    _put_string_map(attrs, "frontend_attributes", module.frontend_attributes)
    header.extend(f"{k}={v}" for k, v in attrs.items())
    out = [", ".join(header), ""]
    out.extend(_source_tables(module))
    for comp in module.computations:
        out.append(print_computation(comp, pct))
        out.append("")
    return "\n".join(out) + "\n"


def _source_tables(module: HloModule) -> list[str]:
    t = module.source_tables
    if not t:
        return []
    out: list[str] = []
    if t.file_names:
        out += ["FileNames", *(f"{k} {quote(v)}" for k, v in t.file_names.items()), ""]
    if t.function_names:
        out += ["FunctionNames", *(f"{k} {quote(v)}" for k, v in t.function_names.items()), ""]
    if t.file_locations:
        rows = []
        for k, loc in t.file_locations.items():
            parts = [f"file_name_id={loc.file_name_id}", f"function_name_id={loc.function_name_id}", f"line={loc.line}"]
            if loc.end_line is not None:
                parts.append(f"end_line={loc.end_line}")
            if loc.column is not None:
                parts.append(f"column={loc.column}")
            if loc.end_column is not None:
                parts.append(f"end_column={loc.end_column}")
            rows.append(f"{k} {{{' '.join(parts)}}}")
        out += ["FileLocations", *rows, ""]
    if t.stack_frames:
        out += ["StackFrames", *(f"{k} {{file_location_id={f.file_location_id} parent_frame_id={f.parent_frame_id}}}"
                                 for k, f in t.stack_frames.items()), ""]
    out.append("")
    return out


def print_computation(comp: HloComputation, pct: str = "") -> str:
    params = ", ".join(f"{p.name}: {p.shape.human_string()}" for p in comp.parameters)
    root_shape = comp.root.shape.human_string() if comp.root is not None else "()"
    head = f"{'ENTRY ' if comp.is_entry else ''}{pct}{comp.name} ({params}) -> {root_shape} {{"
    lines = [head]
    lines.extend("  " + print_instruction(i, pct) for i in comp.instructions)
    tail = "}"
    if comp.execution_thread is not None:
        tail += f", execution_thread={quote(comp.execution_thread)}"
    lines.append(tail)
    return "\n".join(lines)


def print_instruction(instr: HloInstruction, pct: str = "", operand_names: Sequence[str] | None = None) -> str:
    """One instruction line, without indentation.

    ``operand_names``: print these as the operands instead of ``instr``'s own, so a caller can show
    the line an edit would give (a fix's changed ROOT tuple) without rewiring the module's users."""
    if instr.opcode is PARAMETER:
        args = str(instr.parameter_number)
    elif instr.opcode is CONSTANT:
        args = instr.literal or ""
    elif operand_names is None:
        args = ", ".join(pct + o.name for o in instr.operands)
    else:
        args = ", ".join(pct + name for name in operand_names)
    text = f"{'ROOT ' if instr.is_root else ''}{pct}{instr.name} = {instr.shape} {instr.opcode.value}({args})"
    attrs = _attributes(instr, pct)
    if attrs:
        text += ", " + ", ".join(f"{k}={v}" for k, v in attrs.items())
    return text


def _put_string_map(attrs: dict[str, str], key: str, values: Mapping[str, str]) -> None:
    """Keep the text as read when the decoded map is unchanged (unquoted values such as
    ``xla.sdy.meshes={...}`` must not be re-quoted); otherwise print the map anew."""
    raw = attrs.get(key)
    if raw is not None:
        try:
            if parse_string_map(raw) == values:
                return
        except ValueError:
            pass
    if values:
        attrs[key] = format_string_map(values)
    else:
        attrs.pop(key, None)


def _attributes(instr: HloInstruction, pct: str) -> dict[str, str]:
    attrs = dict(instr.attributes)
    if instr.tuple_index is not None:
        attrs["index"] = str(instr.tuple_index)
    if instr.custom_call_target is not None:
        attrs["custom_call_target"] = quote(instr.custom_call_target)
    _put_string_map(attrs, "frontend_attributes", instr.frontend_attributes)
    for role, comps in instr.called.items():
        names = [pct + c.name for c in comps]
        multi = role == "branch_computations" or attrs.get(role, "").startswith("{")
        attrs[role] = "{" + ", ".join(names) + "}" if multi else names[0]
    if instr.control_predecessors or "control-predecessors" in attrs:
        if instr.control_predecessors:
            attrs["control-predecessors"] = "{" + ", ".join(pct + c.name for c in instr.control_predecessors) + "}"
        else:
            del attrs["control-predecessors"]
    return attrs
