"""XLA's ``ConditionalCanonicalizer``: a conditional's branches take and return tuples.

``xla/hlo/transforms/simplifiers/conditional_canonicalizer.cc`` (``CanonicalizeNonTupleConditional``):
for each branch, an array-shaped parameter becomes a one-element tuple read by a
``get-tuple-element`` (index 0) and an array-shaped root is wrapped in ``tuple(root)``; each
array-shaped operand of the conditional but the selector becomes ``tuple(operand)``; an
array-shaped conditional is replaced by a copy of it with the one-element tuple shape (XLA's
``CloneWithNewShape``: ``NAME.clone``) read by a ``get-tuple-element``.

libtpu 0.0.42.1 runs it right after its first CallInliner (``Before_X64_rewriter``: the dumps
``...after_call-inliner.before_conditional-canonicalizer`` and
``...after_conditional-canonicalizer...``); XLA:GPU in its ``pre-spmd-partitioner`` pipeline
(the same dump on ``jax.lax.cond``), both before their simplification pipelines, whose HloCSE
merges the ``tuple(x)`` of an operand passed to several branches and whose TupleSimplifier
folds a branch's ``tuple(get-tuple-element(p, 0))`` back to ``p``
(:func:`.tuple_simplifier.fold_whole_tuples`).  What HostOffloadLegalize then sees is a branch whose root is a
tuple: a MoveToDevice a branch returns is read by that tuple, which the pass refuses outside a
while body (:mod:`.host_offload_legalize.branches`).

Not modelled: XLA's copy of a branch computation that something other than a conditional
also calls (JAX writes every branch as its own region, and CallInliner has run).
"""

from __future__ import annotations

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import CONDITIONAL, GET_TUPLE_ELEMENT, TUPLE
from ...ir.shape import Shape
from .hlo_pass_interface import HloPassWithContext


def canonicalize_conditionals(module: HloModule) -> tuple[bool, dict[str, str]]:
    """Canonicalise every conditional of ``module`` in place: ``(changed, new name -> old name)``
    for the instructions replaced under a new name (conditionals, branch parameters)."""
    changed, renamed = False, dict[str, str]()
    for comp in list(module.computations):
        if not comp.has_opcode(CONDITIONAL):
            continue  # no post order where there is no conditional (most computations)
        for instr in comp.post_order():
            if instr.opcode is CONDITIONAL:
                changed |= _canonicalize(module, comp, instr, renamed)
    if changed:
        module.calls_changed()
    return changed, renamed


def _canonicalize(module: HloModule, comp: HloComputation, cond: HloInstruction, renamed: dict[str, str]) -> bool:
    changed = False
    for branch in _branches(cond):
        changed |= _tuple_parameter(module, branch, renamed)
        changed |= _tuple_root(module, branch)
    for i, operand in enumerate(cond.operands[1:], start=1):
        if not operand.shape.is_tuple:
            tup = comp.insert_before(cond, _tuple_of(module, operand))
            cond.replace_operand(i, tup)
            changed = True
    if not cond.shape.is_tuple:
        _tuple_result(module, comp, cond, renamed)
        changed = True
    return changed


def _branches(cond: HloInstruction) -> list[HloComputation]:
    return cond.called.get("branch_computations") or \
        [*cond.called.get("true_computation", []), *cond.called.get("false_computation", [])]


def _tuple_of(module: HloModule, operand: HloInstruction) -> HloInstruction:
    tup = HloInstruction(module.unique_name("tuple"), TUPLE, Shape.tuple([operand.shape]))
    tup.operands = (operand,)
    return tup


def _element(module: HloModule, of: HloInstruction, shape: Shape) -> HloInstruction:
    gte = HloInstruction(module.unique_name("get-tuple-element"), GET_TUPLE_ELEMENT, shape)
    gte.tuple_index = 0
    gte.attributes = {"index": "0"}
    gte.operands = (of,)
    return gte


def _tuple_parameter(module: HloModule, branch: HloComputation, renamed: dict[str, str]) -> bool:
    """``ReplaceParameter`` with a one-element tuple, its users reading ``get-tuple-element(p, 0)``."""
    if len(branch.parameters) != 1 or branch.parameters[0].shape.is_tuple:
        return False
    old = branch.parameters[0]
    name = module.unique_name(old.name.rsplit(".", 1)[0] if "." in old.name else old.name)
    new = old.clone_with_new_operands(Shape.tuple([old.shape]), [], name)
    branch.insert_before(old, new)
    branch.replace_parameter(0, new)
    gte = branch.insert_before(old, _element(module, new, old.shape))
    old.replace_all_uses_with(gte)
    branch.remove_instruction(old)
    branch.signature = None
    renamed[new.name] = old.name
    return True


def _tuple_root(module: HloModule, branch: HloComputation) -> bool:
    root = branch.root_instruction()
    if root.shape.is_tuple:
        return False
    branch.set_root_instruction(branch.add_instruction(_tuple_of(module, root)))
    branch.signature = None
    return True


def _tuple_result(module: HloModule, comp: HloComputation, cond: HloInstruction, renamed: dict[str, str]) -> None:
    """``CloneWithNewShape`` to ``(shape)``, read by ``get-tuple-element``; the old one replaced."""
    new = cond.clone_with_new_operands(Shape.tuple([cond.shape]), cond.operands, module.unique_name(f"{cond.name}.clone"))
    comp.insert_before(cond, new)
    gte = comp.insert_before(cond, _element(module, new, cond.shape))
    comp.replace_instruction(cond, gte)
    renamed[new.name] = cond.name


class ConditionalCanonicalizer(HloPassWithContext):
    """XLA's ``ConditionalCanonicalizer``: :func:`canonicalize_conditionals`; what it replaced
    under a new name reports as the old (the context's ``origin``)."""

    name = "conditional_canonicalizer"

    def run(self, module: HloModule) -> bool:
        changed, renamed = canonicalize_conditionals(module)
        self.context.record_origin(renamed)
        return changed
