"""Compile failures after HostOffloader (offload/later_failures.py) and conditionals on host.

Each jax program is written the way users write them and compiled by the real TPU compiler
(libtpu 0.0.42.1, v5e); our outcome must be the compiler's (same kind, the compiler's own
message class) or, for the one class only warned about, the named divergence with the
warning.  The HLO-level tests at the end need no compiler.
"""

from __future__ import annotations

import os

import pytest

from offload_judged import judged
from xladoctor.offload import analyze_host_offload
from xladoctor.oracle import compare, prediction_of, unavailable_reason
from xladoctor.oracle.divergences import match_divergence
from xladoctor.syntax.hlo_parser import parse_module

needs_libtpu = pytest.mark.skipif(unavailable_reason() is not None,
                                  reason=f"real TPU compiler unavailable: {unavailable_reason()}")


def _programs():
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
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


@needs_libtpu
@pytest.mark.parametrize("name", sorted(unrolled_scan_variants()))
def test_unrolled_scan_with_host_ys_is_the_real_compilers(name):
    """A reshape of an unrolled scan's host ys fails when the loop is left with 2 or more iterations."""
    fn, args, expected = unrolled_scan_variants()[name]
    report, verdict = judged(fn, args, expected)
    if expected == "failure":
        assert "Bitcast cannot have different memory spaces" in verdict.message
        assert "Bitcast cannot have different memory spaces" in report.failures[0] and "Fix:" in report.failures[0]
    else:
        assert not any("Bitcast" in w for w in report.result.warnings) or name == "users_own_merge_of_host_ys"


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


def nested_scans_under_grad():
    """jax.grad of a scan of scans of a layer with an offloading checkpoint policy: the inner
    loop's host buffer changes memory space across the outer loop; the verifier rejects it.
    (function, arguments); tests/test_persian_outputs.py uses it as its warned program."""
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
        return jnp.sum(jax.lax.scan(lambda c, _: (inner(c), None), x, None, length=2)[0])

    return jax.grad(loss), (jnp.zeros((8, 128)),)


@needs_libtpu
def test_nested_scans_with_an_offload_policy_under_grad_are_warned_and_named():
    from xladoctor.jax import check_offload
    from xladoctor.jax.offload_confirm import compile_jitted

    fn, args = nested_scans_under_grad()
    report = check_offload(fn, *args)
    verdict = compile_jitted(fn, *args)
    assert report.outcome == "ok"
    assert any("enters each iteration in device memory" in w for w in report.result.warnings)
    assert verdict.kind == "xla_error" and "async-start expects the shape" in verdict.message
    known = match_divergence(report.program.module, report.result, verdict)
    assert known is not None and known.name == "post-optimization-verifier"


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
