"""The passes XLA's TPU compile runs up to and including HostOffloader, in its order.

:func:`offload_pipeline` builds the run as XLA's compiler builds its pipelines: an
:class:`~.passes.hlo_pass_pipeline.HloPassPipeline`, one ``add_pass`` per pass, each under the
condition it runs on (:class:`PipelineConfig`), each pass made with its options and, where it
hands results on, with the run's :class:`~.passes.analysis_context.AnalysisContext`, which the
pipeline owns.  :func:`.analysis.analyze_host_offload`, the tests and the comparison with the
real compiler's dumps (:mod:`xladoctor.oracle.prepass`, ``pre_passes_only``) run what it builds.
Names follow XLA's passes (``call_inliner``, ``tuple_simplifier``, ``hlo_dce``,
``host_offloading_prepare``, ``host_offload_legalize``, ``host_offloader``...); a pass may run
twice, as in XLA's own pipelines.

The passes before ``host_offload_legalize`` (the pre-passes) model what libtpu 0.0.42.1's
compile does before its ``host_offloading`` pipeline, reduced to what changes the module
HostOffloadLegalize sees: the StableHLO -> HLO rebuild of a pre-optimisation module, sharding
marker removal, CSE of placement annotations, call inlining, ``HostOffloadingPrepare``,
dead-code elimination, WhileLoopSimplifier's trip-count-one loops, a constant one-window
scatter as a ``dynamic-update-slice``, AlgebraicSimplifier's rewrites and ConditionalCodeMotion's
moving out of what every branch ends with.  Each pass is one module of :mod:`.passes` named
after the XLA file it models (``passes/hlo_dce.py``: ``hlo_dce.cc``; HostOffloadLegalize and
HostOffloader, larger, are the sub-packages ``passes/host_offload_legalize/`` and
``passes/host_offloader/``); this module only orders them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from .passes.algebraic_simplifier import AlgebraicSimplifier
from .passes.analysis_context import AnalysisContext, DeadSteps
from .passes.call_inliner import CallInliner
from .passes.concat_decomposer import ConcatDecomposer
from .passes.conditional_canonicalizer import ConditionalCanonicalizer
from .passes.conditional_code_motion import ConditionalCodeMotion
from .passes.hlo_cse import AnnotationCSE, HloCSE
from .passes.hlo_dce import HloDCE
from .passes.hlo_host_device_type_call_wrapper import HloHostDeviceTypeCallWrapper
from .passes.hlo_pass_interface import HloPassInterface
from .passes.hlo_pass_pipeline import AfterPass, HloPassPipeline
from .passes.host_offload_legalize import HostOffloadLegalize
from .passes.host_offloader import HostOffloader, OffloadOptions
from .passes.host_offloading_prepare import HostOffloadingPrepare
from .passes.pipelining_optimizations import PipeliningOptimizations
from .passes.reshape_mover import ReshapeMover
from .passes.scatter_to_dus import ScatterToDus
from .passes.sharding_remover import ShardingRemover
from .passes.stablehlo_rebuild import StablehloRebuild
from .passes.tuple_simplifier import TupleSimplifier
from .passes.while_initializer_removal import WhileInitializerRemoval
from .passes.while_loop_simplifier import WhileLoopSimplifier

_GPU_PLATFORMS = ("cuda", "gpu", "rocm")


class PipelineConfig:
    """What decides which passes run (see :func:`.analysis.analyze_host_offload`).

    Written out, not a dataclass (start-up, issue 36): compared, hashed and printed as the frozen
    dataclass was; not frozen (mypyc), never assigned."""

    inline_calls: bool
    """A pre-optimisation module: the compile's rebuild, marker removal and CallInliner run."""
    legalize: bool
    options: OffloadOptions | None
    """HostOffloader's options; ``None`` when the pipeline stops before it."""
    platform: str
    """The compiler predicted for: passes measured on libtpu only (its own passes, and what it is
    known to fold) do not run for a GPU platform, whose pipeline was not measured for them."""

    def __init__(self, inline_calls: bool, legalize: bool = True, options: OffloadOptions | None = None,
                 platform: str = "tpu") -> None:
        self.inline_calls = inline_calls
        self.legalize = legalize
        self.options = options
        self.platform = platform

    def _key(self) -> tuple[object, ...]:
        return (self.inline_calls, self.legalize, self.options, self.platform)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, PipelineConfig) and type(other) is type(self) \
            else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"PipelineConfig(inline_calls={self.inline_calls!r}, legalize={self.legalize!r}, "
                f"options={self.options!r}, platform={self.platform!r})")

    @property
    def libtpu(self) -> bool:
        """libtpu's compile (not openxla's GPU pipeline)."""
        return self.platform not in _GPU_PLATFORMS


EVERY_PASS = PipelineConfig(inline_calls=True, legalize=True, options=OffloadOptions(), platform="tpu")
"""The configuration every pass runs under: :func:`pass_names` lists the whole order by it."""


def offload_pipeline(config: PipelineConfig, original: HloModule | None = None,
                     left_out: Mapping[str, list[HloInstruction]] | None = None, *, pre_passes_only: bool = False,
                     lint: bool | None = None, after_each: AfterPass | None = None,
                     dead_steps: DeadSteps | None = None) -> HloPassPipeline:
    """The passes that run under ``config``, in XLA's order, on one context.

    ``original``: the input module the private copy was made of (reported from); ``left_out``:
    the dead code the copy was made without (:func:`.analysis.private_copy`); ``dead_steps``: the
    dead steps it holds as stand-ins (:func:`.analysis.lean_copy`).
    ``pre_passes_only``: up to HostOffloadLegalize, not including it (what the real compiler's
    ``...before_host-offload-legalize`` dump is compared with).  ``lint`` and ``after_each``:
    :class:`~.passes.hlo_pass_pipeline.HloPassPipeline`'s (the IR's invariants after each pass)."""
    context = AnalysisContext(original, left_out if left_out is not None else {}, dead_steps=dead_steps)
    pipeline = HloPassPipeline("host-offload", context, lint=lint, after_each=after_each)
    for p in _pre_passes(config, context):
        pipeline.add_pass(p)
    if not pre_passes_only:
        if config.legalize:
            pipeline.add_pass(HostOffloadLegalize(context))
        if config.options is not None:
            pipeline.add_pass(HostOffloader(config.options, context))
    return pipeline


def pass_names(config: PipelineConfig = EVERY_PASS, *, pre_passes_only: bool = False) -> list[str]:
    """The names of the passes that run under ``config``, in order (all of them by default).

    A scheduled module (no inlining, no simplification pipelines) sees only these:

    >>> pass_names(PipelineConfig(inline_calls=False, options=OffloadOptions()))  # doctest: +NORMALIZE_WHITESPACE
    ['annotation_cse', 'annotation_cse', 'host_offloading_prepare', 'hlo_dce',
     'host_offload_legalize', 'host_offloader']
    """
    return [p.name for p in offload_pipeline(config, pre_passes_only=pre_passes_only).passes]


def _pre_passes(config: PipelineConfig, context: AnalysisContext) -> Iterator[HloPassInterface]:
    """Everything before HostOffloadLegalize: the rebuild and the first simplifications, then
    libtpu's simplification pipelines, then its passes after layout assignment."""
    yield from _before_simplification(config, context)
    if config.inline_calls:
        yield from _simplification(config, context)
    yield from _after_layout_assignment(config, context)


def _before_simplification(config: PipelineConfig, context: AnalysisContext) -> Iterator[HloPassInterface]:
    pre, tpu = config.inline_calls, config.libtpu
    if pre:
        # The compile gets a pre-optimisation module as StableHLO and rebuilds HLO from it:
        # gte(tuple) pairs fold (TupleSimplifier's rewrite), dead code goes, users in op order.
        yield StablehloRebuild(context)
    if pre and tpu:
        # libtpu CSEs the annotations (simplification-1) before its ShardingRemover (Phase_2); XLA:GPU after.
        yield AnnotationCSE()
    if pre:
        yield ShardingRemover()
    yield AnnotationCSE()  # HloCSE, on MoveToHost/MoveToDevice
    if pre:
        yield CallInliner(context)
        # Right after the first CallInliner on both compilers (libtpu's Before_X64_rewriter, XLA:GPU's
        # pre-spmd-partitioner): branches take and return tuples; TupleSimplifier (libtpu's Phase_1)
        # folds a branch's tuple(gte(p, 0)) back to p.
        yield ConditionalCanonicalizer(context)
        yield TupleSimplifier()
    yield AnnotationCSE()
    if pre:
        yield HloHostDeviceTypeCallWrapper()  # independent host calls: one
    if tpu:
        # kElideMoveToHost: libtpu only (XLA:GPU's host-compute pipeline runs convert-to-custom-call alone).
        yield HostOffloadingPrepare()
    yield HloDCE(context)


def _simplification(config: PipelineConfig, context: AnalysisContext) -> Iterator[HloPassInterface]:
    """A pre-optimisation module's simplification pipelines (libtpu's Phase_1, simplification-1)."""
    tpu = config.libtpu
    # Phase_1's hlo-module-dce runs WhileLoopSimplifier (trip count 1: the body), before CSE.
    yield WhileLoopSimplifier(context)
    yield HloCSE()  # HloCSE: simplification-1 starts with it
    if tpu:
        yield ScatterToDus()  # x.at[0].set(row)
    # AlgebraicSimplifier's rewrites that change what HostOffloader sees (:mod:`.passes.algebraic_simplifier`):
    # the compile's simplification pipelines; a scheduled module has been through them, and
    # XLA's HostOffloader unit tests run the pass alone.  libtpu's treats floats as real numbers.
    yield AlgebraicSimplifier(floats_are_real=tpu)
    yield HloDCE(context)
    if tpu:
        # simplification-1 runs conditional-code-motion after algsimp and constant folding: what all
        # branches end with moves out after the conditional (canonical conditionals only).
        yield ConditionalCodeMotion(context)
    # The simplification pipelines run ReshapeMover after AlgebraicSimplifier, then it again.
    yield ReshapeMover()
    yield AlgebraicSimplifier(floats_are_real=tpu)
    yield AnnotationCSE()  # moves of what algsimp made one value
    yield HloCSE()  # the constants algsimp folded, once each; users of those moves
    yield HloDCE(context)
    # simplification-1 is a fixed point (HloPassFix): its next iteration's two algsimps see what
    # CSE made one value (a concatenate of one row, then the reshape of a reshape that leaves).
    yield AlgebraicSimplifier(floats_are_real=tpu)
    yield AlgebraicSimplifier(floats_are_real=tpu)
    yield HloDCE(context)


def _after_layout_assignment(config: PipelineConfig, context: AnalysisContext) -> Iterator[HloPassInterface]:
    """libtpu's passes after layout assignment, right before its host_offloading pipeline."""
    pre, tpu = config.inline_calls, config.libtpu
    if pre and tpu:
        yield ConcatDecomposer()  # Pre_main_fusion
        yield WhileInitializerRemoval()  # scan ys buffers
    if pre:
        yield HloDCE(context)
    if pre and tpu:
        yield PipeliningOptimizations()  # remat moves back
