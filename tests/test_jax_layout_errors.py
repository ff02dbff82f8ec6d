"""JAX's own layout and memory-kind errors (catalogue E01xx) and the runtime's coded E0102 text.

The logs in tests/data/logs/jax_layout/ are real: each is a program's stderr as raised by jax
0.10.2 on CPU (``regenerate.py`` there reruns them; ``tpu/`` holds the TPU runs when present).
Forms a CPU cannot raise are written here from the f-strings of jax's sources and the format
strings of jaxlib's messages, and say so.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from json_schema_check import schema_errors
from xladoctor.base.labels import localize
from xladoctor.catalogue.fixes import finding_fixes
from xladoctor.catalogue.scanner import LogScanner
from xladoctor.cli.main import main

DATA = Path(__file__).parent / "data" / "logs" / "jax_layout"
LOGS = sorted(DATA.glob("*.log")) + sorted(DATA.glob("tpu/*.log"))

# log name -> the form JAX raised
FORMS = {
    "jit_in_shardings_format": "jit_layout", "jit_in_shardings_auto": "jit_layout",
    "aot_compiled_layouts": "compiled", "deserialized_layouts": "compiled", "aot_compiled_many_layouts": "compiled",
    "aot_compiled_memory_kind": "compiled", "aot_compiled_layouts_and_memory_kind": "compiled",
    "jit_memory_kind": "jit_memory_kind", "unknown_memory_kind": "unknown_memory_kind",
    "layout_annotation_rank": "layout_rank", "device_put_layout_rank": "layout_rank",
    "jit_device_local_layout": "device_local_layout",
    "donated_layouts_differ": "donated_layout", "format_without_sharding": "format_without_sharding",
    "device_put_auto": "device_put_auto", "shape_dtype_struct_auto": "auto_not_concrete",
    "make_array_from_callback_auto": "auto_not_concrete", "mixed_memory_spaces": "mixed_memory_spaces",
    "single_device_arrays_memory_kind": "buffer_memory_kind", "pytest_aot_compiled_layouts": "compiled",
}


def _scan(text: str):
    return LogScanner().scan_binary(io.BytesIO(text.encode()))


def _one(path: Path):
    (f,) = _scan(path.read_text())
    return f


def test_every_cpu_form_was_captured():
    assert {p.stem for p in DATA.glob("*.log")} == set(FORMS)


@pytest.mark.parametrize("path", [p for p in LOGS if p.stem != "runtime_e0102"], ids=lambda p: p.stem)
def test_each_captured_error_is_one_e01xx_finding_quoted_whole(path):
    f = _one(path)
    assert f.code == "E01xx" and f.fields["variant"] == FORMS[path.stem]
    # The message is quoted as raised, every line of it (JAX's argument list included).
    lines = path.read_text().splitlines()
    if path.stem.startswith("pytest_"):  # pytest's report: the error is its lines marked "E"
        lines = [ln for ln in lines if ln.startswith("E ")] + ["--------------------"]
    error = [i for i, ln in enumerate(lines) if ln.lstrip("E ").startswith(("ValueError:", "TypeError:"))][-1]
    body = lines[error:]
    body = body[:body.index("--------------------")] if "--------------------" in body else body
    assert f.text == "\n".join(body).strip()
    # Every fix renders in both languages, with the message's own values filled in.
    for lang in ("en", "fa"):
        fixes = finding_fixes(f, lang)
        assert fixes and all("{" not in fix.replace("{1,0", "").replace("{0,1", "") for fix in fixes)


def test_explain_exits_1_and_its_json_follows_the_schema(capsys):
    for path in LOGS:
        assert main(["explain", str(path), "--json"]) == 1, path
        doc = json.loads(capsys.readouterr().out)
        assert schema_errors(doc, "explain") == [], path
        assert [f["code"] for f in doc["findings"]] == ["E0102" if path.stem == "runtime_e0102" else "E01xx"]


def test_jit_given_a_format_the_argument_does_not_have():
    f = _one(DATA / "jit_in_shardings_format.log")
    assert f.fields["jit_layout"].startswith("Layout(major_to_minor=(0, 1)")
    assert f.fields["arg_layout"].startswith("Layout(major_to_minor=(1, 0)")
    assert f.fields["aval"] == "float32[8,256]"
    a = f.analysis
    # CPU layouts are untiled: same bytes there, and the TPU story under T(8,128).
    assert (a["expected_shape"], a["passed_shape"]) == ("f32[8,256]{1,0}", "f32[8,256]{0,1}")
    assert a["expected_bytes"] == a["passed_bytes"] == 8192
    assert (a["tpu_expected_bytes"], a["tpu_passed_bytes"]) == (8192, 131072)
    notes = [n.render("en") for n in a["notes"]]
    assert any("dimension 0 (8) is padded to 128" in n for n in notes)
    assert "x = jax.device_put(x, Format(Layout(major_to_minor=(0, 1)" in finding_fixes(f, "en")[0]


def test_layout_auto_given_to_jit_with_a_laid_out_array():
    f = _one(DATA / "jit_in_shardings_auto.log")
    assert f.fields["jit_layout"] == "AUTO" and "Consider passing a `jax.ShapeDtypeStruct`" in f.text
    assert "jax.ShapeDtypeStruct" in finding_fixes(f, "en")[0]


def test_aot_and_deserialised_executables_name_each_argument():
    for name in ("aot_compiled_layouts", "deserialized_layouts"):
        f = _one(DATA / f"{name}.log")
        assert f.fields["kinds"] == "layouts" and f.fields["count"] == 1
        (m,) = f.fields["mismatches"]
        assert (m["argument"], m["aval"], m["kind"]) == ("a", "float32[8,256]", "layout")
        (arg,) = f.analysis["arguments"]
        assert (arg["tpu_expected_bytes"], arg["tpu_passed_bytes"]) == (8192, 131072)
        fixes = finding_fixes(f, "en")
        assert fixes[0].startswith("Give a the layout the executable was compiled for")
        assert "xladoctor.jax.fix_inputs(compiled" in fixes[1]


def test_a_pytest_failure_is_read_through_its_e_marks():
    f = _one(DATA / "pytest_aot_compiled_layouts.log")
    (m,) = f.fields["mismatches"]
    assert m["argument"] == "a" and m["required"].startswith("Layout(major_to_minor=(0, 1)")
    assert f.analysis["arguments"][0]["tpu_passed_bytes"] == 131072


def test_five_of_six_mismatches_told_once():
    f = _one(DATA / "aot_compiled_many_layouts.log")
    assert (f.fields["shown"], f.fields["total"], len(f.fields["mismatches"])) == (5, 6, 5)
    assert f.fields["mismatches"][3]["argument"] == "args[3]"
    notes = [n.render("en") for n in f.analysis["notes"]]
    assert "the same mismatch for 5 arguments: args[0], args[1], args[2], args[3], args[4]" in notes
    assert "JAX shows the first five mismatches; 1 more arguments differ" in notes
    assert "args[3] = jax.device_put(args[3], compiled.input_formats[0][3])" in finding_fixes(f, "en")[3]


def test_memory_kind_of_an_aot_argument():
    f = _one(DATA / "aot_compiled_layouts_and_memory_kind.log")
    assert f.fields["kinds"] == "shardings and layouts"
    a, b = f.fields["mismatches"]
    assert a["kind"] == "layout"
    assert (b["argument"], b["aval"], b["kind"]) == ("b", "float32<host>[8,256]", "memory_kind")
    assert (b["passed_memory_kind"], b["required_memory_kind"]) == ("pinned_host", "device")
    fix = finding_fixes(f, "en")[1]
    assert "b = jax.device_put(b, b.sharding.with_memory_kind('device'))" in fix
    assert "b: in memory kind 'pinned_host', the program takes it in 'device'; moving it copies 8,192 bytes" in [
        n.render("en") for n in f.analysis["notes"]]
    only = _one(DATA / "aot_compiled_memory_kind.log")
    assert only.fields["kinds"] == "shardings" and only.fields["mismatches"][0]["kind"] == "memory_kind"


def test_memory_kind_errors_carry_both_kinds():
    f = _one(DATA / "jit_memory_kind.log")
    assert (f.fields["jit_memory_kind"], f.fields["arg_memory_kind"]) == ("pinned_host", "device")
    assert "with_memory_kind('pinned_host')" in finding_fixes(f, "en")[0]
    f = _one(DATA / "unknown_memory_kind.log")
    assert (f.fields["memory_kind"], f.fields["available"], f.fields["device"]) == (
        "hbm", "device, pinned_host, unpinned_host", "cpu")
    assert f.analysis["replaces_fixes"] is True
    f = _one(DATA / "mixed_memory_spaces.log")
    assert (f.fields["primitive"], f.fields["aval"], f.fields["other_aval"]) == (
        "add", "float32<host>[8,256]", "float32[8,256]")
    f = _one(DATA / "single_device_arrays_memory_kind.log")
    assert (f.fields["memory_kind"], f.fields["other_memory_kind"]) == ("pinned_host", "device")


def test_mixed_memory_spaces_inside_jit_get_only_their_own_fix():
    """Two operands of one op inside jit in different memories: no argument's layout is at fault,
    so the catalogue's argument advice ("Compile for the arrays you have: jit(f, in_shardings=
    x.format)", which keeps the host array in host memory, the error again) is not offered."""
    fixes = finding_fixes(_one(DATA / "mixed_memory_spaces.log"), "en")
    assert len(fixes) == 1 and fixes[0].startswith("Inside jit, add got one operand in host memory"), fixes


def test_a_log_of_jax_errors_is_not_counted_as_xla_errors(capsys):
    """JAX's own ValueErrors (E01xx, xladoctor's code: XLA defines none) are not "XLA errors"; the
    tally says "error" once a finding is not XLA's, and keeps XLA's word for a log of XLA's."""
    assert main(["explain", str(DATA / "mixed_memory_spaces.log")]) == 1
    out = capsys.readouterr().out
    assert out.rstrip().endswith("\n1 distinct error found") and "XLA error" not in out
    assert main(["explain", str(DATA / "mixed_memory_spaces.log"), "--lang", "fa"]) == 1
    assert "XLA" not in capsys.readouterr().out.rstrip().splitlines()[-1]


def test_layout_of_another_rank():
    f = _one(DATA / "layout_annotation_rank.log")
    assert f.fields["path"] == "a" and f.fields["layout"].startswith("Layout(major_to_minor=(0, 1, 2)")
    assert "Layout(major_to_minor=(0, 1))" in finding_fixes(f, "en")[0]


# Forms no CPU program raises: JAX's f-strings (pjit.py, pxla.py, core.py, mlir.py, state/types.py)
# and jaxlib's format strings, filled with values of the kind they print.
SOURCE_ONLY = {
    "layout_override": (
        "AssertionError: Unexpected XLA layout override: (XLA) Layout(major_to_minor=(1, 0), tiling=((8, 128),), "
        "sub_byte_element_size_in_bits=0) != Layout(major_to_minor=(0, 1), tiling=((8, 128),), "
        "sub_byte_element_size_in_bits=0) (User input layout) for type=float32[256,40]",
        {"side": "input", "aval": "float32[256,40]"}),
    "reshard_memory_kind": (
        "ValueError: sharding with memory_kind is not allowed. Please use `jax.device_put` to transfer to different "
        "memory spaces. Got sharding=NamedSharding(mesh=AbstractMesh('x': 1), spec=PartitionSpec('x',), "
        "memory_kind=pinned_host)", {}),
    "donation_memory_kinds": ("INVALID_ARGUMENT: Donation across different memory kinds is not implemented.", {}),
    "ref_memory_space": (
        "ValueError: Aval memory space MemorySpace.HOST does not match the requested memory space "
        "MemorySpace.DEVICE.", {"memory_space": "MemorySpace.HOST", "requested": "MemorySpace.DEVICE"}),
    "invalid_memory_kind": (
        "ValueError: INVALID_ARGUMENT: Invalid memory kind: hbm; available memory kinds: device, pinned_host",
        {"memory_kind": "hbm", "available": "device, pinned_host"}),
    "buffer_memory_kind": (
        "ValueError: PjRtBuffer's memory kind does not match sharding's memory kind. Got PjRtBuffer's memory kind: "
        "device vs shardings's memory kind: pinned_host", {"memory_kind": "pinned_host", "other_memory_kind": "device"}),
    "buffer_memory_kind ": (  # jaxlib, two single-device arrays (the trailing space keeps the key apart)
        "ValueError: Memory kind mismatch between single-device arrays. Got one array with memory kind 'device' "
        "and another with memory_kind 'pinned_host'", {"memory_kind": "device", "other_memory_kind": "pinned_host"}),
    "donated_layout": (
        "ValueError: Input layout being donated was Layout(major_to_minor=(0, 1), tiling=None, "
        "sub_byte_element_size_in_bits=0) while output layout was AUTO. Did you mean to set the **input layout** to "
        "**Layout.AUTO**?\nThis will allow for the input and output layout to be chosen by XLA and not the layout of "
        "the input which might not be optimal.", {"side": "input", "out_layout": "AUTO"}),
    "layout_constraint": (
        "ValueError: with_layout_constraint in eager mode can only be applied to jax.Arrays. Got <class "
        "'numpy.ndarray'>", {}),
}


@pytest.mark.parametrize("form", SOURCE_ONLY)
def test_forms_taken_from_the_sources(form):
    message, fields = SOURCE_ONLY[form]
    (f,) = _scan(message + "\n")
    assert f.code == "E01xx" and f.fields["variant"] == form.strip()
    assert {k: f.fields[k] for k in fields} == fields
    assert f.text == message.strip()
    assert finding_fixes(f, "fa") and localize(f.analysis, "fa")


def test_xla_layout_override_is_sized_with_its_tiles():
    (f,) = _scan(SOURCE_ONLY["layout_override"][0] + "\n")
    a = f.analysis
    assert (a["expected_shape"], a["passed_shape"]) == ("f32[256,40]{0,1:T(8,128)}", "f32[256,40]{1,0:T(8,128)}")
    # XLA's {0,1} keeps 256 minor (no padding); the user's {1,0} pads 40 to 128.
    assert (a["expected_bytes"], a["passed_bytes"]) == (40960, 131072)
    assert "tpu_expected_bytes" not in a


def test_a_wrapped_jit_message_is_read_across_the_break():
    text = (DATA / "jit_in_shardings_format.log").read_text().replace("on the respective arg. Got", "on the\nrespective arg. Got")
    (f,) = _scan(text)
    assert f.fields["aval"] == "float32[8,256]" and "the\nrespective arg. Got" in f.text
    assert f.fields["arg_layout"].startswith("Layout(major_to_minor=(1, 0)")


# -- E0102 as the TPU runtime prints it now (measured on a v5e, 2026-12-05): the code inside the
# message, the Executable line on its own, the link after it, no replica tail. --------------------

RUNTIME_E0102 = """\
Traceback (most recent call last):
  File "/home/user/runtime_e0102.py", line 15, in <module>
    compiled._executable.xla_extension_executable().execute_sharded([col])
jax.errors.JaxRuntimeError: INVALID_ARGUMENT: E0102: RuntimeProgramInputMismatch:
Executable(jit_f) expected parameter 0 of size 8192 (f32[8,256]{1,0:T(8,128)}) but got buffer with incompatible \
size 131072 (f32[8,256]{0,1:T(8,128)})
See https://openxla.org/xla/errors/error_0102 for more details.
"""


def _runtime_text() -> str:
    real = DATA / "tpu" / "runtime_e0102.log"
    return real.read_text() if real.exists() else RUNTIME_E0102


def test_the_runtime_s_coded_e0102_is_read_with_both_sizes_and_shapes():
    (f,) = _scan(_runtime_text())
    assert f.code == "E0102" and "coded_as" not in f.fields
    assert f.text.startswith("jax.errors.JaxRuntimeError: INVALID_ARGUMENT: E0102: RuntimeProgramInputMismatch:")
    assert f.text.endswith("See https://openxla.org/xla/errors/error_0102 for more details.")
    assert (f.fields["executable"], f.fields["parameter"]) == ("jit_f", 0)
    assert (f.fields["expected_size"], f.fields["actual_size"]) == (8192, 131072)
    assert f.fields["expected_shape"] == "f32[8,256]{1,0:T(8,128)}"
    assert f.fields["actual_shape"] == "f32[8,256]{0,1:T(8,128)}"
    assert f.fields["replica"] is None
    a = f.analysis
    assert (a["expected_physical_bytes"], a["actual_physical_bytes"]) == (8192, 131072)
    assert a["expected"]["size_matches_shape"] and a["actual"]["size_matches_shape"]
    padded = a["actual"]["padded_dimensions"]
    assert [(p["dim"], p["size"], p["padded_size"]) for p in padded] == [(0, 8, 128)]


def test_the_coded_e0102_wrapped_anywhere_is_still_one_finding():
    text = _runtime_text().replace(" but got buffer", "\n  but got buffer").replace("(f32[8,256]{0,1", "\n(f32[8,256]{0,1")
    (f,) = _scan(text)
    assert f.code == "E0102" and f.fields["actual_shape"] == "f32[8,256]{0,1:T(8,128)}"
    assert f.fields["actual_size"] == 131072


def test_the_jax_hook_explains_jit_given_a_format_too():
    """``xladoctor.jax.explain`` on the ValueError of ``jit(f, in_shardings=Format(...))(x)``, raised for real."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax.experimental.layout import Format, Layout

    import xladoctor.jax

    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    col = jax.device_put(jnp.ones((8, 256), jnp.float32), Format(Layout(major_to_minor=(1, 0)), s))
    with pytest.raises(ValueError, match="Layout passed to jit") as raised:
        jax.jit(lambda a: a * 2, in_shardings=Format(Layout(major_to_minor=(0, 1)), s))(col)
    note = xladoctor.jax.explain(raised.value)
    assert note is not None and "E01xx" in note and "131,072 bytes as passed" in note


def test_on_a_tpu_the_layouts_are_tiled_and_sized_as_printed():
    """The same calls on a TPU v5e: JAX prints the layouts with their tiles."""
    (f,) = _scan((DATA / "tpu" / "aot_compiled_layouts.log").read_text())
    (arg,) = f.analysis["arguments"]
    assert (arg["expected_shape"], arg["passed_shape"]) == ("f32[8,256]{1,0:T(8,128)}", "f32[8,256]{0,1:T(8,128)}")
    assert (arg["expected_bytes"], arg["passed_bytes"]) == (8192, 131072) and "tpu_expected_bytes" not in arg
    assert f.analysis["notes"][0].render("en").startswith("in the message's own layouts the value takes 8,192 bytes")
    # jit's layout printed with tiling=None: the TPU's default tiling, the argument's as printed.
    (f,) = _scan((DATA / "tpu" / "jit_in_shardings_format.log").read_text())
    assert (f.analysis["expected_bytes"], f.analysis["passed_bytes"]) == (8192, 131072)
    (f,) = _scan((DATA / "tpu" / "unknown_memory_kind.log").read_text())
    assert f.fields["device"] == "TPU v5 lite" and f.fields["memory_kind"] == "hbm"
    (f,) = _scan((DATA / "tpu" / "aot_compiled_layouts_and_memory_kind.log").read_text())
    assert f.fields["mismatches"][1]["kind"] == "memory_kind"


def test_the_runtime_e0102_was_captured_on_the_tpu():
    assert _runtime_text() == (DATA / "tpu" / "runtime_e0102.log").read_text()
    assert RUNTIME_E0102.split("jax.errors.", 1)[1] == _runtime_text().split("jax.errors.", 1)[1]


def test_two_errors_in_one_log_stay_two_findings():
    first = (DATA / "jit_memory_kind.log").read_text()
    second = (DATA / "aot_compiled_layouts.log").read_text()
    a, b = _scan(first + "retrying with the compiled step\n" + second)
    assert (a.fields["variant"], b.fields["variant"]) == ("jit_memory_kind", "compiled")
    assert "Computation" not in a.text and b.fields["mismatches"][0]["argument"] == "a"


def test_a_pure_sharding_mismatch_is_fixed_through_input_shardings():
    """JAX's format of the same check with two NamedShardings (pxla.py's f-string; no CPU mesh here)."""
    (f,) = _scan("ValueError: Computation was compiled for input shardings that disagree with the shardings of "
                 "arguments passed to it. Here are the 1 mismatches:\nArgument args[1] with shape float32[8,256]:\n"
                 "  Passed sharding: NamedSharding(mesh=Mesh('x': 1), spec=PartitionSpec(None,), memory_kind=device)\n"
                 "  Required sharding: NamedSharding(mesh=Mesh('x': 1), spec=PartitionSpec('x',), "
                 "memory_kind=device)\n")
    assert f.fields["mismatches"][0]["kind"] == "sharding"
    assert finding_fixes(f, "en")[0].endswith("args[1] = jax.device_put(args[1], compiled.input_shardings[0][1]).")
