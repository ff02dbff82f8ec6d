"""xladoctor.jax.check_inputs / fix_inputs / checkpoints against real CPU executables."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

jax = pytest.importorskip("jax")
np = pytest.importorskip("numpy")
jnp = jax.numpy
from jax.experimental.layout import Format, Layout  # noqa: E402

from xladoctor.jax import check_checkpoint, check_inputs, fix_inputs, relayout_checkpoint  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
if EXAMPLES not in sys.path:
    sys.path.insert(0, EXAMPLES)
from check_inputs_layout import build  # noqa: E402  (the runnable example is the test's setup)


def _s():
    return jax.sharding.SingleDeviceSharding(jax.devices()[0])


@pytest.fixture(scope="module")
def setup():
    """(compiled for row-major w, row-major params, column-major params, x) from the example."""
    return build()


def test_cpu_really_holds_the_other_layout(setup):
    _, row, col, _ = setup
    assert col["w"].format.layout.major_to_minor == (1, 0)
    assert row["w"].format.layout.major_to_minor == (0, 1)


def test_mismatch_reported_with_path_and_sizes(setup):
    compiled, _, col, x = setup
    report = check_inputs(compiled, col, x)
    assert not report.ok and report.paths() == ["params['w']"]  # the Python name, as JAX's own error says
    m = report.mismatches[0]
    assert m.position == "args[0]['w']"
    assert m.kind == "layout" and m.will_fail
    assert str(m.expected) == "f32[256,40]{1,0}" and str(m.supplied) == "f32[256,40]{0,1}"
    assert (m.expected_bytes, m.supplied_bytes) == (40960, 40960)
    # Under TPU tiling the row-major buffer pads 40 -> 128 lanes; the column-major one does not.
    assert (m.tpu_expected_bytes, m.tpu_supplied_bytes) == (256 * 128 * 4, 40 * 256 * 4)
    assert "params['w'] = jax.device_put(params['w'], compiled.input_formats[0][0]['w'])" in str(report)


def test_jax_itself_refuses_the_call(setup):
    compiled, _, col, x = setup
    with pytest.raises(ValueError, match="disagree with the layouts"):
        compiled(col, x)


def test_fix_inputs_gives_identical_results(setup):
    compiled, row, col, x = setup
    args, kwargs = fix_inputs(compiled, col, x)
    assert check_inputs(compiled, *args, **kwargs).ok
    assert args[0]["b"] is col["b"]  # leaves that match are left alone
    np.testing.assert_array_equal(np.asarray(compiled(*args, **kwargs)), np.asarray(compiled(row, x)))


def test_uncommitted_values_are_not_errors(setup):
    compiled, row, _, x = setup
    w = np.asarray(row["w"])
    assert check_inputs(compiled, {"w": w, "b": np.asarray(row["b"])}, x).ok


def test_other_array_cannot_be_relaid_out(setup):
    compiled, row, _, x = setup
    bad = {"w": jax.device_put(np.ones((40, 256), np.float32), _s()), "b": row["b"]}
    report = check_inputs(compiled, bad, x)
    assert [m.kind for m in report.mismatches] == ["shape"]
    with pytest.raises(ValueError, match="params\\['w'\\]"):
        fix_inputs(compiled, bad, x)


def test_layout_mismatch_report_is_consistent(setup):
    """Issue 11: the heading said "(will fail)" and then every runtime "would run with this
    buffer"; now the runtimes' verdicts are said for a caller that gets past JAX."""
    compiled, _, col, x = setup
    text = str(check_inputs(compiled, col, x))
    assert "the call fails: JAX refuses a committed argument" in text
    assert "past JAX" in text and "would run with this buffer" in text
    assert text.index("JAX refuses the call first") < text.index("would run with this buffer")
    assert "cpu_gpu" not in text and "stream_executor" not in text  # readers' names, not ours
    assert "40,960 B" in text


def test_shape_mismatch_suggests_no_device_put(setup):
    """fix_inputs refuses another array; the report must not suggest the device_put it refuses."""
    compiled, row, _, x = setup
    bad = {"w": jax.device_put(np.ones((40, 256), np.float32), _s()), "b": row["b"]}
    text = str(check_inputs(compiled, bad, x))
    assert "another array, not another layout" in text
    assert "device_put" not in text and "no relayout helps" in text


def test_structure_mismatch(setup):
    compiled, row, _, _x = setup
    report = check_inputs(compiled, row)
    assert report.structure_error and not report.ok


def test_memory_kind_mismatch(setup):
    compiled, row, _, x = setup
    host = {"w": jax.device_put(row["w"], _s().with_memory_kind("pinned_host")), "b": row["b"]}
    report = check_inputs(compiled, host, x)
    assert [m.kind for m in report.mismatches] == ["memory_space"]
    args, _kwargs = fix_inputs(compiled, host, x)
    assert args[0]["w"].sharding.memory_kind == "device"
    np.testing.assert_array_equal(np.asarray(compiled(*args)), np.asarray(compiled(row, x)))


def test_checkpoint_arrays_metadata_and_dicts(setup):
    compiled, row, col, _ = setup
    assert check_checkpoint(compiled, row).ok
    assert check_checkpoint(compiled, col).paths() == ["state['w']"]
    sds = {"w": jax.ShapeDtypeStruct((256, 40), jnp.float32, sharding=Format(Layout(major_to_minor=(1, 0)), _s())),
           "b": jax.ShapeDtypeStruct((256,), jnp.float32, sharding=_s())}
    assert check_checkpoint(compiled, sds).paths() == ["state['w']"]
    meta = {"w": {"shape": (256, 40), "dtype": "float32", "layout": "{0,1:T(8,128)}"},
            "b": {"shape": (256,), "dtype": "float32", "layout": (0,)}}
    report = check_checkpoint(compiled, meta)
    assert report.paths() == ["state['w']"] and report.mismatches[0].kind == "layout"
    assert report.mismatches[0].supplied_bytes == 40 * 256 * 4
    targets = relayout_checkpoint(compiled, meta)
    assert targets["w"].format.layout.major_to_minor == (0, 1)
    assert targets["b"] is meta["b"]


def test_relayout_checkpoint_arrays(setup):
    compiled, row, col, x = setup
    fixed = relayout_checkpoint(compiled, col)
    assert check_checkpoint(compiled, fixed).ok
    np.testing.assert_array_equal(np.asarray(fixed["w"]), np.asarray(row["w"]))
    assert float(compiled(fixed, x)) == float(compiled(row, x))


@pytest.mark.parametrize("script", ["check_inputs_layout.py", "check_checkpoint.py"])
def test_example_scripts(script):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, script)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "mismatch (the call fails" in proc.stdout


def test_text_is_drawn_by_the_findings_renderer(setup):
    """str(report) is the E0102 renderer of report/finding_text.py on the report's findings, each
    with its leaf's facts (fields["jax"]); the diagnostics carry the leaf's own device_put line as
    the DEVICE_PUT fix's code and no JAX facts, and draw as `check` draws them."""
    from xladoctor.findings import FixKind
    from xladoctor.report.finding_text import render_finding

    compiled, row, col, x = setup
    report = check_inputs(compiled, col, x)
    (f,) = report.text_findings()
    assert f.fields["jax"]["path"] == "params['w']" and f.fields["jax"]["has_bytes"] == 40960
    assert str(report).splitlines() == render_finding(f)
    (plain,) = report.diagnostics().findings
    assert "jax" not in plain.fields
    put = next(x for x in plain.fixes if x.kind is FixKind.DEVICE_PUT)
    assert put.code.startswith("params['w'] = jax.device_put(params['w'], compiled.input_formats[0][0]['w'])")
    assert render_finding(plain)[0].startswith("E0102 ")
    bad = {"w": jax.device_put(np.ones((40, 256), np.float32), _s()), "b": row["b"]}
    (shape,) = check_inputs(compiled, bad, x).text_findings()
    assert [line for line in render_finding(shape) if line.startswith("  fix: ")] == \
        [f"  fix: {x.text}" for x in shape.fixes]


def test_names_the_leaf_as_jax_s_own_error_does(setup):
    """JAX's ValueError says "Argument params['w']"; the report uses the same name."""
    compiled, _, col, x = setup
    with pytest.raises(ValueError) as raised:
        compiled(col, x)
    report = check_inputs(compiled, col, x)
    assert f"Argument {report.paths()[0]} " in str(raised.value)
    assert str(report).startswith("params['w']: layout mismatch")


def test_tpu_runtime_judged_by_the_tpu_tiled_sizes_the_report_gives(setup):
    """One story: "with TPU tiling: expects 131,072 B, has 40,960 B" and the TPU runtime's verdict
    compare the same bytes (it rejects); the CPU executable's own untiled layouts are equal in size."""
    compiled, _, col, x = setup
    text = str(check_inputs(compiled, col, x))
    tiling = next(ln for ln in text.splitlines() if "with TPU tiling" in ln)
    assert "[131,072 B]" in tiling and "[40,960 B]" in tiling
    tpu = next(ln for ln in text.splitlines() if "TPU runtime (PjRt):" in ln)
    assert "rejects" in tpu and "131,072 vs 40,960" in tpu and "under TPU tiling" in tpu
    assert "TPU runtime (PjRt) would not" in text


def test_a_shape_dtype_struct_without_a_format_is_not_called_a_match(setup):
    compiled, row, _, x = setup
    described = {"w": jax.ShapeDtypeStruct(row["w"].shape, row["w"].dtype), "b": row["b"]}
    report = check_inputs(compiled, described, x)
    text = str(report)
    assert report.unchecked == ["params['w']"]
    assert "params['w']: layout not checked" in text and "all 3" not in text
    assert "the other 2 argument leaves match" in text
    with_format = {"w": jax.ShapeDtypeStruct(row["w"].shape, row["w"].dtype, sharding=row["w"].format),
                   "b": row["b"]}
    assert str(check_inputs(compiled, with_format, x)) == "all 3 argument leaves match the executable's input formats"


def test_the_json_says_the_place_in_the_call_and_the_unchecked_leaves(setup):
    """``to_json`` had the leaf's Python name only, and nothing of the leaves it could not check:
    ``positions`` names each of ``paths``' leaves as the call has it, ``unchecked`` the layouts
    not checked; both validate against jax_inputs.schema.json."""
    from json_schema_check import schema_errors

    compiled, row, col, x = setup
    doc = check_inputs(compiled, col, x).to_json()
    assert doc["paths"] == ["params['w']"] and doc["positions"] == ["args[0]['w']"] and doc["unchecked"] == []
    assert schema_errors(doc, "jax_inputs") == []
    described = {"w": jax.ShapeDtypeStruct(row["w"].shape, row["w"].dtype), "b": row["b"]}
    doc = check_inputs(compiled, described, x).to_json()
    assert doc["unchecked"] == ["params['w']"] and doc["positions"] == []
    assert schema_errors(doc, "jax_inputs") == []
