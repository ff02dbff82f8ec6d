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
* ``HandleSubtract`` / ``HandleAdd``'s reassociation of scalar integer constants:
  ``(C1 - x) - C2 -> (C1 - C2) - x``, which a reversed ``lax.scan`` writes for its row index
  (``N - i - 1``); the compiler's module reads ``subtract(2, i)`` where the lowering had
  ``subtract(subtract(3, i), 1)`` (seed 1, program 113).

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


_REWRITTEN = (HloOpcode.SELECT, HloOpcode.NEGATE, HloOpcode.SUBTRACT)


def _simplify_computation(comp: HloComputation) -> list[tuple[str, str]]:
    replaced: list[tuple[str, str]] = []
    gone: set[HloInstruction] = set()
    for instr in comp.post_order():  # XLA's visitor: operands first, so chains collapse in one run
        if instr.opcode is HloOpcode.SELECT:
            replacement = _select_replacement(instr)
        elif instr.opcode is HloOpcode.NEGATE and instr.operands[0].opcode is HloOpcode.NEGATE:
            replacement = instr.operands[0].operands[0]
        elif instr.opcode is HloOpcode.SUBTRACT:
            replacement = _reassociated_subtract(comp, instr)
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


def _integer_scalar(instr: HloInstruction) -> int | None:
    if instr.opcode is not HloOpcode.CONSTANT or instr.literal is None or not instr.shape.is_array or \
            instr.shape.dimensions or instr.shape.element_type.kind not in ("signed", "unsigned"):
        return None
    try:
        return int(instr.literal.strip())
    except ValueError:
        return None


def _reassociated_subtract(comp: HloComputation, outer: HloInstruction) -> HloInstruction | None:
    """``(C1 - x) - C2`` -> a new ``(C1 - C2) - x`` (scalar integers), else None."""
    inner, c2 = outer.operands
    second = _integer_scalar(c2)
    if second is None or inner.opcode is not HloOpcode.SUBTRACT or len(inner.users) != 1:
        return None
    c1, x = inner.operands
    first = _integer_scalar(c1)
    if first is None:
        return None
    module = comp.module
    assert module is not None
    constant = HloInstruction(module.unique_name("constant"), HloOpcode.CONSTANT, c1.shape)
    constant.literal = str(first - second)
    comp.insert_before(outer, constant)
    new = HloInstruction(module.unique_name("subtract"), HloOpcode.SUBTRACT, outer.shape)
    comp.insert_before(outer, new)
    new.operands = [constant, x]
    return new


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
