"""HostOffloadLegalize, as XLA runs it right before HostOffloader, on the simulation's private copy.

Why: a layout-changing ``copy`` (a transpose in memory) inside an offload chain would
run on host memory.  XLA's HostOffloadLegalize moves each such copy out of the host
segment before HostOffloader walks it: down past bitcasts, slices and dynamic-slices
to just after the matching MoveToDevice (the values in between take the layout from
before the copy), or, when the value never comes back to the device (it reaches the
entry root or a host computation), up above its MoveToHost.  HostOffloader then sees
chains without layout changes, so where host memory ends (and whether a copy is host
compute) depends on this pre-pass.

The model follows ``xla/hlo/transforms/host_offload_legalize.cc`` (openxla/xla @
1548533, the version with the host-``async-start`` rules; its test file
``host_offload_legalize_test.cc`` @ 73d9734):

* starting points: every MoveToHost, and entry parameters whose entry layout is S(5)
  (array parameters only: tuple parameters are a TODO in XLA), computations in call
  post-order (callees first), instructions in text order;
* from a MoveToHost feeding a dynamic-update-slice (through bitcast/reshape/copy), the
  chain starts at the buffer the DUS writes into (walked up through loops to the
  broadcast, AllocateBuffer, MoveToHost or entry parameter);
* one walk down the chain collects the ``copy`` instructions in it, and rewires a
  while body's root tuple that would carry a MoveToDevice'd value back into the same
  loop slot it was read from;
* copies are processed last first: moved down (``MoveCopyDown``) when every path from
  them comes back to the device, else swapped above their MoveToHost when they read it
  directly, else left alone.

Outcomes XLA does not print (VLOG only) are kept as notes: a chain XLA does not
recognise (``Unrecognized user name: tanh``, ``Expected a constant as operand``, ...)
is skipped or cut short, silently.  The few errors that *are* returned (and fail the
compilation) or CHECK-crash are reported as failures.  Deviations, on purpose:

* sharding markers (``Sharding``, ``xla.sdy.*``, gone by the time XLA runs this pass)
  are passed through, as the HostOffloader model does;
* ``annotate_device_placement`` spellings count as MoveToHost/MoveToDevice, since
  ``ConvertMemoryPlacementToInternalAnnotations`` runs first in XLA;
* the walks keep visited sets and the call graph is built once (XLA's have neither;
  the decisions are the same, the cost is linear);
* when the "should the copy move down" search meets a ``get-tuple-element`` with an
  empty shape index (a tuple-shaped non-tuple op such as ``sort``), it does not follow
  it: XLA's test ``MoveCopyDownWithSort`` expects the copy to move, which rules out
  both a crash and a stop there (**inference**: the helper's newest source was not
  readable).
"""

from __future__ import annotations

from collections.abc import Callable

from ....ir.instruction import HloInstruction
from ....ir.module import HloModule
from ....ir.opcodes import DYNAMIC_UPDATE_SLICE
from ...annotations import is_move_to_host
from ...kinds import CopyMove, LegalizePhase
from ..hlo_pass_interface import HloPassWithContext
from ..host_offload_utils import XlaCheckFailure, XlaStatusError
from .chain import (
    collect_copies,
    find_dus_from_annotation,
    find_starting_instructions_of_host_memory_offload,
    find_to_host_annotation_to_update,
    walk_up_memory_offload,
)
from .copies import move_copy_down, move_copy_up, should_move_copy_down
from .state import LegalizeMove, LegalizeNote, LegalizeResult, LegalizeState, Unrecognized, Value

__all__ = ["HostOffloadLegalize", "LegalizeMove", "LegalizeNote", "LegalizeResult", "run_legalize"]


class HostOffloadLegalize(HloPassWithContext):
    """XLA's ``HostOffloadLegalize``: :func:`run_legalize`, reporting in the names the context
    traces clones back to (``origin``); what it did goes onto the context (``legalized``)."""

    name = "host_offload_legalize"

    def run(self, module: HloModule) -> bool:
        self.context.legalized = run_legalize(module, self.context.rename)
        return self.context.legalized.changed


def run_legalize(module: HloModule, rename: Callable[[str], str] | None = None) -> LegalizeResult:
    """Run HostOffloadLegalize on ``module`` in place (a private copy); what it did."""
    return _run(LegalizeState(module, rename))


def _run(lz: LegalizeState) -> LegalizeResult:
    starts = find_starting_instructions_of_host_memory_offload(lz)
    lz.res.starts = [lz.rn(s.name) for s in starts]
    for instr in starts:
        if instr in lz.processed or instr in lz.removed:
            continue
        lz.start_name = lz.rn(instr.name)
        try:
            if process_annotation_for_copy_movement(lz, instr):
                lz.res.changed = True
        except (XlaCheckFailure, XlaStatusError) as e:
            # XLA stops the compilation here; the graph is left as it was at that point.
            lz.rec.fail_exc(e)
            break
    lz.purge()
    return lz.res


def process_annotation_for_copy_movement(lz: LegalizeState, instr: HloInstruction) -> bool:
    """``ProcessAnnotationForCopyMovement``."""
    if instr.is_root or not instr.users:
        return False
    start = find_dus_from_annotation(next(iter(instr.users)))
    if start.opcode is not DYNAMIC_UPDATE_SLICE:
        start = instr
    current: Value = (start, -1)
    lz.processed.add(start)
    if start.opcode is DYNAMIC_UPDATE_SLICE:
        seen = {current}
        while True:
            try:
                up = walk_up_memory_offload(lz, current)
            except Unrecognized as e:
                lz.note(LegalizePhase.WALK_UP, e.message, e.instruction)
                return False
            if up == current or up in seen:
                break
            seen.add(up)
            current = up
            if current[0].opcode is DYNAMIC_UPDATE_SLICE and \
                    find_to_host_annotation_to_update(current[0].operands[1]) is None:
                raise XlaCheckFailure(
                    f"null dereference (process crash): dynamic-update-slice {lz.rn(current[0].name)} "
                    "above the chain has no MoveToHost on its update (inference)", current[0])
    copies = collect_copies(lz, current)
    if copies is None or not copies:
        return False
    changed = False
    for copy, index in reversed(copies):
        if copy in lz.removed:
            continue
        if should_move_copy_down(lz, copy):
            move_copy_down(lz, (copy, index))
            changed = True
        elif copy.operands and is_move_to_host(copy.operands[0]):
            move_copy_up(lz, copy)
            changed = True
        else:
            lz.res.moves.append(LegalizeMove(lz.rn(copy.name), CopyMove.KEPT, lz.start_name))
    return changed
