"""``analyze_host_offload``: the public entry point of the E1200 analysis."""

from __future__ import annotations

import gc
from dataclasses import dataclass

from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.verify import verify_module
from .clone import clone_module
from .dce import remove_dead_code
from .inline import InlineResult, looks_pre_optimization
from .inline import inline_calls as _inline_calls
from .later_failures import predict_later_failures
from .legalize import LegalizeResult, run_legalize
from .no_start import has_no_offload_start, inlined_call_names
from .prepare import (
    elide_moves_into_host_calls,
    merge_duplicate_annotations,
    rebuild_as_compiled,
    remove_sharding_markers,
)
from .result import HostOffloadResult
from .rules import SHIPPED
from .rules import rule as _rule
from .simulator import OffloadOptions, run_host_offloader


def analyze_host_offload(module: HloModule, rule: str = SHIPPED, *, disable_host_compute: bool = False,
                         allow_h2h_copy: bool = False, inline_calls: bool | None = None,
                         legalize: bool = True) -> HostOffloadResult:
    """Predict what XLA's HostOffloader does with ``module``; ``module`` is not modified.

    Raises :class:`~xladoctor.errors.VerifyError` for a module XLA's verifier would
    reject (see :mod:`xladoctor.ir.verify`).

    ``rule`` (see :mod:`.rules`): ``"shipped"``, the default, is released XLA (libtpu
    0.0.42.1, jaxlib 0.10.2): any entry output reached by host memory whose layout is
    not host memory is E1200.  ``"unmerged-pr-36525"`` is the never-merged variant in
    which that is an error only for a customized layout (tiles, index/pointer type,
    element size), and otherwise the output silently becomes host memory (reported in
    ``outputs_moved_to_host`` and ``warnings``).  ``disable_host_compute`` /
    ``allow_h2h_copy`` mirror the XLA debug options of the same meaning.

    ``inline_calls`` first does what XLA's compile does before HostOffloader runs:
    CallInliner and tuple folding (:mod:`.inline`), removal of sharding markers
    (:mod:`.prepare`).  ``None`` (the default) does so when the module looks
    pre-optimization (not ``is_scheduled=true``), e.g. what
    ``jax.jit(f).lower(...).as_text("hlo")`` prints; ``False`` runs the pass on the
    module as given, as XLA's HostOffloader unit tests do.  In both cases CSE of
    placement annotations, the removal of MoveToHosts feeding ``compute_on`` host
    calls (:mod:`.prepare`) and dead-code elimination (:mod:`.dce`) come first.

    ``legalize`` first runs XLA's HostOffloadLegalize (see :mod:`.legalize`), which XLA
    always runs right before HostOffloader: layout-changing copies leave the offload
    chains.  ``False`` skips it (to see what HostOffloader alone would do).

    A module nothing can start an offload in (:mod:`.no_start`) is answered without
    copying or rewriting it: same result, at the cost of one look at each instruction.
    """
    if module.entry is None or module.entry_computation_layout is None:
        raise ValueError("module has no entry computation")
    verify_module(module)  # what XLA's verifier rejects never reaches the pass either
    options = OffloadOptions(_rule(rule).name, disable_host_compute, allow_h2h_copy)
    if inline_calls is None:
        inline_calls = looks_pre_optimization(module)
    if has_no_offload_start(module):
        unchanged = _unchanged_by_the_pass(module, options, inline_calls, legalize)
        if unchanged is not None:
            return unchanged
    return _full_analysis(module, options, inline_calls, legalize)


def _full_analysis(module: HloModule, options: OffloadOptions, inline_calls: bool,
                   legalize: bool) -> HostOffloadResult:
    """The pre-passes, HostOffloadLegalize and HostOffloader on a private copy of ``module``."""
    # The private copy allocates an object per instruction (more with inlining); Python's
    # cyclic collector, triggered by those allocations, rescans the whole (cyclic: parent
    # pointers) IR each time and makes the run superlinear.  Nothing here needs it mid-run.
    collecting = gc.isenabled()
    gc.disable()
    try:
        work = clone_module(module)
        prepared = _prepare(work, inline_calls)
        legalized = run_legalize(work, lambda n: prepared.origin.get(n, n)) if legalize else None
        result = run_host_offloader(work, module, options, origin=prepared.origin or None,
                                    removed_by_dce=prepared.dead,
                                    prior_failures=legalized.failures if legalized is not None else ())
        result.legalize = legalized
    finally:
        if collecting:
            gc.enable()
    if prepared.inlined is not None:
        result.inlined_calls = prepared.inlined.inlined_calls
    predict_later_failures(module, result)
    return result


def _unchanged_by_the_pass(module: HloModule, options: OffloadOptions, inline_calls: bool,
                           legalize: bool) -> HostOffloadResult | None:
    """The result for a module nothing starts an offload in (:mod:`.no_start`), without
    copying or rewriting it; None when the inlined calls cannot be listed that way."""
    names = inlined_call_names(module) if inline_calls else []
    if names is None:
        return None
    result = HostOffloadResult(rule=options.rule)
    result.legalize = LegalizeResult() if legalize else None
    result.inlined_calls = names
    return result


@dataclass
class _Prepared:
    """What the passes XLA runs before HostOffloadLegalize left behind."""

    dead: list[HloInstruction]
    """Instructions dead-code elimination removed, in removal order."""
    inlined: InlineResult | None
    origin: dict[str, str]
    """Inlined clone -> the input instruction it copies."""


def _prepare(work: HloModule, inline_calls: bool) -> _Prepared:
    """The passes XLA's compile runs before the offloading ones, in the real compiler's order.

    User lists come out of these rewrites in the order XLA's would (CSE before tuple
    folding, as the real compiler showed).
    """
    dead_first: list[HloInstruction] = []
    if inline_calls:  # what XLA's compile does before the pass (pre-optimisation modules)
        dead_first = rebuild_as_compiled(work)
        remove_sharding_markers(work)
    merge_duplicate_annotations(work)
    inlined = _inline_calls(work) if inline_calls else None
    merge_duplicate_annotations(work)
    elide_moves_into_host_calls(work)
    dead = dead_first + remove_dead_code(work)
    return _Prepared(dead, inlined, inlined.origin if inlined else {})
