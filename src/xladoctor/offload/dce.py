"""``HloDCE`` as XLA runs it before HostOffloader: unused instructions are gone by then.

Why it matters: the walks look at every user of a host value, so a dead user changes
decisions (a dead ``negate`` of a dynamic-slice's result makes the slice host compute
instead of the end of an offload; a MoveToHost nobody reads starts no walk).  The real
TPU compiler (libtpu 0.0.42.1) agrees only once those are removed.

What counts as dead is XLA's rule: no users, not a computation root, no side effect.
Placement annotations are removable although JAX marks ``annotate_device_placement``
``custom_call_has_side_effect=true``: XLA rewrites them into MoveToHost/MoveToDevice
custom calls without that flag first.
"""

from __future__ import annotations

from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.opcodes import HloOpcode
from .annotations import is_annotation

_SIDE_EFFECTING = frozenset({
    HloOpcode.PARAMETER, HloOpcode.SEND, HloOpcode.SEND_DONE, HloOpcode.RECV, HloOpcode.RECV_DONE,
    HloOpcode.INFEED, HloOpcode.OUTFEED, HloOpcode.RNG, HloOpcode.AFTER_ALL, HloOpcode.ASYNC_START, HloOpcode.ASYNC_DONE,
    HloOpcode.ALL_REDUCE, HloOpcode.ALL_GATHER, HloOpcode.ALL_TO_ALL, HloOpcode.COLLECTIVE_PERMUTE,
    HloOpcode.REDUCE_SCATTER, HloOpcode.WHILE, HloOpcode.CONDITIONAL, HloOpcode.CALL,
})
"""Kept even when unused: side effects (collectives, channels, RNG state) and control flow,
whose callees may have side effects (XLA looks inside; keeping them is the safe side)."""


def _removable_kind(instr: HloInstruction) -> bool:
    if instr.opcode is HloOpcode.CUSTOM_CALL:
        return is_annotation(instr) or instr.attributes.get("custom_call_has_side_effect") != "true"
    return True


def remove_dead_code(module: HloModule) -> list[HloInstruction]:
    """Remove dead instructions from every computation of ``module`` (a private copy);
    returns them, in removal order (users before their operands)."""
    removed: list[HloInstruction] = []
    for comp in module.computations:
        # Dead: unused and removable, or used only by dead instructions (users are seen
        # before their operands in reverse post order).
        dead: set[HloInstruction] = set()
        if not any(not i.users and i is not comp.root and i.opcode not in _SIDE_EFFECTING and _removable_kind(i)
                   for i in comp.instructions):
            continue  # nothing unused: nothing dead
        for instr in reversed(comp.post_order()):
            # (A live user settles most instructions at once: test it before the kind.)
            if instr.users and not all(u in dead for u in instr.users):
                continue
            if instr is comp.root or instr.opcode in _SIDE_EFFECTING or not _removable_kind(instr):
                continue
            dead.add(instr)
            removed.append(instr)
        if dead:
            # Without reordering the survivors' users: the real compiler (HLO or StableHLO
            # in, rebuilt as HLO) never sees the dead code, so user order is as if it never
            # existed; a swap-removal (HloDCE on a live module) picks other walks first.
            comp.remove_unused(dead)
    return removed
