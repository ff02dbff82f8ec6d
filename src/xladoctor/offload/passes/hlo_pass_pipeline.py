"""XLA's ``HloPassPipeline`` (``xla/hlo/pass/hlo_pass_pipeline.cc``): passes run in order, one runner.

``run(module)`` runs each pass on ``module``, records whether it changed the module (XLA keeps
the same in its pass metadata) and, where asked, checks the IR's invariants after each one, as
XLA's pipeline runs its invariant checkers (``AddInvariantChecker<HloVerifier>``): here
``HloModule.lint()`` (:mod:`xladoctor.ir.lint`), so a pass that breaks a link fails at that
pass, named, not three passes later.  The tests ask for it (``lint=True``); anyone else with the
debug flag ``XLADOCTOR_LINT_PASSES=1`` in the environment.  The pipeline is a pass itself.

The pipeline owns the run's :class:`.analysis_context.AnalysisContext`: the passes it runs were
made with it and write what they hand on there.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ...ir.lint import LintError, lint_problems
from ...ir.module import HloModule
from .analysis_context import AnalysisContext
from .handed_orders import stale_orders
from .hlo_pass_interface import HloPassInterface

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from .handed_orders import HandedOrders

LINT_FLAG = "XLADOCTOR_LINT_PASSES"
"""The debug flag: ``1`` lints the module after every pass of every pipeline run."""

AfterPass = Callable[[HloPassInterface, HloModule], None]
"""Called after each pass with the pass and the module it left (XLA's per-pass dumps)."""


class HloPassPipeline(HloPassInterface):
    """Passes run in order on one module, each pass' ``changed`` recorded."""

    name = "pipeline"

    def __init__(self, name: str, context: AnalysisContext | None = None, *,
                 lint: bool | None = None, after_each: AfterPass | None = None):
        self.name = name  # XLA's pipelines are named per instance
        self.context = context if context is not None else AnalysisContext()
        self.passes: list[HloPassInterface] = []
        self.lint = os.environ.get(LINT_FLAG) == "1" if lint is None else lint
        self.after_each = after_each
        self.changed: list[tuple[str, bool]] = []
        """``(pass name, changed)`` for each pass run, in order."""

    def add_pass(self, p: HloPassInterface) -> HloPassInterface:
        """Append ``p`` (XLA's ``AddPass``); returns it."""
        self.passes.append(p)
        return p

    def run(self, module: HloModule) -> bool:
        """Run every pass on ``module`` in order; whether any changed it."""
        if self.lint:
            _lint(module, "before the pipeline")
        any_changed = False
        quiet: list[HloPassInterface] = []  # the passes run since the module last changed, each leaving it untouched
        orders: HandedOrders | None = None  # post orders of the module as it is (handed_orders.py)
        for p in self.passes:
            if _repeats_untouched(p, quiet):
                changed = False  # what a pass of ``quiet`` found nothing to do in is what ``p`` would see
            else:
                p.orders_given = orders
                changed = p.run(module)
                p.orders_given = None
                # what ``p`` left, else what it was given if it touched nothing, else none
                orders = p.orders_left if p.orders_left is not None else orders if p.left_untouched else None
                if p.left_untouched:
                    quiet.append(p)
                else:  # changed: what a pass that reaches its fixed point left is where its like finds nothing
                    quiet = [p] if p.fixed_point else []
            any_changed |= changed
            self.changed.append((p.name, changed))
            if self.lint:
                _lint(module, f"after {p.name}")
                if orders and (stale := stale_orders(orders)):
                    raise LintError([f"after {p.name}: the post order handed on is not the walk's in {stale}"])
            if self.after_each is not None:
                self.after_each(p, module)
            p.orders_left = None  # held here only: a pass kept for the record holds no order (nor what it removed)
        return any_changed

    def __repr__(self) -> str:
        return f"HloPassPipeline({self.name!r}, {[p.name for p in self.passes]})"


def _repeats_untouched(p: HloPassInterface, quiet: list[HloPassInterface]) -> bool:
    """Whether ``p`` does what a pass of ``quiet`` did (those run since the module last changed, each
    of which left it untouched): ``p`` then runs on the very module that pass found nothing to do
    in, and finds nothing either, so it is not run.  A train step's last two AlgebraicSimplifiers
    (simplification-1's fixed point) were a check of every instruction each where the first found
    nothing to start on (issue 36); a pre-optimisation module's second annotation CSE follows the
    first across a ShardingRemover that found no marker (a scan of every instruction).  A pass
    that reached its fixed point (:attr:`~.hlo_pass_interface.HloPassInterface.fixed_point`) counts
    as one that left the module untouched: its like finds nothing after it (a train step's last two
    HloDCEs, after passes that found nothing)."""
    return any(p.same_as(q) for q in quiet)  # (a few at most: a pass that changes the module empties it)


def _lint(module: HloModule, when: str) -> None:
    problems = lint_problems(module)
    if problems:
        raise LintError([f"{when}: {p}" for p in problems])
