"""E0102: checking supplied buffers against an executable's parameters, and explaining them.

Fixed cases come from published messages (the E0102 doc's seed, Reactant's libtpu
bump, tt-xla's f64/f32); side-by-side compiles come from real jax programs compiled
in the test (XLA:CPU honours column-major input layouts, so two compiles can
disagree without a TPU).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xladoctor.base.errors import InputError
from xladoctor.cli.main import main
from xladoctor.inputs.compare import ExpectedParameter, SuppliedBuffer, check_inputs
from xladoctor.inputs.explanation import explanation_lines, fixes, report_lines, summary
from xladoctor.inputs.jax_spelling import jax_format, jax_layout
from xladoctor.inputs.messages import parse_e0102
from xladoctor.inputs.param_names import parameter_names
from xladoctor.inputs.shapes_file import parse_shapes_file
from xladoctor.syntax.shape_parser import parse_shape

SEED_EXPECTED = "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}"
SEED_SUPPLIED = "bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}"
SEED_MESSAGE = (  # the user's log, printed by an older libtpu: one line, replica tail
    "INVALID_ARGUMENT: Executable(jit_embedding_pipeline_step_fn) expected parameter 2482 of size 5242880 "
    "(bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}) but got buffer with incompatible size 1638400 "
    "(bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}): while running replica 0 and partition 0 of a replicated "
    "computation (other replicas may have failed as well).")


def _seed_check():
    filler = parse_shape("f32[8,128]{1,0:T(8,128)}")
    expected = [filler] * 2482 + [parse_shape(SEED_EXPECTED)]
    supplied = [filler] * 2482 + [parse_shape(SEED_SUPPLIED)]
    return check_inputs(expected, supplied, "jit_embedding_pipeline_step_fn", replica=0, partition=0)


def test_seed_example_explains_itself():
    check = _seed_check()
    assert not check.ok and len(check.mismatches) == 1
    m = check.mismatches[0]
    assert (m.index, m.kind, m.expected_physical_bytes, m.supplied_bytes) == (2482, "size", 5242880, 1638400)
    assert m.attributes == ("minor_to_major",)
    # what libtpu 0.0.42.1 prints instead: the code line, the same Executable line, XLA's page
    code, executable, see = check.messages["tpu"].split("\n")
    assert code == "INVALID_ARGUMENT: E0102: RuntimeProgramInputMismatch:"
    assert "INVALID_ARGUMENT: " + executable == SEED_MESSAGE
    assert see == "See https://openxla.org/xla/errors/error_0102 for more details."
    old, new = parse_e0102(SEED_MESSAGE), parse_e0102(check.messages["tpu"])  # explain reads both forms
    assert {k: v for k, v in old.items() if k != "_span"} == {k: v for k, v in new.items() if k != "_span"}
    assert summary(m) == ("expected 5,242,880 bytes because dimension 2 (40) is padded to 128 in the minor-most "
                          "slot; supplied 1,638,400 bytes with no padding; 3.20x")
    assert m.expansion == pytest.approx(3.2)
    assert m.verdict("tpu").accepts is False and m.verdict("cpu_gpu").accepts is True
    assert "cpu_gpu" not in check.messages  # CPU/GPU compare logical bytes, equal here
    kinds = [f.kind for f in fixes(m)]
    assert kinds[:4] == ["device_put", "resave", "recompile", "config"]
    device_put = fixes(m)[0]
    assert "compiled.input_formats" in device_put.code
    assert "Format(Layout(major_to_minor=(0, 1, 2), tiling=((8, 128), (2, 1))), sharding)" in device_put.code
    assert "major_to_minor=(0, 2, 1)" in fixes(m)[2].code  # recompile with the checkpoint's layout
    text = "\n".join(explanation_lines(m))
    assert "wants dimension 2 minor-most" in text and "has dimension 1 minor-most" in text


def test_reactant_libtpu_bump_real_size_reveals_hidden_tiling():
    # EnzymeAD/Reactant.jl#2497: printed f32[5,4,3]{2,1,0} but 10240 bytes.
    check = check_inputs([parse_shape("f32[5,4,3]{0,1,2:T(4,128)}")],
                         [SuppliedBuffer(parse_shape("f32[5,4,3]{2,1,0}"), actual_bytes=10240)], "reactant")
    m = check.mismatches[0]
    assert check.messages["tpu"] == (
        "INVALID_ARGUMENT: E0102: RuntimeProgramInputMismatch:\n"
        "Executable(reactant) expected parameter 0 of size 6144 (f32[5,4,3]{0,1,2:T(4,128)}) "
        "but got buffer with incompatible size 10240 (f32[5,4,3]{2,1,0})\n"
        "See https://openxla.org/xla/errors/error_0102 for more details.")
    assert "f32[5,4,3]{2,1,0:T(4,128)}" in m.hidden_layout_candidates
    assert any("attributes the text does not show" in n for n in m.notes)


def test_cpu_gpu_and_stream_executor_messages_for_a_wrong_dtype():
    # tt-xla: "Executable expected parameter 0 of size 8 but got buffer with incompatible size 4".
    check = check_inputs([parse_shape("f64[]")], [parse_shape("f32[]")])
    m = check.mismatches[0]
    assert m.kind == "shape" and "element_type" in m.attributes
    assert check.messages["cpu_gpu"] == ("INVALID_ARGUMENT: Executable expected parameter 0 of size 8 but got "
                                         "buffer with incompatible size 4")
    assert check.messages["gpu"].endswith("incompatible size 4 ")
    assert check.messages["stream_executor"] == ("INVALID_ARGUMENT: Executable expected shape f64[] for argument 0 "
                                                 "but got incompatible shape f32[]")
    assert fixes(m)[0].kind == "data"


def test_reports_every_mismatch_but_messages_name_the_first():
    exp = [parse_shape(s) for s in ["f32[8,128]{1,0:T(8,128)}", SEED_EXPECTED, "s32[10]{0:T(1024)}", SEED_EXPECTED]]
    sup = [parse_shape(s) for s in ["f32[8,128]{1,0:T(8,128)}", SEED_SUPPLIED, "s32[10]{0:T(128)}", SEED_SUPPLIED]]
    check = check_inputs(exp, sup, "prog")
    assert [m.index for m in check.mismatches] == [1, 2, 3]
    assert "expected parameter 1 of size" in check.messages["tpu"]


def test_same_size_layout_difference_is_still_reported():
    check = check_inputs([parse_shape("f32[128,128]{1,0:T(8,128)}")], [parse_shape("f32[128,128]{0,1:T(8,128)}")])
    m = check.mismatches[0]
    assert m.kind == "layout" and m.verdict("tpu").accepts and m.verdict("cpu_gpu").accepts
    assert check.messages == {}
    assert any("wrong order" in line for line in explanation_lines(m))


def test_memory_space_difference():
    check = check_inputs([parse_shape("f32[8]{0:S(5)}")], [parse_shape("f32[8]{0}")])
    m = check.mismatches[0]
    assert m.kind == "memory_space" and m.attributes == ("memory_space",)
    assert "with_memory_kind('pinned_host')" in fixes(m)[0].code


def test_single_tuple_parameter_is_compared_per_element():
    tup = parse_shape("(f32[2]{0}, s32[3]{0})")
    check = check_inputs([ExpectedParameter(0, tup, "args")], [parse_shape("f32[2]{0}"), parse_shape("s32[4]{0}")])
    assert check.per_tuple_element and check.expected_count == 2
    assert [(m.index, m.expected.name) for m in check.mismatches] == [(1, "args[1]")]


def test_buffer_count_mismatch():
    check = check_inputs([parse_shape("f32[2]")] * 3, [parse_shape("f32[2]")] * 2)
    assert not check.ok and check.mismatches == []
    assert check.messages["cpu_gpu"] == ("INVALID_ARGUMENT: Execution supplied 2 buffers but compiled program "
                                         "expected 3 buffers")


def test_jax_spelling():
    layout = parse_shape("s4[4,8]{0,1:T(8,128)(8,1)E(4)}").layout
    assert jax_layout(layout) == ("Layout(major_to_minor=(1, 0), tiling=((8, 128), (8, 1)), "
                                  "sub_byte_element_size_in_bits=4)")
    assert jax_layout(layout, legacy=True).startswith("Layout(major_to_minor=(1, 0), _tiling=")
    assert jax_layout(parse_shape("f32[5]{0:T(256)}").layout) == "Layout(major_to_minor=(0,), tiling=((256,),))"
    assert jax_format(parse_shape("f32[5]{0:S(5)}"), "s") == \
        "Format(Layout(major_to_minor=(0,)), s.with_memory_kind('pinned_host'))"


def test_jax_spelling_constructs_the_same_layout_in_real_jax():
    pytest.importorskip("jax")
    from jax.experimental.layout import Layout
    for text in [SEED_EXPECTED, "s4[4,8]{0,1:T(8,128)(8,1)E(4)}", "f32[5]{0:T(256)}", "f32[2,3,4]{0,2,1}"]:
        layout = parse_shape(text).layout
        built = eval(jax_layout(layout), {"Layout": Layout})
        assert built.major_to_minor == layout.major_to_minor
        assert tuple(map(tuple, built.tiling or ())) == tuple(t.dimensions for t in layout.tiles)
        assert built.sub_byte_element_size_in_bits == layout.element_size_in_bits


# -- shapes files ---------------------------------------------------------------------

def test_shapes_file_names_sizes_comments():
    text = "# header\n\nparams['w'][0]: bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}  # note\nf32[5,4,3]{2,1,0} size=10240\n"
    bufs = parse_shapes_file(text, "s.txt")
    assert [(b.name, str(b.shape), b.actual_bytes) for b in bufs] == [
        ("params['w'][0]", SEED_SUPPLIED, None), (None, "f32[5,4,3]{2,1,0}", 10240)]


@pytest.mark.parametrize("line,col,msg", [
    ("x: f32[3", 9, "dimensions"),
    ("f32[3] zz", 8, "after shape"),
    (": f32[3]", 1, "empty name"),
    ("x:", 3, "expected a shape"),
    ("f32[2,2]{0,0}", 1, ""),
])
def test_shapes_file_errors_have_line_and_col(line, col, msg):
    with pytest.raises(InputError) as e:
        parse_shapes_file("# ok\n" + line + "\n", "s.txt")
    assert e.value.source == "s.txt" and e.value.line == 2
    assert msg in e.value.message
    if msg:
        assert e.value.col == col


# -- CLI ----------------------------------------------------------------------------------

def test_cli_seed_text_json_and_exit_codes(tmp_path, capsys):
    exp, sup = tmp_path / "exp.txt", tmp_path / "sup.txt"
    exp.write_text("f32[8,128]{1,0:T(8,128)}\n" * 2482 + SEED_EXPECTED + "\n")
    sup.write_text("f32[8,128]{1,0:T(8,128)}\n" * 2482 + SEED_SUPPLIED + "\n")
    args = ["inputs", str(exp), "--supplied-shapes", str(sup), "--executable", "jit_embedding_pipeline_step_fn",
            "--replica", "0", "--partition", "0"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "parameter 2482: size mismatch" in out and "3.20x" in out
    assert "\n    " + SEED_MESSAGE.removeprefix("INVALID_ARGUMENT: ") + "\n" in out  # its Executable line
    assert main(args + ["--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema_version"] == 1 and doc["command"] == "inputs" and doc["ok"] is False
    m = doc["mismatches"][0]
    assert m["index"] == 2482 and m["expected"]["physical_bytes"] == 5242880
    assert m["supplied"]["physical_bytes"] == 1638400 and m["expansion"] == pytest.approx(3.2)
    assert m["expected"]["padding"][0] == {"dim": 2, "size": 40, "padded_size": 128, "tile_entry": 128,
                                           "physical_position": 0, "combined": False}
    assert m["runtimes"]["tpu"]["accepts"] is False
    assert doc["messages"]["tpu"].split("\n")[1] == SEED_MESSAGE.removeprefix("INVALID_ARGUMENT: ")
    assert main(["inputs", str(exp), "--supplied-shapes", str(exp)]) == 0


def test_cli_bad_line_is_one_line_error(tmp_path, capsys):
    exp, sup = tmp_path / "exp.txt", tmp_path / "sup.txt"
    exp.write_text("f32[2]\n")
    sup.write_text("# c\nf32[2}\n")
    assert main(["inputs", str(exp), "--supplied-shapes", str(sup)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{sup}:2:") and "\n" not in err


# -- real jax compiles ------------------------------------------------------------------------

def _compile(in_layouts=None, keep_unused=False):
    jax = pytest.importorskip("jax")
    np = pytest.importorskip("numpy")
    from jax.experimental.layout import Format, Layout
    from jax.sharding import SingleDeviceSharding

    def step(params, x, unused, scale):
        return (x @ params["w"] + params["b"][0]) * scale

    params = {"w": np.ones((4, 3), np.float32), "b": [np.ones((3,), np.float32)]}
    args = (params, np.ones((5, 4), np.float32), np.ones((2,), np.float32), np.float32(2))
    s = SingleDeviceSharding(jax.devices("cpu")[0])
    in_shardings = None
    if in_layouts:
        w = Format(Layout(major_to_minor=(1, 0)), s)
        in_shardings = ({"w": w, "b": [s]}, s, s, s)
    jitted = jax.jit(step, keep_unused=keep_unused, **({"in_shardings": in_shardings} if in_shardings else {}))
    lowered = jitted.lower(*args)
    return lowered.as_text("hlo"), lowered.compile().as_text()


def test_parameter_names_from_real_jax_metadata():
    from xladoctor.syntax.hlo_parser import parse_module
    pre, post = _compile()
    names = parameter_names(parse_module(post))
    assert [(n.path, n.source) for n in names] == [
        ("params['b'][0]", "metadata"), ("params['w']", "metadata"), ("x", "metadata"), ("scale", "metadata")]
    pre_names = parameter_names(parse_module(pre))
    assert [n.source for n in pre_names] == ["instruction_name"] * 4  # jax 0.10.2 puts no metadata pre-opt
    assert pre_names[1].path == "params__w__"


def test_two_real_compiles_side_by_side(tmp_path, capsys):
    _, default_post = _compile()
    _, colmajor_post = _compile(in_layouts=True)
    a, b = tmp_path / "a.hlo", tmp_path / "b.hlo"
    a.write_text(default_post)
    b.write_text(colmajor_post)
    assert main(["inputs", str(a), "--supplied", str(b), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["pairing"] == "name" and doc["executable"] == "jit_step"
    [m] = doc["mismatches"]
    assert (m["name"], m["kind"], m["expected"]["shape"], m["supplied"]["shape"]) == \
        ("params['w']", "layout", "f32[4,3]{1,0}", "f32[4,3]{0,1}")
    assert m["expected"]["jax_layout"] == "Layout(major_to_minor=(0, 1))"
    assert m["supplied"]["jax_layout"] == "Layout(major_to_minor=(1, 0))"
    assert main(["inputs", str(a), "--supplied", str(a)]) == 0


def test_pairing_by_name_survives_dropped_arguments(tmp_path, capsys):
    _, dropped = _compile()
    _, kept = _compile(keep_unused=True)
    a, b = tmp_path / "a.hlo", tmp_path / "b.hlo"
    a.write_text(dropped)
    b.write_text(kept)
    assert main(["inputs", str(a), "--supplied", str(b), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["pairing"] == "name" and doc["mismatches"] == [] and doc["extra"] == ["unused"]
    assert main(["inputs", str(a), "--supplied", str(b), "--pair", "index", "--json"]) == 1
    by_index = json.loads(capsys.readouterr().out)
    assert by_index["mismatches"]  # positions shift after the dropped argument


def test_report_lines_for_an_ok_check():
    check = check_inputs([parse_shape("f32[2]")], [parse_shape("f32[2]")])
    assert check.ok and report_lines(check) == ["the 1 parameter matches"]


def test_inputs_quotes_the_tpu_runtime_as_the_chip_prints_it(tmp_path, capsys):
    """``inputs`` printed libtpu's E0102 in the older one-line form; the v5e (libtpu 0.0.42.1) prints
    three lines, recorded in tests/data/logs/jax_layout/tpu/runtime_e0102.log: quoted word for word."""
    log = (Path(__file__).parent / "data" / "logs" / "jax_layout" / "tpu" / "runtime_e0102.log").read_text()
    chip = log[log.index("INVALID_ARGUMENT: E0102"):].rstrip("\n").split("\n")
    (tmp_path / "expected.txt").write_text("f32[8,256]{1,0:T(8,128)}\n")
    (tmp_path / "supplied.txt").write_text("f32[8,256]{0,1:T(8,128)}\n")
    argv = ["inputs", str(tmp_path / "expected.txt"), "--supplied-shapes", str(tmp_path / "supplied.txt"),
            "--executable", "jit_f"]
    assert main([*argv, "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["messages"]["tpu"].split("\n") == chip
    assert main(argv) == 1
    out = capsys.readouterr().out.splitlines()
    at = out.index("  TPU runtime (PjRt): " + chip[0])
    assert out[at + 1:at + 3] == ["    " + line for line in chip[1:]]
