"""E0102 message parsing (TPU, CPU/GPU, StreamExecutor) and size recomputation from the printed shapes."""

from __future__ import annotations

import pytest

from xladoctor.base.labels import localize
from xladoctor.inputs.messages import analyze_e0102, explain_shape, parse_e0102, tilings_for_size
from xladoctor.syntax.shape_parser import parse_shape

SEED = ("XlaRuntimeError: INVALID_ARGUMENT: Executable(jit_embedding_pipeline_step_fn) expected parameter 2482 of "
        "size 5242880 (bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}) but got buffer with incompatible size 1638400 "
        "(bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}): while running replica 0 and partition 0 of a replicated "
        "computation (other replicas may have failed as well).")
# EnzymeAD/Reactant.jl PR #2497 (after a libtpu bump): the actual layout printed without its tiling.
REACTANT = ("INVALID_ARGUMENT: Executable(main) expected parameter 0 of size 6144 (f32[5,4,3]{0,1,2:T(4,128)}) "
            "but got buffer with incompatible size 10240 (f32[5,4,3]{2,1,0})")


def test_tpu_message_fields():
    f = parse_e0102(SEED)
    f.pop("_span")
    assert f == {"executable": "jit_embedding_pipeline_step_fn", "parameter": 2482, "expected_size": 5242880,
                 "actual_size": 1638400, "expected_shape": "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}",
                 "actual_shape": "bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}", "replica": 0, "partition": 0,
                 "format": "tpu", "variant": "size"}


def test_tpu_message_wrapped_over_lines():
    wrapped = SEED.replace(" of size 5242880", "\nof size 5242880").replace(" (bf16[16,1280,40]{1", "\n(bf16[16,1280,40]{1")
    wrapped = wrapped.replace(" of a replicated", "\nof a replicated")
    f = parse_e0102(wrapped)
    assert f["actual_shape"] == "bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}" and f["partition"] == 0
    assert f["_span"][1] == len(wrapped)


def test_single_device_message_has_no_replica():
    f = parse_e0102(REACTANT)
    assert f["replica"] is None and f["partition"] is None and f["executable"] == "main"


@pytest.mark.parametrize("text", [
    "Executable expected parameter 0 of size 4096 but got buffer with incompatible size 3840",   # CPU
    "Executable expected parameter 0 of size 4096 but got buffer with incompatible size 3840 ",  # GPU
])
def test_cpu_gpu_messages(text):
    f = parse_e0102("INVALID_ARGUMENT: " + text)
    assert (f["format"], f["parameter"], f["expected_size"], f["actual_size"]) == ("cpu_gpu", 0, 4096, 3840)
    assert f["expected_shape"] is None and f["executable"] is None
    a = localize(analyze_e0102(f), "en")
    assert "expected_physical_bytes" not in a and a["size_ratio"] == round(4096 / 3840, 4)
    assert "dense sizes" in a["notes"][0]


def test_stream_executor_message_with_tuple_shape():
    f = parse_e0102("Executable expected shape (f32[2]{0}, s32[]) for argument 3 but got incompatible shape "
                    "f32[3]{0}")
    assert (f["format"], f["parameter"]) == ("stream_executor", 3)
    assert f["expected_shape"] == "(f32[2]{0}, s32[])" and f["actual_shape"] == "f32[3]{0}"
    a = localize(analyze_e0102(f), "en")
    assert a["actual_physical_bytes"] == 12


def test_not_an_e0102_message():
    assert parse_e0102("expected parameter count to be 3") is None


def test_seed_sizes_recomputed_and_padded_dimension():
    a = localize(analyze_e0102(parse_e0102(SEED)), "en")
    assert a["expected_physical_bytes"] == 5242880 and a["actual_physical_bytes"] == 1638400
    assert a["expected"]["size_matches_shape"] and a["actual"]["size_matches_shape"]
    assert a["expected"]["padded_dimensions"] == [
        {"dim": 2, "size": 40, "padded_size": 128, "tile_entry": 128, "physical_position": 0}]
    assert a["actual"]["padded_dimensions"] == []
    assert a["expected"]["jax_major_to_minor"] == [0, 1, 2] and a["actual"]["jax_major_to_minor"] == [0, 2, 1]
    assert any("different dimension order" in n for n in a["notes"])
    assert a["size_ratio"] == 3.2


def test_reactant_missing_tiling_is_detected_and_explained():
    a = localize(analyze_e0102(parse_e0102(REACTANT)), "en")
    assert a["expected"]["size_matches_shape"] is True and a["expected_physical_bytes"] == 6144
    actual = a["actual"]
    assert actual["size_matches_shape"] is False and actual["physical_bytes"] == 240
    cands = actual["tilings_matching_printed_size"]
    assert "T(4,128) on {2,1,0}" in cands and "T(8,128) on {2,1,0}" not in cands
    # Sub-tiles for 16/8-bit types are never proposed for f32.
    assert not any("(2,1)" in c or "(4,1)" in c for c in cands)
    assert any("printed without its tiling" in n for n in a["notes"])


def test_tilings_for_size_respects_element_width():
    bf16 = parse_shape("bf16[16,1280,40]{2,1,0}")
    assert "T(8,128)(2,1) on {2,1,0}" in tilings_for_size(bf16, 5242880)
    s8 = parse_shape("s8[100,100]{1,0}")
    cands = tilings_for_size(s8, 104 * 128)
    assert "T(8,128)(4,1) on {1,0}" in cands and "T(8,128)(2,1) on {1,0}" not in cands


def test_unparseable_shape_is_reported_not_raised():
    info = explain_shape("f32[5,4,3]{2,1,0:T(", 10)
    assert info == {"shape": "f32[5,4,3]{2,1,0:T(", "parsed": False}


def test_sizes_agree_with_jaxlib_layouts():
    """Our recomputed physical size equals what XLA itself assigns for a real CPU executable's parameter."""
    jax = pytest.importorskip("jax")
    import numpy as np

    x = np.zeros((16, 1280, 40), dtype=np.float32)
    compiled = jax.jit(lambda a: a + 1).lower(x).compile()
    text = compiled.as_text()
    import re
    m = re.search(r"entry_computation_layout=\{\((f32\[16,1280,40\]\{[^}]*\})", text)
    assert m, text[:500]
    info = explain_shape(m.group(1), x.nbytes)
    assert info["size_matches_shape"] is True and info["physical_bytes"] == x.nbytes


def test_analysis_notes_come_in_every_language():
    fields = parse_e0102("Executable(f) expected parameter 0 of size 5242880 (bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}) "
                         "but got buffer with incompatible size 1638400 (bf16[16,1280,40]{1,2,0:T(8,128)(2,1)})")
    analysis, persian = localize(analyze_e0102(fields), "en"), localize(analyze_e0102(fields), "fa")
    # order, padding, and which side is the TPU default layout (expected: no; buffer: yes)
    assert len(analysis["notes"]) == len(persian["notes"]) == 4
    assert "dimension 2 (40) is padded to 128" in analysis["notes"][1]
    assert persian["notes"][1].startswith("مورد انتظار: بعد 2 با اندازه 40 تا 128")
    assert persian["fixes_first"][0].startswith("طرح‌بندی‌ای را که برنامه برایش کامپایل شده")


def test_a_padded_dimension_is_said_in_a_sentence_not_in_tiling_jargon(capsys):
    """``(tile entry 128, physical position 0 from minor)`` had to be decoded (issue 22, item 8);
    the note now says where the dimension lies in memory, in English and Persian."""
    from pathlib import Path

    from xladoctor.cli.main import main

    log = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples" / "tpu_job.log"
    for lang, words in (("en", "the dimension whose elements lie next to each other in memory"),
                        ("fa", "عنصرهای آن در حافظه کنار هم‌اند")):
        main(["explain", str(log), "--lang", lang, "--bidi", "logical", "--width", "400"])
        out = capsys.readouterr().out
        assert "tile entry" not in out and "from minor" not in out and "ورودی کاشی" not in out
        assert words in out.replace("\u2066", "").replace("\u2069", "").replace("\u200f", "")
