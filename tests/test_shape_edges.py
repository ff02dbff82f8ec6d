"""`xladoctor shape` on shapes that are not plain arrays: tokens, tuples holding tokens,
dynamic dimensions whose PjRt buffers carry runtime sizes."""

import json

import pytest

from xladoctor.cli.main import main
from xladoctor.ir.sizes import (
    DYNAMIC_PREFIX,
    DYNAMIC_SUFFIX,
    dynamic_metadata_bytes,
    physical_bytes,
    runtime_bytes,
    runtime_kind,
)
from xladoctor.syntax.shape_parser import parse_shape


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("text", ["token[]", "(f32[2], token[])", "opaque[]", "(token[], (f32[3], token[]))"])
def test_non_array_leaves_are_reported_not_crashed(text, capsys):
    code, out, err = run(["shape", text], capsys)
    assert code == 0 and err == ""
    assert "token[]" in out or "opaque[]" in out
    code, out, err = run(["shape", text, "--json"], capsys)
    doc = json.loads(out)
    assert code == 0
    leaves = doc.get("leaves", [doc])
    assert any(leaf["element_type"] in ("token", "opaque") for leaf in leaves)


def test_token_holds_no_bytes(capsys):
    _code, out, _ = run(["shape", "token[]", "--json"], capsys)
    doc = json.loads(out)
    assert (doc["logical_bytes"], doc["physical_bytes"], doc["dims"]) == (0, 0, [])


def test_dynamic_shape_runtime_size_on_cpu_gpu_adds_four_bytes_per_dimension():
    # PjRtShapeAndMetadataTransferRequirements::Get, kSuffix: ArraySize + sizeof(int32) * rank.
    s = parse_shape("f32[<=10,4]")
    assert physical_bytes(s) == 160
    assert runtime_kind(s) == DYNAMIC_SUFFIX
    assert runtime_bytes(s) == 168
    assert runtime_bytes(parse_shape("bf16[<=7,3,5]")) == 7 * 3 * 5 * 2 + 12
    # a static array carries no metadata on a suffix runtime
    assert runtime_bytes(parse_shape("f32[10,4]")) == 160


def test_dynamic_shape_runtime_size_on_tpu_is_the_m_prefix():
    # kPrefix: every array gets its layout's M(n) bytes in front, dynamic or not.
    s = parse_shape("f32[<=10,4]{0,1:T(4,128)M(1024)}")
    assert runtime_kind(s) == DYNAMIC_PREFIX
    assert dynamic_metadata_bytes(s, DYNAMIC_PREFIX) == 1024
    assert runtime_bytes(s) == 2048 + 1024
    assert runtime_bytes(parse_shape("(f32[<=10]{0}, s32[<=3,2]{1,0})")) == 40 + 4 + 24 + 8


def test_shape_command_prints_the_runtime_size(capsys):
    code, out, _ = run(["shape", "f32[<=10,4]"], capsys)
    assert code == 0
    assert "runtime bytes   168 B" in out
    code, out, _ = run(["shape", "f32[<=10,4]", "--json"], capsys)
    assert json.loads(out)["runtime_bytes"] == {"kind": "suffix", "metadata_bytes": 8, "bytes": 168}
    code, out, _ = run(["shape", "f32[10,4]", "--json"], capsys)
    assert json.loads(out)["runtime_bytes"] is None


@pytest.mark.parametrize("array", ["s8[3,5,7]", "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}", "f32[<=10,4]"])
def test_buffer_is_reported_as_the_array_it_holds(array, capsys):
    # A b(...) buffer wraps one array and XLA sizes it as that array: no tuple index table,
    # no "leaves", and the array's own padding rows.
    _, out, _ = run(["shape", array, "--json"], capsys)
    want = json.loads(out)
    code, out, err = run(["shape", f"b({array})", "--json"], capsys)
    got = json.loads(out)
    assert code == 0 and err == ""
    assert got.pop("shape") == f"b({want.pop('shape')})"
    assert (got.pop("element_type"), want.pop("element_type")) == ("buffer", parse_shape(array).element_type.name)
    assert got == want
    code, out, _ = run(["shape", f"b({array})"], capsys)
    assert code == 0
    assert "tuple table" not in out and "leaf {}" not in out
    assert "physical bytes" in out


def test_buffer_gets_its_arrays_tpu_default(capsys):
    code, out, _ = run(["shape", "b(bf16[16,1280,40])", "--tpu", "v5e", "--json"], capsys)
    doc = json.loads(out)
    assert code == 0
    assert doc["shape"] == "b(bf16[16,1280,40]{1,2,0:T(8,128)(2,1)})"
    assert doc["tpu"]["default_layout"] == "{1,2,0:T(8,128)(2,1)}"
    _, out, _ = run(["shape", "(b(bf16[16,1280,40]), token[])", "--tpu", "v5e", "--json"], capsys)
    leaves = json.loads(out)["leaves"]
    assert leaves[0]["tpu"]["default_layout"] == "{1,2,0:T(8,128)(2,1)}" and "tpu" not in leaves[1]
