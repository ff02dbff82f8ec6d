"""HostOffloader (as shipped, see :mod:`...rules`) re-run in Python on a private copy of the module.

Why simulate instead of only walking: the pass rewrites the graph as it goes
(copies inserted before each walk's start, MoveToHosts removed, MoveToDevices
replaced by copies, memory spaces set), and every later walk and the final
dynamic-update-slice resolution read that rewritten graph (a successor already in
host memory is skipped, a DUS looks at the memory space of its *current*
operands).  Replaying the same rewrites on a copy is the simplest way to make the
same decisions.  :func:`run_host_offloader` is ``HostOffloader::RunImpl``; the
phases live in modules named after XLA's seams:

1. clear S(5) from every instruction (only the entry layout is input; :mod:`.rewrites`);
2. host ``async-start`` outputs (``HandleRedundantCopiesBackToHost``, :mod:`.host_compute`);
3. input streaming: entry parameters whose entry layout is S(5) (:mod:`.start_discovery`);
4. every MoveToHost, post-order from the entry, recursing into called computations
   (:mod:`.start_discovery`), each starting walks (:mod:`.walk`);
5. dynamic-update-slices (``HandleDynamicUpdateSlices``, :mod:`.host_compute`);
6. remove the remaining MoveToDevices; 7. the scheduling fix (copy of a DUS update
   that aliases a loop parameter; both :mod:`.rewrites`);
8. the verdict: what ends in host memory (:mod:`.verdict`).

Unlike XLA, the simulation does not stop at the first error: it records it (the
first one is what XLA reports), treats the offending output as if it were in
host memory, and carries on, so every offending output is found.  Each walk keeps
a visited set and the call graph is built once, so the whole run is linear in
the size of the module (XLA's own BFS has neither).
"""

from __future__ import annotations

from collections.abc import Sequence

from ....ir.computation import HloComputation
from ....ir.instruction import HloInstruction
from ....ir.module import HloModule
from ....ir.opcodes import ASYNC_START, FUSION
from ...annotations import is_host_async_start
from ...result import HostOffloadResult, PassFailure
from ..analysis_context import AnalysisContext
from ..hlo_pass_interface import HloPassWithContext
from ..host_offload_utils import XlaCheckFailure, XlaStatusError
from .host_compute import handle_dynamic_update_slices, handle_redundant_copies_back_to_host
from .rewrites import apply_scheduling_fix, clear_host_memory_space, remove_move_to_devices
from .start_discovery import handle_input_streaming, process_move_to_hosts
from .state import OffloaderRun, OffloadOptions
from .verdict import collect_host_positions, report_prior_failure, report_removed_by_dce

__all__ = ["HostOffloader", "OffloadOptions", "run_host_offloader"]


def _is_fusion_computation(run: OffloaderRun, comp: HloComputation) -> bool:
    return any(c.opcode is FUSION for c in run.ctx.graph.callers_of(comp))


def _handle_host_async_calls(run: OffloaderRun) -> None:
    for comp in run.ctx.module.computations:
        # The async-starts as the list is now (an opcode never changes), each tested as the loop reaches it;
        # the callers only where there is one (they change nothing: most computations have none).
        starts = [i for i in comp.instructions if i.opcode is ASYNC_START]
        if not starts or _is_fusion_computation(run, comp):
            continue
        for instr in starts:
            if is_host_async_start(instr):
                try:
                    handle_redundant_copies_back_to_host(run, instr)
                except (XlaCheckFailure, XlaStatusError) as e:
                    run.rec.fail_exc(e)


def run_host_offloader(module: HloModule, original: HloModule, options: OffloadOptions, *,
                       origin: dict[str, str] | None = None,
                       removed_by_dce: Sequence[HloInstruction] = (),
                       prior_failures: Sequence[PassFailure] = ()) -> HostOffloadResult:
    """``HostOffloader::RunImpl`` on ``module`` (a private copy: it is rewritten).

    ``original`` is the input module (names and source lines are reported from it;
    ``origin`` maps inlined clones to what they copy).  ``removed_by_dce`` are the
    instructions dead-code elimination removed first (a MoveToHost among them moves
    nothing); ``prior_failures`` are HostOffloadLegalize's, which stop XLA before this pass.
    """
    run = OffloaderRun.start(module, original, options, origin)
    report_removed_by_dce(run, list(removed_by_dce))
    for failure in prior_failures:
        report_prior_failure(run, failure)
    clear_host_memory_space(run)
    _handle_host_async_calls(run)
    handle_input_streaming(run)
    process_move_to_hosts(run)
    handle_dynamic_update_slices(run)
    remove_move_to_devices(run)
    apply_scheduling_fix(run)
    collect_host_positions(run)
    return run.res


class HostOffloader(HloPassWithContext):
    """XLA's ``HostOffloader`` (:func:`run_host_offloader`) with its options; its result -- the
    verdict, walks, vlog, with HostOffloadLegalize's record and the calls inlined before -- goes
    onto the context (``result``).  It reads there what the passes before it handed on: the
    input module, the clones' origins, what dead-code elimination removed, HostOffloadLegalize's
    failures (which stop XLA before this pass)."""

    name = "host_offloader"

    def __init__(self, options: OffloadOptions | None = None, context: AnalysisContext | None = None):
        super().__init__(context)
        self.options = options if options is not None else OffloadOptions()

    def run(self, module: HloModule) -> bool:
        ctx = self.context
        original = ctx.original if ctx.original is not None else module.clone()
        legalized = ctx.legalized
        result = run_host_offloader(module, original, self.options, origin=ctx.origin or None,
                                    removed_by_dce=ctx.dead,
                                    prior_failures=legalized.failures if legalized is not None else ())
        result.legalize = legalized
        if ctx.inlined_calls is not None:
            result.inlined_calls = ctx.inlined_calls
        ctx.result = result
        return bool(result.inserted or result.removed)

    def __repr__(self) -> str:
        return f"HostOffloader({self.options!r})"
