"""The passes XLA's TPU compile runs up to and including HostOffloader, declared as data.

``PIPELINE`` is the one list of ``(name, run, condition)`` that :func:`.analysis.analyze_host_offload`,
the tests and the comparison with the real compiler's dumps (:mod:`xladoctor.oracle.prepass`)
iterate.  Names follow XLA's passes (``call_inliner``, ``tuple_simplifier``, ``hlo_dce``,
``host_offloading_prepare``, ``host_offload_legalize``, ``host_offloader``...); a name may occur
twice, as in XLA's own pipelines.  Each ``run`` returns whether it changed the module, as an
``HloPassInterface::Run`` does; ``condition`` says for which configuration the pass runs.

The passes before ``host_offload_legalize`` (:data:`PRE_PASSES`) model what libtpu 0.0.42.1's
compile does before its ``host_offloading`` pipeline, reduced to what changes the module
HostOffloadLegalize sees: the StableHLO -> HLO rebuild of a pre-optimisation module, sharding
marker removal, CSE of placement annotations, call inlining, ``HostOffloadingPrepare``,
dead-code elimination, WhileLoopSimplifier's trip-count-one loops, a constant one-window
scatter as a ``dynamic-update-slice``, AlgebraicSimplifier's rewrites and ConditionalCodeMotion's
moving out of what every branch ends with.  Each pass' implementation is one module of
:mod:`.passes` named after the XLA file it models (``passes/hlo_dce.py``: ``hlo_dce.cc``;
HostOffloadLegalize and HostOffloader, larger, are the sub-packages ``passes/host_offload_legalize/``
and ``passes/host_offloader/``); this module only orders them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from .passes.algebraic_simplifier import simplify_for_offloading
from .passes.call_inliner import InlineResult
from .passes.call_inliner import inline_calls as _inline_calls
from .passes.concat_decomposer import decompose_concatenates
from .passes.conditional_canonicalizer import canonicalize_conditionals
from .passes.conditional_code_motion import move_conditional_code
from .passes.hlo_cse import eliminate_common_subexpressions, merge_duplicate_annotations
from .passes.hlo_dce import remove_dead_code
from .passes.hlo_host_device_type_call_wrapper import wrap_host_calls
from .passes.host_offload_legalize import LegalizeResult, run_legalize
from .passes.host_offloader import OffloadOptions, run_host_offloader
from .passes.host_offloading_prepare import elide_moves_into_host_calls
from .passes.pipelining_optimizations import hoist_moves_above_barriers
from .passes.reshape_mover import move_reshapes
from .passes.scatter_to_dus import scatters_to_updates
from .passes.sharding_remover import remove_sharding_markers
from .passes.stablehlo_rebuild import rebuild_as_compiled
from .passes.tuple_simplifier import fold_whole_tuples
from .passes.while_initializer_removal import remove_while_initializers
from .passes.while_loop_simplifier import remove_trip_count_one_loops
from .result import HostOffloadResult


@dataclass(frozen=True)
class PipelineConfig:
    """What decides which passes run (see :func:`.analysis.analyze_host_offload`)."""

    inline_calls: bool
    """A pre-optimisation module: the compile's rebuild, marker removal and CallInliner run."""
    legalize: bool = True
    options: OffloadOptions | None = None
    """HostOffloader's options; ``None`` when the pipeline stops before it."""
    platform: str = "tpu"
    """The compiler predicted for: passes measured on libtpu only (its own passes, and what it is
    known to fold) do not run for a GPU platform, whose pipeline was not measured for them."""


@dataclass
class PipelineState:
    """One run of the pipeline: the private copy being rewritten and what each pass left."""

    module: HloModule
    """The private copy the passes rewrite."""
    original: HloModule
    """The input module (names and source lines are reported from it)."""
    config: PipelineConfig
    dead: list[HloInstruction] = field(default_factory=list)
    """Instructions dead-code elimination removed, in removal order."""
    left_out: dict[str, list[HloInstruction]] = field(default_factory=dict)
    """Dead code of the input that ``module`` was copied without, by computation: the first
    pass' removal (:func:`.analysis.private_copy`), reported by it."""
    inlined: InlineResult | None = None
    legalized: LegalizeResult | None = None
    result: HostOffloadResult | None = None
    changed: list[tuple[str, bool]] = field(default_factory=list)
    """``(pass name, changed)`` for each pass that ran, in order."""

    @property
    def origin(self) -> dict[str, str]:
        """Inlined clone -> the input instruction it copies."""
        return self.inlined.origin if self.inlined is not None else {}


@dataclass(frozen=True)
class Pass:
    """One entry of the pipeline: XLA's pass name, what runs, and when."""

    name: str
    run: Callable[[PipelineState], bool]
    condition: Callable[[PipelineConfig], bool]


def _always(config: PipelineConfig) -> bool:
    return True


def _pre_optimization(config: PipelineConfig) -> bool:
    return config.inline_calls


def _libtpu(config: PipelineConfig) -> bool:
    return config.platform not in ("cuda", "gpu", "rocm")


def _tpu_pre_optimization(config: PipelineConfig) -> bool:
    """libtpu's own pre-passes (not in openxla's GPU pipeline)."""
    return config.inline_calls and _libtpu(config)


def _legalizing(config: PipelineConfig) -> bool:
    return config.legalize


def _offloading(config: PipelineConfig) -> bool:
    return config.options is not None


def _rebuild(state: PipelineState) -> bool:
    dead = rebuild_as_compiled(state.module, state.left_out)
    state.dead.extend(dead)
    return bool(dead)


def _sharding_remover(state: PipelineState) -> bool:
    return bool(remove_sharding_markers(state.module))


def _annotation_cse(state: PipelineState) -> bool:
    return bool(merge_duplicate_annotations(state.module))


def _call_inliner(state: PipelineState) -> bool:
    state.inlined = _inline_calls(state.module)
    return bool(state.inlined.inlined_calls)


def _conditional_canonicalizer(state: PipelineState) -> bool:
    changed, renamed = canonicalize_conditionals(state.module)
    _renamed(state, renamed)
    return changed


def _tuple_simplifier(state: PipelineState) -> bool:
    return bool(fold_whole_tuples(state.module))


def _renamed(state: PipelineState, renamed: dict[str, str]) -> None:
    """Record instructions a pass replaced under a new name (new -> old) in ``state.origin``."""
    if not renamed:
        return
    if state.inlined is None:
        state.inlined = InlineResult()
    origin = state.inlined.origin
    origin.update({new: origin.get(old, old) for new, old in renamed.items()})


def _host_call_wrapper(state: PipelineState) -> bool:
    return bool(wrap_host_calls(state.module))


def _host_offloading_prepare(state: PipelineState) -> bool:
    return bool(elide_moves_into_host_calls(state.module))


def _hlo_dce(state: PipelineState) -> bool:
    dead = remove_dead_code(state.module)
    state.dead.extend(dead)
    return bool(dead)


def _reshape_mover(state: PipelineState) -> bool:
    return bool(move_reshapes(state.module))


def _cse(state: PipelineState) -> bool:
    return bool(eliminate_common_subexpressions(state.module))


def _scatter_to_dus(state: PipelineState) -> bool:
    return bool(scatters_to_updates(state.module))


def _while_loop_simplifier(state: PipelineState) -> bool:
    inlined = remove_trip_count_one_loops(state.module)
    if inlined is None:
        return False
    if state.inlined is None:
        state.inlined = inlined
    else:
        _renamed(state, inlined.origin)
    return True


def _algsimp(state: PipelineState) -> bool:
    # libtpu's AlgebraicSimplifier treats floats as real numbers; XLA:GPU's does not.
    return bool(simplify_for_offloading(state.module, floats_are_real=_libtpu(state.config)))


def _conditional_code_motion(state: PipelineState) -> bool:
    moved, dead = move_conditional_code(state.module)
    state.dead.extend(dead)
    return bool(moved)


def _concat_decomposer(state: PipelineState) -> bool:
    return bool(decompose_concatenates(state.module))


def _while_initializer_removal(state: PipelineState) -> bool:
    return bool(remove_while_initializers(state.module))


def _pipelining_optimizations(state: PipelineState) -> bool:
    return bool(hoist_moves_above_barriers(state.module))


def _host_offload_legalize(state: PipelineState) -> bool:
    origin = state.origin
    state.legalized = run_legalize(state.module, lambda n: origin.get(n, n))
    return state.legalized.changed


def _host_offloader(state: PipelineState) -> bool:
    assert state.config.options is not None
    legalized = state.legalized
    result = run_host_offloader(state.module, state.original, state.config.options,
                                origin=state.origin or None, removed_by_dce=state.dead,
                                prior_failures=legalized.failures if legalized is not None else ())
    result.legalize = legalized
    if state.inlined is not None:
        result.inlined_calls = state.inlined.inlined_calls
    state.result = result
    return bool(result.inserted or result.removed)


PIPELINE: tuple[Pass, ...] = (
    # The compile gets a pre-optimisation module as StableHLO and rebuilds HLO from it:
    # gte(tuple) pairs fold (TupleSimplifier's rewrite), dead code goes, users in op order.
    Pass("stablehlo_rebuild", _rebuild, _pre_optimization),
    # libtpu CSEs the annotations (simplification-1) before its ShardingRemover (Phase_2); XLA:GPU after.
    Pass("annotation_cse", _annotation_cse, _tpu_pre_optimization),
    Pass("sharding_remover", _sharding_remover, _pre_optimization),
    Pass("annotation_cse", _annotation_cse, _always),  # HloCSE, on MoveToHost/MoveToDevice
    Pass("call_inliner", _call_inliner, _pre_optimization),
    # Right after the first CallInliner on both compilers (libtpu's Before_X64_rewriter, XLA:GPU's
    # pre-spmd-partitioner): branches take and return tuples; TupleSimplifier (libtpu's Phase_1)
    # folds a branch's tuple(gte(p, 0)) back to p.
    Pass("conditional_canonicalizer", _conditional_canonicalizer, _pre_optimization),
    Pass("tuple_simplifier", _tuple_simplifier, _pre_optimization),
    Pass("annotation_cse", _annotation_cse, _always),
    Pass("hlo_host_device_type_call_wrapper", _host_call_wrapper, _pre_optimization),  # independent host calls: one
    # kElideMoveToHost: libtpu only (XLA:GPU's host-compute pipeline runs convert-to-custom-call alone).
    Pass("host_offloading_prepare", _host_offloading_prepare, _libtpu),
    Pass("hlo_dce", _hlo_dce, _always),
    # Phase_1's hlo-module-dce runs WhileLoopSimplifier (trip count 1: the body), before CSE.
    Pass("while_loop_simplifier", _while_loop_simplifier, _pre_optimization),
    Pass("cse", _cse, _pre_optimization),  # HloCSE: simplification-1 starts with it
    Pass("scatter_to_dus", _scatter_to_dus, _tpu_pre_optimization),  # x.at[0].set(row)
    # AlgebraicSimplifier's rewrites that change what HostOffloader sees (:mod:`.passes.algebraic_simplifier`):
    # the compile's simplification pipelines; a scheduled module has been through them, and
    # XLA's HostOffloader unit tests run the pass alone.
    Pass("algsimp", _algsimp, _pre_optimization),
    Pass("hlo_dce", _hlo_dce, _pre_optimization),
    # simplification-1 runs conditional-code-motion after algsimp and constant folding: what all
    # branches end with moves out after the conditional (canonical conditionals only).
    Pass("conditional_code_motion", _conditional_code_motion, _tpu_pre_optimization),
    # The simplification pipelines run ReshapeMover after AlgebraicSimplifier, then it again.
    Pass("reshape_mover", _reshape_mover, _pre_optimization),
    Pass("algsimp", _algsimp, _pre_optimization),
    Pass("annotation_cse", _annotation_cse, _pre_optimization),  # moves of what algsimp made one value
    Pass("cse", _cse, _pre_optimization),  # the constants algsimp folded, once each; users of those moves
    Pass("hlo_dce", _hlo_dce, _pre_optimization),
    # simplification-1 is a fixed point (HloPassFix): its next iteration's two algsimps see what
    # CSE made one value (a concatenate of one row, then the reshape of a reshape that leaves).
    Pass("algsimp", _algsimp, _pre_optimization),
    Pass("algsimp", _algsimp, _pre_optimization),
    Pass("hlo_dce", _hlo_dce, _pre_optimization),
    # libtpu's passes after layout assignment, right before its host_offloading pipeline:
    Pass("concat_decomposer", _concat_decomposer, _tpu_pre_optimization),  # Pre_main_fusion
    Pass("while_initializer_removal", _while_initializer_removal, _tpu_pre_optimization),  # scan ys buffers
    Pass("hlo_dce", _hlo_dce, _pre_optimization),
    Pass("pipelining_optimizations", _pipelining_optimizations, _tpu_pre_optimization),  # remat moves back
    Pass("host_offload_legalize", _host_offload_legalize, _legalizing),
    Pass("host_offloader", _host_offloader, _offloading),
)

PRE_PASSES: tuple[Pass, ...] = PIPELINE[:[p.name for p in PIPELINE].index("host_offload_legalize")]
"""The passes before HostOffloadLegalize: what the real compiler's
``...before_host-offload-legalize`` dump is compared with."""


def run_pipeline(state: PipelineState, passes: Sequence[Pass] = PIPELINE,
                 after_each: Callable[[Pass, PipelineState], None] | None = None) -> PipelineState:
    """Run each pass of ``passes`` whose condition holds for ``state.config``, in order.

    ``after_each`` (tests: the IR's invariants) is called after every pass that ran."""
    for p in passes:
        if not p.condition(state.config):
            continue
        state.changed.append((p.name, p.run(state)))
        if after_each is not None:
            after_each(p, state)
    return state
