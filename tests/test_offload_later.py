"""Compile failures after HostOffloader (offload/later_failures.py) and conditionals on host.

Each jax program is written the way users write them and compiled by the real TPU compiler
(libtpu 0.0.42.1, v5e); our outcome must be the compiler's (same kind, the compiler's own
message class) or, for the one class only warned about, the named divergence with the
warning.  The HLO-level tests at the end need no compiler.
"""

from __future__ import annotations

import pytest

from offload_judged import judged
from xladoctor.offload import analyze_host_offload
from xladoctor.oracle import compare, prediction_of, unavailable_reason
from xladoctor.oracle.divergences import match_divergence
from xladoctor.syntax.hlo_parser import parse_module

needs_libtpu = pytest.mark.skipif(unavailable_reason() is not None,
                                  reason=f"real TPU compiler unavailable: {unavailable_reason()}")


def _programs():
    import jax
    import jax.numpy as jnp
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    dev = topologies.get_topology_desc("v5e:2x2", "tpu").devices[0]
    hs = SingleDeviceSharding(dev, memory_kind="pinned_host")
    ds = SingleDeviceSharding(dev, memory_kind="device")
    host, device = jax.memory.Space.Host, jax.memory.Space.Device

    def arg(shape, dtype=jnp.float32, sharding=ds):
        return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)

    def body(c, x):
        c = c + x
        return c, jax.device_put(c, host)

    def cond(p, x):
        return jax.lax.cond(p, lambda v: jax.device_put(v * 2, host), lambda v: jax.device_put(v + 1, host), x)

    def switch(i, x):
        return jax.lax.switch(i, [lambda v: jax.device_put(v * 2, host), lambda v: jax.device_put(v - 1, host)], x)

    to_dev = lambda x: jax.device_put(x, device)  # noqa: E731
    return {
        # name: (function, jit options, arguments, expected outcome, compiler's message class)
        "donated_returned_on_host": (lambda x: jax.device_put(x * 2, host), {"donate_argnums": 0},
                                     (arg((8, 128)),), "failure", "Unimplemented DMA from hbm to hbm"),
        "donated_pair_one_on_host": (lambda x, y: (y + 1, jax.device_put(x * 2, host)), {"donate_argnums": (0, 1)},
                                     (arg((8, 128)), arg((8, 128))), "failure", "Unimplemented DMA from hbm to hbm"),
        "donated_host_moved_to_device": (to_dev, {"donate_argnums": 0}, (arg((8, 128), sharding=hs),),
                                         "failure", "Unimplemented DMA from host to host"),
        "donated_host_computed_on_device": (lambda x: to_dev(x) + 1, {"donate_argnums": 0},
                                            (arg((8, 128), sharding=hs),), "ok", None),
        "not_donated_returned_on_host": (lambda x: jax.device_put(x * 2, host), {}, (arg((8, 128)),), "ok", None),
        "int8_host_32x128": (lambda x: to_dev(x) + 1, {}, (arg((32, 128), jnp.int8, hs),), "failure",
                             "CopyDone arguments need to be the same shape"),
        "uint8_host_4x64x96": (to_dev, {}, (arg((4, 64, 96), jnp.uint8, hs),), "failure",
                               "CopyDone arguments need to be the same shape"),
        "int4_host_64x128": (to_dev, {}, (arg((64, 128), jnp.int4, hs),), "failure",
                             "CopyDone arguments need to be the same shape"),
        "int8_host_33x128": (to_dev, {}, (arg((33, 128), jnp.int8, hs),), "ok", None),
        "int4_host_32x128": (to_dev, {}, (arg((32, 128), jnp.int4, hs),), "ok", None),
        "bf16_host_32x128": (to_dev, {}, (arg((32, 128), jnp.bfloat16, hs),), "ok", None),
        "int8_host_returned_on_host": (lambda x: x, {"out_shardings": hs}, (arg((32, 128), jnp.int8, hs),), "ok", None),
        "int8_host_flattened_fix": (lambda x: to_dev(x).reshape(32, 128) + 1, {}, (arg((4096,), jnp.int8, hs),),
                                    "ok", None),
        "scan_host_ys": (lambda c, xs: jax.lax.scan(body, c, xs), {}, (arg((8, 128)), arg((4, 8, 128))), "ok", None),
        "scan_host_ys_reshaped": (lambda c, xs: jax.lax.scan(body, c, xs)[1].reshape(-1, 128), {},
                                  (arg((8, 128)), arg((4, 8, 128))), "ok", None),
        "cond_all_branches_host": (cond, {"out_shardings": hs},
                                   (arg((), jnp.bool_), arg((8, 128))), "ok", None),
        "switch_all_branches_host": (switch, {}, (arg((), jnp.int32), arg((8, 128))), "ok", None),
    }


CASES = ("donated_returned_on_host", "donated_pair_one_on_host", "donated_host_moved_to_device",
         "donated_host_computed_on_device", "not_donated_returned_on_host", "int8_host_32x128",
         "uint8_host_4x64x96", "int4_host_64x128", "int8_host_33x128", "int4_host_32x128", "bf16_host_32x128",
         "int8_host_returned_on_host", "int8_host_flattened_fix", "scan_host_ys", "scan_host_ys_reshaped",
         "cond_all_branches_host",
         "switch_all_branches_host")


@pytest.fixture(scope="module")
def programs():
    return _programs()


@needs_libtpu
@pytest.mark.parametrize("name", CASES)
def test_outcome_is_the_real_compilers(name, programs):
    fn, jit_kwargs, args, expected, message = programs[name]
    report, verdict = judged(fn, args, expected, jit_kwargs)
    assert (verdict.kind == "compiles") == (expected == "ok"), verdict.summary()
    if expected == "ok":
        assert not report.result.later_warnings
    if message is not None:
        assert message in verdict.message
        assert message in report.failures[0]
        assert "Fix:" in report.failures[0]


def unrolled_scan_variants():
    """Host ys of ``scan(..., unroll=u)`` and what compiles: (function, arguments, outcome)."""
    import jax
    import jax.numpy as jnp

    host, device = jax.memory.Space.Host, jax.memory.Space.Device
    x = jnp.zeros((8, 128))

    def scan(n, u, ys_on_host=True):
        def run(c):
            return jax.lax.scan(lambda c, _: (jnp.sin(c), jax.device_put(jnp.sin(c), host) if ys_on_host
                                              else jnp.sin(c)), c, None, length=n, unroll=u)
        return run

    def nested(n, u):
        def run(c):
            return jax.lax.scan(lambda c, _: (lambda r: (r[0], jax.device_put(r[1], device).sum(0)))(scan(n, u)(c)),
                                c, None, length=2)
        return run

    def user_merge(c):
        c, ys = jax.lax.scan(lambda c, _: (jnp.sin(c), jax.device_put(jnp.stack([c, c]), host)), c, None, length=4)
        return ys.reshape(8, 8, 128)

    return {
        "unroll_2_of_4": (scan(4, 2), (x,), "failure"),
        "unroll_3_of_7": (scan(7, 3), (x,), "failure"),
        "unroll_2_of_4_nested": (nested(4, 2), (x,), "failure"),
        "unroll_2_of_3_one_iteration_left": (scan(3, 2), (x,), "ok"),
        "unroll_4_of_4_full": (scan(4, 4), (x,), "ok"),
        "fix_ys_moved_after_the_scan": (lambda c: jax.device_put(scan(4, 2, False)(c)[1], host), (x,), "ok"),
        "users_own_merge_of_host_ys": (user_merge, (x,), "ok"),
    }


# The variants' names, written out: the programs are built in the test, not at collection (where
# building them started jax's backend and libtpu for every run, and without jax -- Python 3.10 --
# stopped the whole suite).  Each test checks the names against what it built.
UNROLLED_SCAN_NAMES = ("fix_ys_moved_after_the_scan", "unroll_2_of_3_one_iteration_left", "unroll_2_of_4",
                       "unroll_2_of_4_nested", "unroll_3_of_7", "unroll_4_of_4_full", "users_own_merge_of_host_ys")
LOOP_STATE_RESHAPE_NAMES = (
    "another_loop_changing_memory_first", "carry_only", "computed_before_the_move", "fix_carry_moved_back",
    "nested", "nested_outer_carry_on_host", "nested_outer_result_computed_on_host", "one_iteration",
    "ys_and_carry_moved_back", "ys_reshaped_bf16", "ys_returned_on_host_rank1", "ys_summed")


@needs_libtpu
@pytest.mark.parametrize("name", UNROLLED_SCAN_NAMES)
def test_unrolled_scan_with_host_ys_is_the_real_compilers(name):
    """A reshape of an unrolled scan's host ys fails when the loop is left with 2 or more iterations."""
    variants = unrolled_scan_variants()
    assert sorted(variants) == list(UNROLLED_SCAN_NAMES)
    fn, args, expected = variants[name]
    report, verdict = judged(fn, args, expected)
    if expected == "failure":
        assert "Bitcast cannot have different memory spaces" in verdict.message
        assert "Bitcast cannot have different memory spaces" in report.failures[0] and "Fix:" in report.failures[0]
    else:
        assert not any("Bitcast" in w for w in report.result.warnings) or name == "users_own_merge_of_host_ys"


def loop_state_reshape_variants():
    """A scan body returning its carry moved to host unchanged as the carry and a ys element, and
    what compiles: (function, arguments, jit options, outcome).  ``place_to_host`` is another
    frontend's annotation (examples/frontend_ops.py): jax's own ``device_put`` refuses a carry
    that changes memory kind."""
    import sys
    from pathlib import Path

    import jax
    import jax.numpy as jnp
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    from frontend_ops import place_to_device, place_to_host

    dev = topologies.get_topology_desc("v5e:2x2", "tpu").devices[0]
    hs = SingleDeviceSharding(dev, memory_kind="pinned_host")
    ds = SingleDeviceSharding(dev, memory_kind="device")

    def arg(shape=(8, 128), dtype=jnp.float32):
        return (jax.ShapeDtypeStruct(shape, dtype, sharding=ds),)

    def same(c, _):
        h = place_to_host(c)
        return h, h

    def scan(body, n=3):
        return lambda v: jax.lax.scan(body, v, None, length=n)

    def ys_on_device(body, n=3):
        return lambda v: place_to_device(scan(body, n)(v)[1])

    def outer_on_host(v):
        return jax.lax.scan(lambda c, _: (scan(same)(c)[1].sum(0), None), v, None, length=2)[0]

    def other(v):  # a loop whose carry goes to host and is computed with there
        return jax.lax.scan(lambda c, _: (jnp.sin(place_to_host(c)), None), v, None, length=3)[0]

    def carry_back(c, _):  # the fix: the carry goes back to device, the ys stay on host
        h = place_to_host(c)
        return place_to_device(h), h

    return {
        "ys_summed": (lambda v: place_to_device(scan(same)(v)[1].sum(0)), arg(), {}, "failure"),
        "ys_and_carry_moved_back": (lambda v: tuple(map(place_to_device, scan(same, 2)(v))), arg(), {}, "failure"),
        "ys_reshaped_bf16": (lambda v: place_to_device(scan(same)(v)[1].reshape(-1, 128)),
                             arg(dtype=jnp.bfloat16), {}, "failure"),
        "ys_returned_on_host_rank1": (lambda v: scan(same)(v)[1], arg((1024,)), {"out_shardings": hs}, "failure"),
        "nested": (lambda v: jax.lax.scan(lambda c, _: (ys_on_device(same)(c).sum(0), None), v, None, length=2)[0],
                   arg(), {}, "failure"),
        "one_iteration": (ys_on_device(same, 1), arg(), {}, "ok"),
        "computed_before_the_move": (ys_on_device(lambda c, _: same(jnp.sin(c), _)), arg(), {}, "ok"),
        "carry_only": (lambda v: place_to_device(scan(lambda c, _: (place_to_host(c), None))(v)[0]), arg(), {}, "ok"),
        "fix_carry_moved_back": (ys_on_device(carry_back), arg(), {}, "ok"),
        # the outer carry is the inner ys summed on host, only moved to device after the loop
        "nested_outer_carry_on_host": (lambda v: place_to_device(outer_on_host(v)), arg(), {}, "failure"),
        # another failure comes first ("async-start expects the shape"): warned
        "nested_outer_result_computed_on_host": (lambda v: place_to_device(-outer_on_host(v)), arg(), {}, "warned"),
        "another_loop_changing_memory_first": (lambda v: (place_to_device(other(v)), ys_on_device(same)(v).sum(0)),
                                               arg(), {}, "warned"),
    }


@needs_libtpu
@pytest.mark.parametrize("name", LOOP_STATE_RESHAPE_NAMES)
def test_loop_state_moved_to_host_and_returned_as_ys_is_the_real_compilers(name):
    """The carry's move to host, returned as the carry and reshaped into a ys row, fails with 2 or
    more iterations; computing before the move, no ys, or moving the carry back compiles; in an
    outer loop whose own carry ends on host, another failure comes first (warned)."""
    variants = loop_state_reshape_variants()
    assert sorted(variants) == list(LOOP_STATE_RESHAPE_NAMES)
    fn, args, jit_kwargs, expected = variants[name]
    if expected == "warned":
        from xladoctor.jax import check_offload
        from xladoctor.jax.offload_confirm import compile_jitted

        report, verdict = check_offload(fn, *args, jit_kwargs=jit_kwargs), compile_jitted(fn, *args, jit_kwargs=jit_kwargs)
        assert report.outcome == "ok" and report.result.later_warnings
        assert verdict.kind == "xla_error" and "async-start expects the shape" in verdict.message
        return
    report, verdict = judged(fn, args, expected, jit_kwargs)
    if expected == "failure":
        assert "Bitcast cannot have different memory spaces" in verdict.message
        (failure,) = report.failures
        assert "Bitcast cannot have different memory spaces" in failure and "Fix:" in failure
        assert "moves its state {1} to host unchanged" in failure
    else:
        assert not any("Bitcast" in f for f in report.failures)


DONATED = """HloModule m, input_output_alias={ {}: (0, {}, may-alias) }, entry_computation_layout={(f32[8,128]{1,0})->f32[8,128]{1,0:S(5)}}

ENTRY main {
  x = f32[8,128]{1,0} parameter(0)
  m = f32[8,128]{1,0} multiply(x, x)
  ROOT h = f32[8,128]{1,0} custom-call(m), custom_call_target="MoveToHost"
}
"""

INT8 = """HloModule m, entry_computation_layout={(s8[64,256]{1,0:S(5)})->s8[64,256]{1,0}}

ENTRY main {
  x = s8[64,256]{1,0} parameter(0)
  ROOT d = s8[64,256]{1,0} custom-call(x), custom_call_target="MoveToDevice"
}
"""


def test_donation_across_memory_spaces_is_a_predicted_failure():
    result = analyze_host_offload(parse_module(DONATED))
    assert result.outcome == "failure"
    (failure,) = result.failures
    assert failure.status == "UNIMPLEMENTED" and failure.first
    assert "Unimplemented DMA from hbm to hbm" in failure.message and failure.instruction == "h"
    assert prediction_of(result).kind == "xla_error"
    undonated = analyze_host_offload(parse_module(DONATED.replace("input_output_alias={ {}: (0, {}, may-alias) }, ", "")))
    assert undonated.outcome == "ok"


def test_narrow_host_parameter_moved_to_device_is_a_predicted_failure():
    result = analyze_host_offload(parse_module(INT8))
    assert result.outcome == "failure"
    assert "CopyDone arguments need to be the same shape" in result.failures[0].message
    for ok_shape in ("s8[33,256]", "bf16[64,256]"):
        text = INT8.replace("s8[64,256]", ok_shape)
        assert analyze_host_offload(parse_module(text)).outcome == "ok", ok_shape


E1200_FIRST = """HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }, entry_computation_layout={(f32[8,128]{1,0})->(f32[8,128]{1,0:S(5)}, f32[8,128]{1,0})}

ENTRY main {
  x = f32[8,128]{1,0} parameter(0)
  m = f32[8,128]{1,0} multiply(x, x)
  h = f32[8,128]{1,0} custom-call(m), custom_call_target="MoveToHost"
  n = f32[8,128]{1,0} negate(x)
  g = f32[8,128]{1,0} custom-call(n), custom_call_target="MoveToHost"
  ROOT t = (f32[8,128]{1,0}, f32[8,128]{1,0}) tuple(h, g)
}
"""


def test_a_later_failure_never_replaces_an_e1200():
    """HostOffloader's E1200 stops the compile before the donation's DMA is built."""
    result = analyze_host_offload(parse_module(E1200_FIRST))
    assert result.outcome == "E1200"
    assert not result.failures


@needs_libtpu
def test_loop_state_that_changes_memory_is_warned_and_named():
    """A nested scan over a host argument whose body moves the carry to host and back, then added
    to that argument: HostOffloader accepts it, the post-optimization verifier does not."""
    import jax
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    from xladoctor.jax import check_offload
    from xladoctor.jax.offload_confirm import compile_jitted

    dev = topologies.get_topology_desc("v5e:2x2", "tpu").devices[0]
    host = SingleDeviceSharding(dev, memory_kind="pinned_host")
    device = SingleDeviceSharding(dev, memory_kind="device")

    def inner(c, _):  # to host and back: the carry keeps its type, as scan requires
        return jax.device_put(jax.device_put(c, jax.memory.Space.Host), jax.memory.Space.Device), None

    def outer(c, _):
        return jax.lax.scan(inner, c, None, length=3)[0], None

    def step(x, h):
        c = jax.lax.scan(outer, h, None, length=2)[0]
        return x, c, h + c

    args = (jax.ShapeDtypeStruct((8, 128), jax.numpy.float32, sharding=device),
            jax.ShapeDtypeStruct((8, 128), jax.numpy.float32, sharding=host))
    jit_kwargs = {"out_shardings": (device, device, host)}
    report = check_offload(step, *args, jit_kwargs=jit_kwargs)
    verdict = compile_jitted(step, *args, jit_kwargs=jit_kwargs)
    assert report.outcome == "ok"
    assert any("enters each iteration in host memory" in w for w in report.result.warnings)
    assert verdict.kind == "xla_error" and "async-start expects the shape" in verdict.message
    known = match_divergence(report.program.module, report.result, verdict)
    assert known is not None and known.name == "post-optimization-verifier"


def nested_scans_under_grad(outer_checkpointed: bool = False):
    """jax.grad of a scan of scans of a layer with an offloading checkpoint policy: the inner
    loop's host buffer changes memory space across the outer loop; the verifier rejects it.
    ``outer_checkpointed``: the fix the warning gives, the outer scan's body in ``jax.checkpoint``.
    (function, arguments)."""
    import jax
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name

    w = jnp.full((128, 128), 0.01, jnp.float32)
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["act"],
        offload_src="device", offload_dst="pinned_host")
    layer = jax.checkpoint(lambda x: jnp.sin(checkpoint_name(x @ w, "act")), policy=policy)

    def loss(x):
        def inner(c):
            return jax.lax.scan(lambda c, _: (layer(c), None), c, None, length=3)[0]
        body = jax.checkpoint(lambda c, _: (inner(c), None)) if outer_checkpointed else lambda c, _: (inner(c), None)
        return jnp.sum(jax.lax.scan(body, x, None, length=2)[0])

    return jax.grad(loss), (jnp.zeros((8, 128)),)


@needs_libtpu
def test_nested_scans_with_an_offload_policy_under_grad_are_a_failure_and_warned():
    """Once a warning ("about two thirds fail"); the two host stacks and the loop that slices them in
    host compute are now the predicted failure (offload/later_nested.py, tests/test_public_nested.py);
    the loop-state warning, with its fix, is still given beside it."""
    from xladoctor.jax import check_offload
    from xladoctor.jax.offload_confirm import compile_jitted

    fn, args = nested_scans_under_grad()
    report = check_offload(fn, *args)
    verdict = compile_jitted(fn, *args)
    assert report.outcome == "failure"
    assert "The async-start expects the shape of operand 0 to match the async shape" in report.failures[0]
    assert any("enters each iteration in device memory" in w and "wrap this loop's body in jax.checkpoint" in w
               for w in report.result.warnings)
    assert verdict.kind == "xla_error" and "async-start expects the shape" in verdict.message


def nested_stacks_read_whole():
    """Nested scans stacking moves to host, the stacks then read by a scan that moves each whole
    slice to device: warned (the outer loop's state changes memory space), and it compiles;
    tests/test_persian_outputs.py uses it as its warned program."""
    import jax
    import jax.numpy as jnp

    def f(x):
        def outer(c, _):
            def inner(c, _):
                c = jnp.sin(c)
                return c, jax.device_put(c, jax.memory.Space.Host)
            return jax.lax.scan(inner, c, None, length=2)
        c, ys = jax.lax.scan(outer, x, None, length=3)
        return jax.lax.scan(lambda c, b: (c * jax.device_put(b, jax.memory.Space.Device).sum(0), None), c, ys)[0]
    return f, (jnp.zeros((16, 128)),)


@needs_libtpu
def test_nested_stacks_read_whole_are_warned_and_compile():
    report, _ = judged(*nested_stacks_read_whole(), "ok")
    assert any("enters each iteration in device memory" in w for w in report.result.later_warnings)


@needs_libtpu
def test_nested_scans_under_grad_with_the_outer_body_checkpointed_compile():
    """The warning's fix for an offloading checkpoint policy in a scan inside a loop: the outer
    scan's body in jax.checkpoint; then we are silent and libtpu compiles it."""
    report, _ = judged(*nested_scans_under_grad(outer_checkpointed=True), "ok")
    assert not report.result.later_warnings


SCAN_SAME_HOST_VALUE = """HloModule jit_run, entry_computation_layout={(f32[8,128]{1,0})->f32[8,128]{1,0}}

closed_call.1 {
  Arg_0.1 = f32[8,128]{1,0} parameter(0)
  place_to_host.1 = f32[8,128]{1,0} custom-call(Arg_0.1), custom_call_target="annotate_device_placement", custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}
  ROOT tuple.1 = (f32[8,128]{1,0}, f32[8,128]{1,0}) tuple(place_to_host.1, place_to_host.1)
}

dynamic_update_index_in_dim.2 {
  Arg_0.3 = f32[3,8,128]{2,1,0} parameter(0)
  Arg_1.1 = f32[8,128]{1,0} parameter(1)
  broadcast_in_dim.2 = f32[1,8,128]{2,1,0} reshape(Arg_1.1)
  Arg_2.1 = s32[] parameter(2)
  constant.5 = s32[] constant(0)
  ROOT dynamic_update_slice.1 = f32[3,8,128]{2,1,0} dynamic-update-slice(Arg_0.3, broadcast_in_dim.2, Arg_2.1, constant.5, constant.5)
}

region_0.3 {
  arg_tuple.1 = (s32[], f32[8,128]{1,0}, f32[3,8,128]{2,1,0}) parameter(0)
  get-tuple-element.3 = s32[] get-tuple-element(arg_tuple.1), index=0
  constant.6 = s32[] constant(1)
  add.1 = s32[] add(get-tuple-element.3, constant.6)
  get-tuple-element.4 = f32[8,128]{1,0} get-tuple-element(arg_tuple.1), index=1
  closed_call.3 = (f32[8,128]{1,0}, f32[8,128]{1,0}) call(get-tuple-element.4), to_apply=closed_call.1
  closed_call.4 = f32[8,128]{1,0} get-tuple-element(closed_call.3), index=0
  get-tuple-element.5 = f32[3,8,128]{2,1,0} get-tuple-element(arg_tuple.1), index=2
  closed_call.5 = f32[8,128]{1,0} get-tuple-element(closed_call.3), index=1
  jit_dynamic_update_index_in_dim_.1 = f32[3,8,128]{2,1,0} call(get-tuple-element.5, closed_call.5, get-tuple-element.3), to_apply=dynamic_update_index_in_dim.2
  ROOT tuple.3 = (s32[], f32[8,128]{1,0}, f32[3,8,128]{2,1,0}) tuple(add.1, closed_call.4, jit_dynamic_update_index_in_dim_.1)
}

region_1.4 {
  arg_tuple.3 = (s32[], f32[8,128]{1,0}, f32[3,8,128]{2,1,0}) parameter(0)
  get-tuple-element.9 = s32[] get-tuple-element(arg_tuple.3), index=0
  constant.8 = s32[] constant(%TRIPS%)
  ROOT lt.1 = pred[] compare(get-tuple-element.9, constant.8), direction=LT
}

region_2.5 {
  reduce_sum.3 = f32[] parameter(0)
  reduce_sum.4 = f32[] parameter(1)
  ROOT reduce_sum.5 = f32[] add(reduce_sum.3, reduce_sum.4)
}

ENTRY main.6 {
  constant.9 = s32[] constant(0)
  v.1 = f32[8,128]{1,0} parameter(0)
  constant.11 = f32[] constant(0)
  broadcast_in_dim.3 = f32[3,8,128]{2,1,0} broadcast(constant.11), dimensions={}
  while.5 = (s32[], f32[8,128]{1,0}, f32[3,8,128]{2,1,0}) tuple(constant.9, v.1, broadcast_in_dim.3)
  while.6 = (s32[], f32[8,128]{1,0}, f32[3,8,128]{2,1,0}) while(while.5), condition=region_1.4, body=region_0.3
  while.9 = f32[3,8,128]{2,1,0} get-tuple-element(while.6), index=2
  constant.10 = f32[] constant(0)
  reduce_sum.7 = f32[8,128]{1,0} reduce(while.9, constant.10), dimensions={0}, to_apply=region_2.5
  ROOT place_to_device.1 = f32[8,128]{1,0} custom-call(reduce_sum.7), custom_call_target="annotate_device_placement", custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="device"}
}
"""


def test_scan_returning_its_carry_moved_to_host_as_ys_is_a_predicted_failure():
    """jax's lowering of ``h = place_to_host(c); return h, h`` (length 3), read without a compiler."""
    result = analyze_host_offload(parse_module(SCAN_SAME_HOST_VALUE.replace("%TRIPS%", "3")))
    assert result.outcome == "failure"
    (failure,) = result.failures
    assert failure.status == "INTERNAL" and failure.instruction == "broadcast_in_dim.2"
    assert "Bitcast cannot have different memory spaces" in failure.message and "while.6" in failure.message
    assert analyze_host_offload(parse_module(SCAN_SAME_HOST_VALUE.replace("%TRIPS%", "1"))).outcome == "ok"


CONDITIONAL = """HloModule c, entry_computation_layout={(s32[], f32[8,128]{1,0})->%OUT%}

b0 {
  x0 = f32[8,128] parameter(0)
  n0 = f32[8,128] negate(x0)
  ROOT h0 = f32[8,128] custom-call(n0), custom_call_target="MoveToHost"
}

b1 {
  x1 = f32[8,128] parameter(0)
  n1 = f32[8,128] sine(x1)
  ROOT h1 = f32[8,128] custom-call(n1), custom_call_target="MoveToHost"
}

ENTRY main {
  k = s32[] parameter(0)
  p = f32[8,128] parameter(1)
  c = f32[8,128] conditional(k, p, p), branch_computations={b0, b1}
  %ROOT%
}
"""
CONDITIONAL_CASES = {
    "added_on_host": ("f32[8,128]{1,0:S(5)}", "ROOT r = f32[8,128] add(c, c)"),
    "moved_back": ("f32[8,128]{1,0}", 'd = f32[8,128] custom-call(c), custom_call_target="MoveToDevice"\n'
                                      "  ROOT r = f32[8,128] negate(d)"),
}


@pytest.mark.parametrize("name", sorted(CONDITIONAL_CASES))
def test_conditional_whose_branches_all_move_to_host_compiles(name):
    """ConditionalCanonicalizer's one-element tuple has one predecessor: no CHECK, a copy per branch,
    read by the branch's root ``tuple(...)`` the canonicalizer made (libtpu 0.0.42.1's
    ``after_host-offloader`` dump: ``copy(n0.1)`` read by ``ROOT tuple``, ``copy.2`` by ``tuple.1``)."""
    out, root = CONDITIONAL_CASES[name]
    result = analyze_host_offload(parse_module(CONDITIONAL.replace("%OUT%", out).replace("%ROOT%", root)))
    assert result.outcome == "ok", result.failures
    copied = {(i.operand, i.user) for i in result.inserted if i.kind == "copy-to-host"}
    assert copied == {("n0", "tuple"), ("n1", "tuple.1")}


@needs_libtpu
@pytest.mark.parametrize("name", sorted(CONDITIONAL_CASES))
def test_conditional_whose_branches_all_move_to_host_is_what_libtpu_says(name):
    from xladoctor.oracle import OracleWorker

    out, root = CONDITIONAL_CASES[name]
    text = CONDITIONAL.replace("%OUT%", out).replace("%ROOT%", root)
    module = parse_module(text)
    with OracleWorker("v5e:2x2", timeout=120, want_text=False) as worker:
        verdict = worker.compile_hlo(text)
    assert verdict.kind == "compiles", verdict.summary()
    assert compare(prediction_of(analyze_host_offload(module), module), verdict).agree


@needs_libtpu
def test_computing_on_an_unpinned_host_argument_is_predicted_with_a_fix_that_compiles():
    """``x * 2.0`` on an ``unpinned_host`` argument fails after HostOffloader, also after a
    ``device_put`` to device; the fix the prediction gives (the argument in ``pinned_host``,
    moved to device before the compute) compiles (the fix campaign's host_params:15 and :48)."""
    import jax
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    dev = topologies.get_topology_desc("v5e:2x2", "tpu").devices[0]

    def arg(kind):
        return (jax.ShapeDtypeStruct((8, 128), jax.numpy.float32, sharding=SingleDeviceSharding(dev, memory_kind=kind)),)

    def moved_in(x):
        return jax.device_put(x, jax.memory.Space.Device) * 2.0

    for fn in (lambda x: x * 2.0, moved_in):
        report, _ = judged(fn, arg("unpinned_host"), "failure")
        (failure,) = report.failures
        assert "Shape mismatch between parameter number 0" in failure
        assert 'Fix: pass argument 0 in pinned_host memory (a sharding with memory_kind="pinned_host")' in failure
    report, _ = judged(moved_in, arg("pinned_host"), "ok")
    assert not report.failures and not report.result.later_warnings
