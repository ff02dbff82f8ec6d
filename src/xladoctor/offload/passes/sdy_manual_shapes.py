"""Per-device shapes around Shardy's ``shard_map`` boundaries, as XLA's SPMD partitioner leaves them.

JAX exports a ``shard_map`` as ``xla.sdy.GlobalToLocalShape`` (global operand, per-device
result), a ``call`` of the body on per-device values, and ``xla.sdy.LocalToGlobalShape``
(per-device operand, global result).  In XLA these are not markers: Shardy's round-trip
import turns them back into ``sdy.manual_computation``, and the SPMD partitioner then gives
every value of the entry its per-device shape (the entry layout included) before
HostOffloader runs.  libtpu 0.0.42.1's dump of a 2-device ragged copy
(memories_test's ``test_ragged_copy_on_host``) shows it: the ``bf16[8192,128]`` parameter and
the ``pinned_host`` result are ``bf16[4096,128]`` there, and so is the MoveToHost of the result.

We do not model partitioning in general (sharding propagation, collectives); we model the
part a ``shard_map`` program needs: values that only cross the boundaries, through entry
parameters, sharding markers, placement annotations, copies, tuples and get-tuple-elements,
take the per-device shape the boundary gives them.  Any other computation on a value whose
shape the partitioner would change is out of the model and keeps its global shape.
"""

from __future__ import annotations

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule, ProgramShape
from ...ir.opcodes import COPY, CUSTOM_CALL, GET_TUPLE_ELEMENT, PARAMETER, TUPLE
from ...ir.shape import Shape
from ...ir.value import replace
from .host_offload_utils import is_sharding_annotation

GLOBAL_TO_LOCAL = "xla.sdy.GlobalToLocalShape"
LOCAL_TO_GLOBAL = "xla.sdy.LocalToGlobalShape"
BOUNDARIES = frozenset({GLOBAL_TO_LOCAL, LOCAL_TO_GLOBAL})

_SAME_SHAPE_CALLS = frozenset({"annotate_device_placement", "MoveToHost", "MoveToDevice"})
"""Custom calls whose result is their operand's value (and so its per-device shape)."""


def has_manual_computations(module: HloModule) -> bool:
    """Whether JAX exported a ``shard_map`` into this module (Shardy's boundary custom calls).
    Loops, not ``any()`` of a generator: asked of every instruction of every module analysed."""
    custom_call = CUSTOM_CALL
    for comp in module.computations:
        for i in comp.instructions:
            if i.opcode is custom_call and i.custom_call_target in BOUNDARIES:
                return True
    return False


def localize_manual_computations(module: HloModule) -> list[str]:
    """Give the entry's values around ``shard_map`` boundaries their per-device shapes; the
    names of the instructions changed (``[]`` when there are no boundaries).

    Afterwards a boundary whose operand has its shape is a marker, and :mod:`.sharding_remover`
    removes it (XLA: the partitioner's ``copy``, gone by the next DCE).  Where the module
    computes on global values in a way this model does not partition (a ``dot`` of a
    ``shard_map``'s result, a global value sliced into one), that instruction keeps its global
    shape and a ``GlobalToLocalShape`` of a global value stays (:func:`is_shape_changing`):
    only the chains modelled change, so none of them mixes a global and a per-device shape."""
    if not has_manual_computations(module):
        return []
    entry = module.entry_computation()
    if any(i.is_custom_call(*BOUNDARIES) for comp in module.computations if comp is not entry
           for i in comp.instructions):
        return []  # a shard_map inside a loop or a call of a global computation: not modelled
    new = _per_device_shapes(entry)
    for instr, shape in new.items():
        instr.shape = shape
    if new:
        entry.signature = None  # the header's global shapes are stale (printed from the instructions)
        _localize_entry_layout(module, entry, new)
    return [i.name for i in new]


def is_shape_changing(instr: HloInstruction) -> bool:
    """A boundary still between a global and a per-device shape: not a marker to remove."""
    return (instr.opcode is CUSTOM_CALL and instr.custom_call_target in BOUNDARIES
            and len(instr.operands) == 1 and not instr.shape.compatible(instr.operands[0].shape))


def _per_device_shapes(entry: HloComputation) -> dict[HloInstruction, Shape]:
    """The new shape of every entry instruction the partitioner would change that the model
    covers (parameters read only by boundaries, and what flows out of a ``LocalToGlobalShape``
    through markers, placement annotations, copies, tuples and get-tuple-elements)."""
    new: dict[HloInstruction, Shape] = {}
    for param in entry.parameters:
        users = list(param.users)
        if users and all(u.is_custom_call(GLOBAL_TO_LOCAL) for u in users) and \
                len({u.shape.dimensions for u in users}) == 1:
            local = _with_dims(param.shape, users[0].shape)
            if local != param.shape:
                new[param] = local
    for instr in entry.post_order():
        if instr.opcode is PARAMETER:
            continue
        if instr.is_custom_call(LOCAL_TO_GLOBAL) and len(instr.operands) == 1:
            new[instr] = _with_dims(instr.shape, instr.operands[0].shape)
        elif not any(o in new for o in instr.operands) or instr.is_custom_call(GLOBAL_TO_LOCAL):
            continue
        elif _keeps_operand_shape(instr):
            new[instr] = _with_dims(instr.shape, new[instr.operands[0]])
        elif instr.opcode is TUPLE:
            operands = [new.get(o, o.shape) for o in instr.operands]
            new[instr] = Shape.tuple([_with_dims(s, o) for s, o in zip(instr.shape.tuple_shapes, operands)])
        elif instr.opcode is GET_TUPLE_ELEMENT:
            new[instr] = _with_dims(instr.shape, new[instr.operands[0]].tuple_shapes[instr.tuple_index or 0])
        # else: global computation on a per-device value, beyond this model: it keeps its shape
    return new


def _keeps_operand_shape(instr: HloInstruction) -> bool:
    if len(instr.operands) != 1 or not instr.shape.compatible(instr.operands[0].shape):
        return False
    if instr.opcode is COPY:
        return True
    return instr.opcode is CUSTOM_CALL and (
        is_sharding_annotation(instr) or instr.custom_call_target in _SAME_SHAPE_CALLS)


def _with_dims(shape: Shape, like: Shape) -> Shape:
    """``shape`` (its element type and layout, memory space included) with ``like``'s dimensions."""
    if shape.is_tuple and like.is_tuple and len(shape.tuple_shapes) == len(like.tuple_shapes):
        return Shape.tuple([_with_dims(s, o) for s, o in zip(shape.tuple_shapes, like.tuple_shapes)])
    if shape.dimensions == like.dimensions:
        return shape
    return replace(shape, dimensions=like.dimensions, dynamic=like.dynamic)


def _localize_entry_layout(module: HloModule, entry: HloComputation, new: dict[HloInstruction, Shape]) -> None:
    """``entry_computation_layout`` as the partitioned module prints it: per-device dimensions,
    the caller's layouts and memory spaces kept (``S(5)`` of a ``pinned_host`` result)."""
    layout = module.entry_computation_layout
    if layout is None:
        return
    parameters = [_with_dims(shape, new[p]) if i < len(entry.parameters) and (p := entry.parameters[i]) in new
                  else shape for i, shape in enumerate(layout.parameters)]
    root = entry.root_instruction()
    result = _with_dims(layout.result, new[root]) if root in new else layout.result
    # A new object: the module's clones share the one they were copied with.
    module.entry_computation_layout = ProgramShape(parameters, result)
