"""XLA's ``HloPassInterface`` (``xla/hlo/pass/hlo_pass_interface.h``): what every pass here is.

A pass is an object with a ``name`` (the one XLA's dumps and ``--xla_disable_hlo_passes`` use)
and ``run(module) -> bool``: rewrite ``module`` in place and say whether it changed, as
``HloPassInterface::Run`` returns ``absl::StatusOr<bool>``.  Options are given when the pass is
made (``AlgebraicSimplifier(floats_are_real=False)``, ``HostOffloader(options)``), never to
``run``, so a pipeline is a plain list of passes (:class:`.hlo_pass_pipeline.HloPassPipeline`).

What a pass hands on to later passes or to the analysis (the instructions dead-code elimination
removed, the names an inliner's clones copy, HostOffloader's result) goes onto the
:class:`.analysis_context.AnalysisContext` it was made with, not into its return value.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from ...ir.module import HloModule
from .analysis_context import AnalysisContext

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from .handed_orders import HandedOrders


class HloPassInterface(ABC):
    """One HLO pass: ``name`` and ``run(module) -> changed``."""

    name: str
    """XLA's name of the pass (``hlo_dce``, ``call_inliner``, ``host_offloader``...)."""

    left_untouched = False
    """Set by a ``run`` that proved it left the module exactly as it found it (not an instruction,
    a user's order or a name touched): a stronger answer than ``changed`` false, which a pass may
    give where it made an instruction it then did not use.  The pipeline then skips a
    :meth:`same_as` pass run after it while every pass between leaves the module untouched too
    (:class:`.hlo_pass_pipeline.HloPassPipeline`)."""

    fixed_point = False
    """Whether a run, whatever it changed, leaves a module in which a :meth:`same_as` pass finds
    nothing to do and leaves it untouched (HloDCE: nothing dead is left).  The pipeline then skips
    such a pass run after it across passes that left the module untouched."""

    orders_left: HandedOrders | None = None
    """Set by a ``run`` that knows the post order of computations as it left them (HloCSE:
    :mod:`.handed_orders`); the pipeline hands them on."""

    orders_given: HandedOrders | None = None
    """Set by the pipeline for one ``run``: post orders of computations as the module is when it
    starts (the last pass's :attr:`orders_left`, kept past passes that left the module untouched);
    a pass that walks computations may read them instead of walking (:func:`.handed_orders.post_order`)."""

    @abstractmethod
    def run(self, module: HloModule) -> bool:
        """Rewrite ``module`` (a private copy) in place; whether anything changed."""

    def same_as(self, other: HloPassInterface) -> bool:
        """Whether this pass, run on a module, does exactly what ``other`` does (the same pass with
        the same options, nothing carried between runs): a pass that says so and follows an
        ``other`` that left the module untouched would find nothing either.  False unless a pass
        says otherwise."""
        return False

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class HloPassWithContext(HloPassInterface):
    """A pass that hands results on: it writes them onto ``context`` (a fresh one when run alone)."""

    def __init__(self, context: AnalysisContext | None = None):
        self.context = context if context is not None else AnalysisContext()
