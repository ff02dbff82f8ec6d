"""The analysis copies only what its first pass keeps (``offload/analysis.py`` ``private_copy``).

A pre-optimisation module's first pass is the rebuild (``stablehlo_rebuild.rebuild_as_compiled``), whose
dead-code removal the copy anticipates: the dead code of every computation the rebuild would
not change first (no ``gte(tuple)`` to fold, no control edges) is left out of the copy, its
names stay taken and it is reported as that removal's.  Checked on HLO jax produced (the
programs of ``jax_programs.py``, lowered, and their dumps) and on a real training step repeated
three times (``bench/real_modules.py``: all but the last copy's results are unused, offloads
included), each run through the whole pipeline twice, from the full copy and from the copy
without the dead code: the same module after every pass, the same removed instructions in the
same order, the same names given afterwards, the same result.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from xladoctor.ir.module import HloModule
from xladoctor.offload.analysis import private_copy
from xladoctor.offload.clone import clone_module
from xladoctor.offload.passes.hlo_pass_pipeline import HloPassPipeline
from xladoctor.offload.passes.host_offloader import OffloadOptions
from xladoctor.offload.pipeline import PipelineConfig, offload_pipeline
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _repeated_step() -> HloModule:
    """Three copies of ``real_modules``' jax training step (lowered for TPU v5e by libtpu)."""
    code = f"import sys; sys.path.insert(0, {str(BENCH)!r}); from real_modules import module; " \
           "print(module('jax_entry', 57), end='')"
    text = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return parse_module(text, "jax_entry")


def _run(module: HloModule, copy: HloModule, left_out: dict) -> tuple[HloPassPipeline, list[str]]:
    config = PipelineConfig(True, True, OffloadOptions("shipped"))
    printed: list[str] = []
    pipeline = offload_pipeline(config, module, left_out,
                                after_each=lambda p, m: printed.append(f"{p.name}\n{print_module(m)}"))
    pipeline.run(copy)
    return pipeline, printed


def _same_run(label: str, module: HloModule) -> int:
    """Both runs agree; returns how many instructions the copy left out."""
    config = PipelineConfig(True, True, OffloadOptions("shipped"))
    copy, left_out = private_copy(module, config)
    full_copy = clone_module(module)
    full, full_printed = _run(module, full_copy, {})
    live, live_printed = _run(module, copy, left_out)
    assert live_printed == full_printed, label
    assert [i.name for i in live.context.dead] == [i.name for i in full.context.dead], label
    assert live.changed == full.changed, label
    assert live.context.result == full.context.result, label
    names = [i.name for c in module.computations for i in c.instructions]
    assert [copy.unique_name(n) for n in names] == [full_copy.unique_name(n) for n in names], label
    return sum(map(len, left_out.values()))


def test_the_copy_without_dead_code_runs_the_pipeline_as_the_full_copy(jax_hlo_corpus):
    modules = [(f"{p.stem}/pre", parse_module(p.read_text(), str(p)))
               for p in sorted((jax_hlo_corpus.root / "pre").glob("*.txt"))]
    modules += [(p.name, parse_module(p.read_text(), str(p))) for p in jax_hlo_corpus.hlo_dump_files()[:40]]
    left_out = sum(_same_run(label, module) for label, module in modules)
    assert left_out, "no jax program had dead code: the left-out path went unchecked"


def test_dead_offloads_of_a_repeated_step_are_reported_as_before():
    pytest.importorskip("jax")
    module = _repeated_step()
    assert _same_run("jax_entry x3", module) > 0
    config = PipelineConfig(True, True, OffloadOptions("shipped"))
    copy, left_out = private_copy(module, config)
    pipeline = offload_pipeline(config, module, left_out)
    pipeline.run(copy)
    result = pipeline.context.result
    copies = sum(c.name.startswith("relu") for c in module.computations)
    assert copies == 3 and result is not None
    assert len(result.dropped_offloads) == 2  # the first two copies'
