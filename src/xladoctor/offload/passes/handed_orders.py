"""Post orders one pass hands to the next: a computation's walk not made twice (issue 36).

A train step's entry is walked in post order six times a run (~0.7 ms each of a 34 ms analysis,
interpreted), and no two of those walks see the same computation: a pass that changes nothing
between two walkers is rare.  One that changed it can still know the order it left: HloCSE walks a
computation in post order and merges, and the post order of what it leaves is its walk's order
without the instructions it merged away -- when

* no kept instruction had no users when a merge gave it some (one without users is where a walk
  starts, in list order; with users it is reached from them instead, possibly later), and
* the computation has no control edges (a removed instruction's control predecessors are walked
  before it; another's control edge to a removed one is not redirected to the one kept).

Why, without control edges: a merge replaces ``r`` by the equal ``k`` that the walk met first, so
``k`` was finished before the walk entered ``r`` (were ``k`` below ``r``, the merged computation,
whose every redirected edge points to an instruction earlier in the walk, would have a cycle), so
``r``'s operands -- ``k``'s -- were too and the walk finished ``r`` where it entered it; after the
merge that place reaches ``k``, finished, and nothing else moves.  The instructions without users
are those before but ``r`` (its operands keep ``k`` as a user).  An instruction's users' order
is not read by the walk.  ``tests/test_handed_orders.py`` compares the handed orders with fresh
walks on every corpus module CSE changes, and the pipeline does at every pass where it lints.

The pipeline (:class:`.hlo_pass_pipeline.HloPassPipeline`) gives a pass's orders to the next pass
it runs and keeps them past passes that left the module untouched; any other pass ends them.
"""

from __future__ import annotations

from itertools import filterfalse

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from .hlo_dce import has_control_edges

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import TypeAlias

    HandedOrders: TypeAlias = dict[HloComputation, tuple[list[HloInstruction], set[HloInstruction]]]
    """Per computation, a walk's post order and the instructions since removed from it."""


def post_order(comp: HloComputation, handed: HandedOrders | None) -> list[HloInstruction]:
    """``comp.post_order()``: the order handed on for ``comp`` where there is one and ``comp`` has
    no control edges (read here, only for an order that is used), else a fresh walk."""
    if handed is not None:
        walk = handed.get(comp)
        if walk is not None and not has_control_edges(comp):
            order, gone = walk
            return list(filterfalse(gone.__contains__, order)) if gone else order
    return comp.post_order()


def stale_orders(handed: HandedOrders) -> list[str]:
    """The computations whose handed order is not their post order now (the pipeline's lint)."""
    stale = []
    for comp in handed:
        order = post_order(comp, handed)
        fresh = comp.post_order()
        if len(order) != len(fresh) or any(a is not b for a, b in zip(order, fresh)):
            stale.append(comp.name)
    return stale
