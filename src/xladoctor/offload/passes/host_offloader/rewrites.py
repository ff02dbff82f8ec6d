"""The pass' rewrites of the graph: copies, dynamified slices, MoveToHost/MoveToDevice removal.

XLA's ``InsertCopyBetween``, ``DynamifySlice``, the copies a walk inserts before each
MoveToDevice (and X64 split), ``ApplySchedulingFix`` and the final removal of
MoveToDevices.  They run on the private copy, so later walks see the graph XLA's
later walks see.
"""

from __future__ import annotations

from collections import deque

from ....base.lazy_pattern import LazyPattern
from ....ir.instruction import HloInstruction
from ....ir.opcodes import (
    BITCAST,
    CONSTANT,
    COPY,
    CUSTOM_CALL,
    DYNAMIC_SLICE,
    DYNAMIC_UPDATE_SLICE,
    GET_TUPLE_ELEMENT,
    PARAMETER,
)
from ....ir.shape import HOST_MEMORY_SPACE, Shape, ShapeIndex
from ...annotations import is_move_to_device
from ...kinds import InsertedKind, Status
from ...positions import Position
from ...result import InsertedInstruction
from ..host_offload_utils import (
    XlaCheckFailure,
    XlaStatusError,
    allowed_between_slice_and_move_to_device,
    predecessors,
    successors,
)
from . import messages
from .state import DEVICE_MEMORY_SPACE, OffloaderRun, memory_space

_SLICE_RANGE = LazyPattern(r"\[\s*(-?\d+)\s*:\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?\]")


def compatible_ignoring_fp_precision(a: Shape, b: Shape) -> bool:
    """``ShapeUtil::CompatibleIgnoringFpPrecision``: layouts ignored, any float type matches any float type."""
    if a.is_tuple or b.is_tuple:
        return a.is_tuple and b.is_tuple and len(a.tuple_shapes) == len(b.tuple_shapes) and \
            all(compatible_ignoring_fp_precision(x, y) for x, y in zip(a.tuple_shapes, b.tuple_shapes))
    same_type = a.element_type is b.element_type or (a.element_type.kind == "float" == b.element_type.kind)
    return same_type and tuple(a.dimensions) == tuple(b.dimensions)


def is_synchronous_copy_from_or_to_host(instr: HloInstruction) -> bool:
    """``IsSynchronousCopyFromOrToHost``: a copy between host and device memory."""
    if instr.opcode is not COPY or not instr.shape.is_array or not instr.operands[0].shape.is_array:
        return False
    return (memory_space(instr.shape) == HOST_MEMORY_SPACE) != \
        (memory_space(instr.operands[0].shape) == HOST_MEMORY_SPACE)


def clear_host_memory_space(run: OffloaderRun) -> None:
    """Step 1 of ``RunImpl``: S(5) is cleared everywhere; only the entry layout is input."""
    for comp in run.ctx.module.computations:
        for instr in comp.instructions:
            shape = instr.shape
            if shape.element_type.bits is not None:  # is_array without its (interpreted) property: the common case
                layout = shape.layout  # memory_space(shape), read inline: every instruction of the module
                if layout is not None and layout.memory_space == HOST_MEMORY_SPACE:
                    instr.shape = shape.with_memory_space(DEVICE_MEMORY_SPACE, ())
                continue
            if any(s.is_array and memory_space(s) == HOST_MEMORY_SPACE for _, s in shape.leaves()):
                for idx, leaf in list(shape.leaves()):
                    if leaf.is_array and memory_space(leaf) == HOST_MEMORY_SPACE:
                        shape = shape.with_memory_space(DEVICE_MEMORY_SPACE, idx)
                instr.shape = shape


def remove_move_to_host(run: OffloaderRun, mth: HloInstruction) -> None:
    """``ReplaceAllUsesWith(operand)`` + removal; XLA's RET_CHECK refuses an incompatible shape."""
    data = mth.operands[0]
    if not compatible_ignoring_fp_precision(mth.shape, data.shape):
        run.mths.consumed.add(mth)
        raise XlaStatusError(Status.INTERNAL, "RET_CHECK failure (xla/hlo/ir/hlo_instruction.cc) "
                             "ShapeUtil::CompatibleIgnoringFpPrecision(shape(), new_producer->shape()) "
                             f"{mth.shape} is not compatible with {data.shape}", mth)
    run.edits.remove(mth)


def slice_leads_to_move_to_device(run: OffloaderRun, sl: HloInstruction) -> bool:
    """``SliceLeadsToMoveToDeviceCustomCall``: only transfers-like ops until a MoveToDevice."""
    graph = run.ctx.graph
    queue = deque(successors(Position(sl), graph))
    seen = set(queue)
    while queue:
        pos = queue.popleft()
        instr = pos.instruction
        if is_move_to_device(instr):
            continue
        if not allowed_between_slice_and_move_to_device(instr):
            run.res.warnings.append(messages.slice_not_ending_warning(sl.opcode.value, sl.name))
            return False
        for s in successors(pos, graph):
            if s not in seen:
                seen.add(s)
                queue.append(s)
    return True


def insert_copy_between(run: OffloaderRun, start: Position, operand_index: int | None = None) -> None:
    """``InsertCopyBetween(predecessor, start)``: the device-to-host copy feeding the walk.

    The copy replaces every use of the predecessor in the target (each caller, when
    the start is a parameter); an existing device/host copy in host memory is reused.
    """
    graph, book = run.ctx.graph, run.mths
    preds = predecessors(start, graph, operand_index if operand_index is not None else 0)
    if len(preds) != 1:
        raise XlaCheckFailure(f"Check failed: predecessors.size() == 1 ({len(preds)} vs. 1)", start.instruction)
    data = preds[0].instruction
    targets: list[tuple[HloInstruction, ShapeIndex]] = []
    if start.instruction.opcode is PARAMETER:
        for caller in graph.callers_of(start.instruction.parent):
            targets.extend((caller, (k,)) for k in caller.operand_indices(data))
    else:
        targets.append((start.instruction, start.shape_index))
    for target, idx in targets:
        slot = operand_index if operand_index is not None else (idx[0] if idx else 0)
        key = (target, idx, slot)
        if key in book.copy_inserted_before:
            continue
        if is_synchronous_copy_from_or_to_host(data) and memory_space(data.shape) == HOST_MEMORY_SPACE:
            copy = data
        else:
            found = book.copies_after.get(data)
            if found is None:
                found = run.edits.new_copy(data, HOST_MEMORY_SPACE)
                book.copies_after[data] = found
            copy = found
        if copy is not data:  # else each replacement is a no-op: one value returned N times is N walks
            for k in target.operand_indices(data):
                target.replace_operand(k, copy)
                run.res.inserted.append(InsertedInstruction(InsertedKind.COPY_TO_HOST, copy.name, data.name,
                                                            target.name, k))
        book.copy_inserted_before.add(key)


def dynamify_slice(run: OffloaderRun, sl: HloInstruction) -> None:
    """``DynamifySlice``: a slice that reads host memory becomes a dynamic-slice (a DMA)."""
    ranges = [(int(a), int(b)) for a, b, _ in _SLICE_RANGE.findall(sl.attributes.get("slice", ""))]
    comp = sl.computation()
    edits, res = run.edits, run.res
    consts = []
    for start, _ in ranges:
        c = edits.add(comp, "constant", CONSTANT, Shape.array("s32", ()), [])
        c.literal = str(start)
        consts.append(c)
    ds = edits.add(comp, "dynamic-slice", DYNAMIC_SLICE, sl.shape, [sl.operands[0], *consts])
    ds.attributes["dynamic_slice_sizes"] = "{" + ",".join(str(b - a) for a, b in ranges) + "}"
    sl.replace_all_uses_with(ds)
    sl.operands = ()
    edits.dead.add(sl)
    res.removed.append(sl.name)
    res.dynamified_slices.append(sl.name)
    res.inserted.append(InsertedInstruction(InsertedKind.DYNAMIC_SLICE, ds.name, ds.operands[0].name, None,
                                            replaces=sl.name))


def insert_copies_to_device(run: OffloaderRun, mtds: dict[HloInstruction, None],
                            x64_splits: dict[HloInstruction, None]) -> None:
    """A device copy before each MoveToDevice the walk ended at, and before each X64 split."""
    edits, res = run.edits, run.res
    for mtd in mtds:
        if mtd in edits.dead:
            continue
        data = mtd.operands[0]
        copy = edits.new_copy(data, DEVICE_MEMORY_SPACE)
        run.rec.vlog(f'Inserted copy "{copy.name}" before custom call "{mtd.name}"')
        # Since b4226f6093 the copy becomes the MoveToDevice's operand: the MoveToDevice
        # stays, and stays the end of every later walk, until the cleanup removes it.
        mtd.replace_operand(0, copy)
        res.inserted.append(InsertedInstruction(InsertedKind.COPY_TO_DEVICE, copy.name, data.name, mtd.name, 0,
                                                replaces=None))
    if x64_splits:
        res.warnings.append(messages.X64_SPLIT_WARNING)
    for split in x64_splits:
        data = split.operands[0]
        copy = edits.new_copy(data, DEVICE_MEMORY_SPACE)
        split.replace_operand(0, copy)
        res.inserted.append(InsertedInstruction(InsertedKind.COPY_TO_DEVICE, copy.name, data.name, split.name, 0))


def remove_move_to_devices(run: OffloaderRun) -> None:
    """Step 6 of ``RunImpl``: the MoveToDevices left are removed."""
    custom_call = CUSTOM_CALL  # a MoveToDevice is one: the others are not tested one by one
    for instr in [i for c in run.ctx.module.computations for i in c.instructions if i.opcode is custom_call]:
        if instr not in run.edits.dead and is_move_to_device(instr):
            run.edits.remove(instr)


def apply_scheduling_fix(run: OffloaderRun) -> None:
    """``ApplySchedulingFix``: copy a host DUS's update when it is a loop parameter's buffer."""
    ctx = run.ctx
    for comp in ctx.module.computations:
        if comp is ctx.entry:
            continue
        for instr in list(comp.instructions):
            if instr in run.edits.dead or instr.opcode is not DYNAMIC_UPDATE_SLICE:
                continue
            if memory_space(instr.shape) != HOST_MEMORY_SPACE:
                continue
            update = instr.operands[1]
            src = update
            while src.opcode in (GET_TUPLE_ELEMENT, BITCAST):
                src = src.operands[0]
            if src.opcode is PARAMETER and src.parent is comp:
                copy = run.edits.add(comp, "copy", COPY, update.shape, [update])
                instr.replace_operand(1, copy)
                run.res.inserted.append(InsertedInstruction(InsertedKind.SCHEDULING_COPY, copy.name, update.name,
                                                            instr.name, 1))
