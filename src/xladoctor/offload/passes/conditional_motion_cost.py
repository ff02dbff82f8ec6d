"""ConditionalCodeMotion's boundaries and cost model (:mod:`.conditional_code_motion` moves).

After ``xla/service/conditional_code_motion.cc`` with its default configuration:
``WorthHoisting`` (which opcodes may cross a branch boundary), ``ReusesCarriedBy`` (the reuse an
edge between two opcodes carries: none into a get-tuple-element, a parameter, a constant; 10 from
a conditional; otherwise 10 shared out among the producer's users and the consumer's operands)
and ``BenefitForMovingBoundaries`` (moving out pays when the reuses after the boundary outweigh
those before it), all read on branch 0's instructions as XLA reads them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.opcodes import HloOpcode
from ...ir.shape_inference import _BINARY, _UNARY_OPS
from .hlo_cse import _IGNORED

INSIDE, USER, OPERAND = "inside_branch", "outside_branch_user", "outside_branch_operand"
"""``Boundary::Position``: an instruction of every branch, a user or an operand of the conditional."""

_ELEMENTWISE = frozenset(_UNARY_OPS | {o for o in HloOpcode if o.value in _BINARY} | {
    HloOpcode.SELECT, HloOpcode.CLAMP, HloOpcode.CONVERT, HloOpcode.BITCAST_CONVERT, HloOpcode.COPY,
    HloOpcode.REDUCE_PRECISION})
"""``HloInstruction::IsOpElementwise``."""
_ALWAYS_WORTH = frozenset({HloOpcode.ALL_REDUCE, HloOpcode.REDUCE_SCATTER, HloOpcode.REDUCE, HloOpcode.CONSTANT,
                           HloOpcode.RESHAPE, HloOpcode.BROADCAST, HloOpcode.SLICE, HloOpcode.PAD,
                           HloOpcode.DYNAMIC_SLICE, HloOpcode.DYNAMIC_UPDATE_SLICE, HloOpcode.GATHER})
_CHANNEL = frozenset({HloOpcode.ALL_REDUCE, HloOpcode.ALL_GATHER, HloOpcode.ALL_TO_ALL, HloOpcode.REDUCE_SCATTER,
                      HloOpcode.COLLECTIVE_PERMUTE, HloOpcode.SEND, HloOpcode.RECV, HloOpcode.SEND_DONE,
                      HloOpcode.RECV_DONE, HloOpcode.ALL_REDUCE_START, HloOpcode.ALL_GATHER_START,
                      HloOpcode.COLLECTIVE_PERMUTE_START})
"""The ``HloChannelInstruction`` kinds: never moved across a boundary but out of the branches."""
_MAX_DEPTH = 1000


@dataclass(frozen=True)
class Boundary:
    """``Boundary``: a position and its instructions (one per branch inside, else one)."""

    position: str
    instructions: tuple[HloInstruction, ...]


def branch_computations(cond: HloInstruction) -> list[HloComputation]:
    """``branch_computation(i)`` in order (a predicated conditional: true, then false)."""
    called = cond.called
    if "branch_computations" in called:
        return list(called["branch_computations"])
    return [*called.get("true_computation", []), *called.get("false_computation", [])]


def count_non_leaf(instructions: Iterable[HloInstruction]) -> int:
    """``CountNonLeafOps``: the distinct instructions that are not constants."""
    return len({id(i) for i in instructions if i.opcode is not HloOpcode.CONSTANT})


def _worth_table(op: HloOpcode, child: HloOpcode | None) -> bool:
    """The default ``move_config_``: ``WorthHoisting(op, child_op)``; ``child`` is the opcode of the
    first operand (None: no operands, XLA's column 0)."""
    if op is HloOpcode.CONVERT:
        return child in (HloOpcode.ALL_REDUCE, HloOpcode.RESHAPE, HloOpcode.GET_TUPLE_ELEMENT)
    if op in (HloOpcode.GET_TUPLE_ELEMENT, HloOpcode.TUPLE):
        return child is not HloOpcode.PARAMETER
    return op in _ALWAYS_WORTH or op in _ELEMENTWISE


def _has_side_effect(instr: HloInstruction) -> bool:
    if instr.opcode is HloOpcode.CUSTOM_CALL:
        return instr.attributes.get("custom_call_has_side_effect") == "true"
    return instr.opcode.has_side_effect


def worth_hoisting(cond: HloInstruction, b: Boundary) -> bool:
    """``GroupConnectedBoundaries::WorthHoisting`` for boundary ``b``: a broadcast moves out only
    with an identical operand in every branch (it stays with its producer), never in as a user."""
    instr, position = b.instructions[0], b.position
    op = instr.opcode
    if op is HloOpcode.BROADCAST and position == INSIDE:
        operands = tuple(i.operands[0] for i in b.instructions)
        if any(o.opcode is not operands[0].opcode for o in operands) or not within_branch_identical(operands):
            return False
    if op is HloOpcode.BROADCAST and position == USER:
        return False
    if op is HloOpcode.TUPLE and instr is cond.computation().root:
        return False
    if position == OPERAND and ((op is HloOpcode.TUPLE and "sharding" in instr.attributes) or len(instr.users) > 1
                                or _has_side_effect(instr) or op is HloOpcode.GET_TUPLE_ELEMENT):
        return False
    if op in _CHANNEL and position != INSIDE:
        return False
    if op is HloOpcode.PARAMETER:
        return False
    return _worth_table(op, instr.operands[0].opcode if instr.operands else None)


def within_branch_identical(instructions: tuple[HloInstruction, ...]) -> bool:
    """``InstructionWithinBranchIdentical``: each is ``Identical`` to the first, operands compared by
    their shapes only (layouts ignored)."""
    first = instructions[0]
    return all(_identical(first, other) for other in instructions[1:])


def _identical(a: HloInstruction, b: HloInstruction) -> bool:
    if a.opcode is not b.opcode or not a.shape.compatible(b.shape) or len(a.operands) != len(b.operands):
        return False
    if not all(x.shape.compatible(y.shape) for x, y in zip(a.operands, b.operands)):
        return False
    if (a.literal, a.tuple_index, a.parameter_number, a.custom_call_target) != \
            (b.literal, b.tuple_index, b.parameter_number, b.custom_call_target):
        return False
    calls_a = sorted((role, [id(c) for c in comps]) for role, comps in a.called.items())
    calls_b = sorted((role, [id(c) for c in comps]) for role, comps in b.called.items())
    return calls_a == calls_b and _attributes(a) == _attributes(b)


def _attributes(instr: HloInstruction) -> dict[str, str]:
    return {k: v for k, v in instr.attributes.items() if k not in _IGNORED}


def _carried_default(op: HloOpcode, user: HloOpcode) -> int:
    """The default ``reuse_config_``: ``ReusesCarriedBy(op, user)``."""
    if user is HloOpcode.GET_TUPLE_ELEMENT:
        return 0
    if user is HloOpcode.CONVERT and op in (HloOpcode.CONVOLUTION, HloOpcode.DOT):
        return 0
    if op in (HloOpcode.PARAMETER, HloOpcode.CONSTANT, HloOpcode.GET_TUPLE_ELEMENT):
        return 0
    return 10 if op is HloOpcode.CONDITIONAL else -10


@dataclass
class MotionAnalysis:
    """One conditional's analysis: ``visited_count`` is shared by all its groups, as in ``Run``."""

    conditional: HloInstruction
    visited_count: dict[HloInstruction, int] = field(default_factory=dict)
    outfeed: bool = False
    """A branch has an outfeed: ``CalculateMemorySize`` counts every array."""

    def __post_init__(self) -> None:
        self.outfeed = any(i.opcode is HloOpcode.OUTFEED for b in branch_computations(self.conditional)
                           for i in b.instructions)

    def branch0_root(self) -> HloInstruction:
        return branch_computations(self.conditional)[0].root_instruction()

    def carried(self, op: HloInstruction, user: HloInstruction) -> int:
        """``GroupConnectedBoundaries::ReusesCarriedBy``."""
        config = _carried_default(op.opcode, user.opcode)
        if config >= 0:
            return config
        count1, count2 = count_non_leaf(op.users), count_non_leaf(user.operands)
        return (-config) // count1 // count2 if count1 and count2 else 0

    def reuses_before(self, user: HloInstruction) -> int:
        """``ReusesBeforeBoundary``."""
        reuses = 0
        for op in user.operands:
            if op not in self.visited_count and op is not self.conditional:
                continue
            if user.opcode is HloOpcode.GET_TUPLE_ELEMENT:
                if op.opcode is HloOpcode.CONDITIONAL:
                    tup = branch_computations(op)[0].root_instruction()
                    if tup.opcode is HloOpcode.TUPLE:
                        op = tup.operands[user.gte_index()]
                if user.users:
                    reuses += self.carried(op, user.users[0])
            else:
                reuses += self.carried(op, user)
        return reuses

    def reuses_after(self, user: HloInstruction, tuple_index: int = -1, depth: int = 0) -> int:
        """``ReusesAfterBoundary`` (0 past ``kMaxReuseAnalysisDepth``, 1000 steps)."""
        users = list(user.users)
        if depth > _MAX_DEPTH or user.opcode is HloOpcode.CONSTANT or not users or (tuple_index < 0 and len(users) > 1):
            return 0
        op = users[0]
        if tuple_index >= 0:
            if op.opcode is HloOpcode.CONDITIONAL:
                return 10 if self._branches_using(user, tuple_index) < len(self.conditional.operands) - 1 else 0
            if op.opcode is HloOpcode.TUPLE:
                return self.reuses_after(op, op.operand_indices(user)[0], depth + 1)
            return self.reuses_after(op, tuple_index, depth + 1)
        if op is self.branch0_root():
            index = op.operand_indices(user)[0]
            for gte in self.conditional.users:
                if gte.opcode is HloOpcode.GET_TUPLE_ELEMENT and gte.tuple_index == index and gte.users:
                    return self.carried(user, gte.users[0])
            return 0
        return self.carried(user, op) if op in self.visited_count else 0

    def _branches_using(self, operand: HloInstruction, tuple_index: int) -> int:
        count = 0
        for k, branch in enumerate(branch_computations(self.conditional)):
            if self.conditional.operands[k + 1] is not operand:
                continue
            param = branch.parameters[0]
            if param is branch.root or (not param.shape.is_tuple and param.users) or any(
                    u.opcode is HloOpcode.GET_TUPLE_ELEMENT and u.tuple_index == tuple_index for u in param.users):
                count += 1
        return count

    def benefit(self, boundaries: list[Boundary]) -> int:
        """``BenefitForMovingBoundaries`` with the reuse analysis (no search configuration)."""
        first = boundaries[0]
        if first.position != USER and all(b.instructions[0].opcode is HloOpcode.TUPLE for b in boundaries):
            return -1
        if len(boundaries) == 1 and first.position == USER and \
                first.instructions[0].opcode is HloOpcode.GET_TUPLE_ELEMENT:
            return -1
        before = after = 0
        root0 = self.branch0_root()
        for b in boundaries:
            op = b.instructions[0]
            if op is root0:
                continue
            before += self.reuses_before(op)
            after += self.reuses_after(op, 0 if first.position == OPERAND else -1)
        folding = sum(self._copy_folding(b.instructions[0]) for b in boundaries) if first.position == USER else 0
        if after == 0 and before == 0 and folding == 0:
            return -1
        if first.position == INSIDE:
            return after - before
        if first.position == USER:
            return before - after - 1 + folding
        return int(after > 0)

    def _copy_folding(self, hlo: HloInstruction) -> int:
        """A copy of the conditional's result that each branch's root already copied back."""
        if hlo.opcode is not HloOpcode.COPY or hlo.operands[0].opcode is not HloOpcode.GET_TUPLE_ELEMENT:
            return 0
        gte = hlo.operands[0]
        if gte.operands[0] is not self.conditional:
            return 0
        benefit = 0
        for branch in branch_computations(self.conditional):
            root = branch.root_instruction()
            if root.opcode is HloOpcode.TUPLE:
                element = root.operands[gte.gte_index()]
                if element.opcode is HloOpcode.COPY and element.operands[0].shape == hlo.shape:
                    benefit += 10
        return benefit
