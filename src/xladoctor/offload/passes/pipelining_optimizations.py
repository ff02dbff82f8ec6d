"""libtpu's ``pipelining-optimizations``: a MoveToDevice read out of an ``opt-barrier`` moves in front of it.

Remat with an offloading policy (``jax.checkpoint`` with ``save_and_offload_only_these_names``
or ``offload_dot_with_no_batch_dims``, under ``jax.grad``) brings each offloaded residual back
behind the ``opt-barrier`` JAX puts between the forward and the backward pass::

    t = tuple(MoveToHost(x), w, g)   b = opt-barrier(t)   MoveToDevice(get-tuple-element(b), index=0)

libtpu 0.0.42.1's pipeline ``pipelining-optimizations``, the last before ``host_offloading``,
hands HostOffloadLegalize this instead (seen in the comparison with the compiler's
``before_host-offload-legalize`` dump, :mod:`xladoctor.oracle.prepass`: the pipeline's dump
``...after_pipelining-optimizations...`` is where it first shows)::

    t = tuple(MoveToDevice(MoveToHost(x)), w, g)   b = opt-barrier(t)   get-tuple-element(b), index=0

so the move to host is followed by its move back at once, before the barrier, and the barrier
carries a device value.  The pass is libtpu's own (not in openxla); modelled is the rewrite the
dumps show: for an ``opt-barrier`` of a ``tuple``, each ``get-tuple-element`` of it whose only
user is a MoveToDevice gets that MoveToDevice moved onto the tuple's operand at its index (a
new MoveToDevice of the operand in that slot; the old one replaced by the
``get-tuple-element``).
"""

from __future__ import annotations

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import GET_TUPLE_ELEMENT, OPT_BARRIER, TUPLE
from ..annotations import is_move_to_device
from .hlo_pass_interface import HloPassInterface


def hoist_moves_above_barriers(module: HloModule) -> list[tuple[str, str]]:
    """Move each MoveToDevice of an ``opt-barrier`` result in front of the barrier;
    ``(old, new)`` MoveToDevice names."""
    moved: list[tuple[str, str]] = []
    for comp in module.computations:
        barriers = [i for i in comp.instructions if i.opcode is OPT_BARRIER]
        for barrier in barriers:
            moved.extend(_hoist(module, comp, barrier))
    return moved


def _hoist(module: HloModule, comp: HloComputation, barrier: HloInstruction) -> list[tuple[str, str]]:
    packed = barrier.operands[0]
    if packed.opcode is not TUPLE:
        return []
    moved = []
    gone: set[HloInstruction] = set()
    for gte in list(barrier.users):
        if gte.opcode is not GET_TUPLE_ELEMENT or len(gte.users) != 1:
            continue
        move = next(iter(gte.users))
        if not is_move_to_device(move) or gte.tuple_index is None:
            continue
        slot = gte.tuple_index
        new = move.clone_with_new_operands(move.shape, [packed.operands[slot]], module.unique_name(move.name))
        comp.insert_before(packed, new)
        packed.replace_operand(slot, new)
        comp.replace_and_unhook(move, gte, gone)
        moved.append((move.name, new.name))
    comp.drop_removed(gone, release_names=False)
    return moved


class PipeliningOptimizations(HloPassInterface):
    """libtpu's ``pipelining_optimizations``, the rewrite modelled: :func:`hoist_moves_above_barriers`."""

    name = "pipelining_optimizations"

    def run(self, module: HloModule) -> bool:
        moved = hoist_moves_above_barriers(module)
        self.left_untouched = not moved  # only a hoist edits the module (a barrier's scan reads it)
        return bool(moved)
