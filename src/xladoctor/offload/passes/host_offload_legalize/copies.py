"""Moving one layout-changing copy out of an offload chain (``MoveCopyDown``, or above its MoveToHost).

The copy's layout change is undone down the chain (bitcasts and slices take the
layout from before the copy) and redone by a new copy after each MoveToDevice, so
the host segment holds no transpose; see :mod:`..host_offload_legalize`.
"""

from __future__ import annotations

from ....ir.instruction import HloInstruction
from ....ir.opcodes import BITCAST, COPY, CUSTOM_CALL, DYNAMIC_UPDATE_SLICE, PARAMETER
from ....ir.shape import Layout, Shape
from ....ir.value import replace
from ...annotations import HOST_THREAD, is_move_to_device
from ...kinds import CopyMove, LegalizePhase, Status
from ...positions import Position
from ..host_offload_utils import XlaCheckFailure, XlaStatusError, successors
from .chain import (
    find_to_device_annotation_to_update,
    find_to_host_annotation_to_update,
    walk_down_memory_offload,
)
from .state import SLICES, LegalizeMove, LegalizeState, Unrecognized, Value, layout_of


# ---------------------------------------------------------------------------- shapes
def _delete_dimension(shape: Shape, dim: int) -> Shape:
    """``ShapeUtil::DeleteDimension``: the layout loses ``dim`` and renumbers the ones above it."""
    lay = layout_of(shape)
    m2m = tuple(d - (d > dim) for d in lay.minor_to_major if d != dim)
    dims = shape.dimensions[:dim] + shape.dimensions[dim + 1:]
    dyn = shape.dynamic[:dim] + shape.dynamic[dim + 1:]
    return replace(shape, dimensions=dims, dynamic=dyn, layout=replace(lay, minor_to_major=m2m))


def _remove_majormost(shape: Shape) -> Shape:
    return _delete_dimension(shape, layout_of(shape).minor_to_major[-1])


def _add_majormost(shape: Shape) -> Shape:
    """A new size-1 most-major dimension 0; the tiles are kept (as XLA re-adds them)."""
    lay = layout_of(shape)
    m2m = tuple(d + 1 for d in lay.minor_to_major) + (0,)
    return replace(shape, dimensions=(1,) + shape.dimensions, dynamic=(False,) + shape.dynamic,
                   layout=Layout(minor_to_major=m2m, tiles=lay.tiles))


def _effectively_most_major(shape: Shape, dim: int) -> bool:
    """``ShapeUtil::IsEffectivelyMostMajorDimension``: only size-1 dimensions are more major."""
    for d in reversed(layout_of(shape).minor_to_major):
        if d == dim:
            return True
        if shape.dimensions[d] != 1:
            return False
    return False


def _same_shape(a: Shape, b: Shape) -> bool:
    return a.compatible(b) and layout_of(a) == layout_of(b)


# ---------------------------------------------------------------------------- the moves
def should_move_copy_down(lz: LegalizeState, copy: HloInstruction) -> bool:
    """``ShouldMoveCopyDown``: every path from the copy comes back to the device first."""
    queue = [Position(copy)]
    seen = set(queue)
    k = 0
    while k < len(queue):
        pos = queue[k]
        k += 1
        if pos.instruction.is_root and pos.instruction.parent is lz.entry:
            return False
        try:
            succs = successors(pos, lz.graph, follow_empty_index_gte=False)
        except (XlaCheckFailure, XlaStatusError):
            return False
        for s in succs:
            if is_move_to_device(s.instruction):
                continue
            if s.instruction.opcode is PARAMETER and s.instruction.parent is not None and \
                    s.instruction.parent.execution_thread == HOST_THREAD:
                return False
            if s not in seen:
                seen.add(s)
                queue.append(s)
    return True


def move_copy_up(lz: LegalizeState, copy: HloInstruction) -> None:
    """Swap the copy above the MoveToHost it reads: it then runs on the device."""
    mth = copy.operands[0]
    copy.replace_all_uses_with(mth)
    copy.operands = (mth.operands[0],)
    mth.replace_operand(0, copy)
    copy.shape = copy.shape.with_memory_space(0)
    mth.shape = mth.shape.with_layout(layout_of(copy.shape))
    lz.res.moves.append(LegalizeMove(lz.rn(copy.name), CopyMove.MOVED_UP, lz.start_name))


def get_new_shapes_after_bitcast(bitcast: HloInstruction, copy: HloInstruction,
                                 before: Shape, after: Shape) -> tuple[Shape, Shape]:
    """``GetNewShapesAfterBitcast``: the copy's shapes as if the bitcast came first."""
    if not copy.operands[0].shape.compatible(copy.shape):
        from ....syntax.hlo_printer import print_instruction
        raise XlaStatusError(Status.INTERNAL, "Expecting copy to only change instruction's layout. Copy: "
                             + print_instruction(copy, "%"), copy)
    src, dst = bitcast.operands[0].shape, bitcast.shape
    if dst.rank == src.rank - 1:
        if not (_effectively_most_major(src, 0) and src.dimensions[0] == 1):
            raise XlaStatusError(Status.INTERNAL, "Only handling bitcasts with majormost dimension of size 1. "
                                 f'This bitcast is "{bitcast.name}"', bitcast)
        return _remove_majormost(before), _remove_majormost(after)
    if dst.rank == src.rank + 1:
        if not (_effectively_most_major(dst, 0) and dst.dimensions[0] == 1):
            raise XlaStatusError(Status.UNIMPLEMENTED, "Only handling bitcasts with majormost dimension of size 1. "
                                 f'This bitcast is "{bitcast.name}"', bitcast)
        return _add_majormost(before), _add_majormost(after)
    if dst.rank == src.rank:
        if not dst.compatible(src):
            raise XlaStatusError(Status.UNIMPLEMENTED, f'Only handling bitcasts which change the layout. This bitcast '
                                 f'("{bitcast.name}") has input shape "{src}" and output shape "{dst}".', bitcast)
        if _same_shape(src, dst):
            return before, after
        ls, ld = layout_of(src), layout_of(dst)
        if ls.minor_to_major != ld.minor_to_major and \
                replace(ls, minor_to_major=()) == replace(ld, minor_to_major=()):
            perm = [ld.minor_to_major.index(d) for d in ls.minor_to_major]

            def permuted(s: Shape) -> Shape:
                m2m = layout_of(s).minor_to_major
                return s.with_layout(replace(layout_of(s), minor_to_major=tuple(m2m[p] for p in perm)))
            return permuted(before), permuted(after)
        raise XlaStatusError(Status.UNIMPLEMENTED, "Something about this layout changed other than the minor-to-major "
                             f'ordering. This is unsuppored. Bitcast: "{bitcast.name}"', bitcast)
    raise XlaStatusError(Status.UNIMPLEMENTED, f'Bitcast changes dimensionality in an unsupported way. Bitcast: '
                         f'"{bitcast.name}"', bitcast)


def move_copy_down(lz: LegalizeState, v: Value) -> None:
    """``MoveCopyDown``: undo the copy's layout change down the chain, redo it after each MoveToDevice."""
    copy = v[0]
    new_copies: list[str] = []
    after: list[str] = []
    shapes: list[tuple[str, str]] = []
    stack: list[tuple[Value, Shape, Shape]] = [(v, copy.operands[0].shape, copy.shape)]
    seen = {v}
    while stack:
        cur, before, after_copy = stack.pop()
        try:
            users = walk_down_memory_offload(lz, cur, move_phase=True)
        except Unrecognized as e:
            lz.note(LegalizePhase.MOVE_DOWN, e.message, e.instruction)
            break
        for nxt in users:
            if nxt in seen:
                continue
            seen.add(nxt)
            instr, index = nxt
            b, a = before, after_copy
            if instr.opcode is BITCAST:
                b, a = get_new_shapes_after_bitcast(instr, copy, b, a)
            elif instr.opcode in SLICES:
                a = instr.shape.with_layout(layout_of(a))
            lz.set_layout(nxt, layout_of(b))
            if instr.opcode is PARAMETER:
                callers = lz.graph.callers_of(instr.parent)
                if len(callers) != 1:
                    raise XlaStatusError(Status.INVALID_ARGUMENT, "Expected to be called only by one caller", instr)
                lz.set_layout((callers[0], index), layout_of(b))
            if instr.opcode is COPY:
                raise XlaCheckFailure("Copies should be processed in reverse order so this never happens", instr)
            if instr.opcode in SLICES or is_move_to_device(instr):
                made = _copy_after_annotation(lz, instr, copy, b, a)
                new_copies.append(made[0])
                after.append(made[1])
                shapes.append(made[2])
                continue
            if instr.opcode is DYNAMIC_UPDATE_SLICE:
                _move_update_annotation(lz, instr)
            stack.append((nxt, b, a))
    copy.replace_all_uses_with(copy.operands[0])
    lz.remove(copy)
    lz.res.moves.append(LegalizeMove(lz.rn(copy.name), CopyMove.MOVED_DOWN, lz.start_name,
                                       tuple(new_copies), tuple(after), tuple(shapes)))


def _copy_after_annotation(lz: LegalizeState, instr: HloInstruction, copy: HloInstruction, before: Shape,
                           after: Shape) -> tuple[str, str, tuple[str, str]]:
    annotation = find_to_device_annotation_to_update(instr)
    if annotation is None:
        raise XlaCheckFailure("We already verified we could find an annotation here. Something went wrong.",
                              instr)
    if instr.opcode is CUSTOM_CALL:
        new_annotation = annotation
    else:
        new_annotation = lz.clone(annotation, instr.shape, [instr], instr.computation())
    lz.set_layout((new_annotation, -1), layout_of(before))
    new_copy = lz.clone(copy, after, [new_annotation], instr.computation())
    for use in list(instr.users):
        if use is not new_copy and use is not new_annotation:
            lz.replace_use(instr, use, new_copy)
    if new_annotation is not annotation:
        annotation.replace_all_uses_with(annotation.operands[0])
        lz.remove(annotation)
    original = lz.rn(lz.clone_of.get(annotation.name, annotation.name))
    return new_copy.name, original, (str(new_annotation.shape), str(new_copy.shape))


def _move_update_annotation(lz: LegalizeState, dus: HloInstruction) -> None:
    """Put the update's MoveToHost right before the DUS (and a device copy when layouts differ)."""
    annotation = find_to_host_annotation_to_update(dus.operands[1])
    if annotation is None:
        raise XlaStatusError(Status.INTERNAL, "Annotation not found.", dus)
    update = dus.operands[1]
    new_annotation = lz.clone(annotation, update.shape, [update], dus.computation())
    dus.replace_operand(1, new_annotation)
    annotation.replace_all_uses_with(annotation.operands[0])
    lz.processed.add(annotation)
    lz.processed.add(new_annotation)
    lz.remove(annotation)
    if layout_of(dus.shape).minor_to_major != layout_of(new_annotation.shape).minor_to_major:
        new_annotation.shape = new_annotation.shape.with_layout(layout_of(dus.shape))
        fix = lz.new_copy(new_annotation.operands[0], new_annotation.shape)
        new_annotation.replace_operand(0, fix)
