"""XLA's ``HostOffloadingPrepare`` (``xla/hlo/transforms/host_offloading_prepare.cc``, ``kElideMoveToHost``).

Host computations (``compute_on("device_host")``: a ``call`` whose ``_xla_compute_type`` is
``host``): XLA wraps the call into an async host
computation and ``HostOffloadingPrepare`` (``RemoveSurroundingMoveCustomCalls``)
removes every MoveToHost that feeds it directly, replacing all its uses by its
operand.  The host computation is then compiled on its own: host memory does not
flow through it (see :func:`is_host_computation_call`).
"""

from __future__ import annotations

from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import CALL
from ..annotations import COMPUTE_TYPE_ATTR, COMPUTE_TYPE_HOST, is_move_to_host
from .hlo_pass_interface import HloPassInterface


def is_host_computation_call(instr: HloInstruction) -> bool:
    """A ``call`` that JAX's ``compute_on("device_host")`` marked to run on the host."""
    return instr.opcode is CALL and instr.frontend_attributes.get(COMPUTE_TYPE_ATTR) == COMPUTE_TYPE_HOST


def elide_moves_into_host_calls(module: HloModule) -> list[str]:
    """MoveToHosts feeding a host computation call directly, removed (their names)."""
    elided: list[str] = []
    call_op = CALL
    for comp in module.computations:
        gone: set[HloInstruction] = set()
        # the opcode first: a call of is_host_computation_call per instruction was most of the pass
        for call in [i for i in comp.instructions if i.opcode is call_op and is_host_computation_call(i)]:
            for operand in list(call.operands):
                if is_move_to_host(operand) and operand.parent is comp and operand not in gone:
                    comp.replace_and_unhook(operand, operand.operands[0], gone)
                    elided.append(operand.name)
        comp.drop_removed(gone, release_names=False)
    return elided


class HostOffloadingPrepare(HloPassInterface):
    """XLA's ``HostOffloadingPrepare`` with ``kElideMoveToHost``: :func:`elide_moves_into_host_calls`."""

    name = "host_offloading_prepare"

    def run(self, module: HloModule) -> bool:
        return bool(elide_moves_into_host_calls(module))
