"""WhileLoopSimplifier's trip-count-one rewrite: a loop that runs once becomes its body, inlined.

XLA's ``TryRemoveWhileLoop`` (``xla/hlo/transforms/simplifiers/while_loop_simplifier.cc``)
replaces a ``while`` whose trip count is 1 by a ``call`` of its body on the loop's init and
inlines that call, unless the loop is not removable or one of its computations has a side
effect (or the loop's frontend attribute ``skip-simplify-while-loops_trip-count-one`` is
``true``).  libtpu 0.0.42.1 runs it first inside ``Phase_1``'s ``hlo-module-dce``
(``hlo_module_dce.cc``: WhileLoopSimplifier, TupleSimplifier, HloDCE), so before
``simplification-1``'s HloCSE: CSE and AlgebraicSimplifier see the inlined body beside its
caller (the body's ``broadcast(0)`` and the caller's are one, then ``relu(relu(x))`` is
``relu(x)``: ``scan_offload:61``).  In the compiler's ``before_host-offload-legalize`` dump a
``lax.scan`` of length 1 (a ``remat_grad`` with one step, say) has no loop left.  The trip count is the one :func:`.while_initializer_removal.induction_variable`
reads (from 0 by 1 while ``LT`` a constant), the form JAX writes.  A loop that never runs (trip
count 0) is left: JAX does not write one.  Placement annotations do not count as side effects:
XLA has made them ``MoveToHost`` / ``MoveToDevice`` calls without the flag by then (a
``remat_grad`` loop of one step that offloads its residuals is gone in the dump).

After the inlining the body's reads of its parameter are ``get-tuple-element``\\ s of the init
tuple, which :func:`.tuple_simplifier.forward_tuple_elements` folds (XLA's TupleSimplifier).
"""

from __future__ import annotations

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import CALL, CUSTOM_CALL, WHILE
from ..annotations import is_annotation
from .call_inliner import InlineResult, inline_calls
from .hlo_pass_interface import HloPassWithContext
from .while_initializer_removal import induction_variable

_SKIP = "skip-simplify-while-loops_trip-count-one"


def remove_trip_count_one_loops(module: HloModule) -> InlineResult | None:
    """Replace each loop that runs once by its body, inlined; ``None`` when there was none."""
    loops = [i for c in module.computations for i in c.instructions
             if i.opcode is WHILE and _runs_once(i)]
    if not loops:
        return None
    for loop in loops:
        comp = loop.computation()
        call = HloInstruction(module.unique_name("call"), CALL, loop.shape)
        call.set_called_computations({"to_apply": [loop.called["body"][0]]})
        comp.insert_before(loop, call)
        call.operands = tuple(loop.operands)
        comp.replace_instruction(loop, call)
    module.calls_changed()
    return inline_calls(module)


def _runs_once(loop: HloInstruction) -> bool:
    found = induction_variable(loop)
    if found is None or found[1] != 1 or loop.frontend_attributes.get(_SKIP) == "true":
        return False
    return not any(_has_side_effect(c) for c in loop.called_computations)


def _has_side_effect(comp: HloComputation) -> bool:
    for instr in comp.instructions:
        if instr.opcode.has_side_effect:
            return True
        if instr.opcode is CUSTOM_CALL and not is_annotation(instr) and instr.attributes.get("custom_call_has_side_effect") == "true":
            return True
        if any(_has_side_effect(c) for c in instr.called_computations):
            return True
    return False


class WhileLoopSimplifier(HloPassWithContext):
    """XLA's ``WhileLoopSimplifier``, its trip-count-one rewrite: :func:`remove_trip_count_one_loops`.
    The inlined bodies' clones report as what they copy (the context's ``origin``)."""

    name = "while_loop_simplifier"

    def run(self, module: HloModule) -> bool:
        inlined = remove_trip_count_one_loops(module)
        if inlined is None:
            return False
        if self.context.inlined_calls is None:  # no CallInliner ran: these are the inlined calls
            self.context.inlined_calls = inlined.inlined_calls
        self.context.record_origin(inlined.origin)
        return True
