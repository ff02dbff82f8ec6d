"""Modules where HostOffloader has nothing to start from: its answer without running it.

Why: the pass (and HostOffloadLegalize before it) only acts from starting points:
MoveToHost/MoveToDevice annotations, entry parameters or outputs whose entry layout
puts them in host memory, host ``async-start``s and ``compute_on`` host calls
(``HostOffloader::RunImpl``, ``FindStartingInstructionsOfHostMemoryOffload``).
Every walk, rewrite and verdict flows from those, so a module with none of them
compiles through the pass unchanged, whatever its size.  Copying it, inlining its
calls, removing its dead code and walking it would only cost time and memory (most
of the analysis of a call-heavy jax program with no offloading).

What the full analysis still reports for such a module is which ``call``s XLA's
CallInliner inlines (``inlined_calls``); :func:`inlined_call_names` lists them in the
order :mod:`.passes.call_inliner` does, without inlining.  The test ``test_offload_no_start``
compares this short cut with the full analysis on every module of the test corpus.
"""

from __future__ import annotations

from ..ir.computation import HloComputation
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.opcodes import CALL, CUSTOM_CALL, HloOpcode
from ..ir.shape import DEFAULT_MEMORY_SPACE
from .annotations import ALLOCATE_BUFFER, ANNOTATION_TARGETS, COMPUTE_TYPE_ATTR, HOST_THREAD
from .passes.call_inliner import computation_post_order, is_inlineable_call

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

_STARTING_TARGETS: Final = ANNOTATION_TARGETS | {ALLOCATE_BUFFER}
_ASYNC: Final = frozenset({HloOpcode.ASYNC_START, HloOpcode.ASYNC_UPDATE, HloOpcode.ASYNC_DONE})
_NEVER_DEAD: Final = frozenset({HloOpcode.CALL, HloOpcode.WHILE, HloOpcode.CONDITIONAL})
"""Callers dead-code elimination never removes (:mod:`.passes.hlo_dce`): what they call stays reachable."""


def has_no_offload_start(module: HloModule) -> bool:
    """No annotation, no host memory in the entry layout, nothing running on the host.

    Conservative on purpose: anything that could make the pass (or its pre-passes) act
    sends the module through the full analysis.
    """
    layout = module.entry_layout()
    for shape in (*layout.parameters, layout.result):
        if any(leaf.layout is not None and leaf.layout.memory_space != DEFAULT_MEMORY_SPACE
               for _, leaf in shape.leaves()):
            return False
    # The entry first: the answer does not depend on the order (each test only reads), and a jax
    # module's annotations stand in its entry, which comes last (jax_entry: 10k reducers before it).
    entry = module.entry
    if entry is not None and not _all_inert(entry):
        return False
    for comp in module.computations:  # noqa: SIM110  (a loop: no generator frame per computation)
        if comp is not entry and not _all_inert(comp):
            return False
    return True


def _all_inert(comp: HloComputation) -> bool:
    """Whether nothing of ``comp`` could start an offload (:func:`has_no_offload_start`)."""
    if comp.execution_thread == HOST_THREAD:
        return False
    for instr in comp.instructions:  # noqa: SIM110  (a loop: no generator frame per instruction)
        if not _inert(instr):
            return False
    return True


def _inert(instr: HloInstruction) -> bool:
    op = instr.opcode
    if op is CUSTOM_CALL and instr.custom_call_target in _STARTING_TARGETS:
        return False
    if op in _ASYNC:
        return False
    extra = instr._extra  # frontend_attributes read from its store, as the property reads it (no call each)
    return extra is None or COMPUTE_TYPE_ATTR not in extra.frontend_attributes


def inlined_call_names(module: HloModule) -> list[str] | None:
    """The ``call``s :mod:`.passes.call_inliner` would inline, in its order (callees first, then text
    order); ``None`` when that cannot be told without running the pre-passes.

    The pre-passes remove dead code first, which can make a computation unreachable; only
    computations reached through callers that are never dead (``call``, ``while``,
    ``conditional``) are sure to stay, so a ``call`` anywhere else gives ``None``.
    """
    names: list[str] = []
    sure = _kept_computations(module)
    for comp in computation_post_order(module):
        calls = [i for i in comp.instructions if i.opcode is CALL]
        if calls and comp not in sure:
            return None
        names.extend(c.name for c in calls if is_inlineable_call(c, set()))
    return names


def _kept_computations(module: HloModule) -> set[HloComputation]:
    """Computations reached from the entry through callers dead-code elimination keeps."""
    assert module.entry is not None
    kept = {module.entry}
    stack = [module.entry]
    while stack:
        comp = stack.pop()
        for instr in comp.instructions:
            if instr.opcode in _NEVER_DEAD:
                for callee in instr.called_computations:
                    if callee not in kept:
                        kept.add(callee)
                        stack.append(callee)
    return kept
