"""HostOffloadLegalize on a move back to device that a ``cond``/``switch`` branch returns.

XLA's ``ProcessAnnotationForCopyMovement`` (``host_offload_legalize.cc``), on reaching a
MoveToDevice of the chain, looks at the root of the MoveToDevice's computation: when that
root is a tuple that reads the MoveToDevice and the computation is not the entry, its one
caller must be a while (the pass then rewires the loop's root), else the pass returns
``INVALID_ARGUMENT: Expected computation "C" to be called only by one caller and that
caller to be a While. There are N caller(s): [...]``, C being the computation of the
chain's top (where the walk started, after walking up from a dynamic-update-slice).

A ``jax.lax.cond``/``switch`` branch that ends in ``device_put(device_put(v, Host),
Device)`` hits it: before this pass ConditionalCanonicalizer (:mod:`..conditional_canonicalizer`,
a pre-pass of the pipeline) makes an array-shaped conditional tuple-shaped, so the branch's
root becomes ``tuple(MoveToDevice)`` (seen in libtpu 0.0.42.1's ``before_host-offload-legalize``
dump, where the caller is the canonicalizer's ``cond.1.clone``); a tuple-shaped conditional's
branch has a tuple root already.  The failure is read from that modelled structure: the
pass' check of a tuple root, once per chain.  Measured with the
real compiler (tests/test_offload_cond_branch.py): cond, switch, a tuple-shaped cond, a
cond in a scan or a while with a runtime predicate, a reshape or slice on host before the
move back all fail so; the same round trip whose value is used in the branch (``+ 1``, a
slice on device), branches that end on host (no move back), and a move of the
conditional's result compile.

One case is left to a warning: a conditional in a loop counting from 0 to a constant
whose selector is ``counter > 0``.  ``fori_loop(0, n, lambda i, v: cond(i > 0, ...))``
compiles (libtpu's loop simplification removes the conditional, which this model of the
pre-passes does not do); every other selector tried fails (``i >= 1``, ``i > 1``,
``i != 0``, ``i == 0``, ``i % 2 == 0``, ``i > 0`` from 1 or to a runtime bound...), so
the rule is no wider than what was seen.
"""

from __future__ import annotations

from ....base.labels import label
from ....ir.instruction import HloInstruction
from ....ir.opcodes import COMPARE, CONDITIONAL, CONVERT, TUPLE, WHILE
from ....ir.tpu_layouts import LIBTPU
from ...kinds import Status
from ...loop_trips import counter_slot, initial, integer, trip_count
from ..host_offload_utils import XlaStatusError
from .state import LegalizeState


def branch_root_failure(lz: LegalizeState, mtd: HloInstruction, start: HloInstruction,
                        callers: list[HloInstruction]) -> XlaStatusError | None:
    """The pass' error for a MoveToDevice a conditional's branch returns, or None (warned instead)."""
    conds = [c for c in callers if c.opcode is CONDITIONAL]
    xla = lz.callers_text(start.computation(), callers)
    if not conds:
        return XlaStatusError(Status.INVALID_ARGUMENT, xla, mtd)
    cond, branch = conds[0], mtd.computation()
    counter = _loop_counter_in_selector(lz, cond)
    if counter is not None:
        lz.res.warnings.append(label("offload.legalize_branch_root_loop", libtpu=LIBTPU, mtd=lz.rn(mtd.name),
                                     cond=lz.rn(cond.name), counter=lz.rn(counter.name)))
        return None
    return XlaStatusError(Status.INVALID_ARGUMENT, label(
        "offload.legalize_branch_root", xla=xla, libtpu=LIBTPU, mtd=lz.rn(mtd.name), branch=branch.name,
        cond=lz.rn(cond.name)), mtd)


def _loop_counter_in_selector(lz: LegalizeState, cond: HloInstruction) -> HloInstruction | None:
    """The counter read when ``cond``'s selector is ``counter > 0`` in a loop counting from 0 to a constant.

    The one selector seen to let such a conditional go (``fori_loop(0, 3)`` and ``(0, 5)``
    with ``i > 0`` compile, whichever branch moves); ``i >= 1``, ``i > 1``, ``i != 0``,
    ``i == 0``, ``i == 2``, ``i < 2``, ``i % 2 == 0``, ``i > 2`` from 2, ``i > 0`` from 1 or to
    a runtime bound, and a scanned ``xs > 0`` fail."""
    body = cond.computation()
    callers = lz.graph.callers_of(body)
    if len(callers) != 1 or callers[0].opcode is not WHILE or not cond.operands:
        return None
    loop, root = callers[0], body.root
    selector = cond.operands[0]
    if selector.opcode is CONVERT:
        selector = selector.operands[0]
    if root is None or root.opcode is not TUPLE or selector.opcode is not COMPARE or \
            selector.attributes.get("direction") != "GT" or len(selector.operands) != 2:
        return None
    counter, bound = selector.operands
    k = counter_slot(counter, root)
    if k is None or integer(bound) != 0 or integer(initial(loop, k)) != 0 or trip_count(loop) is None:
        return None
    return counter
