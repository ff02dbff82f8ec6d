"""A host move inside a ``cond``/``switch`` branch: HostOffloadLegalize's INVALID_ARGUMENT.

libtpu 0.0.42.1 fails ``Expected computation "region_N.M" to be called only by one caller
and that caller to be a While`` when a branch returns ``device_put(device_put(v, Host),
Device)`` (offload/passes/host_offload_legalize/branches.py).  Each jax program below is compiled by the real
TPU compiler (v5e, compile-only) and our outcome must be the compiler's: the failing ones
with the compiler's message (its computation name), the instruction and a fix; the
variants that compile, including the fixes, predicted ``ok``.  The HLO tests at the end
need no compiler.
"""

from __future__ import annotations

import re

import pytest

from offload_judged import judged
from xladoctor.offload import analyze_host_offload
from xladoctor.oracle import prediction_of, unavailable_reason
from xladoctor.oracle.naming import stem
from xladoctor.syntax.hlo_parser import parse_module

needs_libtpu = pytest.mark.skipif(unavailable_reason() is not None,
                                  reason=f"real TPU compiler unavailable: {unavailable_reason()}")
_COMPUTATION = re.compile(r'Expected computation "([^"]+)" to be called only by one caller and that caller to be a While'
                          r"\. There are \d+ caller\(s\): \[([^\]]*)\]")


def _programs():
    import jax
    import jax.numpy as jnp
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    dev = topologies.get_topology_desc("v5e:2x2", "tpu").devices[0]
    ds = SingleDeviceSharding(dev, memory_kind="device")
    host, device = jax.memory.Space.Host, jax.memory.Space.Device
    x, p, i = (jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=ds), jax.ShapeDtypeStruct((), jnp.bool_, sharding=ds),
               jax.ShapeDtypeStruct((), jnp.int32, sharding=ds))
    cond, switch, fori = jax.lax.cond, jax.lax.switch, jax.lax.fori_loop

    def th(v):
        return jax.device_put(v, host)

    def back(v):
        return jax.device_put(jax.device_put(v, host), device)

    def scan_cond(q, v):
        return jax.lax.scan(lambda c, _: (cond(q, lambda u: back(u * 2), lambda u: u + 1, c), None), v, None,
                            length=3)[0]

    return {
        # name: (function, arguments, expected outcome)
        "cond_round_trip_in_one_branch": (lambda q, v: cond(q, lambda u: back(u * 2), lambda u: u + 1, v), (p, x),
                                          "failure"),
        "switch_round_trip_in_every_branch": (lambda k, v: switch(k, [lambda u: back(u * 2), lambda u: back(u - 1),
                                                                      lambda u: back(u + 3)], v), (i, x), "failure"),
        "cond_of_a_pair": (lambda q, v: cond(q, lambda u: (back(u * 2), u * 3), lambda u: (u + 1, u - 1), v), (p, x),
                           "failure"),
        "cond_sliced_on_host": (lambda q, v: cond(q, lambda u: jax.device_put(th(u * 2)[:4], device),
                                                  lambda u: u[:4] + 1, v), (p, x), "failure"),
        "cond_in_scan": (scan_cond, (p, x), "failure"),
        "cond_on_loop_counter_not_zero": (lambda q, v: fori(0, 4, lambda k, u: cond(k != 0, lambda w: back(w * 2),
                                                                                      lambda w: w + 1, u), v),
                                          (p, x), "failure"),
        # the round trip used on device inside the branch, branches ending on host, the fixes
        "cond_round_trip_used_in_branch": (lambda q, v: cond(q, lambda u: back(u * 2) + 1, lambda u: u + 1, v),
                                           (p, x), "ok"),
        "cond_round_trip_sliced_on_device": (lambda q, v: cond(q, lambda u: back(u * 2)[:4], lambda u: u[:4] + 1, v),
                                             (p, x), "ok"),
        "cond_every_branch_ends_on_host": (lambda q, v: cond(q, lambda u: th(u * 2), lambda u: th(u + 1), v), (p, x),
                                           "ok"),
        "fix_cond_result_moved": (lambda q, v: th(cond(q, lambda u: u * 2, lambda u: u + 1, v)), (p, x), "ok"),
        "fix_cond_result_moved_and_back": (lambda q, v: back(cond(q, lambda u: u * 2, lambda u: u + 1, v)) + 1,
                                           (p, x), "ok"),
        "fix_switch_result_moved": (lambda k, v: th(switch(k, [lambda u: u * 2, lambda u: u - 1], v)), (i, x), "ok"),
        "cond_on_loop_counter_above_zero": (lambda q, v: fori(0, 5, lambda k, u: cond(k > 0, lambda w: back(w * 2),
                                                                                       lambda w: w + 1, u), v),
                                            (p, x), "ok"),
    }


@pytest.fixture(scope="module")
def programs():
    return _programs()


CASES = (
    "cond_round_trip_in_one_branch", "switch_round_trip_in_every_branch", "cond_of_a_pair", "cond_sliced_on_host",
    "cond_in_scan", "cond_on_loop_counter_not_zero", "cond_round_trip_used_in_branch",
    "cond_round_trip_sliced_on_device", "cond_every_branch_ends_on_host", "fix_cond_result_moved",
    "fix_cond_result_moved_and_back", "fix_switch_result_moved", "cond_on_loop_counter_above_zero")


@needs_libtpu
@pytest.mark.parametrize("name", CASES)
def test_outcome_is_the_real_compilers(name, programs):
    fn, args, expected = programs[name]
    report, verdict = judged(fn, args, expected)
    if expected == "ok":
        assert verdict.kind == "compiles", verdict.summary()
        return
    real, ours = _COMPUTATION.search(verdict.message or ""), _COMPUTATION.search(report.failures[0])
    assert verdict.kind == "xla_error" and verdict.status == "INVALID_ARGUMENT" and real, verdict.summary()
    assert ours and stem(ours.group(1)) == stem(real.group(1)), (ours, real)
    # An array-shaped conditional's caller is ConditionalCanonicalizer's tuple-shaped copy (NAME.clone[.N]) on
    # both sides; a tuple-shaped one is left as it is.
    assert (".clone" in ours.group(2)) == (".clone" in real.group(2)), (ours.group(2), real.group(2))
    failure = report.result.failures[0]
    assert failure.status == "INVALID_ARGUMENT" and failure.first
    assert failure.instruction is not None and report.program.module.get_instruction(failure.instruction) is not None
    assert "Fix:" in failure.message and "jax.device_put(jax.lax.cond(...), Space.Host)" in failure.message


@needs_libtpu
def test_loop_counter_above_zero_is_warned(programs):
    """The one selector seen to let the conditional go: ok, with a warning naming it."""
    from xladoctor.jax import check_offload

    fn, args, _ = programs["cond_on_loop_counter_above_zero"]
    report = check_offload(fn, *args)
    assert report.outcome == "ok"
    assert any("> 0 in a loop counting from 0" in w for w in report.result.warnings), report.result.warnings


BRANCH = """HloModule m, entry_computation_layout={(pred[], f32[8,128]{1,0})->f32[8,128]{1,0}}

on_host {
  a = f32[8,128]{1,0} parameter(0)
  h = f32[8,128]{1,0} custom-call(a), custom_call_target="MoveToHost"
  ROOT d = f32[8,128]{1,0} custom-call(h), custom_call_target="MoveToDevice"
}

plain {
  b = f32[8,128]{1,0} parameter(0)
  ROOT n = f32[8,128]{1,0} negate(b)
}

ENTRY main {
  p = pred[] parameter(0)
  x = f32[8,128]{1,0} parameter(1)
  ROOT c = f32[8,128]{1,0} conditional(p, x, x), true_computation=on_host, false_computation=plain
}
"""


def test_branch_returning_its_move_back_fails_in_legalize():
    """ConditionalCanonicalizer (a pre-pass) gives the branch the root tuple(d) and calls it from
    ``c.clone``, the tuple-shaped copy of ``c``: HostOffloadLegalize refuses that root once."""
    result = analyze_host_offload(parse_module(BRANCH))
    assert result.outcome == "failure"
    (failure,) = result.failures
    assert failure.status == "INVALID_ARGUMENT" and failure.instruction == "d"
    assert failure.message.startswith('Expected computation "on_host" to be called only by one caller and that '
                                      "caller to be a While. There are 1 caller(s): [c.clone]")
    assert prediction_of(result).kind == "xla_error"
    # One failure type for every pass: HostOffloadLegalize records the PassFailure the verdict reports first.
    assert failure.first and result.legalize is not None and result.legalize.failures == [failure.replace(first=False)]


def test_move_back_used_in_the_branch_is_legal():
    text = BRANCH.replace('ROOT d = f32[8,128]{1,0} custom-call(h), custom_call_target="MoveToDevice"',
                          'd = f32[8,128]{1,0} custom-call(h), custom_call_target="MoveToDevice"\n'
                          "  ROOT e = f32[8,128]{1,0} exponential(d)")
    assert analyze_host_offload(parse_module(text)).outcome == "ok"
