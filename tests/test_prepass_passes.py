"""The pre-passes modelled from the comparison with libtpu's ``before_host-offload-legalize`` dump.

Each program below is one the campaign (``bench/offload_campaign.py --compare-prepass``) found
different before the pass was modelled: ``while_initializer_removal`` (a scan's ys buffer, a
gradient accumulator), ``while_loop_simplifier`` (a loop of one step), ``scatter_to_dus``,
``pipelining_optimizations`` (remat's MoveToDevice behind an opt-barrier), ``algsimp``'s
subtract reassociation (a reversed scan's row index), ``reshape_mover`` and ``cse``.  Without
libtpu: the pass changes the module as the compiler does (the opcode it leaves).  With it: the
real compiler's verdict is ours and its dumped module is our prepared module.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from xladoctor.offload import analyze_host_offload
from xladoctor.offload.annotations import is_move_to_host
from xladoctor.offload.pipeline import pass_names
from xladoctor.oracle import compare, prediction_of
from xladoctor.oracle.divergences import match_divergence
from xladoctor.oracle.prepass import compare_prepared, prepared_module, read_dump
from xladoctor.syntax.hlo_parser import parse_module

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import offload_gen

PROGRAMS = {
    # seed 1, program 0: two scans, the second stacking a host value into its ys
    "while_initializer_removal": {
        "level": "jax", "args": ["device", "device", "pinned_host"],
        "steps": [("to_host_fe", 0), ("un", "double", 2), ("to_host_jax", 3), ("bin", "add", 4, 0),
                  ("un", "double", 0), ("scan", 0, (("to_host_jax",), ("to_dev_jax",), ("to_dev_fe",)), True, "carry"),
                  ("scan", 0, (("to_host_fe",), ("un", "neg")), False, "both")],
        "outs": [3, 6, 8, 9], "out_kinds": ["device", "device", "device", "device"]},
    # seed 1, program 12: remat offloading named residuals under grad
    "pipelining_optimizations": {
        "level": "jax", "args": ["device", "pinned_host", "device"],
        "steps": [("remat", 1, "names", False), ("to_dev_jax", 1), ("compute_on", 2), ("bin", "mul", 4, 3),
                  ("un", "neg", 0), ("remat", 3, "names", True), ("to_dev_fe", 8)],
        "outs": [4, 9], "out_kinds": [None, None]},
    # seed 1, program 113: remat of a dot in a scan, read back in reverse
    "algsimp": {
        "level": "jax", "args": ["device", "device"],
        "steps": [("remat", 0, "dot", True), ("bin", "add", 1, 2), ("un", "neg", 3), ("to_dev_jax", 3)],
        "outs": [3, 4, 5], "out_kinds": ["pinned_host", "device", "device"]},
    # seed 1, program 3: sin of a row taken out of a host buffer
    "reshape_mover": {
        "level": "hlo", "args": ["device", "device", "device"],
        "steps": [("mth", 2), ("mtd", 3), ("mth", 1), ("mth", 3), ("dus", 6, False, True, False), ("un", "sin", 7)],
        "outs": [3, 4, 8], "out_kinds": ["device", "device", "device"], "tuple_root": True},
    # seed 1, program 158: x * 2 written twice
    "cse": {
        "level": "hlo", "args": ["device"],
        "steps": [("un", "double", 0), ("tuple_gte", 1, 0), ("bin", "mul", 1, 0), ("dus", 1, False, True, False),
                  ("mtd", 3), ("un", "neg", 4), ("un", "double", 6), ("bin", "mul", 7, 5)],
        "outs": [4, 7, 8], "out_kinds": ["device", "device", "pinned_host"], "tuple_root": True},
    # seed 0, program 39: two compute_on calls that do not depend on each other
    "hlo_host_device_type_call_wrapper": {
        "level": "jax", "args": ["device", "device", "device"],
        "steps": [("compute_on", 1), ("un", "tanh", 0), ("un", "double", 3), ("compute_on", 4), ("to_host_jax", 4),
                  ("to_dev_fe", 3), ("scan", 8, (("un", "double"), ("to_dev_fe",), ("to_dev_jax",)), False, "ys")],
        "outs": [6, 9], "out_kinds": ["device", "pinned_host"]},
    # bench/user_programs.py scan_offload:11: scan(..., unroll=2) with host ys
    "concat_decomposer": {"level": "user", "family": "scan_offload", "seed": 11},
    # --user remat_grad:10: a gradient accumulator's zero init (the accumulating form)
    "while_initializer_removal:accumulator": {"level": "user", "family": "remat_grad", "seed": 10},
    # --user remat_grad:142: a scan of one step, its loop gone in the dump
    "while_loop_simplifier": {"level": "user", "family": "remat_grad", "seed": 142},
    # --user identities:1: x.at[0].set(row) on a host x
    "scatter_to_dus": {"level": "user", "family": "identities", "seed": 1},
    # --user scan_offload:102: scan(..., unroll=2) of odd length: nested concatenates, flattened
    "algsimp:concatenate": {"level": "user", "family": "scan_offload", "seed": 102},
    # --user remat_grad:127: the gradient of relu(relu(x)) compares max(y, 0) > 0
    "algsimp:compare": {"level": "user", "family": "remat_grad", "seed": 127},
    # --user scan_offload:61: a scan of length 3, unroll=2, of relu with host ys: its loop of one
    # step inlined before CSE, relu(relu(x)) is relu(x) and the ys three rows of one value
    "algsimp:concatenate_of_one_row": {"level": "user", "family": "scan_offload", "seed": 61},
    # --user scan_offload:184: the same scan nested in a scan of two steps (its body keeps a loop)
    "while_loop_simplifier:nested": {"level": "user", "family": "scan_offload", "seed": 184},
}


def _module(spec):
    if spec["level"] != "hlo":  # the jax and user programs are lowered by jax
        pytest.importorskip("jax")
    if spec["level"] == "user":
        import user_programs

        from xladoctor.jax.lowering import lower_program

        lowered = user_programs.build(spec["family"], spec["seed"]).lower()
        return lower_program(lowered).module, None, lowered.as_text()
    if spec["level"] == "hlo":
        text = offload_gen.build_hlo(spec)
        return parse_module(text, "p"), text, None
    from xladoctor.jax.lowering import lower_program

    jitted, args = offload_gen.build_jax(spec)
    lowered = jitted.trace(*args).lower(lowering_platforms=("tpu",))
    return lower_program(lowered).module, None, lowered.as_text()


def _changed(module, name):
    from xladoctor.offload.clone import clone_module
    from xladoctor.offload.passes.call_inliner import looks_pre_optimization
    from xladoctor.offload.pipeline import PipelineConfig, offload_pipeline

    pipeline = offload_pipeline(PipelineConfig(looks_pre_optimization(module)), module, pre_passes_only=True)
    pipeline.run(clone_module(module))
    return any(changed for pass_name, changed in pipeline.changed if pass_name == name.split(":")[0])


def test_the_new_passes_are_declared_before_host_offload_legalize():
    names = pass_names()
    end = names.index("host_offload_legalize")
    for name in PROGRAMS:
        assert name.split(":")[0] in names[:end]
    assert names.index("call_inliner") < names.index("hlo_host_device_type_call_wrapper") \
        < names.index("host_offloading_prepare") < names.index("while_loop_simplifier") < names.index("cse") \
        < names.index("scatter_to_dus") < names.index("algsimp") \
        < names.index("reshape_mover") < names.index("concat_decomposer") \
        < names.index("while_initializer_removal") < names.index("pipelining_optimizations") < end


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_each_pass_changes_its_program(name):
    module, _, _ = _module(PROGRAMS[name])
    assert _changed(module, name)


def test_while_initializer_removal_leaves_an_allocate_buffer():
    module, _, _ = _module(PROGRAMS["while_initializer_removal"])
    prepared = prepared_module(module)
    targets = [i.custom_call_target for i in prepared.entry_computation().instructions]
    assert "AllocateBuffer" in targets


def test_an_accumulator_is_read_through_a_select_on_the_first_iteration():
    module, _, _ = _module(PROGRAMS["while_initializer_removal:accumulator"])
    prepared = prepared_module(module)
    opcodes = {i.opcode.value for c in prepared.computations for i in c.instructions}
    targets = [i.custom_call_target for i in prepared.entry_computation().instructions]
    assert "AllocateBuffer" in targets and "select" in opcodes


def test_a_loop_of_one_step_and_a_constant_scatter_are_gone():
    for name, opcode in (("while_loop_simplifier", "while"), ("scatter_to_dus", "scatter")):
        module, _, _ = _module(PROGRAMS[name])
        prepared = prepared_module(module)
        assert opcode in {i.opcode.value for c in module.computations for i in c.instructions}
        assert opcode not in {i.opcode.value for c in prepared.computations for i in c.instructions}


@pytest.mark.parametrize("name", ["algsimp:concatenate_of_one_row", "while_loop_simplifier:nested"])
def test_a_scans_ys_of_one_row_value_is_a_broadcast_of_its_move_to_host(name):
    """libtpu inlines the inner loop of one step (HloModuleDCE) before simplification-1's HloCSE:
    the relu bodies' ``broadcast(0)`` are one, ``max(max(x, 0), 0)`` is ``max(x, 0)``, the three
    MoveToHost of it and their reshapes are one, and ``concatenate(r, r, r)`` is a broadcast of the
    MoveToHost (``HandleConcatenate``, then ``reshape(reshape)`` folded).  Before, two maximums
    stayed and ConcatDecomposer made pads of the concatenate."""
    module, _, _ = _module(PROGRAMS[name])
    prepared = prepared_module(module)
    instructions = [i for c in prepared.computations for i in c.instructions]
    opcodes = [i.opcode.value for i in instructions]
    assert opcodes.count("maximum") == 1 and "concatenate" not in opcodes and "pad" not in opcodes
    (broadcast,) = [i for i in instructions if i.opcode.value == "broadcast" and len(i.shape.dimensions) == 3]
    assert is_move_to_host(broadcast.operands[0]) and broadcast.attributes["dimensions"] == "{1,2}"


ROWS = ("HloModule m, entry_computation_layout={(f32[8,128]{1,0})->SHAPE{2,1,0}}\nENTRY main {\n"
        "  x = f32[8,128] parameter(0)\n  r = f32[1,8,128] reshape(x)\n  s = f32[1,8,128] reshape(x)\n"
        "  ROOT c = SHAPE concatenate(OPERANDS), dimensions={DIM}\n}\n")


@pytest.mark.parametrize("operands,dim,shape,folded", [
    ("r, r, r", 0, "f32[3,8,128]", True),
    ("r, r", 0, "f32[2,8,128]", False),  # a binary concatenate is a pad or nothing
    ("r, s, r", 0, "f32[3,8,128]", False),  # not one instruction (CSE's to merge first)
    ("r, r, r", 1, "f32[1,24,128]", False),  # 8 rows along the dimension, not one
])
def test_a_concatenate_of_one_instruction_of_one_row_is_a_broadcast(operands, dim, shape, folded):
    from xladoctor.offload.passes.algebraic_simplifier import simplify_for_offloading

    text = ROWS.replace("SHAPE", shape).replace("OPERANDS", operands).replace("DIM", str(dim))
    module = parse_module(text, "concat")
    simplify_for_offloading(module)
    root = module.entry_computation().root_instruction()
    if not folded:
        assert root.opcode.value == "concatenate"
        return
    assert root.opcode.value == "broadcast" and root.attributes["dimensions"] == "{1,2}"
    assert root.operands[0].opcode.value == "reshape" and root.operands[0].operands[0].name == "r"
    simplify_for_offloading(module)  # the next run: reshape(reshape(x)) of x's shape is x
    assert module.entry_computation().root_instruction().operands[0].name == "x"


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_the_compiler_dumps_our_prepared_module_and_agrees(name, dumping_worker):
    worker, folder = dumping_worker
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder, exist_ok=True)
    module, hlo, mlir = _module(PROGRAMS[name])
    verdict = worker.compile_hlo(hlo) if hlo is not None else worker.compile_stablehlo(mlir)
    result = analyze_host_offload(module)
    agree = compare(prediction_of(result, module), verdict).agree
    assert agree is not False or match_divergence(module, result, verdict) is not None  # a named one
    dumped = read_dump(folder)
    assert dumped is not None
    c = compare_prepared(prepared_module(module), parse_module(dumped, "dump"))
    assert c.identical, c.describe()
