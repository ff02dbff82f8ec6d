"""ConditionalCodeMotion (offload/passes/conditional_code_motion.py): what every branch ends with moves out.

Each jax program is lowered for TPU and its result moved to host.  Without libtpu the prepared
module must show the move libtpu 0.0.42.1's ``before_host-offload-legalize`` dumps show (the
shared last op rebuilt after the conditional, the MoveToHost reading it; branches that differ
at the end left alone); with libtpu, the compiler's verdict is ours and the module it hands
HostOffloadLegalize is our prepared module, under :mod:`xladoctor.oracle.prepass`'s renaming rule.
"""

from __future__ import annotations

import os
import shutil

import pytest

from xladoctor.ir.opcodes import HloOpcode
from xladoctor.offload import analyze_host_offload
from xladoctor.offload.annotations import is_move_to_host
from xladoctor.oracle import compare, prediction_of
from xladoctor.oracle.prepass import compare_prepared, prepared_module, read_dump
from xladoctor.syntax.hlo_parser import parse_module


def _lowered(name):
    pytest.importorskip("jax")
    import jax
    import jax.numpy as jnp
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    from xladoctor.jax.lowering import lower_program

    dev = topologies.get_topology_desc("v5e:2x2", "tpu").devices[0]
    ds = SingleDeviceSharding(dev, memory_kind="device")
    x = jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=ds)
    k = jax.ShapeDtypeStruct((), jnp.int32, sharding=ds)

    def th(v):
        return jax.device_put(v, jax.memory.Space.Host)

    programs = {
        # every branch ends with relu's maximum(., 0): it moves after the conditional
        "switch_of_relus": lambda i, v: th(jax.lax.switch(jnp.clip(i, 0, 2), [
            lambda u, j=j: jax.nn.relu(u + j) for j in range(3)], v)),
        # both branches end with sin of different values: the sin moves out
        "cond_ending_in_sin": lambda i, v: th(jax.lax.cond(i > 0, lambda u: jnp.sin(u * 2.0),
                                                           lambda u: jnp.sin(u + 1.0), v)),
        # the branches end differently: nothing moves
        "cond_ending_differently": lambda i, v: th(jax.lax.cond(i > 0, lambda u: jnp.sin(u),
                                                                lambda u: jnp.tanh(u), v)),
    }
    lowered = jax.jit(programs[name]).trace(k, x).lower(lowering_platforms=("tpu",))
    return lower_program(lowered).module, lowered.as_text()


MOVED = {"switch_of_relus": HloOpcode.MAXIMUM, "cond_ending_in_sin": HloOpcode.SINE}
NAMES = (*MOVED, "cond_ending_differently")


def _moved_to_host(module):
    (mth,) = [i for i in module.entry_computation().instructions if is_move_to_host(i)]
    return mth.operands[0]


@pytest.mark.parametrize("name", NAMES)
def test_what_every_branch_ends_with_moves_after_the_conditional(name):
    module, _ = _lowered(name)
    moved = _moved_to_host(prepared_module(module))
    if name in MOVED:
        assert moved.opcode is MOVED[name]
        assert HloOpcode.GET_TUPLE_ELEMENT in {o.opcode for o in moved.operands}
    else:
        assert moved.opcode is HloOpcode.GET_TUPLE_ELEMENT
        assert moved.operands[0].opcode is HloOpcode.CONDITIONAL


@pytest.mark.parametrize("name", NAMES)
def test_the_compiler_dumps_our_prepared_module_and_agrees(name, dumping_worker):
    worker, folder = dumping_worker
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder, exist_ok=True)
    module, mlir = _lowered(name)
    verdict = worker.compile_stablehlo(mlir)
    assert compare(prediction_of(analyze_host_offload(module), module), verdict).agree, verdict.summary()
    dumped = read_dump(folder)
    assert dumped is not None
    c = compare_prepared(prepared_module(module), parse_module(dumped, "dump"))
    assert c.identical, c.describe()
