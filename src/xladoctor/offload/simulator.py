"""HostOffloader (as shipped, see :mod:`.rules`) re-run in Python on a private copy of the module.

Why simulate instead of only walking: the pass rewrites the graph as it goes
(copies inserted before each walk's start, MoveToHosts removed, MoveToDevices
replaced by copies, memory spaces set), and every later walk and the final
dynamic-update-slice resolution read that rewritten graph (a successor already in
host memory is skipped, a DUS looks at the memory space of its *current*
operands).  Replaying the same rewrites on a copy is the simplest way to make the
same decisions.  The order of work is ``HostOffloader::RunImpl``:

1. clear S(5) from every instruction (only the entry layout is input);
2. host ``async-start`` outputs (``HandleRedundantCopiesBackToHost``);
3. input streaming: entry parameters whose entry layout is S(5);
4. every MoveToHost, post-order from the entry, recursing into called computations;
5. dynamic-update-slices (``HandleDynamicUpdateSlices``);
6. remove the remaining MoveToDevices; 7. the scheduling fix (copy of a DUS update
   that aliases a loop parameter).

Unlike XLA, the simulation does not stop at the first error: it records it (the
first one is what XLA reports), treats the offending output as if it were in
host memory, and carries on, so every offending output is found.  Each walk keeps
a visited set and the call graph is built once, so the whole run is linear in
the size of the module (XLA's own BFS has neither).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, replace

from ..ir.computation import HloComputation
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.names import NameUniquer
from ..ir.opcodes import HloOpcode
from ..ir.shape import HOST_MEMORY_SPACE, Shape, ShapeIndex, format_shape_index
from . import messages
from .annotations import (
    ALLOCATE_BUFFER,
    COMPUTE_TYPE_ATTR,
    COMPUTE_TYPE_HOST,
    X64_SPLITS,
    is_allocate_buffer,
    is_host_async_start,
    is_move_to_device,
    is_move_to_host,
)
from .dataflow import (
    CallGraph,
    XlaCheckFailure,
    XlaStatusError,
    allowed_between_move_to_host_and_consumer,
    allowed_between_slice_and_move_to_device,
    is_pure_memory_op,
    predecessors,
    successors,
)
from .positions import Position
from .result import (
    DroppedOffload,
    DusOutcome,
    HostComputeConversion,
    HostOffloadResult,
    InsertedInstruction,
    OutputMismatch,
    OutputMovedToHost,
    PassFailure,
    PathHop,
    WalkStart,
)
from .rules import SHIPPED, UNMERGED_PR_36525

DEVICE_MEMORY_SPACE = 0
_SLICE_RANGE = re.compile(r"\[\s*(-?\d+)\s*:\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?\]")


@dataclass(frozen=True)
class OffloadOptions:
    """Switches that change the pass' decisions."""

    rule: str = SHIPPED
    """Program-end rule (:mod:`.rules`): ``shipped`` = any output reached by host memory
    whose layout is not host is E1200; ``unmerged-pr-36525`` = only when that layout is
    customized, else the output silently becomes host memory."""
    disable_host_compute: bool = False
    """``--xla_disable_automatic_host_compute_offload``."""
    allow_h2h_copy: bool = False
    """``--xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled``."""


def _memory_space(shape: Shape) -> int:
    return shape.layout.memory_space if shape.layout is not None else DEVICE_MEMORY_SPACE


def _compatible_ignoring_fp_precision(a: Shape, b: Shape) -> bool:
    """``ShapeUtil::CompatibleIgnoringFpPrecision``: layouts ignored, any float type matches any float type."""
    if a.is_tuple or b.is_tuple:
        return a.is_tuple and b.is_tuple and len(a.tuple_shapes) == len(b.tuple_shapes) and \
            all(_compatible_ignoring_fp_precision(x, y) for x, y in zip(a.tuple_shapes, b.tuple_shapes))
    same_type = a.element_type is b.element_type or (a.element_type.kind == "float" == b.element_type.kind)
    return same_type and tuple(a.dimensions) == tuple(b.dimensions)


def _is_synchronous_host_copy(instr: HloInstruction) -> bool:
    """``IsSynchronousCopyFromOrToHost``: a copy between host and device memory."""
    if instr.opcode is not HloOpcode.COPY or not instr.shape.is_array or not instr.operands[0].shape.is_array:
        return False
    return (_memory_space(instr.shape) == HOST_MEMORY_SPACE) != \
        (_memory_space(instr.operands[0].shape) == HOST_MEMORY_SPACE)


def _all_leaves_host(shape: Shape) -> bool:
    leaves = list(shape.leaves())
    return bool(leaves) and all(s.is_array and _memory_space(s) == HOST_MEMORY_SPACE for _, s in leaves)


class HostOffloaderSimulation:
    """One run of the pass over ``module`` (a private copy: it is rewritten)."""

    def __init__(self, module: HloModule, original: HloModule, options: OffloadOptions,
                 origin: dict[str, str] | None = None):
        self.m = module
        self.original = original
        self.origin = origin or {}
        """Clones made by the call-inlining pre-pass -> the input instruction they copy."""
        self.options = options
        self.graph = CallGraph(module)
        self.res = HostOffloadResult(rule=options.rule)
        self.names = NameUniquer(module)
        self.entry = module.entry_computation()
        self.ecl_result: Shape = module.entry_layout().result
        self.consumed_mths: set[HloInstruction] = set()
        self.redundant_mths: set[HloInstruction] = set()
        self.dead: set[HloInstruction] = set()
        self.dus_seen: dict[HloInstruction, None] = {}
        self.dus_with_annotation: set[HloInstruction] = set()
        self.dus_allocated: set[HloInstruction] = set()
        self.copies_after: dict[HloInstruction, HloInstruction] = {}
        self.copy_inserted_before: set[tuple[HloInstruction, ShapeIndex, int]] = set()
        self.host_compute_seen: set[HloInstruction] = set()
        self.logging = True
        """VLOG lines are kept until XLA would have stopped (the first failure)."""

    # ------------------------------------------------------------------ recording
    def vlog(self, line: str) -> None:
        if self.logging:
            self.res.vlog.append(line)

    def _first(self, kind: str) -> bool:
        if self.res._first_kind is None:
            self.res._first_kind = kind
            self.logging = False
            return True
        return False

    def fail(self, status: str, message: str, instr: HloInstruction | None) -> None:
        first = self._first("failure")
        name = self.rn(instr.name) if instr is not None else None
        self.res.failures.append(PassFailure(status, message, name, first))

    def fail_exc(self, exc: Exception) -> None:
        if isinstance(exc, XlaCheckFailure):
            self.fail("CHECK", exc.message, exc.instruction)
        elif isinstance(exc, XlaStatusError):
            self.fail(exc.status, exc.message, exc.instruction)
        else:  # pragma: no cover - programming error, surfaced as-is
            raise exc

    def rn(self, name: str) -> str:
        """The name reported: the input module's (an inlined clone reports what it copies)."""
        return self.origin.get(name, name)

    def _input(self, name: str) -> HloInstruction | None:
        return self.original.get_instruction(self.origin.get(name, name))

    def hop(self, pos: Position) -> PathHop:
        instr = pos.instruction
        orig = self._input(instr.name)
        src = orig if orig is not None else instr
        comp = src.parent.name if src.parent is not None else ""
        return PathHop(self.rn(instr.name), pos.shape_index, src.opcode.value, str(src.shape), src.source_location(), comp)

    # ------------------------------------------------------------------ IR edits
    def add(self, comp: HloComputation, base: str, opcode: HloOpcode, shape: Shape,
            operands: list[HloInstruction]) -> HloInstruction:
        instr = HloInstruction(self.names.new(base), opcode, shape)
        comp.add_instruction(instr)
        self.m.register_instruction(instr)
        instr.operands = operands
        return instr

    def new_copy(self, of: HloInstruction, memory_space: int) -> HloInstruction:
        return self.add(of.computation(), "copy", HloOpcode.COPY, of.shape.with_memory_space(memory_space), [of])

    def new_allocate_buffer(self, comp: HloComputation, shape: Shape) -> HloInstruction:
        ab = self.add(comp, "custom-call", HloOpcode.CUSTOM_CALL, shape.with_memory_space(HOST_MEMORY_SPACE), [])
        ab.custom_call_target = ALLOCATE_BUFFER
        return ab

    def remove(self, instr: HloInstruction) -> None:
        """Rewire users to operand 0 and drop ``instr`` (lazily: it stays listed but dead)."""
        instr.replace_all_uses_with(instr.operands[0])
        instr.operands = ()
        self.dead.add(instr)
        self.res.removed.append(instr.name)

    def set_memory_space(self, pos: Position, space: int) -> None:
        instr = pos.instruction
        instr.shape = instr.shape.with_memory_space(space, pos.shape_index)

    def memory_space_at(self, pos: Position) -> int | None:
        """Memory space of an array subshape; None for tuples (XLA: no layout to read)."""
        sub = pos.instruction.shape.subshape(pos.shape_index)
        return _memory_space(sub) if sub.is_array else None

    def mark_host_compute(self, instr: HloInstruction, reason: str) -> bool:
        """``SetHostComputeFrontendAttribute``; False when host compute is disabled."""
        allowed_copy = instr.opcode is HloOpcode.COPY and self.options.allow_h2h_copy
        if self.options.disable_host_compute and not allowed_copy:
            self.fail("INVALID_ARGUMENT", messages.HOST_COMPUTE_DISABLED, instr)
            return False
        instr.frontend_attributes.setdefault(COMPUTE_TYPE_ATTR, COMPUTE_TYPE_HOST)
        if instr not in self.host_compute_seen:
            self.host_compute_seen.add(instr)
            orig = self._input(instr.name)
            loc = orig.source_location() if orig is not None else instr.source_location()
            self.res.host_compute.append(HostComputeConversion(self.rn(instr.name), instr.opcode.value, reason, loc))
        return True

    def dead_code(self, removed: list[HloInstruction]) -> None:
        """MoveToHosts that HloDCE removed before the pass (see :mod:`.dce`): they move nothing."""
        for instr in reversed(removed):
            if is_move_to_host(instr):
                orig = self._input(instr.name)
                self.res.dropped_offloads.append(DroppedOffload(
                    self.rn(instr.name), "it has no users (dead code, removed before the pass)", (),
                    orig.source_location() if orig else None))

    def prior_failure(self, status: str, message: str, instruction: str | None) -> None:
        """A failure of an earlier pass (HostOffloadLegalize): XLA stops before this one."""
        first = self._first("failure")
        self.res.failures.append(PassFailure(status, message, instruction, first))

    # ------------------------------------------------------------------ driver
    def run(self) -> HostOffloadResult:
        self.clear_host_memory_space()
        for comp in self.m.computations:
            if self._is_fusion_computation(comp):
                continue
            for instr in list(comp.instructions):
                if is_host_async_start(instr):
                    try:
                        self.handle_host_async(instr)
                    except (XlaCheckFailure, XlaStatusError) as e:
                        self.fail_exc(e)
        self.input_streaming()
        self.process_move_to_hosts()
        self.handle_dynamic_update_slices()
        self.remove_move_to_devices()
        self.scheduling_fix()
        self.collect()
        return self.res

    def _is_fusion_computation(self, comp: HloComputation) -> bool:
        return any(c.opcode is HloOpcode.FUSION for c in self.graph.callers_of(comp))

    def clear_host_memory_space(self) -> None:
        for instr in self.m.instructions():
            if any(s.is_array and _memory_space(s) == HOST_MEMORY_SPACE for _, s in instr.shape.leaves()):
                shape = instr.shape
                for idx, leaf in list(shape.leaves()):
                    if leaf.is_array and _memory_space(leaf) == HOST_MEMORY_SPACE:
                        shape = shape.with_memory_space(DEVICE_MEMORY_SPACE, idx)
                instr.shape = shape

    # ------------------------------------------------------------------ starts
    def input_streaming(self) -> None:
        ecl = self.m.entry_layout()
        for i, pshape in enumerate(ecl.parameters):
            for idx, leaf in pshape.leaves():
                if leaf.is_array and leaf.layout is not None and leaf.layout.memory_space == HOST_MEMORY_SPACE:
                    param = self.entry.parameters[i]
                    self.vlog(f"Host parameter #{i} streamed into program with shape: {leaf} at index "
                              f"{format_shape_index(idx)}")
                    self.walk(Position(param, idx), False, f"input-streaming {param.name}", param.name)

    def process_move_to_hosts(self) -> None:
        """``ProcessNextMoveToHostInstr`` until nothing changes, done as one ordered pass."""
        visited: set[HloComputation] = {self.entry}
        stack = [iter(self.entry.post_order())]
        while stack:
            for instr in stack[-1]:
                if instr in self.dead:
                    continue
                if is_move_to_host(instr):
                    self.handle_move_to_host(instr)
                pending = [c for c in instr.called_computations if c not in visited]
                if pending:
                    for c in pending:
                        visited.add(c)
                    stack.extend(iter(c.post_order()) for c in reversed(pending))
                    break
            else:
                stack.pop()

    def handle_move_to_host(self, mth: HloInstruction) -> None:
        if mth in self.consumed_mths:
            return
        self.vlog(f'Offloading "{mth.operands[0].name}" to host.')
        if not mth.shape.is_array:
            # Observed, not read: libtpu 0.0.42.1 aborts on a tuple-shaped MoveToHost
            # ("Check failed: has_layout() (f32[16], f32[16])" in shape.h).
            self.fail("CHECK", f"Check failed: has_layout() {mth.shape}", mth)
            self.consumed_mths.add(mth)
            return
        self.host_operand_shortcut(mth)
        try:
            starts = self.starting_positions(mth)
        except (XlaCheckFailure, XlaStatusError) as e:
            self.fail_exc(e)
            starts = []
        if not starts:
            if mth is self.entry.root:
                data = mth.operands[0]
                copy = self.new_copy(data, HOST_MEMORY_SPACE)
                mth.replace_all_uses_with(copy)
                self.res.inserted.append(InsertedInstruction("output-copy-to-host", copy.name, data.name, None,
                                                             replaces=mth.name))
                if self.options.rule == UNMERGED_PR_36525:
                    self.ensure_entry_output_is_host((), "custom call", mth.name, [], f"move-to-host {mth.name}",
                                                     mth.name, Position(mth))
            elif mth not in self.redundant_mths:
                users = tuple(u.name for u in mth.users)
                reason = ("it has no users" if not users else
                          "its only users are custom calls that do not alias it (" + ", ".join(users) + ")")
                orig = self._input(mth.name)
                self.res.dropped_offloads.append(DroppedOffload(self.rn(mth.name), reason, users,
                                                                orig.source_location() if orig else None))
                if users:
                    self.res.warnings.append(messages.dropped_offload_warning(mth.name, reason))
        for start in starts:
            copy_before = start.instruction.opcode is not HloOpcode.DYNAMIC_UPDATE_SLICE
            # Since 26094505af: one walk per operand slot the MoveToHost feeds directly.
            slots: list[int | None] = [*start.instruction.operand_indices(mth)] or [None]
            for k in slots:
                self.walk(start, copy_before, f"move-to-host {mth.name}", mth.name, k)
        self.consumed_mths.add(mth)
        if mth not in self.dead:
            try:
                self.remove_move_to_host(mth)
            except XlaStatusError as e:
                self.fail_exc(e)

    def host_operand_shortcut(self, mth: HloInstruction) -> None:
        """An AllocateBuffer or a DUS buffer broadcast under the MoveToHost goes to host directly.

        ``HandleMoveToHostCustomCall`` (since 1a0ac02d67, re-landed 42ae978d4f): a sole-user
        AllocateBuffer operand is put in host memory; a sole-user broadcast whose MoveToHost
        is the buffer (operand 0) of its only user, a dynamic-update-slice, is replaced by a
        host AllocateBuffer (the broadcast is left for dead-code elimination).
        """
        data = mth.operands[0]
        if is_allocate_buffer(data) and len(data.users) == 1:
            data.shape = data.shape.with_memory_space(HOST_MEMORY_SPACE)
        elif (data.opcode is HloOpcode.BROADCAST and len(data.users) == 1 and len(mth.users) == 1
              and (user := next(iter(mth.users))).opcode is HloOpcode.DYNAMIC_UPDATE_SLICE
              and user.operands[0] is mth):
            ab = self.new_allocate_buffer(data.computation(), data.shape)
            mth.replace_operand(0, ab)
            self.res.inserted.append(InsertedInstruction("allocate-buffer", ab.name, None, mth.name, 0,
                                                         replaces=data.name))

    def remove_move_to_host(self, mth: HloInstruction) -> None:
        """``ReplaceAllUsesWith(operand)`` + removal; XLA's RET_CHECK refuses an incompatible shape."""
        data = mth.operands[0]
        if not _compatible_ignoring_fp_precision(mth.shape, data.shape):
            self.consumed_mths.add(mth)
            raise XlaStatusError("INTERNAL", "RET_CHECK failure (xla/hlo/ir/hlo_instruction.cc) "
                                 "ShapeUtil::CompatibleIgnoringFpPrecision(shape(), new_producer->shape()) "
                                 f"{mth.shape} is not compatible with {data.shape}", mth)
        self.remove(mth)

    def starting_positions(self, mth: HloInstruction) -> list[Position]:
        """``GetStartingInstructions``: the first real consumer on each path (or a DUS)."""
        queue = deque(successors(Position(mth), self.graph))
        seen = set(queue)
        result: list[Position] = []
        while queue:
            pos = queue.popleft()
            instr = pos.instruction
            if instr.opcode is HloOpcode.DYNAMIC_UPDATE_SLICE or not allowed_between_move_to_host_and_consumer(instr):
                result.append(pos)
                continue
            for s in successors(pos, self.graph):
                if s not in seen:
                    seen.add(s)
                    queue.append(s)
        return result

    # ------------------------------------------------------------------ the walk
    def walk(self, start: Position, insert_copy_before: bool, origin: str, origin_instr: str,
             operand_index: int | None = None) -> None:
        """``WalkDownHostMemoryOffloadPaths``: BFS from ``start``, classifying each position.

        ``operand_index`` is the operand slot of ``start`` the host value arrives in (when
        the MoveToHost feeds it directly): the host copy goes into that slot.
        """
        self.res.walks.append(WalkStart(self.rn(start.name), start.shape_index, origin, insert_copy_before))
        queue: deque[Position] = deque([start])
        seen = {start}
        previous: dict[Position, Position] = {}
        buffers: list[Position] = []
        mths: dict[HloInstruction, None] = {}
        mtds: dict[HloInstruction, None] = {}
        slices: dict[HloInstruction, None] = {}
        x64: dict[HloInstruction, None] = {}
        start_instr = start.instruction
        while queue:
            pos = queue.popleft()
            instr = pos.instruction
            op = instr.opcode
            already_saved = False
            host_compute = False
            if is_move_to_host(instr):
                self.consumed_mths.add(instr)
                mths[instr] = None
            elif is_move_to_device(instr):
                mtds[instr] = None
                continue
            elif op is HloOpcode.DYNAMIC_UPDATE_SLICE:
                self.dus_seen[instr] = None
                if instr is start_instr:
                    self.dus_with_annotation.add(instr)
            elif is_pure_memory_op(instr):
                if op is HloOpcode.ASYNC_START:
                    already_saved = True
                elif op is HloOpcode.ASYNC_DONE:
                    buffers.append(Position(instr.operands[0], (1,)))
                elif op is HloOpcode.PARAMETER:
                    for caller in self.graph.callers_of(instr.parent):
                        if caller.opcode is HloOpcode.ASYNC_START:
                            buffers.append(Position(caller, (0, instr.param_number(), *pos.shape_index)))
            elif op in (HloOpcode.DYNAMIC_SLICE, HloOpcode.SLICE):
                try:
                    ends = self.slice_leads_to_move_to_device(instr)
                except (XlaCheckFailure, XlaStatusError) as e:
                    self.fail_exc(e)
                    ends = False
                if ends:
                    if op is HloOpcode.SLICE:
                        slices[instr] = None
                    continue
                host_compute = True
            elif op is HloOpcode.COPY:
                host_compute = instr.shape == instr.operands[0].shape
            else:
                host_compute = True
            for user in instr.users:
                if user.opcode is HloOpcode.CUSTOM_CALL and user.custom_call_target in X64_SPLITS:
                    x64[user] = None
            if host_compute and instr not in self.host_compute_seen:
                self.res.warnings.append(messages.host_compute_warning(instr.name))
                self.mark_host_compute(instr, "walk")
            if not already_saved and op is not HloOpcode.DYNAMIC_UPDATE_SLICE:
                buffers.append(pos)
            if instr.is_root and instr.parent is self.entry:
                self.ensure_entry_output_is_host(pos.shape_index, "starting from", start.name,
                                                 self._trace(pos, previous), origin, origin_instr, pos)
                continue
            try:
                succs = successors(pos, self.graph)
            except (XlaCheckFailure, XlaStatusError) as e:
                self.fail_exc(e)
                continue
            for s in succs:
                previous.setdefault(s, pos)
                if s in seen or self.memory_space_at(s) == HOST_MEMORY_SPACE:
                    continue
                seen.add(s)
                queue.append(s)
        self._apply_walk(start, insert_copy_before, buffers, mths, mtds, slices, x64, operand_index)

    def _path(self, origin_instr: str, trace: list[Position]) -> tuple[PathHop, ...]:
        hops = [self.hop(p) for p in trace]
        origin = self._input(origin_instr)
        if origin is not None and (not trace or trace[0].name != origin_instr):
            hops.insert(0, self.hop(Position(origin)))
        return tuple(hops)

    def _trace(self, end: Position, previous: dict[Position, Position]) -> list[Position]:
        trace = [end]
        guard = {end}
        while trace[-1] in previous:
            p = previous[trace[-1]]
            if p in guard:
                break
            guard.add(p)
            trace.append(p)
        trace.reverse()
        return trace

    def _apply_walk(self, start: Position, insert_copy_before: bool, buffers: list[Position],
                    mths: dict, mtds: dict, slices: dict, x64: dict, operand_index: int | None) -> None:
        for b in buffers:
            if b.instruction.shape.has_index(b.shape_index):
                self.set_memory_space(b, HOST_MEMORY_SPACE)
        if insert_copy_before:
            try:
                self.insert_copy_before(start, operand_index)
            except (XlaCheckFailure, XlaStatusError) as e:
                self.fail_exc(e)
        for mtd in mtds:
            if mtd in self.dead:
                continue
            data = mtd.operands[0]
            copy = self.new_copy(data, DEVICE_MEMORY_SPACE)
            self.vlog(f'Inserted copy "{copy.name}" before custom call "{mtd.name}"')
            # Since b4226f6093 the copy becomes the MoveToDevice's operand: the MoveToDevice
            # stays, and stays the end of every later walk, until the cleanup removes it.
            mtd.replace_operand(0, copy)
            self.res.inserted.append(InsertedInstruction("copy-to-device", copy.name, data.name, mtd.name, 0,
                                                         replaces=None))
        if x64:
            self.res.warnings.append(messages.X64_SPLIT_WARNING)
        for split in x64:
            data = split.operands[0]
            copy = self.new_copy(data, DEVICE_MEMORY_SPACE)
            split.replace_operand(0, copy)
            self.res.inserted.append(InsertedInstruction("copy-to-device", copy.name, data.name, split.name, 0))
        for mth in mths:
            if mth not in self.dead:
                self.vlog(f'Removing MoveToHost custom call "{mth.name}"')
                try:
                    self.remove_move_to_host(mth)
                except XlaStatusError as e:
                    self.fail_exc(e)
        for sl in slices:
            self.dynamify_slice(sl)

    def slice_leads_to_move_to_device(self, sl: HloInstruction) -> bool:
        """``SliceLeadsToMoveToDeviceCustomCall``: only transfers-like ops until a MoveToDevice."""
        queue = deque(successors(Position(sl), self.graph))
        seen = set(queue)
        while queue:
            pos = queue.popleft()
            instr = pos.instruction
            if is_move_to_device(instr):
                continue
            if not allowed_between_slice_and_move_to_device(instr):
                self.res.warnings.append(messages.slice_not_ending_warning(sl.opcode.value, sl.name))
                return False
            for s in successors(pos, self.graph):
                if s not in seen:
                    seen.add(s)
                    queue.append(s)
        return True

    def insert_copy_before(self, start: Position, operand_index: int | None = None) -> None:
        """``InsertCopyBetween(predecessor, start)``: the device-to-host copy feeding the walk.

        The copy replaces every use of the predecessor in the target (each caller, when
        the start is a parameter); an existing device/host copy in host memory is reused.
        """
        preds = predecessors(start, self.graph, operand_index if operand_index is not None else 0)
        if len(preds) != 1:
            raise XlaCheckFailure(f"Check failed: predecessors.size() == 1 ({len(preds)} vs. 1)",
                                  start.instruction)
        before = preds[0]
        data = before.instruction
        targets: list[tuple[HloInstruction, ShapeIndex]] = []
        if start.instruction.opcode is HloOpcode.PARAMETER:
            for caller in self.graph.callers_of(start.instruction.parent):
                targets.extend((caller, (k,)) for k in caller.operand_indices(data))
        else:
            targets.append((start.instruction, start.shape_index))
        for target, idx in targets:
            slot = operand_index if operand_index is not None else (idx[0] if idx else 0)
            key = (target, idx, slot)
            if key in self.copy_inserted_before:
                continue
            if _is_synchronous_host_copy(data) and _memory_space(data.shape) == HOST_MEMORY_SPACE:
                copy = data
            else:
                found = self.copies_after.get(data)
                if found is None:
                    found = self.new_copy(data, HOST_MEMORY_SPACE)
                    self.copies_after[data] = found
                copy = found
            for k in target.operand_indices(data):
                target.replace_operand(k, copy)
                if copy is not data:
                    self.res.inserted.append(InsertedInstruction("copy-to-host", copy.name, data.name,
                                                                 target.name, k))
            self.copy_inserted_before.add(key)

    def dynamify_slice(self, sl: HloInstruction) -> None:
        """``DynamifySlice``: a slice that reads host memory becomes a dynamic-slice (a DMA)."""
        ranges = [(int(a), int(b)) for a, b, _ in _SLICE_RANGE.findall(sl.attributes.get("slice", ""))]
        comp = sl.computation()
        consts = []
        for start, _ in ranges:
            c = self.add(comp, "constant", HloOpcode.CONSTANT, Shape.array("s32", ()), [])
            c.literal = str(start)
            consts.append(c)
        ds = self.add(comp, "dynamic-slice", HloOpcode.DYNAMIC_SLICE, sl.shape, [sl.operands[0], *consts])
        ds.attributes["dynamic_slice_sizes"] = "{" + ",".join(str(b - a) for a, b in ranges) + "}"
        sl.replace_all_uses_with(ds)
        sl.operands = ()
        self.dead.add(sl)
        self.res.removed.append(sl.name)
        self.res.dynamified_slices.append(sl.name)
        self.res.inserted.append(InsertedInstruction("dynamic-slice", ds.name, ds.operands[0].name, None,
                                                     replaces=sl.name))

    # ------------------------------------------------------------------ program end
    def ensure_entry_output_is_host(self, index: ShapeIndex, context: str, start_name: str,
                                    trace: list[Position], origin: str, origin_instr: str,
                                    at: Position) -> None:
        """The program-end rule: shipped XLA's E1200, or ``EnsureEntryLayoutIsHostMemory`` of PR #36525."""
        if not self.ecl_result.has_index(index):
            return
        sub = self.ecl_result.subshape(index)
        if _all_leaves_host(sub):
            return
        layouts = [s.effective_layout for _, s in sub.leaves() if s.is_array]
        customized = any(lay.is_customized for lay in layouts)
        new_result = self.ecl_result.with_memory_space(HOST_MEMORY_SPACE, index)
        if self.options.rule == SHIPPED or customized:
            first = self._first("E1200")
            if first:
                self.res.vlog.append("Instruction trace leading to error:")
                self.res.vlog.extend("  " + str(p) for p in trace)
            self.res.errors.append(OutputMismatch(
                start=self.rn(start_name), context=context, output_index=index, output_layout=str(sub),
                customized=customized, trace=tuple(self.hop(p) for p in trace), origin=origin,
                origin_instruction=origin_instr, path=self._path(origin_instr, trace), first=first))
        else:
            new_sub = new_result.subshape(index)
            self.res.outputs_moved_to_host.append(OutputMovedToHost(index, str(sub), str(new_sub), self.rn(start_name)))
            self.res.warnings.append(messages.output_moved_warning(format_shape_index(index), str(sub),
                                                                   str(new_sub), start_name))
        # Carry on as if the output were host memory, so each output is reported once.
        self.ecl_result = new_result

    # ------------------------------------------------------------------ host async
    def handle_host_async(self, start: HloInstruction) -> None:
        """``HandleRedundantCopiesBackToHost``: keep host-computed outputs on host when only host uses them."""
        users = list(start.users)
        if len(users) != 1:
            raise XlaCheckFailure(f"Check failed: call_start->users().size() == 1 ({len(users)} vs. 1)", start)
        done = users[0]
        kept: list[tuple[ShapeIndex, list[Position]]] = []
        for out_idx, _ in done.shape.leaves():
            collected = [Position(start, (1,) + out_idx), Position(done, out_idx)]
            queue = deque([Position(done, out_idx)])
            seen = {queue[0]}
            host_only, entry_output = True, False
            while queue and host_only:
                pos = queue.popleft()
                if any(u.opcode is HloOpcode.ASYNC_START for u in pos.instruction.users):
                    host_only = False
                    break
                for s in successors(pos, self.graph):
                    if not is_pure_memory_op(s.instruction) or not self._host_only_use(s):
                        host_only = False
                        break
                    if s.instruction.is_root and s.instruction.parent is self.entry:
                        entry_output = True
                    if s not in seen:
                        seen.add(s)
                        queue.append(s)
                        collected.append(s)
            if host_only and entry_output:
                kept.append((out_idx, collected))
        wrapped = (start.called.get("calls") or start.called_computations)[0]
        for instr in wrapped.instructions:
            if instr.opcode is not HloOpcode.PARAMETER and instr is not wrapped.root:
                from ..syntax.hlo_printer import print_instruction
                raise XlaStatusError("INTERNAL", "Unexpected instruction found in async computation: "
                                     + print_instruction(instr, "%"), instr)
        to_bypass: list[HloInstruction] = []
        for out_idx, collected in kept:
            for pos in collected:
                if is_move_to_host(pos.instruction):
                    to_bypass.append(pos.instruction)
                elif pos.instruction.shape.has_index(pos.shape_index):
                    self.set_memory_space(pos, HOST_MEMORY_SPACE)
            self.set_memory_space(Position(wrapped.root_instruction(), out_idx), HOST_MEMORY_SPACE)
        for mth in to_bypass:
            if mth.users or mth.is_root:
                mth.replace_all_uses_with(mth.operands[0])
                self.redundant_mths.add(mth)
        if to_bypass:
            self.res.warnings.append(f"Host computation {start.name}: redundant MoveToHost removed: "
                                     + ", ".join(m.name for m in to_bypass))

    def _host_only_use(self, pos: Position) -> bool:
        """``ExtraCheckForValidUsageOnHostForHostOffloadedOutputs``."""
        instr = pos.instruction
        if instr.is_root and instr.parent is self.entry and (
                not self.ecl_result.has_index(pos.shape_index)
                or not _all_leaves_host(self.ecl_result.subshape(pos.shape_index))):
            return False
        if instr.opcode is HloOpcode.CUSTOM_CALL and not is_move_to_host(instr):
            return False
        return instr.opcode not in (HloOpcode.ASYNC_START, HloOpcode.ASYNC_DONE)

    # ------------------------------------------------------------------ DUS
    def handle_dynamic_update_slices(self) -> None:
        for dus in self.dus_seen:
            if dus in self.dead:
                continue
            dst = _memory_space(dus.operands[0].shape)
            upd = _memory_space(dus.operands[1].shape)
            host, dev = HOST_MEMORY_SPACE, DEVICE_MEMORY_SPACE
            action = "none"
            if upd == host and dst == dev:
                if self.mark_host_compute(dus, "dus-host-to-device"):
                    action = "host-compute"
            elif upd == host and dst == host:
                if self.mark_host_compute(dus, "dus-host-to-host"):
                    self.set_memory_space(Position(dus), host)
                    action = "host-compute+host-output"
            elif upd == dev and dst == host:
                # The buffer may be a broadcast already in host memory: look for it (and
                # put the DUS in host memory on the way).
                action = "host-output"
                try:
                    self.create_allocate_buffer(dus)
                except (XlaCheckFailure, XlaStatusError) as e:
                    self.fail_exc(e)
                    action = "failed"
            elif upd == dev and dst == dev and dus in self.dus_with_annotation:
                action = "allocate-buffer"
                try:
                    self.create_allocate_buffer(dus)
                except (XlaCheckFailure, XlaStatusError) as e:
                    self.fail_exc(e)
                    action = "failed"
            self.res.dynamic_update_slices.append(DusOutcome(self.rn(dus.name), upd == host, dst == host, action))

    def create_allocate_buffer(self, dus: HloInstruction) -> None:
        """``CreateAllocateBufferForDynamicUpdateSlice``: walk up to the broadcast that made the buffer."""
        if dus in self.dus_allocated:
            return
        queue = deque([Position(dus)])
        seen = {queue[0]}
        prev: Position | None = None
        found_broadcast = False
        while queue:
            pos = queue.popleft()
            instr, idx = pos.instruction, pos.shape_index
            previous_space = self.memory_space_at(pos) or DEVICE_MEMORY_SPACE
            self.set_memory_space(pos, HOST_MEMORY_SPACE)
            if instr.opcode is HloOpcode.PARAMETER:
                if instr.parent is self.entry:
                    declared = self.m.entry_layout().parameters[instr.param_number()]
                    sub = declared.subshape(idx) if declared.has_index(idx) else None
                    if sub is not None and sub.is_array and _memory_space(sub) == HOST_MEMORY_SPACE:
                        return  # the buffer is a host parameter
                    raise XlaStatusError("INVALID_ARGUMENT", f'Entry computation parameter "{self.rn(instr.name)}" '
                                         f"(shape index {format_shape_index(idx)}) is not in host memory space.",
                                         instr)
                for caller in self.graph.callers_of(instr.parent):
                    if caller.opcode is HloOpcode.WHILE:
                        self._host_while_condition(caller, instr, idx)
            elif instr.opcode is HloOpcode.DYNAMIC_UPDATE_SLICE:
                self.dus_allocated.add(instr)
            elif is_allocate_buffer(instr):
                if prev is None:
                    raise XlaCheckFailure("We expect to have a previous instruction at this point.", instr)
                for s in successors(Position(instr, idx), self.graph):
                    if self.memory_space_at(s) != HOST_MEMORY_SPACE:
                        self.set_memory_space(pos, previous_space)
                        slots = prev.instruction.operand_indices(instr)
                        if len(slots) > 1 and prev.instruction.opcode is not HloOpcode.TUPLE:
                            raise XlaStatusError(
                                "UNIMPLEMENTED", "We do not yet support adjusting AllocateBuffer when it appears in "
                                "multiple operand indices unless in a tuple.", instr)
                        ab = self.new_allocate_buffer(instr.computation(), instr.shape)
                        prev.instruction.replace_operand(slots[0], ab)
                        self.res.inserted.append(InsertedInstruction("allocate-buffer", ab.name, None,
                                                                     prev.instruction.name, slots[0],
                                                                     replaces=instr.name))
                        break
                return
            prev = pos
            if not is_pure_memory_op(instr) and instr.opcode is not HloOpcode.DYNAMIC_UPDATE_SLICE:
                return  # e05ba34f86: an unexpected instruction ends the search, without error
            for pred in predecessors(pos, self.graph):
                p_instr = pred.instruction
                if p_instr.opcode is HloOpcode.BROADCAST:
                    found_broadcast = True
                    self._replace_broadcast_use(p_instr, instr, idx)
                elif pred not in seen:
                    seen.add(pred)
                    queue.append(pred)
        if not found_broadcast:
            raise XlaStatusError("INVALID_ARGUMENT", f'DynamicUpdateSlice "{self.rn(dus.name)}"\'s first operand is not '
                                 "the result of a broadcast.", dus)

    def _replace_broadcast_use(self, bc: HloInstruction, user: HloInstruction, idx: ShapeIndex) -> None:
        ab = self.new_allocate_buffer(bc.computation(), bc.shape)
        from ..syntax.hlo_printer import print_instruction
        self.vlog(f'Created new AllocateBuffer instruction "{print_instruction(ab, "%")}" to replace broadcast '
                  f'"{bc.name}"\'s use at index {format_shape_index(idx)} in user "{user.name}"')
        if len(idx) == 1:
            if user.opcode is not HloOpcode.TUPLE:
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
        self.res.inserted.append(InsertedInstruction("allocate-buffer", ab.name, None, user.name, slot,
                                                     replaces=bc.name))
        if not bc.users and not bc.is_root:
            self.dead.add(bc)
            self.res.removed.append(bc.name)

    def _host_while_condition(self, loop: HloInstruction, param: HloInstruction, idx: ShapeIndex) -> None:
        if loop.called["body"][0] is not param.parent:
            raise XlaCheckFailure("We assume that we're starting from the while body", loop)
        cond = loop.called["condition"][0]
        if len(cond.parameters) != 1:
            raise XlaCheckFailure("Expecting While to have just 1 parameter", loop)
        cp = Position(cond.parameters[0], idx)
        self.set_memory_space(cp, HOST_MEMORY_SPACE)
        nested = deque([cp])
        seen = {cp}
        while nested:
            pos = nested.popleft()
            if not is_pure_memory_op(pos.instruction):
                raise XlaStatusError("INVALID_ARGUMENT", "Tensor which is moved to host is used by an invalid "
                                     f'instruction ("{self.rn(pos.instruction.name)}") during while condition body.',
                                     pos.instruction)
            self.set_memory_space(pos, HOST_MEMORY_SPACE)
            for s in successors(pos, self.graph):
                if s not in seen:
                    seen.add(s)
                    nested.append(s)

    # ------------------------------------------------------------------ cleanup phases
    def remove_move_to_devices(self) -> None:
        for instr in list(self.m.instructions()):
            if instr not in self.dead and is_move_to_device(instr):
                self.remove(instr)

    def scheduling_fix(self) -> None:
        """``ApplySchedulingFix``: copy a host DUS's update when it is a loop parameter's buffer."""
        for comp in self.m.computations:
            if comp is self.entry:
                continue
            for instr in list(comp.instructions):
                if instr in self.dead or instr.opcode is not HloOpcode.DYNAMIC_UPDATE_SLICE:
                    continue
                if _memory_space(instr.shape) != HOST_MEMORY_SPACE:
                    continue
                update = instr.operands[1]
                src = update
                while src.opcode in (HloOpcode.GET_TUPLE_ELEMENT, HloOpcode.BITCAST):
                    src = src.operands[0]
                if src.opcode is HloOpcode.PARAMETER and src.parent is comp:
                    copy = self.add(comp, "copy", HloOpcode.COPY, update.shape, [update])
                    instr.replace_operand(1, copy)
                    self.res.inserted.append(InsertedInstruction("scheduling-copy", copy.name, update.name,
                                                                 instr.name, 1))

    def collect(self) -> None:
        """Final memory spaces of the input's instructions; the entry layout changes."""
        seen: set[tuple[str, ShapeIndex]] = set()
        for comp in self.m.computations:
            for instr in comp.instructions:
                if instr in self.dead or self._input(instr.name) is None:
                    continue
                for idx, leaf in instr.shape.leaves():
                    if leaf.is_array and _memory_space(leaf) == HOST_MEMORY_SPACE:
                        reported = (self.rn(instr.name), idx)
                        if reported not in seen:
                            seen.add(reported)
                            self.res.host_positions.append(reported)
        self.final_entry_result = self.ecl_result
        # Copies were created before the MoveToHosts they read were removed: name what they read now.
        fixed = []
        for ins in self.res.inserted:
            made = self.m.get_instruction(ins.name)
            if made is not None and made.operands and ins.operand is not None:
                ins = replace(ins, operand=made.operands[0].name)
            if self.origin:
                ins = replace(ins, operand=ins.operand and self.rn(ins.operand), user=ins.user and self.rn(ins.user))
            fixed.append(ins)
        self.res.inserted = fixed
