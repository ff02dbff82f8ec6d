"""XLA's simplifier passes, text in and text out (:mod:`pass_text`): CSE, DCE, TupleSimplifier,
AlgebraicSimplifier, ReshapeMover, WhileLoopSimplifier's trip-count-one rewrite and CallInliner,
each on a module made to show one rewrite, as XLA's own ``*_test.cc`` do."""

from __future__ import annotations

from pass_text import assert_pass
from xladoctor.offload.passes.algebraic_simplifier import AlgebraicSimplifier
from xladoctor.offload.passes.call_inliner import CallInliner
from xladoctor.offload.passes.hlo_cse import AnnotationCSE, HloCSE
from xladoctor.offload.passes.hlo_dce import HloDCE
from xladoctor.offload.passes.reshape_mover import ReshapeMover
from xladoctor.offload.passes.tuple_simplifier import TupleSimplifier, forward_tuple_elements
from xladoctor.offload.passes.while_loop_simplifier import WhileLoopSimplifier


def test_algebraic_simplifier_drops_add_zero_and_a_repeated_maximum():
    """``A + 0 -> A``, then ``max(max(x, y), y) -> max(x, y)``; the zero broadcast is left for DCE."""
    assert_pass(AlgebraicSimplifier(), """
        HloModule m

        ENTRY main {
          x = f32[4]{0} parameter(0)
          zero = f32[] constant(0)
          zeros = f32[4]{0} broadcast(zero), dimensions={}
          a = f32[4]{0} add(x, zeros)
          m1 = f32[4]{0} maximum(a, x)
          ROOT m2 = f32[4]{0} maximum(m1, x)
        }
        """, """
        HloModule m

        ENTRY main (x: f32[4]) -> f32[4] {
          x = f32[4]{0} parameter(0)
          zero = f32[] constant(0)
          zeros = f32[4]{0} broadcast(zero), dimensions={}
          ROOT m2 = f32[4]{0} maximum(x, x)
        }
        """)


def test_hlo_cse_merges_two_equal_multiplies():
    """Two ``multiply(p, p)`` are one: the later one's users read the first."""
    assert_pass(HloCSE(), """
        HloModule m

        ENTRY main {
          p = f32[4]{0} parameter(0)
          a = f32[4]{0} multiply(p, p)
          b = f32[4]{0} multiply(p, p)
          ROOT s = f32[4]{0} add(a, b)
        }
        """, """
        HloModule m

        ENTRY main (p: f32[4]) -> f32[4] {
          p = f32[4]{0} parameter(0)
          a = f32[4]{0} multiply(p, p)
          ROOT s = f32[4]{0} add(a, a)
        }
        """)


def test_hlo_cse_merges_duplicate_placement_annotations():
    """Two equal placement annotations of one value are one (the CSE the compile runs on them)."""
    assert_pass(AnnotationCSE(), """
        HloModule m

        ENTRY main {
          p = f32[4]{0} parameter(0)
          a = f32[4]{0} custom-call(p), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
          b = f32[4]{0} custom-call(p), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
          ROOT t = (f32[4]{0}, f32[4]{0}) tuple(a, b)
        }
        """, """
        HloModule m

        ENTRY main (p: f32[4]) -> (f32[4], f32[4]) {
          p = f32[4]{0} parameter(0)
          a = f32[4]{0} custom-call(p), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
          ROOT t = (f32[4]{0}, f32[4]{0}) tuple(a, a)
        }
        """)


def test_hlo_dce_removes_a_dead_chain():
    """Instructions nothing reads (a chain of two) go; the parameter stays."""
    assert_pass(HloDCE(), """
        HloModule m

        ENTRY main {
          p = f32[4]{0} parameter(0)
          dead = f32[4]{0} exponential(p)
          dead2 = f32[4]{0} negate(dead)
          ROOT n = f32[4]{0} negate(p)
        }
        """, """
        HloModule m

        ENTRY main (p: f32[4]) -> f32[4] {
          p = f32[4]{0} parameter(0)
          ROOT n = f32[4]{0} negate(p)
        }
        """)


def test_tuple_simplifier_folds_a_whole_tuple_into_its_source():
    """``tuple(gte(p, 0), gte(p, 1))`` is ``p`` (``RemoveWholeTuple``); the gtes are left for DCE."""
    assert_pass(TupleSimplifier(), """
        HloModule m

        ENTRY main {
          p = (f32[4]{0}, s32[]) parameter(0)
          a = f32[4]{0} get-tuple-element(p), index=0
          b = s32[] get-tuple-element(p), index=1
          ROOT t = (f32[4]{0}, s32[]) tuple(a, b)
        }
        """, """
        HloModule m

        ENTRY main (p: (f32[4], s32[])) -> (f32[4], s32[]) {
          ROOT p = (f32[4]{0}, s32[]) parameter(0)
          a = f32[4]{0} get-tuple-element(p), index=0
          b = s32[] get-tuple-element(p), index=1
        }
        """)


def test_tuple_simplifier_forwards_gte_of_tuple():
    """``get-tuple-element(tuple(a, b), 1)`` is ``b``; the tuple plumbing left unused goes."""
    assert_pass(forward_tuple_elements, """
        HloModule m

        ENTRY main {
          a = f32[4]{0} parameter(0)
          b = f32[4]{0} parameter(1)
          t = (f32[4]{0}, f32[4]{0}) tuple(a, b)
          g = f32[4]{0} get-tuple-element(t), index=1
          ROOT n = f32[4]{0} negate(g)
        }
        """, """
        HloModule m

        ENTRY main (a: f32[4], b: f32[4]) -> f32[4] {
          a = f32[4]{0} parameter(0)
          b = f32[4]{0} parameter(1)
          ROOT n = f32[4]{0} negate(b)
        }
        """)


def test_reshape_mover_sinks_a_reshape_below_an_elementwise_op():
    """``sine(reshape(ds))`` becomes ``reshape(sine(ds))``: the sine runs on the slice's own shape."""
    assert_pass(ReshapeMover(), """
        HloModule m

        ENTRY main {
          x = f32[3,4]{1,0} parameter(0)
          i = s32[] parameter(1)
          z = s32[] constant(0)
          ds = f32[1,4]{1,0} dynamic-slice(x, i, z), dynamic_slice_sizes={1,4}
          r = f32[4]{0} reshape(ds)
          ROOT s = f32[4]{0} sine(r)
        }
        """, """
        HloModule m

        ENTRY main (x: f32[3,4], i: s32[]) -> f32[4] {
          x = f32[3,4]{1,0} parameter(0)
          i = s32[] parameter(1)
          z = s32[] constant(0)
          ds = f32[1,4]{1,0} dynamic-slice(x, i, z), dynamic_slice_sizes={1,4}
          r = f32[4]{0} reshape(ds)
          s.1 = f32[1,4]{1,0} sine(ds)
          ROOT reshape = f32[4]{0} reshape(s.1)
        }
        """)


def test_while_loop_simplifier_inlines_a_loop_of_one_trip():
    """A loop that runs once is its body on the init tuple, inlined, the gte(tuple) plumbing folded."""
    assert_pass(WhileLoopSimplifier(), """
        HloModule m

        cond {
          p = (s32[], f32[1,4]) parameter(0)
          i = s32[] get-tuple-element(p), index=0
          n = s32[] constant(1)
          ROOT lt = pred[] compare(i, n), direction=LT
        }

        body {
          p = (s32[], f32[1,4]) parameter(0)
          i = s32[] get-tuple-element(p), index=0
          buf = f32[1,4] get-tuple-element(p), index=1
          one = s32[] constant(1)
          next = s32[] add(i, one)
          c = f32[] constant(1)
          row = f32[1,4] broadcast(c), dimensions={}
          z = s32[] constant(0)
          d = f32[1,4] dynamic-update-slice(buf, row, i, z)
          ROOT t = (s32[], f32[1,4]) tuple(next, d)
        }

        ENTRY main {
          zero = f32[] constant(0)
          b = f32[1,4] broadcast(zero), dimensions={}
          i0 = s32[] constant(0)
          init = (s32[], f32[1,4]) tuple(i0, b)
          ROOT w = (s32[], f32[1,4]) while(init), condition=cond, body=body
        }
        """, """
        HloModule m

        ENTRY main () -> (s32[], f32[1,4]) {
          zero = f32[] constant(0)
          b = f32[1,4]{1,0} broadcast(zero), dimensions={}
          i0 = s32[] constant(0)
          one = s32[] constant(1)
          next = s32[] add(i0, one)
          c = f32[] constant(1)
          row = f32[1,4]{1,0} broadcast(c), dimensions={}
          z = s32[] constant(0)
          d = f32[1,4]{1,0} dynamic-update-slice(b, row, i0, z)
          ROOT t = (s32[], f32[1,4]{1,0}) tuple(next, d)
        }
        """)


def test_call_inliner_inlines_the_callee():
    """The ``call`` is replaced by the callee's body; the callee, unused, is gone."""
    assert_pass(CallInliner(), """
        HloModule m

        double {
          x = f32[4]{0} parameter(0)
          ROOT y = f32[4]{0} add(x, x)
        }

        ENTRY main {
          p = f32[4]{0} parameter(0)
          c = f32[4]{0} call(p), to_apply=double
          ROOT n = f32[4]{0} negate(c)
        }
        """, """
        HloModule m

        ENTRY main (p: f32[4]) -> f32[4] {
          p = f32[4]{0} parameter(0)
          y = f32[4]{0} add(p, p)
          ROOT n = f32[4]{0} negate(y)
        }
        """)
