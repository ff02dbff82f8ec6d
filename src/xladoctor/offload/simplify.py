"""AlgebraicSimplifier's rewrites that change what HostOffloader sees.

libtpu's compile runs XLA's AlgebraicSimplifier several times before ``host_offloading``
(``simplification-1`` .. ``-4``, ``layout_fixup``).  Most of its rewrites leave the dataflow
between a MoveToHost and an entry output alone; the ones modelled here do not, as the
comparison of our prepared module with the compiler's ``before_host-offload-legalize``
dump showed (:mod:`xladoctor.oracle.prepass`, ``bench/offload_campaign.py --compare-prepass``):

* ``HandleSelect``: ``select(p, x, x) -> x``; ``select(true, x, y) -> x`` and
  ``select(false, x, y) -> y`` for a constant (or broadcast constant) predicate.  So
  ``ROOT s = select(k, h, h)`` with ``h`` a MoveToHost compiles: the root becomes the
  MoveToHost itself.
* ``HandleNegate``: ``negate(negate(x)) -> x`` (seen in the campaign: seed 1, program 172).

Each rewrite is XLA's ``ReplaceInstruction``: every use (and the root) moves to the
replacement, and the replaced instruction leaves its operands' user lists at once; the
operands it leaves unused are dead-code elimination's (the next pass in the pipeline).
"""

from __future__ import annotations

from ..ir.computation import HloComputation
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.opcodes import HloOpcode


def simplify_for_offloading(module: HloModule) -> list[tuple[str, str]]:
    """Apply the modelled rewrites in every computation; ``(replaced, replacement)`` names."""
    replaced: list[tuple[str, str]] = []
    for comp in module.computations:
        if not any(i.opcode in _REWRITTEN for i in comp.instructions):
            continue  # the opcodes with a modelled rewrite: most computations have none
        replaced.extend(_simplify_computation(comp))
    return replaced


_REWRITTEN = (HloOpcode.SELECT, HloOpcode.NEGATE)


def _simplify_computation(comp: HloComputation) -> list[tuple[str, str]]:
    replaced: list[tuple[str, str]] = []
    gone: set[HloInstruction] = set()
    for instr in comp.post_order():  # XLA's visitor: operands first, so chains collapse in one run
        if instr.opcode is HloOpcode.SELECT:
            replacement = _select_replacement(instr)
        elif instr.opcode is HloOpcode.NEGATE and instr.operands[0].opcode is HloOpcode.NEGATE:
            replacement = instr.operands[0].operands[0]
        else:
            continue
        if replacement is None or not _compatible(replacement, instr):
            continue  # ReplaceInstruction refuses a shape that is not compatible
        instr.replace_all_uses_with(replacement)
        comp.unhook(instr)
        gone.add(instr)
        replaced.append((instr.name, replacement.name))
    if gone:
        comp.drop_removed(gone, release_names=False)
    return replaced


def _compatible(a: HloInstruction, b: HloInstruction) -> bool:
    """``ShapeUtil::Compatible`` on arrays: same element type and dimensions, layouts ignored."""
    x, y = a.shape, b.shape
    return x.is_array and y.is_array and x.element_type is y.element_type and \
        tuple(x.dimensions) == tuple(y.dimensions)


def _select_replacement(select: HloInstruction) -> HloInstruction | None:
    """``HandleSelect``: what ``select`` is replaced by, or None."""
    pred, on_true, on_false = select.operands
    if on_true is on_false:
        return on_true
    value = _constant_predicate(pred)
    if value is True:
        return on_true
    if value is False:
        return on_false
    return None


def _constant_predicate(instr: HloInstruction) -> bool | None:
    """``IsAll(pred, true/false)``: a pred constant whose every element is the same, seen
    through broadcasts; None otherwise."""
    while instr.opcode is HloOpcode.BROADCAST:
        instr = instr.operands[0]
    if instr.opcode is not HloOpcode.CONSTANT or instr.literal is None:
        return None
    words = set(instr.literal.replace("{", " ").replace("}", " ").replace(",", " ").split())
    if words == {"true"}:
        return True
    if words == {"false"}:
        return False
    return None
