"""The two remedies of the E1200 page, as edits of the module and as advice.

(a) *The output stays on host*: set ``S(5)`` on that output in
    ``entry_computation_layout`` (in JAX: ``memory_kind="pinned_host"`` on the
    matching ``out_shardings`` leaf).
(b) *The tensor returns to device*: put a move-to-device on the value just before
    it becomes that output (in JAX: ``jax.device_put(x, device_sharding)`` where
    the returned value is computed).  The annotation goes right before the output,
    after every host hop, so it catches every path that reaches it.

Both functions return an edited copy and leave the input alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.instruction import HloInstruction, SourceLocation
from ..ir.module import HloModule, ProgramShape
from ..ir.opcodes import HloOpcode
from ..ir.shape import HOST_MEMORY_SPACE, Shape, ShapeIndex, format_shape_index
from .annotations import ANNOTATE_DEVICE_PLACEMENT, BUFFER_PLACEMENT_ATTR, DEVICE_PLACEMENT, MOVE_TO_DEVICE, placement
from .clone import clone_module
from .result import HostOffloadResult, OutputMismatch


@dataclass(frozen=True)
class FixSuggestion:
    """Both remedies for one offending output, in HLO and in JAX terms."""

    output_index: ShapeIndex
    flat_output: int
    """Position of this output among the flattened outputs (JAX's out_shardings leaf order)."""
    result_name: str | None
    """``jax.result_info`` of that output when known, e.g. ``result['a']``."""
    host_layout: str
    """The output's layout with ``S(5)``: remedy (a)."""
    host_jax: str
    returned_value: str
    """The instruction whose value is returned at this output: remedy (b) goes after it."""
    returned_location: SourceLocation | None
    device_jax: str


def _flat_output_number(result_shape: Shape, index: ShapeIndex) -> int:
    for k, (idx, _) in enumerate(result_shape.leaves()):
        if idx[:len(index)] == index:
            return k
    return 0


def _returned_value(module: HloModule, index: ShapeIndex) -> tuple[HloInstruction, ShapeIndex]:
    """Descend through root tuples to the instruction that produces output ``index``."""
    instr = module.entry_computation().root_instruction()
    rest = index
    while rest and instr.opcode is HloOpcode.TUPLE:
        instr, rest = instr.operands[rest[0]], rest[1:]
    return instr, rest


def suggest_fixes(module: HloModule, result: HostOffloadResult,
                  result_names: list[str] | None = None) -> list[FixSuggestion]:
    out = []
    ecl = module.entry_layout()
    for err in result.errors:
        idx = err.output_index
        flat = _flat_output_number(ecl.result, idx)
        name = result_names[flat] if result_names and flat < len(result_names) else None
        leaf = f"{name}" if name else f"output #{flat}"
        host_shape = ecl.result.with_memory_space(HOST_MEMORY_SPACE, idx).subshape(idx)
        value, rest = _returned_value(module, idx)
        loc = value.source_location()
        where = f" at {loc}" if loc else ""
        value_text = value.name + (format_shape_index(rest) if rest else "")
        out.append(FixSuggestion(
            idx, flat, name, str(host_shape),
            f'out_shardings for {leaf}: a sharding with memory_kind="pinned_host" '
            '(e.g. NamedSharding(mesh, spec, memory_kind="pinned_host") or '
            'SingleDeviceSharding(device, memory_kind="pinned_host"))',
            value_text, loc,
            f"jax.device_put(x, device_sharding) on the returned value ({value_text}){where}, with a sharding "
            'whose memory_kind="device" (e.g. jax.sharding.SingleDeviceSharding(device) or NamedSharding(mesh, '
            'spec, memory_kind="device"))'))
    return out


def fix_host(module: HloModule, result: HostOffloadResult) -> HloModule:
    """Remedy (a): a copy of ``module`` whose entry layout puts each offending output in host memory."""
    fixed = clone_module(module)
    ecl = fixed.entry_layout()
    new_result = ecl.result
    for err in result.errors:
        new_result = new_result.with_memory_space(HOST_MEMORY_SPACE, err.output_index)
    fixed.entry_computation_layout = ProgramShape(list(ecl.parameters), new_result)
    fixed.has_explicit_entry_layout = True
    return fixed


def _uses_external_annotations(module: HloModule) -> bool:
    return any(placement(i) is not None for i in module.instructions())


class _Builder:
    """Adds instructions to the entry in creation order (a dependency order): just before the
    ROOT line, or after it when they read the root itself, so definitions precede uses."""

    def __init__(self, module: HloModule, after_root: bool):
        self.module = module
        self.comp = module.entry_computation()
        self.anchor = None if after_root else self.comp.root_instruction()

    def add(self, base: str, opcode: HloOpcode, shape: Shape, operands: list[HloInstruction]) -> HloInstruction:
        instr = HloInstruction(self.module.unique_name(base), opcode, shape)
        if self.anchor is None:
            self.comp.add_instruction(instr)
        else:
            self.comp.insert_before(self.anchor, instr)
        instr.operands = operands
        return instr

    def move_to_device(self, value: HloInstruction, external: bool) -> HloInstruction:
        mtd = self.add("device_put" if external else "move_to_device", HloOpcode.CUSTOM_CALL, value.shape, [value])
        if external:
            mtd.custom_call_target = ANNOTATE_DEVICE_PLACEMENT
            mtd.attributes["custom_call_has_side_effect"] = "true"
            mtd.frontend_attributes = {BUFFER_PLACEMENT_ATTR: DEVICE_PLACEMENT}
        else:
            mtd.custom_call_target = MOVE_TO_DEVICE
        mtd.metadata = value.metadata
        return mtd

    def on_device(self, value: HloInstruction, rest: ShapeIndex, external: bool) -> HloInstruction:
        """``value`` with a move-to-device on its subshape ``rest`` (tuples rebuilt around it)."""
        if not rest:
            return self.move_to_device(value, external)
        parts = []
        for k, sub in enumerate(value.shape.tuple_shapes):
            gte = self.add("get-tuple-element", HloOpcode.GET_TUPLE_ELEMENT, sub, [value])
            gte.tuple_index = k
            parts.append(self.on_device(gte, rest[1:], external) if k == rest[0] else gte)
        return self.add("tuple", HloOpcode.TUPLE, value.shape, parts)


def fix_device(module: HloModule, result: HostOffloadResult) -> HloModule:
    """Remedy (b): a copy of ``module`` with a move-to-device just before each offending output."""
    fixed = clone_module(module)
    external = _uses_external_annotations(fixed)
    for err in sorted(result.errors, key=lambda e: e.output_index):
        _insert_before_output(fixed, err, external)
    return fixed


def _insert_before_output(module: HloModule, err: OutputMismatch, external: bool) -> None:
    entry = module.entry_computation()
    parent: tuple[HloInstruction, int] | None = None
    instr = entry.root_instruction()
    rest = err.output_index
    while rest and instr.opcode is HloOpcode.TUPLE:
        parent = (instr, rest[0])
        instr, rest = instr.operands[rest[0]], rest[1:]
    new = _Builder(module, after_root=instr is entry.root).on_device(instr, rest, external)
    if parent is None:
        entry.root = new
    else:
        parent[0].replace_operand(parent[1], new)

