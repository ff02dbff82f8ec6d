"""The passes of libtpu's compile before HostOffloadLegalize, text in and text out (:mod:`pass_text`):
the StableHLO rebuild, ShardingRemover, the host call wrapper, HostOffloadingPrepare, and libtpu's
own concat-decomposer, scatter-to-DUS, while-initializer-removal and pipelining-optimizations,
each on a module made to show the rewrite the compiler's dumps show."""

from __future__ import annotations

from pass_text import assert_pass, check_pass
from xladoctor.offload.passes.concat_decomposer import ConcatDecomposer
from xladoctor.offload.passes.hlo_host_device_type_call_wrapper import HloHostDeviceTypeCallWrapper
from xladoctor.offload.passes.host_offloading_prepare import HostOffloadingPrepare
from xladoctor.offload.passes.pipelining_optimizations import PipeliningOptimizations
from xladoctor.offload.passes.scatter_to_dus import ScatterToDus
from xladoctor.offload.passes.sharding_remover import ShardingRemover
from xladoctor.offload.passes.stablehlo_rebuild import StablehloRebuild
from xladoctor.offload.passes.while_initializer_removal import WhileInitializerRemoval


def test_concat_decomposer_pads_each_operand_and_takes_the_maximum():
    """A float concatenate along dimension 0 is a ``pad`` of each operand with ``-inf`` and a ``maximum`` chain."""
    assert_pass(ConcatDecomposer(), """
        HloModule m

        ENTRY main {
          a = f32[1,4]{1,0} parameter(0)
          b = f32[1,4]{1,0} parameter(1)
          ROOT c = f32[2,4]{1,0} concatenate(a, b), dimensions={0}
        }
        """, """
        HloModule m

        ENTRY main (a: f32[1,4], b: f32[1,4]) -> f32[2,4] {
          a = f32[1,4]{1,0} parameter(0)
          b = f32[1,4]{1,0} parameter(1)
          constant = f32[] constant(-inf)
          pad = f32[2,4]{1,0} pad(a, constant), padding=0_1x0_0
          pad.1 = f32[2,4]{1,0} pad(b, constant), padding=1_0x0_0
          ROOT maximum = f32[2,4]{1,0} maximum(pad, pad.1)
        }
        """)


def test_scatter_to_dus_turns_an_overwriting_one_row_scatter_into_a_dus():
    """``x.at[0].set(row)``'s scatter is ``dynamic-update-slice(x, reshape(row), 0, 0)``."""
    assert_pass(ScatterToDus(), """
        HloModule m

        overwrite {
          a = f32[] parameter(0)
          ROOT b = f32[] parameter(1)
        }

        ENTRY main {
          x = f32[3,4]{1,0} parameter(0)
          row = f32[4]{0} parameter(1)
          idx = s32[1]{0} constant({0})
          ROOT s = f32[3,4]{1,0} scatter(x, idx, row), update_window_dims={0}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=0, to_apply=overwrite
        }
        """, """
        HloModule m

        overwrite (a: f32[], b: f32[]) -> f32[] {
          a = f32[] parameter(0)
          ROOT b = f32[] parameter(1)
        }

        ENTRY main (x: f32[3,4], row: f32[4]) -> f32[3,4] {
          x = f32[3,4]{1,0} parameter(0)
          row = f32[4]{0} parameter(1)
          idx = s32[1]{0} constant({0})
          reshape = f32[1,4] reshape(row)
          constant = s32[] constant(0)
          constant.1 = s32[] constant(0)
          ROOT dynamic-update-slice = f32[3,4]{1,0} dynamic-update-slice(x, reshape, constant, constant.1)
        }
        """)


def test_while_initializer_removal_allocates_the_ys_buffer():
    """A scan's zero-filled buffer, overwritten row by row at the induction variable, is an ``AllocateBuffer``."""
    assert_pass(WhileInitializerRemoval(), """
        HloModule m

        cond {
          p = (s32[], f32[3,4]) parameter(0)
          i = s32[] get-tuple-element(p), index=0
          n = s32[] constant(3)
          ROOT lt = pred[] compare(i, n), direction=LT
        }

        body {
          p = (s32[], f32[3,4]) parameter(0)
          i = s32[] get-tuple-element(p), index=0
          buf = f32[3,4] get-tuple-element(p), index=1
          one = s32[] constant(1)
          next = s32[] add(i, one)
          c = f32[] constant(1)
          row = f32[1,4] broadcast(c), dimensions={}
          z = s32[] constant(0)
          d = f32[3,4] dynamic-update-slice(buf, row, i, z)
          ROOT t = (s32[], f32[3,4]) tuple(next, d)
        }

        ENTRY main {
          zero = f32[] constant(0)
          b = f32[3,4] broadcast(zero), dimensions={}
          i0 = s32[] constant(0)
          init = (s32[], f32[3,4]) tuple(i0, b)
          ROOT w = (s32[], f32[3,4]) while(init), condition=cond, body=body
        }
        """, """
        HloModule m

        cond (p: (s32[], f32[3,4])) -> pred[] {
          p = (s32[], f32[3,4]{1,0}) parameter(0)
          i = s32[] get-tuple-element(p), index=0
          n = s32[] constant(3)
          ROOT lt = pred[] compare(i, n), direction=LT
        }

        body (p.1: (s32[], f32[3,4])) -> (s32[], f32[3,4]) {
          p.1 = (s32[], f32[3,4]{1,0}) parameter(0)
          i.1 = s32[] get-tuple-element(p.1), index=0
          buf = f32[3,4]{1,0} get-tuple-element(p.1), index=1
          one = s32[] constant(1)
          next = s32[] add(i.1, one)
          c = f32[] constant(1)
          row = f32[1,4]{1,0} broadcast(c), dimensions={}
          z = s32[] constant(0)
          d = f32[3,4]{1,0} dynamic-update-slice(buf, row, i.1, z)
          ROOT t = (s32[], f32[3,4]{1,0}) tuple(next, d)
        }

        ENTRY main () -> (s32[], f32[3,4]) {
          zero = f32[] constant(0)
          b = f32[3,4]{1,0} broadcast(zero), dimensions={}
          i0 = s32[] constant(0)
          custom-call = f32[3,4]{1,0} custom-call(), custom_call_target="AllocateBuffer"
          init = (s32[], f32[3,4]{1,0}) tuple(i0, custom-call)
          ROOT w = (s32[], f32[3,4]{1,0}) while(init), condition=cond, body=body
        }
        """)


def test_pipelining_optimizations_moves_move_to_device_in_front_of_the_barrier():
    """The MoveToDevice read out of an ``opt-barrier`` moves onto the tuple's operand; the barrier carries a device value."""
    assert_pass(PipeliningOptimizations(), """
        HloModule m

        ENTRY main {
          x = f32[4]{0} parameter(0)
          w = f32[4]{0} parameter(1)
          mth = f32[4]{0} custom-call(x), custom_call_target="MoveToHost"
          t = (f32[4]{0}, f32[4]{0}) tuple(mth, w)
          b = (f32[4]{0}, f32[4]{0}) opt-barrier(t)
          g = f32[4]{0} get-tuple-element(b), index=0
          mtd = f32[4]{0} custom-call(g), custom_call_target="MoveToDevice"
          ROOT r = f32[4]{0} add(mtd, w)
        }
        """, """
        HloModule m

        ENTRY main (x: f32[4], w: f32[4]) -> f32[4] {
          x = f32[4]{0} parameter(0)
          w = f32[4]{0} parameter(1)
          mth = f32[4]{0} custom-call(x), custom_call_target="MoveToHost"
          mtd.1 = f32[4]{0} custom-call(mth), custom_call_target="MoveToDevice"
          t = (f32[4]{0}, f32[4]{0}) tuple(mtd.1, w)
          b = (f32[4]{0}, f32[4]{0}) opt-barrier(t)
          g = f32[4]{0} get-tuple-element(b), index=0
          ROOT r = f32[4]{0} add(g, w)
        }
        """)


def test_sharding_remover_replaces_a_marker_by_its_operand():
    """A ``Sharding`` custom-call is replaced by its operand."""
    assert_pass(ShardingRemover(), """
        HloModule m

        ENTRY main {
          p = f32[4]{0} parameter(0)
          s = f32[4]{0} custom-call(p), custom_call_target="Sharding", sharding={replicated}
          ROOT n = f32[4]{0} negate(s)
        }
        """, """
        HloModule m

        ENTRY main (p: f32[4]) -> f32[4] {
          p = f32[4]{0} parameter(0)
          ROOT n = f32[4]{0} negate(p)
        }
        """)


def test_sharding_remover_makes_a_shard_map_per_device_before_removing_its_boundaries():
    """Shardy's ``GlobalToLocalShape``/``LocalToGlobalShape`` change shapes: as after XLA's SPMD
    partitioner, the parameter, the placement annotation of the result, the result tuple and the
    entry layout (its ``S(5)`` kept) are per-device, and the boundaries go like markers.  Removing
    them as plain markers gave the ``f32[8,128]`` annotation an ``f32[4,128]`` operand (issue 34)."""
    assert_pass(ShardingRemover(), """
        HloModule m, entry_computation_layout={(f32[8,128]{1,0})->f32[8,128]{1,0:S(5)}}

        body {
          l = f32[4,128]{1,0} parameter(0)
          ROOT n = f32[4,128]{1,0} negate(l)
        }

        ENTRY main {
          x = f32[8,128]{1,0} parameter(0), sharding={devices=[2,1]<=[2]}
          g2l = f32[4,128]{1,0} custom-call(x), custom_call_target="xla.sdy.GlobalToLocalShape", custom_call_has_side_effect=true
          c = f32[4,128]{1,0} call(g2l), to_apply=body
          l2g = f32[8,128]{1,0} custom-call(c), custom_call_target="xla.sdy.LocalToGlobalShape", custom_call_has_side_effect=true
          h = f32[8,128]{1,0} custom-call(l2g), custom_call_target="annotate_device_placement", custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}
          r = f32[8,128]{1,0} custom-call(h), custom_call_target="xla.sdy.FuncResultSharding", custom_call_has_side_effect=true
          t = (f32[8,128]{1,0}) tuple(r)
          ROOT o = f32[8,128]{1,0} get-tuple-element(t), index=0, sharding={devices=[2,1]<=[2]}
        }
        """, """
        HloModule m, entry_computation_layout={(f32[4,128]{1,0})->f32[4,128]{1,0:S(5)}}

        body (l: f32[4,128]) -> f32[4,128] {
          l = f32[4,128]{1,0} parameter(0)
          ROOT n = f32[4,128]{1,0} negate(l)
        }

        ENTRY main (x: f32[4,128]) -> f32[4,128] {
          x = f32[4,128]{1,0} parameter(0), sharding={devices=[2,1]<=[2]}
          c = f32[4,128]{1,0} call(x), to_apply=body
          h = f32[4,128]{1,0} custom-call(c), custom_call_target="annotate_device_placement", custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}
          t = (f32[4,128]{1,0}) tuple(h)
          ROOT o = f32[4,128]{1,0} get-tuple-element(t), index=0, sharding={devices=[2,1]<=[2]}
        }
        """)


def test_sharding_remover_keeps_what_it_does_not_partition_global():
    """Beyond the model (a ``dot`` of the ``shard_map``'s result, a global value computed before
    the boundary): those keep their global shapes and the ``GlobalToLocalShape`` of a global
    value stays; the annotation of the result alone becomes per-device."""
    check_pass(ShardingRemover(), """
        HloModule m

        body {
          l = f32[4,128]{1,0} parameter(0)
          ROOT n = f32[4,128]{1,0} negate(l)
        }

        ENTRY main {
          x = f32[8,128]{1,0} parameter(0)
          e = f32[8,128]{1,0} exponential(x)
          g2l = f32[4,128]{1,0} custom-call(e), custom_call_target="xla.sdy.GlobalToLocalShape", custom_call_has_side_effect=true
          c = f32[4,128]{1,0} call(g2l), to_apply=body
          l2g = f32[8,128]{1,0} custom-call(c), custom_call_target="xla.sdy.LocalToGlobalShape", custom_call_has_side_effect=true
          d = f32[128,128]{1,0} dot(l2g, l2g), lhs_contracting_dims={0}, rhs_contracting_dims={0}
          h = f32[8,128]{1,0} custom-call(l2g), custom_call_target="annotate_device_placement", custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}
          ROOT t = (f32[8,128]{1,0}, f32[128,128]{1,0}, f32[8,128]{1,0}) tuple(h, d, e)
        }
        """, """
        CHECK-DAG: x = f32[8,128]{1,0} parameter(0)
        CHECK-DAG: g2l = f32[4,128]{1,0} custom-call(e), custom_call_target="xla.sdy.GlobalToLocalShape", custom_call_has_side_effect=true
        CHECK-DAG: d = f32[128,128]{1,0} dot(c, c), lhs_contracting_dims={0}, rhs_contracting_dims={0}
        CHECK-DAG: h = f32[4,128]{1,0} custom-call(c), custom_call_target="annotate_device_placement", custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}
        CHECK-DAG: ROOT t = (f32[4,128]{1,0}, f32[128,128]{1,0}, f32[8,128]{1,0}) tuple(h, d, e)
        CHECK-NOT: LocalToGlobalShape
        """)


def test_stablehlo_rebuild_folds_tuples_drops_dead_code_and_reorders():
    """The rebuild from StableHLO: gte(tuple) folded, dead code dropped, instructions in the root's DFS order."""
    assert_pass(StablehloRebuild(), """
        HloModule m

        ENTRY main {
          p = f32[4]{0} parameter(0)
          q = f32[4]{0} parameter(1)
          t = (f32[4]{0}, f32[4]{0}) tuple(p, q)
          dead = f32[4]{0} exponential(q)
          g = f32[4]{0} get-tuple-element(t), index=0
          ROOT n = f32[4]{0} negate(g)
        }
        """, """
        HloModule m

        ENTRY main (p: f32[4], q: f32[4]) -> f32[4] {
          q = f32[4]{0} parameter(1)
          p = f32[4]{0} parameter(0)
          ROOT n = f32[4]{0} negate(p)
        }
        """)


def test_host_call_wrapper_merges_two_independent_host_calls():
    """Two independent host calls are one ``host-call`` returning a tuple; each old call's users read their element."""
    assert_pass(HloHostDeviceTypeCallWrapper(), """
        HloModule m

        h1 {
          x = f32[4]{0} parameter(0)
          ROOT n = f32[4]{0} negate(x)
        }

        h2 {
          y = f32[4]{0} parameter(0)
          ROOT e = f32[4]{0} exponential(y)
        }

        ENTRY main {
          p = f32[4]{0} parameter(0)
          q = f32[4]{0} parameter(1)
          c1 = f32[4]{0} call(p), to_apply=h1, frontend_attributes={_xla_compute_type="host"}
          c2 = f32[4]{0} call(q), to_apply=h2, frontend_attributes={_xla_compute_type="host"}
          ROOT t = (f32[4]{0}, f32[4]{0}) tuple(c1, c2)
        }
        """, """
        HloModule m

        ENTRY main (p: f32[4], q: f32[4]) -> (f32[4], f32[4]) {
          p = f32[4]{0} parameter(0)
          q = f32[4]{0} parameter(1)
          host-call = (f32[4]{0}, f32[4]{0}) call(q, p), to_apply=called_computation, frontend_attributes={_xla_compute_type="host"}
          get-tuple-element = f32[4]{0} get-tuple-element(host-call), index=0
          get-tuple-element.1 = f32[4]{0} get-tuple-element(host-call), index=1
          ROOT t = (f32[4]{0}, f32[4]{0}) tuple(get-tuple-element.1, get-tuple-element)
        }

        called_computation (param: f32[4], param.1: f32[4]) -> (f32[4], f32[4]) {
          param = f32[4]{0} parameter(0)
          e.1 = f32[4]{0} exponential(param)
          param.1 = f32[4]{0} parameter(1)
          n.1 = f32[4]{0} negate(param.1)
          ROOT tuple = (f32[4]{0}, f32[4]{0}) tuple(e.1, n.1)
        }
        """)


def test_host_offloading_prepare_elides_a_move_into_a_host_call():
    """A MoveToHost feeding a host computation call is removed: the call reads the device value."""
    assert_pass(HostOffloadingPrepare(), """
        HloModule m

        host {
          x = f32[4]{0} parameter(0)
          ROOT n = f32[4]{0} negate(x)
        }

        ENTRY main {
          p = f32[4]{0} parameter(0)
          mth = f32[4]{0} custom-call(p), custom_call_target="MoveToHost"
          ROOT c = f32[4]{0} call(mth), to_apply=host, frontend_attributes={_xla_compute_type="host"}
        }
        """, """
        HloModule m

        host (x: f32[4]) -> f32[4] {
          x = f32[4]{0} parameter(0)
          ROOT n = f32[4]{0} negate(x)
        }

        ENTRY main (p: f32[4]) -> f32[4] {
          p = f32[4]{0} parameter(0)
          ROOT c = f32[4]{0} call(p), to_apply=host, frontend_attributes={_xla_compute_type="host"}
        }
        """)


def test_host_call_wrapper_counts_host_calls_by_their_attribute():
    """One host call, beside instructions with other frontend attributes (and one with another
    compute type), is nothing to merge: the count reads the rare fields of those that have them."""
    from xladoctor.offload.passes.hlo_host_device_type_call_wrapper import _two_host_computes, wrap_host_calls
    from xladoctor.syntax.hlo_parser import parse_module

    text = """HloModule m

h1 {
  x = f32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(x)
}

ENTRY main {
  p = f32[4]{0} parameter(0)
  q = f32[4]{0} parameter(1), frontend_attributes={_xla_compute_type="host"}
  c1 = f32[4]{0} call(p), to_apply=h1, frontend_attributes={_xla_compute_type="host"}
  c2 = f32[4]{0} call(q), to_apply=h1, frontend_attributes={_xla_compute_type="device"}
  s = f32[4]{0} sine(c2), frontend_attributes={other="host"}
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(c1, s)
}
"""
    module = parse_module(text)
    entry = module.entry_computation()
    hosts = [i.name for i in entry.instructions if i.frontend_attributes.get("_xla_compute_type") == "host"]
    assert hosts == ["q", "c1"]
    from xladoctor.offload.passes import hlo_host_device_type_call_wrapper as wrapper
    compiled = wrapper.COMPILED
    try:
        for wrapper.COMPILED in (False, True):  # pure Python's map and the compiled core's loop alike
            assert _two_host_computes(entry.instructions)
            assert not _two_host_computes([i for i in entry.instructions if i.name != "q"])
            assert not _two_host_computes(module.computation("h1").instructions)
    finally:
        wrapper.COMPILED = compiled
    assert wrap_host_calls(module) == []  # q is no call: the two are not mergeable
