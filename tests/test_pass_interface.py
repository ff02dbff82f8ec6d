"""One pass interface (XLA's ``HloPassInterface``) and one runner (``HloPassPipeline``), no adapters.

Every pass the offload pipeline runs is an object with a ``name`` and ``run(module) -> bool``,
made with its options; the pipeline is a list of such passes run by one runner, which records
each pass' ``changed`` and lints the module after each when asked (the tests ask; the debug flag
``XLADOCTOR_LINT_PASSES=1`` does too).  What a pass hands on goes onto the run's one
:class:`~xladoctor.offload.passes.analysis_context.AnalysisContext`.  And every pass has its own
text-in/text-out test in ``tests/test_pass_text_*.py``.
"""

from __future__ import annotations

import importlib
import pkgutil
import types
from pathlib import Path
from textwrap import dedent

import pytest

from xladoctor.ir.lint import LintError
from xladoctor.ir.module import HloModule
from xladoctor.offload import passes as passes_package
from xladoctor.offload.passes.analysis_context import AnalysisContext
from xladoctor.offload.passes.hlo_dce import HloDCE
from xladoctor.offload.passes.hlo_pass_interface import HloPassInterface, HloPassWithContext
from xladoctor.offload.passes.hlo_pass_pipeline import LINT_FLAG, HloPassPipeline
from xladoctor.offload.passes.host_offloader import HostOffloader, OffloadOptions
from xladoctor.offload.passes.tuple_simplifier import TupleSimplifier
from xladoctor.offload.pipeline import EVERY_PASS, PipelineConfig, offload_pipeline, pass_names
from xladoctor.syntax.hlo_parser import parse_module

TESTS = Path(__file__).resolve().parent

CONFIGS = [EVERY_PASS, PipelineConfig(inline_calls=False, options=OffloadOptions()),
           PipelineConfig(inline_calls=True, options=OffloadOptions(), platform="cuda"),
           PipelineConfig(inline_calls=True, legalize=False)]

DEAD_OFFLOAD = """
HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY main {
  p = f32[4]{0} parameter(0)
  mth = f32[4]{0} custom-call(p), custom_call_target="MoveToHost"
  ROOT n = f32[4]{0} negate(p)
}
"""


class _RenamesIntoAClash(HloPassInterface):
    """A broken pass: gives an instruction a name another one has, past the IR's methods."""

    name = "renames_into_a_clash"

    def run(self, module: HloModule) -> bool:
        entry = module.entry_computation()
        entry.root_instruction().name = entry.parameters[0].name
        return True


def _pass_classes() -> set[type[HloPassInterface]]:
    """Every concrete pass class defined in ``offload/passes/`` (the runner and the bases aside)."""
    found: set[type[HloPassInterface]] = set()
    for info in pkgutil.walk_packages(passes_package.__path__, passes_package.__name__ + "."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, types.GenericAlias):  # a type alias (tuple[...]): a type to 3.10's isinstance
                continue
            if isinstance(value, type) and issubclass(value, HloPassInterface) and value.__module__ == info.name \
                    and value not in (HloPassInterface, HloPassWithContext, HloPassPipeline):
                found.add(value)
    return found


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"inline={c.inline_calls},{c.platform},"
                                                          f"legalize={c.legalize},offload={c.options is not None}")
def test_every_pass_is_an_hlo_pass_on_the_pipelines_one_context(config):
    pipeline = offload_pipeline(config)
    assert pipeline.passes, config
    for p in pipeline.passes:
        assert isinstance(p, HloPassInterface) and isinstance(p.name, str) and p.name, p
        if isinstance(p, HloPassWithContext):
            assert p.context is pipeline.context, p


def test_the_configurations_choose_passes_as_xla_does():
    every = pass_names()
    assert pass_names(CONFIGS[1]) == ["annotation_cse", "annotation_cse", "host_offloading_prepare", "hlo_dce",
                                      "host_offload_legalize", "host_offloader"]
    gpu = pass_names(CONFIGS[2])  # libtpu's own passes do not run for XLA:GPU
    assert not {"scatter_to_dus", "concat_decomposer", "host_offloading_prepare"} & set(gpu)
    rest = iter(every)
    assert all(name in rest for name in gpu)  # in the same order: a subsequence of the whole
    assert pass_names(CONFIGS[3])[-1] == "pipelining_optimizations"  # no legalize, no HostOffloader
    algsimps = [p for p in offload_pipeline(CONFIGS[2]).passes if p.name == "algsimp"]
    assert algsimps and not any(getattr(p, "floats_are_real", True) for p in algsimps)


def test_every_pass_class_is_in_the_pipeline_and_has_its_own_text_test():
    """A pass class nothing runs, or one without a text-in/text-out test, fails here."""
    in_pipeline = {type(p) for p in offload_pipeline(EVERY_PASS).passes}
    classes = _pass_classes()
    assert classes == in_pipeline, classes ^ in_pipeline
    text_tests = "".join(p.read_text(encoding="utf-8") for p in sorted(TESTS.glob("test_pass_text_*.py")))
    untested = sorted(c.__name__ for c in classes if f"{c.__name__}(" not in text_tests)
    assert not untested, f"passes without a text-in/text-out test in tests/test_pass_text_*.py: {untested}"


def test_the_runner_records_each_pass_and_whether_it_changed_the_module():
    module = parse_module(dedent(DEAD_OFFLOAD).strip())
    pipeline = HloPassPipeline("t", lint=True)
    for p in (TupleSimplifier(), HloDCE(pipeline.context), HloDCE(pipeline.context)):
        pipeline.add_pass(p)
    assert pipeline.run(module) is True
    assert pipeline.changed == [("tuple_simplifier", False), ("hlo_dce", True), ("hlo_dce", False)]
    assert [i.name for i in pipeline.context.dead] == ["mth"]
    nested = HloPassPipeline("outer")
    nested.add_pass(pipeline)  # a pipeline is a pass
    assert nested.run(module) is False and nested.changed == [("t", False)]


def test_results_are_handed_on_through_the_context_not_returned():
    """HloDCE removes a dead MoveToHost; HostOffloader reads that from the context and reports it
    as XLA's removed-before-the-pass offload, its result on the same context."""
    module = parse_module(dedent(DEAD_OFFLOAD).strip())
    context = AnalysisContext(original=module)
    pipeline = HloPassPipeline("t", context, lint=True)
    pipeline.add_pass(HloDCE(context))
    pipeline.add_pass(HostOffloader(OffloadOptions(), context))
    pipeline.run(module.clone())
    assert context.result is not None
    assert [d.move_to_host for d in context.result.dropped_offloads] == ["mth"]
    assert context.result.outcome == "ok"


def test_lint_after_each_pass_names_the_pass_that_broke_the_ir():
    module = parse_module(dedent(DEAD_OFFLOAD).strip())
    pipeline = HloPassPipeline("t", lint=True)
    pipeline.add_pass(HloDCE(pipeline.context))
    pipeline.add_pass(_RenamesIntoAClash())
    with pytest.raises(LintError, match="after renames_into_a_clash: name 'p' is used twice"):
        pipeline.run(module)
    assert pipeline.changed[0] == ("hlo_dce", True)


def test_the_debug_flag_turns_lint_on_and_nothing_else_does(monkeypatch):
    monkeypatch.delenv(LINT_FLAG, raising=False)
    quiet = HloPassPipeline("t")
    quiet.add_pass(_RenamesIntoAClash())
    assert quiet.run(parse_module(dedent(DEAD_OFFLOAD).strip())) is True  # not linted: the flag is off
    monkeypatch.setenv(LINT_FLAG, "1")
    flagged = HloPassPipeline("t")
    flagged.add_pass(_RenamesIntoAClash())
    with pytest.raises(LintError, match="after renames_into_a_clash"):
        flagged.run(parse_module(dedent(DEAD_OFFLOAD).strip()))
