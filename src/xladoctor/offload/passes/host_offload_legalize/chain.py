"""The chains HostOffloadLegalize walks: where they start, up to the buffer, down to the copies.

XLA's ``FindStartingInstructionsOfHostMemoryOffload``, ``WalkUpMemoryOffload``,
``WalkDownMemoryOffload`` and the ``Find*Annotation*`` helpers of
``host_offload_legalize.cc``; a chain XLA does not recognise raises
:class:`~.state.Unrecognized` (the caller notes it and skips or stops).
"""

from __future__ import annotations

from ....ir.computation import HloComputation
from ....ir.instruction import HloInstruction
from ....ir.opcodes import (
    BITCAST,
    BROADCAST,
    CONSTANT,
    COPY,
    CUSTOM_CALL,
    DYNAMIC_UPDATE_SLICE,
    FUSION,
    GET_TUPLE_ELEMENT,
    OPT_BARRIER,
    PARAMETER,
    RESHAPE,
    TUPLE,
    WHILE,
)
from ....ir.rare_fields import CALLS
from ....ir.shape import HOST_MEMORY_SPACE
from ...annotations import is_allocate_buffer, is_host_async_start, is_move_to_device, is_move_to_host
from ...kinds import LegalizePhase
from ..host_offload_utils import XlaCheckFailure, is_sharding_annotation
from .branches import branch_root_failure
from .state import PASS_THROUGH, SLICES, LegalizeState, Unrecognized, Value


def make_computation_post_order(lz: LegalizeState) -> list[HloComputation]:
    """``MakeComputationPostOrder``: callees before their callers."""
    order: list[HloComputation] = []
    seen: set[HloComputation] = set()
    for top in lz.module.computations:
        if top in seen:
            continue
        seen.add(top)
        stack = [(top, iter(_callees(top)))]
        while stack:
            comp, it = stack[-1]
            for c in it:
                if c not in seen:
                    seen.add(c)
                    stack.append((c, iter(_callees(c))))
                    break
            else:
                stack.pop()
                order.append(comp)
    return order


def _callees(comp: HloComputation) -> list[HloComputation]:
    """Every computation ``comp``'s instructions call, in order (asked only of those that call one)."""
    return [c for i in comp.instructions if (extra := i._extra) is not None and (type(extra) is CALLS or extra.called)  # calls_anything, inline
            for c in i.called_computations]


def find_starting_instructions_of_host_memory_offload(lz: LegalizeState) -> list[HloInstruction]:
    """``FindStartingInstructionsOfHostMemoryOffload``."""
    ecl = lz.module.entry_layout()
    out: list[HloInstruction] = []
    custom_call = CUSTOM_CALL
    for comp in make_computation_post_order(lz):
        # The computation's starts found first, its callers read only where it has one (a fusion's
        # computation has none taken; the callers change nothing): most computations have none.
        before = len(out)
        for instr in comp.instructions:
            if instr.opcode is PARAMETER and comp is lz.entry:
                n = instr.parameter_number
                pshape = ecl.parameters[n] if n is not None and n < len(ecl.parameters) else None
                if pshape is not None and pshape.is_array and pshape.layout is not None and \
                        pshape.layout.memory_space == HOST_MEMORY_SPACE:
                    out.append(instr)
                    continue
            if instr.opcode is custom_call and is_move_to_host(instr):  # the opcode first: no call for most
                out.append(instr)
        if len(out) != before and any(c.opcode is FUSION for c in lz.graph.callers_of(comp)):
            del out[before:]
    return out


def find_to_host_annotation_to_update(instr: HloInstruction) -> HloInstruction | None:
    """``FindToHostAnnotationToUpdate``: up through single-use bitcast/copy/reshape."""
    while not is_move_to_host(instr):
        if instr.opcode not in (BITCAST, COPY, RESHAPE) or \
                not instr.operands or len(instr.operands[0].users) != 1:
            return None
        instr = instr.operands[0]
    return instr


def find_to_device_annotation_to_update(instr: HloInstruction) -> HloInstruction | None:
    """``FindToDeviceAnnotationToUpdate``: down through single-use bitcast/reshape/copy/(dynamic-)slice."""
    while not is_move_to_device(instr):
        if len(instr.users) != 1 or instr.opcode not in PASS_THROUGH:
            return None
        instr = next(iter(instr.users))
    return instr


def find_dus_from_annotation(instr: HloInstruction) -> HloInstruction:
    """``FindDUSFromAnnotation``: down through single-use bitcast/reshape/copy."""
    while instr.opcode is not DYNAMIC_UPDATE_SLICE:
        if len(instr.users) != 1 or instr.opcode not in (BITCAST, RESHAPE, COPY):
            break
        instr = next(iter(instr.users))
    return instr


def walk_up_memory_offload(lz: LegalizeState, v: Value) -> Value:
    """``WalkUpMemoryOffload``: one step towards the buffer's definition (itself at the top)."""
    instr, index = v
    op = instr.opcode
    if op is GET_TUPLE_ELEMENT:
        if index != -1:
            raise XlaCheckFailure(f"Check failed: index == -1 ({index} vs. -1) at {instr.name}", instr)
        return instr.operands[0], instr.gte_index()
    if op in (BITCAST, RESHAPE, COPY, OPT_BARRIER,
              DYNAMIC_UPDATE_SLICE):
        return instr.operands[0], index
    if op is TUPLE:
        if not 0 <= index < len(instr.operands):
            raise XlaCheckFailure(f"Check failed: operand index {index} out of range for {instr.name}", instr)
        return instr.operands[index], -1
    if op is WHILE:
        root = instr.called["body"][0].root
        if root is None or root.opcode is not TUPLE:
            raise XlaCheckFailure("Check failed: root->opcode() == HloOpcode::kTuple", instr)
        return root, index
    if op is PARAMETER:
        if instr.parent is lz.entry:
            return v
        callers = lz.graph.callers_of(instr.parent)
        if len(callers) != 1:
            raise Unrecognized("Expected to be called only by one caller", instr)
        if callers[0].opcode is not WHILE:
            raise Unrecognized("Expected to be called by a while loop", instr)
        return callers[0].operands[0], index
    if op is CUSTOM_CALL:
        if not (is_allocate_buffer(instr) or is_move_to_host(instr)):
            raise Unrecognized("Expected AllocateBuffer or MoveToHost custom-call", instr)
        return v
    if op is BROADCAST:
        operand = instr.operands[0]
        if operand.opcode is not CONSTANT:
            raise Unrecognized("Expected a constant as operand", instr)
        if sum(1 for d in operand.shape.dimensions if d != 1) != 0:
            raise Unrecognized("Expected a scalar broadcast", instr)
        return v
    from ....syntax.hlo_printer import print_instruction
    raise Unrecognized("Invalid opcode " + print_instruction(instr, "%"), instr)


def _gtes(instr: HloInstruction, index: int, out: list[Value]) -> None:
    for user in instr.users:
        if user.opcode is not GET_TUPLE_ELEMENT:
            raise Unrecognized("Expected users to be only get-tuple-elements", user)
        if user.tuple_index == index:
            out.append((user, -1))


def walk_down_memory_offload(lz: LegalizeState, v: Value, move_phase: bool) -> list[Value]:
    """``WalkDownMemoryOffload``: the next values of the chain, one per conforming user."""
    instr, index = v
    out: list[Value] = []
    if not instr.users and instr.is_root and instr.parent is not lz.entry:
        callers = lz.graph.callers_of(instr.computation())
        if len(callers) != 1 or callers[0].opcode is not WHILE:
            raise Unrecognized(lz.callers_text(instr.computation(), callers), instr)
        _gtes(callers[0], index, out)
        return out
    if instr.opcode is PARAMETER and instr.shape.is_tuple:
        _gtes(instr, index, out)
        return out
    for user in instr.users:
        op = user.opcode
        if op is GET_TUPLE_ELEMENT:
            if user.tuple_index == index:
                out.append((user, -1))
        elif op is TUPLE:
            slots = user.operand_indices(instr)
            if len(slots) != 1:
                raise Unrecognized("Expected operand to be used only once in the tuple.", user)
            out.append((user, slots[0]))
        elif op is OPT_BARRIER:
            out.append((user, index))
        elif op is WHILE:
            out.append((user.called["body"][0].parameters[0], index))
        elif op is DYNAMIC_UPDATE_SLICE:
            if user.operand_indices(instr)[0] != 0:
                raise Unrecognized("Expected to be used by first operand of dynamic-update-slice", user)
            out.append((user, index))
        elif op is CUSTOM_CALL and is_sharding_annotation(user):
            out.append((user, index))
        elif op is CUSTOM_CALL:
            if not is_move_to_device(user):
                raise Unrecognized("Invalid custom-call found.", user)
            out.append((user, index))
        elif op in PASS_THROUGH:
            out.append((user, index))
        elif is_host_async_start(user):
            if move_phase:
                raise XlaCheckFailure("Transpose copy going into host call is should not be moved. "
                                      + user.name, user)
        else:
            raise Unrecognized(f"Unrecognized user name: {lz.rn(user.name)}", user)
    return out


def collect_copies(lz: LegalizeState, top: Value) -> list[Value] | None:
    """The final walk down from the top of the chain: its copies, in discovery order.

    ``None`` when a slice/dynamic-slice in the chain has no MoveToDevice after it
    (XLA then skips the whole chain).
    """
    copies: list[Value] = []
    stack: list[Value] = [top]
    seen = {top}
    while stack:
        instr, _index = stack[-1]
        if instr.opcode in SLICES or is_move_to_device(instr):
            mtd = find_to_device_annotation_to_update(instr)
            if mtd is None:
                lz.note(LegalizePhase.CONSUMER, "Couldn't find annotation for consumer instruction in chain", instr)
                return None
            _reroute_loop_root(lz, mtd, top[0])
            stack.pop()
            continue
        try:
            down = walk_down_memory_offload(lz, stack[-1], move_phase=False)
        except Unrecognized as e:
            lz.note(LegalizePhase.WALK_DOWN, e.message, e.instruction)
            break
        stack.pop()
        for v in down:
            if v in seen:
                continue
            seen.add(v)
            stack.append(v)
            if v[0].opcode is COPY:
                copies.append(v)
    return copies


def _reroute_loop_root(lz: LegalizeState, mtd: HloInstruction, start: HloInstruction) -> None:
    """A MoveToDevice'd loop value written back to the slot it came from keeps the host value.

    A MoveToDevice read by the root tuple of a computation that is not a while body is an
    INVALID_ARGUMENT; a conditional's branch has such a root once ConditionalCanonicalizer
    (:mod:`..conditional_canonicalizer`) has run: see :mod:`.branches`.
    """
    comp = mtd.computation()
    root = comp.root
    if root is None or comp is lz.entry:
        return
    if root.opcode is not TUPLE or root not in mtd.users:
        return
    callers = lz.graph.callers_of(comp)
    if len(callers) != 1 or callers[0].opcode is not WHILE:
        failure = branch_root_failure(lz, mtd, start, callers)
        if failure is None:
            return
        raise failure
    src = mtd.operands[0]
    for i, operand in enumerate(root.operands):
        if operand is mtd and src.opcode is GET_TUPLE_ELEMENT and \
                src.operands[0].opcode is PARAMETER and src.tuple_index == i:
            root.replace_operand(i, src)
            lz.res.rerouted.append(f"{lz.rn(root.name)}{{{i}}}")

