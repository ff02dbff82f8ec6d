"""Every pass of the declared pipeline leaves every corpus module lint-clean (issue 20's "Done when").

Why: a pass that breaks an IR link (a user list missing a user, a name two instructions share, a
stale caller index) changes which walk comes first without any error; linting after each pass
catches it at the pass that broke it.  The passes are :func:`xladoctor.offload.pipeline.offload_pipeline`'s
own, linted by the pipeline runner itself (``lint=True``: the module before the first pass and
after each, the pass named in the error), so a pass added to the pipeline is covered without
touching this test.  Both configurations run: the pre-optimisation one (rebuild, marker
removal, CallInliner, algsimp) and the scheduled one, each through HostOffloader.

The corpus: the bundled examples, tests/data (offload scenarios, inputs, logs...: every ``*.hlo``
and ``*.hlo.txt`` that parses and verifies), XLA's own test modules (tests/data/xla_tests), and 40
modules bench/offload_gen.py builds.  Modules the parser or verifier refuses are input errors, not
pass bugs, and are skipped; at least 1,000 modules must reach the passes.
"""

from __future__ import annotations

from pathlib import Path

from hlo_corpus import CORPUS, generated_hlo
from xla_corpus import modules as xla_test_modules
from xladoctor.base.errors import XlaDoctorError
from xladoctor.ir.lint import LintError
from xladoctor.ir.module import HloModule
from xladoctor.ir.verify import verify_module
from xladoctor.offload.clone import clone_module
from xladoctor.offload.passes.host_offloader import OffloadOptions
from xladoctor.offload.pipeline import PipelineConfig, offload_pipeline
from xladoctor.syntax.hlo_parser import parse_module

DATA = Path(__file__).parent / "data"


def _texts(tmp_path: Path) -> list[tuple[str, str]]:
    files = {*CORPUS, *generated_hlo(tmp_path, 40), *DATA.rglob("*.hlo"), *DATA.rglob("*.hlo.txt")}
    out = [(str(p), p.read_text(encoding="utf-8", errors="replace"))
           for p in sorted(files) if "xla_tests" not in p.parts]
    out += [(m.where, m.text) for m in xla_test_modules()]
    return out


def _parsed(where: str, text: str) -> HloModule | None:
    try:
        module = parse_module(text, where)
        verify_module(module)
    except XlaDoctorError:
        return None
    return module


def test_every_pass_of_the_pipeline_leaves_every_corpus_module_lint_clean(tmp_path):
    options = OffloadOptions("shipped", False, False)
    ran = 0
    for where, text in _texts(tmp_path):
        module = _parsed(where, text)
        if module is None:
            continue
        module.lint()
        for inline in (True, False):
            config = PipelineConfig(inline_calls=inline, legalize=True, options=options)
            copy = clone_module(module)
            try:
                offload_pipeline(config, module, lint=True).run(copy)
            except XlaDoctorError:
                continue  # a refusal the analysis reports as input (an inlining bound): not a link bug
            except LintError as e:
                raise AssertionError(f"{where} ({'pre-optimisation' if inline else 'scheduled'}): {e}") from None
            copy.lint()
        module.lint()  # the passes rewrite the private copy only
        ran += 1
    assert ran >= 1000, ran
