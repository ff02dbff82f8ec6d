"""XLA's ``TupleSimplifier`` (``xla/hlo/transforms/simplifiers/tuple_simplifier.cc``), its two rewrites.

* ``get-tuple-element(tuple(..., x, ...))`` is ``x`` (:func:`forward_tuple_elements`, with the
  DCE of the tuple plumbing left unused): CallInliner leaves such pairs where a callee returned
  a tuple, and the compile's rebuild from StableHLO folds them (:mod:`.stablehlo_rebuild`);
* ``RemoveWholeTuple``: ``tuple(gte(t, 0), ..., gte(t, n-1))`` of one ``t`` of a compatible shape
  is ``t`` (:func:`fold_whole_tuples`), as libtpu's Phase_1 runs it right after
  ConditionalCanonicalizer (:mod:`.conditional_canonicalizer`) and ConditionalCodeMotion's own
  subpipeline does on the branch roots it rebuilt.
"""

from __future__ import annotations

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import GET_TUPLE_ELEMENT, TUPLE
from .hlo_pass_interface import HloPassInterface


def folds_tuples(comp: HloComputation) -> bool:
    """Whether :func:`forward_tuple_elements` changes ``comp``: a ``get-tuple-element(tuple(...))``."""
    gte, tup = GET_TUPLE_ELEMENT, TUPLE
    elements = [i for i in comp.instructions if i.opcode is gte]  # a list first: most instructions are none
    for i in elements:  # noqa: SIM110  (a loop, not any() of a generator: none made where the list is empty, most)
        if i.operands and i.operands[0].opcode is tup:
            return True
    return False


def forward_tuple_elements(module: HloModule) -> int:
    """``TupleSimplifier`` and the DCE after it: ``get-tuple-element(tuple(..., x, ...))`` is ``x``.

    Inlining leaves ``gte(tuple(...))`` pairs where a callee returned a tuple;
    XLA's simplifiers fold them long before HostOffloader, so a MoveToHost in the
    callee then feeds its real consumer (a DUS, say) instead of a tuple.  Only
    tuple plumbing left without users is removed (nothing with side effects).
    Returns how many get-tuple-elements were folded.
    """
    folded = 0
    gte, tup_op = GET_TUPLE_ELEMENT, TUPLE  # locals: tested for every instruction, twice
    for comp in module.computations:
        if not folds_tuples(comp):
            continue  # nothing to fold
        # Only the plumbing is visited: the folds in post order (XLA's visitor), or in list order
        # where no fold can change another (:func:`_folds_commute`: a train step's, after the
        # inlining), which spares the post order of the whole computation (~4% of a train step's
        # analysis bytecodes, the entry's after CallInliner).
        plumbing = [i for i in comp.instructions if (op := i.opcode) is gte or op is tup_op]
        if not _folds_commute(plumbing):
            plumbing = [i for i in comp.post_order() if (op := i.opcode) is gte or op is tup_op]
        for instr in plumbing:
            if instr.opcode is gte and instr.operands \
                    and instr.operands[0].opcode is tup_op and instr.tuple_index is not None:
                tup = instr.operands[0]
                instr.replace_all_uses_with(tup.operands[instr.tuple_index])
                folded += 1
        # Tuple plumbing used only by dead plumbing (users decided before their operands: a value
        # any other instruction uses is never dead).  In the reverse of the post order one sweep
        # decides every one; in the reverse of the list (not always operands first) the sweeps
        # repeat until none is added: on a DAG both give the one set where each is dead exactly
        # when all its users are.  The users tested by the set's own subset test (C), not a
        # generator per tuple or element.
        root = comp.root
        dead: set[HloInstruction] = set()
        added = True
        while added:
            added = False
            for instr in reversed(plumbing):
                if instr is not root and instr not in dead and instr.users_within(dead):
                    dead.add(instr)
                    added = True
        if dead:
            # Stable removal: the folded values' users keep the order the real compiler's
            # rebuilt module gives them (a folded consumer comes after the existing users).
            comp.remove_unused(dead, release_names=True)
    return folded


def _folds_commute(plumbing: list[HloInstruction]) -> bool:
    """Whether folding the ``gte(tuple)`` pairs among ``plumbing`` in any order gives what the post
    order's folding gives: each fold's value is neither a get-tuple-element nor a tuple, and no two
    folds give the same value.  Then no fold makes or unmakes another pair (an operand becomes a
    tuple only where a fold gives one), changes another's value (a tuple's operand changes only
    where it was a folded get-tuple-element), or adds users to a value another fold adds to: each
    value gains its one get-tuple-element's users, in their order, whenever it folds."""
    gte, tup_op = GET_TUPLE_ELEMENT, TUPLE
    values: set[HloInstruction] = set()
    for instr in plumbing:
        if instr.opcode is not gte:
            continue
        operands = instr.operands
        index = instr.tuple_index
        if not operands or operands[0].opcode is not tup_op or index is None:
            continue  # no pair: unchanged by the folds (its operand is no fold's value)
        elements = operands[0].operands
        if not 0 <= index < len(elements):
            return False  # the post order's fold raises where it raises
        value = elements[index]
        if value.opcode is gte or value.opcode is tup_op or value in values:
            return False
        values.add(value)
    return True


def fold_whole_tuples(module: HloModule) -> list[str]:
    """TupleSimplifier's ``RemoveWholeTuple``: ``tuple(gte(t, 0), ..., gte(t, n-1))`` of one
    ``t`` of a compatible shape is ``t``; the tuples replaced (their names)."""
    folded: list[str] = []
    for comp in module.computations:
        if not _may_fold_whole(comp):
            continue
        for tup in [i for i in comp.post_order() if i.opcode is TUPLE]:
            top = whole_tuple_source(tup)
            if top is None:
                continue
            comp.replace_instruction(tup, top)
            folded.append(tup.name)
    return folded


def _may_fold_whole(comp: HloComputation) -> bool:
    """Whether a tuple of ``comp`` rebuilds a whole one as ``comp`` is.  Where none does, none does
    after :func:`fold_whole_tuples`' loop either (it changes nothing until a tuple folds): no post order."""
    tuple_op = TUPLE
    return any(whole_tuple_source(i) is not None for i in comp.instructions if i.opcode is tuple_op)


def whole_tuple_source(tup: HloInstruction) -> HloInstruction | None:
    """The ``t`` a ``tuple(gte(t, 0), ..., gte(t, n-1))`` of a compatible shape rebuilds, or None."""
    top = None
    for k, operand in enumerate(tup.operands):
        if operand.opcode is not GET_TUPLE_ELEMENT or operand.tuple_index != k:
            return None
        if top is None:
            top = operand.operands[0]
            if not top.shape.compatible(tup.shape):
                return None
        elif operand.operands[0] is not top:
            return None
    return top


class TupleSimplifier(HloPassInterface):
    """XLA's ``TupleSimplifier`` as the pipeline runs it alone: ``RemoveWholeTuple``
    (:func:`fold_whole_tuples`)."""

    name = "tuple_simplifier"

    def run(self, module: HloModule) -> bool:
        return bool(fold_whole_tuples(module))
