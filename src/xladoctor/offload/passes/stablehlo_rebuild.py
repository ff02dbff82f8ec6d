"""The compile's rebuild of HLO from StableHLO: ``gte(tuple)`` folds, dead code goes, users in op order.

Not an XLA pass but where libtpu 0.0.42.1's compile starts (the pipeline's ``stablehlo_rebuild``):
the compiler gets the module as StableHLO (JAX's lowering, or HLO text converted), where
``get-tuple-element(tuple(...))`` pairs fold (TupleSimplifier's rewrite,
:func:`.tuple_simplifier.forward_tuple_elements`) and dead code goes, and builds HLO from it as
the results need it: a DFS from the root, operands first (whatever order the ops are written
in: ``negate`` written before ``add`` in ``return add(h, h), negate(h)`` is built after it), so
every value's users come in that post order, whatever rewrites produced them
(:func:`rebuild_as_compiled`).  The real compiler disagreed with a model that ran HostOffloader
on the module as lowered; this is one of the rewrites that made the two agree.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.operands import WideOperands
from .hlo_dce import remove_dead_code
from .hlo_pass_interface import HloPassWithContext
from .tuple_simplifier import forward_tuple_elements


def rebuild_as_compiled(module: HloModule, left_out: Mapping[str, list[HloInstruction]] | None = None,
                        into: list[HloInstruction] | None = None) -> list[HloInstruction]:
    """Fold ``gte(tuple)``, drop dead code, and order users by position (see the module doc);
    returns the dead instructions removed, appended to ``into`` where given.  ``left_out``: the
    dead code the copy already left out, by computation (:func:`.hlo_dce.remove_dead_code`)."""
    forward_tuple_elements(module)
    dead = remove_dead_code(module, left_out, into=into)
    for comp in module.computations:
        if _leaves_then_root(comp.instructions, comp.root):
            continue  # a reducer: its list is its post order and every user is in place already
        comp.instructions = comp.post_order()  # without dead code: the root's DFS, as built
        comp.sort_users_by_position()
    return dead


def _leaves_then_root(instructions: list[HloInstruction], root: HloInstruction | None) -> bool:
    """Whether ``instructions`` are leaves (no operands, no control edges) and then ``root``, whose
    operands are those leaves in list order, each once (``add(x, y)`` of two parameters: a train
    step's ~150 reducers).  Then the rebuild changes nothing: the root is the one instruction
    without users, so the DFS starts there and finishes each leaf as it meets it, in the order of
    the root's operands, then the root -- the list as it is; and each leaf's one user is the root
    (kept bare), nothing to sort.  Asked before a walk and a sort per computation (~4 us each)."""
    n = len(instructions)
    if n > 4 or root is None or instructions[-1] is not root:
        return False  # (a bound: the test is for the small computations a walk costs most on)
    stored = root._operands
    if type(stored) is tuple:
        ops: tuple[HloInstruction, ...] = stored
    elif type(stored) is WideOperands:
        return False  # (wide: never a small computation's)
    else:
        ops = (stored,)  # type: ignore[assignment]  # the one operand, kept bare
    if len(ops) != n - 1:
        return False
    if (extra := root._extra) is not None and extra.control_predecessors:
        return False
    for k in range(n - 1):  # a loop, not any() of a generator: no frame of its own
        leaf = instructions[k]
        # (no operands: the empty tuple; an instruction or a wide list is never falsy)
        if ops[k] is not leaf or leaf._operands or ((extra := leaf._extra) is not None and extra.control_predecessors):
            return False
    return True


class StablehloRebuild(HloPassWithContext):
    """The rebuild as a pass: reads the dead code the copy left out from the context
    (``left_out``) and puts what it removed there (``dead``)."""

    name = "stablehlo_rebuild"

    def run(self, module: HloModule) -> bool:
        dead = self.context.dead
        before = len(dead)
        rebuild_as_compiled(module, self.context.left_out, into=dead)  # no list of its own copied there
        return len(dead) != before
