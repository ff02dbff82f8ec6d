"""The conditional passes and the host-offload passes, text in and text out (:mod:`pass_text`):
ConditionalCanonicalizer, ConditionalCodeMotion, HostOffloadLegalize and HostOffloader.  The last
two append what they create at the end of the computation (the text order of our private copy,
not a printed XLA module), so their result is checked FileCheck-like: lines present, lines gone."""

from __future__ import annotations

from pass_text import assert_pass, check_pass
from xladoctor.offload.passes.conditional_canonicalizer import ConditionalCanonicalizer
from xladoctor.offload.passes.conditional_code_motion import ConditionalCodeMotion
from xladoctor.offload.passes.host_offload_legalize import HostOffloadLegalize
from xladoctor.offload.passes.host_offloader import HostOffloader, OffloadOptions


def test_conditional_canonicalizer_makes_branch_parameters_and_results_tuples():
    """Each branch takes and returns a one-element tuple; the conditional is cloned with a tuple shape and read by a gte."""
    assert_pass(ConditionalCanonicalizer(), """
        HloModule m

        b0 {
          x = f32[4]{0} parameter(0)
          ROOT n = f32[4]{0} negate(x)
        }

        b1 {
          y = f32[4]{0} parameter(0)
          ROOT e = f32[4]{0} exponential(y)
        }

        ENTRY main {
          i = s32[] parameter(0)
          p = f32[4]{0} parameter(1)
          ROOT c = f32[4]{0} conditional(i, p, p), branch_computations={b0, b1}
        }
        """, """
        HloModule m

        b0 (x.1: (f32[4])) -> (f32[4]) {
          x.1 = (f32[4]{0}) parameter(0)
          get-tuple-element = f32[4]{0} get-tuple-element(x.1), index=0
          n = f32[4]{0} negate(get-tuple-element)
          ROOT tuple = (f32[4]{0}) tuple(n)
        }

        b1 (y.1: (f32[4])) -> (f32[4]) {
          y.1 = (f32[4]{0}) parameter(0)
          get-tuple-element.1 = f32[4]{0} get-tuple-element(y.1), index=0
          e = f32[4]{0} exponential(get-tuple-element.1)
          ROOT tuple.1 = (f32[4]{0}) tuple(e)
        }

        ENTRY main (i: s32[], p: f32[4]) -> f32[4] {
          i = s32[] parameter(0)
          p = f32[4]{0} parameter(1)
          tuple.2 = (f32[4]{0}) tuple(p)
          tuple.3 = (f32[4]{0}) tuple(p)
          c.clone = (f32[4]{0}) conditional(i, tuple.2, tuple.3), branch_computations={b0, b1}
          ROOT get-tuple-element.2 = f32[4]{0} get-tuple-element(c.clone), index=0
        }
        """)


def test_conditional_code_motion_moves_the_shared_last_op_out():
    """Both branches end with ``sine``: it moves after the conditional, before the MoveToHost reading it."""
    assert_pass(ConditionalCodeMotion(), """
        HloModule m

        b0 {
          x = (f32[4]{0}) parameter(0)
          g = f32[4]{0} get-tuple-element(x), index=0
          n = f32[4]{0} negate(g)
          s = f32[4]{0} sine(n)
          ROOT t = (f32[4]{0}) tuple(s)
        }

        b1 {
          y = (f32[4]{0}) parameter(0)
          g1 = f32[4]{0} get-tuple-element(y), index=0
          e = f32[4]{0} exponential(g1)
          sn1 = f32[4]{0} sine(e)
          ROOT t1 = (f32[4]{0}) tuple(sn1)
        }

        ENTRY main {
          i = s32[] parameter(0)
          p = f32[4]{0} parameter(1)
          tp = (f32[4]{0}) tuple(p)
          c = (f32[4]{0}) conditional(i, tp, tp), branch_computations={b0, b1}
          r = f32[4]{0} get-tuple-element(c), index=0
          ROOT mth = f32[4]{0} custom-call(r), custom_call_target="MoveToHost"
        }
        """, """
        HloModule m

        b0 (x: (f32[4])) -> (f32[4]) {
          x = (f32[4]{0}) parameter(0)
          g = f32[4]{0} get-tuple-element(x), index=0
          n = f32[4]{0} negate(g)
          ROOT tuple = (f32[4]{0}) tuple(n)
        }

        b1 (y: (f32[4])) -> (f32[4]) {
          y = (f32[4]{0}) parameter(0)
          g1 = f32[4]{0} get-tuple-element(y), index=0
          e = f32[4]{0} exponential(g1)
          ROOT tuple.1 = (f32[4]{0}) tuple(e)
        }

        ENTRY main (i: s32[], p: f32[4]) -> f32[4] {
          i = s32[] parameter(0)
          p = f32[4]{0} parameter(1)
          tp = (f32[4]{0}) tuple(p)
          c = (f32[4]{0}) conditional(i, tp, tp), branch_computations={b0, b1}
          get-tuple-element = f32[4]{0} get-tuple-element(c), index=0
          s.1 = f32[4]{0} sine(get-tuple-element)
          ROOT mth = f32[4]{0} custom-call(s.1), custom_call_target="MoveToHost"
        }
        """)


def test_host_offload_legalize_moves_a_copy_below_the_move_to_device():
    """A layout ``copy`` between MoveToHost and MoveToDevice moves after the MoveToDevice: the
    host value keeps the parameter's layout and the copy is made on device."""
    check_pass(HostOffloadLegalize(), """
        HloModule m, entry_computation_layout={(f32[16,256]{0,1})->f32[16,256]{1,0}}

        ENTRY main {
          a = f32[16,256]{0,1} parameter(0)
          mth = f32[16,256]{0,1} custom-call(a), custom_call_target="MoveToHost"
          cp = f32[16,256]{1,0} copy(mth)
          mtd = f32[16,256]{1,0} custom-call(cp), custom_call_target="MoveToDevice"
          ROOT n = f32[16,256]{1,0} negate(mtd)
        }
        """, """
        CHECK-DAG: mth = f32[16,256]{0,1} custom-call(a), custom_call_target="MoveToHost"
        CHECK-DAG: mtd = f32[16,256]{0,1} custom-call(mth), custom_call_target="MoveToDevice"
        CHECK-DAG: cp.1 = f32[16,256]{1,0} copy(mtd)
        CHECK-DAG: ROOT n = f32[16,256]{1,0} negate(cp.1)
        CHECK-NOT: copy(mth)
        """)


def test_host_offloader_turns_the_moves_into_copies_to_and_from_host_memory():
    """MoveToHost of a parameter read back by MoveToDevice: a copy into host memory space
    (``S(5)``) and one back replace the pair, whose custom-calls lose their operands and users."""
    check_pass(HostOffloader(OffloadOptions()), """
        HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

        ENTRY main {
          p = f32[4]{0} parameter(0)
          mth = f32[4]{0} custom-call(p), custom_call_target="MoveToHost"
          n = f32[4]{0} negate(p)
          mtd = f32[4]{0} custom-call(mth), custom_call_target="MoveToDevice"
          ROOT a = f32[4]{0} add(mtd, n)
        }
        """, """
        CHECK-DAG: copy.1 = f32[4]{0:S(5)} copy(p)
        CHECK-DAG: copy.2 = f32[4]{0} copy(copy.1)
        CHECK-DAG: ROOT a = f32[4]{0} add(copy.2, n)
        CHECK-NOT: custom-call(p)
        CHECK-NOT: custom-call(mth)
        """)
