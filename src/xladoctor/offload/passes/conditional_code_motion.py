"""XLA's ``ConditionalCodeMotion``: what every branch of a conditional ends with moves out after it.

libtpu 0.0.42.1 runs ``conditional-code-motion`` in its ``simplification-1`` pipeline, after
``algsimp`` (its per-pass dumps: ``...simplification-1.after_algsimp.before_gather_optimizer``,
then ``...simplification-1.after_conditional-code-motion.before_simplify-conditional``), on the
canonical form ConditionalCanonicalizer made (one tuple parameter per branch, tuple roots,
get-tuple-element users of the conditional).  In ``jax.lax.switch(k, [lambda v, i=i:
relu(v + i) ...], x)`` every branch ends with ``maximum(., broadcast(0))``: HostOffloader
then sees ``maximum(get-tuple-element(conditional), broadcast(0))`` after the conditional and a
branch 0 that returns its parameter, and a ``device_put`` of the result moves the maximum.

Modelled after ``xla/service/conditional_code_motion.cc`` as of 2026-08 (the openxla mirror; its
broadcast rule is libtpu's: seed 22 of the ``control_flow`` family keeps ``broadcast(2)`` in its
branch) with its default configuration (no search configuration, layouts ignored, as before
layout assignment):

* **Boundaries.**  A boundary is an instruction of every branch (inside) or one instruction of
  the parent (a user or an operand of the conditional).  The analysis starts from the branch
  roots, each user and each branch operand of the conditional, and grows each group of
  connected boundaries (``GroupConnectedBoundaries::AddBoundaries``): from inside, the
  instructions at the same operand index of every branch, which move when they are
  ``InstructionWithinBranchIdentical`` (opcode, shape, attributes, operand shapes; operands
  themselves may differ), safe to move (one user, or all users in the group) and worth hoisting
  (``WorthHoisting``'s table: tuples, get-tuple-elements not of a parameter, elementwise ops,
  broadcasts of an operand identical in every branch, reshapes, slices, constants,
  reductions...).  What stops the growth is a new boundary.
* **Cost model** (below).  ``BenefitForMovingBoundaries`` with
  ``ReusesCarriedBy``'s defaults, read on branch 0's instructions as XLA does; a group is kept
  when its benefit is not negative and its memory increase per instruction (reductions only,
  ``ByteSizeOf >> 9``) is at most 5000.  Move-out benefits and move-in benefits are summed and
  the larger direction decides, as in ``Run``.
* **Moving out** (``MoveInstructionOut``): the new boundaries become the branch roots' elements
  (a get-tuple-element each outside), the moved instructions are rebuilt after the conditional on
  them, the conditional's get-tuple-element users read the rebuilt ones, and the conditional's
  shape is branch 0's new root's.  Then ``HloDCE``, ``TupleSimplifier`` (a branch root
  ``tuple(gte(p, 0), ..., gte(p, n-1))`` is ``p``) and ``HloDCE``, as the pass's own
  ``after_conditional_code_motion_after_convert_hoisting`` subpipeline.

Not modelled, the pass leaving the conditional as it is: a conditional not in the canonical form
(the pass then needs ConditionalCanonicalizer first), one whose branch computations other
conditionals share (XLA clones them), and a decision to move users or operands *into* the
branches (``MoveUserInstructionsIn``/``MoveOperandInstructionsIn``; the campaign's programs end
their branches' users at a placement custom call, which is never worth hoisting, and pass the
branches a tuple of parameters, which is not) or the convert-only ``ConvertSpecialMove``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import (
    ALL_REDUCE,
    BROADCAST,
    CONDITIONAL,
    CONSTANT,
    CONVERT,
    CONVOLUTION,
    COPY,
    CUSTOM_CALL,
    DOT,
    GET_TUPLE_ELEMENT,
    OUTFEED,
    PARAMETER,
    REDUCE,
    RESHAPE,
    TUPLE,
    HloOpcode,
)
from ...ir.rare_fields import CALLS
from ...ir.shape import Shape
from ...ir.shape_inference import _BINARY, _UNARY_OPS
from ...ir.sizes import logical_bytes
from .hlo_cse import _IGNORED
from .hlo_dce import remove_dead_code
from .hlo_pass_interface import HloPassWithContext
from .tuple_simplifier import whole_tuple_source

# Boundaries and the cost model: ``WorthHoisting`` (which opcodes may cross a branch boundary),
# ``ReusesCarriedBy`` (the reuse an edge between two opcodes carries: none into a
# get-tuple-element, a parameter, a constant; 10 from a conditional; otherwise 10 shared out
# among the producer's users and the consumer's operands) and ``BenefitForMovingBoundaries``
# (moving out pays when the reuses after the boundary outweigh those before it), all read on
# branch 0's instructions as XLA reads them.

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


class Boundary:
    """``Boundary``: a position and its instructions (one per branch inside, else one).

    Written out, not a dataclass (start-up, issue 36): equal and hashed by its fields, as the
    frozen dataclass was (boundaries are set members); not frozen (mypyc), never assigned."""

    position: str
    instructions: tuple[HloInstruction, ...]

    def __init__(self, position: str, instructions: tuple[HloInstruction, ...]) -> None:
        self.position = position
        self.instructions = instructions

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Boundary) or type(other) is not type(self):
            return NotImplemented
        return self.position == other.position and self.instructions == other.instructions

    def __hash__(self) -> int:
        return hash((self.position, self.instructions))

    def __repr__(self) -> str:
        return f"Boundary(position={self.position!r}, instructions={self.instructions!r})"


def branch_computations(cond: HloInstruction) -> list[HloComputation]:
    """``branch_computation(i)`` in order (a predicated conditional: true, then false)."""
    called = cond.called
    if "branch_computations" in called:
        return list(called["branch_computations"])
    return [*called.get("true_computation", []), *called.get("false_computation", [])]


def count_non_leaf(instructions: Iterable[HloInstruction]) -> int:
    """``CountNonLeafOps``: the distinct instructions that are not constants."""
    return len({id(i) for i in instructions if i.opcode is not CONSTANT})


def _worth_table(op: HloOpcode, child: HloOpcode | None) -> bool:
    """The default ``move_config_``: ``WorthHoisting(op, child_op)``; ``child`` is the opcode of the
    first operand (None: no operands, XLA's column 0)."""
    if op is CONVERT:
        return child in (ALL_REDUCE, RESHAPE, GET_TUPLE_ELEMENT)
    if op in (GET_TUPLE_ELEMENT, TUPLE):
        return child is not PARAMETER
    return op in _ALWAYS_WORTH or op in _ELEMENTWISE


def _has_side_effect(instr: HloInstruction) -> bool:
    if instr.opcode is CUSTOM_CALL:
        return instr.attributes.get("custom_call_has_side_effect") == "true"
    return instr.opcode.has_side_effect


def worth_hoisting(cond: HloInstruction, b: Boundary) -> bool:
    """``GroupConnectedBoundaries::WorthHoisting`` for boundary ``b``: a broadcast moves out only
    with an identical operand in every branch (it stays with its producer), never in as a user."""
    instr, position = b.instructions[0], b.position
    op = instr.opcode
    if op is BROADCAST and position == INSIDE:
        operands = tuple(i.operands[0] for i in b.instructions)
        if any(o.opcode is not operands[0].opcode for o in operands) or not within_branch_identical(operands):
            return False
    if op is BROADCAST and position == USER:
        return False
    if op is TUPLE and instr is cond.computation().root:
        return False
    if position == OPERAND and ((op is TUPLE and "sharding" in instr.attributes) or len(instr.users) > 1
                                or _has_side_effect(instr) or op is GET_TUPLE_ELEMENT):
        return False
    if op in _CHANNEL and position != INSIDE:
        return False
    if op is PARAMETER:
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
    if user is GET_TUPLE_ELEMENT:
        return 0
    if user is CONVERT and op in (CONVOLUTION, DOT):
        return 0
    if op in (PARAMETER, CONSTANT, GET_TUPLE_ELEMENT):
        return 0
    return 10 if op is CONDITIONAL else -10


class MotionAnalysis:
    """One conditional's analysis: ``visited_count`` is shared by all its groups, as in ``Run``.
    Written out, not a dataclass (start-up, issue 36); nothing compares or prints one."""

    conditional: HloInstruction
    visited_count: dict[HloInstruction, int]
    outfeed: bool
    """A branch has an outfeed: ``CalculateMemorySize`` counts every array."""

    def __init__(self, conditional: HloInstruction) -> None:
        self.conditional = conditional
        self.visited_count = {}
        self.outfeed = any(i.opcode is OUTFEED for b in branch_computations(conditional) for i in b.instructions)

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
            if user.opcode is GET_TUPLE_ELEMENT:
                if op.opcode is CONDITIONAL:
                    tup = branch_computations(op)[0].root_instruction()
                    if tup.opcode is TUPLE:
                        op = tup.operands[user.gte_index()]
                if user.users:
                    reuses += self.carried(op, user.users[0])
            else:
                reuses += self.carried(op, user)
        return reuses

    def reuses_after(self, user: HloInstruction, tuple_index: int = -1, depth: int = 0) -> int:
        """``ReusesAfterBoundary`` (0 past ``kMaxReuseAnalysisDepth``, 1000 steps)."""
        users = list(user.users)
        if depth > _MAX_DEPTH or user.opcode is CONSTANT or not users or (tuple_index < 0 and len(users) > 1):
            return 0
        op = users[0]
        if tuple_index >= 0:
            if op.opcode is CONDITIONAL:
                return 10 if self._branches_using(user, tuple_index) < len(self.conditional.operands) - 1 else 0
            if op.opcode is TUPLE:
                return self.reuses_after(op, op.operand_indices(user)[0], depth + 1)
            return self.reuses_after(op, tuple_index, depth + 1)
        if op is self.branch0_root():
            index = op.operand_indices(user)[0]
            for gte in self.conditional.users:
                if gte.opcode is GET_TUPLE_ELEMENT and gte.tuple_index == index and gte.users:
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
                    u.opcode is GET_TUPLE_ELEMENT and u.tuple_index == tuple_index for u in param.users):
                count += 1
        return count

    def benefit(self, boundaries: list[Boundary]) -> int:
        """``BenefitForMovingBoundaries`` with the reuse analysis (no search configuration)."""
        first = boundaries[0]
        if first.position != USER and all(b.instructions[0].opcode is TUPLE for b in boundaries):
            return -1
        if len(boundaries) == 1 and first.position == USER and \
                first.instructions[0].opcode is GET_TUPLE_ELEMENT:
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
        if hlo.opcode is not COPY or hlo.operands[0].opcode is not GET_TUPLE_ELEMENT:
            return 0
        gte = hlo.operands[0]
        if gte.operands[0] is not self.conditional:
            return 0
        benefit = 0
        for branch in branch_computations(self.conditional):
            root = branch.root_instruction()
            if root.opcode is TUPLE:
                element = root.operands[gte.gte_index()]
                if element.opcode is COPY and element.operands[0].shape == hlo.shape:
                    benefit += 10
        return benefit


# The pass: deciding per conditional and moving out.

_MEMORY_ALLOWANCE = 5000
"""``memory_increase_allowance_``: ``ByteSizeOf(shape, 1) >> 9`` per moved instruction."""


def move_conditional_code(module: HloModule) -> tuple[list[str], list[HloInstruction]]:
    """Move identical instructions out of the branches of each canonical conditional; the names
    of the conditionals changed, and what the cleanup's dead-code elimination removed."""
    changed: list[str] = []
    branches: list[HloComputation] = []
    for cond in _conditionals(module):
        if not _canonical(module, cond):
            continue
        analysis = MotionAnalysis(cond)
        decided = _decide(analysis)
        if decided is None:
            continue
        to_move, new_boundaries = decided
        _move_out(module, cond, to_move, new_boundaries)
        changed.append(cond.name)
        branches.extend(branch_computations(cond))
    dead: list[HloInstruction] = []
    if changed:  # after_conditional_code_motion_after_convert_hoisting: DCE, TupleSimplifier, DCE
        dead.extend(remove_dead_code(module))
        if _simplify_roots(branches):
            dead.extend(remove_dead_code(module))
    return changed, dead


def _conditionals(module: HloModule) -> list[HloInstruction]:
    """The conditionals in ``MakeComputationPostOrder`` (callees first), each computation's in post order.

    Where no computation holds one, none: the computations' order is not made (a visit of every
    instruction of the module; the train steps have no conditional), as the list below would
    take nothing from it."""
    cond = CONDITIONAL  # a post order only of computations that hold a conditional
    for comp in module.computations:
        if comp.has_opcode(cond):
            break
    else:
        return []
    order: list[HloComputation] = []
    seen: set[int] = set()

    def visit(comp: HloComputation) -> None:
        seen.add(id(comp))
        for instr in comp.instructions:
            extra = instr._extra  # not rare_fields.calls_anything(extra), inline: a Python call per instruction
            if extra is None or (type(extra) is not CALLS and not extra.called):
                continue  # most instructions call nothing: no list made
            for callee in instr.called_computations:
                if id(callee) not in seen:
                    visit(callee)
        order.append(comp)

    entry = module.entry_computation()
    for comp in [c for c in module.computations if c is not entry] + [entry]:
        if id(comp) not in seen:
            visit(comp)
    return [i for comp in order if comp.has_opcode(cond)
            for i in comp.post_order() if i.opcode is cond]


def _canonical(module: HloModule, cond: HloInstruction) -> bool:
    """ConditionalCanonicalizer's form, branches not shared with another conditional, and only
    get-tuple-element users (``Run``'s ``can_change_tuple_shape``)."""
    branches = branch_computations(cond)
    if not branches or not cond.shape.is_tuple or len(cond.operands) != len(branches) + 1 or \
            len({id(b) for b in branches}) != len(branches):
        return False
    if any(u.opcode is not GET_TUPLE_ELEMENT for u in cond.users):
        return False
    for branch in branches:
        if len(branch.parameters) != 1 or not branch.parameters[0].shape.is_tuple:
            return False
        if branch.root is None or branch.root.opcode is not TUPLE:
            return False
        if len(module.callers_of(branch)) != 1:
            return False
    return True


def _decide(analysis: MotionAnalysis) -> tuple[list[Boundary], list[Boundary]] | None:
    """``Run``'s loop over the boundaries of one conditional: the move-out group and its new
    boundaries when moving out is the decision, else None."""
    cond = analysis.conditional
    start = [Boundary(INSIDE, tuple(b.root_instruction() for b in branch_computations(cond)))]
    start += [Boundary(USER, (u,)) for u in cond.users]
    start += [Boundary(OPERAND, (o,)) for o in cond.operands[1:]]
    visited: set[Boundary] = set()
    out: tuple[list[Boundary], list[Boundary]] | None = None
    benefit_out = benefit_in = 0
    moving_out: bool | None = None
    for boundary in start:
        if boundary in visited:
            continue
        visited.add(boundary)
        group = _consider(analysis, boundary)
        if group is None:
            continue
        connected, new_boundaries, benefit = group
        if connected[0].position == INSIDE:
            if out is None:
                out = (connected, new_boundaries)
            benefit_out += benefit
            if benefit_out >= benefit_in:
                moving_out = True
        else:
            benefit_in += benefit
            if benefit_out < benefit_in:
                moving_out = False
    return out if moving_out else None


def _consider(analysis: MotionAnalysis,
              boundary: Boundary) -> tuple[list[Boundary], list[Boundary], int] | None:
    """``ConsiderCodeMotion``: the group grown from ``boundary``, its new boundaries and its
    benefit, when it is worth moving."""
    grown = _Group(analysis)
    grown.add_boundaries(boundary)
    if not grown.connected:
        return None
    benefit = analysis.benefit(grown.connected)
    if benefit >= 0 and grown.memory_increase > 0 and \
            grown.memory_increase // len(grown.connected) > _MEMORY_ALLOWANCE:
        benefit = -1
    if benefit < 0:
        for b in grown.new_boundaries:  # clear_recently_visited
            analysis.visited_count.pop(b.instructions[0], None)
        return None
    return grown.connected, grown.new_boundaries, benefit


def _memory_size(instr: HloInstruction, outfeed: bool) -> int:
    """``CalculateMemorySize``: counted for a reduction (its result or an operand of one), or for
    any array when a branch has an outfeed."""
    if instr.shape.is_tuple or (not outfeed and instr.opcode is not REDUCE and
                                all(u.opcode is not REDUCE for u in instr.users)):
        return 0
    return logical_bytes(instr.shape, 1) >> 9


class _Group:
    """``GroupConnectedBoundaries`` for one starting boundary (written out, not a dataclass)."""

    analysis: MotionAnalysis
    connected: list[Boundary]
    new_boundaries: list[Boundary]
    memory_increase: int

    def __init__(self, analysis: MotionAnalysis) -> None:
        self.analysis = analysis
        self.connected = []
        self.new_boundaries = []
        self.memory_increase = 0

    def add_boundaries(self, start: Boundary) -> None:
        """``AddBoundaries``: breadth first from ``start``, each boundary once."""
        worklist, visited = [start], set()
        while worklist:
            b = worklist.pop(0)
            if b in visited:
                continue
            visited.add(b)
            if self._movable(b):
                self.connected.append(b)
                self.memory_increase -= _memory_size(b.instructions[0], self.analysis.outfeed)
                for nxt in self._next(b):
                    worklist.append(nxt)
                    self.memory_increase += _memory_size(nxt.instructions[0], self.analysis.outfeed)
            elif self._replicated_broadcast(b):
                self.connected.append(b)
                first = b.instructions[0]
                self.memory_increase -= _memory_size(first, self.analysis.outfeed) - \
                    _memory_size(first.operands[0], self.analysis.outfeed)
            else:
                self.analysis.visited_count[b.instructions[0]] = 1
                self.new_boundaries.append(b)

    def _movable(self, b: Boundary) -> bool:
        if b.position == INSIDE and not within_branch_identical(b.instructions):
            return False
        return self._safe_to_move(b) and worth_hoisting(self.analysis.conditional, b)

    def _next(self, b: Boundary) -> list[Boundary]:
        first = b.instructions[0]
        if b.position == USER:
            return [Boundary(USER, (u,)) for u in first.users]
        return [Boundary(b.position, tuple(i.operands[k] for i in b.instructions)) for k in range(len(first.operands))]

    def _replicated_broadcast(self, b: Boundary) -> bool:
        """A multi-use broadcast operand is copied into the branches with its user."""
        first = b.instructions[0]
        if b.position != OPERAND or first.opcode is not BROADCAST or len(self.connected) <= 1:
            return False
        last = self.connected[-1].instructions[0]
        return last in first.users and last.opcode is not TUPLE

    def _safe_to_move(self, b: Boundary) -> bool:
        """``IsSafeToMoveBoundary``: one dependent, or the last of its dependents to be visited."""
        first, cond = b.instructions[0], self.analysis.conditional
        count = len(first.users) if b.position != USER else count_non_leaf(first.operands)
        if count <= 1:
            return not (b.position == OPERAND and first.users and first.users[0] is cond and
                        first is cond.operands[0])
        visited_count = self.analysis.visited_count
        if first not in visited_count:
            visited_count[first] = 1
            self.new_boundaries.append(b)
            return False
        if b in self.new_boundaries or len(b.instructions) == 1:
            visited_count[first] += 1
            if visited_count[first] == count:
                del visited_count[first]
                if b in self.new_boundaries:
                    self.new_boundaries.remove(b)
                return True
        return False


# -- MoveInstructionOut ---------------------------------------------------------------------

def _move_out(module: HloModule, cond: HloInstruction, to_move: list[Boundary],
              new_boundaries: list[Boundary]) -> None:
    parent = cond.computation()
    anchor = _after(parent, cond)
    old_users = list(cond.users)
    hoisted: dict[tuple[HloInstruction, ...], HloInstruction] = {}
    for k, b in enumerate(new_boundaries):
        gte = _new(module, "get-tuple-element", GET_TUPLE_ELEMENT, b.instructions[0].shape)
        gte.tuple_index = k
        gte.attributes = {"index": str(k)}
        _place(parent, anchor, gte, [cond])
        hoisted[b.instructions] = gte
    roots = {branch.root_instruction() for branch in branch_computations(cond)}
    for b in reversed(to_move):  # operands first: to_move is in breadth-first order from the roots
        first = b.instructions[0]
        if first in roots:
            continue  # the root tuple's copy outside is dead at once (HloDCE removes it)
        name = module.unique_name(_base(first.name))
        operands = [hoisted[tuple(i.operands[k] for i in b.instructions)] for k in range(len(first.operands))]
        copy = first.clone_with_new_operands(first.shape, operands, name)
        _place(parent, anchor, copy, operands)
        hoisted[b.instructions] = copy
    for user in old_users:
        index = user.gte_index()
        key = tuple(branch.root_instruction().operands[index] for branch in branch_computations(cond))
        parent.replace_instruction(user, hoisted[key])
    for k, branch in enumerate(branch_computations(cond)):
        _new_root(module, branch, [b.instructions[k] for b in new_boundaries], [b.instructions[k] for b in to_move])
    cond.shape = branch_computations(cond)[0].root_instruction().shape


def _new_root(module: HloModule, branch: HloComputation, elements: list[HloInstruction],
              moved: list[HloInstruction]) -> None:
    old_root = branch.root_instruction()
    root = _new(module, "tuple", TUPLE, Shape.tuple([e.shape for e in elements]))
    _place(branch, None, root, elements)
    branch.set_root_instruction(root)
    for instr in moved:  # in order, users before operands: what is dead goes at once
        if instr.parent is branch and not instr.users and instr is not root and (
                instr is old_root or instr.opcode is not PARAMETER):
            branch.remove_instruction(instr)


def _new(module: HloModule, base: str, opcode: HloOpcode, shape: Shape) -> HloInstruction:
    return HloInstruction(module.unique_name(base), opcode, shape)


def _base(name: str) -> str:
    head, _, tail = name.rpartition(".")
    return head if head and tail.isdigit() else name


def _after(comp: HloComputation, instr: HloInstruction) -> HloInstruction | None:
    k = comp.instructions.index(instr)
    return comp.instructions[k + 1] if k + 1 < len(comp.instructions) else None


def _place(comp: HloComputation, anchor: HloInstruction | None, instr: HloInstruction,
           operands: list[HloInstruction]) -> None:
    """Add ``instr`` before ``anchor`` (None: at the end) in text order, on ``operands``."""
    if anchor is None:
        comp.add_instruction(instr)
    else:
        comp.insert_before(anchor, instr)
    instr.operands = tuple(operands)


def _simplify_roots(branches: list[HloComputation]) -> bool:
    """``TupleSimplifier`` on the branches moved out of: ``tuple(gte(p, 0), ..., gte(p, n-1))`` of a
    ``p`` of the tuple's shape is ``p``."""
    changed = False
    for branch in branches:
        root = branch.root_instruction()
        source = whole_tuple_source(root) if root.opcode is TUPLE and root.operands else None
        if source is None:
            continue
        branch.set_root_instruction(source)
        branch.remove_instruction(root)
        changed = True
    return changed


class ConditionalCodeMotion(HloPassWithContext):
    """XLA's ``ConditionalCodeMotion``: :func:`move_conditional_code`; its cleanup's removals go
    onto the context (``dead``)."""

    name = "conditional_code_motion"

    def run(self, module: HloModule) -> bool:
        moved, dead = move_conditional_code(module)
        self.context.dead.extend(dead)
        return bool(moved)
