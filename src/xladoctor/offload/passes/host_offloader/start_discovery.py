"""Where walks start: streamed entry parameters and every MoveToHost, in XLA's order.

XLA's ``HandleInputStreaming`` (entry parameters whose entry layout is S(5)),
``ProcessNextMoveToHostInstr`` (MoveToHosts in post order from the entry, recursing
into called computations), ``HandleMoveToHostCustomCall`` and
``GetStartingInstructions`` (the first real consumer on each path from a MoveToHost).
"""

from __future__ import annotations

from collections import deque

from ....base.labels import label
from ....ir.computation import HloComputation
from ....ir.instruction import HloInstruction
from ....ir.opcodes import BROADCAST, CUSTOM_CALL, DYNAMIC_UPDATE_SLICE
from ....ir.rare_fields import CALLS
from ....ir.shape import HOST_MEMORY_SPACE, format_shape_index
from ...annotations import is_allocate_buffer, is_move_to_host
from ...kinds import InsertedKind, MismatchContext, Status, WalkOrigin
from ...positions import Position
from ...result import DroppedOffload, InsertedInstruction
from ...rules import UNMERGED_PR_36525
from ..host_offload_utils import XlaCheckFailure, XlaStatusError, allowed_between_move_to_host_and_consumer, successors
from . import messages
from .rewrites import remove_move_to_host
from .state import OffloaderRun
from .verdict import ensure_entry_output_is_host
from .walk import walk_down_host_memory_offload_paths


def handle_input_streaming(run: OffloaderRun) -> None:
    """``HandleInputStreaming``: a walk from each entry parameter leaf whose entry layout is S(5)."""
    ecl = run.ctx.module.entry_layout()
    for i, pshape in enumerate(ecl.parameters):
        for idx, leaf in pshape.leaves():
            if leaf.is_array and leaf.layout is not None and leaf.layout.memory_space == HOST_MEMORY_SPACE:
                param = run.ctx.entry.parameters[i]
                run.rec.vlog(f"Host parameter #{i} streamed into program with shape: {leaf} at index "
                             f"{format_shape_index(idx)}")
                walk_down_host_memory_offload_paths(run, Position(param, idx), False,
                                                    WalkOrigin.INPUT_STREAMING.of(param.name), param.name)


def process_move_to_hosts(run: OffloaderRun) -> None:
    """``ProcessNextMoveToHostInstr`` until nothing changes, done as one ordered pass."""
    entry = run.ctx.entry
    visited: set[HloComputation] = {entry}
    stack = [iter(entry.post_order())]
    dead = run.edits.dead  # one set for the run, added to as the handling removes instructions
    custom_call = CUSTOM_CALL
    while stack:
        for instr in stack[-1]:
            if instr in dead:
                continue
            if instr.opcode is custom_call and is_move_to_host(instr):  # the opcode first: one test for most
                handle_move_to_host_custom_call(run, instr)
            extra = instr._extra  # not calls_anything(extra), inline: a Python call per instruction
            if extra is None or (type(extra) is not CALLS and not extra.called):
                continue  # most instructions call nothing: no list made
            pending = [c for c in instr.called_computations if c not in visited]
            if pending:
                for c in pending:
                    visited.add(c)
                stack.extend(iter(c.post_order()) for c in reversed(pending) if _acts_in(c))
                break
        else:
            stack.pop()


def _acts_in(comp: HloComputation) -> bool:
    """Whether visiting ``comp`` can do anything: it holds a MoveToHost or calls a computation.
    Where not, its visit handles nothing and changes nothing (a train step's reducers and
    bodies without annotations), so it needs no post order.

    A loop, both tests spelled inline (the calls from the rare-fields slot, as
    :func:`~....ir.rare_fields.calls_anything`; the opcode before :func:`is_move_to_host`, which
    answers False for any other): ``any()`` of a generator resumed a frame and made two calls per
    instruction (~2% of a scanned train step's analysis)."""
    custom_call = CUSTOM_CALL
    for instr in comp.instructions:
        extra = instr._extra
        if extra is not None and (type(extra) is CALLS or extra.called):
            return True
        if instr.opcode is custom_call and is_move_to_host(instr):
            return True
    return False


def _no_starting_instructions(run: OffloaderRun, mth: HloInstruction) -> None:
    """Nothing to walk: a root MoveToHost gets a copy to host; any other moves nothing."""
    ctx, res = run.ctx, run.res
    if mth is ctx.entry.root:
        data = mth.operands[0]
        copy = run.edits.new_copy(data, HOST_MEMORY_SPACE)
        mth.replace_all_uses_with(copy)
        res.inserted.append(InsertedInstruction(InsertedKind.OUTPUT_COPY_TO_HOST, copy.name, data.name, None,
                                                replaces=mth.name))
        if ctx.options.rule == UNMERGED_PR_36525:
            ensure_entry_output_is_host(run, (), MismatchContext.CUSTOM_CALL, mth.name, [],
                                        WalkOrigin.MOVE_TO_HOST.of(mth.name), mth.name)
    elif mth not in run.mths.redundant:
        users = tuple(u.name for u in mth.users)
        reason = (label("offload.dropped_no_users") if not users else
                  label("offload.dropped_custom_call_users", users=", ".join(users)))
        orig = ctx.input_instruction(mth.name)
        res.dropped_offloads.append(DroppedOffload(ctx.rn(mth.name), reason, users,
                                                   orig.source_location() if orig else None))
        if users:
            res.warnings.append(messages.dropped_offload_warning(mth.name, reason))


def handle_move_to_host_custom_call(run: OffloaderRun, mth: HloInstruction) -> None:
    """``HandleMoveToHostCustomCall``: one walk per starting instruction, then the MoveToHost goes."""
    if mth in run.mths.consumed:
        return
    run.rec.vlog(f'Offloading "{mth.operands[0].name}" to host.')
    if not mth.shape.is_array:
        # Observed, not read: libtpu 0.0.42.1 aborts on a tuple-shaped MoveToHost
        # ("Check failed: has_layout() (f32[16], f32[16])" in shape.h).
        run.rec.fail(Status.CHECK, f"Check failed: has_layout() {mth.shape}", mth)
        run.mths.consumed.add(mth)
        return
    host_operand_shortcut(run, mth)
    try:
        starts = get_starting_instructions(run, mth)
    except (XlaCheckFailure, XlaStatusError) as e:
        run.rec.fail_exc(e)
        starts = []
    if not starts:
        _no_starting_instructions(run, mth)
    for start in starts:
        copy_before = start.instruction.opcode is not DYNAMIC_UPDATE_SLICE
        # Since 26094505af: one walk per operand slot the MoveToHost feeds directly.
        slots: list[int | None] = [*start.instruction.operand_indices(mth)] or [None]
        for k in slots:
            walk_down_host_memory_offload_paths(run, start, copy_before, WalkOrigin.MOVE_TO_HOST.of(mth.name),
                                                mth.name, k)
    run.mths.consumed.add(mth)
    if mth not in run.edits.dead:
        try:
            remove_move_to_host(run, mth)
        except XlaStatusError as e:
            run.rec.fail_exc(e)


def host_operand_shortcut(run: OffloaderRun, mth: HloInstruction) -> None:
    """An AllocateBuffer or a DUS buffer broadcast under the MoveToHost goes to host directly.

    ``HandleMoveToHostCustomCall`` (since 1a0ac02d67, re-landed 42ae978d4f): a sole-user
    AllocateBuffer operand is put in host memory; a sole-user broadcast whose MoveToHost
    is the buffer (operand 0) of its only user, a dynamic-update-slice, is replaced by a
    host AllocateBuffer (the broadcast is left for dead-code elimination).
    """
    data = mth.operands[0]
    if is_allocate_buffer(data) and len(data.users) == 1:
        data.shape = data.shape.with_memory_space(HOST_MEMORY_SPACE)
    elif (data.opcode is BROADCAST and len(data.users) == 1 and len(mth.users) == 1
          and (user := next(iter(mth.users))).opcode is DYNAMIC_UPDATE_SLICE
          and user.operands[0] is mth):
        ab = run.edits.new_allocate_buffer(data.computation(), data.shape)
        mth.replace_operand(0, ab)
        run.res.inserted.append(InsertedInstruction(InsertedKind.ALLOCATE_BUFFER, ab.name, None, mth.name, 0,
                                                    replaces=data.name))


def get_starting_instructions(run: OffloaderRun, mth: HloInstruction) -> list[Position]:
    """``GetStartingInstructions``: the first real consumer on each path (or a DUS)."""
    graph = run.ctx.graph
    queue = deque(successors(Position(mth), graph))
    seen = set(queue)
    result: list[Position] = []
    while queue:
        pos = queue.popleft()
        instr = pos.instruction
        if instr.opcode is DYNAMIC_UPDATE_SLICE or not allowed_between_move_to_host_and_consumer(instr):
            result.append(pos)
            continue
        for s in successors(pos, graph):
            if s not in seen:
                seen.add(s)
                queue.append(s)
    return result
