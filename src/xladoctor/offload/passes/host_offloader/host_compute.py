"""Host compute: instructions the pass makes run on the CPU, and the dynamic-update-slice phase.

XLA's ``SetHostComputeFrontendAttribute`` (``_xla_compute_type="host"``),
``HandleDynamicUpdateSlices`` with ``CreateAllocateBufferForDynamicUpdateSlice`` (a
DUS writing device data into host memory needs its buffer allocated on host, found
by walking up to the broadcast that made it), and ``HandleRedundantCopiesBackToHost``
(outputs of a host ``async-start`` used only on host stay there).
"""

from __future__ import annotations

from collections import deque

from ....ir.instruction import HloInstruction
from ....ir.opcodes import (
    ASYNC_DONE,
    ASYNC_START,
    BROADCAST,
    COPY,
    CUSTOM_CALL,
    DYNAMIC_UPDATE_SLICE,
    PARAMETER,
    TUPLE,
    WHILE,
)
from ....ir.shape import HOST_MEMORY_SPACE, ShapeIndex, format_shape_index
from ...annotations import COMPUTE_TYPE_ATTR, COMPUTE_TYPE_HOST, is_allocate_buffer, is_move_to_host
from ...kinds import DusAction, HostComputeReason, InsertedKind, Status
from ...positions import Position
from ...result import DusOutcome, HostComputeConversion, InsertedInstruction
from ..host_offload_utils import XlaCheckFailure, XlaStatusError, is_pure_memory_op, predecessors, successors
from . import messages
from .state import (
    DEVICE_MEMORY_SPACE,
    OffloaderRun,
    all_leaves_host,
    memory_space,
    memory_space_at,
    set_memory_space,
)


def set_host_compute_frontend_attribute(run: OffloaderRun, instr: HloInstruction, reason: HostComputeReason) -> bool:
    """``SetHostComputeFrontendAttribute``; False when host compute is disabled."""
    ctx, seen = run.ctx, run.host.host_compute_seen
    allowed_copy = instr.opcode is COPY and ctx.options.allow_h2h_copy
    if ctx.options.disable_host_compute and not allowed_copy:
        run.rec.fail(Status.INVALID_ARGUMENT, messages.HOST_COMPUTE_DISABLED, instr)
        return False
    if COMPUTE_TYPE_ATTR not in instr.frontend_attributes:  # replaced, not edited: the empty map is shared
        instr.frontend_attributes = {**instr.frontend_attributes, COMPUTE_TYPE_ATTR: COMPUTE_TYPE_HOST}
    if instr not in seen:
        seen.add(instr)
        orig = ctx.input_instruction(instr.name)
        loc = orig.source_location() if orig is not None else instr.source_location()
        run.res.host_compute.append(HostComputeConversion(ctx.rn(instr.name), instr.opcode.value, reason, loc))
    return True


# ---------------------------------------------------------------------------- dynamic-update-slices
def _allocate_buffer_for(run: OffloaderRun, dus: HloInstruction, action: DusAction) -> DusAction:
    try:
        create_allocate_buffer_for_dynamic_update_slice(run, dus)
    except (XlaCheckFailure, XlaStatusError) as e:
        run.rec.fail_exc(e)
        return DusAction.FAILED
    return action


def handle_dynamic_update_slices(run: OffloaderRun) -> None:
    """``HandleDynamicUpdateSlices``: decided from the memory spaces of each DUS's current operands."""
    host, dev = HOST_MEMORY_SPACE, DEVICE_MEMORY_SPACE
    for dus in run.host.dus_seen:
        if dus in run.edits.dead:
            continue
        dst = memory_space(dus.operands[0].shape)
        upd = memory_space(dus.operands[1].shape)
        action = DusAction.NONE
        if upd == host and dst == dev:
            if set_host_compute_frontend_attribute(run, dus, HostComputeReason.DUS_HOST_TO_DEVICE):
                action = DusAction.HOST_COMPUTE
        elif upd == host and dst == host:
            if set_host_compute_frontend_attribute(run, dus, HostComputeReason.DUS_HOST_TO_HOST):
                set_memory_space(Position(dus), host)
                action = DusAction.HOST_COMPUTE_HOST_OUTPUT
        elif upd == dev and dst == host:
            # The buffer may be a broadcast already in host memory: look for it (and
            # put the DUS in host memory on the way).
            action = _allocate_buffer_for(run, dus, DusAction.HOST_OUTPUT)
        elif upd == dev and dst == dev and dus in run.host.dus_with_annotation:
            action = _allocate_buffer_for(run, dus, DusAction.ALLOCATE_BUFFER)
        run.res.dynamic_update_slices.append(DusOutcome(run.ctx.rn(dus.name), upd == host, dst == host, action))


def _entry_parameter_buffer(run: OffloaderRun, instr: HloInstruction, idx: ShapeIndex) -> None:
    """The buffer is an entry parameter: fine when its entry layout is host memory, else an error."""
    declared = run.ctx.module.entry_layout().parameters[instr.param_number()]
    sub = declared.subshape(idx) if declared.has_index(idx) else None
    if sub is not None and sub.is_array and memory_space(sub) == HOST_MEMORY_SPACE:
        return
    raise XlaStatusError(Status.INVALID_ARGUMENT, f'Entry computation parameter "{run.ctx.rn(instr.name)}" '
                         f"(shape index {format_shape_index(idx)}) is not in host memory space.", instr)


def _adjust_allocate_buffer(run: OffloaderRun, pos: Position, prev: Position | None, previous_space: int) -> None:
    """An AllocateBuffer on the way: a fresh one for this use when another user stays on device."""
    instr, idx = pos.instruction, pos.shape_index
    if prev is None:
        raise XlaCheckFailure("We expect to have a previous instruction at this point.", instr)
    for s in successors(Position(instr, idx), run.ctx.graph):
        if memory_space_at(s) != HOST_MEMORY_SPACE:
            set_memory_space(pos, previous_space)
            slots = prev.instruction.operand_indices(instr)
            if len(slots) > 1 and prev.instruction.opcode is not TUPLE:
                raise XlaStatusError(
                    Status.UNIMPLEMENTED, "We do not yet support adjusting AllocateBuffer when it appears in "
                    "multiple operand indices unless in a tuple.", instr)
            ab = run.edits.new_allocate_buffer(instr.computation(), instr.shape)
            prev.instruction.replace_operand(slots[0], ab)
            run.res.inserted.append(InsertedInstruction(InsertedKind.ALLOCATE_BUFFER, ab.name, None,
                                                        prev.instruction.name, slots[0], replaces=instr.name))
            break


def create_allocate_buffer_for_dynamic_update_slice(run: OffloaderRun, dus: HloInstruction) -> None:
    """``CreateAllocateBufferForDynamicUpdateSlice``: walk up to the broadcast that made the buffer."""
    if dus in run.host.dus_allocated:
        return
    ctx = run.ctx
    queue = deque([Position(dus)])
    seen = {queue[0]}
    prev: Position | None = None
    found_broadcast = False
    while queue:
        pos = queue.popleft()
        instr, idx = pos.instruction, pos.shape_index
        previous_space = memory_space_at(pos) or DEVICE_MEMORY_SPACE
        set_memory_space(pos, HOST_MEMORY_SPACE)
        if instr.opcode is PARAMETER:
            if instr.parent is ctx.entry:
                return _entry_parameter_buffer(run, instr, idx)
            for caller in ctx.graph.callers_of(instr.parent):
                if caller.opcode is WHILE:
                    _host_while_condition(run, caller, instr, idx)
        elif instr.opcode is DYNAMIC_UPDATE_SLICE:
            run.host.dus_allocated.add(instr)
        elif is_allocate_buffer(instr):
            return _adjust_allocate_buffer(run, pos, prev, previous_space)
        prev = pos
        if not is_pure_memory_op(instr) and instr.opcode is not DYNAMIC_UPDATE_SLICE:
            return  # e05ba34f86: an unexpected instruction ends the search, without error
        for pred in predecessors(pos, ctx.graph):
            if pred.instruction.opcode is BROADCAST:
                found_broadcast = True
                _replace_broadcast_use(run, pred.instruction, instr, idx)
            elif pred not in seen:
                seen.add(pred)
                queue.append(pred)
    if not found_broadcast:
        raise XlaStatusError(Status.INVALID_ARGUMENT, f'DynamicUpdateSlice "{ctx.rn(dus.name)}"\'s first operand is '
                             "not the result of a broadcast.", dus)


def _replace_broadcast_use(run: OffloaderRun, bc: HloInstruction, user: HloInstruction, idx: ShapeIndex) -> None:
    ab = run.edits.new_allocate_buffer(bc.computation(), bc.shape)
    from ....syntax.hlo_printer import print_instruction
    run.rec.vlog(f'Created new AllocateBuffer instruction "{print_instruction(ab, "%")}" to replace broadcast '
                 f'"{bc.name}"\'s use at index {format_shape_index(idx)} in user "{user.name}"')
    if len(idx) == 1:
        if user.opcode is not TUPLE:
            raise XlaCheckFailure("Expecting a tuple when shape index has ndim>0", user)
        slot = idx[0]
    else:
        if idx:
            raise XlaCheckFailure("Only other supported shape index ndim is 0", user)
        slots = user.operand_indices(bc)
        if len(slots) != 1:
            raise XlaCheckFailure("Only a single use it currently supported", user)
        slot = slots[0]
    user.replace_operand(slot, ab)
    run.res.inserted.append(InsertedInstruction(InsertedKind.ALLOCATE_BUFFER, ab.name, None, user.name, slot,
                                                replaces=bc.name))
    if not bc.users and not bc.is_root:
        run.edits.dead.add(bc)
        run.res.removed.append(bc.name)


def _host_while_condition(run: OffloaderRun, loop: HloInstruction, param: HloInstruction, idx: ShapeIndex) -> None:
    """The loop's condition reads the same buffer: it must only move it, and it is host memory too."""
    if loop.called["body"][0] is not param.parent:
        raise XlaCheckFailure("We assume that we're starting from the while body", loop)
    cond = loop.called["condition"][0]
    if len(cond.parameters) != 1:
        raise XlaCheckFailure("Expecting While to have just 1 parameter", loop)
    cp = Position(cond.parameters[0], idx)
    set_memory_space(cp, HOST_MEMORY_SPACE)
    nested = deque([cp])
    seen = {cp}
    while nested:
        pos = nested.popleft()
        if not is_pure_memory_op(pos.instruction):
            raise XlaStatusError(Status.INVALID_ARGUMENT, "Tensor which is moved to host is used by an invalid "
                                 f'instruction ("{run.ctx.rn(pos.instruction.name)}") during while condition body.',
                                 pos.instruction)
        set_memory_space(pos, HOST_MEMORY_SPACE)
        for s in successors(pos, run.ctx.graph):
            if s not in seen:
                seen.add(s)
                nested.append(s)


# ---------------------------------------------------------------------------- host async calls
def _host_only_use(run: OffloaderRun, pos: Position) -> bool:
    """``ExtraCheckForValidUsageOnHostForHostOffloadedOutputs``."""
    instr = pos.instruction
    if instr.is_root and instr.parent is run.ctx.entry and (
            not run.ecl_result.has_index(pos.shape_index)
            or not all_leaves_host(run.ecl_result.subshape(pos.shape_index))):
        return False
    if instr.opcode is CUSTOM_CALL and not is_move_to_host(instr):
        return False
    return instr.opcode not in (ASYNC_START, ASYNC_DONE)


def _host_only_output(run: OffloaderRun, start: HloInstruction, done: HloInstruction,
                      out_idx: ShapeIndex) -> list[Position] | None:
    """The positions an output of the host call reaches, when only host uses it up to an entry output."""
    collected = [Position(start, (1,) + out_idx), Position(done, out_idx)]
    queue = deque([Position(done, out_idx)])
    seen = {queue[0]}
    entry_output = False
    while queue:
        pos = queue.popleft()
        if any(u.opcode is ASYNC_START for u in pos.instruction.users):
            return None
        for s in successors(pos, run.ctx.graph):
            if not is_pure_memory_op(s.instruction) or not _host_only_use(run, s):
                return None
            if s.instruction.is_root and s.instruction.parent is run.ctx.entry:
                entry_output = True
            if s not in seen:
                seen.add(s)
                queue.append(s)
                collected.append(s)
    return collected if entry_output else None


def handle_redundant_copies_back_to_host(run: OffloaderRun, start: HloInstruction) -> None:
    """``HandleRedundantCopiesBackToHost``: keep host-computed outputs on host when only host uses them."""
    users = list(start.users)
    if len(users) != 1:
        raise XlaCheckFailure(f"Check failed: call_start->users().size() == 1 ({len(users)} vs. 1)", start)
    done = users[0]
    kept: list[tuple[ShapeIndex, list[Position]]] = []
    for out_idx, _ in done.shape.leaves():
        collected = _host_only_output(run, start, done, out_idx)
        if collected is not None:
            kept.append((out_idx, collected))
    wrapped = (start.called.get("calls") or start.called_computations)[0]
    for instr in wrapped.instructions:
        if instr.opcode is not PARAMETER and instr is not wrapped.root:
            from ....syntax.hlo_printer import print_instruction
            raise XlaStatusError(Status.INTERNAL, "Unexpected instruction found in async computation: "
                                 + print_instruction(instr, "%"), instr)
    to_bypass: list[HloInstruction] = []
    for out_idx, collected in kept:
        for pos in collected:
            if is_move_to_host(pos.instruction):
                to_bypass.append(pos.instruction)
            elif pos.instruction.shape.has_index(pos.shape_index):
                set_memory_space(pos, HOST_MEMORY_SPACE)
        set_memory_space(Position(wrapped.root_instruction(), out_idx), HOST_MEMORY_SPACE)
    for mth in to_bypass:
        if mth.users or mth.is_root:
            mth.replace_all_uses_with(mth.operands[0])
            run.mths.redundant.add(mth)
    if to_bypass:
        run.res.warnings.append(messages.redundant_move_to_host_warning(start.name, [m.name for m in to_bypass]))
