"""Successors and predecessors of positions, as ``host_offload_utils.cc`` defines them.

These two helpers decide how far host memory spreads.  They are deliberately not
a general dataflow analysis: they follow exactly XLA's rules (tuple/GTE index
tracking, call/while/conditional/async parameters, computation roots to their
callers, custom calls only where they alias), including the places where XLA
CHECK-fails, which are raised as :class:`XlaCheckFailure` so the analysis can
report "XLA would crash here" instead of guessing.

The call graph (which instructions call a computation) is built once per module:
XLA rebuilds it on every root or parameter it meets, which is quadratic.
"""

from __future__ import annotations

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import (
    ASYNC_START,
    BITCAST,
    CALL,
    CONDITIONAL,
    COPY,
    CUSTOM_CALL,
    DYNAMIC_SLICE,
    DYNAMIC_UPDATE_SLICE,
    GET_TUPLE_ELEMENT,
    PAD,
    PARAMETER,
    REDUCE,
    RESHAPE,
    SEND,
    TUPLE,
    WHILE,
    HloOpcode,
)
from ...ir.shape import Shape
from ..annotations import is_move_to_device, is_move_to_host
from ..kinds import Status
from ..positions import Position

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

_LOOP_PLUMBING: Final = frozenset({HloOpcode.TUPLE, HloOpcode.OPT_BARRIER, HloOpcode.GET_TUPLE_ELEMENT,
                            HloOpcode.PARAMETER, HloOpcode.WHILE})


class XlaCheckFailure(Exception):
    """A condition under which XLA aborts the process (``CHECK`` failure), with XLA's words."""

    def __init__(self, message: str, instruction: HloInstruction | None = None):
        super().__init__(message)
        self.message = message
        self.instruction = instruction


class XlaStatusError(Exception):
    """A non-OK ``absl::Status`` the pass returns (compilation fails with this message)."""

    def __init__(self, status: Status | str, message: str, instruction: HloInstruction | None = None):
        super().__init__(f"{status}: {message}")
        self.status = Status(status)
        self.message = message
        self.instruction = instruction


class CallGraph:
    """Callers of every computation (``CallGraph::GetComputationCallers``): the module's own
    caller index, which the IR keeps in step (built once, shared by HostOffloadLegalize and
    HostOffloader while neither adds or removes a calling instruction)."""

    def __init__(self, module: HloModule):
        self.module = module

    def callers_of(self, comp: HloComputation | None) -> list[HloInstruction]:
        return self.module.callers_of(comp)


def is_pure_memory_op(instr: HloInstruction) -> bool:
    """``IsValidDuringPureMemoryOffload``, plus reshapes that are bitcasts.

    Pre-optimisation HLO (what JAX prints) still spells ``expand_dims``/``squeeze`` as
    ``reshape``; XLA turns bitcast reshapes into ``bitcast`` (AlgebraicSimplifier after
    layout assignment) before HostOffloader runs, so they move no data here either.
    """
    if instr.opcode is RESHAPE:
        return reshape_is_bitcast(instr)
    return instr.opcode.is_pure_memory_move


def _true_rank(shape: Shape) -> int:
    """``ShapeUtil::TrueNumDimensions``: dimensions of size other than 1."""
    return sum(1 for d in shape.dimensions if d != 1)


def _elements(shape: Shape) -> int:
    n = 1
    for d in shape.dimensions:
        n *= d
    return n


def _physical_index(dims: tuple[int, ...], minor_to_major: tuple[int, ...], index: list[int]) -> int:
    """``IndexUtil::MultidimensionalIndexToLinearIndex``: the linear index under a layout (tiles ignored)."""
    linear, scale = 0, 1
    for d in minor_to_major:
        linear += index[d] * scale
        scale *= dims[d]
    return linear


def _unit_indices_keep_place(src: Shape, dst: Shape) -> bool:
    """Each unit index of ``src`` lands on an index of ``dst`` at the same physical place."""
    src_dims, dst_dims = tuple(src.dimensions), tuple(dst.dimensions)
    src_m2m, dst_m2m = src.effective_layout.minor_to_major, dst.effective_layout.minor_to_major
    for dim, size in enumerate(src_dims):
        if size <= 1:
            continue
        unit = [0] * len(src_dims)
        unit[dim] = 1
        logical = 1
        for d in range(dim + 1, len(src_dims)):
            logical *= src_dims[d]
        out = [0] * len(dst_dims)
        for d in range(len(dst_dims) - 1, -1, -1):
            out[d] = logical % dst_dims[d] if dst_dims[d] else 0
            logical = logical // dst_dims[d] if dst_dims[d] else 0
        if _physical_index(src_dims, src_m2m, unit) != _physical_index(dst_dims, dst_m2m, out):
            return False
    return True


def reshape_is_bitcast(instr: HloInstruction) -> bool:
    """``ShapeUtil::ReshapeIsBitcast``: no element changes its physical place.

    XLA's test looks at minor-to-major orders only (tiles are ignored): every unit
    index of either side must map to the same physical linear index on the other.
    Shapes without a layout are read with the default (row-major) one, which is what
    layout assignment gives unannotated HLO.
    """
    src, dst = instr.operands[0].shape, instr.shape
    if not (src.is_array and dst.is_array) or src.element_type is not dst.element_type:
        return False
    count = _elements(src)
    if count != _elements(dst):
        return False
    if count == 0:
        return True
    return _unit_indices_keep_place(src, dst) and _unit_indices_keep_place(dst, src)


SHARDING_ANNOTATION_TARGETS = frozenset({"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"})
"""Sharding markers that JAX emits and XLA's partitioner removes long before HostOffloader runs."""


def is_sharding_annotation(cc: HloInstruction) -> bool:
    target = cc.custom_call_target or ""
    return len(cc.operands) == 1 and (target in SHARDING_ANNOTATION_TARGETS or target.startswith("xla.sdy."))


def allowed_between_move_to_host_and_consumer(instr: HloInstruction) -> bool:
    """``InstructionIsAllowedBetweenMoveToHostAndDus``: bitcast, copy, bitcast reshape."""
    if instr.opcode is RESHAPE:
        return reshape_is_bitcast(instr)
    if instr.opcode is CUSTOM_CALL:
        return is_sharding_annotation(instr)
    return instr.opcode in (BITCAST, COPY)


def allowed_between_slice_and_move_to_device(instr: HloInstruction) -> bool:
    """``InstructionIsAllowedBetweenDsAndMoveToDevice`` (loop plumbing allowed too, as in shipped XLA)."""
    if instr.opcode is REDUCE:
        return _true_rank(instr.operands[0].shape) == _true_rank(instr.shape) if instr.shape.is_array else \
            _true_rank(instr.operands[0].shape) == _true_rank(instr.shape.tuple_shapes[0])
    if instr.opcode is RESHAPE:
        return reshape_is_bitcast(instr)
    if instr.opcode is CUSTOM_CALL:
        return is_sharding_annotation(instr)
    if instr.opcode is CALL:
        return True  # CallInliner has removed calls by the time HostOffloader runs
    return instr.opcode in (BITCAST, COPY) or instr.opcode in _LOOP_PLUMBING


def custom_call_reuses_buffer(cc: HloInstruction, operand_number: int) -> bool:
    """MoveToHost/MoveToDevice define no new buffer; others only where the output aliases the operand.

    Deviation from XLA, on purpose: sharding markers (``Sharding``, ``xla.sdy.*``) are
    also followed.  Pre-optimisation HLO from JAX still has them; by the time
    HostOffloader runs they are gone and their operand flows on directly.
    """
    if is_move_to_host(cc) or is_move_to_device(cc) or is_sharding_annotation(cc):
        return True
    return any(op == operand_number for _, op, _ in cc.output_to_operand_aliasing)


def _called(instr: HloInstruction, *roles: str) -> list[HloComputation]:
    for role in roles:
        if role in instr.called:
            return instr.called[role]
    return instr.called_computations


def successors(pos: Position, graph: CallGraph, follow_empty_index_gte: bool = True) -> list[Position]:
    """``GetSuccessors``: where the buffer at ``pos`` flows next, in XLA's order.

    ``follow_empty_index_gte=False`` skips a get-tuple-element reached with an empty
    index instead of CHECK-failing (what HostOffloadLegalize's copy check evidently
    does; see :mod:`.host_offload_legalize`).
    """
    instr, index = pos.instruction, pos.shape_index
    out: list[Position] = []
    if instr.is_root:
        for caller in graph.callers_of(instr.parent):
            out.append(Position(caller, index))
    for user in instr.users:
        op = user.opcode
        if op is TUPLE:
            for k in user.operand_indices(instr):
                out.append(Position(user, (k,) + index))
        elif op is GET_TUPLE_ELEMENT:
            if not index and not follow_empty_index_gte:
                continue
            if not index:
                raise XlaCheckFailure("Expected shape index to be non-empty.", user)
            if index[0] == user.tuple_index:
                out.append(Position(user, index[1:]))
        elif op is CALL and user.frontend_attributes.get("_xla_compute_type") == "host":
            continue  # a compute_on host computation: compiled on its own (see host_offloading_prepare.py)
        elif op in (CALL, ASYNC_START):
            comp = _called(user, "calls", "to_apply")[0]
            for k in user.operand_indices(instr):
                out.append(Position(comp.parameters[k], index))
        elif op is WHILE:
            body, cond = user.called["body"][0], user.called["condition"][0]
            for k in user.operand_indices(instr):
                out.append(Position(body.parameters[k], index))
                out.append(Position(cond.parameters[k], index))
        elif op is CONDITIONAL:
            branches = _branches(user)
            for k in user.operand_indices(instr):
                if k == 0 or k - 1 >= len(branches):
                    raise XlaCheckFailure("Not enough branch computations for conditional", user)
                out.append(Position(branches[k - 1].parameters[0], index))
        elif op is CUSTOM_CALL:
            found = False
            for k in user.operand_indices(instr):
                if custom_call_reuses_buffer(user, k):
                    if found:
                        raise XlaStatusError("INTERNAL", "Found multiple operands of a custom call that reuse the same "
                                 "output buffer.", user)
                    out.append(Position(user, index))
                    found = True
        else:
            out.append(Position(user, index))
    return out


def _branches(instr: HloInstruction) -> list[HloComputation]:
    return instr.called.get("branch_computations") or \
        [*instr.called.get("true_computation", []), *instr.called.get("false_computation", [])]


def predecessors(pos: Position, graph: CallGraph, operand_index: int | None = None) -> list[Position]:
    """``GetPredecessors``: where the buffer at ``pos`` came from (one hop up).

    ``operand_index`` (since 26094505af) picks the operand of a multi-operand
    instruction; without it such an instruction is a CHECK failure, as in XLA.
    """
    instr, index = pos.instruction, pos.shape_index
    op = instr.opcode
    if op is GET_TUPLE_ELEMENT:
        return [Position(instr.operands[0], (instr.gte_index(), *index))]
    if op is TUPLE:
        if not index:
            raise XlaCheckFailure("Did not store an index before encountering a tuple.", instr)
        return [Position(instr.operands[index[0]], index[1:])]
    if op is CALL:
        return [Position(_called(instr, "to_apply", "calls")[0].root_instruction(), index)]
    if op is PARAMETER:
        out: list[Position] = []
        for caller in dict.fromkeys(graph.callers_of(instr.parent)):
            if caller.opcode is CONDITIONAL:
                slots = [k + 1 for k, c in enumerate(_branches(caller)) if c is instr.parent]
                if not slots:
                    raise XlaCheckFailure("Computation not found in conditional", caller)
                out.extend(Position(caller.operands[k], index) for k in slots)
            else:
                out.append(Position(caller.operands[instr.param_number()], index))
        return out
    if op is DYNAMIC_SLICE:
        return [Position(instr.operands[operand_index or 0], index)]
    if op is DYNAMIC_UPDATE_SLICE:
        if operand_index:
            raise XlaCheckFailure("Check failed: !operand_index.has_value() || *operand_index == 0", instr)
        return [Position(instr.operands[0], index)]
    if op is WHILE:
        return [Position(instr.called["body"][0].root_instruction(), index)]
    if op in (PAD, SEND):
        return [Position(instr.operands[0], index)]
    if op is CONDITIONAL:
        return [Position(c.root_instruction(), index) for c in _branches(instr)]
    if operand_index is None and len(instr.operands) != 1:
        from ...syntax.hlo_printer import print_instruction
        raise XlaCheckFailure("Check failed: instruction->operands().size() == 1 "
                              f"({len(instr.operands)} vs. 1) Expected instruction to have 1 operand. Found: "
                              + print_instruction(instr, "%"), instr)
    return [Position(instr.operands[operand_index or 0], index)]
