"""TPU default layouts per generation (xladoctor.ir.tpu_layouts) against libtpu's get_default_layout.

Two oracles: the committed table (libtpu's answers for a reviewed grid, written
by ``tests/tpu_layout_oracle.py write``; checked without libtpu) and, where
libtpu runs, a fresh seeded grid asked live.
"""

from __future__ import annotations

import collections
import json
import os
import random
import subprocess
import sys

import pytest

from tpu_layout_oracle import TABLE, TYPES, compare, grid, libtpu_available, probe, read_table
from xladoctor.ir.primitive import PRIMITIVE_TYPES
from xladoctor.ir.sizes import physical_bytes
from xladoctor.ir.tpu_layouts import (
    TPU_GENERATIONS,
    NoTpuDefault,
    default_for_generations,
    is_tpu_default,
    tpu_default_layout,
    tpu_default_shape,
)
from xladoctor.syntax.shape_parser import parse_shape

GENERATIONS = tuple(TPU_GENERATIONS)


def test_committed_table_covers_every_type_rank_and_generation():
    rows = read_table()
    assert len(rows) >= 500
    assert {r["type"] for r in rows} == set(TYPES)
    assert {len(r["dims"]) for r in rows} >= {0, 1, 2, 3, 4, 5}
    assert any(0 in r["dims"] for r in rows) and any(1 in r["dims"] for r in rows)
    for g in GENERATIONS:
        assert sum(1 for r in rows if g in r) >= 500, g


def test_model_agrees_with_every_committed_libtpu_answer():
    rows = read_table()
    cases = [(r["type"], tuple(r["dims"])) for r in rows]
    agree, bad = compare(cases, {g: [r[g] for r in rows] for g in GENERATIONS})
    assert bad == [], f"{len(bad)} of {agree + len(bad)} disagree:\n" + "\n".join(bad[:20])
    assert agree == len(rows) * len(GENERATIONS)


def test_committed_table_is_the_documented_grid():
    # The table is libtpu's answers for exactly grid(TABLE_SEED, TABLE_COUNT); a hand-edited row shows here.
    from tpu_layout_oracle import TABLE_COUNT, TABLE_SEED

    rows = read_table()
    assert [(r["type"], tuple(r["dims"])) for r in rows] == grid(TABLE_SEED, TABLE_COUNT)
    assert TABLE.read_text(encoding="utf-8").startswith("# get_default_layout from libtpu 0.0.42.1")


NEWER = ("v4", "v5e", "v5p", "v6e")
OLDER = ("v2", "v3")


@pytest.mark.parametrize("text, dims, newer, older", [
    # the E0102 "got" layout, the same on every generation
    ("bf16", (16, 1280, 40), "{1,2,0:T(8,128)(2,1)}", "{1,2,0:T(8,128)(2,1)}"),
    ("s8", (3, 5, 7), "{2,0,1:T(4,128)(4,1)}", "{2,1,0:T(8,128)(4,1)}"),  # v2/v3: 8-bit never below 8 rows
    ("s4", (33, 65), "{1,0:T(8,128)(8,1)E(4)}", "{1,0:T(8,128)(4,1)}"),  # v2/v3 keep s4 one per byte
    ("s2", (16, 1280, 40), "{1,0,2:T(16,128)(16,1)E(2)}", "{1,0,2:T(16,128)(4,1)}"),  # 40 would pad 16 rows
    ("f32", (), "{:T(128)}", "{:T(256)}"),
    ("pred", (), "{:T(512)}", "{:T(1024)}"),
    ("bf16", (100,), "{0:T(256)(128)(2,1)}", "{0:T(512)(128)(2,1)}"),
    ("s8", (513,), "{0:T(1024)(128)(4,1)}", "{0:T(1024)(128)(4,1)}"),
    ("u1", (7,), "{0:T(4096)(128)(32,1)E(1)}", "{0:T(1024)(128)(4,1)}"),
    ("f32", (5, 0, 3), "{2,1,0}", "{2,1,0}"),
    ("s4", (5, 0), "{1,0:E(4)}", "{1,0}"),
    ("f64", (1, 300), "{1,0:T(1,128)}", "{1,0:T(2,128)}"),
    ("s8", (64, 57), "{1,0:T(32,128)(4,1)}", "{1,0:T(8,128)(4,1)}"),
])
def test_known_layouts(text, dims, newer, older):
    for g in NEWER:
        assert str(tpu_default_layout(text, dims, g)) == newer
    for g in OLDER:
        assert str(tpu_default_layout(text, dims, g)) == older


def test_refusals():
    with pytest.raises(NoTpuDefault):
        tpu_default_layout("f6e2m3fn", (4, 4), "v5e")
    with pytest.raises(NoTpuDefault):
        tpu_default_layout("f32", (4, 4), "v7x")
    with pytest.raises(NoTpuDefault):
        tpu_default_layout("token", (), "v5e")
    with pytest.raises(NoTpuDefault):
        tpu_default_layout("f32", (1 << 31, 1 << 31, 1 << 31), "v5e")


def test_default_shape_keeps_memory_space_and_fills_tuples():
    s = parse_shape("(bf16[16,1280,40]{2,1,0:T(8,128)(2,1)S(5)}, s8[3,5,7], token[])")
    full = tpu_default_shape(s, "v4")
    assert str(full) == "(bf16[16,1280,40]{1,2,0:T(8,128)(2,1)S(5)}, s8[3,5,7]{2,0,1:T(4,128)(4,1)}, token[])"
    # the seed's two sizes: the default is the dense one
    assert physical_bytes(full.tuple_shapes[0]) == 1638400


def test_is_default_and_generations():
    got = parse_shape("bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}")
    expected = parse_shape("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}")
    assert default_for_generations(got) == GENERATIONS
    assert default_for_generations(expected) == ()
    assert is_tpu_default(parse_shape("bf16[16,1280,40]{1,2,0:T(8,128)(2,1)S(5)}"), "v5e")
    assert not is_tpu_default(parse_shape("bf16[16,1280,40]"), "v5e")  # no layout: nothing to compare


def test_every_type_has_a_default_or_a_reason():
    for name, et in PRIMITIVE_TYPES.items():
        if name in TYPES:
            assert tpu_default_layout(et, (3, 130), "v6e").tiles
        else:
            with pytest.raises(NoTpuDefault):
                tpu_default_layout(et, (3, 130), "v6e")


def test_model_against_libtpu_live():
    """A fresh seeded grid of 600 cases per generation, asked of libtpu now (skips without libtpu)."""
    reason = libtpu_available()
    if reason:
        pytest.skip(f"live libtpu check skipped: {reason}")
    seed = int(os.environ.get("XLADOCTOR_TPU_LAYOUT_SEED", random.SystemRandom().randrange(1 << 30)))
    cases = grid(seed, 600)
    try:
        result = probe(cases)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"live libtpu check skipped: libtpu did not run here: {str(e)[:300]}")
    if result["libtpu"] != result["modelled_libtpu"]:
        pytest.skip(f"live libtpu check skipped: libtpu {result['libtpu']} is installed, the model reproduces "
                    f"{result['modelled_libtpu']} (pip install 'libtpu=={result['modelled_libtpu']}')")
    agree, bad = compare(cases, result["layouts"])
    counts = collections.Counter(line.split()[0] for line in bad)
    assert bad == [], (f"seed {seed} (rerun with XLADOCTOR_TPU_LAYOUT_SEED={seed}), libtpu {result['libtpu']}: "
                       f"{len(bad)} disagree {dict(counts)}:\n" + "\n".join(bad[:20]))
    assert agree == 600 * len(GENERATIONS)


# --- xladoctor shape --tpu ----------------------------------------------------------------------

def _shape_cli(argv, capsys, stdin=None, monkeypatch=None):
    import io

    from xladoctor.cli.main import main

    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
    code = main(["shape", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_shape_without_layout_is_sized_with_the_default(capsys):
    code, out, err = _shape_cli(["bf16[16,1280,40]", "--tpu", "v5e", "--json"], capsys)
    doc = json.loads(out)
    assert code == 0 and err == ""
    assert doc["shape"] == "bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}"
    assert doc["physical_bytes"] == doc["logical_bytes"] == 1_638_400
    tpu = doc["tpu"]
    assert tpu["layout_given"] is False and tpu["is_default"] is True
    assert tpu["default_layout"] == "{1,2,0:T(8,128)(2,1)}" and tpu["default_physical_bytes"] == 1_638_400
    assert tpu["same_default_on"] == list(GENERATIONS)  # v2 ... v6e agree on this one


def test_shape_with_layout_says_whether_it_is_the_default(capsys):
    code, out, _ = _shape_cli(["bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}", "--tpu", "v6e"], capsys)
    assert code == 0
    assert "physical bytes  5,242,880 B" in out  # sized as written
    assert "TPU v6e default {1,2,0:T(8,128)(2,1)}" in out
    assert "the given layout is not the v6e default" in out
    assert "the default takes 1,638,400 B (1.56 MiB) physical (1.00x of logical)" in out
    code, out, _ = _shape_cli(["s8[3,5,7]{2,0,1:T(4,128)(4,1)S(5)}", "--tpu", "v4", "--json"], capsys)
    doc = json.loads(out)
    assert doc["tpu"]["is_default"] is True and doc["tpu"]["default_for_generations"] == list(NEWER)
    assert doc["memory_space"] == 5
    code, out, _ = _shape_cli(["s8[3,5,7]{2,0,1:T(4,128)(4,1)}", "--tpu", "v3"], capsys)
    assert "TPU v3 default  {2,1,0:T(8,128)(4,1)}  (as libtpu 0.0.42.1's get_default_layout; the same on v2, v3)" in out
    assert "the given layout is not the v3 default (it is the default on v4, v5e, v5p, v6e)" in out


def test_shape_tpu_stdin_tuples_and_refusals(capsys, monkeypatch):
    code, out, _ = _shape_cli(["-", "--tpu", "v5p", "--json"], capsys,
                              stdin="s4[33,65]\n(f32[], u2[7,9]{1,0})\nf6e3m2fn[4]\n", monkeypatch=monkeypatch)
    docs = json.loads(out)["shapes"]
    assert code == 0
    assert docs[0]["shape"] == "s4[33,65]{1,0:T(8,128)(8,1)E(4)}" and docs[0]["physical_bytes"] == 2560
    leaves = docs[1]["leaves"]
    assert [leaf["tpu"]["default_layout"] for leaf in leaves] == ["{:T(128)}", "{1,0:T(16,128)(16,1)E(2)}"]
    assert leaves[1]["tpu"]["layout_given"] is True and leaves[1]["tpu"]["is_default"] is False
    assert docs[2]["tpu"]["default_layout"] is None and "f6e3m2fn" in docs[2]["tpu"]["reason"]
    with pytest.raises(SystemExit) as e:
        _shape_cli(["f32[2]", "--tpu", "v7x"], capsys)
    assert e.value.code == 2


# --- E0102: which side carries the TPU default ----------------------------------------------------

SEED_MESSAGE = (
    "INVALID_ARGUMENT: Executable(jit_embedding_pipeline_step_fn) expected parameter 2482 of size 5242880 "
    "(bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}) but got buffer with incompatible size 1638400 "
    "(bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}): while running replica 0 and partition 0 of a replicated "
    "computation (other replicas may have failed as well).")


def test_e0102_log_analysis_names_the_default_side():
    from xladoctor.base.labels import localize
    from xladoctor.inputs.messages import analyze_e0102, parse_e0102

    analysis = localize(analyze_e0102(parse_e0102(SEED_MESSAGE)), "en")
    persian = localize(analyze_e0102(parse_e0102(SEED_MESSAGE)), "fa")
    assert analysis["actual"]["tpu_default_for"] == list(GENERATIONS)
    assert analysis["expected"]["tpu_default_for"] == []
    assert analysis["expected"]["tpu_defaults"] == [{"generations": list(GENERATIONS),
                                                     "layout": "{1,2,0:T(8,128)(2,1)}"}]
    assert any(n.startswith("buffer: this layout is the TPU default for the shape (v2, v3, v4, v5e, v5p, v6e;")
               for n in analysis["notes"])
    assert ("expected: this layout is not a TPU default for the shape (v2, v3, v4, v5e, v5p, v6e: "
            "{1,2,0:T(8,128)(2,1)}): it was chosen (a layout given to jit, Layout.AUTO, or another compiler "
            "version; plain jax.jit gives parameters the default)") in analysis["notes"]
    assert len(persian["notes"]) == len(analysis["notes"])
    assert any("پیش‌فرض TPU" in n for n in persian["notes"])
    assert not any("different TPU generations" in n for n in analysis["notes"])
    # A layout printed without tiles (CPU/GPU, or a runtime hiding the tiling) gets no TPU claim.
    plain = localize(analyze_e0102(parse_e0102(SEED_MESSAGE.replace(":T(8,128)(2,1)", ""))), "en")
    assert "tpu_default_for" not in plain["actual"] and not any("TPU default" in n for n in plain["notes"])


def test_inputs_explanation_names_the_default_side():
    from xladoctor.inputs.compare import check_inputs
    from xladoctor.inputs.explanation import explanation_lines

    m = check_inputs([parse_shape("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}")],
                     [parse_shape("bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}")]).mismatches[0]
    text = "\n".join(explanation_lines(m))
    # the same notes (one piece of code) as explain gives a logged E0102
    assert ("supplied: this layout is the TPU default for the shape (v2, v3, v4, v5e, v5p, v6e; libtpu's "
            "get_default_layout)") in text
    assert ("expected: this layout is not a TPU default for the shape (v2, v3, v4, v5e, v5p, v6e: "
            "{1,2,0:T(8,128)(2,1)})") in text
    # two compiler choices, neither a default: nothing said
    m = check_inputs([parse_shape("f32[128,128]{1,0:T(8,128)}")],
                     [parse_shape("f32[128,128]{0,1:T(4,128)}")]).mismatches[0]
    assert str(tpu_default_layout("f32", (128, 128), "v5e")) == "{1,0:T(8,128)}"
    lines = explanation_lines(m)
    assert any(line.startswith("expected: this layout is the TPU default") for line in lines)
    assert any(line.startswith("supplied: this layout is not a TPU default for the shape (v2, v3, v4, v5e, v5p, "
                               "v6e: {1,0:T(8,128)})") for line in lines)
    m = check_inputs([parse_shape("f32[100,128]{0,1:T(8,128)}")],
                     [parse_shape("f32[100,128]{0,1:T(4,128)}")]).mismatches[0]
    assert not any("TPU default" in line for line in explanation_lines(m))
    # Reactant.jl#2497: the executable wants f32[5,4,3]'s TPU default; the buffer's layout was printed
    # without its tiling, so nothing is claimed about it.
    m = check_inputs([parse_shape("f32[5,4,3]{0,1,2:T(4,128)}")], [parse_shape("f32[5,4,3]{2,1,0}")]).mismatches[0]
    lines = [line for line in explanation_lines(m) if "TPU default" in line]
    assert len(lines) == 1 and lines[0].startswith("expected: this layout is the TPU default for the shape")


def test_e0102_buffer_laid_out_for_another_generation():
    from xladoctor.inputs.messages import analyze_e0102, parse_e0102

    # s8[3,5,7]: v4..v6e default {2,0,1:T(4,128)(4,1)} (2,560 B), v2/v3 default {2,1,0:T(8,128)(4,1)} (3,072 B)
    text = ("Executable(f) expected parameter 0 of size 2560 (s8[3,5,7]{2,0,1:T(4,128)(4,1)}) but got buffer with "
            "incompatible size 3072 (s8[3,5,7]{2,1,0:T(8,128)(4,1)})")
    from xladoctor.base.labels import localize

    analysis = localize(analyze_e0102(parse_e0102(text)), "en")
    persian = localize(analyze_e0102(parse_e0102(text)), "fa")
    assert analysis["expected"]["tpu_default_for"] == list(NEWER)
    assert analysis["actual"]["tpu_default_for"] == list(OLDER)
    assert analysis["actual"]["tpu_defaults"] == [
        {"generations": list(OLDER), "layout": "{2,1,0:T(8,128)(4,1)}"},
        {"generations": list(NEWER), "layout": "{2,0,1:T(4,128)(4,1)}"}]
    assert analysis["notes"][-1].startswith("the two layouts are the defaults of different TPU generations")
    assert persian["notes"][-1].startswith("دو طرح‌بندی، پیش‌فرض نسل‌های متفاوت TPU")
    shape = parse_shape("s8[3,5,7]{2,1,0:T(8,128)(4,1)}")
    assert physical_bytes(shape) == 3072 and physical_bytes(tpu_default_shape(shape, "v5e")) == 2560
    from xladoctor.inputs.compare import check_inputs
    from xladoctor.inputs.explanation import explanation_lines

    m = check_inputs([parse_shape("s8[3,5,7]{2,0,1:T(4,128)(4,1)}")], [shape]).mismatches[0]
    assert any(line.startswith("the two layouts are the defaults of different TPU generations") for line in
               explanation_lines(m))
