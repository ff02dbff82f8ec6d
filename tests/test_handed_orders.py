"""Post orders HloCSE hands on (offload/passes/handed_orders.py) are the walks they stand for.

HloCSE's walk without what it merged away is the post order after the merges, except where a kept
instruction had no users (a walk's start) or control edges are involved; the pipeline hands the
orders to the next pass only across passes that left the module untouched, and checks them
where it lints.  Every corpus module is linted after every pass by test_pipeline_lint.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hlo_corpus import CORPUS, generated_hlo
from xladoctor.ir.computation import HloComputation
from xladoctor.ir.lint import LintError
from xladoctor.ir.module import HloModule
from xladoctor.offload.passes.handed_orders import post_order, stale_orders
from xladoctor.offload.passes.hlo_cse import eliminate_common_subexpressions
from xladoctor.offload.passes.hlo_pass_interface import HloPassInterface
from xladoctor.offload.passes.hlo_pass_pipeline import HloPassPipeline
from xladoctor.offload.pipeline import PipelineConfig, offload_pipeline
from xladoctor.syntax.hlo_parser import parse_module

MERGED = """HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] negate(p)
  ea = f32[4] exponential(a)
  eb = f32[4] exponential(b)
  ROOT t = (f32[4], f32[4]) tuple(ea, eb)
}
"""

# ``k`` and ``d`` have no users: each starts a walk, in list order.  ``r`` merges into ``k``, which
# then has a user: the walk reaches it from ``u``, after ``d``, where before it came first.
DEAD_KEPT = """HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  k = f32[4] negate(p)
  d = f32[4] exponential(q)
  r = f32[4] negate(p)
  ROOT u = f32[4] exponential(r)
}
"""


def _names(order: list) -> list[str]:
    return [i.name for i in order]


def test_merges_hand_on_the_walk_without_what_they_removed() -> None:
    module = parse_module(MERGED)
    orders: dict = {}
    merged = eliminate_common_subexpressions(module, orders)
    assert merged == [("b", "a"), ("eb", "ea")]
    entry = module.entry
    assert entry in orders
    assert _names(post_order(entry, orders)) == _names(entry.post_order()) == ["p", "a", "ea", "t"]
    assert stale_orders(orders) == []


def test_a_kept_walk_start_is_not_handed_on() -> None:
    module = parse_module(DEAD_KEPT)
    entry = module.entry
    before = entry.post_order()
    orders: dict = {}
    assert eliminate_common_subexpressions(module, orders) == [("r", "k")]
    assert entry not in orders
    # what handing it on would have claimed, and the walk it is not
    assert _names([i for i in before if i.name != "r"]) == ["p", "k", "q", "d", "u"]
    assert _names(entry.post_order()) == ["q", "d", "p", "k", "u"]


def test_control_edges_take_a_fresh_walk() -> None:
    module = parse_module(MERGED.replace("ROOT t = (f32[4], f32[4]) tuple(ea, eb)",
                                         "ROOT t = (f32[4], f32[4]) tuple(ea, eb), control-predecessors={p}"))
    entry = module.entry
    wrong = list(reversed(entry.instructions))
    handed = {entry: (wrong, set())}
    assert _names(post_order(entry, handed)) == _names(entry.post_order())
    assert post_order(parse_module(MERGED).entry, None)  # no orders: a walk


class _Leaves(HloPassInterface):
    """Hands on a given order for the entry, touching nothing else."""

    name = "leaves"

    def __init__(self, order: list) -> None:
        self.order = order

    def run(self, module: HloModule) -> bool:
        self.orders_left = {module.entry: (self.order, set())}
        return False


class _Touches(HloPassInterface):
    name = "touches"

    def __init__(self, untouched: bool) -> None:
        self.untouched = untouched

    def run(self, module: HloModule) -> bool:
        self.left_untouched = self.untouched
        return False


class _Reads(HloPassInterface):
    name = "reads"
    given: dict[HloComputation, tuple] | None = None

    def run(self, module: HloModule) -> bool:
        self.given = self.orders_given
        return False


@pytest.mark.parametrize("untouched", [True, False])
def test_the_pipeline_hands_orders_only_past_untouched_passes(untouched: bool) -> None:
    module = parse_module(MERGED)
    order = module.entry.post_order()
    reads = _Reads()
    pipeline = HloPassPipeline("p", lint=True)
    for p in (_Leaves(order), _Touches(untouched), reads):
        pipeline.add_pass(p)
    pipeline.run(module)
    assert (reads.given is not None) is untouched
    if untouched:
        assert reads.given[module.entry][0] is order  # type: ignore[index]
    assert reads.orders_given is None  # given for its run only


def test_lint_finds_a_wrong_order_handed_on() -> None:
    module = parse_module(MERGED)
    pipeline = HloPassPipeline("p", lint=True)
    pipeline.add_pass(_Leaves(list(reversed(module.entry.post_order()))))
    with pytest.raises(LintError, match="post order handed on"):
        pipeline.run(module)


def test_corpus_orders_handed_on_are_the_walks(tmp_path: Path) -> None:
    """HloCSE inside the pre-optimisation pipeline, on the corpus: each order it hands on is
    checked against a fresh walk (the pipeline's lint); some must be handed on at all."""
    counts: list[int] = []

    def count(p: HloPassInterface, _: HloModule) -> None:
        counts.append(len(p.orders_left or ()))

    for path in [*CORPUS, *generated_hlo(tmp_path, 60)]:
        try:
            module = parse_module(path.read_text())
        except Exception:
            continue
        pipeline = offload_pipeline(PipelineConfig(inline_calls=True), pre_passes_only=True, lint=True,
                                    after_each=count)
        try:
            pipeline.run(module)
        except LintError:
            raise
        except Exception:
            continue
        assert all(p.orders_left is None for p in pipeline.passes)  # let go once handed on
    assert sum(counts) > 0
