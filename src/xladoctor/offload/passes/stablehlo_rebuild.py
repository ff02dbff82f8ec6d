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
        comp.instructions = comp.post_order()  # without dead code: the root's DFS, as built
        comp.sort_users_by_position()
    return dead


class StablehloRebuild(HloPassWithContext):
    """The rebuild as a pass: reads the dead code the copy left out from the context
    (``left_out``) and puts what it removed there (``dead``)."""

    name = "stablehlo_rebuild"

    def run(self, module: HloModule) -> bool:
        dead = self.context.dead
        before = len(dead)
        rebuild_as_compiled(module, self.context.left_out, into=dead)  # no list of its own copied there
        return len(dead) != before
