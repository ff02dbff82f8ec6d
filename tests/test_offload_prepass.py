"""The declared pass pipeline, the pre-pass rewrites it models, and the comparison of our
prepared module with the module the real compiler hands HostOffloadLegalize.

Without libtpu: the pipeline's shape, the analysis running exactly that list, the renaming
rule of :mod:`xladoctor.oracle.prepass`.  With it: each modelled AlgebraicSimplifier rewrite
compiled by the real TPU compiler (our verdict must be its verdict, and our prepared module
the one it dumps before ``host-offload-legalize``).
"""

from __future__ import annotations

import os
import shutil

import pytest

from hlo_corpus import CORPUS
from xladoctor.offload import analyze_host_offload
from xladoctor.offload.clone import clone_module
from xladoctor.offload.passes.host_offloader import OffloadOptions
from xladoctor.offload.pipeline import PipelineConfig, offload_pipeline, pass_names
from xladoctor.offload.report import legalize_json, result_json
from xladoctor.oracle import compare, prediction_of, unavailable_reason
from xladoctor.oracle.prepass import canonical_lines, compare_prepared, prepared_module, read_dump
from xladoctor.syntax.hlo_parser import parse_module

HEAD = "HloModule m, entry_computation_layout={(f32[1024]{0}, pred[1024]{0})->f32[1024]{0}}\nENTRY main {\n" \
       "  x = f32[1024] parameter(0)\n  k = pred[1024] parameter(1)\n" \
       '  h = f32[1024] custom-call(x), custom_call_target="MoveToHost"\n'
# Each modelled AlgebraicSimplifier rewrite (and a near miss), between a MoveToHost and the root.
SELECTS = {
    "same operands": "  ROOT s = f32[1024] select(k, h, h)\n}\n",
    "constant true": "  t = pred[] constant(true)\n  ROOT s = f32[1024] select(t, h, x)\n}\n",
    "broadcast true": "  t = pred[] constant(true)\n  b = pred[1024] broadcast(t), dimensions={}\n"
                      "  ROOT s = f32[1024] select(b, h, x)\n}\n",
    "constant false": "  f = pred[] constant(false)\n  ROOT s = f32[1024] select(f, h, x)\n}\n",
    "false keeps the host value": "  f = pred[] constant(false)\n  ROOT s = f32[1024] select(f, x, h)\n}\n",
    "not constant": "  n = f32[1024] negate(x)\n  ROOT s = f32[1024] select(k, h, n)\n}\n",
    # AlgebraicSimplifier::HandleNegate
    "negate of negate": "  n = f32[1024] negate(h)\n  ROOT s = f32[1024] negate(n)\n}\n",
    "one negate": "  ROOT s = f32[1024] negate(h)\n}\n",
}


def test_the_pipeline_is_xla_passes_in_order_ending_in_host_offloader():
    names = pass_names()
    assert names[-2:] == ["host_offload_legalize", "host_offloader"]
    assert names.index("call_inliner") < names.index("host_offloading_prepare") < names.index("algsimp")
    assert pass_names(pre_passes_only=True) == names[:-2]


@pytest.mark.parametrize("path", CORPUS[:40], ids=lambda p: p.stem)
def test_the_analysis_is_the_declared_pipeline(path):
    """``analyze_host_offload`` gives what running the pipeline by hand gives; every pass says
    whether it changed the module."""
    text = "\n".join(ln for ln in path.read_text().splitlines() if not ln.lstrip().startswith("//"))
    module = parse_module(text, path.stem)
    pipeline = offload_pipeline(PipelineConfig(True, True, OffloadOptions("shipped")), module, lint=True)
    pipeline.run(clone_module(module))
    assert [name for name, _ in pipeline.changed] == [p.name for p in pipeline.passes]
    assert all(isinstance(changed, bool) for _, changed in pipeline.changed)
    result = pipeline.context.result
    assert result is not None
    ours = analyze_host_offload(module, inline_calls=True)
    assert result_json(result, []) == result_json(ours, [])
    assert legalize_json(result) == legalize_json(ours)


def test_select_of_one_host_value_is_that_value():
    module = parse_module(HEAD + SELECTS["same operands"], "sel")
    assert analyze_host_offload(module).outcome == "ok"  # the root is the MoveToHost itself
    # XLA's HostOffloader unit tests run the pass alone: the select stays and is E1200.
    assert analyze_host_offload(module, inline_calls=False).outcome == "E1200"
    prepared = prepared_module(module)
    assert prepared.entry_computation().root_instruction().name == "h"


def test_the_renaming_rule_ignores_names_and_layouts_and_finds_the_first_difference():
    a = parse_module(HEAD + SELECTS["not constant"], "a")
    renamed = (HEAD + SELECTS["not constant"]).replace("h", "h.7").replace(" x", " param").replace("(x", "(param") \
        .replace("f32[1024] negate", "f32[1024]{0:T(256)} negate")
    assert compare_prepared(a, parse_module(renamed, "b")).identical
    swapped = parse_module((HEAD + SELECTS["not constant"]).replace("select(k, h, n)", "select(k, n, h)"), "c")
    c = compare_prepared(a, swapped)
    assert not c.identical and c.ours is not None and c.theirs is not None
    assert (c.ours.name, c.theirs.name) == ("h", "n")  # the first operand of the select, in post order
    assert len(canonical_lines(a)) == 1 + 5  # the entry layout line and five instructions


needs_libtpu = pytest.mark.skipif(unavailable_reason() is not None,
                                  reason=f"real TPU compiler unavailable: {unavailable_reason()}")


@needs_libtpu
@pytest.mark.parametrize("case", list(SELECTS))
def test_select_rewrites_give_the_real_compilers_verdict_and_module(case, dumping_worker):
    worker, folder = dumping_worker
    text = HEAD + SELECTS[case]
    for name in os.listdir(folder):
        shutil.rmtree(os.path.join(folder, name), ignore_errors=True) if os.path.isdir(os.path.join(folder, name)) \
            else os.remove(os.path.join(folder, name))
    verdict = worker.compile_hlo(text)
    module = parse_module(text, case)
    comparison = compare(prediction_of(analyze_host_offload(module), module), verdict)
    assert comparison.agree is True, comparison.reason
    dumped = read_dump(folder)
    if dumped is not None:  # the compile reached host offloading: the same module
        c = compare_prepared(prepared_module(module), parse_module(dumped, "dump"))
        assert c.identical, c.describe()


@needs_libtpu
@pytest.mark.parametrize("scenario", ["70_select_same_operand", "J2_move_to_host_into_compute_on_host_call"])
def test_scenarios_prepare_to_the_compilers_module(scenario, dumping_worker):
    """A select of one value (AlgebraicSimplifier) and a ``compute_on`` host call (read as the
    compiler's async HostExecute pair): our prepared module is the one the compiler dumps."""
    worker, folder = dumping_worker
    path = next(p for p in CORPUS if p.stem == scenario)
    text = "\n".join(ln for ln in path.read_text().splitlines() if not ln.lstrip().startswith("//"))
    for name in os.listdir(folder):
        target = os.path.join(folder, name)
        shutil.rmtree(target, ignore_errors=True) if os.path.isdir(target) else os.remove(target)
    assert worker.compile_hlo(text).kind == "compiles"
    dumped = read_dump(folder)
    assert dumped is not None
    c = compare_prepared(prepared_module(parse_module(text, scenario)), parse_module(dumped, "dump"))
    assert c.identical, c.describe()


@needs_libtpu
def test_the_former_host_result_tuple_divergence_is_a_double_negation(dumping_worker):
    """Named ``hlo-route-host-result-tuple`` until the comparison showed why libtpu reports the
    root ``tuple``: ``negate(negate(MoveToHost))`` is the MoveToHost after AlgebraicSimplifier."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import offload_gen

    worker, _ = dumping_worker
    text = offload_gen.build_hlo({"level": "hlo", "args": ["device", "device", "device"],
                                  "steps": [("mth", 2), ("un", "neg", 3), ("un", "neg", 4)],
                                  "outs": [5, 4], "out_kinds": ["device", "pinned_host"], "tuple_root": True})
    module = parse_module(text, "double_negation")
    verdict = worker.compile_hlo(text)
    comparison = compare(prediction_of(analyze_host_offload(module), module), verdict)
    assert verdict.kind == "e1200" and comparison.agree is True, comparison.reason
