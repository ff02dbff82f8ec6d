"""``WalkDownHostMemoryOffloadPaths``: one breadth-first walk of where host memory flows.

From a start position the walk follows ``GetSuccessors`` (:mod:`..host_offload_utils`) and
classifies every position it reaches: a MoveToHost (consumed), a MoveToDevice (the
walk ends there), a dynamic-update-slice (resolved later, :mod:`.host_compute`), a
pure memory op (its buffer goes to host), a slice that leads to a MoveToDevice (ends
there, dynamified), or anything else (host compute).  Reaching the entry root is the
program-end check of :mod:`.verdict`.  Then the walk's rewrites run (:mod:`.rewrites`).
"""

from __future__ import annotations

from collections import deque

from ....ir.instruction import HloInstruction
from ....ir.opcodes import (
    ASYNC_DONE,
    ASYNC_START,
    CONDITIONAL,
    COPY,
    CUSTOM_CALL,
    DYNAMIC_SLICE,
    DYNAMIC_UPDATE_SLICE,
    PARAMETER,
    SLICE,
)
from ....ir.shape import HOST_MEMORY_SPACE
from ...annotations import X64_SPLITS, is_move_to_device, is_move_to_host
from ...kinds import HostComputeReason, InsertedKind, MismatchContext
from ...positions import Position
from ...result import InsertedInstruction, WalkStart
from ..host_offload_utils import XlaCheckFailure, XlaStatusError, is_pure_memory_op, successors
from . import messages
from .host_compute import set_host_compute_frontend_attribute
from .rewrites import (
    dynamify_slice,
    insert_copies_to_device,
    insert_copy_between,
    remove_move_to_host,
    slice_leads_to_move_to_device,
)
from .state import OffloaderRun, memory_space_at, set_memory_space
from .verdict import ensure_entry_output_is_host


class WalkPaths:
    """What one walk found (XLA's local vectors and sets of ``WalkDownHostMemoryOffloadPaths``).
    Written out, not a dataclass (start-up, issue 36); nothing compares or prints one."""

    start: Position
    origin: str
    origin_instr: str
    buffers: list[Position]
    """Positions whose buffer becomes host memory."""
    mths: dict[HloInstruction, None]
    mtds: dict[HloInstruction, None]
    slices: dict[HloInstruction, None]
    x64_splits: dict[HloInstruction, None]
    previous: dict[Position, Position]
    """First-discovered predecessor of each position (for the E1200 trace)."""

    def __init__(self, start: Position, origin: str, origin_instr: str) -> None:
        self.start = start
        self.origin = origin
        self.origin_instr = origin_instr
        self.buffers = []
        self.mths = {}
        self.mtds = {}
        self.slices = {}
        self.x64_splits = {}
        self.previous = {}

    def trace(self, end: Position) -> list[Position]:
        trace = [end]
        guard = {end}
        while trace[-1] in self.previous:
            p = self.previous[trace[-1]]
            if p in guard:
                break
            guard.add(p)
            trace.append(p)
        trace.reverse()
        return trace


def _pure_memory_buffers(run: OffloaderRun, pos: Position, paths: WalkPaths) -> bool:
    """Extra buffers of async host calls; True when the position's own buffer is already saved."""
    instr = pos.instruction
    if instr.opcode is ASYNC_START:
        return True
    if instr.opcode is ASYNC_DONE:
        paths.buffers.append(Position(instr.operands[0], (1,)))
    elif instr.opcode is PARAMETER:
        for caller in run.ctx.graph.callers_of(instr.parent):
            if caller.opcode is ASYNC_START:
                paths.buffers.append(Position(caller, (0, instr.param_number(), *pos.shape_index)))
    return False


def _classify(run: OffloaderRun, pos: Position, paths: WalkPaths) -> tuple[bool, bool, bool]:
    """What the position is: ``(walk ends here, host compute, buffer already saved)``."""
    instr = pos.instruction
    op = instr.opcode
    if is_move_to_host(instr):
        run.mths.consumed.add(instr)
        paths.mths[instr] = None
    elif is_move_to_device(instr):
        paths.mtds[instr] = None
        return True, False, False
    elif op is DYNAMIC_UPDATE_SLICE:
        run.host.dus_seen[instr] = None
        if instr is paths.start.instruction:
            run.host.dus_with_annotation.add(instr)
    elif is_pure_memory_op(instr):
        return False, False, _pure_memory_buffers(run, pos, paths)
    elif op in (DYNAMIC_SLICE, SLICE):
        try:
            ends = slice_leads_to_move_to_device(run, instr)
        except (XlaCheckFailure, XlaStatusError) as e:
            run.rec.fail_exc(e)
            ends = False
        if ends:
            if op is SLICE:
                paths.slices[instr] = None
            return True, False, False
        return False, True, False
    elif op is COPY:
        return False, instr.shape == instr.operands[0].shape, False
    else:
        return False, True, False
    return False, False, False


def _visit(run: OffloaderRun, pos: Position, paths: WalkPaths) -> list[Position]:
    """Classify one position; the successors to walk on (none when the walk ends there)."""
    instr = pos.instruction
    ends, host_compute, already_saved = _classify(run, pos, paths)
    if ends:
        return []
    for user in instr.users:
        if user.opcode is CUSTOM_CALL and user.custom_call_target in X64_SPLITS:
            paths.x64_splits[user] = None
    if host_compute and instr not in run.host.host_compute_seen:
        run.res.warnings.append(messages.host_compute_warning(instr.name))
        set_host_compute_frontend_attribute(run, instr, HostComputeReason.WALK)
    if not already_saved and instr.opcode is not DYNAMIC_UPDATE_SLICE:
        paths.buffers.append(pos)
    if instr.is_root and instr.parent is run.ctx.entry:
        ensure_entry_output_is_host(run, pos.shape_index, MismatchContext.STARTING_FROM, paths.start.name,
                                    paths.trace(pos), paths.origin, paths.origin_instr)
        return []
    try:
        return successors(pos, run.ctx.graph)
    except (XlaCheckFailure, XlaStatusError) as e:
        run.rec.fail_exc(e)
        return []


def walk_down_host_memory_offload_paths(run: OffloaderRun, start: Position, insert_copy_before: bool,
                                        origin: str, origin_instr: str, operand_index: int | None = None) -> None:
    """``WalkDownHostMemoryOffloadPaths``: BFS from ``start``, classifying each position.

    ``operand_index`` is the operand slot of ``start`` the host value arrives in (when
    the MoveToHost feeds it directly): the host copy goes into that slot.
    """
    run.res.walks.append(WalkStart(run.ctx.rn(start.name), start.shape_index, origin, insert_copy_before))
    paths = WalkPaths(start, origin, origin_instr)
    queue: deque[Position] = deque([start])
    seen = {start}
    while queue:
        pos = queue.popleft()
        for s in _visit(run, pos, paths):
            paths.previous.setdefault(s, pos)
            if s in seen or memory_space_at(s) == HOST_MEMORY_SPACE:
                continue
            seen.add(s)
            queue.append(s)
    _apply_walk(run, paths, insert_copy_before, operand_index)


def _apply_walk(run: OffloaderRun, paths: WalkPaths, insert_copy_before: bool, operand_index: int | None) -> None:
    """The walk's rewrites, in XLA's order: host buffers, the copy in, device copies out, removals."""
    for b in paths.buffers:
        if b.instruction.shape.has_index(b.shape_index):
            set_memory_space(b, HOST_MEMORY_SPACE)
    if insert_copy_before and not _copy_into_branch_root(run, paths):
        try:
            insert_copy_between(run, paths.start, operand_index)
        except (XlaCheckFailure, XlaStatusError) as e:
            run.rec.fail_exc(e)
    insert_copies_to_device(run, paths.mtds, paths.x64_splits)
    for mth in paths.mths:
        if mth not in run.edits.dead:
            run.rec.vlog(f'Removing MoveToHost custom call "{mth.name}"')
            try:
                remove_move_to_host(run, mth)
            except XlaStatusError as e:
                run.rec.fail_exc(e)
    for sl in paths.slices:
        dynamify_slice(run, sl)


def _copy_into_branch_root(run: OffloaderRun, paths: WalkPaths) -> bool:
    """A MoveToHost that is a branch root of an array-shaped conditional: the copy replaces it.

    Before host offloading the real compiler's ConditionalCanonicalizer makes every
    array-shaped conditional tuple-shaped (each branch root becomes ``tuple(root)``), so
    the walk starts at that one-element tuple, whose only predecessor is the MoveToHost's
    operand.  Modelled without the extra tuple: the conditional is the walk's start here
    and has one predecessor per branch (``InsertCopyBetween`` would CHECK-fail on it,
    which libtpu 0.0.42.1 does not: it compiles), so the copy goes where the tuple's
    would, at the root of the MoveToHost's own branch.
    """
    cond = paths.start.instruction
    if cond.opcode is not CONDITIONAL or cond.shape.is_tuple:
        return False
    for branch in cond.called_computations:
        mth = branch.root
        if mth is not None and is_move_to_host(mth) and mth.name == paths.origin_instr:
            data = mth.operands[0]
            copy = run.edits.new_copy(data, HOST_MEMORY_SPACE)
            branch.set_root_instruction(copy)
            run.res.inserted.append(InsertedInstruction(InsertedKind.COPY_TO_HOST, copy.name, data.name,
                                                        cond.name, None))
            return True
    return False
