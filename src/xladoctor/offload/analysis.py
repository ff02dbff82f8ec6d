"""``analyze_host_offload``: the public entry point of the E1200 analysis."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet

from ..base.collector import paused
from ..base.errors import VerifyError
from ..ir.computation import HloComputation
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.opcodes import CUSTOM_CALL
from ..ir.verify import verify_module
from .annotations import MOVE_TO_DEVICE, MOVE_TO_HOST
from .clone import clone_module
from .kinds import Status
from .later_failures import predict_later_failures
from .no_start import has_no_offload_start, inlined_call_names
from .passes.analysis_context import DeadSteps, DeadStepsInexact
from .passes.call_inliner import looks_pre_optimization
from .passes.dead_steps import find_dead_steps, stand_in_calls
from .passes.hlo_dce import dead_code, dead_code_counted, has_control_edges
from .passes.host_offload_legalize import LegalizeResult
from .passes.host_offloader import OffloadOptions
from .passes.tuple_simplifier import folds_tuples
from .pipeline import PipelineConfig, offload_pipeline, pass_names
from .result import HostOffloadResult
from .rules import SHIPPED
from .rules import rule as _rule


def analyze_host_offload(module: HloModule, rule: str = SHIPPED, *, disable_host_compute: bool = False,
                         allow_h2h_copy: bool = False, inline_calls: bool | None = None,
                         legalize: bool = True, platform: str = "tpu") -> HostOffloadResult:
    """Predict what XLA's HostOffloader does with ``module``; ``module`` is not modified.

    Raises :class:`~xladoctor.base.errors.VerifyError` for a module XLA's verifier would
    reject (see :mod:`xladoctor.ir.verify`).

    ``rule`` (see :mod:`.rules`): ``"shipped"``, the default, is released XLA (libtpu
    0.0.42.1, jaxlib 0.10.2): any entry output reached by host memory whose layout is
    not host memory is E1200.  ``"unmerged-pr-36525"`` is the never-merged variant in
    which that is an error only for a customized layout (tiles, index/pointer type,
    element size), and otherwise the output silently becomes host memory (reported in
    ``outputs_moved_to_host`` and ``warnings``).  ``disable_host_compute`` /
    ``allow_h2h_copy`` mirror the XLA debug options of the same meaning.

    ``platform`` (``tpu``, ``cuda``...) leaves out the pre-passes only libtpu runs
    (:attr:`.pipeline.PipelineConfig.libtpu`).

    ``inline_calls`` first does what XLA's compile does before HostOffloader runs:
    CallInliner and tuple folding (:mod:`.passes.call_inliner`), removal of sharding markers
    (:mod:`.passes.sharding_remover`).  ``None`` (the default) does so when the module looks
    pre-optimization (not ``is_scheduled=true``), e.g. what
    ``jax.jit(f).lower(...).as_text("hlo")`` prints; ``False`` runs the pass on the
    module as given, as XLA's HostOffloader unit tests do.  In both cases CSE of
    placement annotations, the removal of MoveToHosts feeding ``compute_on`` host
    calls (:mod:`.passes.host_offloading_prepare`) and dead-code elimination (:mod:`.passes.hlo_dce`) come first.

    ``legalize`` first runs XLA's HostOffloadLegalize (see :mod:`.passes.host_offload_legalize`), which XLA
    always runs right before HostOffloader: layout-changing copies leave the offload
    chains.  ``False`` skips it (to see what HostOffloader alone would do).

    A module nothing can start an offload in (:mod:`.no_start`) is answered without
    copying or rewriting it: same result, at the cost of one look at each instruction.
    """
    if module.entry is None or module.entry_computation_layout is None:
        raise ValueError("module has no entry computation")
    # Every step allocates objects per instruction (the private copy, more with inlining) and
    # frees almost none until the end; Python's cyclic collector, triggered by those
    # allocations, would rescan the whole (cyclic: parent pointers) IR each time and make
    # the run superlinear.  Nothing here needs it mid-run; it resumes for the caller.
    with paused():
        return _analyse(module, rule, disable_host_compute, allow_h2h_copy, inline_calls, legalize, platform)


def _analyse(module: HloModule, rule: str, disable_host_compute: bool, allow_h2h_copy: bool,
             inline_calls: bool | None, legalize: bool, platform: str) -> HostOffloadResult:
    options = OffloadOptions(_rule(rule).name, disable_host_compute, allow_h2h_copy)
    try:
        verify_module(module)  # what XLA's verifier rejects never reaches the pass either
    except VerifyError as e:  # but XLA's parser takes it: the compile fails, the text is no bad input
        return _refused_by_verifier(options, e)
    bare = _annotation_without_operand(module)
    if bare is not None:
        return _failed_first(options, Status.CHECK, f"Check failed: operand 0 of {bare.name} (a "
                                                    f"{bare.custom_call_target} without operands) does not exist", bare.name)
    if inline_calls is None:
        inline_calls = looks_pre_optimization(module)
    if has_no_offload_start(module):
        unchanged = _unchanged_by_the_pass(module, options, inline_calls, legalize)
        if unchanged is not None:
            return unchanged
    return _full_analysis(module, options, inline_calls, legalize, platform)


def _refused_by_verifier(options: OffloadOptions, error: VerifyError) -> HostOffloadResult:
    """The result for a module XLA's parser reads and its HloVerifier refuses (a get-tuple-element
    past its tuple's end, a call with the wrong operand count): the compile stops there, before
    HostOffloader, so the outcome is that failure; ``hlo`` reads the module as jaxlib does."""
    from ..base.labels import label

    return _failed_first(options, Status.INVALID_ARGUMENT,
                         label("offload.verifier_refuses", message=error.message, line=error.line), error.instruction)


def _annotation_without_operand(module: HloModule) -> HloInstruction | None:
    """A live ``MoveToHost``/``MoveToDevice`` written without operands (``custom-call()``, which XLA's
    parser takes): the offload passes read its operand 0, past the end of its operand list."""
    moves = _MOVES  # a set: None against two strings is two calls
    for comp in module.computations:
        for instr in comp.instructions:  # the opcode first; the target read from its store, not the property
            # (a custom call's number is its target: ir/rare_fields.py; a ``Calls`` there holds None)
            if instr.opcode is CUSTOM_CALL and (extra := instr._extra) is not None and extra.number in moves \
                    and not instr.operands and (instr.has_users() or instr is comp.root):
                return instr
    return None


_MOVES = frozenset({MOVE_TO_HOST, MOVE_TO_DEVICE})


def _failed_first(options: OffloadOptions, status: Status, message: str, instruction: str | None) -> HostOffloadResult:
    """A result whose outcome is one failure before HostOffloader decides anything."""
    from .kinds import FirstKind
    from .result import PassFailure

    result = HostOffloadResult(rule=options.rule)
    result.failures.append(PassFailure(status, message, instruction, first=True))
    result._first_kind = FirstKind.FAILURE
    return result


def _full_analysis(module: HloModule, options: OffloadOptions, inline_calls: bool,
                   legalize: bool, platform: str = "tpu") -> HostOffloadResult:
    """The pipeline (:func:`.pipeline.offload_pipeline`: the pre-passes, HostOffloadLegalize,
    HostOffloader) on a private copy of ``module``; HostOffloader's result, from the run's context."""
    config = PipelineConfig(inline_calls, legalize, options, platform)
    copy, left_out, dead_steps = lean_copy(module, config)
    if dead_steps is not None:
        # The stand-ins are the copy's now, their operands its own tuples: the pairs and the input's
        # operands by call (~10 MiB at jax_entry 1M instructions) are not held through the pipeline;
        # nor the computations left out (read by the copy only: a set of 105k, 4 MiB at 1M).
        dead_steps.stand_ins = {}
        dead_steps.computations = set()
    try:
        result = _run_pipeline(module, config, copy, left_out, dead_steps)
    except DeadStepsInexact:  # the stand-ins met what they do not model: the whole copy, as before
        copy, left_out = private_copy(module, config)
        result = _run_pipeline(module, config, copy, left_out, None)
    predict_later_failures(module, result)
    return result


def _run_pipeline(module: HloModule, config: PipelineConfig, copy: HloModule,
                  left_out: dict[str, list[HloInstruction]], dead_steps: DeadSteps | None) -> HostOffloadResult:
    pipeline = offload_pipeline(config, module, left_out, dead_steps=dead_steps)
    pipeline.run(copy)
    result = pipeline.context.result
    assert result is not None
    return result


def lean_copy(module: HloModule, config: PipelineConfig) -> tuple[HloModule, dict[str, list[HloInstruction]],
                                                                  DeadSteps | None]:
    """:func:`private_copy` without the entry's dead steps too (:mod:`.passes.dead_steps`): one
    stand-in instruction for each, the rest left out; the record the pipeline reports them
    from, or None where there are none (then the copy is :func:`private_copy`'s).

    The entry's dead code is found first; the other computations' only for those the copy keeps
    (a dead step's callee, or a computation only dead code calls, is not searched: ``jax_entry``
    at 100k instructions has 10.5k such)."""
    if pass_names(config)[:1] != ["stablehlo_rebuild"]:
        return clone_module(module), {}, None
    counts: dict[HloInstruction, int] = {}
    entry = module.entry
    left_out = _rebuild_dead_code(module, [entry] if entry is not None else [], counts)

    def dead_code_of(comp: HloComputation) -> list[HloInstruction]:
        return _rebuild_dead_code(module, [comp], into=left_out).get(comp.name, [])

    steps = find_dead_steps(module, left_out, counts, dead_code_of)
    # The input's caller index, built for the dead steps' callees: a cache (rebuilt where read again:
    # later failures on some modules), not held through the copy and the pipeline (5 MiB at 1M).
    module.calls_changed()
    if steps is None:
        _rebuild_dead_code(module, module.computations, into=left_out)
        return clone_module(module, _kept(module, left_out)), left_out, None
    taken = steps.computations
    _rebuild_dead_code(module, [c for c in module.computations if c not in taken], into=left_out)
    assert entry is not None  # (find_dead_steps found steps there)
    keep = _kept(module, left_out, taken | {entry})
    keep[entry] = steps.kept  # without the dead steps and the rebuild's dead code
    copy = clone_module(module, keep, steps.stand_ins, taken)
    steps.kept = []  # read by the copy only: not held through the pipeline
    stand_in_calls(steps)
    return copy, left_out, steps


def _kept(module: HloModule, left_out: Mapping[str, list[HloInstruction]],
          skip: AbstractSet[HloComputation] = frozenset()) -> dict[HloComputation, list[HloInstruction]]:
    """What the copy keeps of each computation (not in ``skip``) with dead code in ``left_out``:
    :func:`~xladoctor.ir.clone.clone_module`'s ``keep``.  One set of dead code at a time, not one
    of all of it."""
    keep: dict[HloComputation, list[HloInstruction]] = {}
    for comp in module.computations:
        dead = left_out.get(comp.name) if comp not in skip else None
        if dead:
            gone = set(dead)
            keep[comp] = [i for i in comp.instructions if i not in gone]
    return keep


def private_copy(module: HloModule, config: PipelineConfig) -> tuple[HloModule, dict[str, list[HloInstruction]]]:
    """The copy the pipeline rewrites, without the dead code its first pass would remove at once,
    and that dead code by computation (what :func:`.passes.hlo_dce.remove_dead_code` reports in its place).

    Only where that first pass is the rebuild (:func:`.passes.stablehlo_rebuild.rebuild_as_compiled`), and only for
    computations it would not change before its dead-code removal (no ``gte(tuple)`` to fold) and
    whose dead code no live instruction names (no control edges): there the copy without it is what
    the removal leaves, names included (:func:`.passes.hlo_dce.dead_code` reads the input without changing it).
    Most dead code of a repeated program is gone before it is copied or walked."""
    if pass_names(config)[:1] != ["stablehlo_rebuild"]:
        return clone_module(module), {}
    left_out = _rebuild_dead_code(module, module.computations)
    return clone_module(module, _kept(module, left_out)), left_out


def _rebuild_dead_code(module: HloModule, computations: list[HloComputation], entry_counts: dict[HloInstruction, int] | None = None,
                       into: dict[str, list[HloInstruction]] | None = None) -> dict[str, list[HloInstruction]]:
    """The dead code :func:`private_copy` leaves out of ``computations`` (of ``module``), by
    computation name, added to ``into`` (those already there are not searched again).
    ``entry_counts``: filled with the entry's dead users per instruction
    (:func:`.passes.hlo_dce.dead_code_counted`)."""
    left_out: dict[str, list[HloInstruction]] = {} if into is None else into
    for comp in computations:
        if comp.name in left_out or folds_tuples(comp) or has_control_edges(comp):
            continue
        if comp is module.entry and entry_counts is not None:
            left_out[comp.name], counts = dead_code_counted(comp)
            entry_counts.update(counts)
        else:
            left_out[comp.name] = dead_code(comp)  # [] too: the rebuild need not look again
    return left_out


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
