"""XLA's ``ReshapeMover``: a reshape feeding an elementwise op moves below it.

libtpu runs ``reshape-mover`` in its simplification pipelines, before ``host_offloading``.
The comparison with the compiler's ``before_host-offload-legalize`` dump
(:mod:`xladoctor.oracle.prepass`) found it on programs that take a row out of a host buffer and
compute on it: ``sine(reshape(dynamic-slice(...)))`` reaches HostOffloader as
``reshape(sine(dynamic-slice(...)))``, so the first compute on the sliced value is the
``sine``, on the slice's own shape.

Modelled after ``xla/hlo/transforms/simplifiers/reshape_mover.cc``, reshapes only (the campaign's
programs have no transposes in these positions):

* a **candidate** is an elementwise instruction with at least one operand that is a
  non-trivial ``reshape`` (one whose operand is not a constant or a broadcast of a scalar),
  where every ``reshape`` operand is equivalent to it (same input and output dimensions) and
  every other operand can be trivially reshaped (a constant, a broadcast of a scalar with
  sorted dimensions);
* candidates whose reshape operands have users that are not candidates are dropped, until
  none is (``TryReshapeMoveOnCandidates``);
* each remaining candidate is rebuilt on the reshapes' operands (constants and scalar
  broadcasts made in the input shape: the broadcast that AlgebraicSimplifier makes of a
  reshaped scalar broadcast right after) and replaced by a reshape of the new instruction.
"""

from __future__ import annotations

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import BROADCAST, CLAMP, CONSTANT, CONVERT, RESHAPE, SELECT, HloOpcode
from ...ir.operands import first_operand, operands_of
from ...ir.packed_fields import USERS
from ...ir.shape import Shape, default_layout
from ...ir.shape_inference import _BINARY, _UNARY_OPS
from .hlo_pass_interface import HloPassInterface
from .insertions import Insertions

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

_ELEMENTWISE: Final = frozenset(_UNARY_OPS | {o for o in HloOpcode if o.value in _BINARY} |
                         {SELECT, CLAMP, CONVERT})


_ROUNDS: Final = 8
"""Rounds per computation at most (libtpu's simplification pipelines iterate to a fixed point)."""


def move_reshapes(module: HloModule) -> list[str]:
    """Sink reshapes below elementwise users in every computation; the instructions rebuilt."""
    moved: list[str] = []
    reshape = RESHAPE
    for comp in module.computations:
        reshapes = [i for i in comp.instructions if i.opcode is reshape]
        if not reshapes:
            continue  # a candidate reads a reshape: none here (moving creates reshapes only where one was)
        for _ in range(_ROUNDS):  # the pipeline runs to a fixed point: a moved reshape moves on
            # A candidate is a user of a reshape: only those are tested, in list order.
            readers = _readers(reshapes)
            # (the readers found in list order by the set's own test, called from C: a few dozen of thousands)
            candidates = [i for i in filter(readers.__contains__, comp.instructions) if _is_candidate(i)] if readers else []
            made: list[HloInstruction] = []
            done = _move_candidates(module, comp, candidates, made) if candidates else []
            if not done:
                break
            moved.extend(done)
            # The reshapes now: those before (a round removes only the candidates it rebuilt,
            # elementwise ops) and those it made; only their readers are read, as a set, so
            # their order does not matter (a scan of the computation per round was ~0.5% of a
            # train step's analysis).
            reshapes.extend(i for i in made if i.opcode is reshape)
    return moved


def _readers(reshapes: list[HloInstruction]) -> set[HloInstruction]:
    """Every user of ``reshapes``, read from the users store (a :class:`~...ir.users.Users`, or one
    user kept bare) without the ``users`` property's call per reshape."""
    readers: set[HloInstruction] = set()
    for r in reshapes:
        users = r._users
        if type(users) is USERS:
            readers.update(users)
        else:
            readers.add(users)  # type: ignore[arg-type]
    return readers


def _scalar_broadcast(instr: HloInstruction) -> bool:
    if instr.opcode is not BROADCAST:
        return False
    operand = first_operand(instr)
    return operand.shape.is_array and not operand.shape.dimensions


def _trivially_reshaped(instr: HloInstruction) -> bool:
    """``CanTriviallyRearrange`` for a reshape: a constant or a scalar broadcast."""
    return instr.opcode is CONSTANT or _scalar_broadcast(instr)


def _first_nontrivial_reshape(instr: HloInstruction) -> HloInstruction | None:
    operands = instr._operands  # the stored tuple (an elementwise op of two or more): no property call
    for operand in operands if type(operands) is tuple else instr.operands:
        if operand.opcode is RESHAPE:
            source = first_operand(operand)
            if not _trivially_reshaped(source) and tuple(operand.shape.dimensions) != tuple(source.shape.dimensions):
                return operand
    return None


def _equivalent(a: HloInstruction, b: HloInstruction) -> bool:
    return tuple(a.shape.dimensions) == tuple(b.shape.dimensions) and \
        tuple(first_operand(a).shape.dimensions) == tuple(first_operand(b).shape.dimensions)


def _is_candidate(instr: HloInstruction) -> bool:
    if instr.opcode not in _ELEMENTWISE or not instr.shape.is_array:
        return False
    reshape = _first_nontrivial_reshape(instr)
    if reshape is None:
        return False
    for o in operands_of(instr):  # noqa: SIM110  (a loop, not all() of a generator: a frame switch per operand)
        if not (_equivalent(o, reshape) if o.opcode is RESHAPE else _trivially_reshaped(o)):
            return False
    return True


def _move_candidates(module: HloModule, comp: HloComputation, candidates: list[HloInstruction],
                     made: list[HloInstruction]) -> list[str]:
    """Rebuild the candidates that stay chosen below their reshapes; the names rebuilt.  ``made``:
    the instructions made, appended."""
    chosen = set(candidates)
    removed = True
    while chosen and removed:
        removed = False
        reshapes = {o for c in chosen for o in operands_of(c) if o.opcode is RESHAPE}
        for reshape in reshapes:
            if not reshape.users_within(chosen):  # (the store: no users tuple per reshape)
                for user in reshape.users:
                    if user in chosen:
                        chosen.discard(user)
                        removed = True
    moved = []
    # The new instructions and the removals go into the list in one sweep each, after the
    # round (inserting and removing one at a time scanned the list each time); nothing here
    # reads the list meanwhile, and the removed keep their names, as ``replace_instruction``.
    at, gone = Insertions(comp), set[HloInstruction]()
    for instr in [c for c in candidates if c in chosen]:
        _sink(module, at, instr, gone)
        moved.append(instr.name)
    made.extend(at.inserted())
    at.place(gone)  # the rebuilt candidates left out as the new instructions go in: one sweep
    comp.forget_removed(gone, release_names=False)
    return moved


def _sink(module: HloModule, at: Insertions, instr: HloInstruction, gone: set[HloInstruction]) -> None:
    reshape = _first_nontrivial_reshape(instr)
    assert reshape is not None
    inner_dims = tuple(first_operand(reshape).shape.dimensions)
    operands = [_inverse(module, at, instr, o, inner_dims) for o in operands_of(instr)]
    shape = Shape.array(instr.shape.element_type, inner_dims, default_layout(len(inner_dims)))
    new = instr.clone_with_new_operands(shape, operands, module.unique_name(instr.name))
    at.insert_before(instr, new)
    out = HloInstruction(module.unique_name("reshape"), RESHAPE, instr.shape)
    at.insert_before(instr, out)
    out.operands = (new,)
    at.comp.replace_and_unhook(instr, out, gone)  # replace_instruction, the list's part later


def _inverse(module: HloModule, at: Insertions, anchor: HloInstruction, operand: HloInstruction,
             dims: tuple[int, ...]) -> HloInstruction:
    """``ApplyInverseRearrange``: ``operand`` in the reshape's input shape."""
    if tuple(operand.shape.dimensions) == dims:
        return operand
    if operand.opcode is RESHAPE and tuple(first_operand(operand).shape.dimensions) == dims:
        return first_operand(operand)
    if _scalar_broadcast(operand):  # reshape(broadcast(scalar)): AlgebraicSimplifier's broadcast
        new = HloInstruction(module.unique_name("broadcast"), BROADCAST,
                             Shape.array(operand.shape.element_type, dims, default_layout(len(dims))))
        new.attributes = {"dimensions": "{}"}
        at.insert_before(anchor, new)
        new.operands = (first_operand(operand),)
        return new
    new = HloInstruction(module.unique_name("reshape"), RESHAPE, Shape.array(operand.shape.element_type, dims, default_layout(len(dims))))
    at.insert_before(anchor, new)
    new.operands = (operand,)
    return new


class ReshapeMover(HloPassInterface):
    """XLA's ``ReshapeMover``: :func:`move_reshapes`."""

    name = "reshape_mover"

    def run(self, module: HloModule) -> bool:
        return bool(move_reshapes(module))
