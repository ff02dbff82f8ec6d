"""ConditionalCanonicalizer and the TupleSimplifier fold after it (offload/passes/conditional_canonicalizer.py).

Each jax program is lowered for TPU; without libtpu the pass must give the structure libtpu
0.0.42.1's dumps show (tuple parameters and roots, one shared ``tuple(x)`` operand after HloCSE,
the conditional's ``NAME.clone`` read by a ``get-tuple-element``, an identity branch folded back
to its parameter).  With libtpu: the compiler's verdict is ours and the module it hands
HostOffloadLegalize is our prepared module, under the renaming rule of :mod:`xladoctor.oracle.prepass`.
"""

from __future__ import annotations

import os
import shutil

import pytest

from xladoctor.ir.opcodes import HloOpcode
from xladoctor.offload import analyze_host_offload
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
    p = jax.ShapeDtypeStruct((), jnp.bool_, sharding=ds)
    k = jax.ShapeDtypeStruct((), jnp.int32, sharding=ds)

    def th(v):
        return jax.device_put(v, jax.memory.Space.Host)

    programs = {
        # a branch that returns its operand: tuple(gte(p, 0)) folds back to p
        "identity_branch": (lambda q, v: th(jax.lax.cond(q, lambda u: u, lambda u: jnp.sin(u), v)), (p, x)),
        # three branches on one operand: one tuple(x) after HloCSE
        "switch_on_one_operand": (lambda i, v: th(jax.lax.switch(i, [lambda u: u * 2, lambda u: u + 3,
                                                                    lambda u: jnp.tanh(u)], v)), (k, x)),
    }
    fn, args = programs[name]
    lowered = jax.jit(fn).trace(*args).lower(lowering_platforms=("tpu",))
    return lower_program(lowered).module, lowered.as_text()


NAMES = ("identity_branch", "switch_on_one_operand")


def _conditional(module):
    (cond,) = [i for i in module.entry_computation().instructions if i.opcode is HloOpcode.CONDITIONAL]
    return cond


@pytest.mark.parametrize("name", NAMES)
def test_branches_take_and_return_tuples(name):
    module, _ = _lowered(name)
    before = _conditional(module)
    assert not before.shape.is_tuple
    cond = _conditional(prepared_module(module))
    assert cond.shape.is_tuple and cond.name == f"{before.name}.clone"
    assert [u.opcode for u in cond.users] == [HloOpcode.GET_TUPLE_ELEMENT]
    (operand,) = set(cond.operands[1:])  # HloCSE: one tuple(x) for every branch
    assert operand.opcode is HloOpcode.TUPLE
    for branch in cond.called_computations:
        assert branch.parameters[0].shape.is_tuple and branch.root_instruction().shape.is_tuple


def test_an_identity_branch_returns_its_parameter():
    module, _ = _lowered("identity_branch")
    roots = [b.root_instruction().opcode for b in _conditional(prepared_module(module)).called_computations]
    assert sorted(r.value for r in roots) == ["parameter", "tuple"]


@pytest.mark.parametrize("name", NAMES)
def test_the_compiler_dumps_our_prepared_module_and_agrees(name, dumping_worker):
    worker, folder = dumping_worker
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder, exist_ok=True)
    module, mlir = _lowered(name)
    verdict = worker.compile_stablehlo(mlir)
    assert verdict.kind == "compiles", verdict.summary()
    assert compare(prediction_of(analyze_host_offload(module), module), verdict).agree
    dumped = read_dump(folder)
    assert dumped is not None
    c = compare_prepared(prepared_module(module), parse_module(dumped, "dump"))
    assert c.identical, c.describe()
