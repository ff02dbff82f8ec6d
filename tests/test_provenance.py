"""Where a module came from (xladoctor.triage.provenance) on real jax/XLA artefacts.

The CPU dumps and the TPU lowerings come from the session's jax corpus (tests/jax_programs.py:
the same programs lowered for CPU and compiled with ``--xla_dump_to``, and lowered for TPU).
"""

from __future__ import annotations

import json

import pytest

from xladoctor.cli.main import main as cli_main
from xladoctor.triage.provenance import detect


def _dump(corpus, program: str, suffix: str):
    return next(p for p in corpus.hlo_dump_files(program) if p.name.endswith(suffix))


@pytest.mark.parametrize("program", ["device_put_pinned_host", "scan_remat_offload"])
def test_cpu_lowering_drops_the_placement_annotations_tpu_keeps(jax_hlo_corpus, program):
    """The fact the CPU warning rests on, checked on jax itself (at top level and in a scan)."""
    cpu_pre = _dump(jax_hlo_corpus, program, "before_optimizations.txt").read_text()
    tpu_pre = jax_hlo_corpus.text(program + "_tpu", "pre")
    assert "annotate_device_placement" not in cpu_pre
    assert "annotate_device_placement" in tpu_pre


@pytest.mark.parametrize("suffix,stage", [("before_optimizations.txt", "lowered"),
                                          ("cpu_after_optimizations.txt", "compiled")])
def test_cpu_dump_files_are_recognised(jax_hlo_corpus, suffix, stage):
    path = _dump(jax_hlo_corpus, "device_put_pinned_host", suffix)
    prov = detect(path.read_text(), str(path))
    assert (prov.platform, prov.stage, prov.faithful_for_accelerator) == ("cpu", stage, False)
    assert "cpu_after_optimizations.txt" in prov.evidence[0]
    assert "cannot stand for TPU/GPU" in prov.note() and "lowering_platforms=('tpu',)" in prov.note()


def test_cpu_dump_without_its_siblings_still_says_cpu_by_name(jax_hlo_corpus, tmp_path):
    src = _dump(jax_hlo_corpus, "device_put_pinned_host", "cpu_after_optimizations.txt")
    alone = tmp_path / src.name
    alone.write_text(src.read_text())
    assert detect(alone.read_text(), str(alone)).platform == "cpu"


def test_a_tpu_lowering_is_not_called_cpu(jax_hlo_corpus):
    prov = detect(jax_hlo_corpus.text("device_put_pinned_host_tpu", "pre"), None)
    assert prov.platform is None and prov.note() is None and prov.stage == "lowered"


def test_bundled_tpu_example_is_tpu_by_its_tiles():
    from importlib import resources

    text = (resources.files("xladoctor") / "examples" / "e1200_offloaded_activation.hlo").read_text()
    prov = detect(text, None)
    assert prov.platform == "tpu" and prov.evidence == ["TPU tiled layout (T(...)) in a shape"]


def test_check_and_offload_carry_the_note(jax_hlo_corpus, capsys, tmp_path):
    path = str(_dump(jax_hlo_corpus, "device_put_pinned_host", "before_optimizations.txt"))
    cli_main(["check", path, "--html", str(tmp_path / "r.html")])
    assert "note: this module was lowered for CPU" in capsys.readouterr().out
    assert "this module was lowered for CPU" in (tmp_path / "r.html").read_text()
    cli_main(["offload", path, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["provenance"]["platform"] == "cpu" and doc["provenance"]["faithful_for_accelerator"] is False


@pytest.mark.parametrize("name,platform", [
    ("module_0007.jit_step.sm_8.0_gpu_after_optimizations.txt", "gpu"),
    ("module_0007.jit_step.cpu_after_optimizations.txt", "cpu"),
    ("module_0000.jit_step.cl_933746096.after_optimizations.txt", "tpu"),
    ("module_0007.jit_step.before_optimizations.txt", None),
])
def test_dump_file_names(jax_hlo_corpus, tmp_path, name, platform):
    """XLA's dump names alone (the text is a CPU-compiled module with no tiles or library calls)."""
    text = jax_hlo_corpus.text("device_put_pinned_host", "post")
    path = tmp_path / name
    path.write_text(text)
    prov = detect(text, str(path))
    assert prov.platform == platform
    assert prov.stage == "compiled"  # is_scheduled=true in the header, whatever the name says


_RULES_AS_SEARCHES = (  # the six rules as they were written, one search each (the spec of text_rules_matched)
    r"\{[\d,]*:[^}]*T\(\d", r'"scoped_memory_configs"', r'custom_call_target="tpu_custom_call"',
    r'custom_call_target="__(?:cublas|cudnn|triton|gpu\$)', r'"operation_queue_id"',
    r'custom_call_target="(?:__onednn\$|lapack_|xla\.cpu\.)')


def test_text_rules_matched_finds_what_one_search_per_rule_finds(jax_hlo_corpus):
    """The rules' one pass (two literals, the targets as one expression resumed after each find)
    against a search per rule: on texts mixing every target, the near misses and the same target
    many times, and on the corpus' TPU lowerings."""
    import random
    import re

    from xladoctor.triage.provenance import text_rules_matched

    pieces = ['custom_call_target="tpu_custom_call"', 'custom_call_target="tpu_custom_call_x',
              'custom_call_target="__cublas$gemm"', 'custom_call_target="__cudnn$conv"', 'custom_call_target="__triton"',
              'custom_call_target="__gpu$xla.gpu.triton"', 'custom_call_target="__onednn$matmul"',
              'custom_call_target="lapack_sgetrf"', 'custom_call_target="xla.cpu.foo"', 'custom_call_target="__onednn',
              'custom_call_target="MoveToHost"', '"scoped_memory_configs"', '"operation_queue_id"',
              "{1,0:T(8,128)}", "{1,0:T(x)}", "f32[8]{0}", 'custom_call_target="', "custom_call_target=", " "]
    rng = random.Random(7)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12))) for _ in range(3000)]
    texts += [jax_hlo_corpus.text(p + "_tpu", "pre") for p in ("device_put_pinned_host", "scan_remat_offload")]
    for text in texts:
        expected = [n for n, pattern in enumerate(_RULES_AS_SEARCHES) if re.search(pattern, text)]
        assert text_rules_matched(text) == expected, text


def test_the_tiled_layout_rule_is_the_search_it_replaced():
    """The tiled-layout rule, tried only from the ``{`` before each ``:``, against the regex's search on
    near misses: no brace, a space or a letter in the run, a Unicode digit, colons in a row, ``}`` before ``T(``."""
    import random
    import re

    from xladoctor.triage.provenance import text_rules_matched

    pieces = ["{", "}", ":", ",", "1", "0", "\u0663", " ", "x", "T(", "T(8", "{1,0:T(8,128)}", "::", "{:T(1)}",
              "{1,:T(2)}", "1,0:T(8)", "{1 ,0:T(8)}", "{1,0:}T(8)", "{1:x}T(1)", "{{1:T(9"]
    rng = random.Random(36)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(0, 14))) for _ in range(5000)]
    for text in texts:
        assert (0 in text_rules_matched(text)) == (re.search(_RULES_AS_SEARCHES[0], text) is not None), text


@pytest.mark.parametrize("line,platform", [
    ('  %p = f32[8,128]{1,0:T(8,128)} parameter(0)', "tpu"),
    ('  %c = f32[8] custom-call(%p), custom_call_target="tpu_custom_call"', "tpu"),
    ('  %c = f32[8] fusion(%p), kind=kLoop, backend_config={"scoped_memory_configs":[]}', "tpu"),
    ('  %c = f32[8] custom-call(%p), custom_call_target="__cublas$gemm"', "gpu"),
    ('  %c = f32[8] custom-call(%p), custom_call_target="__triton"', "gpu"),
    ('  %c = f32[8] fusion(%p), kind=kLoop, backend_config={"operation_queue_id":"0"}', "gpu"),
    ('  %c = f32[8] custom-call(%p), custom_call_target="__onednn$matmul"', "cpu"),
    ('  %c = f32[8] custom-call(%p), custom_call_target="lapack_sgetrf"', "cpu"),
    ('  %c = f32[8] custom-call(%p), custom_call_target="xla.cpu.foo"', "cpu"),
    ('  %c = f32[8] custom-call(%p), custom_call_target="__gpu$xla.gpu.triton"', "gpu"),
])
def test_each_text_rule_finds_its_evidence_in_a_module(line, platform):
    """Every form of evidence each text rule looks for gives its platform, and no other rule matches
    it: one search per rule as written before the one pass, then ``detect`` on the module."""
    import re

    from xladoctor.triage.provenance import _TEXT_RULES, text_rules_matched

    text = f"HloModule m\n\nENTRY %main {{\n{line}\n}}\n"
    matched = [n for n, pattern in enumerate(_RULES_AS_SEARCHES) if re.search(pattern, text)]
    assert text_rules_matched(text) == matched and [_TEXT_RULES[n][0] for n in matched] == [platform]
    assert detect(text, None).platform == platform
