"""Reviewed snapshots of what people read: a change to any of these outputs shows up as a diff.

Regenerate with ``XLADOCTOR_UPDATE_GOLDEN=1 pytest tests/test_golden.py`` and review the diff
before committing; never regenerate blindly.
"""

import os
from pathlib import Path

import pytest

from xladoctor.cli.main import main
from xladoctor.route.folder import example_paths

GOLDEN = Path(__file__).parent / "golden"
EXAMPLES = str(Path(example_paths()[0]).parent)
SEED_EXPECTED = "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}\n"
SEED_SUPPLIED = "bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}\n"


def _example(name: str) -> str:
    return os.path.join(EXAMPLES, name)


CASES = {
    "check_examples.txt": lambda tmp: ["check", "--examples"],
    "offload_trace.txt": lambda tmp: ["offload", _example("e1200_offloaded_activation.hlo"), "--trace"],
    "explain_tpu_job.txt": lambda tmp: ["explain", _example("tpu_job.log"), "--width", "100"],
    "explain_tpu_job_fa.txt": lambda tmp: ["explain", _example("tpu_job.log"), "--lang", "fa", "--bidi", "logical",
                                           "--width", "100"],
    # Persian as a terminal without bidi support must receive it: visual order, joined forms, lam-alef.
    "explain_code_e0102_fa_visual.txt": lambda tmp: ["explain", "E0102", "--lang", "fa", "--bidi", "visual",
                                                     "--width", "100"],
    "explain_code_c0432_fa_visual.txt": lambda tmp: ["explain", "C0432", "--lang", "fa", "--bidi", "visual",
                                                     "--width", "80"],
    "explain_code_e1200.txt": lambda tmp: ["explain", "E1200", "--width", "100", "--lang", "en"],
    "shape_seed.txt": lambda tmp: ["shape", SEED_EXPECTED.strip()],
    "inputs_seed.txt": lambda tmp: ["inputs", str(tmp / "expected.shapes"), "--supplied-shapes",
                                    str(tmp / "supplied.shapes"), "--executable", "jit_embedding_pipeline_step_fn"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_matches_reviewed_snapshot(name, tmp_path, capsys):
    (tmp_path / "expected.shapes").write_text(SEED_EXPECTED)
    (tmp_path / "supplied.shapes").write_text(SEED_SUPPLIED)
    main(CASES[name](tmp_path))
    out = capsys.readouterr().out.replace(EXAMPLES, "<examples>").replace(str(tmp_path), "<tmp>")
    path = GOLDEN / name
    if os.environ.get("XLADOCTOR_UPDATE_GOLDEN"):
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8")
