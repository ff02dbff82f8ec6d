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

from ..base.labels import FALLBACK, glossary, label
from ..ir.frames import is_library
from ..ir.instruction import HloInstruction, SourceLocation
from ..ir.module import HloModule, ProgramShape
from ..ir.opcodes import CUSTOM_CALL, GET_TUPLE_ELEMENT, TUPLE, HloOpcode
from ..ir.shape import HOST_MEMORY_SPACE, Shape, ShapeIndex, format_shape_index
from ..ir.value import FrozenValue
from .annotations import ANNOTATE_DEVICE_PLACEMENT, BUFFER_PLACEMENT_ATTR, DEVICE_PLACEMENT, MOVE_TO_DEVICE, placement
from .clone import clone_module
from .result import HostOffloadResult, OutputMismatch

PYTORCH_XLA = "pytorch_xla"
"""The frontend name provenance gives a PyTorch/XLA graph (``triage/provenance.frontend_of``)."""
FRONTEND_NAMES = {None: "JAX", PYTORCH_XLA: "PyTorch/XLA"}
"""Each frontend's proper name, written before its advice (``JAX: ...``)."""


class FixSuggestion(FrozenValue):
    """Both remedies for one offending output, in HLO terms and in the terms of the frontend
    that made the module (JAX's, or PyTorch/XLA's when provenance says so: a torch_xla user has
    no ``out_shardings`` nor ``jax.device_put`` to change).  Written out, not a generated class
    (:mod:`..ir.value`: start-up, issue 36)."""

    _FIELDS = ("output_index", "flat_output", "result_name", "host_layout", "returned_value", "returned_location",
               "frontend")

    output_index: ShapeIndex
    flat_output: int
    """Position of this output among the flattened outputs (JAX's out_shardings leaf order)."""
    result_name: str | None
    """``jax.result_info`` of that output when known, e.g. ``result['a']``."""
    host_layout: str
    """The output's layout with ``S(5)``: remedy (a)."""
    returned_value: str
    """The instruction whose value is returned at this output: remedy (b) goes after it."""
    returned_location: SourceLocation | None
    frontend: str | None
    """``pytorch_xla`` for a PyTorch/XLA graph, None for JAX's (and modules of unknown origin)."""

    def __init__(self, output_index: ShapeIndex, flat_output: int, result_name: str | None, host_layout: str,
                 returned_value: str, returned_location: SourceLocation | None, frontend: str | None = None) -> None:
        object.__setattr__(self, "output_index", output_index)
        object.__setattr__(self, "flat_output", flat_output)
        object.__setattr__(self, "result_name", result_name)
        object.__setattr__(self, "host_layout", host_layout)
        object.__setattr__(self, "returned_value", returned_value)
        object.__setattr__(self, "returned_location", returned_location)
        object.__setattr__(self, "frontend", frontend)

    @property
    def frontend_name(self) -> str:
        """The frontend's proper name, written before its advice: ``JAX`` or ``PyTorch/XLA``."""
        return FRONTEND_NAMES.get(self.frontend, FRONTEND_NAMES[None])

    def host_jax_text(self, lang: str = FALLBACK) -> str:
        """Remedy (a) in the frontend's terms; the output by the one name every report gives it (the
        glossary's ``output {1}``, its Python path ``result[1]`` beside it when known), not by its flat
        ``out_shardings`` leaf number, a name no other output of the tool used.  PyTorch/XLA 2.9 has
        no memory kind for a graph's output (its sources have no API for one), which it says."""
        output = glossary.output(format_shape_index(self.output_index), lang, self.result_name)
        key = "finding.host_torch_xla" if self.frontend == PYTORCH_XLA else "finding.host_jax"
        return label(key, lang, output=output)

    def device_jax_text(self, lang: str = FALLBACK) -> str:
        """Remedy (b) in the frontend's terms: where the returned value is computed, and how it is
        moved back (``jax.device_put`` to a device sharding; torch_xla's ``place_to_device``).
        torch_xla records one frame per op, its own custom-call helper's for ``place_to_host``: a
        frame inside an installed package is not named as where the user's value is computed."""
        loc = self.returned_location
        torch = self.frontend == PYTORCH_XLA
        where = label("finding.at_source", lang, source=loc) if loc and not (torch and is_library(loc.file)) else ""
        key = "finding.device_torch_xla" if torch else "finding.device_jax"
        return label(key, lang, value=self.returned_value, at=where)

    @property
    def host_jax(self) -> str:
        """:meth:`host_jax_text` in English (the JSON documents' ``jax`` field)."""
        return self.host_jax_text()

    @property
    def device_jax(self) -> str:
        """:meth:`device_jax_text` in English (the JSON documents' ``jax`` field)."""
        return self.device_jax_text()


def _flat_output_numbers(result_shape: Shape) -> dict[ShapeIndex, int]:
    """Each index of the result -> the number of its first leaf among the flattened outputs, from
    one pass over the leaves (numbering N outputs one by one was O(N) each)."""
    first: dict[ShapeIndex, int] = {}
    for k, (idx, _) in enumerate(result_shape.leaves()):
        for n in range(len(idx) + 1):
            first.setdefault(idx[:n], k)
    return first


def _returned_value(module: HloModule, index: ShapeIndex) -> tuple[HloInstruction, ShapeIndex]:
    """Descend through root tuples to the instruction that produces output ``index``."""
    instr = module.entry_computation().root_instruction()
    rest = index
    while rest and instr.opcode is TUPLE:
        instr, rest = instr.operands[rest[0]], rest[1:]
    return instr, rest


def suggest_fixes(module: HloModule, result: HostOffloadResult,
                  result_names: list[str] | None = None, frontend: str | None = None) -> list[FixSuggestion]:
    """Both remedies for each offending output; ``frontend`` (provenance's: ``pytorch_xla``) says in
    whose terms the advice is given."""
    out = []
    ecl = module.entry_layout()
    flat_numbers = _flat_output_numbers(ecl.result) if result.errors else {}
    for err in result.errors:
        idx = err.output_index
        flat = flat_numbers.get(tuple(idx), 0)
        name = result_names[flat] if result_names and flat < len(result_names) else None
        host_shape = ecl.result.subshape(idx).with_memory_space(HOST_MEMORY_SPACE)
        value, rest = _returned_value(module, idx)
        value_text = value.name + (format_shape_index(rest) if rest else "")
        out.append(FixSuggestion(idx, flat, name, str(host_shape), value_text, value.source_location(), frontend))
    return out


def fix_host(module: HloModule, result: HostOffloadResult) -> HloModule:
    """Remedy (a): a copy of ``module`` whose entry layout puts each offending output in host memory."""
    fixed = clone_module(module)
    fixed.entry_computation_layout = host_layout(module, result)
    fixed.has_explicit_entry_layout = True
    return fixed


def host_layout(module: HloModule, result: HostOffloadResult) -> ProgramShape:
    """The entry layout :func:`fix_host` gives ``module``: all remedy (a) changes, so a caller that
    only prints the fix (``offload --fix host``) need not copy the module for it."""
    ecl = module.entry_layout()
    new_result = ecl.result
    for err in result.errors:
        new_result = new_result.with_memory_space(HOST_MEMORY_SPACE, err.output_index)
    return ProgramShape(list(ecl.parameters), new_result)


def external_annotations(module: HloModule) -> bool:
    """Whether the module places values with jax's ``annotate_device_placement`` (the fix then
    uses it too) rather than XLA's MoveToDevice custom call."""
    return any(placement(i) is not None for i in module.instructions())


def make_move_to_device(name: str, value: HloInstruction, external: bool) -> HloInstruction:
    """A move-to-device of ``value`` named ``name``, in no computation yet (the caller places it)."""
    mtd = HloInstruction(name, CUSTOM_CALL, value.shape)
    mtd.operands = [value]
    if external:
        mtd.custom_call_target = ANNOTATE_DEVICE_PLACEMENT
        mtd.attributes["custom_call_has_side_effect"] = "true"
        mtd.frontend_attributes = {BUFFER_PLACEMENT_ATTR: DEVICE_PLACEMENT}
    else:
        mtd.custom_call_target = MOVE_TO_DEVICE
    mtd.copy_metadata_from(value)
    return mtd


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
        mtd = make_move_to_device(self.module.unique_name("device_put" if external else "move_to_device"), value,
                                  external)
        if self.anchor is None:
            self.comp.add_instruction(mtd)
        else:
            self.comp.insert_before(self.anchor, mtd)
        return mtd

    def on_device(self, value: HloInstruction, rest: ShapeIndex, external: bool) -> HloInstruction:
        """``value`` with a move-to-device on its subshape ``rest`` (tuples rebuilt around it)."""
        if not rest:
            return self.move_to_device(value, external)
        parts = []
        for k, sub in enumerate(value.shape.tuple_shapes):
            gte = self.add("get-tuple-element", GET_TUPLE_ELEMENT, sub, [value])
            gte.tuple_index = k
            parts.append(self.on_device(gte, rest[1:], external) if k == rest[0] else gte)
        return self.add("tuple", TUPLE, value.shape, parts)


def fix_device(module: HloModule, result: HostOffloadResult) -> HloModule:
    """Remedy (b): a copy of ``module`` with a move-to-device just before each offending output."""
    fixed = clone_module(module)
    external = external_annotations(fixed)
    for err in sorted(result.errors, key=lambda e: e.output_index):
        _insert_before_output(fixed, err, external)
    return fixed


def _insert_before_output(module: HloModule, err: OutputMismatch, external: bool) -> None:
    entry = module.entry_computation()
    parent: tuple[HloInstruction, int] | None = None
    instr = entry.root_instruction()
    rest = err.output_index
    while rest and instr.opcode is TUPLE:
        parent = (instr, rest[0])
        instr, rest = instr.operands[rest[0]], rest[1:]
    new = _Builder(module, after_root=instr is entry.root).on_device(instr, rest, external)
    if parent is None:
        entry.set_root_instruction(new)
    else:
        parent[0].replace_operand(parent[1], new)

